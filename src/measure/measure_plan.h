/* Everything a run, sweep or soak settles before it measures: where the
 * server is and what it speaks, the model, the API key, the prompts (a
 * file, one prompt, or a synthetic workload calibrated against the
 * server), room for the sockets, and the group its runs join. What the
 * user should hear though nothing failed (a server found without a URL, a
 * key withheld, the calibration) is kept as notes for the caller to say.
 *
 * Errors: TC_ERR_INVALID when the command line must change (a bad URL, an
 * API the server does not speak, a model it does not serve, an unset key
 * variable, too few open files, a label taken), with the fix in err; any
 * other error could not be helped by the user's options (no server, the
 * store). */
#ifndef TC_MEASURE_PLAN_H
#define TC_MEASURE_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "bench/bench_probe.h"
#include "bench/bench_prompts.h"
#include "bench/bench_url.h"
#include "core/tc_error.h"
#include "record/record.h"
#include "store/store.h"

/* What the command line asked for. */
typedef struct tc_measure_ask {
    const char *url;   /* NULL: find a server on this box */
    const char *api;   /* NULL or "auto": the server's own (a bad name was refused already) */
    const char *model; /* NULL: the server's only or first model */
    const char *key_env;
    const char *prompt, *prompts_file; /* one prompt, or a file of them */
    /* A synthetic workload (isl > 0): preset, seed, lengths, spread. */
    const char *workload;
    long long isl, osl;
    double isl_range;
    uint64_t seed;
    double timeout_s;
    /* The load, for the sockets: concurrency, or an open loop's rate with
     * its cap (0: as many as the arrivals need, up to the file limit). */
    long long concurrency, max_concurrency;
    double rate;
    int shard_i, shard_n; /* this process's part of a sharded workload; 0: none */
} tc_measure_ask;

#define TC_MEASURE_PLAN_NOTES 6

typedef struct tc_measure_plan {
    tc_endpoint ep;
    tc_probe probe;
    tc_api api;
    char model[256];
    const char *key; /* into the environment; never stored or printed */
    tc_prompts prompts;
    tc_run_workload shape; /* of synthetic prompts (ask->isl > 0) */
    long long concurrency; /* the requests in flight the load may hold */
    char calibration[400]; /* a synthetic workload's calibration, in words ("" none) */
    char notes[TC_MEASURE_PLAN_NOTES][600];
    int n_notes;
} tc_measure_plan;

/* Settles *plan from *ask (zeroed first; tc_measure_plan_close it either
 * way). TC_OK or the errors above. */
TC_MUST_CHECK tc_err tc_measure_plan_open(const tc_measure_ask *ask, tc_measure_plan *plan,
                                          char *err, size_t errlen);
void tc_measure_plan_close(tc_measure_plan *plan);

/* The group a run's `repeat` runs form under `label` (tc_measure_group),
 * into group: TC_ERR_INVALID when it exists already or the label names one. */
TC_MUST_CHECK tc_err tc_measure_plan_group(tc_store *st, const char *label, int repeat, char *group,
                                           size_t len, char *err, size_t errlen);

/* A shard's group, `label`: it may hold only shards of as many (n), fewer
 * than n of them, so a shard joins its siblings, never a --repeat group or
 * a finished sharded run. TC_ERR_INVALID otherwise. */
TC_MUST_CHECK tc_err tc_measure_plan_shard_group(tc_store *st, const char *label, int n, char *err,
                                                 size_t errlen);

#endif
