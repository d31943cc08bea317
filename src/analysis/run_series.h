/* A run over time, for the report's timeline: output tokens/s, requests
 * in flight and measured watts in equal bins from the first measured send
 * to the last end, with the steady-state window's bounds. Read from the
 * records streamed (memory that grows with nothing) and the stored
 * telemetry, so a run of a million requests is one pass; and the
 * histogram of its inter-token gaps on log-spaced bins. */
#ifndef TC_RUN_SERIES_H
#define TC_RUN_SERIES_H

#include "analysis/run_metrics.h"
#include "store/store.h"

#define TC_SERIES_BINS 60
#define TC_SERIES_MAX_DEVICES 16
#define TC_SERIES_ITL_BINS 40

typedef struct tc_run_series {
    int n;                      /* bins used; 0: the run has no measured request that ended */
    double bin_s;               /* width of a bin, seconds */
    double t_s[TC_SERIES_BINS]; /* bin centre, seconds from the first measured send */
    /* Output tokens of completed requests, spread evenly from each
     * request's first text chunk to its end, per second of the bin. */
    double tokens_per_s[TC_SERIES_BINS];
    double in_flight[TC_SERIES_BINS]; /* mean measured requests between send and end */
    int has_watts;
    double watts[TC_SERIES_BINS]; /* summed over devices; NaN in a bin without samples */
    int has_window;
    double window_from_s, window_to_s;
    /* Inter-token gaps of the measured, completed requests (the ITL of
     * the figures): itl_n bins between itl_edge_ms[i] and [i + 1],
     * log-spaced from the shortest gap to the longest; itl_count[i] gaps
     * in each, itl_total in all. itl_n 0: fewer than two distinct gaps. */
    int itl_n;
    double itl_edge_ms[TC_SERIES_ITL_BINS + 1];
    double itl_count[TC_SERIES_ITL_BINS];
    long long itl_total;
} tc_run_series;

/* The series of `run` whose figures are m (stored or computed: needs
 * first_send, last_end and window). TC_OK (out->n 0 when m has no span),
 * or the store's errors with the detail in err. */
TC_MUST_CHECK tc_err tc_run_series_load(tc_store *st, const tc_run_info *run,
                                        const tc_run_metrics *m, tc_run_series *out, char *err,
                                        size_t errlen);

#endif
