/* truecost run: private to cli_run*.c: the command line of a run. */
#ifndef TC_CLI_RUN_H
#define TC_CLI_RUN_H

#include "bench/bench_probe.h"
#include "bench/bench_prompts.h"
#include "bench/bench_url.h"
#include "measure/measure_args.h"
#include "measure/measure_plan.h"
#include "record/record.h"
#include "store/store.h"
#include "telemetry/telem.h"
#include "telemetry/telem_set.h"

/* run's options (measure/measure_args.h: the rules they are settled by). */
typedef tc_measure_args run_args;

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
