/* A mergeable latency histogram of fixed size: log-spaced bins, 2% wide,
 * from 1 us to about 3 hours, so a percentile read from it is within 2%
 * however many values went in, and two of them add up bin by bin. A soak
 * keeps one per figure and window instead of every value. */
#ifndef TC_HIST_H
#define TC_HIST_H

#include <stdint.h>

#define TC_HIST_BINS 1200

typedef struct tc_hist {
    uint64_t n;
    uint32_t bins[TC_HIST_BINS];
} tc_hist;

/* Empties h. */
void tc_hist_clear(tc_hist *h);

/* Counts one value in nanoseconds; below 1 us counts in the first bin,
 * beyond the last in the last. Negative values are ignored. */
void tc_hist_add(tc_hist *h, double ns);

/* Adds src's counts to dst. */
void tc_hist_merge(tc_hist *dst, const tc_hist *src);

/* The q-quantile (0..1) in nanoseconds, the middle of its bin (log
 * scale); NaN when h is empty. */
double tc_hist_quantile(const tc_hist *h, double q);

#endif
