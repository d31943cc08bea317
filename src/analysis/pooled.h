/* The exact summary of a large pooled sample of nanosecond durations (the
 * inter-token gaps of every chunk of a run) in bounded memory.
 *
 * The values are fed in passes over the same stream, in the same order.
 * Up to `keep` of them are held and summarised as tc_summary_compute would.
 * Beyond that, a log-linear histogram locates each order statistic the
 * percentiles need and later passes narrow its bucket to the exact value
 * (a radix selection), so the percentiles are still those of the sorted
 * sample (stats.h), never of buckets. The mean comes from an exact integer
 * sum; the standard deviation from the squared deviations summed in the
 * feeding order, as the in-memory path sums them.
 *
 * Use:
 *   tc_pooled p; tc_pooled_init(&p, keep);
 *   do { for each value: tc_pooled_add(&p, v); } while ((rc = tc_pooled_end_pass(&p)) == 1);
 *   if (rc == 0) tc_pooled_summary_ms(&p, &summary);
 *   tc_pooled_free(&p);
 * A pass after the first costs memory for at most eight 64k-entry counter
 * tables; values above 2^16 times the bucket width take one more pass. */
#ifndef TC_POOLED_H
#define TC_POOLED_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/stats.h"

/* Values held before switching to the histogram: 4M (32 MB). */
#define TC_POOLED_KEEP_DEFAULT ((size_t)4 << 20)

#define TC_POOLED_TARGETS 8 /* two order statistics for each of p50 p90 p95 p99 */

typedef struct tc_pooled_target {
    uint64_t rank;    /* 0-based order statistic wanted */
    uint64_t lo;      /* the value lies in [lo, lo + width) */
    uint64_t width;   /* a power of two; 1 when resolved */
    uint64_t below;   /* values under lo */
    uint32_t shift;   /* this pass counts (v - lo) >> shift */
    uint64_t *counts; /* owned by the first target of the same range */
    int owner;        /* index of that target: several ranks share a bucket */
} tc_pooled_target;

typedef struct tc_pooled {
    size_t keep;
    int pass;     /* 1 while the first pass is fed */
    int overflow; /* more than keep values: they are in the histogram */
    int failed;   /* out of memory: no summary */
    uint64_t n;
    unsigned long long sum_hi, sum_lo; /* exact 128-bit sum of the values */
    int64_t min, max;
    int64_t *kept;
    size_t cap;
    uint64_t *hist;
    double mean_ms, ss; /* after the first pass: mean; ss summed in the second */
    tc_pooled_target t[TC_POOLED_TARGETS];
    int n_targets;
    int open[TC_POOLED_TARGETS]; /* the owners counting in this pass */
    int n_open;
} tc_pooled;

/* keep 0 means TC_POOLED_KEEP_DEFAULT. Never fails: memory is taken as
 * values come. */
void tc_pooled_init(tc_pooled *p, size_t keep);

/* One value (a negative one counts as 0: chunk times are in order). */
void tc_pooled_add(tc_pooled *p, int64_t ns);

/* Ends a pass. Returns 1 when the same values must be fed again, 0 when
 * the summary is ready, or -1 when memory ran out (no summary). */
int tc_pooled_end_pass(tc_pooled *p);

/* The summary in milliseconds; n == 0 gives an empty one. Only after
 * tc_pooled_end_pass returned 0. */
void tc_pooled_summary_ms(const tc_pooled *p, tc_summary *out);

/* Frees what it holds and zeroes *p; accepts NULL. */
void tc_pooled_free(tc_pooled *p);

#endif
