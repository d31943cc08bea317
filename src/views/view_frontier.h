/* One platform's sweep loaded for the frontier: its points, each point's
 * completed requests (for the bootstrap) judged under an SLO, and the runs
 * left out (analysis/frontier_cost.h reads and prices the frontier). */
#ifndef TC_VIEW_FRONTIER_H
#define TC_VIEW_FRONTIER_H

#include "analysis/frontier_cost.h"
#include "store/store.h"

/* Loads `which` (a sweep, a group, or one run) from the store, leaving
 * out (and naming) its runs that did not complete; slo (may be NULL)
 * judges each request. A side with no complete run is TC_ERR_INVALID. Free with
 * tc_frontier_side_free (also after a failure). */
TC_MUST_CHECK tc_err tc_view_frontier_side(tc_store *st, const char *which, const char *label,
                                           const tc_cost_profile *profile, const tc_slo *slo,
                                           tc_frontier_side *out, char *err, size_t errlen);

#endif
