/* truecost roofline's work: how close a stored run's single-stream decode came to the
 * bandwidth bound of its GPU, and the prefill bound; computed on read, so a corrected spec
 * table applies to old runs. */
#include <string.h>

#include "app/app.h"
#include "app/app_roofline.h"
#include "analysis/roofline_run.h"
#include "report/report_roofline.h"
#include "views/view_roofline.h"

int tc_app_roofline_table_load(const char *specs, tc_roofline_table *t)
{
    char err[1024];
    tc_err rc = tc_roofline_table_load(t, specs, err, sizeof err);
    if (rc == TC_OK)
        return 0;
    tc_app_error("%s", err);
    return rc == TC_ERR_NOMEM ? TC_EXIT_RUNTIME : TC_EXIT_USAGE;
}

/* Says what stops the decode ceiling and which option gives it; 0 when
 * nothing does. */
static int explain_missing(const tc_roofline_table *t, const tc_roofline_result *r,
                           const tc_run_info *run)
{
    if (r->missing & TC_ROOF_NEED_GPU) {
        tc_app_error("roofline: run %lld recorded no GPU (no GPU telemetry, none in its "
                     "environment); name one with --gpu NAME (see 'truecost roofline --list')",
                     (long long)run->id);
        return TC_EXIT_RUNTIME;
    }
    if (r->missing & TC_ROOF_NEED_SPEC) {
        const char *near = tc_roofline_closest(t, r->gpu_name);
        if (near)
            tc_app_error("roofline: GPU '%s' is not in the table; did you mean --gpu '%s'? (see "
                         "'truecost roofline --list')",
                         r->gpu_name, near);
        else
            tc_app_error("roofline: GPU '%s' is not in the table; add a row with --gpu-specs FILE "
                         "or pick one with --gpu NAME (see 'truecost roofline --list')",
                         r->gpu_name);
        return TC_EXIT_RUNTIME;
    }
    if (r->missing & TC_ROOF_NEED_BYTES) {
        tc_app_error("roofline: run %lld has no model size (the server reported no parameter "
                     "count and known quantisation%s); give --model-bytes N",
                     (long long)run->id, r->quant[0] ? "" : ", as only Ollama does");
        return TC_EXIT_RUNTIME;
    }
    return 0;
}

/* Finds the run and loads what the roofline takes from it. */
static int load_run(const tc_app_roofline_args *a, tc_run_info *run, tc_roofline_run *rr)
{
    tc_store *st;
    char err[1024];
    int code = tc_app_open_store(a->db, TC_STORE_READ, &st);
    if (code)
        return code;
    tc_err rc = tc_store_find_run(st, a->run, run, err, sizeof err);
    if (rc == TC_OK)
        rc = tc_view_roofline_run(st, run, rr, err, sizeof err);
    tc_store_close(st);
    return tc_app_check(rc, err);
}

static int roofline_run(const tc_app_roofline_args *a, const tc_roofline_table *t)
{
    tc_run_info run;
    tc_roofline_run rr;
    char err[1024];
    int code = load_run(a, &run, &rr);
    if (code)
        return code;
    tc_roofline_inputs in = {.gpu_name = a->gpu         ? a->gpu
                                         : rr.device[0] ? rr.device
                                                        : NULL,
                             .fingerprint_json = rr.fingerprint,
                             .model_bytes = a->model_bytes,
                             .params = a->params,
                             .kv_bytes_per_token = a->kv_bytes,
                             .measured_decode_tps = rr.decode_p50};
    tc_roofline_result r;
    if (tc_roofline_for_run(t, &in, &r, err, sizeof err) != TC_OK)
        tc_app_error("roofline: run %lld: %s; going on without it", (long long)run.id, err);
    if ((code = explain_missing(t, &r, &run)) == 0)
        code = a->json ? tc_app_emit_json("roofline",
                                          tc_report_roofline_json(&run, &r, rr.decode_n, a->specs))
                       : tc_app_check(tc_report_roofline_text(stdout, &run, &r, rr.decode_n), NULL);
    tc_view_roofline_run_free(&rr);
    return code;
}

static int print_list(const tc_roofline_table *t, const char *specs, int json)
{
    if (json)
        return tc_app_emit_json("roofline", tc_report_roofline_list_json(t, specs));
    return tc_app_check(tc_report_roofline_list(stdout, t, specs), NULL);
}

int tc_app_roofline(tc_app_roofline_args *a)
{
    tc_roofline_table t = {0};
    int code = tc_app_roofline_table_load(a->specs, &t);
    if (!code)
        code = a->list ? print_list(&t, a->specs, a->json) : roofline_run(a, &t);
    tc_roofline_table_free(&t);
    return code;
}
