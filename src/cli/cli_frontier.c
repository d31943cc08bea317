/* truecost frontier: cost per million tokens at equal interactivity, one
 * platform's sweep or two, with bootstrap intervals and a claim verdict
 * per target. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bootstrap.h"
#include "analysis/frontier_cost.h"
#include "cli.h"
#include "app/app_frontier.h"
#include "core/tc_sort.h"
#include "core/tc_text.h"
#include "cli_opts.h"
#include "cli_frontier.h"
#include "cli_read.h"

int tc_cli_frontier_targets(const char *cmd, const char *text, double *out, size_t *n)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text ? text : "20,35,50,100");
    *n = 0;
    if (text && tc_list_has_empty(text)) {
        tc_app_error("%s: --at '%s': an empty item; expected interactivities (tokens/s per user) "
                     "above 0 separated by single commas, e.g. 20,35,50,100",
                     cmd, text);
        return -1;
    }
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end;
        double v = strtod(t, &end);
        if (*end || !(v >= TC_OPT_AT_MIN && v <= TC_OPT_AT_MAX) || *n == TC_FRONTIER_MAX_TARGETS) {
            tc_app_error("%s: --at '%s': expected up to %d interactivities (tokens/s per user) "
                         "from %g to %g, e.g. 20,35,50,100",
                         cmd, text, TC_FRONTIER_MAX_TARGETS, TC_OPT_AT_MIN, TC_OPT_AT_MAX);
            return -1;
        }
        out[(*n)++] = v;
    }
    if (*n == 0) {
        tc_app_error("%s: --at '%s': give at least one interactivity, e.g. 20,35,50,100", cmd,
                     text ? text : "");
        return -1;
    }
    /* Rising order, so the verdicts read as a stretch of interactivity. */
    tc_sort_double(out, *n);
    for (size_t i = 1; i < *n; i++)
        if (out[i] == out[i - 1]) {
            tc_app_error("%s: --at '%s': %g is given twice", cmd, text, out[i]);
            return -1;
        }
    return 0;
}

static int parse(int argc, char **argv, tc_app_frontier_args *a)
{
    memset(a, 0, sizeof *a);
    a->seed = TC_BOOT_SEED;
    a->claim = NAN;
    const tc_cli_opt opts[] = {
        TC_OPT_DB(&a->db),         TC_OPT_PROFILES(&a->profile, &a->profile_a, &a->profile_b),
        TC_OPT_AT_LIST(&a->at),    TC_OPT_RESAMPLES(&a->resamples),
        TC_OPT_SEED(&a->seed),     TC_OPT_CLAIM(&a->claim),
        TC_OPT_DEMAND(&a->demand), TC_OPT_SLO(&a->slo_text),
        TC_OPT_JSON(&a->json),     TC_OPT_END,
    };
    if (tc_cli_parse("frontier", argc, argv, opts, a, a->pos, 2, NULL) < 0)
        return -1;
    tc_cli_profiles_resolve(a->profile, &a->profile_a, &a->profile_b);
    if (!a->pos[0] || !a->profile_a) {
        tc_app_error("frontier: give a sweep (or run, or group) and --profile FILE (or "
                     "--profile-a); a second sweep to compare, with --profile-b for its hardware "
                     "when it differs");
        return -1;
    }
    char err[512];
    if (a->slo_text && tc_slo_parse(a->slo_text, &a->slo, err, sizeof err) != TC_OK) {
        tc_app_error("frontier: %s", err);
        return -1;
    }
    if (!isnan(a->claim) && !a->pos[1]) {
        tc_app_error("frontier: --claim compares two platforms: give SWEEP_B too");
        return -1;
    }
    return tc_cli_frontier_targets("frontier", a->at, a->targets, &a->n_targets);
}

int tc_cmd_frontier(int argc, char **argv)
{
    tc_app_frontier_args a;
    if (parse(argc, argv, &a) < 0)
        return tc_cli_usage_hint("frontier");
    return tc_app_frontier(&a);
}
