#include "ks.h"
#include "core/tc_sort.h"

#include <math.h>
#include <stdlib.h>

#define GAMMA_EPS 1e-15
#define GAMMA_ITER 1000

double tc_ks_statistic(double *x, size_t n, tc_cdf_fn cdf, const void *params)
{
    if (n == 0)
        return NAN;
    tc_sort_double(x, n);
    double d = 0;
    for (size_t i = 0; i < n; i++) {
        double f = cdf(x[i], params);
        double above = (double)(i + 1) / (double)n - f, below = f - (double)i / (double)n;
        if (above > d)
            d = above;
        if (below > d)
            d = below;
    }
    return d;
}

double tc_ks_q(double lambda)
{
    if (lambda < 0.2) /* the series converges slowly here, to 1 */
        return 1.0;
    double sum = 0, sign = 1;
    for (int k = 1; k <= 100; k++) {
        double term = sign * exp(-2.0 * k * k * lambda * lambda);
        sum += term;
        if (fabs(term) < 1e-16 * fabs(sum))
            break;
        sign = -sign;
    }
    double q = 2.0 * sum;
    return q < 0 ? 0 : q > 1 ? 1 : q;
}

static double lambda_of(double d, size_t n)
{
    double rn = sqrt((double)n);
    return (rn + 0.12 + 0.11 / rn) * d;
}

double tc_ks_pvalue(double d, size_t n)
{
    if (n == 0 || !(d >= 0))
        return NAN;
    return tc_ks_q(lambda_of(d, n));
}

double tc_ks_critical(size_t n, double alpha)
{
    if (n == 0 || !(alpha > 0 && alpha < 1))
        return NAN;
    /* p falls as D grows: bisect for p(D) = alpha on [0, 1]. */
    double lo = 0, hi = 1;
    for (int i = 0; i < 100; i++) {
        double mid = 0.5 * (lo + hi);
        if (tc_ks_pvalue(mid, n) > alpha)
            lo = mid;
        else
            hi = mid;
    }
    return 0.5 * (lo + hi);
}

double tc_cdf_exponential(double x, const void *params)
{
    const tc_exp_params *p = params;
    return x <= 0 ? 0 : -expm1(-p->rate * x);
}

/* P(a, x) by its series, for x < a + 1. */
static double gamma_series(double a, double x)
{
    double ap = a, term = 1.0 / a, sum = term;
    for (int i = 0; i < GAMMA_ITER; i++) {
        ap += 1;
        term *= x / ap;
        sum += term;
        if (fabs(term) < fabs(sum) * GAMMA_EPS)
            break;
    }
    return sum * exp(-x + a * log(x) - lgamma(a));
}

/* Q(a, x) = 1 - P(a, x) by its continued fraction (modified Lentz), for
 * x >= a + 1. */
static double gamma_cf(double a, double x)
{
    const double tiny = 1e-300;
    double b = x + 1 - a, c = 1 / tiny, d = 1 / b, h = d;
    for (int i = 1; i <= GAMMA_ITER; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (fabs(d) < tiny)
            d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny)
            c = tiny;
        d = 1 / d;
        double delta = d * c;
        h *= delta;
        if (fabs(delta - 1) < GAMMA_EPS)
            break;
    }
    return exp(-x + a * log(x) - lgamma(a)) * h;
}

double tc_gamma_p(double a, double x)
{
    if (!(a > 0) || x < 0 || isnan(x))
        return NAN;
    if (x == 0)
        return 0;
    return x < a + 1 ? gamma_series(a, x) : 1 - gamma_cf(a, x);
}

double tc_cdf_gamma(double x, const void *params)
{
    const tc_gamma_params *p = params;
    return x <= 0 ? 0 : tc_gamma_p(p->shape, x / p->scale);
}
