/* `truecost doctor`'s documents: each check of a tc_doctor_report with its
 * evidence and fix, as lines for a terminal or as one JSON object
 * {checks: [{id, title, status, evidence, fix}], status}. */
#ifndef TC_REPORT_DOCTOR_H
#define TC_REPORT_DOCTOR_H

#include <jansson.h>
#include <stdio.h>

#include "doctor/doctor.h"

/* Prints every check ("ok  ", "WARN", "FAIL", "skip" and its title, the
 * evidence, the fix) and a closing line on the overall status. */
void tc_report_doctor_text(FILE *out, const tc_doctor_report *r);

/* The report as a new JSON object, or NULL when out of memory. */
json_t *tc_report_doctor_json(const tc_doctor_report *r);

#endif
