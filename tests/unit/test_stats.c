/* Unit tests of analysis/stats: exact summaries, percentiles as numpy's
 * default (linear) computes them; expected values worked by hand and with
 * Python's statistics.quantiles(method="inclusive"), the same rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_assert.h"

#include <math.h>

#include "analysis/stats.h"

#define EPS 1e-9

/* cmocka's assert_float_equal works in float; these figures need double. */
static void one_to_ten(void **state)
{
    (void)state;
    double x[10] = {10, 3, 7, 1, 9, 2, 8, 4, 6, 5}; /* unsorted on purpose */
    tc_summary s;
    tc_summary_compute(x, 10, &s);
    assert_int_equal(s.n, 10);
    assert_near(s.mean, 5.5, EPS);
    assert_near(s.stddev, 3.0276503540974917, EPS); /* sqrt(82.5 / 9) */
    assert_near(s.min, 1, 0);
    assert_near(s.max, 10, 0);
    assert_near(s.p50, 5.5, EPS); /* h = 4.5: between 5 and 6 */
    assert_near(s.p90, 9.1, EPS); /* h = 8.1 */
    assert_near(s.p95, 9.55, EPS);
    assert_near(s.p99, 9.91, EPS);
    for (int i = 0; i < 10; i++) /* sorted in place, as documented */
        assert_near(x[i], i + 1, 0);
}

static void even_count_median_is_mid_mean(void **state)
{
    (void)state;
    double x[4] = {4, 1, 3, 2};
    tc_summary s;
    tc_summary_compute(x, 4, &s);
    assert_near(s.p50, 2.5, EPS);
    assert_near(s.p90, 3.7, EPS); /* h = 2.7 */
    assert_near(s.p95, 3.85, EPS);
    assert_near(s.p99, 3.97, EPS);
    assert_near(s.stddev, 1.2909944487358056, EPS);
}

static void skewed_sample(void **state)
{
    (void)state;
    double x[5] = {5.0, 1.0, 100.0, 7.5, 3.25};
    tc_summary s;
    tc_summary_compute(x, 5, &s);
    assert_near(s.mean, 23.35, EPS);
    assert_near(s.stddev, 42.91474105712395, EPS);
    assert_near(s.p50, 5.0, EPS);
    assert_near(s.p90, 63.0, EPS); /* h = 3.6: 7.5 + 0.6 * 92.5 */
    assert_near(s.p95, 81.5, EPS);
    assert_near(s.p99, 96.3, EPS);
}

static void single_sample(void **state)
{
    (void)state;
    double x[1] = {42.5};
    tc_summary s;
    tc_summary_compute(x, 1, &s);
    assert_int_equal(s.n, 1);
    assert_near(s.mean, 42.5, 0);
    assert_near(s.stddev, 0, 0);
    assert_near(s.min, 42.5, 0);
    assert_near(s.p50, 42.5, 0);
    assert_near(s.p99, 42.5, 0);
    assert_near(s.max, 42.5, 0);
}

static void empty_is_marked(void **state)
{
    (void)state;
    tc_summary s = {.n = 7, .mean = 3};
    tc_summary_compute(NULL, 0, &s);
    assert_int_equal(s.n, 0);
    assert_near(s.mean, 0, 0);
    assert_near(tc_stats_percentile(NULL, 0, 50), 0, 0);
}

static void percentile_ends_and_clamps(void **state)
{
    (void)state;
    const double x[2] = {0, 10};
    assert_near(tc_stats_percentile(x, 2, 0), 0, 0);
    assert_near(tc_stats_percentile(x, 2, 100), 10, 0);
    assert_near(tc_stats_percentile(x, 2, 99), 9.9, EPS);
    assert_near(tc_stats_percentile(x, 2, -5), 0, 0);
    assert_near(tc_stats_percentile(x, 2, 250), 10, 0);
}

/* Two-pass variance keeps precision with a large common offset. */
static void stddev_with_large_offset(void **state)
{
    (void)state;
    double x[3] = {1e12 + 1, 1e12 + 2, 1e12 + 3};
    tc_summary s;
    tc_summary_compute(x, 3, &s);
    assert_near(s.stddev, 1.0, 1e-6);
}

static void dvec_grows_and_frees(void **state)
{
    (void)state;
    tc_dvec v = {0};
    for (int i = 0; i < 1000; i++)
        assert_int_equal(tc_dvec_push(&v, i * 0.5), TC_OK);
    assert_int_equal(v.len, 1000);
    assert_near(v.data[999], 499.5, 0);
    tc_dvec_free(&v);
    assert_null(v.data);
    assert_int_equal(v.len, 0);
    tc_dvec_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_to_ten),
        cmocka_unit_test(even_count_median_is_mid_mean),
        cmocka_unit_test(skewed_sample),
        cmocka_unit_test(single_sample),
        cmocka_unit_test(empty_is_marked),
        cmocka_unit_test(percentile_ends_and_clamps),
        cmocka_unit_test(stddev_with_large_offset),
        cmocka_unit_test(dvec_grows_and_frees),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
