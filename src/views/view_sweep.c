/* A stored sweep's points: each run's figures read and made a point (view_sweep.h). */
#include "views/view_sweep.h"

#include <stdlib.h>
#include "views/view_figures.h"

tc_err tc_view_sweep(tc_store *st, const tc_runset *set, tc_sweep_point **pts, char *err,
                     size_t errlen)
{
    *pts = calloc(set->n ? set->n : 1, sizeof **pts);
    if (!*pts)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < set->n; i++) {
        tc_figures f;
        tc_err rc = tc_view_figures(st, &set->runs[i], TC_FIGURES_SUMMARY, &f, err, errlen);
        if (rc != TC_OK) {
            free(*pts);
            *pts = NULL;
            return rc;
        }
        tc_sweep_point_of(&f, &(*pts)[i]);
        tc_figures_free(&f);
    }
    return TC_OK;
}
