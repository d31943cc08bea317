/* truecost compare's work: its options, and two platforms compared. */
#ifndef TC_APP_COMPARE_H
#define TC_APP_COMPARE_H

#include "analysis/compare.h"
#include "app/app_frontier.h"
#include "analysis/figures.h"
#include "app/app_roofline.h"
#include "app/app_runset.h"
#include "views/view_compare.h"

typedef struct tc_app_compare_args {
    const char *run_a, *run_b, *profile, *profile_a, *profile_b, *db, *specs, *at;
    int json;
    double targets[TC_FRONTIER_MAX_TARGETS];
    size_t n_targets;
    double claim;              /* NaN: no --claim */
    long long resamples, seed; /* resamples 0: the default (fewer for frontiers: each
                                  resample rebuilds two) */
} tc_app_compare_args;

/* The comparison a asks printed (JSON with a->json); the exit status. */
int tc_app_compare(tc_app_compare_args *a);

#endif
