/* Unit tests of the pieces of `run --shard I/N --start-at TIME`: each
 * shard's share, the start time, the prompts dealt out. The merge itself
 * is tested end to end (tests/integration/pgstore.test.mjs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_prompts.h"
#include "measure/measure_setup.h"

static void shares_add_up(void **state)
{
    (void)state;
    for (int64_t total = 0; total < 50; total++)
        for (int n = 1; n <= 7; n++) {
            int64_t sum = 0, lo = INT64_MAX, hi = 0;
            for (int i = 1; i <= n; i++) {
                int64_t s = tc_measure_shard_share(total, i, n);
                sum += s;
                lo = s < lo ? s : lo;
                hi = s > hi ? s : hi;
            }
            assert_int_equal(sum, total);
            assert_true(hi - lo <= 1);
        }
    assert_int_equal(tc_measure_shard_share(10, 1, 4), 3); /* the first ones take the rest */
    assert_int_equal(tc_measure_shard_share(10, 3, 4), 2);
}

static void start_times_parse(void **state)
{
    (void)state;
    char err[256];
    int64_t t = 0;
    const int64_t at_2026 = 1796119200LL * 1000000000LL; /* date -u -d 2026-12-01T10:00:00Z +%s */
    const int64_t hour = 3600LL * 1000000000LL;
    assert_int_equal(
        tc_measure_parse_start("2026-12-01T10:00:00Z", at_2026 - hour, &t, err, sizeof err), TC_OK);
    assert_int_equal(t, at_2026);
    /* More than a day ahead is a typo, as +SECONDS past 86400 is. */
    assert_int_equal(tc_measure_parse_start("2099-12-01T10:00:00Z", at_2026, &t, err, sizeof err),
                     TC_ERR_INVALID);
    assert_non_null(strstr(err, "--start-at '2099-12-01T10:00:00Z' is more than 24 h from now"));
    assert_int_equal(tc_measure_parse_start("2026-12-02T10:00:01Z", at_2026, &t, err, sizeof err),
                     TC_ERR_INVALID);
    assert_int_equal(tc_measure_parse_start("2026-12-02T10:00:00Z", at_2026, &t, err, sizeof err),
                     TC_OK);
    assert_int_equal(tc_measure_parse_start("1970-01-01T00:00:01.25Z", 0, &t, err, sizeof err),
                     TC_OK);
    assert_int_equal(t, 1250000000LL);
    assert_int_equal(tc_measure_parse_start("2024-02-29T23:59:59+00:00",
                                            1709251199LL * 1000000000LL, &t, err, sizeof err),
                     TC_OK);
    assert_int_equal(t, 1709251199LL * 1000000000LL);
    assert_int_equal(tc_measure_parse_start("+2.5", 1000, &t, err, sizeof err), TC_OK);
    assert_int_equal(t, 1000 + 2500000000LL);
    static const char *const bad[] = {"",
                                      "+",
                                      "+-1",
                                      "+1e9",
                                      "2026-12-01 10:00:00Z",
                                      "2026-12-01T10:00:00",
                                      "2026-12-01T10:00:00+01:00",
                                      "2026-13-01T10:00:00Z",
                                      "2026-12-01T24:00:00Z",
                                      "tomorrow"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(tc_measure_parse_start(bad[i], 0, &t, err, sizeof err), TC_ERR_INVALID);
        assert_non_null(strstr(err, "--start-at"));
    }
}

static void prompts_dealt_out(void **state)
{
    (void)state;
    char err[256];
    const char text[] = "p0\np1\np2\np3\np4\n";
    for (size_t i = 0; i < 2; i++) {
        tc_prompts p;
        assert_int_equal(tc_prompts_parse("f", text, strlen(text), &p, err, sizeof err), TC_OK);
        tc_prompts_stride(&p, i, 2);
        assert_int_equal(p.n, i == 0 ? 3 : 2);
        for (size_t k = 0; k < p.n; k++) {
            char want[8];
            snprintf(want, sizeof want, "p%zu", i + 2 * k);
            assert_string_equal(p.items[k].text, want);
        }
        tc_prompts_free(&p);
    }
    tc_prompts few; /* fewer prompts than shards: each shard sends them all */
    assert_int_equal(tc_prompts_parse("f", "a\nb\n", 4, &few, err, sizeof err), TC_OK);
    tc_prompts_stride(&few, 2, 3);
    assert_int_equal(few.n, 2);
    tc_prompts_free(&few);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(shares_add_up),
        cmocka_unit_test(start_times_parse),
        cmocka_unit_test(prompts_dealt_out),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
