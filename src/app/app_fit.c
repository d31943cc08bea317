/* truecost fit's work: the model read (modelfile/), its terms computed
 * and each card judged (analysis/fit.h), what a server's log reported and
 * what a stored run measured put beside the prediction. */
#include <stdio.h>
#include <stdlib.h>

#include "analysis/fit_log.h"
#include "analysis/roofline_run.h"
#include "app/app.h"
#include "app/app_fit.h"
#include "core/tc_file.h"
#include "modelfile/modelfile.h"
#include "report/report_fit.h"
#include "views/view_fit.h"

/* Prints err and maps the error to an exit status: a file, run or store
 * that cannot be had is 2, bad content 1. */
static int failed(tc_err rc, const char *err)
{
    tc_app_error("fit: %s", err);
    return tc_app_exit_for(rc);
}

static int load_log(const char *path, tc_fit_log *log)
{
    char err[1024], *text = NULL;
    size_t len = 0;
    tc_err rc = tc_read_file(path, TC_FIT_LOG_MAX, "a server log (give the part of the load)",
                             &text, &len, err, sizeof err);
    if (rc == TC_OK)
        rc = tc_fit_log_parse(path, text, len, log, err, sizeof err);
    free(text);
    return rc == TC_OK ? 0 : failed(rc, err);
}

/* The cards of --gpu (from the spec table) and --vram, judged. */
static int judge_cards(const tc_app_fit_args *a, const tc_model_shape *m, const tc_fit_options *o,
                       const tc_fit_terms *t, tc_fit_card *cards, int *n)
{
    tc_roofline_table tab = {0};
    char err[1024];
    tc_err rc = a->n_gpu ? tc_roofline_table_load(&tab, a->specs, err, sizeof err) : TC_OK;
    int code = rc == TC_OK ? 0 : failed(rc, err);
    for (int i = 0; i < a->n_gpu && !code; i++) {
        const tc_gpu_spec *s = tc_roofline_lookup(&tab, a->gpu[i]);
        const char *near = s ? NULL : tc_roofline_closest(&tab, a->gpu[i]);
        if (!s)
            tc_app_error("fit: GPU '%s' is not in the table%s%s%s (see 'truecost roofline "
                         "--list'; --gpu-specs FILE adds rows, --vram GIB needs none)",
                         a->gpu[i], near ? "; did you mean '" : "", near ? near : "",
                         near ? "'?" : "");
        else if (tc_fit_card_from_spec(s, &cards[*n]) != 0)
            tc_app_error("fit: GPU '%s' has no memory figure in the table: give --vram GIB",
                         s->name);
        else
            tc_fit_judge(m, o, t, &cards[(*n)++]);
        code = s && *n == i + 1 ? 0 : TC_EXIT_USAGE;
    }
    if (!code && a->vram > 0) {
        tc_fit_card_vram(a->vram, &cards[*n]);
        tc_fit_judge(m, o, t, &cards[(*n)++]);
    }
    tc_roofline_table_free(&tab);
    return code;
}

static int load_run(const tc_app_fit_args *a, tc_fit_measured *run)
{
    tc_store *st;
    char err[1024];
    int code = tc_app_open_store(a->db, TC_STORE_READ, &st);
    if (code)
        return code;
    tc_err rc = tc_view_fit_measured(st, a->run, run, err, sizeof err);
    tc_store_close(st);
    return rc == TC_OK ? 0 : failed(rc, err);
}

/* Everything after the options: the model, its terms, the cards, the log
 * and the run, then the document. */
int tc_app_fit(const tc_app_fit_args *a, tc_fit_options *o)
{
    static tc_model_shape m;
    static tc_fit_log log;
    static tc_fit_measured run;
    tc_fit_terms t;
    tc_fit_card cards[TC_APP_FIT_MAX_CARDS + 1];
    int n = 0, code;
    char err[1024];
    tc_err rc = tc_modelfile_read(a->model, &m, err, sizeof err);
    if (rc != TC_OK)
        return failed(rc, err);
    if (a->log && (code = load_log(a->log, &log)) != 0)
        return code;
    if (a->log)
        o->engine = log.engine == TC_FIT_LOG_VLLM ? TC_FIT_ENGINE_VLLM : TC_FIT_ENGINE_LLAMACPP;
    tc_fit_resolve(o, &m, a->log != NULL);
    if ((rc = tc_fit_compute(&m, o, &t, err, sizeof err)) != TC_OK) {
        tc_app_error("fit: %s: %s", a->model, err);
        return TC_EXIT_USAGE;
    }
    if ((code = judge_cards(a, &m, o, &t, cards, &n)) != 0 ||
        (a->run && (code = load_run(a, &run)) != 0))
        return code;
    tc_fit_report r = {.model_path = a->model,
                       .model = &m,
                       .opts = o,
                       .terms = &t,
                       .cards = cards,
                       .n_cards = n,
                       .log_path = a->log,
                       .log = a->log ? &log : NULL,
                       .run = a->run ? &run : NULL};
    if (a->json)
        return tc_app_emit_json("fit", tc_report_fit_json(&r));
    return tc_app_check(tc_report_fit_text(stdout, &r), "fit: cannot write the output");
}
