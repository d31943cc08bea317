/* Unit tests of the energy arithmetic: known counter deltas and known power
 * over known windows give known joules and J/token, exactly. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "analysis/energy.h"

#define S(ms) ((int64_t)(ms)*1000000)

static void near(double a, double b)
{
    if (fabs(a - b) > 1e-9 * (fabs(b) + 1))
        fail_msg("%.12g != %.12g", a, b);
}

static void counter_delta_is_preferred(void **state)
{
    (void)state;
    /* 300 W for 2 s on the counter: 600 J; the power readings say 100 W. */
    tc_telem_sample s[3] = {
        {.mono_ns = S(0),
         .valid = TC_TF_ENERGY | TC_TF_POWER,
         .energy_uj = 5000000,
         .power_mw = 100000},
        {.mono_ns = S(1000),
         .valid = TC_TF_ENERGY | TC_TF_POWER,
         .energy_uj = 305000000,
         .power_mw = 100000},
        {.mono_ns = S(2000),
         .valid = TC_TF_ENERGY | TC_TF_POWER,
         .energy_uj = 605000000,
         .power_mw = 100000},
    };
    tc_energy_summary e;
    tc_energy_summarise(s, 3, S(0), S(2000), &e);
    assert_int_equal(e.method, TC_ENERGY_COUNTER);
    near(e.energy_j, 600.0);
    near(e.seconds, 2.0);
    near(e.avg_power_w, 300.0);
    near(e.peak_power_w, 100.0);
    assert_true(e.peak_below_avg); /* 100 W readings, 300 W from the counter: flagged */
    assert_false(e.counter_frozen);
    /* 1200 output tokens: 0.5 J/token, 2 tokens/J */
    near(tc_energy_joules_per_token(&e, 1200), 0.5);
    near(tc_energy_tokens_per_joule(&e, 1200), 2.0);
    assert_string_equal(tc_energy_method_name(e.method), "counter");
}

/* A counter that never moves while power reads 512 W is frozen or
 * unsupported, not a device drawing 0 W: the power samples are integrated
 * instead; with no power samples the energy is not available. */
static void a_frozen_counter_is_not_zero_watts(void **state)
{
    (void)state;
    tc_telem_sample s[3];
    for (int i = 0; i < 3; i++)
        s[i] = (tc_telem_sample){.mono_ns = S(1000 * i),
                                 .valid = TC_TF_ENERGY | TC_TF_POWER,
                                 .energy_uj = 777000000,
                                 .power_mw = 512000};
    tc_energy_summary e;
    tc_energy_summarise(s, 3, S(0), S(2000), &e);
    assert_true(e.counter_frozen);
    assert_int_equal(e.method, TC_ENERGY_INTEGRATED);
    near(e.energy_j, 1024.0);
    near(e.avg_power_w, 512.0);
    assert_false(e.peak_below_avg);
    for (int i = 0; i < 3; i++)
        s[i].valid = TC_TF_ENERGY;
    tc_energy_summarise(s, 3, S(0), S(2000), &e);
    assert_true(e.counter_frozen);
    assert_int_equal(e.method, TC_ENERGY_NONE);
    assert_false(e.has_power);
    assert_true(tc_energy_joules_per_token(&e, 100) == 0);
}

static void power_is_integrated_without_a_counter(void **state)
{
    (void)state;
    /* 100 W then 300 W over 1 s: trapezoid 200 J; then 300 W for 1 s: 300 J. */
    tc_telem_sample s[4] = {
        {.mono_ns = S(0), .valid = TC_TF_POWER, .power_mw = 100000},
        {.mono_ns = S(1000), .valid = TC_TF_POWER, .power_mw = 300000},
        {.mono_ns = S(1500), .valid = 0}, /* a sample whose power was not available */
        {.mono_ns = S(2000), .valid = TC_TF_POWER, .power_mw = 300000},
    };
    tc_energy_summary e;
    tc_energy_summarise(s, 4, S(0), S(2000), &e);
    assert_int_equal(e.method, TC_ENERGY_INTEGRATED);
    near(e.energy_j, 500.0);
    near(e.avg_power_w, 250.0);
    near(e.peak_power_w, 300.0);
    assert_int_equal(e.samples, 4);
    /* a window reaching past the samples: covered in part, and said; the
     * energy is the whole window's, at the covered part's 300 W, so that
     * J/token divides the window's energy by the window's tokens */
    tc_energy_summarise(s, 4, S(1000), S(3000), &e);
    near(e.seconds, 1.0);
    near(e.coverage, 0.5);
    near(e.avg_power_w, 300.0);
    near(e.energy_j, 600.0);
    near(tc_energy_joules_per_token(&e, 600), 1.0);
}

static void window_bounds_and_missing_fields(void **state)
{
    (void)state;
    tc_telem_sample s[4] = {
        {.mono_ns = S(0), .valid = TC_TF_ENERGY, .energy_uj = 0},
        {.mono_ns = S(100),
         .valid = TC_TF_ENERGY | TC_TF_MEM_USED | TC_TF_TEMP | TC_TF_UTIL_GPU,
         .energy_uj = 1000000,
         .mem_used_bytes = 7,
         .temp_mc = 61500,
         .util_pct = 90},
        {.mono_ns = S(200),
         .valid = TC_TF_ENERGY | TC_TF_MEM_USED | TC_TF_TEMP | TC_TF_UTIL_GPU,
         .energy_uj = 3000000,
         .mem_used_bytes = 5,
         .temp_mc = 60000,
         .util_pct = 70},
        {.mono_ns = S(900), .valid = TC_TF_ENERGY, .energy_uj = 99000000},
    };
    tc_energy_summary e;
    /* 50..250 ms: half of the 0..100 segment (0.5 J), all of 100..200 (2 J),
     * 50/700 of the 200..900 one (96 J * 50/700) */
    tc_energy_summarise(s, 4, S(50), S(250), &e);
    near(e.energy_j, 0.5 + 2.0 + 96.0 * 50.0 / 700.0);
    near(e.coverage, 1.0);
    assert_int_equal(e.peak_mem_bytes, 7);
    near(e.max_temp_c, 61.5);
    near(e.mean_util_pct, 80.0);
    assert_int_equal(e.samples, 2);

    tc_telem_sample none[2] = {{.mono_ns = S(0)}, {.mono_ns = S(10)}};
    tc_energy_summarise(none, 2, S(0), S(10), &e);
    assert_int_equal(e.method, TC_ENERGY_NONE);
    assert_int_equal(e.has_power, 0); /* not available, never 0 W */
    assert_int_equal(e.has_mem, 0);
    assert_int_equal(e.has_temp, 0);
    near(tc_energy_joules_per_token(&e, 100), 0);
    assert_string_equal(tc_energy_method_name(e.method), "not available");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counter_delta_is_preferred),
        cmocka_unit_test(a_frozen_counter_is_not_zero_watts),
        cmocka_unit_test(power_is_integrated_without_a_counter),
        cmocka_unit_test(window_bounds_and_missing_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
