/* truecost roofline: a stored run's bandwidth ceiling on its GPU. */
#ifndef TC_CLI_ROOFLINE_H
#define TC_CLI_ROOFLINE_H

#include <stdio.h>

#include <jansson.h>

#include "analysis/roofline.h"
#include "bench/bench_record.h"
#include "store/store.h"

int tc_cmd_roofline(int argc, char **argv);
void tc_cmd_roofline_help(FILE *out);

/* ---- the short form that show and compare print -------------------------- */

/* The bandwidth bound of stored run `run` for other reports: its GPU
 * (`gpu_name`, or NULL for the fingerprint's first GPU), its fingerprint,
 * and `measured_decode_tps` (its median single-stream decode speed, 0 =
 * none), against the built-in table plus the rows of `specs` (may be
 * NULL). Fills *out; what is missing is in out->missing, not an error.
 * Returns 0, or TC_EXIT_USAGE / TC_EXIT_RUNTIME after saying why (a bad
 * specs file, an unreadable run). */
int tc_cli_roofline_brief(tc_store *st, const tc_run_info *run, const char *gpu_name,
                          double measured_decode_tps, const char *specs, tc_roofline_result *out);

/* {gpu, bandwidth_gb_s, weight_bytes, decode_ceiling_tokens_per_s,
 * measured_decode_tokens_per_s, percent_of_ceiling, reading, source}, or
 * JSON null when there is no decode ceiling. The reading says there is
 * none at concurrency > 1. A new reference. */
json_t *tc_cli_roofline_brief_json(const tc_roofline_result *r, int concurrency);

/* One or two lines on out: the bound and the measured share of it, or why
 * there is none when the run had a GPU; nothing when it had none. */
void tc_cli_roofline_brief_print(FILE *out, const tc_roofline_result *r, int concurrency);

#endif
