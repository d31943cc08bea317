/* A stored sweep's points: each run's figures read and made a point
 * (analysis/sweep.h). */
#ifndef TC_VIEW_SWEEP_H
#define TC_VIEW_SWEEP_H

#include "analysis/sweep.h"
#include "store/store.h"

/* Loads the points of a sweep's runs (a group, oldest first) into a new
 * array *pts of set->n (free() it). The store's errors, with err. */
TC_MUST_CHECK tc_err tc_view_sweep(tc_store *st, const tc_runset *set, tc_sweep_point **pts,
                                   char *err, size_t errlen);

#endif
