/* Unit tests of analysis/train.c: the warm-up, the step-time distribution,
 * throughput, MFU and energy of a training run against arithmetic written
 * here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>

#include "analysis/train.h"
#include "test_assert.h"

#define MS 1000000LL

/* n records, record i read at the sum of gap_ms[0..i]. */
static void steps_at(tc_train_step *s, size_t n, const double *gap_ms)
{
    int64_t t = 1000 * MS;
    for (size_t i = 0; i < n; i++) {
        tc_train_step_init(&s[i]);
        s[i].step = (int64_t)i + 1;
        t += (int64_t)(gap_ms[i] * MS);
        s[i].t_ns = t;
    }
}

static void warmup_default_and_given(void **state)
{
    (void)state;
    assert_int_equal(tc_training_warmup(100, -1), 10); /* 10% */
    assert_int_equal(tc_training_warmup(30, -1), 5);   /* at least 5 */
    assert_int_equal(tc_training_warmup(6, -1), 3);    /* never more than half */
    assert_int_equal(tc_training_warmup(100, 0), 0);
    assert_int_equal(tc_training_warmup(100, 7), 7);
    assert_int_equal(tc_training_warmup(10, 9), 5);
}

static void step_times_over_the_window(void **state)
{
    (void)state;
    /* 12 records: 5 warm-up, then gaps 100, 110, 90, 100, 120, 80 ms */
    double gaps[12] = {900, 500, 400, 300, 200, 100, 100, 110, 90, 100, 120, 80};
    tc_train_step s[12];
    steps_at(s, 12, gaps);
    for (size_t i = 0; i < 12; i++)
        s[i].samples = 8, s[i].tokens = 1024;
    tc_train_info info;
    tc_train_info_init(&info);
    tc_training_figures f;
    tc_training_figures_compute(&info, s, 12, 0, &f);
    assert_int_equal(f.warmup, 5);
    assert_int_equal(f.step_ms.n, 6);
    assert_int_equal(f.window_steps, 6);
    /* the window is records 5..11: gaps 100 110 90 100 120 80 */
    assert_near(f.step_ms.mean, 100, 1e-9);
    assert_near(f.step_ms.p50, 100, 1e-9);
    assert_near(f.step_ms.min, 80, 1e-9);
    assert_near(f.step_ms.max, 120, 1e-9);
    /* p99: h = 5 * 0.99 = 4.95 between 110 and 120 */
    assert_near(f.step_ms.p99, 110 + 0.95 * 10, 1e-9);
    /* sample sd: sqrt((0+100+100+0+400+400)/5) = sqrt(200) */
    assert_near(f.cv, sqrt(200) / 100, 1e-12);
    assert_near(f.steps_per_s, 6 / 0.6, 1e-9);
    assert_int_equal(f.samples_source, TC_TRAINING_COUNTS);
    assert_near(f.samples_per_s, 48 / 0.6, 1e-9);
    assert_near(f.tokens_per_s, 6 * 1024 / 0.6, 1e-6);
    assert_true(isnan(f.mfu)); /* no parameters */
}

static void logging_every_k_steps(void **state)
{
    (void)state;
    /* one record every 10 steps, 1 s apart: 100 ms a step */
    double gaps[8] = {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000};
    tc_train_step s[8];
    steps_at(s, 8, gaps);
    for (size_t i = 0; i < 8; i++)
        s[i].step = 10 * ((int64_t)i + 1);
    tc_train_info info;
    tc_train_info_init(&info);
    info.warmup_steps = 2;
    tc_training_figures f;
    tc_training_figures_compute(&info, s, 8, 0, &f);
    assert_int_equal(f.window_steps, 50);
    assert_near(f.step_ms.mean, 100, 1e-9);
    assert_near(f.steps_per_s, 10, 1e-9);
}

static void rates_summary_and_mfu(void **state)
{
    (void)state;
    double gaps[10] = {100, 100, 100, 100, 100, 100, 100, 100, 100, 100};
    tc_train_step s[10];
    steps_at(s, 10, gaps);
    for (size_t i = 0; i < 10; i++)
        s[i].tokens_per_s = i < 6 ? 1000 : 3000; /* the trainer's rate; no counts */
    s[3].peak_memory_bytes = 5;
    s[8].peak_memory_bytes = 9;
    tc_train_info info;
    tc_train_info_init(&info);
    info.train_samples_per_s = 12.5;
    info.params = 7e9;
    info.trainable_params = 4e7;
    tc_training_figures f;
    tc_training_figures_compute(&info, s, 10, 100, &f);
    /* warm-up 5 (at most half of 10): rates of records 6..9 */
    assert_int_equal(f.tokens_source, TC_TRAINING_RATE);
    assert_near(f.tokens_per_s, 3000, 1e-9);
    assert_int_equal(f.samples_source, TC_TRAINING_SUMMARY);
    assert_near(f.samples_per_s, 12.5, 0);
    assert_int_equal(f.peak_framework_bytes, 9);
    assert_true(f.lora);
    double per_token = 4 * (7e9 - 4e7) + 6 * 4e7;
    assert_near(f.flops_per_token, per_token, 1);
    assert_near(f.mfu, per_token * 3000 / 100e12, 1e-12);
    info.trainable_params = 0;
    tc_training_figures_compute(&info, s, 10, 100, &f);
    assert_false(f.lora);
    assert_near(f.flops_per_token, 6 * 7e9, 1);
}

static void energy_over_the_window(void **state)
{
    (void)state;
    double gaps[10] = {100, 100, 100, 100, 100, 100, 100, 100, 100, 100};
    tc_train_step s[10];
    steps_at(s, 10, gaps);
    for (size_t i = 0; i < 10; i++)
        s[i].samples = 4;
    tc_train_info info;
    tc_train_info_init(&info);
    tc_training_figures f;
    tc_training_figures_compute(&info, s, 10, 0, &f);
    /* a GPU at 200 W (an energy counter) from well before to well after */
    tc_run_device dev = {.info = {.kind = TC_TELEM_GPU}};
    tc_run_sample smp[40];
    for (int i = 0; i < 40; i++) {
        int64_t t = 900 * MS + (int64_t)i * 50 * MS;
        smp[i] = (tc_run_sample){.device = 0,
                                 .s = {.mono_ns = t,
                                       .valid = TC_TF_ENERGY | TC_TF_POWER | TC_TF_MEM_USED,
                                       .energy_uj = (uint64_t)(t / 1000) * 200,
                                       .power_mw = 200000,
                                       .mem_used_bytes = 1000 + i}};
    }
    tc_training_energy(&f, &dev, 1, smp, 40);
    /* window: records 5..9, 0.4 s at 200 W = 80 J over 4 steps of 4 samples */
    assert_near(f.energy_j, 80, 1e-6);
    assert_near(f.avg_power_w, 200, 1e-6);
    assert_near(f.joules_per_step, 20, 1e-6);
    assert_near(f.joules_per_1k_samples, 80 * 1000 / 16.0, 1e-6);
    assert_true(isnan(f.joules_per_mtok));
    assert_true(f.peak_device_mem_bytes > 1000);
}

static void gap_reading(void **state)
{
    (void)state;
    assert_string_equal(tc_training_gap_reading(1.15), "within 20%: acceptable");
    assert_string_equal(tc_training_gap_reading(1.35), "20-50% slower: needs tuning");
    assert_non_null(strstr(tc_training_gap_reading(1.8), "operator fallbacks"));
}

static void too_few_records(void **state)
{
    (void)state;
    double gaps[3] = {100, 100, 100};
    tc_train_step s[3];
    steps_at(s, 3, gaps);
    tc_train_info info;
    tc_train_info_init(&info);
    tc_training_figures f;
    tc_training_figures_compute(&info, s, 3, 0, &f);
    assert_int_equal(f.step_ms.n, 1); /* warm-up 1 of 3: one gap after it */
    tc_training_figures_compute(&info, s, 2, 0, &f);
    assert_int_equal(f.step_ms.n, 0); /* warm-up 1 of 2: no gap after it */
    assert_int_equal(f.step_ms.n, 0);
    assert_true(isnan(f.steps_per_s));
    tc_training_figures_compute(&info, NULL, 0, 0, &f);
    assert_int_equal(f.records, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(warmup_default_and_given), cmocka_unit_test(step_times_over_the_window),
        cmocka_unit_test(logging_every_k_steps),    cmocka_unit_test(rates_summary_and_mfu),
        cmocka_unit_test(energy_over_the_window),   cmocka_unit_test(gap_reading),
        cmocka_unit_test(too_few_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
