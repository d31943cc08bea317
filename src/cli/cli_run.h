/* truecost run: private to cli_run*.c: the command line of a run. */
#ifndef TC_CLI_RUN_H
#define TC_CLI_RUN_H

#include "record/record.h"
#include "telemetry/telem.h"

typedef struct run_args {
    const char *url, *model, *api, *prompt, *prompts_file, *label, *db, *key_env;
    long long requests, warmup, concurrency, max_tokens;
    double duration_s, timeout_s, max_error_rate, idle_s;
    const char *telemetry;
    long long sample_ms, repeat;
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
} run_args;

/* Parses run's command line into *a (defaults: the seeds' recipe). Prints
 * the error and returns -1 on a usage error; else 0. */
int tc_cli_run_parse_args(int argc, char **argv, run_args *a);

#endif
