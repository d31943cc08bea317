/* Two profiles, incumbent (a) and alternative (b): the class shares side
 * by side, the same kernels matched by normalised name, and the suggested
 * tuning list with its person-days. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels_internal.h"

/* Normalised names are compared on at most this many bytes. */
#define NORM_BYTES 1024

/* The kernels of one profile grouped by normalised name. */
typedef struct group {
    char *norm;
    int64_t ns;
    uint64_t calls;
    int has_calls;
    const tc_kernel *top; /* its largest kernel */
} group;

static int by_norm(const void *x, const void *y)
{
    return strcmp(((const group *)x)->norm, ((const group *)y)->norm);
}

static void groups_free(group *g, size_t n)
{
    for (size_t i = 0; g && i < n; i++)
        free(g[i].norm);
    free(g);
}

/* Merges the sorted runs of one name into their first entry. */
static size_t merge_runs(group *g, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++) {
        if (w && strcmp(g[w - 1].norm, g[i].norm) == 0) {
            group *d = &g[w - 1];
            d->ns += g[i].ns;
            d->calls += g[i].calls;
            d->has_calls |= g[i].has_calls;
            if (g[i].top->time_ns > d->top->time_ns)
                d->top = g[i].top;
            free(g[i].norm);
        } else {
            g[w++] = g[i];
        }
    }
    return w;
}

static tc_err make_groups(const tc_kernel_profile *p, group **out, size_t *n)
{
    group *g = calloc(p->n ? p->n : 1, sizeof *g);
    if (!g)
        return TC_ERR_NOMEM;
    char norm[NORM_BYTES];
    for (size_t i = 0; i < p->n; i++) {
        const tc_kernel *k = p->by_time[i]; /* largest first: a stable group order */
        tc_kernels_normalise_name(k->name, norm, sizeof norm);
        g[i] = (group){strdup(norm), k->time_ns, k->calls, k->has_calls, k};
        if (!g[i].norm) {
            groups_free(g, i);
            return TC_ERR_NOMEM;
        }
    }
    qsort(g, p->n, sizeof *g, by_norm);
    *n = merge_runs(g, p->n);
    *out = g;
    return TC_OK;
}

static int by_excess(const void *x, const void *y)
{
    const tc_kernel_match *a = x, *b = y;
    int64_t ea = a->b_ns - a->a_ns, eb = b->b_ns - b->a_ns;
    if (ea != eb)
        return ea > eb ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* The names on both sides into c->matched. */
static tc_err join(tc_kernel_compare *c, group *ga, size_t na, group *gb, size_t nb)
{
    size_t cap = na < nb ? na : nb;
    c->matched = calloc(cap ? cap : 1, sizeof *c->matched);
    if (!c->matched)
        return TC_ERR_NOMEM;
    for (size_t i = 0, j = 0; i < na && j < nb;) {
        int d = strcmp(ga[i].norm, gb[j].norm);
        if (d < 0) {
            i++;
            continue;
        }
        if (d > 0) {
            j++;
            continue;
        }
        tc_kernel_match *m = &c->matched[c->n_matched++];
        *m = (tc_kernel_match){gb[j].norm,  ga[i].ns,        gb[j].ns,        ga[i].calls,
                               gb[j].calls, ga[i].has_calls, gb[j].has_calls, gb[j].top->klass};
        gb[j].norm = NULL; /* moved */
        i++, j++;
    }
    qsort(c->matched, c->n_matched, sizeof *c->matched, by_excess);
    return TC_OK;
}

/* The alternative's kernels whose normalised name the incumbent lacks. */
static tc_err alternative_only(tc_kernel_compare *c, group *ga, size_t na)
{
    const tc_kernel_profile *b = c->b;
    c->b_only = malloc((b->n ? b->n : 1) * sizeof *c->b_only);
    if (!c->b_only)
        return TC_ERR_NOMEM;
    char norm[NORM_BYTES];
    for (size_t i = 0; i < b->n; i++) { /* by_time: largest first */
        tc_kernels_normalise_name(b->by_time[i]->name, norm, sizeof norm);
        group key = {.norm = norm};
        if (!bsearch(&key, ga, na, sizeof *ga, by_norm))
            c->b_only[c->n_b_only++] = b->by_time[i];
    }
    return TC_OK;
}

static void share_changes(tc_kernel_compare *c)
{
    for (int k = 0; k < TC_KCLASS_N; k++) {
        c->share_change[k] = c->b->cls[k].share - c->a->cls[k].share;
        if (c->share_change[k] <= 0)
            continue;
        size_t i = c->n_grew++; /* insertion, most growth first */
        for (; i > 0 && c->share_change[c->grew[i - 1]] < c->share_change[k]; i--)
            c->grew[i] = c->grew[i - 1];
        c->grew[i] = (tc_kernel_class)k;
    }
}

/* The alternative's kernels of class k, largest first, until they hold
 * the saving. */
static void entry_kernels(const tc_kernel_profile *b, tc_kernel_tune *e)
{
    int64_t held = 0;
    for (size_t i = 0;
         i < b->n && held < e->saving_ns && e->n_kernels < TC_KERNELS_TUNE_MAX_KERNELS; i++)
        if (b->by_time[i]->klass == e->klass) {
            e->kernels[e->n_kernels++] = b->by_time[i];
            held += b->by_time[i]->time_ns;
        }
}

static void tuning_list(tc_kernel_compare *c)
{
    const tc_kernel_profile *a = c->a, *b = c->b;
    double floor = TC_KERNELS_TUNE_MIN_SHARE * (double)b->t->total_ns;
    for (int k = 0; k < TC_KCLASS_N; k++) {
        int64_t saving = b->cls[k].time_ns - a->cls[k].time_ns;
        if (saving <= 0 || (double)saving < floor)
            continue;
        size_t i = c->n_tune++; /* insertion, largest saving first (class order on ties) */
        for (; i > 0 && c->tune[i - 1].saving_ns < saving; i--)
            c->tune[i] = c->tune[i - 1];
        tc_kernel_tune *e = &c->tune[i];
        *e = (tc_kernel_tune){.klass = (tc_kernel_class)k,
                              .a_ns = a->cls[k].time_ns,
                              .b_ns = b->cls[k].time_ns,
                              .saving_ns = saving};
        entry_kernels(b, e);
        e->days = (tc_kernel_effort){c->per_kernel.low * (double)e->n_kernels,
                                     c->per_kernel.mode * (double)e->n_kernels,
                                     c->per_kernel.high * (double)e->n_kernels};
        e->suspect_fallback =
            b->fallback.probable && (k == TC_KCLASS_GEMM || k == TC_KCLASS_SOFTMAX);
    }
    for (size_t i = 0; i < c->n_tune; i++) {
        c->t_perf.low += c->tune[i].days.low;
        c->t_perf.mode += c->tune[i].days.mode;
        c->t_perf.high += c->tune[i].days.high;
        c->saving_ns += c->tune[i].saving_ns;
    }
}

static int effort_ok(const tc_kernel_effort *e)
{
    return isfinite(e->high) && e->low >= 0 && e->low <= e->mode && e->mode <= e->high;
}

tc_err tc_kernels_compare(const tc_kernel_profile *a, const tc_kernel_profile *b,
                          const tc_kernel_effort *effort, tc_kernel_compare *out)
{
    if (!out)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    static const tc_kernel_effort def = {TC_KERNELS_DAYS_LOW, TC_KERNELS_DAYS_MODE,
                                         TC_KERNELS_DAYS_HIGH};
    if (!a || !b || !a->t || !b->t || (effort && !effort_ok(effort)))
        return TC_ERR_INVALID;
    *out = (tc_kernel_compare){.a = a, .b = b, .per_kernel = effort ? *effort : def};
    share_changes(out);
    out->attention_fell_back = a->cls[TC_KCLASS_ATTENTION].time_ns > 0 && b->fallback.probable;
    group *ga = NULL, *gb = NULL;
    size_t na = 0, nb = 0;
    tc_err rc = make_groups(a, &ga, &na);
    if (rc == TC_OK)
        rc = make_groups(b, &gb, &nb);
    if (rc == TC_OK)
        rc = join(out, ga, na, gb, nb);
    if (rc == TC_OK)
        rc = alternative_only(out, ga, na);
    if (rc == TC_OK && !(out->tune = calloc(TC_KCLASS_N, sizeof *out->tune)))
        rc = TC_ERR_NOMEM;
    if (rc == TC_OK)
        tuning_list(out);
    groups_free(ga, na);
    groups_free(gb, nb);
    if (rc != TC_OK)
        tc_kernels_compare_free(out);
    return rc;
}

void tc_kernels_compare_free(tc_kernel_compare *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_matched; i++)
        free(c->matched[i].name);
    free(c->matched);
    free(c->b_only);
    free(c->tune);
    memset(c, 0, sizeof *c);
}
