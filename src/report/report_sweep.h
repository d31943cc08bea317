/* A load sweep (`truecost sweep`, `show SWEEP`): a table of its points
 * against offered load with the knee marked, or one JSON document:
 * {sweep: {name, simulated, note?, offered: "concurrency"|"rate", slo,
 * stopped, incomplete}, points: [{run_id, status, concurrency, rate, requests_per_s,
 * output_tokens_per_s, total_tokens_per_s, tokens_per_s_per_gpu, gpus,
 * interactivity, steady_state, ttft_ms: {p50, p99}, tpot_ms: {p50, p99},
 * goodput: {requests_per_s, output_tokens_per_s, attainment} | null,
 * energy: {watts, joules_per_output_token}, error_rate}], knee: {index,
 * run_id, concurrency, rate, reason} | null}. Keys are stable
 * (docs/json.md). */
#ifndef TC_REPORT_SWEEP_H
#define TC_REPORT_SWEEP_H

#include <stdio.h>

#include <jansson.h>

#include "analysis/sweep.h"
#include "core/tc_error.h"

typedef struct tc_sweep_view {
    const char *name;
    const char *slo;     /* its objectives' text, or NULL */
    const char *stopped; /* why it stopped going up, or NULL (ran through; or unknown) */
    const tc_sweep_point *points;
    size_t n;
} tc_sweep_view;

/* A new reference; NULL when out of memory. */
json_t *tc_report_sweep_json(const tc_sweep_view *v);

/* The table for people. TC_OK or TC_ERR_IO. */
TC_MUST_CHECK tc_err tc_report_sweep_text(FILE *out, const tc_sweep_view *v);

/* One point's progress line, as the sweep measures it. */
void tc_report_sweep_progress(FILE *out, size_t index, const tc_sweep_point *p);

#endif
