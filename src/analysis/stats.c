#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_sort.h"
#include "core/tc_grow.h"

/* numpy's _lerp: from the upper end when t >= 0.5, so P(100) is exactly the
 * maximum and results match numpy to the last bit. */
double tc_stats_lerp(double a, double b, double t)
{
    double diff = b - a;
    return t >= 0.5 ? b - diff * (1.0 - t) : a + diff * t;
}

double tc_stats_percentile(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return 0;
    if (q < 0)
        q = 0;
    if (q > 100)
        q = 100;
    /* numpy divides q by 100 before scaling by n - 1; same order here. */
    double h = (q / 100.0) * (double)(n - 1);
    double lo = floor(h);
    size_t i = (size_t)lo;
    if (i >= n - 1)
        return sorted[n - 1];
    return tc_stats_lerp(sorted[i], sorted[i + 1], h - lo);
}

/* Two passes (mean, then squared deviations), as numpy does, so large
 * offsets such as nanosecond timestamps do not cancel. */
static void mean_stddev(const double *x, size_t n, double *mean, double *stddev)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    *mean = sum / (double)n;
    *stddev = 0;
    if (n < 2)
        return;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - *mean) * (x[i] - *mean);
    *stddev = sqrt(ss / (double)(n - 1));
}

void tc_summary_compute(double *samples, size_t n, tc_summary *out)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return;
    tc_sort_double(samples, n); /* in place: no second copy of a huge run's values */
    out->n = n;
    mean_stddev(samples, n, &out->mean, &out->stddev);
    out->min = samples[0];
    out->max = samples[n - 1];
    out->p50 = tc_stats_percentile(samples, n, 50);
    out->p90 = tc_stats_percentile(samples, n, 90);
    out->p95 = tc_stats_percentile(samples, n, 95);
    out->p99 = tc_stats_percentile(samples, n, 99);
}

tc_err tc_dvec_push(tc_dvec *v, double x)
{
    if (tc_grow(&v->data, &v->cap, v->len, sizeof *v->data, 64) < 0)
        return TC_ERR_NOMEM;
    v->data[v->len++] = x;
    return TC_OK;
}

void tc_dvec_free(tc_dvec *v)
{
    if (!v)
        return;
    free(v->data);
    memset(v, 0, sizeof *v);
}
