/* A training run's documents: `train`'s summary and `show RUN` of a
 * training run, as text and JSON (docs/json.md, "train"). Formatting only. */
#ifndef TC_REPORT_TRAIN_H
#define TC_REPORT_TRAIN_H

#include <jansson.h>
#include <stdio.h>

#include "core/tc_error.h"
#include "report_show.h"
#include "views/view_train.h"

/* The text document; TC_OK or TC_ERR_IO. */
TC_MUST_CHECK tc_err tc_report_train_text(FILE *out, const tc_view_train *v);

/* The JSON document (a new reference; NULL when memory ran out). */
json_t *tc_report_train_json(const tc_view_train *v);

/* The training run of run in s->form, when it is one (*found); nothing is
 * written otherwise. */
TC_MUST_CHECK tc_err tc_report_show_train(tc_store *st, const tc_run_info *run, tc_show *s,
                                          int *found, char *err, size_t errlen);

#endif
