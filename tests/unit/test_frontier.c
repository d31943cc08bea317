/* Unit tests of analysis/frontier: the Pareto frontier and its monotone
 * cubic reading, worked by hand. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "analysis/frontier.h"

static void keeps_the_points_not_beaten(void **state)
{
    (void)state;
    /* (interactivity, tok/s per GPU): (50, 800) beats (40, 700); (100, 100)
     * and (20, 1600) are ends; NaN and 0 are left out. */
    double x[] = {20, 40, 50, 100, NAN, 30, 0};
    double y[] = {1600, 700, 800, 100, 5, 900, 3};
    tc_frontier_pt f[7];
    size_t n = tc_frontier_build(x, y, 7, f);
    assert_int_equal(n, 4);
    double wx[] = {20, 30, 50, 100}, wy[] = {1600, 900, 800, 100};
    for (size_t i = 0; i < n; i++) {
        assert_true(f[i].x == wx[i] && f[i].y == wy[i]);
        assert_true(x[f[i].src] == f[i].x); /* src names the point */
    }
}

static void reads_monotone_between_and_never_beyond(void **state)
{
    (void)state;
    double x[] = {25, 50, 100, 200}, y[] = {1000, 900, 500, 100};
    tc_frontier_pt f[4];
    size_t n = tc_frontier_build(x, y, 4, f), lo;
    double v, t;
    assert_int_equal(tc_frontier_at(f, n, 50, &v, &lo, &t), TC_AT_MEASURED);
    assert_true(fabs(v - 900) < 1e-9); /* on a point: its value */
    double prev = 1e9;
    for (double q = 25; q <= 200; q += 0.5) { /* never rises, never leaves its bracket */
        assert_int_equal(tc_frontier_at(f, n, q, &v, &lo, &t), TC_AT_MEASURED);
        assert_true(v <= prev + 1e-9);
        assert_true(v <= f[lo].y + 1e-9 && v >= f[lo + 1 < n ? lo + 1 : lo].y - 1e-9);
        prev = v;
    }
    assert_int_equal(tc_frontier_at(f, n, 75, &v, &lo, &t), TC_AT_MEASURED);
    assert_int_equal(lo, 1);
    assert_true(fabs(t - 0.5) < 1e-12);
    assert_int_equal(tc_frontier_at(f, n, 200.01, &v, &lo, &t), TC_AT_NOT_REACHED);
    assert_int_equal(tc_frontier_at(f, n, 10, &v, &lo, &t), TC_AT_BOUND);
    assert_true(v == 1000); /* served at the lowest measured point */
    assert_string_equal(tc_frontier_reading_name(TC_AT_BOUND), "bound");
    assert_int_equal(tc_frontier_at(f, 0, 10, &v, &lo, &t), TC_AT_NOT_REACHED);
}

static void linear_data_reads_linear(void **state)
{
    (void)state;
    /* Collinear points: the monotone cubic is the straight line. */
    double x[] = {10, 20, 30, 40}, y[] = {400, 300, 200, 100};
    tc_frontier_pt f[4];
    size_t n = tc_frontier_build(x, y, 4, f), lo;
    double v, t;
    tc_frontier_at(f, n, 17, &v, &lo, &t);
    assert_true(fabs(v - 330) < 1e-9);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(keeps_the_points_not_beaten),
        cmocka_unit_test(reads_monotone_between_and_never_beyond),
        cmocka_unit_test(linear_data_reads_linear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
