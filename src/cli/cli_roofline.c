/* truecost roofline: how close a stored run's single-stream decode came to
 * the bandwidth bound of its GPU, and the prefill bound; computed on read,
 * so a corrected spec table applies to old runs. */
#include <string.h>

#include "analysis/roofline_run.h"
#include "cli.h"
#include "cli_opts.h"
#include "cli_read.h"
#include "cli_roofline.h"
#include "report/report_roofline.h"
#include "views/view_roofline.h"

typedef struct roof_args {
    const char *run, *gpu, *specs, *db;
    double model_bytes, params, kv_bytes;
    int json, list;
} roof_args;

static int parse_params_opt(const char *text, void *ctx)
{
    roof_args *a = ctx;
    if (tc_roofline_parse_params(text, &a->params) == TC_OK)
        return 0;
    tc_app_error("roofline: --params: '%s' is not a parameter count (e.g. 8B, 135M, 8030261248)",
                 text);
    return -1;
}

static int parse_args(int argc, char **argv, roof_args *a)
{
    memset(a, 0, sizeof *a);
    const tc_cli_opt opts[] = {
        TC_OPT_DB(&a->db),
        TC_OPT_JSON(&a->json),
        TC_OPT_S("gpu", 0, &a->gpu),
        TC_OPT_S("gpu-specs", 0, &a->specs),
        TC_OPT_D("model-bytes", 0, &a->model_bytes, 1, 1e15),
        TC_OPT_C("params", 0, parse_params_opt, 1),
        TC_OPT_D("kv-bytes", 0, &a->kv_bytes, 0, 1e15),
        TC_OPT_F("list", 0, &a->list),
        TC_OPT_END,
    };
    if (tc_cli_parse("roofline", argc, argv, opts, a, &a->run, 1, NULL) < 0)
        return -1;
    if (a->list && a->run) {
        tc_app_error("roofline: --list takes no run");
        return -1;
    }
    if (!a->list && !a->run) {
        tc_app_error("roofline: which run? give its id or label (see 'truecost runs'), or --list");
        return -1;
    }
    return 0;
}

/* ---- the spec table, and the short form that compare prints --------------- */

int tc_cli_roofline_table_load(const char *specs, tc_roofline_table *t)
{
    char err[1024];
    tc_err rc = tc_roofline_table_load(t, specs, err, sizeof err);
    if (rc == TC_OK)
        return 0;
    tc_app_error("%s", err);
    return rc == TC_ERR_NOMEM ? TC_EXIT_RUNTIME : TC_EXIT_USAGE;
}

/* ---- one run ------------------------------------------------------------ */

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
static int load_run(const roof_args *a, tc_run_info *run, tc_roofline_run *rr)
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

static int roofline_run(const roof_args *a, const tc_roofline_table *t)
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

int tc_cmd_roofline(int argc, char **argv)
{
    roof_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("roofline");
    tc_roofline_table t = {0};
    int code = tc_cli_roofline_table_load(a.specs, &t);
    if (!code)
        code = a.list ? print_list(&t, a.specs, a.json) : roofline_run(&a, &t);
    tc_roofline_table_free(&t);
    return code;
}
