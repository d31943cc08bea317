/* Unit tests of the open loop's arrival schedule (bench/bench_arrival) and
 * of the Kolmogorov-Smirnov test that checks it (analysis/ks): the KS
 * pieces on known values (the Kolmogorov tail and the incomplete gamma
 * function from mpmath, a statistic worked by hand), then each arrival
 * process's gaps against its distribution, and a wrong distribution
 * rejected, so that the check can fail. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_assert.h"

#include <math.h>
#include <stdlib.h>

#include "analysis/ks.h"
#include "bench/bench_arrival.h"

#define N_GAPS 20000
#define ALPHA 0.01

static double uniform_cdf(double x, const void *params)
{
    (void)params;
    return x < 0 ? 0 : x > 1 ? 1 : x;
}

static void ks_statistic_worked_by_hand(void **state)
{
    (void)state;
    /* F_n steps to 1/3, 2/3, 1 at 0.1, 0.4, 0.7: the largest gap to F(x) = x
     * is 1 - 0.7 just after the last sample. */
    double x[3] = {0.7, 0.1, 0.4};
    assert_near(tc_ks_statistic(x, 3, uniform_cdf, NULL), 0.3, 1e-15);
    assert_near(x[0], 0.1, 0); /* sorted in place */
    assert_true(isnan(tc_ks_statistic(x, 0, uniform_cdf, NULL)));
}

static void kolmogorov_tail_known_values(void **state)
{
    (void)state;
    /* 2 sum (-1)^(k-1) exp(-2 k^2 l^2), summed to 200 terms in Python */
    assert_near(tc_ks_q(1.36), 0.049485876755377876, 1e-12);
    assert_near(tc_ks_q(1.0), 0.26999967167735456, 1e-12);
    assert_near(tc_ks_q(0.5), 0.9639452436648751, 1e-12);
    assert_near(tc_ks_q(1.6276), 0.010001537333060776, 1e-12);
    assert_near(tc_ks_q(0), 1, 0);
    /* the critical D at alpha: sqrt(n) D -> 1.6276 (0.01), 1.3581 (0.05) */
    size_t n = 1000000;
    double scale = sqrt((double)n) + 0.12 + 0.11 / sqrt((double)n);
    assert_near(tc_ks_critical(n, 0.01) * scale, 1.62762, 1e-4);
    assert_near(tc_ks_critical(n, 0.05) * scale, 1.35810, 1e-4);
    assert_near(tc_ks_pvalue(tc_ks_critical(2000, 0.01), 2000), 0.01, 1e-9);
    assert_true(tc_ks_pvalue(0.01, 100) > 0.99);
}

static void incomplete_gamma_known_values(void **state)
{
    (void)state;
    /* Closed forms (integer a: 1 - e^-x sum_{k<a} x^k/k!) and mpmath's
     * gammainc(a, 0, x, regularized=True); series and continued fraction */
    assert_near(tc_gamma_p(3, 2), 0.3233235838169365, 1e-14);
    assert_near(tc_gamma_p(2, 5), 0.9595723180054871, 1e-14);
    assert_near(tc_gamma_p(10, 3), 0.0011024881301155975, 1e-15);
    assert_near(tc_gamma_p(10, 20), 0.9950045876916924, 1e-14);
    assert_near(tc_gamma_p(100, 90), 0.15822098918643024, 1e-12);
    assert_near(tc_gamma_p(0.5, 0.3), 0.561421973919000136, 1e-14); /* erf(sqrt(x)) */
    assert_near(tc_gamma_p(2.5, 7.5), 0.989637662084213563, 1e-14);
    assert_near(tc_gamma_p(0.3, 0.01), 0.279240996359014861, 1e-14);
    assert_near(tc_gamma_p(50, 60), 0.915593318906308170, 1e-12);
    assert_near(tc_gamma_p(1, 0), 0, 0);
    assert_true(isnan(tc_gamma_p(0, 1)));
    tc_gamma_params g = {1, 0.5}; /* shape 1: the exponential of rate 2 */
    tc_exp_params e = {2};
    for (double x = 0; x < 5; x += 0.37)
        assert_near(tc_cdf_gamma(x, &g), tc_cdf_exponential(x, &e), 1e-14);
}

/* N_GAPS gaps of the schedule, in seconds (malloc'ed). */
static double *gaps_of(tc_arrival kind, double rate, double burstiness, uint64_t seed)
{
    tc_schedule s;
    tc_schedule_init(&s, kind, rate, burstiness, seed);
    double *g = malloc(N_GAPS * sizeof *g);
    assert_non_null(g);
    for (int i = 0; i < N_GAPS; i++)
        g[i] = tc_schedule_next_gap_s(&s);
    return g;
}

static double mean_of(const double *x, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    return sum / (double)n;
}

static void poisson_gaps_are_exponential(void **state)
{
    (void)state;
    double *g = gaps_of(TC_ARRIVAL_POISSON, 50, 0, 7);
    assert_near(mean_of(g, N_GAPS), 1.0 / 50, 0.03 / 50);
    tc_exp_params e = {50};
    double d = tc_ks_statistic(g, N_GAPS, tc_cdf_exponential, &e);
    assert_true(tc_ks_pvalue(d, N_GAPS) > ALPHA);
    /* ...and not exponential at another rate: the test can fail */
    tc_exp_params wrong = {45};
    d = tc_ks_statistic(g, N_GAPS, tc_cdf_exponential, &wrong);
    assert_true(tc_ks_pvalue(d, N_GAPS) < 1e-6);
    free(g);
}

static void gamma_gaps_have_their_shape(void **state)
{
    (void)state;
    const double shapes[] = {0.3, 0.5, 1, 2.5, 8};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++) {
        double b = shapes[i], rate = 20;
        double *g = gaps_of(TC_ARRIVAL_GAMMA, rate, b, 11 + i);
        assert_near(mean_of(g, N_GAPS), 1.0 / rate, 0.05 / rate);
        tc_gamma_params p = {b, 1.0 / (rate * b)};
        double d = tc_ks_statistic(g, N_GAPS, tc_cdf_gamma, &p);
        if (!(tc_ks_pvalue(d, N_GAPS) > ALPHA))
            fail_msg("burstiness %g: D = %g, p = %g", b, d, tc_ks_pvalue(d, N_GAPS));
        /* a gamma of another shape is not this one */
        tc_exp_params e = {rate};
        if (b != 1) {
            d = tc_ks_statistic(g, N_GAPS, tc_cdf_exponential, &e);
            assert_true(tc_ks_pvalue(d, N_GAPS) < 1e-6);
        }
        free(g);
    }
}

static void constant_gaps_are_equal(void **state)
{
    (void)state;
    double *g = gaps_of(TC_ARRIVAL_CONSTANT, 40, 0, 3);
    for (int i = 0; i < N_GAPS; i++)
        assert_near(g[i], 0.025, 0);
    free(g);
}

static void the_seed_fixes_the_schedule(void **state)
{
    (void)state;
    double *a = gaps_of(TC_ARRIVAL_GAMMA, 10, 0.5, 42), *b = gaps_of(TC_ARRIVAL_GAMMA, 10, 0.5, 42);
    double *c = gaps_of(TC_ARRIVAL_GAMMA, 10, 0.5, 43);
    int differ = 0;
    for (int i = 0; i < N_GAPS; i++) {
        assert_true(a[i] == b[i]);
        differ += a[i] != c[i];
    }
    assert_true(differ > N_GAPS / 2);
    free(a);
    free(b);
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ks_statistic_worked_by_hand),
        cmocka_unit_test(kolmogorov_tail_known_values),
        cmocka_unit_test(incomplete_gamma_known_values),
        cmocka_unit_test(poisson_gaps_are_exponential),
        cmocka_unit_test(gamma_gaps_have_their_shape),
        cmocka_unit_test(constant_gaps_are_equal),
        cmocka_unit_test(the_seed_fixes_the_schedule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
