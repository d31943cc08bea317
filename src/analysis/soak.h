/* A soak's verdict from its windows and outages: the trends per hour
 * (least squares over the windows, with a 95% interval), memory growth,
 * error bursts, downtime, and PASS or FAIL against the plan's thresholds
 * with each reason. Pure: tests feed it made-up windows. */
#ifndef TC_ANALYSIS_SOAK_H
#define TC_ANALYSIS_SOAK_H

#include <stddef.h>

#include "core/tc_error.h"
#include "record/record_soak.h"

/* A straight line through (x, y) points: slope with its 95% interval
 * (Student's t on n - 2 degrees of freedom). ok = 0 with fewer than 3
 * points or no spread in x. */
typedef struct tc_soak_fit {
    int ok, n;
    double slope, lo, hi; /* per unit of x */
    double intercept;     /* y at x = 0 */
} tc_soak_fit;

/* Fits y = a + b x over the n points whose y is finite. */
tc_soak_fit tc_soak_fit_line(const double *x, const double *y, size_t n);

#define TC_SOAK_MAX_REASONS 8

/* FAIL: a threshold was broken, however long it ran. INCOMPLETE: none
 * was, but it did not run its planned duration (stopped, killed, or still
 * running): too little to pass. PASS: the whole plan, no threshold broken. */
typedef enum tc_soak_outcome { TC_SOAK_PASS, TC_SOAK_FAIL, TC_SOAK_INCOMPLETE } tc_soak_outcome;

/* "PASS", "FAIL", "INCOMPLETE". */
const char *tc_soak_outcome_name(tc_soak_outcome o);

/* It ran its plan: covered the planned duration, less 1% or 1 s (the
 * smaller), which the last window's timing may fall short by. */
int tc_soak_plan_complete(const tc_soak_plan *plan);

typedef struct tc_soak_verdict {
    tc_soak_outcome outcome;
    int pass;     /* outcome == TC_SOAK_PASS */
    int complete; /* tc_soak_plan_complete */
    double covered_s;
    int64_t requests, errors;
    int64_t requests_up, errors_up; /* outside outages */
    double error_rate;              /* errors_up / requests_up; 0 when none */
    int outages, open_outage;       /* open: still down at the end */
    double downtime_s, longest_s;
    int restarts;
    int error_bursts; /* windows whose error rate stood out (outside outages) */
    /* Trends per hour: throughput and TPOT in % of the fitted start
     * (negative: slower), memory in MiB per hour. NaN when not measured. */
    tc_soak_fit tput, tpot, rss, gpu_mem;
    double tput_pct_h, tput_lo_pct_h, tput_hi_pct_h;
    double tpot_pct_h, tpot_lo_pct_h, tpot_hi_pct_h;
    double rss_mib_h, gpu_mib_h;
    int rss_leak, gpu_leak; /* memory grew beyond the drift threshold */
    int n_reasons;
    char reasons[TC_SOAK_MAX_REASONS][200]; /* why it failed; empty when it passed */
} tc_soak_verdict;

/* Judges the windows (in order) and outages against the plan. The first
 * window is the warm-up of memory: it is left out of the memory trends. */
void tc_soak_judge(const tc_soak_plan *plan, const tc_soak_window *w, size_t n_windows,
                   const tc_soak_outage *o, size_t n_outages, tc_soak_verdict *out);

/* Outages per day of soak time (0 when none was covered). */
double tc_soak_outages_per_day(const tc_soak_verdict *v);

/* A stored soak, read and judged. */
typedef struct tc_soak_stored {
    tc_soak_plan plan;
    tc_soak_window *windows;
    size_t n_windows;
    tc_soak_outage *outages;
    size_t n_outages;
    tc_soak_verdict verdict;
} tc_soak_stored;

void tc_soak_stored_free(tc_soak_stored *s);

#endif
