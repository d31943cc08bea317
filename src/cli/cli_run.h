/* truecost run: private to cli_run*.c: the command line of a run. */
#ifndef TC_CLI_RUN_H
#define TC_CLI_RUN_H

#include "bench/bench_probe.h"
#include "bench/bench_prompts.h"
#include "bench/bench_url.h"
#include "measure/measure_plan.h"
#include "record/record.h"
#include "store/store.h"
#include "telemetry/telem.h"
#include "telemetry/telem_set.h"

typedef struct run_args {
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
    int json, no_progress, help, requests_given;
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
     * are already this shard's share. */
    const char *shard_text, *start_text;
    int shard_i, shard_n;
    int64_t start_at_wall_ns;
} run_args;

/* Parses run's command line into *a (defaults: the seeds' recipe). Prints
 * the error and returns -1 on a usage error; else 0. */
int tc_cli_run_parse_args(int argc, char **argv, run_args *a);

/* The workload, found and loaded once for every repetition, and what the
 * callbacks print with. */
typedef struct run_plan {
    const run_args *a;
    tc_measure_plan m; /* the server, model, key, prompts (measure/measure_plan.h) */
    char group[128];
    tc_store *store;
    int progress;        /* a progress line on stderr */
    int code;            /* the worst exit status so far */
    int64_t runs_stored; /* by this process */
    /* For sweep: no summary per run, the kind and GPUs stored with each,
     * and the last run stored. */
    int quiet;
    const char *group_kind;
    int gpus;
    int64_t group_runs_before;
    tc_run_info last;
    int has_last;
    /* The telemetry notices said so far: a sweep's points, or --repeat's
     * runs, would repeat the same block of reasons at every run. */
    int said_no_sensor, said_no_remote;
} run_plan;

/* Everything before the measuring: the endpoint, the API key, the prompts,
 * the server, a synthetic workload, the store (a writer). 0, or the exit
 * status after saying why; tc_cli_run_close either way. */
int tc_cli_run_open(run_args *a, run_plan *p);

/* Measures p->a's workload (p->group set: its group) and stores each run;
 * the exit status (the worst of the runs). */
int tc_cli_run_measure(run_plan *p);

/* The measuring of p->a's workload as measure/ takes it. */
struct tc_measure_config;
void tc_cli_run_config(const run_plan *p, struct tc_measure_config *cfg);

/* Stores the figures of older runs once, closes the store, frees. */
void tc_cli_run_close(run_plan *p, int code);

#endif
