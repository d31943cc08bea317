#include "frontier.h"

#include <math.h>
#include <stdlib.h>

static int by_x(const void *a, const void *b)
{
    const tc_frontier_pt *p = a, *q = b;
    if (p->x != q->x)
        return p->x < q->x ? -1 : 1;
    return (p->y < q->y) - (p->y > q->y); /* equal x: the higher throughput first */
}

size_t tc_frontier_build(const double *x, const double *y, size_t n, tc_frontier_pt *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]) && isfinite(y[i]) && x[i] > 0 && y[i] > 0)
            out[k++] = (tc_frontier_pt){x[i], y[i], i};
    qsort(out, k, sizeof *out, by_x);
    /* From the highest interactivity down, a point stays when it has more
     * throughput than every point to its right; kept ones are marked by
     * their src, then moved down in order. */
    double best = -1;
    for (size_t i = k; i-- > 0;)
        if (out[i].y > best)
            best = out[i].y;
        else
            out[i].src = (size_t)-1;
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        if (out[i].src != (size_t)-1)
            out[m++] = out[i];
    return m;
}

/* Fritsch-Carlson tangents at the two ends of segment k. */
static void tangents(const tc_frontier_pt *f, size_t n, size_t k, double *m0, double *m1)
{
    double d[3]; /* secants of segments k-1, k, k+1 (0 where there is none) */
    for (int j = 0; j < 3; j++) {
        size_t s = k + (size_t)j - 1;
        d[j] =
            (k + (size_t)j >= 1 && s + 1 < n) ? (f[s + 1].y - f[s].y) / (f[s + 1].x - f[s].x) : NAN;
    }
    double dk = d[1];
    /* Interior tangents: the mean of the secants when they agree in sign. */
    *m0 = isnan(d[0]) ? dk : (d[0] * dk > 0 ? (d[0] + dk) / 2 : 0);
    *m1 = isnan(d[2]) ? dk : (d[2] * dk > 0 ? (d[2] + dk) / 2 : 0);
    if (dk == 0) {
        *m0 = *m1 = 0;
        return;
    }
    double a = *m0 / dk, b = *m1 / dk, r = a * a + b * b;
    if (r > 9) { /* keeps the piece monotone */
        double t = 3 / sqrt(r);
        *m0 = t * a * dk;
        *m1 = t * b * dk;
    }
}

tc_frontier_reading tc_frontier_at(const tc_frontier_pt *f, size_t n, double x, double *y,
                                   size_t *lo, double *t)
{
    *y = 0;
    *lo = 0;
    *t = 0;
    if (n == 0 || !(x <= f[n - 1].x))
        return TC_AT_NOT_REACHED;
    if (x <= f[0].x) {
        *y = f[0].y;
        return x == f[0].x ? TC_AT_MEASURED : TC_AT_BOUND;
    }
    size_t k = 0;
    while (k + 1 < n && f[k + 1].x < x)
        k++;
    double h = f[k + 1].x - f[k].x, s = (x - f[k].x) / h, m0, m1;
    tangents(f, n, k, &m0, &m1);
    double s2 = s * s, s3 = s2 * s;
    *y = (2 * s3 - 3 * s2 + 1) * f[k].y + (s3 - 2 * s2 + s) * h * m0 +
         (-2 * s3 + 3 * s2) * f[k + 1].y + (s3 - s2) * h * m1;
    *lo = k;
    *t = s;
    return TC_AT_MEASURED;
}

const char *tc_frontier_reading_name(tc_frontier_reading r)
{
    switch (r) {
    case TC_AT_MEASURED:
        return "measured";
    case TC_AT_BOUND:
        return "bound";
    default:
        return "not reached";
    }
}
