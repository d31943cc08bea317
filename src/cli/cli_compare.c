/* truecost compare RUN_A RUN_B: two platforms side by side, ratios B/A
 * with bootstrap confidence intervals, the verdict on a claimed ratio, and
 * what else differs between the runs. Two sweeps (or --at) are compared on
 * their frontiers instead, at equal interactivity, a verdict per target. */
#include <math.h>
#include <string.h>

#include "analysis/compare.h"
#include "analysis/figures.h"
#include "cli.h"
#include "app/app_compare.h"
#include "cli_frontier.h"
#include "cli_opts.h"
#include "cli_read.h"
#include "app/app_roofline.h"
#include "app/app_runset.h"
#include "report/report_compare.h"
#include "views/view_compare.h"

static int parse_args(int argc, char **argv, tc_app_compare_args *a)
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

int tc_cmd_compare(int argc, char **argv)
{
    tc_app_compare_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("compare");
    return tc_app_compare(&a);
}
