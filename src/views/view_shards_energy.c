/* A sharded group's energy: the server box's devices, as the shards
 * scraped them from its exporters (`run --telemetry URL`), merged onto the
 * group's clock. Every shard that scraped a box sampled the same counters,
 * so each device is read from one shard: the one whose samples cover the
 * merged window best. A shard's local devices are its own host's (a
 * client, as a rule): they are not the workload's and are left out. */
#include "views/view_shards.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/run_energy.h"

/* One shard's telemetry as stored. */
typedef struct shard_telem {
    tc_run_device *devs;
    int n_devs;
    tc_run_sample *samples;
    size_t n_samples;
} shard_telem;

/* Where a merged device's samples come from. */
typedef struct pick {
    size_t shard;
    int dev;
    double coverage;
} pick;

static int is_remote(const tc_run_device *d)
{
    return strcmp(d->backend, "remote") == 0;
}

/* The same device: its exporter's box and id ("host:port/GPU-…"), name and
 * kind. */
static int same_device(const tc_run_device *a, const tc_run_device *b)
{
    return a->info.kind == b->info.kind && strcmp(a->info.id, b->info.id) == 0 &&
           strcmp(a->info.name, b->info.name) == 0;
}

/* The share of [from, to] that device dev's samples span, on the merged
 * clock (shift added). */
static double coverage(const shard_telem *t, int dev, int64_t shift, const tc_run_window *w)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < t->n_samples; i++)
        if (t->samples[i].device == dev) {
            int64_t ns = t->samples[i].s.mono_ns + shift;
            lo = ns < lo ? ns : lo;
            hi = ns > hi ? ns : hi;
        }
    if (lo > hi || w->to <= w->from)
        return lo > hi ? -1 : 0;
    int64_t a = lo > w->from ? lo : w->from, b = hi < w->to ? hi : w->to;
    return b > a ? (double)(b - a) / (double)(w->to - w->from) : 0;
}

/* Chooses, for every remote device any shard sampled, the shard that
 * covers the window best; *n_local: shards that also had local devices. */
static size_t choose(const shard_telem *t, size_t n, const int64_t *shift, const tc_run_window *w,
                     pick *picks, size_t cap, int *n_local)
{
    size_t np = 0;
    *n_local = 0;
    for (size_t s = 0; s < n; s++) {
        int local = 0;
        if (shift[s] == TC_SHARD_NO_CLOCK)
            continue;
        for (int d = 0; d < t[s].n_devs; d++) {
            if (!is_remote(&t[s].devs[d])) {
                local = 1;
                continue;
            }
            double c = coverage(&t[s], d, shift[s], w);
            size_t k = 0;
            while (k < np && !same_device(&t[picks[k].shard].devs[picks[k].dev], &t[s].devs[d]))
                k++;
            if (k == np && np < cap)
                picks[np++] = (pick){s, d, c};
            else if (k < np && c > picks[k].coverage)
                picks[k] = (pick){s, d, c};
        }
        *n_local += local;
    }
    return np;
}

/* The chosen devices and their samples, shifted, renumbered from 0. */
static tc_err gather(const shard_telem *t, const int64_t *shift, const pick *picks, size_t np,
                     tc_run_device **devs, tc_run_sample **samples, size_t *n_samples)
{
    size_t total = 0;
    for (size_t k = 0; k < np; k++)
        for (size_t i = 0; i < t[picks[k].shard].n_samples; i++)
            total += t[picks[k].shard].samples[i].device == picks[k].dev;
    *devs = calloc(np ? np : 1, sizeof **devs);
    *samples = malloc((total ? total : 1) * sizeof **samples);
    *n_samples = 0;
    if (!*devs || !*samples)
        return TC_ERR_NOMEM;
    for (size_t k = 0; k < np; k++) {
        const shard_telem *st = &t[picks[k].shard];
        (*devs)[k] = st->devs[picks[k].dev];
        for (size_t i = 0; i < st->n_samples; i++)
            if (st->samples[i].device == picks[k].dev) {
                tc_run_sample x = st->samples[i];
                x.device = (int)k;
                x.s.mono_ns += shift[picks[k].shard];
                (*samples)[(*n_samples)++] = x;
            }
    }
    return TC_OK;
}

tc_err tc_view_shards_energy(tc_store *st, const tc_runset *set, const int64_t *shift, tc_figures *f,
                        int *n_local, char *err, size_t errlen)
{
    *n_local = 0;
    shard_telem *t = calloc(set->n, sizeof *t);
    pick *picks = NULL;
    size_t cap = 0, np = 0;
    tc_err rc = t ? TC_OK : TC_ERR_NOMEM;
    for (size_t s = 0; rc == TC_OK && s < set->n; s++) {
        rc = tc_store_load_telemetry(st, set->runs[s].id, &t[s].devs, &t[s].n_devs, &t[s].samples,
                                     &t[s].n_samples, err, errlen);
        cap += rc == TC_OK ? (size_t)t[s].n_devs : 0;
    }
    tc_run_window w;
    tc_run_window_of_metrics(&f->m, &w);
    if (rc == TC_OK && cap > 0 && !(picks = calloc(cap, sizeof *picks)))
        rc = TC_ERR_NOMEM;
    if (rc == TC_OK && picks)
        np = choose(t, set->n, shift, &w, picks, cap, n_local);
    tc_run_device *devs = NULL;
    tc_run_sample *samples = NULL;
    size_t n_samples = 0;
    if (rc == TC_OK && np > 0)
        rc = gather(t, shift, picks, np, &devs, &samples, &n_samples);
    /* Tokens over the same window as the energy, for J/token. */
    int64_t tokens = w.steady ? llround(f->m.window.output_tokens) : f->m.output_tokens;
    if (rc == TC_OK && np > 0)
        rc = tc_run_energy_compute_window(devs, (int)np, samples, n_samples, &w, tokens, &f->e);
    for (size_t s = 0; t && s < set->n; s++) {
        free(t[s].devs);
        free(t[s].samples);
    }
    free(t);
    free(picks);
    free(devs);
    free(samples);
    if (rc == TC_ERR_NOMEM)
        return tc_fail(err, errlen, rc, "merging the telemetry of '%s': out of memory", set->name);
    return rc;
}
