/* The steady-state window of a run: the stretch in which the load was
 * what was asked for, over which throughput, energy and J/token are read
 * (a ramp-up and a drain at lower load would otherwise be priced too).
 *
 * Closed loop at concurrency C (ML.ENERGY's rule): from when the first C
 * measured requests have all had their first token, to when the first of
 * the last C sent finishes. The run reached no steady state when it sent
 * fewer than C measured requests or the two moments do not leave a
 * stretch between them (too few requests for its concurrency).
 *
 * Open loop (an arrival schedule): from the end of the first 10% of the
 * arrivals (the intended time of the last of them) to the last intended
 * arrival; none with fewer than two arrivals after the first 10%.
 *
 * Throughput in the window counts what arrived in it: each chunk of a
 * completed request carries output_tokens / n_chunks tokens, and a chunk
 * counts when it arrived inside the window. Requests are counted the same
 * way, so that requests/s and tokens/s count the same requests: a request
 * is its share of chunks inside (tc_steady_share), not 1 when it ended
 * inside (the last round's completions fall just after a closed loop's
 * window while their tokens fall in it, which read half the rate). So one
 * pass over the records finds the bounds and a second counts the chunks. */
#ifndef TC_RUN_WINDOW_H
#define TC_RUN_WINDOW_H

#include <stdint.h>

#include "core/tc_error.h"
#include "record/record.h"

typedef struct tc_steady {
    int has_window;
    int64_t from, to; /* CLOCK_MONOTONIC ns */
    double seconds;
    double output_tokens; /* arrived inside the window */
    double requests;      /* the requests' shares inside it (tc_steady_share) */
    int64_t completed;    /* requests that ended inside it (shown, not a rate) */
    double output_tokens_per_s, requests_per_s; /* output_tokens, requests / seconds */
    /* Open loop: the rate the schedule actually offered, (arrivals - 1)
     * over the first to the last intended time; 0 otherwise. */
    double arrivals_per_s;

    /* Internal. */
    int conc, n_first, n_ends, next, failed, open_loop;
    int64_t first_max;
    int64_t *ends;  /* closed: ring of the last conc measured requests' ends */
    int64_t *sched; /* open: every measured request's intended time */
    size_t n_sched, cap_sched;
} tc_steady;

/* concurrency < 1 counts as 1; open_loop: the run sent on a schedule. */
void tc_steady_begin(tc_steady *w, int concurrency, int open_loop);

/* First pass: each measured request, in send order. */
void tc_steady_note(tc_steady *w, const tc_req_record *r);

/* Ends the first pass: sets the bounds. Returns 1 when a second pass must
 * count the chunks (tc_steady_count, then tc_steady_end), 0 when there is
 * no window, -1 when memory ran out. */
int tc_steady_settle(tc_steady *w);

/* Second pass: each measured request again. */
void tc_steady_count(tc_steady *w, const tc_req_record *r);
void tc_steady_end(tc_steady *w);

/* The share of r inside a settled window, 0..1: the fraction of its chunks
 * that arrived inside; a completed request with no chunk is 1 when it
 * ended inside. 0 for a failed request or when there is no window. */
double tc_steady_share(const tc_steady *w, const tc_req_record *r);

void tc_steady_free(tc_steady *w); /* the ring; accepts NULL */

#endif
