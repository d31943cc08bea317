/* The documents of `cost TRAIN` and `compare TRAIN_A TRAIN_B`, text and
 * JSON (docs/json.md, "The training cost and comparison"). */
#ifndef TC_REPORT_TRAIN_PRICE_H
#define TC_REPORT_TRAIN_PRICE_H

#include <jansson.h>
#include <stdio.h>

#include "analysis/train_price.h"
#include "views/view_train.h"

TC_MUST_CHECK tc_err tc_report_train_cost_text(FILE *out, const tc_view_train *v,
                                               const tc_cost_profile *p, const tc_training_cost *c);
json_t *tc_report_train_cost_json(const tc_view_train *v, const tc_cost_profile *p,
                                  const tc_training_cost *c);

/* a and b: the two runs; ca, cb: their prices (NULL without profiles). */
TC_MUST_CHECK tc_err tc_report_train_compare_text(FILE *out, const tc_view_train *a,
                                                  const tc_view_train *b,
                                                  const tc_training_cost *ca,
                                                  const tc_training_cost *cb, const char *currency,
                                                  const tc_training_comparison *r);
json_t *tc_report_train_compare_json(const tc_view_train *a, const tc_view_train *b,
                                     const tc_training_cost *ca, const tc_training_cost *cb,
                                     const char *currency, const tc_training_comparison *r);

#endif
