/* Unit tests of a run's energy figures and of the telemetry sampler. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>
#include <time.h>

#include "analysis/run_energy.h"
#include "telemetry/telem_sampler.h"

#define MS(x) ((int64_t)(x)*1000000)

static void near(double a, double b)
{
    if (fabs(a - b) > 1e-9 * (fabs(b) + 1))
        fail_msg("%.12g != %.12g", a, b);
}

static void measured_window_idle_baseline_and_j_per_token(void **state)
{
    (void)state;
    tc_run_device dev = {.info = {.kind = TC_TELEM_GPU, .name = "G"}, .backend = "nvml"};
    /* idle: 50 W before the first request (the warm-up at 1000 ms); the
     * measured window is 2000..4000 ms, at 300 W on the counter. */
    tc_run_sample s[6];
    const int64_t t[6] = {0, 500, 2000, 3000, 4000, 5000};
    const uint64_t uj[6] = {0, 25000000, 100000000, 400000000, 700000000, 750000000};
    const int64_t mw[6] = {50000, 50000, 300000, 300000, 300000, 50000};
    for (int i = 0; i < 6; i++)
        s[i] = (tc_run_sample){0,
                               {.mono_ns = MS(t[i]),
                                .valid = TC_TF_ENERGY | TC_TF_POWER,
                                .energy_uj = uj[i],
                                .power_mw = mw[i]}};
    tc_req_record r[2];
    memset(r, 0, sizeof r);
    r[0].warmup = 1;
    r[0].send_ns = MS(1000);
    r[0].end_ns = MS(1900);
    r[1].send_ns = MS(2000);
    r[1].end_ns = MS(4000);
    tc_run_energy e;
    assert_int_equal(tc_run_energy_compute(&dev, 1, s, 6, r, 2, 1200, &e), TC_OK);
    assert_int_equal(e.n, 1);
    assert_int_equal(e.dev[0].load.method, TC_ENERGY_COUNTER);
    near(e.dev[0].load.energy_j, 600.0); /* 100 J at 2000 ms -> 700 J at 4000 ms */
    near(e.dev[0].load.avg_power_w, 300.0);
    assert_true(e.dev[0].has_idle);
    near(e.dev[0].idle_power_w, 50.0);
    near(e.dev[0].joules_per_output_token, 0.5);
    near(e.joules_per_output_token, 0.5);
    near(e.tokens_per_joule, 2.0);
    tc_run_energy_free(&e);

    assert_int_equal(tc_run_energy_compute(NULL, 0, NULL, 0, r, 2, 10, &e), TC_OK);
    assert_int_equal(e.n, 0); /* no telemetry: "not available", not 0 J */
    assert_false(e.has_total);
    tc_run_energy_free(&e);
    tc_run_energy_free(NULL);
}

/* The default --idle-s 0: one sample before the load, the next well into
 * it. The interval that straddles the first send is load, not idle. */
static void idle_is_not_taken_from_the_interval_the_load_starts_in(void **state)
{
    (void)state;
    tc_run_device dev = {.info = {.kind = TC_TELEM_GPU, .name = "G"}, .backend = "rapl"};
    /* 20 W until 95 ms, then 200 W; the first request is sent at 100 ms */
    tc_run_sample s[4];
    const int64_t t[4] = {0, 90, 190, 290};
    const uint64_t uj[4] = {0, 1800000, 21800000, 41800000};
    const int64_t mw[4] = {20000, 20000, 200000, 200000};
    for (int i = 0; i < 4; i++)
        s[i] = (tc_run_sample){0,
                               {.mono_ns = MS(t[i]),
                                .valid = TC_TF_ENERGY | TC_TF_POWER,
                                .energy_uj = uj[i],
                                .power_mw = mw[i]}};
    tc_req_record r[1];
    memset(r, 0, sizeof r);
    r[0].send_ns = MS(100);
    r[0].end_ns = MS(290);
    tc_run_energy e;
    assert_int_equal(tc_run_energy_compute(&dev, 1, s, 4, r, 1, 100, &e), TC_OK);
    assert_true(e.dev[0].has_idle);
    near(e.dev[0].idle_power_w, 20.0); /* from 0..90 ms only */
    tc_run_energy_free(&e);

    /* a single sample before the load: its own power reading */
    assert_int_equal(tc_run_energy_compute(&dev, 1, s + 1, 3, r, 1, 100, &e), TC_OK);
    assert_true(e.dev[0].has_idle);
    near(e.dev[0].idle_power_w, 20.0);
    tc_run_energy_free(&e);

    /* none before it: not available, never the load's power */
    r[0].send_ns = MS(95);
    assert_int_equal(tc_run_energy_compute(&dev, 1, s + 2, 2, r, 1, 100, &e), TC_OK);
    assert_false(e.dev[0].has_idle);
    tc_run_energy_free(&e);
}

/* The tokens are the whole window's, so J/token uses the window's energy
 * even where the last sample came before the last request ended. */
static void j_per_token_covers_the_whole_window(void **state)
{
    (void)state;
    tc_run_device dev = {.info = {.kind = TC_TELEM_GPU, .name = "G"}, .backend = "rapl"};
    tc_run_sample s[3];
    const int64_t t[3] = {0, 1000, 1900}; /* the window ends at 2000 ms */
    for (int i = 0; i < 3; i++)
        s[i] = (tc_run_sample){
            0, {.mono_ns = MS(t[i]), .valid = TC_TF_ENERGY, .energy_uj = (uint64_t)t[i] * 100000}};
    tc_req_record r[1];
    memset(r, 0, sizeof r);
    r[0].send_ns = MS(0);
    r[0].end_ns = MS(2000);
    tc_run_energy e;
    assert_int_equal(tc_run_energy_compute(&dev, 1, s, 3, r, 1, 160, &e), TC_OK);
    near(e.dev[0].load.coverage, 0.95);
    near(e.dev[0].load.avg_power_w, 100.0);
    near(e.dev[0].load.energy_j, 200.0); /* 100 W x 2 s, not the 190 J sampled */
    near(e.dev[0].joules_per_output_token, 1.25);
    near(e.joules_per_output_token, 1.25);
    tc_run_energy_free(&e);
}

static void sampler_reads_every_device_at_its_interval(void **state)
{
    (void)state;
    tc_telem_config cfg = {.sysfs_root = TC_FIXTURES_DIR "/sysfs/rapl-two-packages",
                           .nvml_lib = "/nonexistent/libnvidia-ml.so.1"};
    tc_telem_set *set;
    char notes[1024], err[256];
    assert_int_equal(tc_telem_set_open("rapl", &cfg, &set, notes, sizeof notes, err, sizeof err),
                     TC_OK);
    assert_int_equal(tc_telem_set_count(set), 2);
    tc_telem_sampler *sm;
    assert_int_equal(tc_telem_sampler_start(set, 10, &sm), TC_OK);
    struct timespec ts = {0, 120 * 1000 * 1000};
    nanosleep(&ts, NULL);
    tc_telem_sampler_stop(sm);
    tc_run_sample out[256];
    size_t n = tc_telem_sampler_drain(sm, out, 256);
    tc_sampler_stats st;
    tc_telem_sampler_stats(sm, &st);
    /* 120 ms at 10 ms: never more than 13 rounds (no catch-up bursts), at
     * least 2 even on a loaded machine. */
    assert_true(st.ticks >= 2 && st.ticks <= 13);
    assert_int_equal(n, st.ticks * 2); /* both packages every round */
    assert_int_equal(st.dropped, 0);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(out[i].device, (int)(i % 2));
        assert_true(out[i].s.valid & TC_TF_ENERGY);
        if (i >= 2) /* in time order; spacing is not asserted: the machine may be busy */
            assert_true(out[i].s.mono_ns >= out[i - 2].s.mono_ns);
    }
    assert_int_equal(tc_telem_sampler_drain(sm, out, 256), 0);
    tc_telem_sampler_free(sm);
    tc_telem_sampler_free(NULL);
    tc_telem_set_close(set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(measured_window_idle_baseline_and_j_per_token),
        cmocka_unit_test(idle_is_not_taken_from_the_interval_the_load_starts_in),
        cmocka_unit_test(j_per_token_covers_the_whole_window),
        cmocka_unit_test(sampler_reads_every_device_at_its_interval),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
