/* truecost lockin: the lock-in cost of an assessment file (point estimate,
 * Monte Carlo distribution, sensitivity, break-even), with the guessed
 * ranges that measurements replace given as options. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "assess/lockin.h"
#include "cli.h"
#include "app/app_lockin.h"
#include "cli_evidence.h"
#include "cli_opts.h"
#include "report/report_lockin.h"

#define DEFAULT_SEED 1

/* --gaps-top LOW..MODE..HIGH: T_op from a gap table read by hand. */
static int take_gaps_top(const char *text, void *ctx)
{
    tc_lockin_overrides *o = &((tc_app_lockin_args *)ctx)->o;
    tc_lockin_range r;
    char why[200];
    if (tc_lockin_range_parse(text, &r, why, sizeof why) != TC_OK) {
        tc_app_error("--gaps-top: %s; expected person-days as LOW..MODE..HIGH or LOW..HIGH, "
                     "e.g. 6..10..15",
                     why);
        return -1;
    }
    if (r.high > 1e6) {
        tc_app_error("--gaps-top: %s: over 1e6 person-days", text);
        return -1;
    }
    o->has_operators = 1;
    o->op_low = r.low;
    o->op_mode = tc_lockin_range_point(&r);
    o->op_high = r.high;
    snprintf(o->op_source, sizeof o->op_source, "--gaps-top");
    return 0;
}

static int take_running(const char *value, void *ctx)
{
    tc_lockin_overrides *o = &((tc_app_lockin_args *)ctx)->o;
    if (tc_cli_double("--running-saving-per-month", value, -1e15, 1e15,
                      &o->running_saving_per_month) < 0)
        return -1;
    o->has_running_saving = 1;
    snprintf(o->running_source, sizeof o->running_source, "--running-saving-per-month");
    return 0;
}

static int take_perf_ratio(const char *value, void *ctx)
{
    tc_lockin_overrides *o = &((tc_app_lockin_args *)ctx)->o;
    double x;
    if (tc_cli_double("--perf-ratio", value, 0, 1000, &x) < 0)
        return -1;
    if (!(x > 0)) {
        tc_app_error("--perf-ratio: expected alternative / incumbent throughput > 0");
        return -1;
    }
    o->has_perf_ratio = 1;
    o->perf_ratio = x;
    snprintf(o->perf_source, sizeof o->perf_source, "--perf-ratio");
    return 0;
}

static int take_perf(const char *value, void *ctx)
{
    return tc_cli_evidence_runs(&((tc_app_lockin_args *)ctx)->ev, value);
}

/* The combinations the options cannot make; -1 after saying why. */
static int check_args(tc_app_lockin_args *a)
{
    tc_cli_profiles_resolve(a->ev.profile, &a->ev.src.profile_a, &a->ev.src.profile_b);
    if (!a->file) {
        tc_app_error("lockin: which assessment? give an INI file (see examples/assessment-*.ini)");
        return -1;
    }
    if (a->ev.src.gaps_file && a->o.has_operators) {
        tc_app_error("lockin: give --gaps FILE or --gaps-top RANGE, not both");
        return -1;
    }
    if ((a->ev.src.run_a || a->ev.src.train_a) && a->o.has_perf_ratio) {
        tc_app_error("lockin: give --perf RUN_A RUN_B (or --train A B) or --perf-ratio R, not "
                     "both");
        return -1;
    }
    if (a->ev.src.profile_a && a->o.has_running_saving) {
        tc_app_error("lockin: give --profile (or --profile-a/--profile-b) or "
                     "--running-saving-per-month, not both");
        return -1;
    }
    return tc_cli_evidence_check(&a->ev);
}

static int take_train(const char *value, void *ctx)
{
    return tc_cli_evidence_train(&((tc_app_lockin_args *)ctx)->ev, value);
}

static int parse_args(int argc, char **argv, tc_app_lockin_args *a)
{
    memset(a, 0, sizeof *a);
    a->samples = TC_LOCKIN_DEFAULT_SAMPLES;
    a->seed = DEFAULT_SEED;
    a->ev = (tc_app_evidence_opts){.runs_name = "--perf", .argc = argc, .argv = argv};
    const tc_cli_opt opts[] = {
        TC_OPT_I("samples", 0, &a->samples, 1, TC_LOCKIN_MAX_SAMPLES),
        TC_OPT_SEED(&a->seed),
        TC_OPT_JSON(&a->json),
        TC_OPT_C("running-saving-per-month", 0, take_running, 1),
        TC_OPT_C("perf-ratio", 0, take_perf_ratio, 1),
        TC_OPT_C("gaps-top", 0, take_gaps_top, 1),
        TC_OPT_S("gaps", 0, &a->ev.src.gaps_file),
        TC_OPT_S("kernels", 0, &a->ev.src.kernels_file),
        TC_OPT_C("train", 0, take_train, 1),
        TC_OPT_C("perf", 0, take_perf, 1),
        TC_OPT_S("soak", 0, &a->ev.src.soak),
        TC_OPT_PROFILES(&a->ev.profile, &a->ev.src.profile_a, &a->ev.src.profile_b),
        TC_OPT_AT(&a->ev.src.at),
        TC_OPT_DEMAND(&a->ev.src.demand),
        TC_OPT_DB(&a->ev.db),
        TC_OPT_END,
    };
    if (tc_cli_parse("lockin", argc, argv, opts, a, &a->file, 1, NULL) < 0)
        return -1;
    return check_args(a);
}

int tc_cmd_lockin(int argc, char **argv)
{
    tc_app_lockin_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("lockin");
    return tc_app_lockin(&a);
}
