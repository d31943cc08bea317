/* A run's figures read from the store (view_figures.h). */
#include "views/view_figures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_grow.h"
#include "views/view_stored.h"

/* The records with their first chunk only: what per-request figures
 * other than the ITL need, in memory that grows with the requests. */
typedef struct record_list {
    tc_req_record *recs;
    size_t n, cap;
} record_list;

static tc_err keep_record(void *ctx, const tc_req_record *r)
{
    record_list *l = ctx;
    if (tc_grow(&l->recs, &l->cap, l->n, sizeof *l->recs, 256) < 0)
        return TC_ERR_NOMEM;
    tc_req_record *c = &l->recs[l->n];
    *c = *r;
    c->chunk_ns = NULL;
    c->n_chunks = c->cap_chunks = 0;
    for (size_t i = 0; i < r->n_chunks; i++)
        if (tc_req_record_add_chunk(c, r->chunk_ns[i]) != 0) {
            tc_req_record_clear(c);
            return TC_ERR_NOMEM;
        }
    l->n++;
    return TC_OK;
}

static tc_err load_records(tc_store *st, const tc_run_info *run, tc_figures_depth depth,
                           tc_figures *out, char *err, size_t errlen)
{
    if (depth == TC_FIGURES_CHUNKS)
        return tc_store_load_requests(st, run->id, &out->recs, &out->n_recs, err, errlen);
    if (depth == TC_FIGURES_SUMMARY)
        return TC_OK;
    record_list l = {0};
    if (errlen)
        err[0] = '\0';
    tc_err rc = tc_store_each_request(st, run->id, 1, keep_record, &l, err, errlen);
    if (rc == TC_ERR_NOMEM && errlen && !err[0])
        tc_fail(err, errlen, rc, "run %lld: out of memory reading its requests",
                (long long)run->id);
    out->recs = l.recs;
    out->n_recs = l.n;
    return rc;
}

/* Achieved ISL/OSL against a run's shape: per-request counts, so a run of
 * synthetic prompts reads its records (first chunks only) even when its
 * other figures are stored; a run without a shape has nothing to show. */
static tc_err workload_figures(tc_store *st, const tc_run_info *run, const tc_run_workload *shape,
                               tc_figures *out, char *err, size_t errlen)
{
    tc_figures tmp;
    memset(&tmp, 0, sizeof tmp);
    const tc_figures *src = out;
    if (shape && !out->recs) {
        tc_err rc = load_records(st, run, TC_FIGURES_REQUESTS, &tmp, err, errlen);
        if (rc != TC_OK) {
            tc_store_free_requests(tmp.recs, tmp.n_recs);
            return rc;
        }
        src = &tmp;
    }
    tc_err rc = tc_workload_figures_compute(shape, shape ? src->recs : NULL,
                                            shape ? src->n_recs : 0, &out->w);
    tc_store_free_requests(tmp.recs, tmp.n_recs);
    return rc == TC_OK
               ? TC_OK
               : tc_fail(err, errlen, TC_ERR_NOMEM, "run %lld: out of memory computing its figures",
                         (long long)run->id);
}

tc_err tc_view_figures(tc_store *st, const tc_run_info *run, tc_figures_depth depth,
                       tc_figures *out, char *err, size_t errlen)
{
    tc_run_device *devs = NULL;
    tc_run_sample *samples = NULL;
    int n_devs = 0;
    size_t n_samples = 0;
    memset(out, 0, sizeof *out);
    out->run = *run;
    tc_err rc = tc_view_summary(st, run, &out->m, NULL, err, errlen);
    if (rc == TC_OK)
        rc = load_records(st, run, depth, out, err, errlen);
    if (rc == TC_OK)
        rc =
            tc_store_load_telemetry(st, run->id, &devs, &n_devs, &samples, &n_samples, err, errlen);
    tc_run_workload shape;
    int has_shape = 0;
    if (rc == TC_OK)
        rc = tc_store_get_workload(st, run->id, &shape, &has_shape, err, errlen);
    if (rc != TC_OK)
        goto out;
    rc = workload_figures(st, run, has_shape ? &shape : NULL, out, err, errlen);
    if (rc != TC_OK)
        goto out;
    tc_run_window w;
    tc_run_window_of_metrics(&out->m, &w);
    /* Tokens over the same window as the energy, for J/token. */
    int64_t tokens = w.steady ? llround(out->m.window.output_tokens) : out->m.output_tokens;
    if (tc_run_energy_compute_window(devs, n_devs, samples, n_samples, &w, tokens, &out->e) !=
        TC_OK) {
        rc = tc_fail(err, errlen, TC_ERR_NOMEM, "run %lld: out of memory computing its figures",
                     (long long)run->id);
        goto out;
    }
    tc_figures_cost_measured(&out->m, &out->e, &out->cost_in);
out:
    free(devs);
    free(samples);
    if (rc != TC_OK)
        tc_figures_free(out);
    return rc;
}

tc_err tc_view_fingerprint(tc_store *st, int64_t run_id, json_t **fp, char *err, size_t errlen)
{
    char *text = NULL;
    tc_err rc = tc_store_get_fingerprint(st, run_id, &text, err, errlen);
    json_t *doc = rc == TC_OK && text ? json_loads(text, 0, NULL) : NULL;
    free(text);
    *fp = doc ? doc : json_null();
    return rc;
}

tc_err tc_view_runset(tc_store *st, const char *which, tc_runset *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", which ? which : "");
    int all_digits = which && which[0] && strspn(which, "0123456789") == strlen(which);
    if (!all_digits) {
        tc_err rc = tc_store_find_group(st, which, &out->runs, &out->n, err, errlen);
        if (rc != TC_OK)
            return rc;
        if (out->n > 0) {
            out->is_group = 1;
            return TC_OK;
        }
    }
    out->runs = malloc(sizeof *out->runs);
    if (!out->runs)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    tc_err rc = tc_store_find_run(st, which, out->runs, err, errlen);
    if (rc != TC_OK) {
        tc_runset_free(out);
        return rc;
    }
    out->n = 1;
    return TC_OK;
}

tc_err tc_view_runset_figures(tc_store *st, const tc_runset *s, tc_figures_depth depth,
                              tc_figures **f, char *err, size_t errlen)
{
    /* A sharded group's runs are parts of one run, not repetitions: their
     * mean would be a quarter of the load. Only `show` merges them yet. */
    if (s->is_group && s->n && strcmp(s->runs[0].group_kind, "shard") == 0) {
        *f = NULL;
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "'%s' is one run split into %zu shards (run --shard): `truecost show %s` "
                       "merges them; cost, compare and decide do not take a sharded group yet "
                       "(give one shard's id to read that part alone)",
                       s->name, s->n, s->name);
    }
    *f = calloc(s->n ? s->n : 1, sizeof **f);
    if (!*f)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < s->n; i++) {
        tc_err rc = tc_view_figures(st, &s->runs[i], depth, &(*f)[i], err, errlen);
        if (rc != TC_OK) {
            tc_runset_figures_free(*f, i);
            *f = NULL;
            return rc;
        }
    }
    return TC_OK;
}

static tc_err add_record(void *ctx, const tc_req_record *r)
{
    return tc_run_metrics_add(ctx, r);
}

tc_err tc_view_list_metrics(tc_store *st, const tc_run_info *run, tc_run_metrics *out, char *err,
                            size_t errlen)
{
    /* Stored figures are one row; else streamed, first chunks only: a run
     * of hundreds of millions of chunks is listed in memory that grows
     * with its requests alone. */
    int found;
    tc_err rc = tc_view_stored_figures(st, run, out, &found, err, errlen);
    if (rc != TC_OK || found)
        return rc;
    if (errlen)
        err[0] = '\0';
    tc_run_metrics_begin(out, run, 1, 0);
    rc = tc_store_each_request(st, run->id, 1, add_record, out, err, errlen);
    if (rc == TC_ERR_NOMEM && !err[0])
        tc_fail(err, errlen, rc, "run %lld: out of memory computing its figures",
                (long long)run->id);
    if (rc != TC_OK) {
        tc_run_metrics_free(out);
        return rc;
    }
    int again;
    return tc_run_metrics_end(out, &again); /* list_only: one pass */
}

tc_err tc_view_figures_list(tc_store *st, tc_figures_list *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    tc_err rc = tc_store_list_runs(st, &out->runs, &out->n, err, errlen);
    if (rc == TC_OK) {
        size_t n = out->n ? out->n : 1;
        out->m = calloc(n, sizeof *out->m);
        out->mp = calloc(n, sizeof *out->mp);
        if (!out->m || !out->mp)
            rc = tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; rc == TC_OK && i < out->n; i++)
        if ((rc = tc_view_list_metrics(st, &out->runs[i], &out->m[i], err, errlen)) == TC_OK)
            out->mp[i] = &out->m[i];
    if (rc != TC_OK)
        tc_figures_list_free(out);
    return rc;
}
