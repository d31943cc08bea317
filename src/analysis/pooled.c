#include "pooled.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_sort.h"

/* Log-linear buckets: exact below 2048 ns, then 1024 per power of two
 * (relative width under 0.1%), so a bucket holds few distinct values and
 * one more pass almost always resolves it. */
#define EXACT_BELOW 2048u
#define SUB 1024u
#define N_BUCKETS (EXACT_BELOW + 53u * SUB)
#define COUNT_BITS 16u /* a refining pass counts 2^16 sub-buckets at most */

static double ms(uint64_t ns)
{
    return (double)ns / 1e6;
}

static size_t bucket_of(uint64_t v)
{
    if (v < EXACT_BELOW)
        return (size_t)v;
    unsigned e = (unsigned)(63 - __builtin_clzll(v)) - 10u;
    return EXACT_BELOW + (size_t)(e - 1) * SUB + (size_t)((v >> e) - SUB);
}

static void bucket_range(size_t b, uint64_t *lo, uint64_t *width)
{
    if (b < EXACT_BELOW) {
        *lo = b;
        *width = 1;
        return;
    }
    unsigned e = (unsigned)((b - EXACT_BELOW) / SUB) + 1u;
    *lo = (uint64_t)((b - EXACT_BELOW) % SUB + SUB) << e;
    *width = (uint64_t)1 << e;
}

void tc_pooled_init(tc_pooled *p, size_t keep)
{
    memset(p, 0, sizeof *p);
    p->keep = keep ? keep : TC_POOLED_KEEP_DEFAULT;
    p->pass = 1;
}

/* Past `keep` values: the held ones go into the histogram and are freed. */
static void spill(tc_pooled *p)
{
    p->hist = calloc(N_BUCKETS, sizeof *p->hist);
    if (!p->hist) {
        p->failed = 1;
        return;
    }
    for (size_t i = 0; i < p->n; i++)
        p->hist[bucket_of((uint64_t)p->kept[i])]++;
    free(p->kept);
    p->kept = NULL;
    p->overflow = 1;
}

static void keep_value(tc_pooled *p, int64_t v)
{
    if (p->n >= p->keep) {
        spill(p);
        return;
    }
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 1024;
        if (cap > p->keep)
            cap = p->keep;
        int64_t *k = realloc(p->kept, cap * sizeof *k);
        if (!k) {
            p->failed = 1;
            return;
        }
        p->kept = k;
        p->cap = cap;
    }
    p->kept[p->n] = v;
}

static void add_first(tc_pooled *p, int64_t v)
{
    if (!p->overflow && !p->failed)
        keep_value(p, v);
    if (p->overflow && !p->failed)
        p->hist[bucket_of((uint64_t)v)]++;
    unsigned long long lo = p->sum_lo + (unsigned long long)v;
    p->sum_hi += lo < p->sum_lo;
    p->sum_lo = lo;
    if (p->n == 0 || v < p->min)
        p->min = v;
    if (p->n == 0 || v > p->max)
        p->max = v;
    p->n++;
}

static void add_again(tc_pooled *p, int64_t v)
{
    double d = ms((uint64_t)v) - p->mean_ms;
    if (p->pass == 2)
        p->ss += d * d;
    uint64_t u = (uint64_t)v;
    for (int i = 0; i < p->n_open; i++) {
        tc_pooled_target *t = &p->t[p->open[i]];
        if (u - t->lo < t->width) /* wraps above for u < lo */
            t->counts[(u - t->lo) >> t->shift]++;
    }
}

void tc_pooled_add(tc_pooled *p, int64_t ns)
{
    if (ns < 0)
        ns = 0;
    if (p->pass == 1)
        add_first(p, ns);
    else
        add_again(p, ns);
}

/* The order statistics numpy's linear percentiles of p50..p99 read. */
static int wanted_ranks(uint64_t n, uint64_t *ranks)
{
    static const double qs[] = {50, 90, 95, 99};
    int k = 0;
    for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
        uint64_t r = (uint64_t)floor((qs[i] / 100.0) * (double)(n - 1));
        ranks[k++] = r;
        ranks[k++] = r + 1 < n ? r + 1 : r;
    }
    return k;
}

/* After the first pass over more than `keep` values: each wanted rank's
 * bucket, to be narrowed by the passes that follow. */
static void locate(tc_pooled *p)
{
    uint64_t ranks[TC_POOLED_TARGETS];
    p->n_targets = wanted_ranks(p->n, ranks);
    for (int i = 0; i < p->n_targets; i++) {
        tc_pooled_target *t = &p->t[i];
        t->rank = ranks[i];
        uint64_t below = 0;
        size_t b = 0;
        while (below + p->hist[b] <= t->rank)
            below += p->hist[b++];
        t->below = below;
        bucket_range(b, &t->lo, &t->width);
    }
    free(p->hist);
    p->hist = NULL;
}

/* Counter tables for the next pass of every target not yet resolved;
 * 0 when none is left, -1 out of memory. */
static int prepare_pass(tc_pooled *p)
{
    p->n_open = 0;
    for (int i = 0; i < p->n_targets; i++) {
        tc_pooled_target *t = &p->t[i];
        if (t->width == 1)
            continue;
        t->owner = i;
        for (int j = 0; j < i; j++)
            if (p->t[j].width == t->width && p->t[j].lo == t->lo)
                t->owner = p->t[j].owner;
        unsigned bits = (unsigned)__builtin_ctzll(t->width);
        t->shift = bits > COUNT_BITS ? bits - COUNT_BITS : 0;
        if (t->owner != i)
            continue;
        t->counts = calloc((size_t)(t->width >> t->shift), sizeof *t->counts);
        if (!t->counts)
            return -1;
        p->open[p->n_open++] = i;
    }
    return p->n_open > 0;
}

/* Narrows each target to the sub-bucket holding its rank. */
static void narrow(tc_pooled *p)
{
    for (int i = 0; i < p->n_targets; i++) {
        tc_pooled_target *t = &p->t[i];
        if (t->width == 1)
            continue;
        const uint64_t *counts = p->t[t->owner].counts;
        size_t j = 0;
        while (t->below + counts[j] <= t->rank)
            t->below += counts[j++];
        t->lo += (uint64_t)j << t->shift;
        t->width = (uint64_t)1 << t->shift;
    }
    for (int i = 0; i < p->n_open; i++) {
        free(p->t[p->open[i]].counts);
        p->t[p->open[i]].counts = NULL;
    }
    p->n_open = 0;
}

/* Every value held: the squared deviations in feeding order, then sorted. */
static void finish_kept(tc_pooled *p)
{
    for (size_t i = 0; i < p->n; i++) {
        double d = ms((uint64_t)p->kept[i]) - p->mean_ms;
        p->ss += d * d;
    }
    tc_sort_i64(p->kept, p->n); /* in place: no second copy of the 4M gaps */
}

int tc_pooled_end_pass(tc_pooled *p)
{
    if (p->failed)
        return -1;
    if (p->pass == 1) {
        if (p->n > 0) {
            double sum = (double)p->sum_hi * 18446744073709551616.0 + (double)p->sum_lo;
            p->mean_ms = sum / (double)p->n / 1e6;
        }
        if (!p->overflow) {
            finish_kept(p);
            p->pass = 0;
            return 0;
        }
        locate(p);
    } else {
        narrow(p);
    }
    int open = prepare_pass(p);
    if (open < 0) {
        p->failed = 1;
        return -1;
    }
    if (!open && p->pass >= 2) { /* the deviations need one pass after the first anyway */
        p->pass = 0;
        return 0;
    }
    p->pass++;
    return 1;
}

/* The value of order statistic `rank`, in ms. */
static double at_rank(const tc_pooled *p, uint64_t rank)
{
    if (!p->overflow)
        return ms((uint64_t)p->kept[rank]);
    for (int i = 0; i < p->n_targets; i++)
        if (p->t[i].rank == rank)
            return ms(p->t[i].lo);
    return NAN; /* not reached: every rank a percentile reads is a target */
}

/* numpy's linear method, as tc_stats_percentile computes it. */
static double percentile(const tc_pooled *p, double q)
{
    double h = (q / 100.0) * (double)(p->n - 1);
    double lo = floor(h);
    uint64_t i = (uint64_t)lo;
    if (i >= p->n - 1)
        return ms((uint64_t)p->max);
    return tc_stats_lerp(at_rank(p, i), at_rank(p, i + 1), h - lo);
}

void tc_pooled_summary_ms(const tc_pooled *p, tc_summary *out)
{
    memset(out, 0, sizeof *out);
    if (p->n == 0 || p->failed)
        return;
    out->n = (size_t)p->n;
    out->mean = p->mean_ms;
    out->stddev = p->n > 1 ? sqrt(p->ss / (double)(p->n - 1)) : 0;
    out->min = ms((uint64_t)p->min);
    out->max = ms((uint64_t)p->max);
    out->p50 = percentile(p, 50);
    out->p90 = percentile(p, 90);
    out->p95 = percentile(p, 95);
    out->p99 = percentile(p, 99);
}

void tc_pooled_free(tc_pooled *p)
{
    if (!p)
        return;
    free(p->kept);
    free(p->hist);
    for (int i = 0; i < TC_POOLED_TARGETS; i++)
        free(p->t[i].counts);
    memset(p, 0, sizeof *p);
}
