/* Unit tests of cost profiles and the cost per million tokens. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_assert.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/cost.h"

static void near(double a, double b)
{
    if (fabs(a - b) > 1e-9 * (fabs(b) + 1))
        fail_msg("%.12g != %.12g", a, b);
}

static tc_cost_profile parse_ok(const char *text)
{
    tc_cost_profile p;
    char err[1024] = "";
    tc_err rc = tc_cost_profile_parse("t.ini", text, strlen(text), &p, err, sizeof err);
    if (rc != TC_OK)
        fail_msg("parse failed: %s", err);
    return p;
}

/* Parses `text`, expects TC_ERR_PARSE and every one of the NULL-ended
 * fragments in the message. */
static void parse_fails(const char *text, ...)
{
    tc_cost_profile p;
    char err[1024] = "";
    assert_int_equal(tc_cost_profile_parse("t.ini", text, strlen(text), &p, err, sizeof err),
                     TC_ERR_PARSE);
    va_list ap;
    va_start(ap, text);
    assert_says_v(err, ap);
    va_end(ap);
}

static const char OWNED[] = "currency = EUR\n"
                            "[hardware]\n"
                            "price = 3000\n"
                            "amortize_months = 30\n"
                            "residual_fraction = 0.1\n"
                            "[power]\n"
                            "price_per_kwh = 0.25 ; inline comment\n"
                            "pue = 1.2\n"
                            "busy_watts = 400\n"
                            "idle_watts = 100\n"
                            "[operations]\n"
                            "hours_per_month = 5\n"
                            "hourly_rate = 60\n"
                            "adaptation_days = 12\n"
                            "day_rate = 500\n"
                            "[workload]\n"
                            "utilization = 0.5\n";

static void hand_computed_owned(void **state)
{
    (void)state;
    tc_cost_profile p = parse_ok(OWNED);
    assert_string_equal(p.currency, "EUR");
    assert_false(p.is_cloud);
    tc_cost_measured m = {.output_tokens_per_s = 100};
    tc_cost_result r;
    assert_int_equal(tc_cost_compute(&p, &m, &r), TC_OK);
    /* tokens = 100 tok/s * 0.5 * 30.44 d * 86400 s = 131,500,800 */
    near(r.tokens_per_month, 131500800.0);
    /* hardware = 3000 * (1 - 0.1) / 30 = 90 */
    near(r.hardware.value, 90.0);
    /* electricity = (400 * 0.5 + 100 * 0.5) W = 250 W * 730.56 h = 182,640 Wh
     * * 1.2 PUE = 219,168 Wh = 219.168 kWh * 0.25 = 54.792 */
    near(r.electricity.value, 54.792);
    /* operations = 5 h * 60 + 12 d * 500 / 30 months = 300 + 200 = 500 */
    near(r.operations.value, 500.0);
    /* total 644.792 / 131.5008 million tokens = 4.90333138658 */
    assert_true(r.has_cost);
    near(r.per_month, 644.792);
    near(r.cost_per_million_tokens, 644.792 / 131.5008);
    near(r.cost_per_million_tokens, 4.903331386577116);
    /* energy at the profile's busy power: 400 W / 100 tok/s = 4 J/token,
     * 3.6e6 J/kWh / 4 = 900,000 tokens/kWh, 100 / 400 = 0.25 tok/s/W */
    assert_true(r.has_energy);
    near(r.joules_per_output_token, 4.0);
    near(r.tokens_per_kwh, 900000.0);
    near(r.tokens_per_s_per_watt, 0.25);
    assert_int_equal(r.energy_source, TC_COST_PROFILE);
    assert_false(r.has_demand);
}

static void cloud_case(void **state)
{
    (void)state;
    tc_cost_profile p = parse_ok("[cloud]\nprice_per_hour = 2\n"
                                 "[operations]\nhours_per_month = 1\nhourly_rate = 100\n"
                                 "[workload]\nutilization = 1\ntokens_per_month = 3e8\n");
    assert_true(p.is_cloud);
    assert_string_equal(p.currency, "USD");
    tc_cost_measured m = {.output_tokens_per_s = 50};
    tc_cost_result r;
    assert_int_equal(tc_cost_compute(&p, &m, &r), TC_OK);
    /* rental = 2 * 730.56 h = 1461.12; no electricity (in the price);
     * operations = 1 * 100; tokens = 50 * 2,630,016 = 131,500,800 */
    near(r.hardware.value, 1461.12);
    assert_true(r.electricity.included);
    near(r.electricity.value, 0);
    near(r.operations.value, 100);
    near(r.cost_per_million_tokens, 1561.12 / 131.5008);
    /* price per hour / tokens per hour: 2 / 180,000 * 1e6 = 11.11 */
    near(r.cloud_busy_cost_per_million_tokens, 2.0 / 180000.0 * 1e6);
    /* demand 3e8 / 131,500,800 = 2.28 -> 3 devices */
    assert_true(r.has_demand);
    assert_int_equal(r.devices_needed, 3);
    near(r.fleet_per_month, 3 * 1561.12);
    assert_null(tc_cost_input_get(&r, "price_per_kwh"));
    assert_false(r.has_energy); /* no power measured and none given */
}

static void sources_measured_profile_default(void **state)
{
    (void)state;
    tc_cost_profile p = parse_ok("[hardware]\nprice=1000\namortize_months=10\n"
                                 "[power]\nprice_per_kwh=0.2\nidle_watts=50\n"
                                 "[workload]\nutilization=0.25\n");
    tc_cost_measured m = {.output_tokens_per_s = 20,
                          .has_power = 1,
                          .busy_power_w = 300,
                          .has_idle = 1,
                          .idle_power_w = 70,
                          .joules_per_output_token = 14.5};
    tc_cost_result r;
    assert_int_equal(tc_cost_compute(&p, &m, &r), TC_OK);
    const tc_cost_input *busy = tc_cost_input_get(&r, "busy_watts");
    const tc_cost_input *idle = tc_cost_input_get(&r, "idle_watts");
    const tc_cost_input *pue = tc_cost_input_get(&r, "pue");
    const tc_cost_input *res = tc_cost_input_get(&r, "residual_fraction");
    assert_int_equal(busy->source, TC_COST_MEASURED);
    near(busy->value, 300);
    assert_int_equal(idle->source, TC_COST_PROFILE); /* the profile wins */
    near(idle->value, 50);
    assert_int_equal(pue->source, TC_COST_DEFAULT);
    near(pue->value, 1);
    assert_int_equal(res->source, TC_COST_DEFAULT);
    assert_string_equal(tc_cost_source_name(tc_cost_input_get(&r, "output_tokens_per_s")->source),
                        "measured");
    assert_int_equal(tc_cost_input_get(&r, "ops_hours_per_month")->source, TC_COST_DEFAULT);
    /* (300 * 0.25 + 50 * 0.75) W = 112.5 W * 730.56 h / 1000 * 0.2 = 16.4376 */
    near(r.electricity.value, 16.4376);
    near(r.hardware.value, 100); /* 1000 * (1 - 0) / 10 */
    near(r.operations.value, 0);
    /* measured busy power: the measured J/token is used */
    near(r.joules_per_output_token, 14.5);
    assert_int_equal(r.energy_source, TC_COST_MEASURED);
}

static void missing_power_is_absent_not_zero(void **state)
{
    (void)state;
    tc_cost_profile p = parse_ok("[hardware]\nprice=1000\namortize_months=10\n"
                                 "[power]\nprice_per_kwh=0.2\n[workload]\nutilization=0.5\n");
    tc_cost_measured m = {.output_tokens_per_s = 20};
    tc_cost_result r;
    assert_int_equal(tc_cost_compute(&p, &m, &r), TC_OK);
    assert_false(r.electricity.available);
    assert_non_null(strstr(r.electricity.why, "busy_watts"));
    assert_int_equal(tc_cost_input_get(&r, "busy_watts")->source, TC_COST_UNAVAILABLE);
    assert_false(r.has_cost);
    assert_false(r.has_energy);
    assert_true(r.hardware.available);

    /* busy known, idle unknown: needed below full utilisation only */
    m.has_power = 1;
    m.busy_power_w = 200;
    assert_int_equal(tc_cost_compute(&p, &m, &r), TC_OK);
    assert_false(r.electricity.available);
    assert_non_null(strstr(r.electricity.why, "idle_watts"));
    p.utilization.value = 1;
    assert_int_equal(tc_cost_compute(&p, &m, &r), TC_OK);
    assert_true(r.electricity.available);
    near(r.electricity.value, 200 * 730.56 / 1000 * 0.2);

    m.output_tokens_per_s = 0; /* no throughput: no cost per token */
    assert_int_equal(tc_cost_compute(&p, &m, &r), TC_ERR_INVALID);
}

static double cost_at(double price, double kwh, double u, double tps)
{
    tc_cost_profile p = parse_ok(OWNED);
    p.hw_price.value = price;
    p.price_per_kwh.value = kwh;
    p.utilization.value = u;
    tc_cost_measured m = {.output_tokens_per_s = tps};
    tc_cost_result r;
    assert_int_equal(tc_cost_compute(&p, &m, &r), TC_OK);
    assert_true(r.has_cost);
    /* the terms always add up to the total */
    near(r.per_month, r.hardware.value + r.electricity.value + r.operations.value);
    return r.cost_per_million_tokens;
}

static void properties_over_a_grid(void **state)
{
    (void)state;
    const double prices[] = {500, 2000, 8000}, kwhs[] = {0.05, 0.3, 0.6};
    const double us[] = {0.1, 0.5, 1.0}, tpss[] = {10, 100, 1000};
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++)
            for (int c = 0; c < 3; c++)
                for (int d = 0; d < 3; d++) {
                    double base = cost_at(prices[a], kwhs[b], us[c], tpss[d]);
                    if (a < 2)
                        assert_true(cost_at(prices[a + 1], kwhs[b], us[c], tpss[d]) > base);
                    if (b < 2)
                        assert_true(cost_at(prices[a], kwhs[b + 1], us[c], tpss[d]) > base);
                    if (c < 2)
                        assert_true(cost_at(prices[a], kwhs[b], us[c + 1], tpss[d]) < base);
                    if (d < 2)
                        assert_true(cost_at(prices[a], kwhs[b], us[c], tpss[d + 1]) < base);
                }
}

static void parser_errors(void **state)
{
    (void)state;
    parse_fails("[hardware]\nprice = 1000\namortize_months = 36\n[power]\nprice_per_kwh = 0.3\n"
                "pue = high\n",
                "t.ini:6: [power] pue: 'high' is not a number", "expected a ratio >= 1, e.g. 1.4",
                NULL);
    parse_fails("[power]\npue = 1.4x\n", "t.ini:2: [power] pue: '1.4x'", NULL);
    parse_fails("[power]\npue = 0.9\n", "t.ini:2: [power] pue: 0.9 is out of range", ">= 1", NULL);
    parse_fails("[power]\nprice_per_kwh = -1\n", "t.ini:2: [power] price_per_kwh: '-1'", "per kWh",
                NULL);
    parse_fails("[power]\nprice_per_kwh = inf\n", "'inf' is not a number", NULL);
    parse_fails("[workload]\nutilization = 0\n", "t.ini:2: [workload] utilization", "0 < u <= 1",
                NULL);
    parse_fails("\n; comment\n[power]\nprise_per_kwh = 0.3\n",
                "t.ini:4: [power] unknown key 'prise_per_kwh'", "price_per_kwh", NULL);
    parse_fails("[powr]\nx = 1\n", "t.ini:2: unknown section [powr]", NULL);
    parse_fails("price = 3\n", "t.ini:1: 'price' outside a section", NULL);
    parse_fails("[hardware]\nprice = 1\n\n[cloud]\nprice_per_hour = 2\n",
                "t.ini:5: [cloud] price_per_hour", "not both", NULL);
    parse_fails("[power]\npue = 1.1\npue = 1.2\n", "t.ini:3: [power] pue: given twice", NULL);
    parse_fails("[power]\nthis line has no equals\n", "t.ini:2: not a", NULL);
    parse_fails("[hardware]\nprice = 1000\n[power]\npue = 1.1\n", "t.ini: missing",
                "[hardware] amortize_months (months", "[power] price_per_kwh (currency",
                "[workload] utilization (the busy fraction", NULL);
    parse_fails("", "missing [hardware] price and amortize_months, or [cloud] price_per_hour",
                NULL);
    parse_fails("[cloud]\nprice_per_hour = 2\n[operations]\nhourly_rate = 50\n"
                "[workload]\nutilization = 1\n",
                "missing [operations] hours_per_month", NULL);
    char long_line[600];
    memset(long_line, ' ', sizeof long_line);
    memcpy(long_line, "; ", 2);
    memcpy(long_line + sizeof long_line - 14, "\n[power]\npue=x", 14);
    tc_cost_profile p;
    char err[1024];
    assert_int_equal(
        tc_cost_profile_parse("t.ini", long_line, sizeof long_line, &p, err, sizeof err),
        TC_ERR_PARSE);
    assert_non_null(strstr(err, "t.ini:3: [power] pue"));
}

static void load_files(void **state)
{
    (void)state;
    tc_cost_profile p;
    char err[1024];
    const char *names[] = {"rtx4090-workstation.ini", "rx7900xtx-workstation.ini",
                           "h100-cloud-hourly.ini"};
    for (int i = 0; i < 3; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/../../profiles/%s", TC_FIXTURES_DIR, names[i]);
        if (tc_cost_profile_load(path, &p, err, sizeof err) != TC_OK)
            fail_msg("%s", err);
    }
    assert_true(p.is_cloud);
    assert_int_equal(tc_cost_profile_load("/nonexistent/p.ini", &p, err, sizeof err), TC_ERR_IO);
    assert_non_null(strstr(err, "/nonexistent/p.ini"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hand_computed_owned),
        cmocka_unit_test(cloud_case),
        cmocka_unit_test(sources_measured_profile_default),
        cmocka_unit_test(missing_power_is_absent_not_zero),
        cmocka_unit_test(properties_over_a_grid),
        cmocka_unit_test(parser_errors),
        cmocka_unit_test(load_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
