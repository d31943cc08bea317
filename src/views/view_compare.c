/* One side of a comparison loaded from the store: its runs, their (view_compare.h). */
#include "views/view_compare.h"

#include <stdlib.h>
#include "views/view_figures.h"

tc_err tc_view_compare_platform(tc_store *st, const char *which, const char *label,
                                const tc_cost_profile *profile, tc_compare_platform *out, char *err,
                                size_t errlen)
{
    out->label = label;
    out->profile = profile;
    out->set = calloc(1, sizeof *out->set);
    if (!out->set)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    tc_err rc = tc_view_runset(st, which, out->set, err, errlen);
    if (rc == TC_OK)
        rc = tc_view_runset_figures(st, out->set, TC_FIGURES_REQUESTS, &out->f, err, errlen);
    if (rc != TC_OK)
        return rc;
    /* No fingerprint (or an unreadable one) is a difference, not an error. */
    char ignored[256];
    json_t *fp = NULL;
    if (tc_view_fingerprint(st, out->set->runs[0].id, &fp, ignored, sizeof ignored) != TC_OK ||
        json_is_null(fp)) {
        json_decref(fp);
        fp = NULL;
    }
    out->fingerprint = fp;
    return TC_OK;
}
