/* measure/measure_args.c: run's and sweep's option rules judged without a
 * process — what each refuses (and the message naming the fix), the
 * defaults one option gives another, and a shard's share of the load. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/measure_args.h"
#include "test_assert.h"

#define NOW INT64_C(1764676800000000000) /* 2025-12-02T12:00:00Z */

static tc_measure_args base(void)
{
    tc_measure_args a;
    tc_measure_args_defaults(&a);
    a.url = "http://127.0.0.1:1";
    return a;
}

/* Settles a; returns the message ("" when TC_OK). */
static const char *settle(tc_measure_args *a)
{
    static char err[512];
    err[0] = '\0';
    tc_err rc = tc_measure_args_settle(a, NOW, err, sizeof err);
    assert_int_equal(rc == TC_OK, err[0] == '\0');
    return err;
}

static void defaults_are_the_seeds_recipe(void **state)
{
    (void)state;
    tc_measure_args a = base();
    assert_string_equal(settle(&a), "");
    assert_int_equal(a.requests, 20);
    assert_int_equal(a.warmup, 1);
    assert_int_equal(a.max_tokens, 128);
    assert_int_equal(a.concurrency, 1); /* a closed loop of one */
    assert_int_equal(a.arrival_kind, TC_ARRIVAL_CLOSED);
    assert_string_equal(a.telemetry, "auto");
}

static void open_loop_options_name_what_they_need(void **state)
{
    (void)state;
    tc_measure_args a = base();
    a.arrival = "gamma";
    assert_non_null(strstr(settle(&a), "--arrival needs --rate"));
    a = base();
    a.rate = 10;
    a.concurrency = 4;
    assert_non_null(strstr(settle(&a), "with --rate, cap them with --max-concurrency"));
    a = base();
    a.rate = 10;
    a.burstiness = 2;
    assert_non_null(strstr(settle(&a), "give --arrival gamma too"));
    a = base();
    a.rate = 10;
    a.arrival = "gamma";
    assert_string_equal(settle(&a), "");
    assert_int_equal(a.arrival_kind, TC_ARRIVAL_GAMMA);
    assert_near(a.burstiness, 1, 0); /* vLLM's default: Poisson */
    a = base();
    a.rate = 10;
    a.arrival = "bursty";
    assert_non_null(strstr(settle(&a), "--arrival 'bursty': expected poisson, constant or gamma"));
}

static void workload_shape_and_its_pairs(void **state)
{
    (void)state;
    tc_measure_args a = base();
    a.isl = 512;
    assert_string_equal(settle(&a), "");
    assert_int_equal(a.osl, 128); /* --isl alone: the usual token limit */
    assert_int_equal(a.max_tokens, 128);
    a = base();
    a.osl = 64;
    a.osl_given = 1;
    assert_non_null(strstr(settle(&a), "--osl sets the output length of synthetic prompts"));
    a = base();
    a.isl = 100;
    a.prompt = "hello";
    assert_non_null(strstr(settle(&a), "give --isl or --prompt, not both"));
    a = base();
    a.isl = 100;
    a.osl = 10;
    a.osl_given = a.max_tokens_given = 1;
    assert_non_null(strstr(settle(&a), "give --osl or --max-tokens, not both"));
    a = base();
    a.requests_given = 1;
    a.duration_s = 5;
    assert_string_equal(settle(&a), "give -n or --duration, not both");
}

/* Shares by hand: 10 requests over 3 shards are 4, 3, 3; 5 in flight 2, 2, 1. */
static void a_shard_takes_its_share(void **state)
{
    (void)state;
    static const long long requests[] = {4, 3, 3}, inflight[] = {2, 2, 1};
    for (int i = 1; i <= 3; i++) {
        tc_measure_args a = base();
        char shard[8];
        snprintf(shard, sizeof shard, "%d/3", i);
        a.shard_text = shard;
        a.label = "fleet-a";
        a.requests = 10;
        a.concurrency = 5;
        assert_string_equal(settle(&a), "");
        assert_int_equal(a.shard_i, i);
        assert_int_equal(a.shard_n, 3);
        assert_int_equal(a.requests, requests[i - 1]);
        assert_int_equal(a.concurrency, inflight[i - 1]);
    }
    /* The open loop: the rate split, each shard its own seed. */
    tc_measure_args a = base();
    a.shard_text = "2/4";
    a.label = "fleet-a";
    a.rate = 20;
    a.seed = 7;
    assert_string_equal(settle(&a), "");
    assert_near(a.rate, 5, 0);
    assert_int_equal(a.seed, 8);
    a = base();
    a.shard_text = "2/4";
    assert_non_null(strstr(settle(&a), "--shard needs --label"));
    a = base();
    a.shard_text = "5/4";
    a.label = "x";
    assert_non_null(strstr(settle(&a), "expected I/N with 1 <= I <= N"));
    a = base();
    a.shard_text = "1/4";
    a.label = "x";
    a.requests = 3;
    a.concurrency = 4;
    assert_non_null(strstr(settle(&a), "too small to split 4 ways"));
    a = base();
    a.start_text = "+10";
    assert_string_equal(settle(&a), "");
    assert_true(a.start_at_wall_ns == NOW + INT64_C(10000000000));
}

static void labels_apis_and_telemetry(void **state)
{
    (void)state;
    tc_measure_args a = base();
    a.label = "123";
    assert_non_null(strstr(settle(&a), "a label cannot be all digits"));
    a = base();
    a.label = "";
    assert_non_null(strstr(settle(&a), "--label: empty"));
    a = base();
    a.api = "grpc";
    assert_non_null(strstr(settle(&a), "--api 'grpc': expected auto, "));
    a = base();
    a.telemetry = "thermometer";
    assert_non_null(strstr(settle(&a), "--telemetry 'thermometer': expected auto, none or"));
    a = base();
    a.telemetry_urls[0] = "http://127.0.0.1:9/metrics";
    a.n_telemetry_urls = 1;
    assert_string_equal(settle(&a), "");
    assert_string_equal(a.telemetry, "none"); /* the box's sensors, not this client's */
    a = base();
    a.telemetry_token_env = "TC_TEST_NO_SUCH_VARIABLE";
    assert_non_null(strstr(settle(&a), "is not set or empty"));
}

static const char *sweep_settle(tc_measure_sweep_args *s, const tc_measure_args *a)
{
    static char err[512];
    err[0] = '\0';
    tc_err rc = tc_measure_sweep_settle(s, a, err, sizeof err);
    assert_int_equal(rc == TC_OK, err[0] == '\0');
    return err;
}

static void sweep_points_and_rules(void **state)
{
    (void)state;
    tc_measure_args a = base();
    tc_measure_sweep_args s = {0};
    assert_string_equal(sweep_settle(&s, &a), "");
    assert_int_equal(s.n, 9); /* 1, 2, 4, ... 256 */
    assert_near(s.values[8], 256, 0);
    s = (tc_measure_sweep_args){.concurrency = "1,2,8"};
    assert_string_equal(sweep_settle(&s, &a), "");
    assert_int_equal(s.n, 3);
    assert_near(s.values[2], 8, 0);
    s = (tc_measure_sweep_args){.concurrency = "1,,2"};
    assert_non_null(strstr(sweep_settle(&s, &a), "an empty item"));
    s = (tc_measure_sweep_args){.concurrency = "4,2"};
    assert_non_null(strstr(sweep_settle(&s, &a), "ascending whole numbers"));
    s = (tc_measure_sweep_args){.rates = "0.5,2.5"};
    assert_string_equal(sweep_settle(&s, &a), "");
    assert_true(s.by_rate && s.arrival_kind == TC_ARRIVAL_POISSON);
    s = (tc_measure_sweep_args){.rates = "auto", .arrival = "gamma"};
    assert_string_equal(sweep_settle(&s, &a), "");
    assert_true(s.auto_rates);
    assert_near(s.burstiness, 1, 0);
    s = (tc_measure_sweep_args){.concurrency = "1,2", .points = 4};
    assert_non_null(strstr(sweep_settle(&s, &a), "--points sets how many rates --rates auto"));
    s = (tc_measure_sweep_args){.concurrency = "1,2", .arrival = "gamma"};
    assert_non_null(strstr(sweep_settle(&s, &a), "with --rates"));
    a.repeat = 3;
    s = (tc_measure_sweep_args){0};
    assert_non_null(strstr(sweep_settle(&s, &a), "belong to 'truecost run'"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_are_the_seeds_recipe),
        cmocka_unit_test(open_loop_options_name_what_they_need),
        cmocka_unit_test(workload_shape_and_its_pairs),
        cmocka_unit_test(a_shard_takes_its_share),
        cmocka_unit_test(labels_apis_and_telemetry),
        cmocka_unit_test(sweep_points_and_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
