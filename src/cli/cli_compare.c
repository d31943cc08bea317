/* truecost compare RUN_A RUN_B: two platforms side by side, ratios B/A
 * with bootstrap confidence intervals, the verdict on a claimed ratio, and
 * what else differs between the runs. Two sweeps (or --at) are compared on
 * their frontiers instead, at equal interactivity, a verdict per target. */
#include <math.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/figures.h"
#include "cli.h"
#include "cli_frontier.h"
#include "cli_opts.h"
#include "cli_read.h"
#include "cli_roofline.h"
#include "app/app_runset.h"
#include "report/report_compare.h"
#include "views/view_compare.h"

typedef struct compare_args {
    const char *run_a, *run_b, *profile, *profile_a, *profile_b, *db, *specs, *at;
    int json;
    double targets[TC_FRONTIER_MAX_TARGETS];
    size_t n_targets;
    double claim;              /* NaN: no --claim */
    long long resamples, seed; /* resamples 0: the default (fewer for frontiers: each
                                  resample rebuilds two) */
} compare_args;

static int parse_args(int argc, char **argv, compare_args *a)
{
    memset(a, 0, sizeof *a);
    a->seed = TC_BOOT_SEED;
    a->claim = NAN;
    const tc_cli_opt opts[] = {
        TC_OPT_DB(&a->db),
        TC_OPT_JSON(&a->json),
        TC_OPT_PROFILES(&a->profile, &a->profile_a, &a->profile_b),
        TC_OPT_CLAIM(&a->claim),
        TC_OPT_RESAMPLES(&a->resamples),
        TC_OPT_SEED(&a->seed),
        TC_OPT_S("gpu-specs", 0, &a->specs),
        TC_OPT_AT_LIST(&a->at),
        TC_OPT_END,
    };
    const char *runs[2] = {NULL, NULL};
    if (tc_cli_parse("compare", argc, argv, opts, a, runs, 2, NULL) < 0)
        return -1;
    a->run_a = runs[0];
    a->run_b = runs[1];
    tc_cli_profiles_resolve(a->profile, &a->profile_a, &a->profile_b);
    if (!a->run_b) {
        tc_app_error("compare: give two runs, RUN_A and RUN_B (ids, labels or groups; see "
                     "'truecost runs')");
        return -1;
    }
    if (!a->profile_a != !a->profile_b) {
        tc_app_error("compare: give both --profile-a and --profile-b (each platform's own cost "
                     "profile), --profile for both, or none");
        return -1;
    }
    return tc_cli_frontier_targets("compare", a->at, a->targets, &a->n_targets);
}

static int load_profiles(const compare_args *a, tc_cost_profile *pa, tc_cost_profile *pb)
{
    char err[1024];
    if (!a->profile_a)
        return 0;
    if (tc_cost_profile_load(a->profile_a, pa, err, sizeof err) != TC_OK ||
        tc_cost_profile_load(a->profile_b, pb, err, sizeof err) != TC_OK) {
        tc_app_error("%s", err);
        return -1;
    }
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
    int code = tc_cli_roofline_table_load(specs, &t);
    if (code)
        return code;
    tc_compare_bound(r, &t);
    tc_roofline_table_free(&t);
    return 0;
}

/* Loads, prices, bounds and judges the two sides into r; 0 or the exit
 * status after saying why. */
static int compare(tc_store *st, const compare_args *a, const tc_cost_profile *pa,
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
static int compare_frontiers(tc_store *st, const compare_args *a, const tc_cost_profile *pa,
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

int tc_cmd_compare(int argc, char **argv)
{
    compare_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("compare");
    tc_cost_profile pa, pb;
    if (load_profiles(&a, &pa, &pb) < 0)
        return TC_EXIT_USAGE;
    tc_store *st;
    int code = tc_app_open_store(a.db, TC_STORE_READ, &st);
    if (code)
        return code;
    int train_a = tc_app_is_train(st, a.run_a), train_b = tc_app_is_train(st, a.run_b);
    if (train_a != train_b) {
        tc_app_error("compare: '%s' is a training run and '%s' is not: compare two training "
                     "runs (truecost train) or two serving runs",
                     train_a ? a.run_a : a.run_b, train_a ? a.run_b : a.run_a);
        tc_store_close(st);
        return TC_EXIT_USAGE;
    }
    if (train_a) {
        code = tc_app_train_compare(
            st, a.run_a, a.run_b, a.profile_a ? &pa : NULL, a.profile_b ? &pb : NULL,
            a.resamples ? (int)a.resamples : TC_BOOT_RESAMPLES, (uint64_t)a.seed, a.json);
        tc_store_close(st);
        return code;
    }
    int sweep_a = a.at ? 1 : is_sweep(st, a.run_a);
    int sweep_b = a.at || sweep_a < 0 ? 1 : is_sweep(st, a.run_b);
    if (sweep_a < 0 || sweep_b < 0) {
        tc_store_close(st);
        return TC_EXIT_RUNTIME;
    }
    if (a.at || (sweep_a && sweep_b)) {
        code = compare_frontiers(st, &a, &pa, &pb);
        tc_store_close(st);
        return code;
    }
    tc_compare_result r;
    memset(&r, 0, sizeof r);
    code = compare(st, &a, &pa, &pb, &r);
    if (!code && a.json)
        code = tc_app_emit_json("compare", tc_report_compare_json(&r));
    else if (!code)
        tc_report_compare_print(stdout, &r);
    tc_compare_result_free(&r);
    tc_store_close(st);
    return code;
}
