/* Sharded groups merged into one run: see shards.h. */
#include "views/view_shards.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/roofline_run.h"
#include "views/view_figures.h"
#include "views/view_run.h"

int tc_view_is_sharded(const tc_runset *set)
{
    if (!set->is_group || set->n == 0)
        return 0;
    for (size_t i = 0; i < set->n; i++)
        if (strcmp(set->runs[i].group_kind, "shard") != 0)
            return 0;
    return 1;
}

/* Moves every time of r by d nanoseconds. */
static void move_times(tc_req_record *r, int64_t d)
{
    r->send_ns += d;
    r->end_ns += d;
    if (r->sched_ns)
        r->sched_ns += d;
    for (size_t i = 0; i < r->n_chunks; i++)
        r->chunk_ns[i] += d;
}

static int by_send(const void *a, const void *b)
{
    const tc_req_record *x = a, *y = b;
    int64_t tx = tc_req_start_ns(x), ty = tc_req_start_ns(y);
    return tx < ty ? -1 : tx > ty;
}

/* How a run's status ranks when shards differ: the worst one wins. */
static int rank(tc_run_status s)
{
    return s == TC_RUN_FAILED ? 3 : s == TC_RUN_INTERRUPTED ? 2 : s == TC_RUN_RUNNING ? 1 : 0;
}

/* The merged run's description. */
static void merged_info(const tc_runset *set, tc_run_info *out)
{
    *out = set->runs[0];
    snprintf(out->label, sizeof out->label, "%s", set->name);
    out->requests = out->concurrency = out->max_concurrency = out->warmup = 0;
    out->rate = 0;
    for (size_t i = 0; i < set->n; i++) {
        const tc_run_info *r = &set->runs[i];
        out->requests += r->requests;
        out->concurrency += r->concurrency;
        out->max_concurrency += r->max_concurrency;
        out->warmup += r->warmup;
        out->rate += r->rate;
        if (rank(r->status) > rank(out->status))
            out->status = r->status;
        if (r->created_wall_ns < out->created_wall_ns)
            out->created_wall_ns = r->created_wall_ns;
    }
}

/* Appends the run's records, on the common clock, to *all; *offset: its
 * monotonic clock's offset from the wall clock (TC_SHARD_NO_CLOCK without
 * a record). */
static tc_err take_run(tc_store *st, const tc_run_info *run, tc_req_record **all, size_t *n,
                       int64_t *offset, char *err, size_t errlen)
{
    *offset = TC_SHARD_NO_CLOCK;
    tc_req_record *recs = NULL;
    size_t k = 0;
    tc_err rc = tc_store_load_requests(st, run->id, &recs, &k, err, errlen);
    if (rc != TC_OK || k == 0) {
        free(recs);
        return rc;
    }
    tc_req_record *p = realloc(*all, (*n + k) * sizeof *p);
    if (!p) {
        tc_store_free_requests(recs, k);
        return tc_fail(err, errlen, TC_ERR_NOMEM, "merging %zu requests", *n + k);
    }
    /* Wall time of the first send, minus its monotonic time: this host's
     * monotonic clock on the wall clock. The records keep their ns. */
    int64_t d = recs[0].send_wall_ns - recs[0].send_ns;
    *offset = d;
    for (size_t i = 0; i < k; i++) {
        move_times(&recs[i], d);
        p[*n + i] = recs[i];
    }
    *all = p;
    *n += k;
    free(recs); /* the records' chunk arrays now belong to *all */
    return TC_OK;
}

/* The merged energy and what it leaves out, into out; the figures
 * priced by it. */
static tc_err merge_energy(tc_store *st, const tc_runset *set, int64_t *offsets, tc_run_view *out,
                           char *err, size_t errlen)
{
    int n_local = 0;
    tc_err rc = tc_view_shards_energy(st, set, offsets, &out->f, &n_local, err, errlen);
    if (rc != TC_OK)
        return rc;
    if (n_local > 0)
        snprintf(out->warnings[out->n_warnings++], sizeof out->warnings[0],
                 "%d shard%s also sampled %s own host's devices: left out of the group's energy "
                 "(`show ID` has each shard's)",
                 n_local, n_local == 1 ? "" : "s", n_local == 1 ? "its" : "their");
    tc_figures_cost_measured(&out->f.m, &out->f.e, &out->f.cost_in);
    return TC_OK;
}

tc_err tc_view_shards(tc_store *st, const tc_runset *set, tc_run_view *out, char *err,
                      size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!tc_view_is_sharded(set))
        return tc_fail(err, errlen, TC_ERR_INVALID, "'%s' is not a sharded group", set->name);
    int64_t *offsets = calloc(set->n, sizeof *offsets);
    if (!offsets)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "merging '%s'", set->name);
    tc_req_record *all = NULL;
    size_t n = 0;
    tc_err rc = TC_OK;
    for (size_t i = 0; i < set->n && rc == TC_OK; i++)
        rc = take_run(st, &set->runs[i], &all, &n, &offsets[i], err, errlen);
    if (rc != TC_OK) {
        tc_store_free_requests(all, n);
        free(offsets);
        return rc;
    }
    qsort(all, n, sizeof *all, by_send);
    /* Back to small numbers, as a monotonic clock reads: the earliest
     * send at 1 s. */
    int64_t base = n ? all[0].send_ns - 1000000000 : 0;
    for (size_t i = 0; i < n; i++) {
        move_times(&all[i], -base);
        all[i].seq = (int64_t)i;
    }
    for (size_t i = 0; i < set->n; i++) /* each shard's clock onto the merged one */
        if (offsets[i] != TC_SHARD_NO_CLOCK)
            offsets[i] -= base;
    merged_info(set, &out->f.run);
    out->f.recs = all;
    out->f.n_recs = n;
    rc = tc_run_metrics_compute(&out->f.run, all, n, &out->f.m);
    if (rc != TC_OK) {
        tc_view_run_free(out);
        free(offsets);
        return tc_fail(err, errlen, rc, "computing the merged figures of '%s'", set->name);
    }
    rc = merge_energy(st, set, offsets, out, err, errlen);
    free(offsets);
    if (rc != TC_OK) {
        tc_view_run_free(out);
        return rc;
    }
    if (tc_view_fingerprint(st, set->runs[0].id, &out->fingerprint,
                               out->warnings[out->n_warnings], sizeof out->warnings[0]) != TC_OK)
        out->n_warnings++;
    if (tc_roofline_of_figures(&out->f, out->fingerprint, &out->roof,
                               out->warnings[out->n_warnings], sizeof out->warnings[0]) != TC_OK)
        out->n_warnings++;
    return TC_OK;
}
