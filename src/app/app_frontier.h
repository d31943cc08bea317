/* frontier's work, and what compare of two sweeps shares of it: two
 * frontier sides loaded, read at the targets and printed. */
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

/* frontier's options. */
typedef struct tc_app_frontier_args {
    const char *db, *profile, *profile_a, *profile_b, *at, *slo_text, *pos[2];
    tc_slo slo;
    long long resamples, seed;
    double claim, demand; /* claim NaN: none */
    int json;
    double targets[TC_FRONTIER_MAX_TARGETS];
    size_t n_targets;
} tc_app_frontier_args;

/* The frontier a asks printed (JSON with a->json); the exit status. */
int tc_app_frontier(tc_app_frontier_args *a);

#endif
