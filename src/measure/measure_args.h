/* A measurement as the command line asks it (run, and sweep and soak,
 * which take run's options): the values, then their rules settled in one
 * place — which options go together, the defaults one option gives
 * another, and a shard's share of the load. The CLI fills the struct from
 * argv; tc_measure_args_settle judges it. */
#ifndef TC_MEASURE_ARGS_H
#define TC_MEASURE_ARGS_H

#include <stdint.h>
#include <stddef.h>

#include "core/tc_error.h"
#include "record/record.h"
#include "telemetry/telem.h"
#include "telemetry/telem_set.h"

typedef struct tc_measure_args {
    const char *url, *model, *api, *prompt, *prompts_file, *label, *db, *key_env;
    long long requests, warmup, concurrency, max_tokens;
    double duration_s, timeout_s, max_error_rate, idle_s;
    const char *telemetry;
    long long sample_ms, repeat;
    /* --telemetry URL (repeatable): exporters scraped every telemetry_ms
     * with the token in $telemetry_token_env; then the local source is
     * "none" unless --telemetry names one too. */
    const char *telemetry_urls[TC_TELEM_MAX_URLS];
    int n_telemetry_urls, telemetry_named;
    long long telemetry_ms;
    const char *telemetry_token_env, *telemetry_token;
    tc_telem_config telem;
    int json, no_progress, requests_given;
    /* A synthetic workload (--isl/--osl/--isl-range/--workload):
     * isl > 0 when there is one; osl and max_tokens are then the same. */
    const char *workload;
    long long isl, osl;
    double isl_range;
    int osl_given, range_given, max_tokens_given;
    /* --slo, as its canonical text ("" = none): stored with the run. */
    char slo[96];
    /* Open loop: --rate > 0 (0: closed loop), --arrival (NULL: poisson),
     * --burstiness (0: not given), --max-concurrency (0: none); --seed
     * draws both the synthetic prompts and the arrivals. */
    double rate, burstiness;
    const char *arrival;
    long long seed, max_concurrency;
    tc_arrival arrival_kind; /* parsed from arrival; CLOSED without --rate */
    /* --shard I/N: this process's part (shard_i of shard_n; 0: no shard)
     * of one workload split between N processes; --start-at: the wall
     * time (ns) to start the load at, 0: at once. The load's numbers above
     * are already this shard's share once settled. */
    const char *shard_text, *start_text;
    int shard_i, shard_n;
    int64_t start_at_wall_ns;
} tc_measure_args;

/* The defaults: the seeds' recipe (20 requests, one warm-up, 128 tokens,
 * one in flight, 5% errors at most, telemetry found on this box). */
void tc_measure_args_defaults(tc_measure_args *a);

/* Judges a filled *a and settles what follows from it: the telemetry
 * source and token ($telemetry_token_env read here), -n against
 * --duration, the open loop's options, the workload's shape, --shard and
 * --start-at (at now_wall_ns) with this shard's share, --api and --label.
 * TC_OK, or TC_ERR_INVALID with a message naming the option and the fix. */
TC_MUST_CHECK tc_err tc_measure_args_settle(tc_measure_args *a, int64_t now_wall_ns, char *err,
                                            size_t errlen);

/* The workload presets as --workload's error names them: "chat
 * (512/128), ... or NAME (ISL/OSL)", cut to outlen. */
void tc_measure_args_presets(char *out, size_t outlen);

/* A sweep's own options (its points), beside run's in a tc_measure_args. */
#define TC_MEASURE_SWEEP_MAX 64
typedef struct tc_measure_sweep_args {
    const char *concurrency, *rates, *arrival; /* NULL: not given */
    long long gpus, points, max_concurrency;   /* 0: not given */
    double burstiness;                         /* gamma's shape of the rate points; 0: not given */
    /* Settled: */
    tc_arrival arrival_kind; /* of the rate points */
    long long open_ceiling;  /* the most requests a rate point keeps in flight (set by the CLI) */
    int n;
    double values[TC_MEASURE_SWEEP_MAX]; /* the concurrencies or rates, ascending */
    int by_rate, auto_rates;
} tc_measure_sweep_args;

/* Judges a sweep's options against run's (a, settled): the points
 * (--concurrency LIST, default powers of two to 256; --rates LIST|auto),
 * the open loop's --arrival, --burstiness, --points and --max-concurrency,
 * and run's options a sweep does not take. TC_OK, or TC_ERR_INVALID with
 * the message. */
TC_MUST_CHECK tc_err tc_measure_sweep_settle(tc_measure_sweep_args *s, const tc_measure_args *a,
                                             char *err, size_t errlen);

#endif
