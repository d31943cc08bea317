/* A run over time, for the report's timeline: output tokens/s, requests
 * in flight and measured watts in equal bins from the first measured send
 * to the last end, with the steady-state window's bounds, filled from the
 * records one at a time (memory that grows with nothing) and the
 * telemetry samples, so a run of a million requests is one pass; the
 * histogram of its inter-token gaps on log-spaced bins; the CDFs of every
 * TTFT and gap. */
#ifndef TC_RUN_SERIES_H
#define TC_RUN_SERIES_H

#include "analysis/run_metrics.h"
#include "record/record_sample.h"

#define TC_SERIES_BINS 60
#define TC_SERIES_MAX_DEVICES 16
#define TC_SERIES_ITL_BINS 40
#define TC_SERIES_CDF_BINS 1000

/* A distribution from every value, for its empirical CDF: counts on n
 * log-spaced bins between edge_ms[0] (the smallest value above 0) and
 * edge_ms[n] (the largest); a value of exactly 0 (two chunks read in one
 * go) is counted in zero, not dropped. Read as a CDF: zero / total at
 * edge_ms[0], then the running count at each bin's upper edge. n 0: no
 * value above 0 (total may still count zeros). */
typedef struct tc_series_cdf {
    int n;
    double edge_ms[TC_SERIES_CDF_BINS + 1];
    double count[TC_SERIES_CDF_BINS];
    long long zero, total;
} tc_series_cdf;

typedef struct tc_run_series {
    int n;                      /* bins used; 0: the run has no measured request that ended */
    double bin_s;               /* width of a bin, seconds */
    double t_s[TC_SERIES_BINS]; /* bin centre, seconds from the first measured send */
    /* Output tokens of completed requests, spread evenly from each
     * request's first text chunk to its end, per second of the bin. */
    double tokens_per_s[TC_SERIES_BINS];
    double in_flight[TC_SERIES_BINS]; /* mean measured requests between send and end */
    int has_avg_power;
    double avg_power_w[TC_SERIES_BINS]; /* summed over devices; NaN in a bin without samples */
    int has_window;
    double window_from_s, window_to_s;
    /* Inter-token gaps of the measured, completed requests (the ITL of
     * the figures): itl_n bins between itl_edge_ms[i] and [i + 1],
     * log-spaced from the shortest gap above 0 to the longest, the 0 ms
     * gaps counted in the first; itl_count[i] gaps in each, itl_total in
     * all. itl_n 0: fewer than two distinct gaps. */
    int itl_n;
    double itl_edge_ms[TC_SERIES_ITL_BINS + 1];
    double itl_count[TC_SERIES_ITL_BINS];
    long long itl_total;
    /* The TTFT of every measured completed request and every inter-token
     * gap of them (the populations of the figures), for their CDFs. */
    tc_series_cdf ttft_cdf, itl_cdf;
    int64_t t0; /* the first measured send, CLOCK_MONOTONIC ns */
} tc_run_series;

/* Sets up c for values in [min, max] ms (the figures' own bounds). */
void tc_series_cdf_begin(tc_series_cdf *c, double min_ms, double max_ms);

/* Counts one value (ms). */
void tc_series_cdf_add(tc_series_cdf *c, double v_ms);

/* Starts the series of the run whose figures are m (needs first_send,
 * last_end, window and the TTFT and ITL bounds). Returns 1 when it has a
 * span to fill, 0 (out->n 0) when not. Then each measured record (every
 * chunk, for the gaps) to tc_run_series_add, the telemetry samples to
 * tc_run_series_samples, and tc_run_series_end; views/view_series.h
 * streams a stored run through them. */
int tc_run_series_begin(tc_run_series *out, const tc_run_metrics *m);
void tc_run_series_add(tc_run_series *s, const tc_req_record *r);
void tc_run_series_samples(tc_run_series *s, const tc_run_sample *smp, size_t n);
void tc_run_series_end(tc_run_series *s);

#endif
