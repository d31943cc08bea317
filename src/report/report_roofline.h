/* The roofline's documents: `truecost roofline RUN` and `--list` (text and
 * JSON), and the short bound that show, run and compare print beside a
 * run's figures. Unknown numbers are null / "-", never 0. */
#ifndef TC_REPORT_ROOFLINE_H
#define TC_REPORT_ROOFLINE_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "analysis/roofline.h"
#include "core/tc_error.h"
#include "record/record.h"

/* ---- the short bound ------------------------------------------------------ */

/* {gpu, bandwidth_gb_s, weight_bytes, decode_ceiling_tokens_per_s,
 * measured_decode_tokens_per_s, percent_of_ceiling, reading,
 * weight_bytes_source, moe_suspected}, or JSON null when there is no decode
 * ceiling. The reading says there is none at concurrency > 1. A new
 * reference; NULL when out of memory. */
json_t *tc_report_roofline_brief_json(const tc_roofline_result *r, int concurrency);

/* One or two lines on out: the bound and the measured share of it, or why
 * there is none when the run had a GPU; nothing when it had none. TC_OK or
 * TC_ERR_IO. */
TC_MUST_CHECK tc_err tc_report_roofline_brief(FILE *out, const tc_roofline_result *r,
                                              int concurrency);

/* ---- truecost roofline ---------------------------------------------------- */

/* The table's rows as a JSON array of {name, vendor, memory_gb,
 * bandwidth_gb_s, fp16_dense_tflops, board_power_w, launch_price_usd,
 * match, source, origin ("built-in:LINE" or "FILE:LINE", FILE being
 * `specs`)}. A new reference; NULL when out of memory. */
json_t *tc_report_roofline_list_json(const tc_roofline_table *t, const char *specs);

/* The same as a table for people, with a note on the matching rule. TC_OK
 * or TC_ERR_IO. */
TC_MUST_CHECK tc_err tc_report_roofline_list(FILE *out, const tc_roofline_table *t,
                                             const char *specs);

/* The ceilings r of a run whose median decode came from decode_n requests:
 * {run_id, label, simulated, concurrency, gpu {device, spec}, model,
 * decode_ceiling_tokens_per_s, prefill_ceiling_tokens_per_s,
 * measured_decode_tokens_per_s, measured_requests, percent_of_ceiling,
 * reading, per_stream, prefill_note when there is no prefill ceiling}.
 * r must have a decode ceiling. A new reference; NULL when out of memory. */
json_t *tc_report_roofline_json(const tc_run_info *run, const tc_roofline_result *r,
                                size_t decode_n, const char *specs);

/* The same for people. TC_OK or TC_ERR_IO. */
TC_MUST_CHECK tc_err tc_report_roofline_text(FILE *out, const tc_run_info *run,
                                             const tc_roofline_result *r, size_t decode_n);

#endif
