/* The verdict on one card, and the largest setting that fits it: each
 * found by searching the setting, since the terms grow with it (the
 * compute buffer not always in proportion). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/tc_number.h"
#include "fit.h"

#define SEARCH_CAP (INT64_C(1) << 40)
#define MAX_GPUS 1024

/* Which setting a search moves. */
typedef enum { S_CONCURRENCY, S_CTX, S_BATCH, S_GPUS } setting;

/* The need per card with the setting at v. */
static int needs(const tc_model_shape *m, const tc_fit_options *o, setting s, int64_t v,
                 double *need)
{
    tc_fit_options x = *o;
    tc_fit_terms t;
    if (s == S_CONCURRENCY)
        x.concurrency = v;
    else if (s == S_CTX)
        x.ctx = v;
    else if (s == S_BATCH)
        x.batch = v;
    else
        x.gpus = v;
    if (tc_fit_compute(m, &x, &t, NULL, 0) != TC_OK)
        return -1;
    *need = t.total;
    return 0;
}

static int fits_at(const tc_model_shape *m, const tc_fit_options *o, setting s, int64_t v,
                   double budget)
{
    double need;
    return needs(m, o, s, v, &need) == 0 && need <= budget;
}

/* The largest v in [1, cap] that fits, 0 when 1 does not: doubling, then
 * halving the gap. */
static int64_t largest(const tc_model_shape *m, const tc_fit_options *o, setting s, double budget,
                       int64_t cap)
{
    if (!fits_at(m, o, s, 1, budget))
        return 0;
    int64_t lo = 1, hi = 2;
    while (hi <= cap && fits_at(m, o, s, hi, budget)) {
        lo = hi;
        hi *= 2;
    }
    if (hi > cap)
        hi = cap + 1; /* everything up to cap fits when lo reached it */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (fits_at(m, o, s, mid, budget))
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

/* The fewest cards (up to MAX_GPUS) on which the setting fits; 0 none. */
static int64_t fewest_gpus(const tc_model_shape *m, const tc_fit_options *o, double budget)
{
    for (int64_t n = 1; n <= MAX_GPUS; n *= 2)
        if (fits_at(m, o, S_GPUS, n, budget)) {
            int64_t lo = n / 2, hi = n; /* lo does not fit (or is 0) */
            while (hi - lo > 1) {
                int64_t mid = lo + (hi - lo) / 2;
                if (fits_at(m, o, S_GPUS, mid, budget))
                    hi = mid;
                else
                    lo = mid;
            }
            return hi;
        }
    return 0;
}

void tc_fit_judge(const tc_model_shape *m, const tc_fit_options *o, const tc_fit_terms *t,
                  tc_fit_card *c)
{
    c->budget_bytes = c->capacity_bytes * o->utilization;
    c->need_bytes = t->total;
    c->spare_bytes = c->budget_bytes - c->need_bytes;
    c->spare_share = c->budget_bytes > 0 ? c->spare_bytes / c->budget_bytes : -1;
    c->verdict = c->spare_bytes < 0                    ? TC_FIT_NO
                 : c->spare_share < TC_FIT_TIGHT_SHARE ? TC_FIT_TIGHT
                                                       : TC_FIT_FITS;
    c->max_concurrency = c->max_ctx = c->max_batch = -1;
    if (o->task == TC_FIT_SERVE) {
        c->max_concurrency = largest(m, o, S_CONCURRENCY, c->budget_bytes, SEARCH_CAP);
        tc_fit_options one = *o;
        one.concurrency = 1;
        c->max_ctx = largest(m, &one, S_CTX, c->budget_bytes, SEARCH_CAP);
    } else {
        c->max_batch = largest(m, o, S_BATCH, c->budget_bytes, SEARCH_CAP);
    }
    c->min_gpus = c->verdict == TC_FIT_NO ? fewest_gpus(m, o, c->budget_bytes) : o->gpus;
}

int tc_fit_card_from_spec(const tc_gpu_spec *s, tc_fit_card *out)
{
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", s->name);
    if (s->usable_memory_mib > 0) {
        out->capacity_bytes = s->usable_memory_mib * 1048576.0;
        out->capacity_from = "usable_memory_mib";
    } else if (s->memory_gb > 0) {
        out->capacity_bytes = s->memory_gb * TC_FIT_GIB;
        out->capacity_from = "memory_gb as GiB";
    } else {
        return -1;
    }
    return 0;
}

void tc_fit_card_vram(double gib, tc_fit_card *out)
{
    char n[32];
    memset(out, 0, sizeof *out);
    tc_number_sig(n, sizeof n, gib, 4);
    snprintf(out->name, sizeof out->name, "--vram %s GiB", n);
    out->capacity_bytes = gib * TC_FIT_GIB;
    out->capacity_from = "--vram";
}
