/* Unit tests of the lock-in model: the assessment parser, the point
 * estimate, the Monte Carlo distribution against analytic quantiles,
 * sensitivity, break-even and the evidence overrides. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_assert.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "assess/lockin.h"

static void near(double a, double b)
{
    if (fabs(a - b) > 1e-9 * (fabs(b) + 1))
        fail_msg("%.12g != %.12g", a, b);
}

static void within(double a, double b, double tol)
{
    if (!(fabs(a - b) <= tol))
        fail_msg("%.12g is not within %g of %.12g", a, tol, b);
}

/* A complete assessment; the line numbers matter to the error tests. */
static const char *const BASE[] = {
    "[effort]",                 /* 1 */
    "environment = 2..4",       /* 2 */
    "operators = 1..2..6",      /* 3 */
    "performance = 5",          /* 4 */
    "stability = 0..10",        /* 5 */
    "learning = 1..1..1",       /* 6 */
    "[rates]",                  /* 7 */
    "day_cost = 500",           /* 8 */
    "[risk]",                   /* 9 */
    "probability = 0.2",        /* 10 */
    "incident_cost = 10000",    /* 11 */
    "[talent]",                 /* 12 */
    "premium = 0..0.5..2",      /* 13 */
    "hire_cost = 12000",        /* 14 */
    "[hardware]",               /* 15 */
    "units = 4",                /* 16 */
    "price_incumbent = 2000",   /* 17 */
    "price_alternative = 1500", /* 18 */
    "[horizon]",                /* 19 */
    "months = 24",              /* 20 */
};
#define BASE_LINES ((int)(sizeof BASE / sizeof BASE[0]))

/* BASE with line `n` (1-based) replaced by `with` (NULL: removed; may hold
 * several lines). Static buffer: one text at a time. */
static const char *base_with(int n, const char *with)
{
    static char text[4096];
    text[0] = '\0';
    for (int i = 1; i <= BASE_LINES; i++) {
        const char *line = i == n ? with : BASE[i - 1];
        if (line) {
            strcat(text, line);
            strcat(text, "\n");
        }
    }
    return text;
}

static tc_lockin parse_ok(const char *text)
{
    tc_lockin a;
    char err[1024] = "";
    tc_err rc = tc_lockin_parse("t.ini", text, strlen(text), &a, err, sizeof err);
    if (rc != TC_OK)
        fail_msg("parse failed: %s", err);
    return a;
}

/* Parses `text`, expects TC_ERR_PARSE and every one of the NULL-ended
 * fragments in the message. */
static void parse_fails(const char *text, ...)
{
    tc_lockin a;
    char err[1024] = "";
    assert_int_equal(tc_lockin_parse("t.ini", text, strlen(text), &a, err, sizeof err),
                     TC_ERR_PARSE);
    va_list ap;
    va_start(ap, text);
    assert_says_v(err, ap);
    va_end(ap);
    assert_int_equal(a.day_cost.valid, 0); /* zeroed on failure */
}

static tc_lockin_result evaluate(const tc_lockin *a, const tc_lockin_overrides *o, size_t n,
                                 uint64_t seed)
{
    tc_lockin_result r;
    char err[512] = "";
    if (tc_lockin_evaluate(a, o, n, seed, &r, err, sizeof err) != TC_OK)
        fail_msg("evaluate failed: %s", err);
    return r;
}

/* ---- parsing and the point estimate ----------------------------------- */

static void point_estimate_by_hand(void **state)
{
    (void)state;
    tc_lockin a = parse_ok(base_with(0, NULL));
    assert_string_equal(a.currency, "USD");
    assert_int_equal(a.effort[TC_LOCKIN_OPERATORS].line, 3);
    assert_true(a.effort[TC_LOCKIN_OPERATORS].has_mode);
    assert_false(a.effort[TC_LOCKIN_ENVIRONMENT].has_mode);
    assert_int_equal(a.profiler_skill, TC_LOCKIN_NOT_GIVEN);
    assert_false(a.tokens_per_month.valid);
    tc_lockin_terms t;
    tc_lockin_point(&a, &t);
    /* days: midpoint 3 + mode 2 + fixed 5 + midpoint 5 + fixed 1 = 16 */
    near(t.item_days[TC_LOCKIN_ENVIRONMENT], 3);
    near(t.item_days[TC_LOCKIN_OPERATORS], 2);
    near(t.item_days[TC_LOCKIN_PERFORMANCE], 5);
    near(t.item_days[TC_LOCKIN_STABILITY], 5);
    near(t.item_days[TC_LOCKIN_LEARNING], 1);
    near(t.effort_days, 16);
    near(t.effort_cost, 16 * 500.0);  /* 8000 */
    near(t.risk_cost, 0.2 * 10000);   /* 2000 */
    near(t.talent_cost, 0.5 * 12000); /* 6000 */
    near(t.total, 16000);
    /* 4 x (2000 - 1500) */
    near(tc_lockin_hardware_saving(&a), 2000);
}

static void currency_decision_and_spacing(void **state)
{
    (void)state;
    char text[4096];
    snprintf(text, sizeof text,
             "currency = EUR\n%s[decision]\nprofiler_skill = yes ; inline comment\n"
             "fallback_path = no\nsoak_passed = unknown\n",
             base_with(2, "environment = 2 .. 3 .. 7"));
    tc_lockin a = parse_ok(text);
    assert_string_equal(a.currency, "EUR");
    near(a.effort[TC_LOCKIN_ENVIRONMENT].mode, 3);
    near(a.effort[TC_LOCKIN_ENVIRONMENT].high, 7);
    assert_int_equal(a.profiler_skill, TC_LOCKIN_YES);
    assert_int_equal(a.fallback_path, TC_LOCKIN_NO);
    assert_int_equal(a.soak_passed, TC_LOCKIN_UNKNOWN);
    assert_int_equal(a.profiler_skill_line, 23);
    assert_int_equal(a.soak_passed_line, 25);
}

static void range_parser(void **state)
{
    (void)state;
    tc_lockin_range r;
    char err[256];
    assert_int_equal(tc_lockin_range_parse("4", &r, err, sizeof err), TC_OK);
    near(r.low, 4);
    near(r.high, 4);
    near(tc_lockin_range_point(&r), 4);
    assert_int_equal(tc_lockin_range_parse("1.5..2.5e1", &r, err, sizeof err), TC_OK);
    near(tc_lockin_range_point(&r), 13.25);
    assert_int_equal(tc_lockin_range_parse("1..2..3..4", &r, err, sizeof err), TC_ERR_PARSE);
    assert_int_equal(tc_lockin_range_parse("6...15", &r, err, sizeof err), TC_ERR_PARSE);
    assert_non_null(strstr(err, "three dots"));
    assert_int_equal(tc_lockin_range_parse("", &r, err, sizeof err), TC_ERR_PARSE);
    assert_int_equal(tc_lockin_range_parse("3..", &r, err, sizeof err), TC_ERR_PARSE);
    assert_int_equal(tc_lockin_range_parse("1..2 days", &r, err, sizeof err), TC_ERR_PARSE);
    assert_non_null(strstr(err, "'2 days' is not a number"));
    assert_int_equal(tc_lockin_range_parse("-1..2", &r, err, sizeof err), TC_ERR_PARSE);
    assert_non_null(strstr(err, "negative"));
}

static void bad_files_name_file_and_line(void **state)
{
    (void)state;
    parse_fails(base_with(2, "enviroment = 2..4"), "t.ini:2: [effort] enviroment: unknown key",
                "expected one of: environment, operators", NULL);
    parse_fails(base_with(3, "operators = 9..5"), "t.ini:3: [effort] operators: inverted range",
                "expected person-days", NULL);
    parse_fails(base_with(3, "operators = 1..9..5"), "t.ini:3: [effort] operators: the mode 9",
                NULL);
    parse_fails(base_with(10, "probability = 1.5"),
                "t.ini:10: [risk] probability: 1.5 is out of range; expected a probability 0..1",
                NULL);
    parse_fails(base_with(10, "probability = -0.1"),
                "t.ini:10: [risk] probability: '-0.1' is negative", NULL);
    parse_fails(base_with(8, "day_cost = -500"), "t.ini:8: [rates] day_cost: '-500' is negative",
                "expected currency units per person-day", NULL);
    parse_fails(base_with(5, "stability = -1..10"), "t.ini:5: [effort] stability: '-1' is negative",
                NULL);
    parse_fails(base_with(8, "day_cost = 500\nday_cost = 600"),
                "t.ini:9: [rates] day_cost: given twice", NULL);
    parse_fails(base_with(8, "day_cost = 500 USD"),
                "t.ini:8: [rates] day_cost: '500 USD' is not a number", NULL);
    parse_fails(base_with(16, "units = 2.5"), "t.ini:16: [hardware] units: 2.5 is out of range",
                "whole number", NULL);
    parse_fails(base_with(20, "months = 0"), "t.ini:20: [horizon] months: 0 is out of range", NULL);
    parse_fails(base_with(7, "[rate]"), "t.ini:7: unknown section [rate]", NULL);
    parse_fails(base_with(20, "months = 24\n[extra]"), "t.ini:21: unknown section [extra]", NULL);
    parse_fails(base_with(20, "months = 24\n[decision]\nprofiler_skill = maybe"),
                "t.ini:22: [decision] profiler_skill: 'maybe' is not an answer; expected yes or no",
                NULL);
    parse_fails(base_with(20, "months = 24\n[decision]\nfallback_path = unknown"),
                "t.ini:22: [decision] fallback_path: 'unknown' is not an answer", NULL);
    parse_fails(base_with(20, "months = 24\n[decision]\nsoak_passed = yes\nsoak_passed = no"),
                "t.ini:23: [decision] soak_passed: given twice", NULL);
    parse_fails(base_with(4, "performance 5"), "t.ini:4: not a '[section]' or 'key = value' line",
                NULL);
}

static void missing_keys(void **state)
{
    (void)state;
    /* The key's section is there: its header line is named. */
    parse_fails(base_with(6, NULL), "t.ini:1: [effort] learning: missing", "expected person-days",
                NULL);
    parse_fails(base_with(11, NULL), "t.ini:9: [risk] incident_cost: missing; expected currency",
                NULL);
    /* A whole section absent: no line to name. */
    char text[4096];
    snprintf(text, sizeof text, "%s", base_with(12, NULL));
    char *talent = strstr(text, "premium");
    *talent = '\0';
    strcat(text, "[hardware]\nunits = 4\nprice_incumbent = 2000\nprice_alternative = 1500\n"
                 "[horizon]\nmonths = 24\n");
    parse_fails(text, "t.ini: [talent] premium: missing, and so is the [talent] section",
                "(and 1 more required key)", NULL);
    parse_fails("", "t.ini: [effort] environment: missing", "(and 13 more required keys)", NULL);
    parse_fails("stray = 1\n", "t.ini:1: 'stray' outside a section", NULL);
    const char nul[] = "[effort]\nenvironment = 1\0\n";
    tc_lockin a;
    char err[256];
    assert_int_equal(tc_lockin_parse("t.ini", nul, sizeof nul - 1, &a, err, sizeof err),
                     TC_ERR_PARSE);
    assert_non_null(strstr(err, "NUL"));
}

static void load_names_the_path(void **state)
{
    (void)state;
    char path[] = "/tmp/tc-lockin-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = base_with(10, "probability = 2");
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    tc_lockin a;
    char err[1024], want[128];
    assert_int_equal(tc_lockin_load(path, &a, err, sizeof err), TC_ERR_PARSE);
    snprintf(want, sizeof want, "%s:10: [risk] probability", path);
    assert_non_null(strstr(err, want));
    unlink(path);
    assert_int_equal(tc_lockin_load(path, &a, err, sizeof err), TC_ERR_IO);
    assert_non_null(strstr(err, path));
}

/* ---- Monte Carlo against analytic values -------------------------------- */

/* An assessment with every cost zero but the given lines. */
static tc_lockin only(const char *effort_env, const char *effort_op, double day_cost,
                      double probability, double incident)
{
    char text[2048];
    snprintf(text, sizeof text,
             "[effort]\nenvironment = %s\noperators = %s\nperformance = 0\nstability = 0\n"
             "learning = 0\n[rates]\nday_cost = %g\n[risk]\nprobability = %g\n"
             "incident_cost = %g\n[talent]\npremium = 0\nhire_cost = 0\n[hardware]\nunits = 1\n"
             "price_incumbent = 1500\nprice_alternative = 1000\n[horizon]\nmonths = 12\n",
             effort_env, effort_op, day_cost, probability, incident);
    return parse_ok(text);
}

static void triangular_quantiles(void **state)
{
    (void)state;
    /* Triangle 0..2..10: F(2) = 0.2; for u < 0.2, x = sqrt(20u); else
     * x = 10 - sqrt(80(1 - u)). Mean (0 + 2 + 10) / 3 = 4. */
    tc_lockin a = only("0..2..10", "0", 1, 0, 0);
    tc_lockin_result r = evaluate(&a, NULL, TC_LOCKIN_DEFAULT_SAMPLES, 7);
    within(r.total.p10, sqrt(2.0), 0.05);
    within(r.total.p50, 10 - sqrt(40.0), 0.05);
    within(r.total.p90, 10 - sqrt(8.0), 0.06);
    within(r.mean, 4, 0.03);
    assert_true(r.min >= 0 && r.max <= 10);
    near(r.point.total, 2); /* the mode, not the mean */
    tc_lockin_result_free(&r);
}

/* CDF of the Irwin-Hall distribution (sum of 4 uniforms on 0..1). */
static double irwin_hall4_cdf(double x)
{
    static const double binom[] = {1, 4, 6, 4, 1};
    double s = 0;
    for (int k = 0; k <= 4 && k <= x; k++)
        s += (k % 2 ? -1 : 1) * binom[k] * pow(x - k, 4);
    return s / 24;
}

static double irwin_hall4_quantile(double q)
{
    double lo = 0, hi = 4;
    for (int i = 0; i < 100; i++) {
        double mid = (lo + hi) / 2;
        if (irwin_hall4_cdf(mid) < q)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static void sum_of_symmetric_triangles(void **state)
{
    (void)state;
    /* 0..2 is the symmetric triangle with mode 1: the sum of two uniforms
     * on 0..1. Two of them sum to Irwin-Hall(4); x 100 per day. */
    tc_lockin a = only("0..2", "0..2", 100, 0, 0);
    tc_lockin_result r = evaluate(&a, NULL, TC_LOCKIN_DEFAULT_SAMPLES, 11);
    double p10 = 100 * irwin_hall4_quantile(0.1), p90 = 100 * irwin_hall4_quantile(0.9);
    within(p10, 124.657873, 1e-5); /* the helper itself: 1.2465787 days (checked in Python) */
    within(r.total.p10, p10, 1.5);
    within(r.total.p50, 200, 1.5);
    within(r.total.p90, p90, 1.5);
    within(p10 + p90, 400, 1e-6); /* symmetric */
    within(r.mean, 200, 1.0);
    tc_lockin_result_free(&r);
}

static void bernoulli_risk_only(void **state)
{
    (void)state;
    tc_lockin a = only("0", "0", 100, 0.3, 1000);
    tc_lockin_result r = evaluate(&a, NULL, TC_LOCKIN_DEFAULT_SAMPLES, 3);
    /* 70% of samples are 0 and 30% are 1000: P10 and P50 fall among the
     * zeros, P90 among the incidents, exactly. */
    assert_true(r.total.p10 == 0);
    assert_true(r.total.p50 == 0);
    assert_true(r.total.p90 == 1000);
    within(r.mean, 300, 6);
    near(r.point.total, 300); /* the expectation */
    near(r.hardware_saving, 500);
    within(r.probability_exceeds_saving, 0.3, 0.006);
    assert_int_equal(r.n_sensitivity, 1);
    assert_string_equal(r.sensitivity[0].input, "risk");
    near(r.sensitivity[0].swing, 1000);
    tc_lockin_result_free(&r);
    /* Certain and impossible incidents have no swing and no spread. */
    a = only("0", "0", 100, 1, 1000);
    r = evaluate(&a, NULL, 1000, 3);
    assert_true(r.total.p10 == 1000 && r.total.p90 == 1000);
    assert_int_equal(r.n_sensitivity, 0);
    near(r.probability_exceeds_saving, 1);
    tc_lockin_result_free(&r);
}

static void seeds_reproduce(void **state)
{
    (void)state;
    tc_lockin a = parse_ok(base_with(0, NULL));
    tc_lockin_result x = evaluate(&a, NULL, 5000, 42), y = evaluate(&a, NULL, 5000, 42);
    tc_lockin_result z = evaluate(&a, NULL, 5000, 43);
    assert_int_equal(x.seed, 42);
    assert_int_equal(x.samples, 5000);
    assert_memory_equal(x.sorted_totals, y.sorted_totals, 5000 * sizeof(double));
    assert_true(x.total.p50 == y.total.p50 && x.mean == y.mean);
    assert_true(x.mean != z.mean);
    assert_true(memcmp(x.sorted_totals, z.sorted_totals, 5000 * sizeof(double)) != 0);
    for (size_t i = 1; i < x.samples; i++)
        assert_true(x.sorted_totals[i - 1] <= x.sorted_totals[i]);
    tc_lockin_result_free(&x);
    tc_lockin_result_free(&y);
    tc_lockin_result_free(&z);
}

/* ---- sensitivity, break-even, evidence ---------------------------------- */

static void sensitivity_order(void **state)
{
    (void)state;
    tc_lockin a = parse_ok(base_with(0, NULL));
    tc_lockin_swing s[TC_LOCKIN_MAX_SWINGS];
    int n = tc_lockin_sensitivity(&a, s);
    /* talent 2 x 12000 = 24000; risk 10000; stability 10 x 500 = 5000;
     * operators 5 x 500 = 2500; environment 2 x 500 = 1000. performance
     * and learning are fixed: no swing, not listed. */
    assert_int_equal(n, 5);
    const char *order[] = {"talent", "risk", "stability", "operators", "environment"};
    const double swing[] = {24000, 10000, 5000, 2500, 1000};
    for (int i = 0; i < n; i++) {
        assert_string_equal(s[i].input, order[i]);
        near(s[i].swing, swing[i]);
    }
    /* stability 0 and 10 instead of 5: 16000 -/+ 2500 */
    near(s[2].low_total, 13500);
    near(s[2].high_total, 18500);
    /* risk off / on: 16000 - 2000, then + 10000 */
    near(s[1].low_total, 14000);
    near(s[1].high_total, 24000);
    /* talent 0 and 2 hires instead of 0.5: 16000 - 6000, + 18000 */
    near(s[0].low_total, 10000);
    near(s[0].high_total, 34000);
    /* Equal swings keep the formula's order. */
    tc_lockin b = only("0..2", "0..2", 100, 0, 0);
    assert_int_equal(tc_lockin_sensitivity(&b, s), 2);
    assert_string_equal(s[0].input, "environment");
    assert_string_equal(s[1].input, "operators");
}

static void break_even_and_never(void **state)
{
    (void)state;
    /* Lock-in fixed at 10 days x 100 = 1000; hardware saving 1 x 500. */
    tc_lockin a = only("10", "0", 100, 0, 0);
    tc_lockin_overrides o = {.has_running_saving = 1, .running_saving_per_month = 250};
    tc_lockin_result r = evaluate(&a, &o, 1000, 1);
    assert_false(r.break_even_never);
    near(r.break_even_months.p10, 4);
    near(r.break_even_months.p50, 4);
    near(r.break_even_months.p90, 4);
    near(r.break_even_months_after_hardware.p50, (1000 - 500) / 250.0);
    /* net over 12 months: 500 + 250 x 12 - 1000 */
    near(r.net_benefit.p50, 2500);
    near(r.probability_net_positive, 1);
    tc_lockin_result_free(&r);

    o.running_saving_per_month = 0;
    r = evaluate(&a, &o, 1000, 1);
    assert_true(r.break_even_never);
    near(r.net_benefit.p50, -500);
    near(r.probability_net_positive, 0);
    tc_lockin_result_free(&r);
    o.running_saving_per_month = -5;
    r = evaluate(&a, &o, 1000, 1);
    assert_true(r.break_even_never);
    near(r.net_benefit.p90, 500 - 60 - 1000);
    tc_lockin_result_free(&r);

    /* No running saving known: no break-even, net from hardware only. */
    r = evaluate(&a, NULL, 1000, 1);
    assert_false(r.has_running_saving);
    assert_false(r.break_even_never);
    near(r.net_benefit.p10, -500);
    tc_lockin_result_free(&r);

    /* A hardware saving bigger than the lock-in: nothing left to repay. */
    a = only("1", "0", 100, 0, 0);
    o.running_saving_per_month = 50;
    r = evaluate(&a, &o, 100, 1);
    near(r.break_even_months.p50, 2);
    near(r.break_even_months_after_hardware.p50, 0);
    tc_lockin_result_free(&r);
}

static void perf_ratio_edges(void **state)
{
    (void)state;
    assert_int_equal(tc_lockin_perf_classify(1.3), TC_LOCKIN_PERF_OPTIONAL);
    assert_int_equal(tc_lockin_perf_classify(0.8), TC_LOCKIN_PERF_OPTIONAL);
    assert_int_equal(tc_lockin_perf_classify(0.7999), TC_LOCKIN_PERF_NEEDED);
    assert_int_equal(tc_lockin_perf_classify(0.5), TC_LOCKIN_PERF_NEEDED);
    assert_int_equal(tc_lockin_perf_classify(0.4999), TC_LOCKIN_PERF_SUSPECT);
    assert_int_equal(tc_lockin_perf_classify(0.01), TC_LOCKIN_PERF_SUSPECT);
    assert_int_equal(tc_lockin_perf_classify(0), TC_LOCKIN_PERF_NONE);
    assert_int_equal(tc_lockin_perf_classify(-1), TC_LOCKIN_PERF_NONE);
    assert_int_equal(tc_lockin_perf_classify(NAN), TC_LOCKIN_PERF_NONE);
    assert_int_equal(tc_lockin_perf_classify(INFINITY), TC_LOCKIN_PERF_NONE);
    assert_string_equal(tc_lockin_perf_class_name(TC_LOCKIN_PERF_SUSPECT),
                        "suspect operator fallback before blaming the hardware");

    tc_lockin a = parse_ok(base_with(4, "performance = 8..20"));
    tc_lockin_overrides o = {.has_perf_ratio = 1, .perf_ratio = 0.8};
    tc_lockin_result r = evaluate(&a, &o, 100, 1);
    assert_int_equal(r.perf_class, TC_LOCKIN_PERF_OPTIONAL);
    const tc_lockin_range *perf = &r.inputs.effort[TC_LOCKIN_PERFORMANCE];
    near(perf->low, 8);
    near(perf->high, 8);
    near(r.point.item_days[TC_LOCKIN_PERFORMANCE], 8);
    assert_string_equal(perf->source, "measured performance");
    tc_lockin_result_free(&r);

    for (int i = 0; i < 2; i++) {
        o.perf_ratio = i ? 0.49 : 0.5;
        r = evaluate(&a, &o, 100, 1);
        assert_int_equal(r.perf_class, i ? TC_LOCKIN_PERF_SUSPECT : TC_LOCKIN_PERF_NEEDED);
        near(r.inputs.effort[TC_LOCKIN_PERFORMANCE].high, 20); /* kept */
        near(r.point.item_days[TC_LOCKIN_PERFORMANCE], 14);
        tc_lockin_result_free(&r);
    }
    o.perf_ratio = 0;
    char err[256] = "";
    assert_int_equal(tc_lockin_evaluate(&a, &o, 100, 1, &r, err, sizeof err), TC_ERR_INVALID);
    assert_null(r.sorted_totals);
    assert_non_null(strstr(err, "performance ratio"));
}

static void operators_from_gap_table(void **state)
{
    (void)state;
    tc_lockin a = parse_ok(base_with(0, NULL));
    tc_lockin_overrides o = {.has_operators = 1, .op_low = 3, .op_mode = 4, .op_high = 9};
    snprintf(o.op_source, sizeof o.op_source, "gap table g.csv");
    tc_lockin_result r = evaluate(&a, &o, 100, 1);
    const tc_lockin_range *op = &r.inputs.effort[TC_LOCKIN_OPERATORS];
    assert_string_equal(op->source, "gap table g.csv");
    assert_int_equal(op->line, 0);
    near(r.point.total, 16000 + (4 - 2) * 500);
    /* The original is untouched. */
    near(a.effort[TC_LOCKIN_OPERATORS].mode, 2);
    tc_lockin_result_free(&r);

    char err[256] = "";
    assert_int_equal(tc_lockin_set_operators(&a, 5, 4, 9, NULL, err, sizeof err), TC_ERR_INVALID);
    assert_non_null(strstr(err, "not in order"));
    near(a.effort[TC_LOCKIN_OPERATORS].mode, 2);
    assert_int_equal(tc_lockin_set_operators(&a, 1, 1, 1, NULL, err, sizeof err), TC_OK);
    assert_string_equal(a.effort[TC_LOCKIN_OPERATORS].source, "override");
    assert_int_equal(tc_lockin_evaluate(&a, NULL, 0, 1, &r, err, sizeof err), TC_ERR_INVALID);
}

static void reading_says_it_plainly(void **state)
{
    (void)state;
    tc_lockin a = only("10", "0", 100, 0, 0); /* 1000 against a saving of 500 */
    tc_lockin_result r = evaluate(&a, NULL, 100, 1);
    char buf[600];
    tc_lockin_reading(&r, buf, sizeof buf);
    assert_non_null(strstr(buf, "in 100% of samples"));
    assert_non_null(strstr(buf, "the ecosystem costs more than the cards save"));
    tc_lockin_result_free(&r);
    a = only("1", "0", 100, 0, 0); /* 100 against 500 */
    r = evaluate(&a, NULL, 100, 1);
    tc_lockin_reading(&r, buf, sizeof buf);
    assert_non_null(strstr(buf, "in 0% of samples"));
    assert_non_null(strstr(buf, "covers the move"));
    tc_lockin_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(point_estimate_by_hand),
        cmocka_unit_test(currency_decision_and_spacing),
        cmocka_unit_test(range_parser),
        cmocka_unit_test(bad_files_name_file_and_line),
        cmocka_unit_test(missing_keys),
        cmocka_unit_test(load_names_the_path),
        cmocka_unit_test(triangular_quantiles),
        cmocka_unit_test(sum_of_symmetric_triangles),
        cmocka_unit_test(bernoulli_risk_only),
        cmocka_unit_test(seeds_reproduce),
        cmocka_unit_test(sensitivity_order),
        cmocka_unit_test(break_even_and_never),
        cmocka_unit_test(perf_ratio_edges),
        cmocka_unit_test(operators_from_gap_table),
        cmocka_unit_test(reading_says_it_plainly),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
