/* The saver: one run's requests and samples written into the store by a
 * thread of their own, so that the thread reading the streams never
 * waits on the database (a chunk that arrives while it waits is timed
 * late: two round trips a batch to a remote PostgreSQL). What queues
 * while the saver writes goes in its next write, as one transaction (one
 * COPY on PostgreSQL). Nothing queued is dropped: a write the store
 * refuses stays at the head of the queue and is tried again every half
 * second; adding more is refused meanwhile (the runner then stops sending
 * and offers its batch again), and what is still unsaved when the saver
 * stops after `patience_s` of refusals is counted.
 *
 * One thread adds; the saver's own thread writes, a transaction at a
 * time, with the signals a user sends blocked. While the saver runs, the
 * store is the saver's: use it through tc_saver_with_store. */
#ifndef TC_MEASURE_SAVER_H
#define TC_MEASURE_SAVER_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_error.h"
#include "record/record.h"
#include "record/record_sample.h"
#include "store/store.h"

/* The most records one write takes (one transaction): PostgreSQL pays
 * round trips and a COPY's set-up a write, SQLite grows slower past a
 * few hundred rows a transaction (make bench, bench_store). And the most
 * that may wait: a store slower than the run holds the adder back there
 * rather than let memory grow without end. */
#define TC_SAVER_WRITE_MAX_PG 8192
#define TC_SAVER_WRITE_MAX_SQLITE 512
#define TC_SAVER_QUEUE_MAX 65536

typedef struct tc_saver tc_saver;

/* Starts a saver for run run_id of store (which must outlive it), giving
 * up on refusals after patience_s (> 0). TC_OK, or TC_ERR_NOMEM /
 * TC_ERR_IO (no thread) with why in err; *out is NULL then. */
TC_MUST_CHECK tc_err tc_saver_start(tc_store *store, int64_t run_id, double patience_s,
                                    tc_saver **out, char *err, size_t errlen);

/* Queues copies of n records (the caller keeps its own). 0; or -1 with
 * nothing kept: the store is refusing what is queued (why in err), or
 * memory ran out. Waits only when TC_SAVER_QUEUE_MAX records already
 * wait. */
int tc_saver_add_requests(tc_saver *s, const tc_req_record *recs, size_t n, char *err,
                          size_t errlen);

/* Queues copies of n telemetry samples. A batch of samples the store
 * refuses is dropped, as a sampler's would be; the first such refusal is
 * kept for tc_saver_samples_lost. 0, or -1 when memory ran out. */
int tc_saver_add_samples(tc_saver *s, const tc_run_sample *samples, size_t n);

/* 1 (why in err) the first time it is asked after samples were lost. */
int tc_saver_samples_lost(tc_saver *s, char *err, size_t errlen);

/* Waits until everything queued is stored, or (refusing) at once when
 * !patient, else until the refusals have lasted patience_s. Returns the
 * requests still unsaved (why in err). */
int64_t tc_saver_flush(tc_saver *s, int patient, char *err, size_t errlen);

/* Runs fn(store, arg) and returns what it returns: with a saver, on its
 * store, once everything added before is stored (or the store is
 * refusing it), the saver waiting meanwhile (fn must not call it);
 * without one (s NULL), at once on `store`. */
tc_err tc_saver_with_store(tc_saver *s, tc_store *store, tc_err (*fn)(tc_store *store, void *arg),
                           void *arg);

/* Flushes (patiently), stops the thread and frees the saver; accepts
 * NULL (0). Returns the requests that could not be saved (why in err). */
int64_t tc_saver_stop(tc_saver *s, char *err, size_t errlen);

#endif
