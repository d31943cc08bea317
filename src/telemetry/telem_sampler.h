/* The sampler: a thread that reads every device of a telemetry set at a
 * fixed interval and hands the samples over through a lock-free
 * single-producer single-consumer ring, so it never blocks the load
 * generator (which drains it when convenient) and the load generator
 * never blocks it. */
#ifndef TC_TELEM_SAMPLER_H
#define TC_TELEM_SAMPLER_H

#include <stddef.h>
#include <stdint.h>

#include "record/record_sample.h"
#include "telem_set.h"

typedef struct tc_telem_sampler tc_telem_sampler;

typedef struct tc_sampler_stats {
    uint64_t ticks;      /* sampling rounds */
    uint64_t dropped;    /* samples lost because the ring was full */
    int64_t cpu_ns;      /* CPU time of the sampler thread (after stop) */
    int64_t late_p50_ns; /* how late each round started, from its due time */
    int64_t late_p99_ns;
    int64_t late_max_ns;
} tc_sampler_stats;

/* Starts sampling every device of `set` (which must outlive the sampler)
 * every interval_ms. TC_ERR_NOMEM or TC_ERR_IO (thread creation). */
TC_MUST_CHECK tc_err tc_telem_sampler_start(tc_telem_set *set, int interval_ms,
                                            tc_telem_sampler **out);

/* Moves up to `max` waiting samples into out (oldest first) and returns how
 * many. Call from one thread only. */
size_t tc_telem_sampler_drain(tc_telem_sampler *s, tc_run_sample *out, size_t max);

/* Stops and joins the thread; samples still waiting can be drained after.
 * Idempotent. */
void tc_telem_sampler_stop(tc_telem_sampler *s);

/* Counters and the round-start lateness percentiles (exact; after stop). */
void tc_telem_sampler_stats(const tc_telem_sampler *s, tc_sampler_stats *out);

/* Stops if needed and frees; accepts NULL. */
void tc_telem_sampler_free(tc_telem_sampler *s);

#endif
