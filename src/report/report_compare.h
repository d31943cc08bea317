/* The documents of `truecost compare`: the side-by-side table with the
 * intervals, the claim, the warnings and the differences, and the JSON
 * document (a contract: keys are only ever added). */
#ifndef TC_REPORT_COMPARE_H
#define TC_REPORT_COMPARE_H

#include <stdio.h>

#include <jansson.h>

#include "analysis/compare.h"

/* Prints the comparison r (a finished tc_compare_result) on out. */
void tc_report_compare_print(FILE *out, const tc_compare_result *r);

/* The JSON document of r: {simulated, a, b, ratios_b_over_a, resampling,
 * interval_method, run_to_run_covered, resamples, seed, confidence,
 * claim, warnings, differences}. A new reference, or NULL when memory ran
 * out. */
json_t *tc_report_compare_json(const tc_compare_result *r);

#endif
