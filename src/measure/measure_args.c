/* run's options judged together (measure_args.h): each rule says what an
 * option needs and how to give it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_probe.h"
#include "bench/bench_synth.h"
#include "core/tc_text.h"
#include "measure/measure_args.h"
#include "measure/measure_setup.h"

#define FAIL(...) tc_fail(err, errlen, TC_ERR_INVALID, __VA_ARGS__)

void tc_measure_args_defaults(tc_measure_args *a)
{
    *a = (tc_measure_args){.requests = 20,
                           .warmup = 1,
                           .max_tokens = 128,
                           .timeout_s = 300,
                           .max_error_rate = 0.05,
                           .telemetry = "auto",
                           .sample_ms = 100,
                           .telemetry_ms = 1000,
                           .repeat = 1,
                           .isl_range = 0.8};
}

void tc_measure_args_presets(char *out, size_t outlen)
{
    size_t n = 0;
    out[0] = '\0';
    for (const tc_synth_preset *p = tc_synth_presets; p->name && n < outlen; p++)
        n += (size_t)snprintf(out + n, outlen - n, "%s%s (%lld/%lld)",
                              p == tc_synth_presets ? ""
                              : p[1].name           ? ", "
                                                    : " or ",
                              p->name, (long long)p->isl, (long long)p->osl);
}

/* The workload shape: a preset, then --isl/--osl over it; the option
 * pairs that cannot go together. */
static tc_err settle_shape(tc_measure_args *a, char *err, size_t errlen)
{
    const tc_synth_preset *p = a->workload ? tc_synth_preset_find(a->workload) : NULL;
    if (p && !a->isl)
        a->isl = p->isl;
    if (p && !a->osl_given)
        a->osl = p->osl;
    const char *shape = a->workload ? "--workload" : "--isl";
    if (!a->isl) {
        if (a->osl_given)
            return FAIL("--osl sets the output length of synthetic prompts: give --isl N "
                        "too (or --workload); with your own prompts, use --max-tokens");
        if (a->range_given)
            return FAIL("--isl-range needs --isl N (or --workload)");
        return TC_OK;
    }
    if (a->prompt || a->prompts_file)
        return FAIL("give %s or %s, not both (%s makes synthetic prompts)", shape,
                    a->prompt ? "--prompt" : "--prompts", shape);
    if (a->osl_given && a->max_tokens_given)
        return FAIL("give --osl or --max-tokens, not both (with %s, --osl is the token limit)",
                    shape);
    if (!a->osl_given && !p)
        a->osl = a->max_tokens; /* --isl alone: the usual token limit */
    a->max_tokens = a->osl;
    return TC_OK;
}

/* The open loop's options: each names what it needs. */
static tc_err settle_load(tc_measure_args *a, char *err, size_t errlen)
{
    int open = a->rate > 0;
    a->arrival_kind = TC_ARRIVAL_CLOSED;
    if (!open && a->arrival)
        return FAIL("--arrival needs --rate: give the requests per second, e.g. --rate 10 "
                    "--arrival %s",
                    a->arrival);
    if (!open && a->max_concurrency)
        return FAIL("--max-concurrency caps an open loop and needs --rate; a closed loop's "
                    "requests in flight are -c");
    if (!open && a->burstiness > 0)
        return FAIL("--burstiness needs --rate and --arrival gamma");
    if (!open) {
        if (!a->concurrency)
            a->concurrency = 1;
        return TC_OK;
    }
    if (a->concurrency)
        return FAIL("-c sets a closed loop's requests in flight; with --rate, cap them with "
                    "--max-concurrency");
    const char *name = a->arrival ? a->arrival : "poisson";
    if (tc_arrival_parse(name, &a->arrival_kind) < 0 || a->arrival_kind == TC_ARRIVAL_CLOSED)
        return FAIL("--arrival '%s': expected poisson, constant or gamma", name);
    if (a->burstiness > 0 && a->arrival_kind != TC_ARRIVAL_GAMMA)
        return FAIL("--burstiness is the gamma process's shape: give --arrival gamma too");
    if (a->arrival_kind == TC_ARRIVAL_GAMMA && !(a->burstiness > 0))
        a->burstiness = 1; /* vLLM's default: Poisson */
    return TC_OK;
}

/* --api is judged before anything is probed, so a typo is a usage error
 * rather than whatever the probe of the URL says. The list is built from
 * the API names so it cannot fall behind them. */
static tc_err settle_api(const char *name, char *err, size_t errlen)
{
    tc_api api;
    if (!strcmp(name, "auto") || tc_api_parse(name, &api) == 0)
        return TC_OK;
    char valid[160] = "auto";
    size_t n = strlen(valid);
    for (int i = 0; i < TC_API_COUNT && n < sizeof valid; i++)
        n += (size_t)snprintf(valid + n, sizeof valid - n, "%s%s",
                              i == TC_API_COUNT - 1 ? " or " : ", ", tc_api_name((tc_api)i));
    return FAIL("--api '%s': expected %s", name, valid);
}

/* This shard's share of the load: requests, the closed loop's in-flight
 * count, the open loop's rate and cap; the arrivals of each shard drawn
 * from its own seed (N Poisson streams of rate R/N make one of rate R). */
static void take_share(tc_measure_args *a, int i, int n)
{
    a->shard_i = i;
    a->shard_n = n;
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
}

/* --shard I/N and --start-at, then this shard's share of the load. */
static tc_err settle_shard(tc_measure_args *a, int64_t now, char *err, size_t errlen)
{
    if (a->start_text &&
        tc_measure_parse_start(a->start_text, now, &a->start_at_wall_ns, err, errlen) != TC_OK)
        return TC_ERR_INVALID;
    if (!a->shard_text)
        return TC_OK;
    int i = 0, n = 0, used = 0;
    if (sscanf(a->shard_text, "%d/%d%n", &i, &n, &used) != 2 || a->shard_text[used] || n < 1 ||
        n > 10000 || i < 1 || i > n)
        return FAIL("--shard '%s': expected I/N with 1 <= I <= N, e.g. --shard 2/4", a->shard_text);
    if (!a->label || a->repeat > 1)
        return FAIL("--shard needs --label, the group its N runs share (and no --repeat): "
                    "e.g. --shard %d/%d --label fleet-a --start-at +10",
                    i, n);
    /* Every shard needs a request and (closed loop) a slot in flight. */
    if ((a->duration_s <= 0 && a->requests < n) || (a->rate <= 0 && a->concurrency < n) ||
        (a->max_concurrency && a->max_concurrency < n))
        return FAIL("--shard %d/%d: the workload is too small to split %d ways (each shard "
                    "needs a request and a slot in flight): give -n, -c and --max-concurrency "
                    "of %d or more",
                    i, n, n, n);
    take_share(a, i, n);
    return TC_OK;
}

/* The telemetry: remote exporters' defaults and token, a known source. */
static tc_err settle_telemetry(tc_measure_args *a, char *err, size_t errlen)
{
    if (a->n_telemetry_urls > 0 && !a->telemetry_named)
        a->telemetry = "none"; /* the sensors of the box measured, not of this client */
    if (a->telemetry_token_env) {
        a->telemetry_token = getenv(a->telemetry_token_env);
        if (!a->telemetry_token || !*a->telemetry_token)
            return FAIL("--telemetry-token-env %s: the variable is not set or empty",
                        a->telemetry_token_env);
    }
    int known = !strcmp(a->telemetry, "auto") || !strcmp(a->telemetry, "none");
    for (int i = 0; !known && tc_telem_backend_names[i]; i++)
        known = !strcmp(a->telemetry, tc_telem_backend_names[i]);
    if (!known) /* judged before anything is probed or stored */
        return FAIL("--telemetry '%s': expected auto, none or a source name (see truecost "
                    "monitor --help)",
                    a->telemetry);
    return TC_OK;
}

static tc_err settle_label(const char *label, char *err, size_t errlen)
{
    if (!label)
        return TC_OK;
    if (!label[0]) /* else the all-digits rule below would take it */
        return FAIL("--label: empty; give a name, e.g. --label h100-baseline");
    if (strlen(label) >= sizeof((tc_run_info *)0)->label)
        return FAIL("--label is longer than 127 bytes");
    if (label[strspn(label, "0123456789")] == '\0')
        return FAIL("--label '%s': a label cannot be all digits (show and export would read "
                    "it as a run id); add a letter, e.g. 'run-%s'",
                    label, label);
    return TC_OK;
}

tc_err tc_measure_args_settle(tc_measure_args *a, int64_t now_wall_ns, char *err, size_t errlen)
{
    tc_err rc = settle_telemetry(a, err, errlen);
    if (rc == TC_OK && a->requests_given && a->duration_s > 0)
        rc = FAIL("give -n or --duration, not both");
    if (rc == TC_OK)
        rc = settle_load(a, err, errlen);
    if (rc == TC_OK && a->prompt && a->prompts_file)
        rc = FAIL("give --prompt or --prompts, not both");
    if (rc == TC_OK)
        rc = settle_shape(a, err, errlen);
    if (rc == TC_OK)
        rc = settle_shard(a, now_wall_ns, err, errlen);
    if (rc == TC_OK && a->api)
        rc = settle_api(a->api, err, errlen);
    return rc == TC_OK ? settle_label(a->label, err, errlen) : rc;
}

/* "1,2,4": positive numbers, ascending, whole numbers for concurrencies. */
static tc_err sweep_list(const char *opt, const char *text, int integers, tc_measure_sweep_args *s,
                         char *err, size_t errlen)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    s->n = 0;
    if (tc_list_has_empty(text))
        return FAIL("%s '%s': %s; expected up to %d ascending %s above 0 separated by single "
                    "commas, e.g. %s",
                    opt, text, *text ? "an empty item" : "empty", TC_MEASURE_SWEEP_MAX,
                    integers ? "whole numbers" : "numbers", integers ? "1,2,4,8" : "2,4,8");
    for (char *save = NULL, *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        char *end;
        double v = strtod(t, &end);
        if (*end || !(v > 0) || !isfinite(v) || (integers && (v != floor(v) || v > 10000)) ||
            s->n == TC_MEASURE_SWEEP_MAX || (s->n && v <= s->values[s->n - 1]))
            return FAIL("%s '%s': expected up to %d ascending %s above 0, e.g. %s", opt, text,
                        TC_MEASURE_SWEEP_MAX,
                        integers ? "whole numbers (at most 10000)" : "numbers",
                        integers ? "1,2,4,8" : "2,4,8");
        s->values[s->n++] = v;
    }
    return s->n ? TC_OK : FAIL("%s: no points", opt);
}

/* The open loop of a sweep's rate points. */
static tc_err sweep_arrival(tc_measure_sweep_args *s, char *err, size_t errlen)
{
    s->arrival_kind = TC_ARRIVAL_POISSON;
    if (s->arrival && (!s->by_rate || tc_arrival_parse(s->arrival, &s->arrival_kind) < 0 ||
                       s->arrival_kind == TC_ARRIVAL_CLOSED))
        return FAIL("--arrival '%s': with --rates, poisson (default), constant or gamma",
                    s->arrival);
    if (s->burstiness > 0 && s->arrival_kind != TC_ARRIVAL_GAMMA)
        return FAIL("--burstiness is the gamma process's shape: give --rates and --arrival "
                    "gamma too");
    if (s->arrival_kind == TC_ARRIVAL_GAMMA && !(s->burstiness > 0))
        s->burstiness = 1; /* vLLM's default: Poisson */
    return TC_OK;
}

tc_err tc_measure_sweep_settle(tc_measure_sweep_args *s, const tc_measure_args *a, char *err,
                               size_t errlen)
{
    if (s->concurrency && s->rates)
        return FAIL("give --concurrency or --rates, not both");
    if (a->rate > 0 || a->repeat > 1 || a->shard_n)
        return FAIL("--rate, --repeat and --shard belong to 'truecost run'; a sweep's points are "
                    "--concurrency LIST or --rates LIST|auto");
    s->by_rate = s->rates != NULL;
    s->auto_rates = s->rates && strcmp(s->rates, "auto") == 0;
    tc_err rc = sweep_arrival(s, err, errlen);
    if (rc != TC_OK)
        return rc;
    if (s->points && !s->auto_rates)
        return FAIL("--points sets how many rates --rates auto chooses; with %s the points are "
                    "the list itself",
                    s->rates ? "--rates LIST" : "--concurrency");
    if (s->max_concurrency && !s->by_rate)
        return FAIL("--max-concurrency caps the rate points of --rates; a concurrency sweep's "
                    "points are -c");
    if (s->auto_rates)
        return TC_OK;
    if (s->rates)
        return sweep_list("--rates", s->rates, 0, s, err, errlen);
    if (s->concurrency)
        return sweep_list("--concurrency", s->concurrency, 1, s, err, errlen);
    for (int c = 1; c <= 256; c *= 2) /* the default: powers of two */
        s->values[s->n++] = c;
    return TC_OK;
}
