/* Unit tests of the simulator's timing model and text rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sim/sim_model.h"
#include "sim/sim_text.h"

static void ttft_is_fixed_part_plus_prefill(void **state)
{
    (void)state;
    tc_sim_timing t;
    tc_sim_timing_defaults(&t);
    t.ttft_ms = 30;
    t.prefill_tps = 1000;
    assert_int_equal(tc_sim_ttft_ns(&t, 0), 30000000);
    assert_int_equal(tc_sim_ttft_ns(&t, 500), 530000000);
}

/* The first token costs one decode step: it comes at the TTFT when the
 * step fits after the prefill, else one step after the prefill. */
static void first_token_waits_for_one_decode_step(void **state)
{
    (void)state;
    tc_sim_timing t;
    tc_sim_timing_defaults(&t); /* 20 ms + prompt / 2000 per s */
    assert_int_equal(tc_sim_prefill_ns(&t, 6), 3000000);
    assert_int_equal(tc_sim_prefill_ns(&t, 0), 0);
    /* 10 ms step: fits in the 23 ms TTFT */
    assert_int_equal(tc_sim_first_token_ns(&t, 6, 10000000), 23000000);
    assert_int_equal(tc_sim_first_token_ns(&t, 6, 20000000), 23000000);
    /* --decode-tps 10: a 100 ms step comes after the 3 ms prefill */
    assert_int_equal(tc_sim_first_token_ns(&t, 6, 100000000), 103000000);
    /* a huge prompt is capped at an hour, the step comes on top */
    t.prefill_tps = 1e-3;
    assert_int_equal(tc_sim_first_token_ns(&t, 1000, 5), 3600LL * 1000000000LL + 5);
}

/* The reviewer's repro: --decode-tps 10, 10 tokens, TTFT 20 ms + 6 prompt
 * tokens. Eval must be 10 steps of 100 ms (10 tokens/s), the prompt eval
 * the 3 ms prefill, and the two must add up to the schedule. */
static void split_gives_the_decode_rate_and_a_prompt_eval(void **state)
{
    (void)state;
    tc_sim_timing t;
    tc_sim_timing_defaults(&t);
    t.decode_tps = 10;
    int64_t step = tc_sim_interval_ns(&t, 1);
    int64_t first = tc_sim_first_token_ns(&t, 6, step);
    int64_t pe, ev;
    tc_sim_split(first, step, 9 * step, &pe, &ev);
    assert_int_equal(ev, 1000000000);
    assert_true(10 * 1e9 / (double)ev == 10.0);
    assert_int_equal(pe, 3000000);
    assert_int_equal(pe + ev, first + 9 * step);
    /* a full batch (max_batch 1, another stream decoding): the loaded step */
    tc_sim_timing_defaults(&t);
    t.max_batch = 1;
    step = tc_sim_interval_ns(&t, 2); /* 20 ms at 100 tokens/s */
    first = tc_sim_first_token_ns(&t, 6, step);
    t.ttft_ms = 2;
    int64_t first_short = tc_sim_first_token_ns(&t, 6, step); /* 5 ms TTFT < 20 ms step */
    assert_int_equal(first_short, 23000000);
    tc_sim_split(first_short, step, 4 * step, &pe, &ev);
    assert_int_equal(ev, 5 * step); /* 5 tokens at 50 tokens/s */
    assert_int_equal(pe, 3000000);
    tc_sim_split(first, step, 4 * step, &pe, &ev);
    assert_int_equal(pe, first - step);
    assert_true(pe > 0);
    /* a stall before the first token lands in the prompt eval */
    tc_sim_split(first + 50000000, step, 0, &pe, &ev);
    assert_int_equal(ev, step);
    assert_int_equal(pe, first + 50000000 - step);
}

static void interval_saturates_past_max_batch(void **state)
{
    (void)state;
    tc_sim_timing t;
    tc_sim_timing_defaults(&t);
    t.decode_tps = 50;
    t.max_batch = 4;
    assert_int_equal(tc_sim_interval_ns(&t, 0), 20000000);
    assert_int_equal(tc_sim_interval_ns(&t, 1), 20000000);
    assert_int_equal(tc_sim_interval_ns(&t, 4), 20000000);
    assert_int_equal(tc_sim_interval_ns(&t, 8), 40000000);
    /* aggregate rate = active / interval stays at decode_tps * max_batch */
    for (int active = 5; active < 100; active++) {
        double agg = active * 1e9 / (double)tc_sim_interval_ns(&t, active);
        assert_true(agg > 199.9 && agg < 200.1);
    }
}

/* With a slowdown k a stream sees d / (1 + k (c - 1)) tokens/s at c streams
 * up to the batch, and the full batch's step is then shared past it. */
static void batch_slowdown_lengthens_the_step_per_stream(void **state)
{
    (void)state;
    tc_sim_timing t;
    tc_sim_timing_defaults(&t);
    t.decode_tps = 100;
    t.max_batch = 8;
    t.batch_slowdown = 0.25;
    assert_int_equal(tc_sim_interval_ns(&t, 1), 10000000);
    assert_int_equal(tc_sim_interval_ns(&t, 2), 12500000);
    assert_int_equal(tc_sim_interval_ns(&t, 5), 20000000);
    assert_int_equal(tc_sim_interval_ns(&t, 8), 27500000);
    assert_int_equal(tc_sim_interval_ns(&t, 16), 55000000);
    /* the aggregate grows with the batch, each stream's rate falls */
    for (int c = 2; c <= 8; c++) {
        assert_true(tc_sim_interval_ns(&t, c) > tc_sim_interval_ns(&t, c - 1));
        assert_true(c * 1e9 / (double)tc_sim_interval_ns(&t, c) >
                    (c - 1) * 1e9 / (double)tc_sim_interval_ns(&t, c - 1));
    }
    t.batch_slowdown = -0.1;
    char err[128];
    assert_int_equal(tc_sim_timing_validate(&t, err, sizeof err), -1);
    assert_non_null(strstr(err, "--batch-slowdown"));
}

static void jitter_is_bounded_seeded_and_off_by_default(void **state)
{
    (void)state;
    tc_sim_timing t;
    tc_sim_timing_defaults(&t);
    tc_rng a, b;
    tc_rng_seed(&a, 7);
    assert_int_equal(tc_sim_jitter_ns(&t, &a), 0);
    t.jitter_ms = 5;
    tc_rng_seed(&a, 7);
    tc_rng_seed(&b, 7);
    int64_t max = 0;
    for (int i = 0; i < 1000; i++) {
        int64_t j = tc_sim_jitter_ns(&t, &a);
        assert_int_equal(j, tc_sim_jitter_ns(&t, &b));
        assert_true(j >= 0 && j < 5000000);
        if (j > max)
            max = j;
    }
    assert_true(max > 4000000); /* it really spreads over the range */
}

static void validate_names_the_bad_option(void **state)
{
    (void)state;
    tc_sim_timing t;
    char err[128];
    tc_sim_timing_defaults(&t);
    assert_int_equal(tc_sim_timing_validate(&t, err, sizeof err), 0);
    t.decode_tps = 0;
    assert_int_equal(tc_sim_timing_validate(&t, err, sizeof err), -1);
    assert_non_null(strstr(err, "--decode-tps"));
    tc_sim_timing_defaults(&t);
    t.max_batch = 0;
    assert_int_equal(tc_sim_timing_validate(&t, err, sizeof err), -1);
    assert_non_null(strstr(err, "--max-batch"));
}

static void text_is_deterministic_per_seed_and_prompt(void **state)
{
    (void)state;
    char a[TC_SIM_TOKEN_MAX], b[TC_SIM_TOKEN_MAX];
    size_t n = tc_sim_token_text(1, 99, 0, a);
    assert_int_equal(n, strlen(a));
    assert_true(a[0] != ' '); /* the first token has no leading space */
    tc_sim_token_text(1, 99, 0, b);
    assert_string_equal(a, b);
    int differ = 0;
    for (int i = 1; i < 50; i++) {
        tc_sim_token_text(1, 99, i, a);
        assert_true(a[0] == ' ' && strlen(a) >= 3 && strlen(a) < TC_SIM_TOKEN_MAX);
        tc_sim_token_text(2, 99, i, b);
        differ += strcmp(a, b) != 0;
    }
    assert_true(differ > 40); /* another seed, another text */
}

static void prompt_tokens_are_words_plus_one(void **state)
{
    (void)state;
    const char *p = "  Why is the sky\tblue?\n";
    assert_int_equal(tc_sim_count_words(p, strlen(p)), 5);
    assert_int_equal(tc_sim_count_prompt_tokens(p, strlen(p)), 6);
    assert_int_equal(tc_sim_count_prompt_tokens("", 0), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ttft_is_fixed_part_plus_prefill),
        cmocka_unit_test(first_token_waits_for_one_decode_step),
        cmocka_unit_test(split_gives_the_decode_rate_and_a_prompt_eval),
        cmocka_unit_test(interval_saturates_past_max_batch),
        cmocka_unit_test(batch_slowdown_lengthens_the_step_per_stream),
        cmocka_unit_test(jitter_is_bounded_seeded_and_off_by_default),
        cmocka_unit_test(validate_names_the_bad_option),
        cmocka_unit_test(text_is_deterministic_per_seed_and_prompt),
        cmocka_unit_test(prompt_tokens_are_words_plus_one),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
