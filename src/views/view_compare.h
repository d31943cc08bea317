/* One side of a comparison loaded from the store: its runs, their
 * figures and the first run's fingerprint (analysis/compare.h compares). */
#ifndef TC_VIEW_COMPARE_H
#define TC_VIEW_COMPARE_H

#include "analysis/compare.h"
#include "store/store.h"
#include "views/view_figures.h"

/* Loads RUN argument `which` (tc_view_runset) as side `label` of a
 * comparison: its runs, their figures and the first run's fingerprint,
 * priced with `profile` (may be NULL). TC_OK, or tc_view_runset's and
 * tc_view_runset_figures's errors with their detail in err. Free with
 * tc_compare_result_free (whatever was loaded). */
TC_MUST_CHECK tc_err tc_view_compare_platform(tc_store *st, const char *which, const char *label,
                                              const tc_cost_profile *profile,
                                              tc_compare_platform *out, char *err, size_t errlen);

#endif
