/* Private to measure/: one run's state while it is measured, shared by
 * measure_run.c (the run) and measure_telem.c (its telemetry). */
#ifndef TC_MEASURE_INTERNAL_H
#define TC_MEASURE_INTERNAL_H

#include "measure_run.h"
#include "telemetry/telem_sampler.h"

#define TC_MEASURE_SAMPLE_BATCH 1024

typedef struct tc_measure_ctx {
    const tc_measure_config *cfg;
    const tc_measure_callbacks *cb;
    tc_store *store;
    int64_t run_id;
    tc_telem_set *telem;
    tc_telem_sampler *sampler;
    tc_telem_set *remote; /* the --telemetry URLs' devices, numbered after the local ones */
    tc_telem_sampler *rsampler;
    int n_local;
    tc_run_sample samples[TC_MEASURE_SAMPLE_BATCH];
    int samples_said;       /* a lost batch of samples is said once a run */
    int marked;             /* the run's final status is already stored */
    char store_err[512];    /* why the store last refused requests or the mark */
    int64_t seq_base;       /* a resumed run's requests are numbered after its stored ones */
    tc_req_record *trimmed; /* a batch as stored: chunk times cut (chunk_sample), seq moved */
    size_t trimmed_cap;
    tc_saver *saver; /* while the load runs: the store is its (NULL: saved on this thread) */
} tc_measure_ctx;

/* Whether the caller asked to stop. */
int tc_measure_stopping(const tc_measure_ctx *c);

/* Tells the caller's notice callback, if any, the formatted text. */
void tc_measure_say(const tc_measure_ctx *c, tc_measure_notice what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Moves the sampler's waiting samples into the store, or the saver's
 * queue while it runs (the sampler never waits for either); a refused
 * batch is said once. */
void tc_measure_drain(tc_measure_ctx *c);

/* Says (once a run) that the saver lost a batch of samples, if it did. */
void tc_measure_samples_lost(tc_measure_ctx *c);

/* Opens the telemetry sources, stores the devices, starts the sampler and
 * samples the idle baseline. No device is no error (said unless the
 * caller asked for none). On failure fills o->rc, stage and err. */
TC_MUST_CHECK tc_err tc_measure_telem_start(tc_measure_ctx *c, tc_measure_outcome *o);

/* After the load: one more sampling round (unless interrupted), the
 * sampler stopped and drained, its dropped samples counted in o. */
void tc_measure_telem_stop(tc_measure_ctx *c, tc_measure_outcome *o);

/* Frees the sampler and closes the sources. */
void tc_measure_telem_close(tc_measure_ctx *c);

/* Soak --resume: 1 when the load now would send differs from the stored
 * run's (URL, API, model, arrivals, concurrency or rate, max tokens,
 * prompts), the first such field described into what; 0 when the same. */
int tc_measure_load_differs(const tc_run_info *was, const tc_run_info *now, char *what, size_t len);

#endif
