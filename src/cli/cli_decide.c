/* truecost decide: the migration checklist ticked from evidence, weighed
 * with the lock-in distribution, into stay / pilot / hybrid / migrate with
 * the reasons and the evidence still missing. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "assess/decide.h"
#include "cli.h"
#include "cli_evidence.h"
#include "cli_opts.h"
#include "report/report_decide.h"

typedef struct decide_args {
    const char *file;
    long long samples, seed;
    int json;
    tc_cli_evidence_opts ev;
} decide_args;

static int take_runs(const char *value, void *ctx)
{
    return tc_cli_evidence_runs(&((decide_args *)ctx)->ev, value);
}

static int take_train(const char *value, void *ctx)
{
    return tc_cli_evidence_train(&((decide_args *)ctx)->ev, value);
}

static int parse_args(int argc, char **argv, decide_args *a)
{
    memset(a, 0, sizeof *a);
    a->samples = TC_LOCKIN_DEFAULT_SAMPLES;
    a->seed = 1;
    a->ev = (tc_cli_evidence_opts){.runs_name = "--runs", .argc = argc, .argv = argv};
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

/* Weighs the evidence with the lock-in distribution, decides and prints. */
static int report(const decide_args *a, const tc_lockin *as, const tc_evidence *ev,
                  const tc_lockin_overrides *o)
{
    tc_lockin_result r;
    tc_decide_result d;
    char err[512];
    if (tc_evidence_decide(as, ev, o, (size_t)a->samples, (uint64_t)a->seed, &r, &d, err,
                           sizeof err) != TC_OK) {
        tc_app_error("decide: %s", err);
        return TC_EXIT_USAGE;
    }
    int code = 0;
    if (a->json)
        code = tc_app_emit_json("decide", tc_report_decide_json(&r, &d, o->simulated));
    else
        tc_report_decide_print(stdout, &r, &d, o->simulated);
    tc_lockin_result_free(&r);
    return code;
}

int tc_cmd_decide(int argc, char **argv)
{
    decide_args a;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("decide");
    tc_lockin as;
    char err[1024];
    tc_err rc = tc_lockin_load(a.file, &as, err, sizeof err);
    if (rc != TC_OK) {
        tc_app_error("%s", err);
        return rc == TC_ERR_PARSE ? TC_EXIT_USAGE : TC_EXIT_RUNTIME;
    }
    tc_evidence ev;
    tc_lockin_overrides o = {0};
    int code = tc_cli_evidence_gather(&a.ev, &as, &ev, &o);
    return code ? code : report(&a, &as, &ev, &o);
}
