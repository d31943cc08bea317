/* A group of repeated runs (`run --repeat K`, `show GROUP`): each run's
 * headline figures and the spread of throughput over the runs, flagged
 * when its coefficient of variation is over TC_GROUP_CV_LIMIT. */
#ifndef TC_REPORT_GROUP_H
#define TC_REPORT_GROUP_H

#include <stdio.h>

#include <jansson.h>

#include "analysis/figures.h"
#include "core/tc_error.h"
#include "report/report_export.h"

/* {group, simulated, runs: [{id, label, status, output_tokens_per_s,
 * ttft_p50_ms, itl_p50_ms, e2e_p50_ms, completed, failed}], throughput:
 * {runs, mean, stddev, cv, cv_limit, noisy}, warnings: [...]} of the set,
 * its figures f (one per run) and their summary s. A new reference; NULL
 * when out of memory. */
json_t *tc_report_group_json(const tc_runset *set, const tc_figures *f, const tc_set_summary *s);

/* The same as a table for people. TC_OK or TC_ERR_IO. */
TC_MUST_CHECK tc_err tc_report_group_text(FILE *out, const tc_runset *set, const tc_figures *f,
                                          const tc_set_summary *s);

/* Writes the JSON document above as `export --what summary` does for a
 * group (tc_report_export_doc). TC_OK, TC_ERR_NOMEM or TC_ERR_IO, detail
 * in err. */
TC_MUST_CHECK tc_err tc_report_group_export(FILE *out, tc_export_format fmt, const tc_runset *set,
                                            const tc_figures *f, const tc_set_summary *s, char *err,
                                            size_t errlen);

#endif
