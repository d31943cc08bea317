/* truecost decide: the migration checklist ticked from evidence, weighed
 * with the lock-in distribution, into stay / pilot / hybrid / migrate with
 * the reasons and the evidence still missing. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "assess/decide.h"
#include "cli.h"
#include "app/app_decide.h"
#include "cli_evidence.h"
#include "cli_opts.h"
#include "report/report_decide.h"

static int take_runs(const char *value, void *ctx)
{
    return tc_cli_evidence_runs(&((tc_app_decide_args *)ctx)->ev, value);
}

static int take_train(const char *value, void *ctx)
{
    return tc_cli_evidence_train(&((tc_app_decide_args *)ctx)->ev, value);
}

static int parse_args(int argc, char **argv, tc_app_decide_args *a)
{
    memset(a, 0, sizeof *a);
    a->samples = TC_LOCKIN_DEFAULT_SAMPLES;
    a->seed = 1;
    a->ev = (tc_app_evidence_opts){.runs_name = "--runs", .argc = argc, .argv = argv};
    const tc_cli_opt opts[] = {
        TC_OPT_I("samples", 0, &a->samples, 1, TC_LOCKIN_MAX_SAMPLES),
        TC_OPT_SEED(&a->seed),
        TC_OPT_JSON(&a->json),
        TC_OPT_C("runs", 0, take_runs, 1),
        TC_OPT_S("gaps", 0, &a->ev.src.gaps_file),
        TC_OPT_S("kernels", 0, &a->ev.src.kernels_file),
        TC_OPT_C("train", 0, take_train, 1),
        TC_OPT_S("fit", 0, &a->ev.src.fit_file),
        TC_OPT_PROFILES(&a->ev.profile, &a->ev.src.profile_a, &a->ev.src.profile_b),
        TC_OPT_AT(&a->ev.src.at),
        TC_OPT_DEMAND(&a->ev.src.demand),
        TC_OPT_DB(&a->ev.db),
        TC_OPT_S("soak", 0, &a->ev.src.soak),
        TC_OPT_END,
    };
    if (tc_cli_parse("decide", argc, argv, opts, a, &a->file, 1, NULL) < 0)
        return -1;
    if (!a->file) {
        tc_app_error("decide: which assessment? give an INI file (see examples/assessment-*.ini)");
        return -1;
    }
    return tc_cli_evidence_check(&a->ev);
}

int tc_cmd_decide(int argc, char **argv)
{
    tc_app_decide_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("decide");
    return tc_app_decide(&a);
}
