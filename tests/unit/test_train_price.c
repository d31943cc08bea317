/* Unit tests of analysis/train_price.c: a training run priced per step,
 * per 1,000 samples and per million tokens against the cost model's
 * arithmetic written here, and two runs compared (ratios B/A, intervals,
 * the gap's reading). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "analysis/train_price.h"
#include "test_assert.h"

static const char PROFILE[] = "currency = USD\n"
                              "[hardware]\nprice = 3600\namortize_months = 36\n"
                              "[power]\nprice_per_kwh = 0.25\npue = 1.0\nidle_watts = 100\n"
                              "[operations]\nhours_per_month = 0\nhourly_rate = 0\n"
                              "[workload]\nutilization = 0.5\n";

static tc_training_figures figures(double step_ms, double power_w)
{
    tc_training_figures f;
    memset(&f, 0, sizeof f);
    f.step_ms.n = 10;
    f.step_ms.mean = step_ms;
    f.steps_per_s = 1000 / step_ms;
    f.window_steps = 10;
    f.samples_per_s = 8 * f.steps_per_s;
    f.tokens_per_s = 4096 * f.steps_per_s;
    f.avg_power_w = power_w;
    f.joules_per_step = power_w * step_ms / 1000;
    return f;
}

static void cost_per_step_sample_token(void **state)
{
    (void)state;
    tc_cost_profile p;
    char err[512];
    assert_int_equal(tc_cost_profile_parse("t.ini", PROFILE, strlen(PROFILE), &p, err, sizeof err),
                     TC_OK);
    tc_training_figures f = figures(200, 300); /* 5 steps/s at 300 W */
    tc_training_cost c;
    assert_int_equal(tc_training_cost_compute(&p, &f, &c), TC_OK);
    assert_true(c.has_cost);
    /* hardware 3600 / 36 = 100 a month; electricity (300 W x 0.5 + 100 W x
     * 0.5) x 730.56 h / 1000 x 0.25; steps a month 5 x 0.5 x 2,630,016 s */
    double month = 100 + (300 * 0.5 + 100 * 0.5) * TC_COST_MONTH_H / 1000 * 0.25;
    double steps = 5 * 0.5 * TC_COST_MONTH_S;
    assert_near(c.per_step, month / steps, 1e-15);
    assert_near(c.per_1k_samples, month / steps / 8 * 1000, 1e-12);
    assert_near(c.per_million_tokens, month / steps / 4096 * 1e6, 1e-9);
    f.steps_per_s = NAN;
    assert_int_equal(tc_training_cost_compute(&p, &f, &c), TC_ERR_INVALID);
}

static void compare_two_runs(void **state)
{
    (void)state;
    double a_ms[6] = {100, 100, 100, 100, 100, 100}, b_ms[6] = {150, 150, 150, 150, 150, 150};
    tc_training_figures fa = figures(100, 300), fb = figures(150, 250);
    tc_training_cost ca = {.has_cost = 1, .per_step = 0.01},
                     cb = {.has_cost = 1, .per_step = 0.012};
    tc_training_side a = {&fa, a_ms, 6, &ca}, b = {&fb, b_ms, 6, &cb};
    tc_training_comparison r;
    char err[256];
    assert_int_equal(tc_training_compare(&a, &b, 1000, 7, &r, err, sizeof err), TC_OK);
    /* constant step times: every resample gives the point */
    assert_near(r.ci[TC_TRAINING_CMP_STEP_TIME].point, 1.5, 1e-12);
    assert_near(r.ci[TC_TRAINING_CMP_STEP_TIME].lo, 1.5, 1e-12);
    assert_near(r.ci[TC_TRAINING_CMP_STEP_TIME].hi, 1.5, 1e-12);
    assert_near(r.ci[TC_TRAINING_CMP_SAMPLES].point, 1 / 1.5, 1e-12);
    assert_near(r.ci[TC_TRAINING_CMP_TOKENS].point, 1 / 1.5, 1e-12);
    assert_near(r.ci[TC_TRAINING_CMP_ENERGY].point, (250 * 0.15) / (300 * 0.1), 1e-12);
    assert_near(r.ci[TC_TRAINING_CMP_COST].point, 1.2, 1e-12);
    assert_near(r.slowdown, 1.5, 1e-12);
    assert_string_equal(r.reading, "20-50% slower: needs tuning");
    /* a side without a price: no cost ratio */
    b.cost = NULL;
    assert_int_equal(tc_training_compare(&a, &b, 1000, 7, &r, err, sizeof err), TC_OK);
    assert_false(r.has[TC_TRAINING_CMP_COST]);
    assert_true(r.has[TC_TRAINING_CMP_STEP_TIME]);
    /* B faster */
    tc_training_side fast = {&fa, a_ms, 6, NULL}, slow = {&fb, b_ms, 6, NULL};
    assert_int_equal(tc_training_compare(&slow, &fast, 1000, 7, &r, err, sizeof err), TC_OK);
    assert_string_equal(r.reading, "B is faster than A");
    /* varying steps: an interval around the point */
    double v_ms[6] = {140, 160, 150, 145, 155, 150};
    tc_training_side var = {&fb, v_ms, 6, NULL};
    assert_int_equal(tc_training_compare(&fast, &var, 2000, 7, &r, err, sizeof err), TC_OK);
    assert_true(r.ci[0].lo < r.ci[0].point && r.ci[0].point < r.ci[0].hi);
    tc_training_side none = {&fb, NULL, 0, NULL};
    assert_int_equal(tc_training_compare(&fast, &none, 1000, 7, &r, err, sizeof err),
                     TC_ERR_INVALID);
    assert_says(err, "run B has no step time", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cost_per_step_sample_token),
        cmocka_unit_test(compare_two_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
