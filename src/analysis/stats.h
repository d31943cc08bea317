/* Exact summary statistics of a sample: mean, sample standard deviation and
 * percentiles from the sorted values, never from buckets.
 *
 * Percentiles use linear interpolation between the closest ranks, numpy's
 * default (method="linear"), which is what vLLM's benchmark client reports:
 * for sorted x[0..n-1] and q in [0, 100], h = (n - 1) * q / 100 and
 * P(q) = x[floor(h)] + (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)]).
 * So P50 of an even count is the mean of the two middle values, and P90 of
 * 1..10 is 9.1. */
#ifndef TC_STATS_H
#define TC_STATS_H

#include <stddef.h>

#include "core/tc_error.h"

/* n == 0 marks an empty summary: its other fields are 0 but mean nothing,
 * and reports show them as null / "n/a", never as 0. */
typedef struct tc_summary {
    size_t n;
    double mean;
    double stddev; /* sample (n - 1); 0 when n < 2 */
    double min, p50, p90, p95, p99, max;
} tc_summary;

/* Percentile q (0..100, clamped) of `sorted` (ascending, n > 0), as above.
 * Returns 0 when n == 0. */
double tc_stats_percentile(const double *sorted, size_t n, double q);

/* numpy's _lerp: a + (b - a) * t, from the upper end when t >= 0.5, so
 * P(100) is exactly the maximum and results match numpy to the last bit. */
double tc_stats_lerp(double a, double b, double t);

/* Sorts `samples` ascending IN PLACE and fills *out; n == 0 gives an empty
 * summary (samples may then be NULL). */
void tc_summary_compute(double *samples, size_t n, tc_summary *out);

/* A growable array of doubles. A zero-initialised tc_dvec is valid and
 * empty; _free accepts NULL, frees the array and leaves it empty. */
typedef struct tc_dvec {
    double *data;
    size_t len, cap;
} tc_dvec;

/* Appends x. Returns TC_OK, or TC_ERR_NOMEM (the vector is unchanged). */
TC_MUST_CHECK tc_err tc_dvec_push(tc_dvec *v, double x);
void tc_dvec_free(tc_dvec *v);

#endif
