/* The documents of `truecost decide`: the verdict, the checklist with its
 * evidence, the reasons and the lock-in reading, as text and as JSON (a
 * contract: keys are only ever added). */
#ifndef TC_REPORT_DECIDE_H
#define TC_REPORT_DECIDE_H

#include <stdio.h>

#include <jansson.h>

#include "assess/decide.h"
#include "assess/lockin.h"

/* Prints decision d, reached with the lock-in result r, on out;
 * `simulated` marks evidence measured on truecost sim. */
void tc_report_decide_print(FILE *out, const tc_lockin_result *r, const tc_decide_result *d,
                            int simulated);

/* {simulated, assessment, verdict, checklist [{id, text, state, declared,
 * evidence}], reasons, missing [ids], economics {lockin_p10, lockin_p50,
 * lockin_p90, hardware_saving, probability_exceeds_saving,
 * running_saving_per_month, probability_net_positive}}. A new reference,
 * or NULL when memory ran out. */
json_t *tc_report_decide_json(const tc_lockin_result *r, const tc_decide_result *d, int simulated);

#endif
