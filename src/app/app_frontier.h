/* Two frontier sides loaded, read at the targets and printed: frontier's
 * work, and compare's of two sweeps. */
#ifndef TC_APP_FRONTIER_H
#define TC_APP_FRONTIER_H

#include "analysis/frontier_cost.h"
#include "store/store.h"

/* Loads `which_a` (and `which_b`, may be NULL) as frontier sides priced
 * with pa (pb for B), reads them at ask's targets and prints the frontier
 * document, as JSON when json is set. Returns 0 or an exit status, said. */
int tc_app_frontier_pair(tc_store *st, const char *which_a, const char *which_b,
                         const tc_cost_profile *pa, const tc_cost_profile *pb, const tc_slo *slo,
                         const tc_frontier_ask *ask, int json);

#endif
