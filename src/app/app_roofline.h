/* truecost roofline's work: a stored run's bandwidth ceiling on its GPU, and the spec table loaded
 * with its error said, for the commands that print the bound. */
#ifndef TC_APP_ROOFLINE_H
#define TC_APP_ROOFLINE_H

#include "analysis/roofline_run.h"
#include "views/view_roofline.h"

/* tc_roofline_table_load (analysis/roofline_run.h); on failure prints why
 * and returns TC_EXIT_USAGE (a bad specs file) or TC_EXIT_RUNTIME (out of
 * memory); else 0. Free with tc_roofline_table_free. */
int tc_app_roofline_table_load(const char *specs, tc_roofline_table *t);

typedef struct tc_app_roofline_args {
    const char *run, *gpu, *specs, *db;
    double model_bytes, params, kv_bytes;
    int json, list;
} tc_app_roofline_args;

/* The run's roofline (or, with a->list, the spec table) printed; the exit status. */
int tc_app_roofline(tc_app_roofline_args *a);

#endif
