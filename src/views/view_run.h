/* Everything a run's summary shows (`run`, `show`, `export --what
 * summary`): its figures, the environment it ran in and its bandwidth
 * bound. */
#ifndef TC_RUN_VIEW_H
#define TC_RUN_VIEW_H

#include <stddef.h>

#include <jansson.h>

#include "analysis/figures.h"
#include "analysis/roofline.h"
#include "store/store.h"
#include "views/view_figures.h"

#define TC_RUN_VIEW_MAX_WARNINGS 3

typedef struct tc_run_view {
    tc_figures f;
    json_t *fingerprint;     /* parsed; JSON null when none or unreadable; owned */
    tc_roofline_result roof; /* the bound (tc_roofline_of_figures) */
    /* What could not be read and was left out (the fingerprint, the GPU
     * table), for the caller to say; the view is complete otherwise. */
    char warnings[TC_RUN_VIEW_MAX_WARNINGS][512];
    int n_warnings;
} tc_run_view;

/* Loads run's figures, fingerprint and bound into *out (free with
 * tc_view_run_free; nothing to free on failure). TC_OK, or the error of
 * tc_view_figures with the detail in err. */
TC_MUST_CHECK tc_err tc_view_run(tc_store *st, const tc_run_info *run, tc_run_view *out,
                                      char *err, size_t errlen);
void tc_view_run_free(tc_run_view *v); /* accepts NULL */

#endif
