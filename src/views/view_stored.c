/* Figures read from and saved to the store (view_stored.h). */
#include "views/view_stored.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/figures_codec.h"

typedef struct slo_job {
    const tc_slo *slo;
    const tc_steady *window;
    tc_goodput g;
} slo_job;

static tc_err add_record(void *ctx, const tc_req_record *r)
{
    return tc_run_metrics_add(ctx, r);
}

tc_err tc_view_computed_figures(tc_store *st, const tc_run_info *run, size_t keep,
                                tc_run_metrics *out, char *err, size_t errlen)
{
    if (errlen)
        err[0] = '\0';
    tc_run_metrics_begin(out, run, 0, keep);
    int again = 1;
    tc_err rc = TC_OK;
    while (rc == TC_OK && again) {
        rc = tc_store_each_request(st, run->id, 0, add_record, out, err, errlen);
        if (rc == TC_OK)
            rc = tc_run_metrics_end(out, &again);
    }
    if (rc == TC_ERR_NOMEM && errlen && !err[0])
        tc_fail(err, errlen, rc, "run %lld: out of memory computing its figures",
                (long long)run->id);
    if (rc != TC_OK)
        tc_run_metrics_free(out);
    return rc;
}

tc_err tc_view_stored_figures(tc_store *st, const tc_run_info *run, tc_run_metrics *out, int *found,
                              char *err, size_t errlen)
{
    char *text = NULL;
    *found = 0;
    tc_err rc = tc_store_get_figures(st, run->id, TC_FIGURES_VERSION, &text, err, errlen);
    if (rc != TC_OK || !text)
        return rc;
    char ignored[256];
    *found = tc_figures_decode(text, out, ignored, sizeof ignored) == TC_OK;
    free(text);
    return TC_OK;
}

tc_err tc_view_summary(tc_store *st, const tc_run_info *run, tc_run_metrics *out, int *from_store,
                       char *err, size_t errlen)
{
    int found;
    tc_err rc = tc_view_stored_figures(st, run, out, &found, err, errlen);
    if (from_store)
        *from_store = found;
    if (rc != TC_OK || found)
        return rc;
    return tc_view_computed_figures(st, run, 0, out, err, errlen);
}

static tc_err add_goodput(void *ctx, const tc_req_record *r)
{
    slo_job *j = ctx;
    tc_goodput_add(&j->g, j->slo, r);
    tc_goodput_add_share(&j->g, j->slo, r, j->window);
    return TC_OK;
}

tc_err tc_view_apply_slo(tc_store *st, const tc_run_info *run, const tc_slo *slo, tc_run_metrics *m,
                         char *err, size_t errlen)
{
    slo_job j = {.slo = slo, .window = &m->window};
    /* The window's shares count every chunk; without a window the first
     * chunk judges a request (TTFT, and TPOT from its end). */
    tc_err rc =
        tc_store_each_request(st, run->id, !m->window.has_window, add_goodput, &j, err, errlen);
    if (rc != TC_OK)
        return rc;
    tc_goodput_end(&j.g, m->has_duration ? m->duration_s : 0, &m->window);
    m->has_slo = 1;
    m->slo = *slo;
    m->goodput = j.g;
    return TC_OK;
}

tc_err tc_view_save_figures(tc_store *st, const tc_run_info *run, char *err, size_t errlen)
{
    tc_run_metrics m;
    tc_err rc = tc_view_computed_figures(st, run, 0, &m, err, errlen);
    if (rc != TC_OK)
        return rc;
    char *text = tc_figures_encode(&m);
    tc_run_metrics_free(&m);
    if (!text)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory storing the figures");
    rc = tc_store_set_figures(st, run->id, TC_FIGURES_VERSION, text, err, errlen);
    free(text);
    return rc;
}

tc_err tc_view_save_missing_figures(tc_store *st, size_t *n, char *err, size_t errlen)
{
    int64_t *ids = NULL;
    *n = 0;
    tc_err rc = tc_store_runs_without_figures(st, TC_FIGURES_VERSION, &ids, n, err, errlen);
    for (size_t i = 0; rc == TC_OK && i < *n; i++) {
        char id[32];
        tc_run_info run;
        snprintf(id, sizeof id, "%lld", (long long)ids[i]);
        rc = tc_store_find_run(st, id, &run, err, errlen);
        if (rc == TC_OK)
            rc = tc_view_save_figures(st, &run, err, errlen);
    }
    free(ids);
    return rc;
}
