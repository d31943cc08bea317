/* The one-sample Kolmogorov-Smirnov test, and the distributions truecost
 * checks samples against with it (an open loop's arrival gaps: exponential
 * for Poisson arrivals, gamma for vLLM's bursty ones).
 *
 * The p-value is the Kolmogorov distribution's asymptotic series at
 * (sqrt(n) + 0.12 + 0.11 / sqrt(n)) * D (Stephens' correction), good to a
 * few per cent of the p-value from n = 35 on. */
#ifndef TC_KS_H
#define TC_KS_H

#include <stddef.h>

/* A continuous distribution function: P(X <= x) under params. */
typedef double (*tc_cdf_fn)(double x, const void *params);

/* The statistic D = sup |F_n(x) - F(x)| of the n samples in x (sorted in
 * place, ascending) against cdf. NAN when n is 0. */
double tc_ks_statistic(double *x, size_t n, tc_cdf_fn cdf, const void *params);

/* Q_KS(lambda) = 2 sum_{k>=1} (-1)^(k-1) exp(-2 k^2 lambda^2): the
 * probability that the Kolmogorov statistic exceeds lambda; 1 at 0. */
double tc_ks_q(double lambda);

/* The p-value of D from n samples. */
double tc_ks_pvalue(double d, size_t n);

/* The D above which the test rejects at level alpha (0 < alpha < 1). */
double tc_ks_critical(size_t n, double alpha);

/* Parameters of the exponential (rate > 0) and gamma (shape, scale > 0). */
typedef struct tc_exp_params {
    double rate;
} tc_exp_params;

typedef struct tc_gamma_params {
    double shape, scale;
} tc_gamma_params;

/* 1 - exp(-rate x) for x >= 0, else 0. params: a tc_exp_params. */
double tc_cdf_exponential(double x, const void *params);

/* P(shape, x / scale) for x >= 0, else 0. params: a tc_gamma_params. */
double tc_cdf_gamma(double x, const void *params);

/* The regularized lower incomplete gamma function P(a, x), a > 0, x >= 0:
 * its series below x = a + 1, the continued fraction of Q above (Lentz). */
double tc_gamma_p(double a, double x);

#endif
