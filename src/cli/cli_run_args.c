/* truecost run: its help and command line. */
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
#include "measure/measure_setup.h"
#include "bench/bench_synth.h"
#include "telemetry/telem_set.h"

/* -n: a request count, which --duration may not join. */
static int take_requests(const char *v, void *ctx)
{
    run_args *a = ctx;
    a->requests_given = 1;
    return tc_cli_int("--requests", v, 1, 100000000, &a->requests);
}

static int take_max_tokens(const char *v, void *ctx)
{
    run_args *a = ctx;
    a->max_tokens_given = 1;
    return tc_cli_int("--max-tokens", v, 1, 1000000, &a->max_tokens);
}

static int take_osl(const char *v, void *ctx)
{
    run_args *a = ctx;
    a->osl_given = 1;
    return tc_cli_int("--osl", v, 1, 1000000, &a->osl);
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
    tc_cli_error("run: --isl-range %s: expected a fraction above 0 and at most 1 (the shortest "
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
    char valid[160] = "";
    size_t n = 0;
    for (const tc_synth_preset *p = tc_synth_presets; p->name && n < sizeof valid; p++)
        n += (size_t)snprintf(valid + n, sizeof valid - n, "%s%s (%lld/%lld)",
                              p == tc_synth_presets ? ""
                              : p[1].name           ? ", "
                                                    : " or ",
                              p->name, (long long)p->isl, (long long)p->osl);
    tc_cli_error("run: --workload '%s': expected %s (input/output tokens)", v, valid);
    return -1;
}

/* --slo: checked now, stored in its canonical form. */
static int take_slo(const char *v, void *ctx)
{
    run_args *a = ctx;
    tc_slo slo;
    char err[512];
    if (tc_slo_parse(v, &slo, err, sizeof err) != TC_OK) {
        tc_cli_error("run: %s", err);
        return -1;
    }
    tc_slo_text(&slo, a->slo, sizeof a->slo);
    return 0;
}

/* The workload shape: a preset, then --isl/--osl over it; the option
 * pairs that cannot go together. 0, or -1 after saying why. */
static int check_shape(run_args *a)
{
    const tc_synth_preset *p = a->workload ? tc_synth_preset_find(a->workload) : NULL;
    if (p && !a->isl)
        a->isl = p->isl;
    if (p && !a->osl_given)
        a->osl = p->osl;
    const char *shape = a->workload ? "--workload" : "--isl";
    if (!a->isl) {
        if (a->osl_given)
            tc_cli_error("run: --osl sets the output length of synthetic prompts: give --isl N "
                         "too (or --workload); with your own prompts, use --max-tokens");
        else if (a->range_given)
            tc_cli_error("run: --isl-range needs --isl N (or --workload)");
        return a->osl_given || a->range_given ? -1 : 0;
    }
    if (a->prompt || a->prompts_file) {
        tc_cli_error("run: give %s or %s, not both (%s makes synthetic prompts)", shape,
                     a->prompt ? "--prompt" : "--prompts", shape);
        return -1;
    }
    if (a->osl_given && a->max_tokens_given) {
        tc_cli_error("run: give --osl or --max-tokens, not both (with %s, --osl is the token "
                     "limit)",
                     shape);
        return -1;
    }
    if (!a->osl_given && !p)
        a->osl = a->max_tokens; /* --isl alone: the usual token limit */
    a->max_tokens = a->osl;
    return 0;
}

/* A number above 0 (a rate, a gamma shape), said plainly when it is not. */
static int positive(const char *opt, const char *v, double max, const char *example, double *out)
{
    double x;
    if (tc_cli_double(opt, v, -DBL_MAX, DBL_MAX, &x) < 0)
        return -1;
    if (!(x > 0) || x > max) { /* inf too: one message with the range */
        tc_cli_error("run: %s %s: expected a number above 0 and at most %g, e.g. %s %s", opt, v,
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

/* The open loop's options, checked together: each names what it needs. */
static int check_load(run_args *a)
{
    int open = a->rate > 0;
    a->arrival_kind = TC_ARRIVAL_CLOSED;
    if (!open && a->arrival) {
        tc_cli_error("run: --arrival needs --rate: give the requests per second, e.g. --rate 10 "
                     "--arrival %s",
                     a->arrival);
        return -1;
    }
    if (!open && a->max_concurrency) {
        tc_cli_error("run: --max-concurrency caps an open loop and needs --rate; a closed loop's "
                     "requests in flight are -c");
        return -1;
    }
    if (!open && a->burstiness > 0) {
        tc_cli_error("run: --burstiness needs --rate and --arrival gamma");
        return -1;
    }
    if (!open) {
        if (!a->concurrency)
            a->concurrency = 1;
        return 0;
    }
    if (a->concurrency) {
        tc_cli_error("run: -c sets a closed loop's requests in flight; with --rate, cap them with "
                     "--max-concurrency");
        return -1;
    }
    const char *name = a->arrival ? a->arrival : "poisson";
    if (tc_arrival_parse(name, &a->arrival_kind) < 0 || a->arrival_kind == TC_ARRIVAL_CLOSED) {
        tc_cli_error("run: --arrival '%s': expected poisson, constant or gamma", name);
        return -1;
    }
    if (a->burstiness > 0 && a->arrival_kind != TC_ARRIVAL_GAMMA) {
        tc_cli_error("run: --burstiness is the gamma process's shape: give --arrival gamma too");
        return -1;
    }
    if (a->arrival_kind == TC_ARRIVAL_GAMMA && !(a->burstiness > 0))
        a->burstiness = 1; /* vLLM's default: Poisson */
    return 0;
}

/* --api is checked before anything is probed, so a typo is a usage error
 * rather than whatever the probe of the URL says. The list is built from
 * the API names so it cannot fall behind them. */
static int check_api(const char *name)
{
    tc_api api;
    if (!strcmp(name, "auto") || tc_api_parse(name, &api) == 0)
        return 0;
    char valid[160] = "auto";
    size_t n = strlen(valid);
    for (int i = 0; i < TC_API_COUNT && n < sizeof valid; i++)
        n += (size_t)snprintf(valid + n, sizeof valid - n, "%s%s",
                              i == TC_API_COUNT - 1 ? " or " : ", ", tc_api_name((tc_api)i));
    tc_cli_error("run: --api '%s': expected %s", name, valid);
    return -1;
}

/* --shard I/N and --start-at, then this shard's share of the load. */
static int check_shard(run_args *a)
{
    char err[256];
    if (a->start_text && tc_measure_parse_start(a->start_text, tc_wall_ns(), &a->start_at_wall_ns,
                                                err, sizeof err) != TC_OK) {
        tc_cli_error("run: %s", err);
        return -1;
    }
    if (!a->shard_text)
        return 0;
    int i = 0, n = 0, used = 0;
    if (sscanf(a->shard_text, "%d/%d%n", &i, &n, &used) != 2 || a->shard_text[used] || n < 1 ||
        n > 10000 || i < 1 || i > n) {
        tc_cli_error("run: --shard '%s': expected I/N with 1 <= I <= N, e.g. --shard 2/4",
                     a->shard_text);
        return -1;
    }
    if (!a->label || a->repeat > 1) {
        tc_cli_error("run: --shard needs --label, the group its N runs share (and no "
                     "--repeat): e.g. --shard %d/%d --label fleet-a --start-at +10",
                     i, n);
        return -1;
    }
    /* Every shard needs a request and (closed loop) a slot in flight. */
    if ((a->duration_s <= 0 && a->requests < n) || (a->rate <= 0 && a->concurrency < n) ||
        (a->max_concurrency && a->max_concurrency < n)) {
        tc_cli_error(
            "run: --shard %d/%d: the workload is too small to split %d ways (each "
            "shard needs a request and a slot in flight): give -n, -c and --max-concurrency of %d "
            "or more",
            i, n, n, n);
        return -1;
    }
    a->shard_i = i;
    a->shard_n = n;
    /* This process's share: requests, the closed loop's in-flight count,
     * the open loop's rate and cap; the arrivals of each shard drawn from
     * its own seed (N Poisson streams of rate R/N make one of rate R). */
    if (a->duration_s <= 0)
        a->requests = tc_measure_shard_share(a->requests, i, n);
    if (a->rate > 0) {
        a->rate /= n;
        a->seed += i - 1;
        if (a->max_concurrency)
            a->max_concurrency = tc_measure_shard_share(a->max_concurrency, i, n);
    } else {
        a->concurrency = tc_measure_shard_share(a->concurrency, i, n);
    }
    return 0;
}

/* --telemetry: a source name, or an exporter URL (repeatable). */
static int take_telemetry(const char *val, void *ctx)
{
    run_args *a = ctx;
    if (strncmp(val, "http://", 7) != 0 && strncmp(val, "https://", 8) != 0) {
        a->telemetry = val;
        a->telemetry_named = 1;
        return 0;
    }
    if (a->n_telemetry_urls >= TC_TELEM_MAX_URLS) {
        tc_cli_error("run: --telemetry: at most %d URLs", TC_TELEM_MAX_URLS);
        return -1;
    }
    a->telemetry_urls[a->n_telemetry_urls++] = val;
    return 0;
}

/* The remote telemetry's defaults and token, after every option is read. */
static int check_remote(run_args *a)
{
    if (a->n_telemetry_urls > 0 && !a->telemetry_named)
        a->telemetry = "none"; /* the sensors of the box measured, not of this client */
    if (!a->telemetry_token_env)
        return 0;
    a->telemetry_token = getenv(a->telemetry_token_env);
    if (!a->telemetry_token || !*a->telemetry_token) {
        tc_cli_error("run: --telemetry-token-env %s: the variable is not set or empty",
                     a->telemetry_token_env);
        return -1;
    }
    return 0;
}

int tc_cli_run_parse_args(int argc, char **argv, run_args *a)
{
    *a = (run_args){.requests = 20,
                    .warmup = 1,
                    .max_tokens = 128,
                    .timeout_s = 300,
                    .max_error_rate = 0.05,
                    .telemetry = "auto",
                    .sample_ms = 100,
                    .telemetry_ms = 1000,
                    .repeat = 1,
                    .isl_range = 0.8};
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
    if (tc_cli_parse("run", argc, argv, opts, a, &a->url, 1, " (one URL at most)") < 0 ||
        check_remote(a) < 0)
        return -1;
    int known = !strcmp(a->telemetry, "auto") || !strcmp(a->telemetry, "none");
    for (int i = 0; !known && tc_telem_backend_names[i]; i++)
        known = !strcmp(a->telemetry, tc_telem_backend_names[i]);
    if (!known) { /* checked before anything is probed or stored */
        tc_cli_error("run: --telemetry '%s': expected auto, none or a source name (see "
                     "truecost monitor --help)",
                     a->telemetry);
        return -1;
    }
    if (a->requests_given && a->duration_s > 0) {
        tc_cli_error("run: give -n or --duration, not both");
        return -1;
    }
    if (check_load(a) < 0)
        return -1;
    if (a->prompt && a->prompts_file) {
        tc_cli_error("run: give --prompt or --prompts, not both");
        return -1;
    }
    if (check_shape(a) < 0)
        return -1;
    if (check_shard(a) < 0)
        return -1;
    if (a->api && check_api(a->api) < 0)
        return -1;
    if (a->label && !a->label[0]) { /* else the all-digits check below would catch it */
        tc_cli_error("run: --label: empty; give a name, e.g. --label h100-baseline");
        return -1;
    }
    if (a->label && strlen(a->label) >= sizeof((tc_run_info *)0)->label) {
        tc_cli_error("run: --label is longer than 127 bytes");
        return -1;
    }
    if (a->label && a->label[strspn(a->label, "0123456789")] == '\0') {
        tc_cli_error("run: --label '%s': a label cannot be all digits (show and export would "
                     "read it as a run id); add a letter, e.g. 'run-%s'",
                     a->label, a->label);
        return -1;
    }
    return 0;
}
