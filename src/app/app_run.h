/* truecost run's work, and what sweep and soak share of it: a workload
 * found and opened once, measured (measure/ stores every request as it
 * finishes), what happens printed, the outcome mapped to an exit status. */
#ifndef TC_APP_RUN_H
#define TC_APP_RUN_H

#include "bench/bench_probe.h"
#include "measure/measure_args.h"
#include "measure/measure_plan.h"
#include "record/record.h"
#include "store/store.h"

/* run's options (measure/measure_args.h: the rules they are settled by). */
typedef tc_measure_args run_args;

/* The workload, found and loaded once for every repetition, and what the
 * callbacks print with. */
typedef struct run_plan {
    const tc_measure_args *a;
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
 * status after saying why; tc_app_run_close either way. */
int tc_app_run_open(tc_measure_args *a, run_plan *p);

/* Measures p->a's workload (p->group set: its group) and stores each run;
 * the exit status (the worst of the runs). */
int tc_app_run_measure(run_plan *p);

/* The measuring of p->a's workload as measure/ takes it. */
struct tc_measure_config;
void tc_app_run_config(const run_plan *p, struct tc_measure_config *cfg);

/* Stores the figures of older runs once, closes the store, frees. */
void tc_app_run_close(run_plan *p, int code);

/* truecost run, its options settled: the runs measured and stored, the
 * summary (or the group's) printed; the exit status. */
int tc_app_run(tc_measure_args *a);

/* truecost sweep, its options and run's settled (the points in s): each
 * point measured and stored as a run of the group, the table printed; the
 * exit status. */
int tc_app_sweep(tc_measure_args *a, tc_measure_sweep_args *s);

/* soak's own options (run's are a tc_measure_args). */
typedef struct tc_app_soak_args {
    double duration_s, window_s, max_downtime_s, max_drift, max_error_rate;
    const char *resume, *chunks;
    int json;
} tc_app_soak_args;

/* truecost soak, its options and run's settled (--resume: the soak
 * stored as RUN goes on): the soak measured, stored a window at a time,
 * and shown; TC_EXIT_CHECK on a FAIL. */
int tc_app_soak(tc_measure_args *a, const tc_app_soak_args *s);

#endif
