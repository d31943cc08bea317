/* Unit tests of the per-request service-level objectives and goodput
 * (analysis/slo), the steady-state window (analysis/run_window) and the
 * durations both read (core/tc_number), on hand-built runs worked out by
 * hand. Times in the records are ns; MS() converts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_assert.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/run_metrics.h"
#include "analysis/slo.h"
#include "core/tc_number.h"

#define MS(x) ((int64_t)(x)*1000000LL)

/* A completed request: sent at send_ms, n chunks every gap_ms from first_ms,
 * ended 1 ms after the last, one token a chunk. */
static void req(tc_req_record *r, int64_t seq, int64_t send_ms, int64_t first_ms, int n,
                int64_t gap_ms)
{
    tc_req_record_init(r);
    r->seq = seq;
    r->send_ns = MS(send_ms);
    for (int i = 0; i < n; i++)
        assert_int_equal(tc_req_record_add_chunk(r, MS(first_ms + i * gap_ms)), 0);
    r->end_ns = MS(first_ms + (n - 1) * gap_ms + 1);
    r->http_status = 200;
    r->output_tokens = n;
    r->output_source = TC_TOKENS_USAGE;
}

static void durations_need_a_unit(void **state)
{
    (void)state;
    double ms = -1;
    assert_int_equal(tc_parse_duration_ms("200ms", &ms), 0);
    assert_near(ms, 200, 0);
    assert_int_equal(tc_parse_duration_ms("1.5s", &ms), 0);
    assert_near(ms, 1500, 0);
    assert_int_equal(tc_parse_duration_ms("5m", &ms), 0);
    assert_near(ms, 300000, 0);
    assert_int_equal(tc_parse_duration_ms("24h", &ms), 0);
    assert_near(ms, 86400000, 0);
    const char *bad[] = {"200", "ms", "-5s", "5 s", "5sec", "", "1e400s", "0x10ms", "5mss"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ms = 7;
        if (tc_parse_duration_ms(bad[i], &ms) != -1 || ms != 7)
            fail_msg("'%s' was taken as %g ms", bad[i], ms);
    }
}

static void slo_presets_and_lists(void **state)
{
    (void)state;
    tc_slo s;
    char err[256] = "", text[TC_SLO_TEXT_MAX];
    assert_int_equal(tc_slo_parse("chat", &s, err, sizeof err), TC_OK);
    assert_true(s.has_ttft && s.has_tpot && !s.has_e2e);
    assert_near(s.ttft_ms, 200, 0);
    assert_near(s.tpot_ms, 50, 0);
    tc_slo_text(&s, text, sizeof text);
    assert_string_equal(text, "chat");
    assert_int_equal(tc_slo_parse("code", &s, err, sizeof err), TC_OK);
    assert_near(s.ttft_ms, 500, 0);
    assert_near(s.tpot_ms, 150, 0);
    assert_int_equal(tc_slo_parse("rag", &s, err, sizeof err), TC_OK);
    assert_true(!s.has_ttft && !s.has_tpot && s.has_e2e);
    assert_near(s.e2e_ms, 3000, 0);
    assert_int_equal(tc_slo_parse("ttft=0.25s,e2e=5s,tpot=40ms", &s, err, sizeof err), TC_OK);
    tc_slo_text(&s, text, sizeof text);
    assert_string_equal(text, "ttft=250ms,tpot=40ms,e2e=5s"); /* canonical, reads back */
    tc_slo again;
    assert_int_equal(tc_slo_parse(text, &again, err, sizeof err), TC_OK);
    assert_memory_equal(&again, &s, sizeof s);
}

static void slo_errors_name_the_item(void **state)
{
    (void)state;
    tc_slo s;
    char err[256];
    const struct {
        const char *text, *says;
    } cases[] = {
        {"ttft=200", "'ttft=200'"},
        {"ttfb=1s", "'ttfb=1s'"},
        {"ttft=0ms", "'ttft=0ms'"},
        {"", "preset (chat, code, rag)"},
        {"ttft=1s,ttft=2s", "ttft is given twice"},
        {"chatty", "'chatty'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        err[0] = '\0';
        assert_int_equal(tc_slo_parse(cases[i].text, &s, err, sizeof err), TC_ERR_INVALID);
        if (!strstr(err, cases[i].says))
            fail_msg("'%s': '%s' does not say '%s'", cases[i].text, err, cases[i].says);
    }
}

static void good_means_every_objective(void **state)
{
    (void)state;
    tc_slo s;
    char err[256];
    assert_int_equal(tc_slo_parse("ttft=100ms,tpot=20ms", &s, err, sizeof err), TC_OK);
    tc_req_record r;
    req(&r, 0, 0, 100, 11, 20); /* TTFT 100 ms, TPOT (301 - 100) / 10 = 20.1 ms */
    assert_int_equal(tc_slo_good(&s, &r), 0);
    tc_req_record_clear(&r);
    req(&r, 0, 0, 100, 11, 19); /* TPOT (291 - 100) / 10 = 19.1 ms */
    assert_int_equal(tc_slo_good(&s, &r), 1);
    r.error = TC_REQ_TIMEOUT; /* a failed request is never good */
    assert_int_equal(tc_slo_good(&s, &r), 0);
    tc_req_record_clear(&r);
    req(&r, 0, 0, 101, 1, 0); /* one token: no decode to judge, but TTFT 101 ms */
    assert_int_equal(tc_slo_good(&s, &r), 0);
    tc_req_record_clear(&r);
    req(&r, 0, 0, 50, 1, 0);
    assert_int_equal(tc_slo_good(&s, &r), 1);
    tc_req_record_clear(&r);
}

/* Concurrency 2, four measured requests:
 *   r0 send 0,  first token 10, end 71 (chunks 10..70 every 10)
 *   r1 send 0,  first token 20, end 81
 *   r2 send 71, first token 90, end 151
 *   r3 send 81, first token 95, end 156
 * Steady from 20 (both of the first two have a token) to 151 (the first of
 * the last two ends). Chunks inside [20, 151]: r0 20..70 (6), r1 20..80
 * (7), r2 90..150 (7), r3 95..145 (6) = 26 tokens over 0.131 s; ended
 * inside: r0 (71), r1 (81), r2 (151). */
static void build_window_run(tc_req_record r[5])
{
    req(&r[0], 0, 0, 10, 7, 10);
    req(&r[1], 1, 0, 20, 7, 10);
    req(&r[2], 2, 71, 90, 7, 10);
    req(&r[3], 3, 81, 95, 7, 10);
    req(&r[4], 4, 0, 1, 1, 1); /* a warm-up first in no window figure */
    r[4].warmup = 1;
}

static void steady_window_by_hand(void **state)
{
    (void)state;
    tc_req_record r[5];
    build_window_run(r);
    tc_run_info run = {.concurrency = 2};
    tc_run_metrics m;
    assert_int_equal(tc_run_metrics_compute(&run, r, 5, &m), TC_OK);
    const tc_steady *w = &m.window;
    assert_true(w->has_window);
    assert_int_equal(w->from, MS(20));
    assert_int_equal(w->to, MS(151));
    assert_near(w->output_tokens, 26, 1e-9);
    assert_int_equal(w->completed, 3);
    assert_near(w->output_tokens_per_s, 26 / 0.131, 1e-6);
    /* Requests by their share of chunks inside: 6/7 + 7/7 + 7/7 + 6/7, the
     * same requests as the tokens (7 each), not the 3 that ended inside. */
    assert_near(w->requests, 26.0 / 7, 1e-12);
    assert_near(w->requests_per_s, 26.0 / 7 / 0.131, 1e-6);
    assert_near(w->requests_per_s * 7, w->output_tokens_per_s, 1e-6);
    assert_near(tc_steady_share(w, &r[0]), 6.0 / 7, 1e-12);
    assert_near(tc_steady_share(w, &r[4]), 0, 0); /* outside the window entirely */
    /* The whole run, for comparison: 28 tokens over 0 -> 156 ms. */
    assert_near(m.output_tokens_per_s, 28 / 0.156, 1e-6);
    tc_run_metrics_free(&m);
    for (int i = 0; i < 5; i++)
        tc_req_record_clear(&r[i]);
}

static void no_steady_state_below_the_concurrency(void **state)
{
    (void)state;
    tc_req_record r[5];
    build_window_run(r);
    tc_run_info run = {.concurrency = 8}; /* never 8 in flight */
    tc_run_metrics m;
    assert_int_equal(tc_run_metrics_compute(&run, r, 5, &m), TC_OK);
    assert_false(m.window.has_window);
    tc_run_metrics_free(&m);
    run.concurrency = 2; /* two requests that never overlap a steady stretch */
    assert_int_equal(tc_run_metrics_compute(&run, r + 2, 1, &m), TC_OK);
    assert_false(m.window.has_window);
    tc_run_metrics_free(&m);
    for (int i = 0; i < 5; i++)
        tc_req_record_clear(&r[i]);
}

static void goodput_of_the_run_slo(void **state)
{
    (void)state;
    tc_req_record r[5];
    build_window_run(r);
    r[3].error = TC_REQ_SERVER; /* failed: measured, not good */
    tc_run_info run = {.concurrency = 2};
    snprintf(run.slo, sizeof run.slo, "ttft=15ms");
    tc_run_metrics m;
    assert_int_equal(tc_run_metrics_compute(&run, r, 5, &m), TC_OK);
    assert_true(m.has_slo);
    /* TTFT: r0 10 (good), r1 20, r2 19. */
    assert_int_equal(m.goodput.measured, 4);
    assert_int_equal(m.goodput.good, 1);
    assert_near(m.goodput.attainment, 0.25, 0);
    assert_near(m.goodput.requests_per_s, 1 / m.duration_s, 1e-9);
    assert_near(m.goodput.output_tokens_per_s, 7 / m.duration_s, 1e-9);
    /* In the window, r0's share (6/7) over the window's 0.131 s, never
     * above the window's requests/s: r0, r1, r2 (the failed r3 has no
     * share), 6/7 + 1 + 1. */
    assert_true(m.goodput.has_window);
    assert_near(m.window.requests, 6.0 / 7 + 2, 1e-12);
    assert_near(m.goodput.window_requests_per_s, 6.0 / 7 / 0.131, 1e-6);
    assert_near(m.goodput.window_output_tokens_per_s, 6 / 0.131, 1e-6);
    assert_true(m.goodput.window_requests_per_s <= m.window.requests_per_s);
    tc_run_metrics_free(&m);
    /* Every request good: goodput is the window's requests/s exactly. */
    r[3].error = TC_REQ_OK;
    snprintf(run.slo, sizeof run.slo, "ttft=1s");
    assert_int_equal(tc_run_metrics_compute(&run, r, 5, &m), TC_OK);
    assert_near(m.goodput.window_requests_per_s, m.window.requests_per_s, 1e-9);
    assert_near(m.goodput.window_output_tokens_per_s, m.window.output_tokens_per_s, 1e-9);
    tc_run_metrics_free(&m);
    run.slo[0] = '\0';
    assert_int_equal(tc_run_metrics_compute(&run, r, 5, &m), TC_OK);
    assert_false(m.has_slo);
    tc_run_metrics_free(&m);
    for (int i = 0; i < 5; i++)
        tc_req_record_clear(&r[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(durations_need_a_unit),
        cmocka_unit_test(slo_presets_and_lists),
        cmocka_unit_test(slo_errors_name_the_item),
        cmocka_unit_test(good_means_every_objective),
        cmocka_unit_test(steady_window_by_hand),
        cmocka_unit_test(no_steady_state_below_the_concurrency),
        cmocka_unit_test(goodput_of_the_run_slo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
