/* The load generator: sends the workload to one endpoint over libcurl's
 * multi interface (one thread, epoll underneath, keep-alive reused) and
 * hands back one finished tc_req_record per request.
 *
 * Closed loop: `concurrency` requests are in flight at once; each one that
 * finishes is replaced until the request count or the duration is used up.
 * Open loop (rate > 0): each measured request has an intended send time on
 * an arrival schedule (bench_arrival.h) that starts when the measured phase
 * does; a timerfd wakes the loop at that time and the request goes out
 * then, or later when `concurrency` requests are already in flight. The
 * request count is the number of arrivals; a duration ends the arrivals.
 * The intended time is the record's sched_ns, and its latency counts from
 * there. Warm-up requests go first and all finish before the measured ones
 * start, so the measured window sees a warm server.
 *
 * A request's send time is taken when libcurl has its connection ready
 * and is about to write the request (CURLOPT_PREREQFUNCTION), so neither
 * the client's own queueing of many new connections nor TCP connect time
 * inflates TTFT. */
#ifndef TC_BENCH_RUNNER_H
#define TC_BENCH_RUNNER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_prompts.h"
#include "record/record.h"
#include "bench_url.h"
#include "core/tc_error.h"

/* The most records the runner hands on_batch at once, and how long it
 * offers a refused batch again unless save_patience_s says otherwise. */
#define TC_RUNNER_BATCH_MAX 64
#define TC_RUNNER_SAVE_PATIENCE_S 30.0

typedef struct tc_runner_progress {
    int64_t done;    /* measured requests finished */
    int64_t planned; /* measured requests asked for; 0 with a duration */
    int64_t failed;
    int64_t in_flight;
    double elapsed_s;           /* since the measured phase began */
    double duration_s;          /* asked for; 0 with a request count */
    double output_tokens_per_s; /* over the last second or so */
    int warming_up;
} tc_runner_progress;

typedef struct tc_runner_config {
    tc_endpoint endpoint;
    tc_api api;
    const char *model;
    const tc_prompts *prompts; /* requests cycle through them in order */
    int64_t max_tokens;
    int warmup;
    int64_t requests;  /* measured requests; ignored when duration_s > 0 */
    double duration_s; /* > 0: send until this much time has passed */
    /* Closed loop: requests in flight. Open loop: the most in flight at
     * once (--max-concurrency, or the caller's ceiling); slots are made as
     * they are needed, up to it. */
    int concurrency;
    /* Open loop when rate > 0 (requests/s): arrival is POISSON, CONSTANT
     * or GAMMA (shape burstiness), the schedule drawn from seed. */
    double rate;
    tc_arrival arrival;
    double burstiness;
    uint64_t seed;
    double timeout_s;    /* per request */
    const char *api_key; /* Bearer token, or NULL; never kept */
    /* Set (by a signal handler) to stop sending; in-flight requests then
     * get one second to finish before they are abandoned. */
    volatile sig_atomic_t *stop;
    /* Finished records, in completion order, in batches (a batch every
     * TC_RUNNER_BATCH_MAX records or half a second; at once after a stop). The
     * callee copies what it keeps; the runner frees the records once a
     * call returns 0. A nonzero return (e.g. the store stayed locked) must
     * have kept nothing: the run stops sending, and the same records, with
     * any that finish meanwhile, are offered again every half second for
     * save_patience_s (0: 30 s); what is still refused then is counted in
     * unsaved and in the run's error. */
    int (*on_batch)(void *ctx, const tc_req_record *recs, size_t n);
    /* Called about five times a second; may be NULL. */
    void (*on_progress)(void *ctx, const tc_runner_progress *p);
    /* Called once, as soon as the loop sees *stop set; may be NULL. Lets
     * the caller mark the run interrupted before the grace period, so a
     * second Ctrl-C that exits at once leaves the right status. */
    void (*on_stop)(void *ctx);
    void *ctx;
    double save_patience_s;
    /* Closed loop: after a request fails, nothing more is sent for this
     * long (0: none), so a server that is down meets a few requests a
     * second rather than a storm of refused connections (soak). */
    double fail_pause_s;
} tc_runner_config;

typedef struct tc_runner_result {
    int64_t measured;  /* measured requests finished and handed over */
    int64_t warmup;    /* warm-up requests finished and handed over */
    int64_t abandoned; /* in flight at an interrupt, cut off, handed over as "interrupted" */
    int interrupted;   /* *stop was set */
    int64_t unsaved;   /* finished but refused by on_batch to the end */
    /* Requests sent once more on a fresh connection: their first attempt
     * died on a kept-alive connection the server had closed, before any
     * response byte (each record says so: retried). Never a request that
     * received a byte. */
    int64_t retried_stale;
} tc_runner_result;

/* Runs the workload. Returns TC_OK when it ran (however many requests
 * failed: they are in the records), or an error when it could not run at
 * all (libcurl setup, a batch callback failure), with the reason in err. */
TC_MUST_CHECK tc_err tc_runner_run(const tc_runner_config *cfg, tc_runner_result *res, char *err,
                                   size_t errlen);

#endif
