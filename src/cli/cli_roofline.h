/* truecost roofline: a stored run's bandwidth ceiling on its GPU; and the
 * spec table loaded with its error said, for the commands that print the
 * bound. */
#ifndef TC_CLI_ROOFLINE_H
#define TC_CLI_ROOFLINE_H

#include <stdio.h>

#include <jansson.h>

#include "analysis/roofline.h"
#include "analysis/run_energy.h"

/* tc_roofline_table_load (analysis/roofline_run.h); on failure prints why
 * and returns TC_EXIT_USAGE (a bad specs file) or TC_EXIT_RUNTIME (out of
 * memory); else 0. Free with tc_roofline_table_free. */
int tc_cli_roofline_table_load(const char *specs, tc_roofline_table *t);

/* Compatibility wrappers for cli_compare*.c until it calls the library
 * directly; each only calls the function it names. */

/* tc_roofline_first_gpu (analysis/roofline_run.h). */
const char *tc_cli_first_gpu(const tc_run_energy *e);

/* tc_roofline_brief (analysis/roofline_run.h), its result ignored. */
void tc_cli_roofline_brief(const tc_roofline_table *t, const char *gpu_name, json_t *fingerprint,
                           double measured_decode_tps, tc_roofline_result *out);

/* tc_report_roofline_brief_json (report/report_roofline.h). */
json_t *tc_cli_roofline_brief_json(const tc_roofline_result *r, int concurrency);

#endif
