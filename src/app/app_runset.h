/* RUN arguments of a command: the library's runset and figures loader
 * (analysis/figures.h), with the error said and mapped to an exit status. */
#ifndef TC_APP_RUNSET_H
#define TC_APP_RUNSET_H

#include "analysis/figures.h"
#include "analysis/cost_profile.h"
#include "views/view_figures.h"

/* tc_view_runset; on failure prints why and returns TC_EXIT_RUNTIME. */
int tc_app_runset_find(tc_store *st, const char *which, tc_runset *out);

/* tc_view_runset_figures; on failure prints why and returns TC_EXIT_RUNTIME. */
int tc_app_runset_load(tc_store *st, const tc_runset *s, tc_figures **f);

/* 1 when `which` names a training run (truecost train), 0 otherwise (not
 * found included). */
int tc_app_is_train(tc_store *st, const char *which);

/* cost and compare of training runs (app_train_price.c); exit statuses. */
int tc_app_train_cost(tc_store *st, const char *which, const tc_cost_profile *p, int json);
int tc_app_train_compare(tc_store *st, const char *run_a, const char *run_b,
                         const tc_cost_profile *pa, const tc_cost_profile *pb, int resamples,
                         uint64_t seed, int json);

#endif
