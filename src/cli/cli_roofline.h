/* truecost roofline: a stored run's bandwidth ceiling on its GPU. */
#ifndef TC_CLI_ROOFLINE_H
#define TC_CLI_ROOFLINE_H

#include <stdio.h>

#include <jansson.h>

#include "analysis/roofline.h"
#include "analysis/run_energy.h"
#include "record/record.h"

/* ---- the short form that show and compare print -------------------------- */

/* The spec table: the rows of `specs` (may be NULL) first, so that they
 * win, then the built-in ones. Returns 0, or TC_EXIT_USAGE (a bad specs
 * file) / TC_EXIT_RUNTIME after saying why. Free with
 * tc_roofline_table_free. */
int tc_cli_roofline_table_load(const char *specs, tc_roofline_table *t);

/* The name of the first GPU a run sampled, or NULL (then the roofline
 * takes the fingerprint's). Borrowed from e. */
const char *tc_cli_first_gpu(const tc_run_energy *e);

/* The bandwidth bound of a run for other reports, from table t: its GPU
 * (`gpu_name`, or NULL for the fingerprint's first GPU), its parsed
 * `fingerprint` (may be NULL or JSON null) and `measured_decode_tps` (its
 * median single-stream decode speed, 0 = none). What is missing is in
 * out->missing, not an error. */
void tc_cli_roofline_brief(const tc_roofline_table *t, const char *gpu_name, json_t *fingerprint,
                           double measured_decode_tps, tc_roofline_result *out);

/* {gpu, bandwidth_gb_s, weight_bytes, decode_ceiling_tokens_per_s,
 * measured_decode_tokens_per_s, percent_of_ceiling, reading, source}, or
 * JSON null when there is no decode ceiling. The reading says there is
 * none at concurrency > 1. A new reference. */
json_t *tc_cli_roofline_brief_json(const tc_roofline_result *r, int concurrency);

/* One or two lines on out: the bound and the measured share of it, or why
 * there is none when the run had a GPU; nothing when it had none. */
void tc_cli_roofline_brief_print(FILE *out, const tc_roofline_result *r, int concurrency);

#endif
