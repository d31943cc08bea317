/* truecost cost's work: its options, and the result printed. */
#ifndef TC_APP_COST_H
#define TC_APP_COST_H

#include "analysis/cost.h"
#include "app/app_runset.h"

typedef struct tc_app_cost_args {
    const char *run, *profile, *db;
    int json;
} tc_app_cost_args;

/* The run's cost printed (JSON with a->json); the exit status. */
int tc_app_cost(tc_app_cost_args *a);

#endif
