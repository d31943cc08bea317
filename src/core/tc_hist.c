/* Log-spaced bins: bin i holds [1 us * 1.02^i, 1 us * 1.02^(i+1)). */
#include "tc_hist.h"

#include <math.h>
#include <string.h>

#define HIST_MIN_NS 1000.0
#define HIST_GROWTH 1.02

void tc_hist_clear(tc_hist *h)
{
    memset(h, 0, sizeof *h);
}

void tc_hist_add(tc_hist *h, double ns)
{
    if (!(ns >= 0))
        return;
    int i = 0;
    if (ns > HIST_MIN_NS) {
        double b = floor(log(ns / HIST_MIN_NS) / log(HIST_GROWTH));
        i = b >= TC_HIST_BINS - 1 ? TC_HIST_BINS - 1 : (int)b;
    }
    h->bins[i]++;
    h->n++;
}

void tc_hist_merge(tc_hist *dst, const tc_hist *src)
{
    for (int i = 0; i < TC_HIST_BINS; i++)
        dst->bins[i] += src->bins[i];
    dst->n += src->n;
}

double tc_hist_quantile(const tc_hist *h, double q)
{
    if (!h->n)
        return NAN;
    if (q < 0)
        q = 0;
    if (q > 1)
        q = 1;
    /* The nearest rank, as tc_stats_percentile's lower end reads it. */
    uint64_t rank = (uint64_t)ceil(q * (double)h->n);
    if (rank < 1)
        rank = 1;
    uint64_t seen = 0;
    int i = 0;
    for (; i < TC_HIST_BINS; i++) {
        seen += h->bins[i];
        if (seen >= rank)
            break;
    }
    if (i == TC_HIST_BINS)
        i = TC_HIST_BINS - 1;
    return HIST_MIN_NS * pow(HIST_GROWTH, i + 0.5);
}
