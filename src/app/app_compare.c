/* truecost compare's work: two runs side by side, ratios B/A with bootstrap
 * confidence intervals, the verdict on a claimed ratio; two sweeps (or --at) on their
 * frontiers at equal interactivity; two training runs by their own figures. */
#include <math.h>
#include <string.h>

#include "app/app.h"
#include "app/app_compare.h"
#include "analysis/compare.h"
#include "app/app_frontier.h"
#include "analysis/figures.h"
#include "app/app_roofline.h"
#include "app/app_runset.h"
#include "report/report_compare.h"
#include "views/view_compare.h"

static int load_profiles(const tc_app_compare_args *a, tc_cost_profile *pa, tc_cost_profile *pb)
{
    if (!a->profile_a)
        return 0;
    if (tc_app_load_profile(a->profile_a, pa) || tc_app_load_profile(a->profile_b, pb))
        return -1;
    if (strcmp(pa->currency, pb->currency) != 0) {
        tc_app_error("compare: %s is in %s but %s is in %s: give both profiles in one currency",
                     a->profile_a, pa->currency, a->profile_b, pb->currency);
        return -1;
    }
    return 0;
}

/* Each side's bandwidth bound at its mean decode p50, from the spec table. */
static int bound_sides(const char *specs, tc_compare_result *r)
{
    tc_roofline_table t = {0};
    int code = tc_app_roofline_table_load(specs, &t);
    if (code)
        return code;
    tc_compare_bound(r, &t);
    tc_roofline_table_free(&t);
    return 0;
}

/* Loads, prices, bounds and judges the two sides into r; 0 or the exit
 * status after saying why. */
static int compare(tc_store *st, const tc_app_compare_args *a, const tc_cost_profile *pa,
                   const tc_cost_profile *pb, tc_compare_result *r)
{
    char err[1024];
    tc_compare_opts o = {a->resamples ? (int)a->resamples : TC_BOOT_RESAMPLES, (uint64_t)a->seed,
                         !isnan(a->claim), a->claim};
    if (tc_view_compare_platform(st, a->run_a, "A", a->profile_a ? pa : NULL, &r->a, err,
                                 sizeof err) != TC_OK ||
        tc_view_compare_platform(st, a->run_b, "B", a->profile_b ? pb : NULL, &r->b, err,
                                 sizeof err) != TC_OK) {
        tc_app_error("%s", err);
        return TC_EXIT_RUNTIME;
    }
    if (tc_compare_prepare(r, err, sizeof err) != TC_OK) {
        tc_app_error("compare: %s", err);
        return TC_EXIT_RUNTIME;
    }
    int code = bound_sides(a->specs, r);
    if (code)
        return code;
    if (tc_compare_finish(r, &o, err, sizeof err) != TC_OK) {
        tc_app_error("compare: %s", err);
        return TC_EXIT_RUNTIME;
    }
    return 0;
}

/* 1 when `which` names a sweep, 0 when not, -1 after saying it is not found. */
static int is_sweep(tc_store *st, const char *which)
{
    tc_runset set;
    if (tc_app_runset_find(st, which, &set))
        return -1;
    int sweep = set.is_group && set.n && strcmp(set.runs[0].group_kind, "sweep") == 0;
    tc_runset_free(&set);
    return sweep;
}

/* A claim is only true at a service level: two sweeps (or any two sides
 * with --at) are read on their frontiers at equal interactivity, priced
 * with each side's profile, and judged at every target. */
static int compare_frontiers(tc_store *st, const tc_app_compare_args *a, const tc_cost_profile *pa,
                             const tc_cost_profile *pb)
{
    if (!a->profile_a) {
        tc_app_error("compare: two sweeps are compared by cost at equal interactivity: give "
                     "--profile FILE (both sides) or --profile-a and --profile-b");
        return TC_EXIT_USAGE;
    }
    tc_frontier_ask ask = {.targets = a->targets,
                           .n_targets = a->n_targets,
                           .resamples = a->resamples ? (int)a->resamples : TC_FRONTIER_RESAMPLES,
                           .seed = (uint64_t)a->seed,
                           .has_claim = !isnan(a->claim),
                           .claim = a->claim};
    return tc_app_frontier_pair(st, a->run_a, a->run_b, pa, pb, NULL, &ask, a->json);
}

int tc_app_compare(tc_app_compare_args *a)
{
    tc_cost_profile pa, pb;
    if (load_profiles(a, &pa, &pb) < 0)
        return TC_EXIT_USAGE;
    tc_store *st;
    int code = tc_app_open_store(a->db, TC_STORE_READ, &st);
    if (code)
        return code;
    int train_a = tc_app_is_train(st, a->run_a), train_b = tc_app_is_train(st, a->run_b);
    if (train_a != train_b) {
        tc_app_error("compare: '%s' is a training run and '%s' is not: compare two training "
                     "runs (truecost train) or two serving runs",
                     train_a ? a->run_a : a->run_b, train_a ? a->run_b : a->run_a);
        tc_store_close(st);
        return TC_EXIT_USAGE;
    }
    if (train_a) {
        code = tc_app_train_compare(
            st, a->run_a, a->run_b, a->profile_a ? &pa : NULL, a->profile_b ? &pb : NULL,
            a->resamples ? (int)a->resamples : TC_BOOT_RESAMPLES, (uint64_t)a->seed, a->json);
        tc_store_close(st);
        return code;
    }
    int sweep_a = a->at ? 1 : is_sweep(st, a->run_a);
    int sweep_b = a->at || sweep_a < 0 ? 1 : is_sweep(st, a->run_b);
    if (sweep_a < 0 || sweep_b < 0) {
        tc_store_close(st);
        return TC_EXIT_RUNTIME;
    }
    if (a->at || (sweep_a && sweep_b)) {
        code = compare_frontiers(st, a, &pa, &pb);
        tc_store_close(st);
        return code;
    }
    tc_compare_result r;
    memset(&r, 0, sizeof r);
    code = compare(st, a, &pa, &pb, &r);
    if (!code && a->json)
        code = tc_app_emit_json("compare", tc_report_compare_json(&r));
    else if (!code)
        tc_report_compare_print(stdout, &r);
    tc_compare_result_free(&r);
    tc_store_close(st);
    return code;
}
