/* A run's summary inputs: the fingerprint and the bound are extras, so
 * failing to read them leaves a warning, not an error. */
#include "views/view_run.h"

#include <string.h>

#include "analysis/roofline_run.h"
#include "views/view_figures.h"

tc_err tc_view_run(tc_store *st, const tc_run_info *run, tc_run_view *out, char *err,
                        size_t errlen)
{
    memset(out, 0, sizeof *out);
    tc_err rc = tc_view_figures(st, run, TC_FIGURES_SUMMARY, &out->f, err, errlen);
    if (rc != TC_OK)
        return rc;
    if (tc_view_fingerprint(st, run->id, &out->fingerprint, out->warnings[out->n_warnings],
                               sizeof out->warnings[0]) != TC_OK)
        out->n_warnings++;
    if (tc_roofline_of_figures(&out->f, out->fingerprint, &out->roof,
                               out->warnings[out->n_warnings], sizeof out->warnings[0]) != TC_OK)
        out->n_warnings++;
    return TC_OK;
}

void tc_view_run_free(tc_run_view *v)
{
    if (!v)
        return;
    tc_figures_free(&v->f);
    json_decref(v->fingerprint);
    memset(v, 0, sizeof *v);
}
