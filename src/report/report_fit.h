/* The documents of `truecost fit`: the model's shape, the workload, each
 * memory term with its formula, the verdict per card with the largest
 * setting that fits, and beside them what a server's log reported and
 * what a stored run measured. Text (report_fit_text.c) and JSON
 * (report_fit.c; its keys are docs/json.md's "The fit document"). */
#ifndef TC_REPORT_FIT_H
#define TC_REPORT_FIT_H

#include <stddef.h>
#include <stdio.h>

#include <jansson.h>

#include "analysis/fit.h"
#include "analysis/fit_log.h"
#include "views/view_fit.h"
#include "core/tc_error.h"
#include "record/record_model.h"

/* Everything one `truecost fit` printed; borrowed pointers. */
typedef struct tc_fit_report {
    const char *model_path;
    const tc_model_shape *model;
    const tc_fit_options *opts;
    const tc_fit_terms *terms;
    const tc_fit_card *cards; /* n_cards of them, in the order given */
    int n_cards;
    const char *log_path;
    const tc_fit_log *log;      /* NULL: no --server-log */
    const tc_fit_measured *run; /* NULL: no --run */
} tc_fit_report;

/* The fit document (docs/json.md). A new reference; NULL when out of
 * memory. */
json_t *tc_report_fit_json(const tc_fit_report *r);

/* The same for people, figures to 4 significant digits. TC_OK, or
 * TC_ERR_IO when out failed. */
TC_MUST_CHECK tc_err tc_report_fit_text(FILE *out, const tc_fit_report *r);

/* A term's formula in words ("kv_bytes_per_token x ctx x concurrency /
 * gpus"), as docs/commands/fit.md writes it. Static. */
const char *tc_report_fit_formula(const tc_fit_options *o, const tc_fit_terms *t,
                                  tc_fit_term_id id);

/* The worst verdict of the cards ("fits" < "tight" < "does not fit"), or
 * NULL with no card. */
const char *tc_report_fit_overall(const tc_fit_report *r);

#endif
