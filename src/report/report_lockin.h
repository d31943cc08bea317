/* The documents of `truecost lockin`: the inputs, point estimate, Monte
 * Carlo distribution, sensitivity, performance, break-even and net
 * benefit of a lock-in result, as text and as JSON (a contract: keys are
 * only ever added). */
#ifndef TC_REPORT_LOCKIN_H
#define TC_REPORT_LOCKIN_H

#include <stdio.h>

#include <jansson.h>

#include "assess/lockin.h"

/* Prints the report of r on out; o (may be NULL) is the evidence it was
 * evaluated with (where the perf ratio came from, simulated). */
void tc_report_lockin_print(FILE *out, const tc_lockin_result *r, const tc_lockin_overrides *o);

/* The JSON document of r: {simulated, assessment, currency, inputs,
 * point_estimate, terms, samples, seed, mean, min, max, p10, p50, p90,
 * hardware_saving, probability_exceeds_saving, sensitivity, performance,
 * running_saving_per_month, break_even, net_benefit, reading}. A new
 * reference, or NULL when memory ran out. */
json_t *tc_report_lockin_json(const tc_lockin_result *r, const tc_lockin_overrides *o);

#endif
