/* cost and compare of training runs: a step, 1,000 samples and a million
 * training tokens priced under a cost profile; two runs' ratios with
 * bootstrap intervals and the gap's reading. */
#include <stdlib.h>

#include "analysis/train_price.h"
#include "app/app.h"
#include "app/app_runset.h"
#include "report/report_train_price.h"
#include "views/view_train.h"

/* The training run `which`, loaded with its figures; an exit status. */
static int load(tc_store *st, const char *which, tc_view_train *v)
{
    char err[512];
    tc_run_info run;
    int found = 0;
    if (tc_store_find_run(st, which, &run, err, sizeof err) != TC_OK ||
        tc_view_train_load(st, &run, v, &found, err, sizeof err) != TC_OK) {
        tc_app_error("%s", err);
        return TC_EXIT_RUNTIME;
    }
    if (!found) {
        tc_app_error("'%s' has no training record: is it a training run (truecost train)?", which);
        return TC_EXIT_RUNTIME;
    }
    return 0;
}

int tc_app_train_cost(tc_store *st, const char *which, const tc_cost_profile *p, int json)
{
    tc_view_train v;
    int code = load(st, which, &v);
    if (code)
        return code;
    tc_training_cost c;
    if (tc_training_cost_compute(p, &v.fig, &c) != TC_OK) {
        tc_app_error("cost: training run '%s' has no step rate (fewer than two steps after its "
                     "warm-up), so no cost per step",
                     which);
        code = TC_EXIT_RUNTIME;
    } else if (json) {
        code = tc_app_emit_json("cost", tc_report_train_cost_json(&v, p, &c));
    } else {
        code = tc_app_check(tc_report_train_cost_text(stdout, &v, p, &c), NULL);
    }
    tc_view_train_free(&v);
    return code;
}

/* One side's steady step times and price. */
static int side(tc_view_train *v, const tc_cost_profile *p, tc_training_cost *c, double **ms,
                tc_training_side *s)
{
    size_t n = 0;
    if (tc_training_step_times(&v->info, v->steps, v->n_steps, ms, &n) != TC_OK) {
        tc_app_error("compare: out of memory");
        return TC_EXIT_RUNTIME;
    }
    int priced = p && tc_training_cost_compute(p, &v->fig, c) == TC_OK;
    *s = (tc_training_side){.fig = &v->fig, .step_ms = *ms, .n = n, .cost = priced ? c : NULL};
    return 0;
}

int tc_app_train_compare(tc_store *st, const char *run_a, const char *run_b,
                         const tc_cost_profile *pa, const tc_cost_profile *pb, int resamples,
                         uint64_t seed, int json)
{
    tc_view_train a, b;
    int code = load(st, run_a, &a);
    if (code)
        return code;
    if ((code = load(st, run_b, &b))) {
        tc_view_train_free(&a);
        return code;
    }
    double *ma = NULL, *mb = NULL;
    tc_training_cost ca, cb;
    tc_training_side sa, sb;
    tc_training_comparison r;
    char err[512];
    code = side(&a, pa, &ca, &ma, &sa);
    if (!code)
        code = side(&b, pb, &cb, &mb, &sb);
    if (!code && tc_training_compare(&sa, &sb, resamples, seed, &r, err, sizeof err) != TC_OK) {
        tc_app_error("compare: %s", err);
        code = TC_EXIT_RUNTIME;
    }
    const char *currency = pa ? pa->currency : NULL;
    if (!code && json)
        code = tc_app_emit_json(
            "compare", tc_report_train_compare_json(&a, &b, sa.cost, sb.cost, currency, &r));
    else if (!code)
        code = tc_app_check(
            tc_report_train_compare_text(stdout, &a, &b, sa.cost, sb.cost, currency, &r), NULL);
    free(ma);
    free(mb);
    tc_view_train_free(&a);
    tc_view_train_free(&b);
    return code;
}
