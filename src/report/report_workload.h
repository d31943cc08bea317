/* The workload shape of a run of synthetic prompts and its achieved
 * lengths: the "workload" member of the run document and its lines in the
 * run summary.
 *
 *   workload   {preset (null: none), seed,
 *               target {isl_min, isl_max, isl_range, osl},
 *               ignore_eos (whether the requests asked for it),
 *               eos_note (why not, else null),
 *               calibration {tokens_per_word, overhead_tokens, source},
 *               achieved {isl, osl (summaries of the server's counts per
 *                         completed request), isl_in_range (the share of
 *                         them within 5% of the target range, or null)}} */
#ifndef TC_REPORT_WORKLOAD_H
#define TC_REPORT_WORKLOAD_H

#include <stdio.h>

#include <jansson.h>

#include "analysis/workload.h"

/* The member above; a new reference, or NULL when out of memory. */
json_t *tc_report_workload_json(const tc_workload_figures *w);

/* The summary's lines: the shape, what was achieved, the calibration, the
 * EOS note and a warning when the lengths missed their targets. Nothing
 * for a run without a shape. */
void tc_report_workload_text(FILE *out, const tc_workload_figures *w);

#endif
