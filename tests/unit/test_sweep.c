/* Unit tests of analysis/sweep: the knee, the stop rules and the auto
 * rates, on hand-made points. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "analysis/sweep.h"

static tc_sweep_point point(double good, double ttft99, double tpot99)
{
    tc_sweep_point p;
    memset(&p, 0, sizeof p);
    p.complete = 1;
    p.has_goodput = good >= 0;
    p.good_requests_per_s = good;
    p.has_ttft = p.has_tpot = 1;
    p.ttft_p99 = ttft99;
    p.tpot_p99 = tpot99;
    return p;
}

static void knee_where_goodput_falls(void **state)
{
    (void)state;
    tc_sweep_point p[4] = {point(1, 20, 10), point(2, 21, 10), point(3.9, 22, 11),
                           point(3.8, 23, 12)};
    const char *why = NULL;
    assert_int_equal(tc_sweep_knee(p, 4, &why), 2);
    assert_string_equal(why, "goodput falls after it");
    p[3].good_requests_per_s = 4; /* never falls, latency never doubles */
    assert_int_equal(tc_sweep_knee(p, 4, &why), -1);
    assert_null(why);
}

static void knee_where_latency_doubles(void **state)
{
    (void)state;
    tc_sweep_point p[3] = {point(-1, 20, 10), point(-1, 40, 10), point(-1, 41, 20.5)};
    const char *why = NULL;
    /* exactly twice is not "more than doubles" */
    assert_int_equal(tc_sweep_knee(p, 3, &why), 1);
    assert_string_equal(why, "TPOT p99 more than doubles after it");
    p[1].ttft_p99 = 40.1;
    assert_int_equal(tc_sweep_knee(p, 3, &why), 0);
    assert_string_equal(why, "TTFT p99 more than doubles after it");
    assert_int_equal(tc_sweep_knee(p, 1, NULL), -1);
    assert_int_equal(tc_sweep_knee(p, 0, NULL), -1);
}

static tc_sweep_point at_rate(double rate, double arrived, double achieved, double errors)
{
    tc_sweep_point p;
    memset(&p, 0, sizeof p);
    p.open_loop = 1;
    p.has_rates = 1;
    p.rate = rate;
    p.arrivals_per_s = arrived;
    p.requests_per_s = achieved;
    p.error_rate = errors;
    return p;
}

static void stops_on_errors_and_saturation(void **state)
{
    (void)state;
    tc_sweep_point p[4] = {at_rate(5, 4.6, 4.6, 0), at_rate(10, 10, 8.8, 0),
                           at_rate(20, 20, 19, 0.06), at_rate(40, 40, 30, 0)};
    assert_int_equal(tc_sweep_should_stop(p, 0), TC_SWEEP_GO);
    /* 4.6 of a nominal 5 is all its arrivals offered: not short */
    assert_int_equal(tc_sweep_should_stop(p, 1), TC_SWEEP_GO);
    assert_int_equal(tc_sweep_should_stop(p, 2), TC_SWEEP_GO); /* short once */
    assert_int_equal(tc_sweep_should_stop(p, 3), TC_SWEEP_STOP_ERRORS);
    p[2].error_rate = 0.05;   /* at the limit is not over it */
    p[2].requests_per_s = 17; /* short again: twice in a row */
    assert_int_equal(tc_sweep_should_stop(p, 3), TC_SWEEP_STOP_SATURATED);
    p[2].requests_per_s = 19;
    assert_int_equal(tc_sweep_should_stop(p, 4), TC_SWEEP_GO); /* 30 of 40 once, after a good one */
    /* A closed loop never saturates by this rule. */
    tc_sweep_point c[2] = {at_rate(5, 5, 1, 0), at_rate(5, 5, 1, 0)};
    c[0].open_loop = c[1].open_loop = 0;
    assert_int_equal(tc_sweep_should_stop(c, 2), TC_SWEEP_GO);
}

static void auto_rates_evenly_between(void **state)
{
    (void)state;
    double r[8];
    assert_int_equal(tc_sweep_rates_between(2, 16, 8, r), 8);
    assert_true(r[0] == 2 && r[7] == 16 && r[1] == 4);
    assert_int_equal(tc_sweep_rates_between(5, 5, 8, r), 0);
    assert_int_equal(tc_sweep_rates_between(0, 5, 8, r), 0);
    assert_int_equal(tc_sweep_rates_between(1, 5, 1, r), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(knee_where_goodput_falls),
        cmocka_unit_test(knee_where_latency_doubles),
        cmocka_unit_test(stops_on_errors_and_saturation),
        cmocka_unit_test(auto_rates_evenly_between),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
