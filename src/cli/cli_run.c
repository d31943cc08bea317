/* truecost run: its command line into a tc_measure_args, whose rules
 * measure/measure_args.c settles, for app/app_run.c to measure. */
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_opts.h"
#include "cli_read.h"
#include "cli_run.h"
#include "analysis/slo.h"
#include "core/tc_time.h"
#include "measure/measure_args.h"
#include "bench/bench_synth.h"
#include "telemetry/telem_set.h"

/* A count whose being given matters to the rules (measure_args.c). */
static int given_count(const char *opt, const char *v, long long max, int *given, long long *out)
{
    *given = 1;
    return tc_cli_int(opt, v, 1, max, out);
}

/* -n: a request count, which --duration may not join. */
static int take_requests(const char *v, void *ctx)
{
    run_args *a = ctx;
    return given_count("--requests", v, 100000000, &a->requests_given, &a->requests);
}

static int take_max_tokens(const char *v, void *ctx)
{
    run_args *a = ctx;
    return given_count("--max-tokens", v, 1000000, &a->max_tokens_given, &a->max_tokens);
}

static int take_osl(const char *v, void *ctx)
{
    run_args *a = ctx;
    return given_count("--osl", v, 1000000, &a->osl_given, &a->osl);
}

/* A fraction in (0, 1]: 0 would ask for empty prompts. */
static int take_isl_range(const char *v, void *ctx)
{
    run_args *a = ctx;
    a->range_given = 1;
    if (tc_cli_double("--isl-range", v, 0, 1, &a->isl_range) < 0)
        return -1;
    if (a->isl_range > 0)
        return 0;
    tc_app_error("run: --isl-range %s: expected a fraction above 0 and at most 1 (the shortest "
                 "prompt as a share of --isl), e.g. 0.8",
                 v);
    return -1;
}

static int take_workload(const char *v, void *ctx)
{
    run_args *a = ctx;
    a->workload = v;
    if (tc_synth_preset_find(v))
        return 0;
    char valid[160];
    tc_measure_args_presets(valid, sizeof valid);
    tc_app_error("run: --workload '%s': expected %s (input/output tokens)", v, valid);
    return -1;
}

/* --slo: checked now, stored in its canonical form. */
static int take_slo(const char *v, void *ctx)
{
    run_args *a = ctx;
    tc_slo slo;
    char err[512];
    if (tc_slo_parse(v, &slo, err, sizeof err) != TC_OK) {
        tc_app_error("run: %s", err);
        return -1;
    }
    tc_slo_text(&slo, a->slo, sizeof a->slo);
    return 0;
}

/* A number above 0 (a rate, a gamma shape), said plainly when it is not. */
static int positive(const char *opt, const char *v, double max, const char *example, double *out)
{
    double x;
    if (tc_cli_double(opt, v, -DBL_MAX, DBL_MAX, &x) < 0)
        return -1;
    if (!(x > 0) || x > max) { /* inf too: one message with the range */
        tc_app_error("run: %s %s: expected a number above 0 and at most %g, e.g. %s %s", opt, v,
                     max, opt, example);
        return -1;
    }
    *out = x;
    return 0;
}

static int take_rate(const char *v, void *ctx)
{
    return positive("--rate", v, 1e6, "10", &((run_args *)ctx)->rate);
}

static int take_burstiness(const char *v, void *ctx)
{
    return positive("--burstiness", v, 1e6, "0.5", &((run_args *)ctx)->burstiness);
}

/* --seed: any non-negative 64-bit value. */
static int take_seed(const char *v, void *ctx)
{
    return tc_cli_int("--seed", v, 0, INT64_MAX, &((run_args *)ctx)->seed);
}

/* --telemetry: a source name, or an exporter URL (repeatable). */
static int take_telemetry(const char *val, void *ctx)
{
    run_args *a = ctx;
    return tc_cli_take_telemetry("run", val, &a->telemetry, &a->telemetry_named, a->telemetry_urls,
                                 &a->n_telemetry_urls);
}

int tc_cli_run_parse_args(int argc, char **argv, run_args *a)
{
    tc_measure_args_defaults(a);
    const tc_cli_opt opts[] = {
        TC_OPT_S("model", 0, &a->model),
        TC_OPT_S("api", 0, &a->api),
        TC_OPT_C("requests", 'n', take_requests, 1),
        TC_OPT_D("duration", 0, &a->duration_s, 0.001, 30 * 86400.0),
        TC_OPT_I("warmup", 0, &a->warmup, 0, 1000000),
        TC_OPT_I("concurrency", 'c', &a->concurrency, 1, 10000), /* 0: not given */
        TC_OPT_C("rate", 0, take_rate, 1),
        TC_OPT_S("arrival", 0, &a->arrival),
        TC_OPT_C("burstiness", 0, take_burstiness, 1),
        TC_OPT_I("max-concurrency", 0, &a->max_concurrency, 1, 10000),
        TC_OPT_C("max-tokens", 0, take_max_tokens, 1),
        TC_OPT_I("isl", 0, &a->isl, 1, 1000000),
        TC_OPT_C("osl", 0, take_osl, 1),
        TC_OPT_C("isl-range", 0, take_isl_range, 1),
        TC_OPT_C("workload", 0, take_workload, 1),
        TC_OPT_C("seed", 0, take_seed, 1),
        TC_OPT_C("slo", 0, take_slo, 1),
        TC_OPT_S("prompt", 0, &a->prompt),
        TC_OPT_S("prompts", 0, &a->prompts_file),
        TC_OPT_S("label", 0, &a->label),
        TC_OPT_DB(&a->db),
        TC_OPT_JSON(&a->json),
        TC_OPT_F("no-progress", 0, &a->no_progress),
        TC_OPT_S("api-key-env", 0, &a->key_env),
        TC_OPT_D("timeout", 0, &a->timeout_s, 0.001, 86400.0),
        TC_OPT_D("max-error-rate", 0, &a->max_error_rate, 0, 1),
        TC_OPT_C("telemetry", 0, take_telemetry, 1),
        TC_OPT_I("telemetry-interval", 0, &a->telemetry_ms, 100, 60000),
        TC_OPT_S("telemetry-token-env", 0, &a->telemetry_token_env),
        TC_OPT_I("sample-ms", 0, &a->sample_ms, 10, 60000),
        TC_OPT_D("idle-s", 0, &a->idle_s, 0, 3600),
        TC_OPT_I("repeat", 0, &a->repeat, 1, 1000),
        TC_OPT_S("shard", 0, &a->shard_text),
        TC_OPT_S("start-at", 0, &a->start_text),
        TC_OPT_TELEM_SOURCES(&a->telem),
        TC_OPT_END,
    };
    if (tc_cli_parse("run", argc, argv, opts, a, &a->url, 1, " (one URL at most)") < 0)
        return -1;
    char err[512];
    if (tc_measure_args_settle(a, tc_wall_ns(), err, sizeof err) == TC_OK)
        return 0;
    tc_app_error("run: %s", err);
    return -1;
}

int tc_cmd_run(int argc, char **argv)
{
    run_args a;
    if (tc_cli_run_parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("run");
    return tc_app_run(&a);
}
