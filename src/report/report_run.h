/* One run's summary: the run document of `run --json`, `show --json` and
 * `export --what summary`, and its text counterpart (the summary table
 * that `run` and `show` print). */
#ifndef TC_REPORT_RUN_H
#define TC_REPORT_RUN_H

#include <stdio.h>

#include <jansson.h>

#include "analysis/figures.h"
#include "analysis/roofline.h"
#include "core/tc_error.h"
#include "report/report_export.h"

/* The run document (report_json.h) of the figures f plus "energy"
 * (report_energy.h), "roofline" (the bound roof, report_roofline.h) and
 * "environment" (the parsed fingerprint; NULL or JSON null: null). A new
 * reference; NULL when out of memory. */
json_t *tc_report_run_doc(const tc_figures *f, json_t *fingerprint, const tc_roofline_result *roof);

/* The summary table (report_table.h), the energy lines, the bound and one
 * or two lines of the environment (fingerprint may be NULL or JSON null:
 * "not recorded"). `color` as tc_report_table. TC_OK, TC_ERR_INVALID or
 * TC_ERR_IO. */
TC_MUST_CHECK tc_err tc_report_run_text(FILE *out, const tc_figures *f, json_t *fingerprint,
                                        const tc_roofline_result *roof, int color);

/* Writes the run document above as `export --what summary` does
 * (tc_report_export_doc: JSON, or flattened CSV). TC_OK, TC_ERR_NOMEM or
 * TC_ERR_IO, detail in err. */
TC_MUST_CHECK tc_err tc_report_run_export(FILE *out, tc_export_format fmt, const tc_figures *f,
                                          json_t *fingerprint, const tc_roofline_result *roof,
                                          char *err, size_t errlen);

#endif
