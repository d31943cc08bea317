/* Unit tests of the fault plan: spec parsing and reproducible decisions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sim/sim_fault.h"

static void parses_every_kind(void **state)
{
    (void)state;
    tc_sim_fault_plan p = {0};
    char err[256];
    const char *ok[] = {"http500:0.1",   "http503:1",     "disconnect:0",
                        "malformed:0.5", "stall:0.2:300", "slow-accept:1:50"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        assert_int_equal(tc_sim_fault_parse(&p, ok[i], err, sizeof err), 0);
    assert_int_equal(p.count, 6);
    assert_int_equal(p.rules[4].kind, TC_FAULT_STALL);
    assert_int_equal(p.rules[4].arg, 300);
    assert_true(p.rules[0].rate == 0.1);
    assert_int_equal(tc_sim_fault_parse(&p, "crash-after:5", err, sizeof err), 0);
    assert_int_equal(p.crash_after, 5);
    assert_int_equal(p.count, 6); /* crash-after is not a per-request rule */
}

static void rejects_bad_specs_with_reason(void **state)
{
    (void)state;
    const struct {
        const char *spec, *why;
    } bad[] = {
        {"http500", "KIND:RATE"},        {"oops:0.1", "unknown fault kind"},
        {"http500:1.5", "probability"},  {"http500:-1", "number"},
        {"http500:x", "number"},         {"stall:0.5", "RATE:MS"},
        {"stall:0.5:-3", "RATE:MS"},     {"http500:0.1:7", "unexpected text"},
        {"crash-after:0", "at least 1"}, {"crash-after:2.5", "whole number"},
        {"slow-accept:1:9999999", "MS"}, {"http500:", "number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tc_sim_fault_plan p = {0};
        char err[512] = "";
        assert_int_equal(tc_sim_fault_parse(&p, bad[i].spec, err, sizeof err), -1);
        assert_non_null(strstr(err, bad[i].spec));
        if (!strstr(err, bad[i].why))
            fail_msg("'%s': '%s' lacks '%s'", bad[i].spec, err, bad[i].why);
    }
}

/* strtod reads "nan" and "inf"; NaN slipped through the MS range check
 * and was then cast to an integer (undefined behaviour). */
static void rejects_nan_and_infinity(void **state)
{
    (void)state;
    const char *bad[] = {
        "stall:1:nan",     "slow-accept:1:nan",  "slow-accept:0.5:NAN",
        "stall:1:nan(1)",  "stall:1:inf",        "slow-accept:1:infinity",
        "stall:nan:50",    "slow-accept:inf:50", "http500:nan",
        "http503:inf",     "disconnect:NaN",     "malformed:infinity",
        "crash-after:nan", "crash-after:inf",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        tc_sim_fault_plan p = {0};
        char err[512] = "";
        if (tc_sim_fault_parse(&p, bad[i], err, sizeof err) != -1)
            fail_msg("'%s' was accepted", bad[i]);
        assert_non_null(strstr(err, bad[i]));
        assert_int_equal(p.count, 0);
        assert_int_equal(p.crash_after, 0);
    }
}

static void decisions_are_reproducible_and_match_rate(void **state)
{
    (void)state;
    tc_sim_fault_plan p = {0};
    assert_int_equal(tc_sim_fault_parse(&p, "http500:0.25", NULL, 0), 0);
    int hits = 0;
    for (uint64_t n = 1; n <= 4000; n++) {
        tc_sim_fault_decision d = tc_sim_fault_decide(&p, 9, n);
        assert_int_equal(d.kind, tc_sim_fault_decide(&p, 9, n).kind);
        hits += d.kind == TC_FAULT_HTTP500;
    }
    assert_true(hits > 900 && hits < 1100);
    int same = 0;
    for (uint64_t n = 1; n <= 200; n++)
        same += tc_sim_fault_decide(&p, 9, n).kind == tc_sim_fault_decide(&p, 10, n).kind;
    assert_true(same < 200); /* another seed, another plan */
}

static void rate_zero_never_rate_one_always(void **state)
{
    (void)state;
    tc_sim_fault_plan p = {0};
    tc_sim_fault_parse(&p, "disconnect:0", NULL, 0);
    tc_sim_fault_parse(&p, "stall:1:40", NULL, 0);
    tc_sim_fault_parse(&p, "slow-accept:1:10", NULL, 0);
    for (uint64_t n = 1; n < 100; n++) {
        tc_sim_fault_decision d = tc_sim_fault_decide(&p, 1, n);
        assert_int_equal(d.kind, TC_FAULT_STALL); /* exclusive kinds: the first that fires */
        assert_int_equal(d.stall_ms, 40);
        assert_int_equal(d.slow_accept_ms, 10); /* combines */
    }
    tc_sim_fault_plan none = {0};
    assert_int_equal(tc_sim_fault_decide(&none, 1, 1).kind, TC_FAULT_NONE);
}

static void names_and_positions(void **state)
{
    (void)state;
    assert_string_equal(tc_sim_fault_name(TC_FAULT_SLOW_ACCEPT), "slow-accept");
    assert_string_equal(tc_sim_fault_name(TC_FAULT_NONE), "none");
    assert_int_equal(tc_sim_fault_position(128), 64);
    assert_int_equal(tc_sim_fault_position(2), 1);
    assert_int_equal(tc_sim_fault_position(1), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parses_every_kind),
        cmocka_unit_test(rejects_bad_specs_with_reason),
        cmocka_unit_test(rejects_nan_and_infinity),
        cmocka_unit_test(decisions_are_reproducible_and_match_rate),
        cmocka_unit_test(rate_zero_never_rate_one_always),
        cmocka_unit_test(names_and_positions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
