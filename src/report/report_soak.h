/* A soak (`truecost soak`, `show SOAK`): its verdict with each reason, the
 * trends per hour, the windows as a compact table and the outages; or one
 * JSON document: {soak: {run_id, duration_s, covered_s, window_s,
 * thresholds: {max_downtime_s, max_drift_pct_per_h, max_error_rate},
 * chunks, resumes}, verdict: {pass, reasons: [], requests, errors,
 * error_rate, outages, downtime_s, longest_outage_s, restarts,
 * error_bursts, outages_per_day, trends: {throughput_pct_per_h: {value,
 * lo, hi}, tpot_pct_per_h: {...}, rss_mib_per_h, gpu_mem_mib_per_h}},
 * windows: [{idx, start_s, span_s, requests, errors, output_tokens_per_s,
 * ttft_ms: {p50, p99}, tpot_ms: {p50, p99}, avg_power_w, energy_j,
 * gpu_mem_bytes, rss_bytes, restarts, down_s}], outages: [{start_s, end_s,
 * duration_s, failed, refused, first_error}]}. Not measured: null. */
#ifndef TC_REPORT_SOAK_H
#define TC_REPORT_SOAK_H

#include <stdio.h>

#include <jansson.h>

#include "analysis/soak.h"
#include "core/tc_error.h"

typedef struct tc_soak_view {
    const tc_run_info *run;
    const tc_soak_plan *plan;
    const tc_soak_window *windows;
    size_t n_windows;
    const tc_soak_outage *outages;
    size_t n_outages;
    const tc_soak_verdict *verdict;
    int terminal; /* a sparkline per metric (and the table only when short) */
} tc_soak_view;

/* A new reference; NULL when out of memory. */
json_t *tc_report_soak_json(const tc_soak_view *v);

/* The verdict, trends, windows and outages for people. TC_OK or
 * TC_ERR_IO. */
TC_MUST_CHECK tc_err tc_report_soak_text(FILE *out, const tc_soak_view *v);

/* The progress line's text (no newline): elapsed/total, the last
 * window's figures, outages. */
void tc_report_soak_progress(char *buf, size_t len, double elapsed_s, double total_s,
                             const tc_soak_window *last, int outages, double downtime_s,
                             int restarts, int down);

#endif
