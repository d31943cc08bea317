/* Unit tests of analysis/run_metrics: the figures of hand-built runs,
 * worked out by hand. Times in the records are ns; MS() converts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_assert.h"

#include <math.h>
#include <string.h>

#include "analysis/run_metrics.h"

#define MS(x) ((int64_t)(x)*1000000LL)
#define EPS 1e-9

/* cmocka's assert_float_equal works in float; these figures need double. */
/* A request sent at send_ms whose text chunks arrived at chunk_ms[] and
 * which ended at end_ms, all in ms since an arbitrary origin. */
static void req(tc_req_record *r, int64_t seq, int64_t send_ms, const int64_t *chunk_ms, size_t nc,
                int64_t end_ms, int64_t out, tc_token_source src, int64_t prompt)
{
    tc_req_record_init(r);
    r->seq = seq;
    r->send_ns = MS(send_ms);
    r->end_ns = MS(end_ms);
    r->http_status = 200;
    for (size_t i = 0; i < nc; i++)
        assert_int_equal(tc_req_record_add_chunk(r, MS(chunk_ms[i])), 0);
    r->output_tokens = out;
    r->output_source = src;
    r->prompt_tokens = prompt;
    r->prompt_source = prompt ? src : TC_TOKENS_NONE;
}

static void clear_all(tc_req_record *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tc_req_record_clear(&r[i]);
}

/* The run of the header comment in each check:
 *   r0 warm-up, absurd figures that must not leak into any figure;
 *   r1 ok: send 100, chunks 110 120 140, end 150, 4 tokens, prompt 10;
 *   r2 ok: send 120, chunks 140 145, end 160, 2 tokens, prompt 6;
 *   r3 disconnect: send 130, chunk 135, end 300 (the last completion);
 *   r4 HTTP 500: send 200, no chunk, end 201. */
static void build_main_run(tc_req_record r[5])
{
    const int64_t c0[] = {5000}, c1[] = {110, 120, 140}, c2[] = {140, 145}, c3[] = {135};
    req(&r[0], 0, 0, c0, 1, 9000, 500, TC_TOKENS_CHUNKS, 99);
    r[0].warmup = 1;
    req(&r[1], 1, 100, c1, 3, 150, 4, TC_TOKENS_USAGE, 10);
    req(&r[2], 2, 120, c2, 2, 160, 2, TC_TOKENS_USAGE, 6);
    req(&r[3], 3, 130, c3, 1, 300, 1, TC_TOKENS_CHUNKS, 0);
    r[3].error = TC_REQ_DISCONNECT;
    req(&r[4], 4, 200, NULL, 0, 201, 0, TC_TOKENS_NONE, 0);
    r[4].error = TC_REQ_HTTP;
    r[4].http_status = 500;
}

static void counts_and_errors(void **state)
{
    (void)state;
    tc_req_record r[5];
    tc_run_metrics m;
    build_main_run(r);
    assert_int_equal(tc_run_metrics_compute(NULL, r, 5, &m), TC_OK);
    assert_int_equal(m.requests.measured, 4);
    assert_int_equal(m.requests.completed, 2);
    assert_int_equal(m.requests.failed, 2);
    assert_int_equal(m.requests.warmup, 1);
    assert_true(tc_run_metrics_error_rate(&m) == 0.5); /* 2 of 4 measured */
    assert_int_equal(m.errors[TC_REQ_DISCONNECT], 1);
    assert_int_equal(m.errors[TC_REQ_HTTP], 1);
    assert_int_equal(m.errors[TC_REQ_OK], 0);
    assert_int_equal(m.errors[TC_REQ_TIMEOUT], 0);
    assert_int_equal(m.simulated, 0);
    tc_run_metrics_free(&m);
    clear_all(r, 5);
}

static void latency_excludes_warmup_and_failed(void **state)
{
    (void)state;
    tc_req_record r[5];
    tc_run_metrics m;
    build_main_run(r);
    assert_int_equal(tc_run_metrics_compute(NULL, r, 5, &m), TC_OK);
    /* TTFT: r1 10, r2 20. */
    assert_int_equal(m.ttft_ms.n, 2);
    assert_near(m.ttft_ms.mean, 15, EPS);
    assert_near(m.ttft_ms.min, 10, EPS);
    assert_near(m.ttft_ms.max, 20, EPS);
    /* E2E: r1 50, r2 40. */
    assert_int_equal(m.e2e_ms.n, 2);
    assert_near(m.e2e_ms.p50, 45, EPS);
    assert_near(m.e2e_ms.min, 40, EPS);
    /* TPOT: r1 (50 - 10) / 3, r2 (40 - 20) / 1. */
    assert_int_equal(m.tpot_ms.n, 2);
    assert_near(m.tpot_ms.min, 40.0 / 3.0, EPS);
    assert_near(m.tpot_ms.max, 20, EPS);
    /* Client decode: r1 3 / 0.040 s, r2 1 / 0.020 s. */
    assert_int_equal(m.decode_tps.n, 2);
    assert_near(m.decode_tps.min, 50, 1e-6);
    assert_near(m.decode_tps.max, 75, 1e-6);
    assert_near(m.decode_tps.mean, 62.5, 1e-6);
    tc_run_metrics_free(&m);
    clear_all(r, 5);
}

static void itl_pools_every_gap(void **state)
{
    (void)state;
    tc_req_record r[5];
    tc_run_metrics m;
    build_main_run(r);
    assert_int_equal(tc_run_metrics_compute(NULL, r, 5, &m), TC_OK);
    /* r1 gaps 10, 20; r2 gap 5; nothing from r0 (warm-up) or r3 (failed). */
    assert_int_equal(m.itl_ms.n, 3);
    assert_near(m.itl_ms.min, 5, EPS);
    assert_near(m.itl_ms.max, 20, EPS);
    assert_near(m.itl_ms.mean, 35.0 / 3.0, EPS);
    assert_near(m.itl_ms.p50, 10, EPS);
    assert_near(m.itl_ms.p90, 18, EPS); /* h = 1.8: 10 + 0.8 * 10 */
    tc_run_metrics_free(&m);
    clear_all(r, 5);
}

static void duration_and_throughput_exact(void **state)
{
    (void)state;
    tc_req_record r[5];
    tc_run_metrics m;
    build_main_run(r);
    assert_int_equal(tc_run_metrics_compute(NULL, r, 5, &m), TC_OK);
    /* First measured send 100 ms -> last completion 300 ms (the failed r3);
     * the warm-up's send at 0 and end at 9000 do not count. */
    assert_true(m.has_duration);
    assert_near(m.duration_s, 0.2, EPS);
    assert_near(m.requests_per_s, 10, 1e-9);      /* 2 / 0.2 */
    assert_int_equal(m.output_tokens, 6);         /* 4 + 2 */
    assert_int_equal(m.prompt_tokens, 16);        /* 10 + 6 */
    assert_near(m.output_tokens_per_s, 30, 1e-9); /* 6 / 0.2 */
    assert_near(m.total_tokens_per_s, 110, 1e-9); /* 22 / 0.2 */
    assert_true(m.has_prompt_tokens); /* the failed r3 has no count: it does not matter */
    assert_int_equal(m.prompt_missing, 0);
    assert_string_equal(tc_run_metrics_token_source(&m), "usage");
    assert_string_equal(tc_run_metrics_token_source_text(&m), "server usage");
    assert_false(m.has_server_decode);
    assert_int_equal(m.server_decode_tps.n, 0);
    tc_run_metrics_free(&m);
    clear_all(r, 5);
}

static void token_source_agree_and_mixed(void **state)
{
    (void)state;
    const int64_t c[] = {10, 20};
    tc_req_record r[3];
    tc_run_metrics m;
    req(&r[0], 0, 0, c, 2, 30, 2, TC_TOKENS_SERVER, 5);
    req(&r[1], 1, 0, c, 2, 30, 2, TC_TOKENS_SERVER, 5);
    req(&r[2], 2, 0, c, 2, 30, 2, TC_TOKENS_CHUNKS, 0);
    r[2].error = TC_REQ_TIMEOUT; /* a failed request's source does not count */
    assert_int_equal(tc_run_metrics_compute(NULL, r, 3, &m), TC_OK);
    assert_string_equal(tc_run_metrics_token_source(&m), "server");
    assert_string_equal(tc_run_metrics_token_source_text(&m), "server count");
    tc_run_metrics_free(&m);

    r[2].error = TC_REQ_OK;
    assert_int_equal(tc_run_metrics_compute(NULL, r, 3, &m), TC_OK);
    assert_true(m.token_source_mixed);
    assert_string_equal(tc_run_metrics_token_source(&m), "mixed");
    assert_string_equal(tc_run_metrics_token_source_text(&m), "mixed");
    tc_run_metrics_free(&m);

    r[0].output_source = r[1].output_source = TC_TOKENS_CHUNKS;
    assert_int_equal(tc_run_metrics_compute(NULL, r, 3, &m), TC_OK);
    assert_string_equal(tc_run_metrics_token_source(&m), "chunks");
    assert_string_equal(tc_run_metrics_token_source_text(&m), "chunk count");
    tc_run_metrics_free(&m);
    clear_all(r, 3);
}

/* A server that gives no prompt count for some requests (older Ollama on a
 * cached prompt): the prompt total and total tokens/s are not available,
 * never the partial sum; warm-up and failed requests do not count. */
static void prompt_total_unknown_when_a_count_is_missing(void **state)
{
    (void)state;
    const int64_t c[] = {10, 20};
    tc_req_record r[5];
    tc_run_metrics m;
    req(&r[0], 0, 0, c, 2, 30, 2, TC_TOKENS_SERVER, 0); /* warm-up, no count */
    r[0].warmup = 1;
    req(&r[1], 1, 0, c, 2, 50, 2, TC_TOKENS_SERVER, 5);
    req(&r[2], 2, 0, c, 2, 50, 2, TC_TOKENS_SERVER, 7);
    req(&r[3], 3, 0, c, 2, 50, 2, TC_TOKENS_SERVER, 0); /* failed, no count */
    r[3].error = TC_REQ_TIMEOUT;
    req(&r[4], 4, 0, c, 2, 50, 2, TC_TOKENS_SERVER, 9);
    assert_int_equal(tc_run_metrics_compute(NULL, r, 5, &m), TC_OK);
    assert_true(m.has_prompt_tokens);
    assert_int_equal(m.prompt_missing, 0);
    assert_int_equal(m.prompt_tokens, 21);
    assert_near(m.total_tokens_per_s, 27 / 0.05, 1e-6); /* (6 + 21) / 50 ms */
    assert_string_equal(tc_run_metrics_prompt_source(&m), "server");
    tc_run_metrics_free(&m);

    /* One completed request without a count: no total, not 5 + 7. */
    r[4].prompt_source = TC_TOKENS_NONE;
    r[4].prompt_tokens = 0;
    assert_int_equal(tc_run_metrics_compute(NULL, r, 5, &m), TC_OK);
    assert_false(m.has_prompt_tokens);
    assert_int_equal(m.prompt_missing, 1);
    assert_int_equal(m.prompt_tokens, 0);
    assert_true(m.has_duration);
    assert_near(m.output_tokens_per_s, 6 / 0.05, 1e-6); /* still there */
    assert_true(isnan(m.total_tokens_per_s));
    assert_string_equal(tc_run_metrics_prompt_source(&m), "mixed");
    assert_string_equal(tc_run_metrics_token_source(&m), "server"); /* output unaffected */
    tc_run_metrics_free(&m);

    /* None at all. */
    r[1].prompt_source = r[2].prompt_source = TC_TOKENS_NONE;
    assert_int_equal(tc_run_metrics_compute(NULL, r, 5, &m), TC_OK);
    assert_false(m.has_prompt_tokens);
    assert_int_equal(m.prompt_missing, 3);
    assert_true(isnan(m.total_tokens_per_s));
    assert_string_equal(tc_run_metrics_prompt_source(&m), "none");
    tc_run_metrics_free(&m);

    /* No completed request: an empty sum, no source. */
    assert_int_equal(tc_run_metrics_compute(NULL, NULL, 0, &m), TC_OK);
    assert_true(m.has_prompt_tokens);
    assert_null(tc_run_metrics_prompt_source(&m));
    tc_run_metrics_free(&m);
    clear_all(r, 5);
}

/* Ollama: eval_count / eval_duration * 1e9; llama.cpp: predicted_per_second;
 * Ollama first when both are there; failed and zero-duration skipped. */
static void server_decode_from_reports(void **state)
{
    (void)state;
    const int64_t c[] = {10, 20};
    tc_req_record r[5];
    tc_run_metrics m;
    for (int i = 0; i < 5; i++)
        req(&r[i], i, 0, c, 2, 30, 2, TC_TOKENS_SERVER, 5);
    r[0].server.has_ollama = 1;
    r[0].server.eval_count = 40;
    r[0].server.eval_ns = 500000000; /* 80 tokens/s */
    r[1].server.has_timings = 1;
    r[1].server.predicted_n = 6;
    r[1].server.predicted_ms = 100;
    r[1].server.predicted_per_second = 60;
    r[2].server.has_ollama = 1; /* eval_duration 0: skipped, as the script does */
    r[2].server.eval_count = 3;
    r[3].server.has_ollama = 1; /* both: Ollama's figure, 100 tokens/s */
    r[3].server.eval_count = 10;
    r[3].server.eval_ns = 100000000;
    r[3].server.has_timings = 1;
    r[3].server.predicted_ms = 10;
    r[3].server.predicted_per_second = 1e6;
    r[4].server = r[0].server; /* failed: left out */
    r[4].server.eval_count = 1;
    r[4].error = TC_REQ_SERVER;
    assert_int_equal(tc_run_metrics_compute(NULL, r, 5, &m), TC_OK);
    assert_true(m.has_server_decode);
    assert_int_equal(m.server_decode_tps.n, 3);
    assert_near(m.server_decode_tps.mean, 80, 1e-9); /* (80 + 60 + 100) / 3 */
    assert_near(m.server_decode_tps.p50, 80, 1e-9);
    assert_near(m.server_decode_tps.min, 60, 1e-9);
    assert_near(m.server_decode_tps.max, 100, 1e-9);
    assert_int_equal(m.errors[TC_REQ_SERVER], 1);
    tc_run_metrics_free(&m);
    clear_all(r, 5);
}

static void nothing_measured(void **state)
{
    (void)state;
    tc_run_metrics m;
    tc_run_info run = {.simulated = 1};
    assert_int_equal(tc_run_metrics_compute(&run, NULL, 0, &m), TC_OK);
    assert_int_equal(m.simulated, 1);
    assert_int_equal(m.requests.measured, 0);
    assert_true(tc_run_metrics_error_rate(&m) == 0); /* nothing measured, nothing failed */
    assert_false(m.has_duration);
    assert_int_equal(m.ttft_ms.n, 0);
    assert_int_equal(m.itl_ms.n, 0);
    assert_false(m.has_server_decode);
    assert_null(tc_run_metrics_token_source(&m));
    assert_string_equal(tc_run_metrics_token_source_text(&m), "unknown");
    tc_run_metrics_free(&m);

    /* Warm-up only: counted, and nothing else. */
    const int64_t c[] = {10, 20};
    tc_req_record r;
    req(&r, 0, 0, c, 2, 30, 2, TC_TOKENS_USAGE, 5);
    r.warmup = 1;
    assert_int_equal(tc_run_metrics_compute(&run, &r, 1, &m), TC_OK);
    assert_int_equal(m.requests.warmup, 1);
    assert_int_equal(m.requests.measured, 0);
    assert_int_equal(m.output_tokens, 0);
    assert_false(m.has_duration);
    tc_run_metrics_free(&m);
    tc_req_record_clear(&r);
}

/* One token: TTFT and E2E, but no TPOT and no decode speed. */
static void single_token_has_no_tpot(void **state)
{
    (void)state;
    const int64_t c[] = {10};
    tc_req_record r;
    tc_run_metrics m;
    req(&r, 0, 0, c, 1, 12, 1, TC_TOKENS_USAGE, 3);
    assert_int_equal(tc_run_metrics_compute(NULL, &r, 1, &m), TC_OK);
    assert_int_equal(m.ttft_ms.n, 1);
    assert_int_equal(m.e2e_ms.n, 1);
    assert_int_equal(m.tpot_ms.n, 0);
    assert_int_equal(m.itl_ms.n, 0);
    assert_int_equal(m.decode_tps.n, 0);
    tc_run_metrics_free(&m);
    tc_req_record_clear(&r);
}

static void invalid_arguments(void **state)
{
    (void)state;
    tc_run_metrics m;
    assert_int_equal(tc_run_metrics_compute(NULL, NULL, 3, &m), TC_ERR_INVALID);
    assert_int_equal(tc_run_metrics_compute(NULL, NULL, 0, NULL), TC_ERR_INVALID);
    tc_run_metrics_free(NULL);
}

/* An open loop: TTFT, E2E and the duration count from the intended time;
 * the lag is summarised for every measured request, failed ones too; a
 * closed loop's figures have no lag. */
static void open_loop_counts_from_the_schedule(void **state)
{
    (void)state;
    tc_req_record r[4];
    const int64_t c1[] = {110, 120}, c2[] = {130, 140}, c3[] = {150};
    req(&r[0], 0, 10, c1, 1, 20, 1, TC_TOKENS_USAGE, 5); /* warm-up, on time */
    r[0].warmup = 1;
    req(&r[1], 1, 100, c1, 2, 125, 2, TC_TOKENS_USAGE, 5); /* on time */
    r[1].sched_ns = MS(100);
    req(&r[2], 2, 105, c2, 2, 145, 2, TC_TOKENS_USAGE, 5); /* due at 101: 4 ms late */
    r[2].sched_ns = MS(101);
    req(&r[3], 3, 112, c3, 1, 160, 1, TC_TOKENS_USAGE, 5); /* due at 110: 2 ms late, failed */
    r[3].sched_ns = MS(110);
    r[3].error = TC_REQ_DISCONNECT;
    tc_run_info run = {.arrival = TC_ARRIVAL_POISSON, .rate = 100};
    tc_run_metrics m;
    assert_int_equal(tc_run_metrics_compute(&run, r, 4, &m), TC_OK);
    assert_true(m.open_loop);
    assert_int_equal(m.schedule_lag_ms.n, 3);
    assert_near(m.schedule_lag_ms.min, 0, EPS);
    assert_near(m.schedule_lag_ms.p50, 2, EPS);
    assert_near(m.schedule_lag_ms.max, 4, EPS);
    assert_near(m.ttft_ms.min, 10, EPS);     /* 110 - 100 */
    assert_near(m.ttft_ms.max, 29, EPS);     /* 130 - 101, not 130 - 105 */
    assert_near(m.e2e_ms.max, 44, EPS);      /* 145 - 101 */
    assert_near(m.duration_s, 0.060, EPS);   /* 100 -> 160 */
    assert_true(tc_run_metrics_lagging(&m)); /* p99 about 4 ms */
    tc_run_metrics_free(&m);

    r[2].sched_ns = MS(105) - 500000; /* every lag within 1 ms... */
    r[3].sched_ns = MS(112) - 999000;
    assert_int_equal(tc_run_metrics_compute(&run, r, 4, &m), TC_OK);
    assert_false(tc_run_metrics_lagging(&m)); /* ...no warning */
    tc_run_metrics_free(&m);

    tc_run_info closed = {0};
    assert_int_equal(tc_run_metrics_compute(&closed, r, 4, &m), TC_OK);
    assert_false(m.open_loop);
    assert_int_equal(m.schedule_lag_ms.n, 0);
    assert_false(tc_run_metrics_lagging(&m));
    tc_run_metrics_free(&m);
    clear_all(r, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(counts_and_errors),
        cmocka_unit_test(latency_excludes_warmup_and_failed),
        cmocka_unit_test(itl_pools_every_gap),
        cmocka_unit_test(duration_and_throughput_exact),
        cmocka_unit_test(token_source_agree_and_mixed),
        cmocka_unit_test(prompt_total_unknown_when_a_count_is_missing),
        cmocka_unit_test(server_decode_from_reports),
        cmocka_unit_test(nothing_measured),
        cmocka_unit_test(single_token_has_no_tpot),
        cmocka_unit_test(invalid_arguments),
        cmocka_unit_test(open_loop_counts_from_the_schedule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
