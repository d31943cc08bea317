#include "views/view_fit.h"

#include <stdio.h>
#include <string.h>

#include "analysis/figures.h"
#include "views/view_figures.h"

tc_err tc_view_fit_measured(tc_store *st, const char *which, tc_fit_measured *out, char *err,
                            size_t errlen)
{
    if (!st || !which || !out)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    tc_run_info run;
    tc_figures f;
    tc_err rc = tc_store_find_run(st, which, &run, err, errlen);
    if (rc == TC_OK)
        rc = tc_view_figures(st, &run, TC_FIGURES_SUMMARY, &f, err, errlen);
    if (rc != TC_OK)
        return rc;
    out->run_id = run.id;
    out->simulated = run.simulated;
    snprintf(out->label, sizeof out->label, "%s", run.label);
    snprintf(out->model, sizeof out->model, "%s", run.model);
    for (int i = 0; i < f.e.n && out->n < TC_FIT_RUN_MAX_DEVICES; i++) {
        const tc_run_energy_dev *d = &f.e.dev[i];
        tc_fit_measured_dev *o = &out->dev[out->n++];
        snprintf(o->name, sizeof o->name, "%s", d->dev.info.name);
        o->gpu = d->dev.info.kind != TC_TELEM_CPU;
        o->has_peak = d->load.has_mem;
        o->peak_mem_bytes = d->load.peak_mem_bytes;
    }
    tc_figures_free(&f);
    return TC_OK;
}
