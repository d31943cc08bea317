/* Unit tests of the migration assessment's documents: lockin's and
 * decide's text and JSON (report/report_lockin.c, report_decide.c) and
 * the gap table's text (report/report_gaps.c), on results the library
 * computes here from inputs given as text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_assert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assess/gaps_doc.h"
#include "report/report_decide.h"
#include "report/report_gaps.h"
#include "report/report_lockin.h"

static const char ASSESSMENT[] = "[effort]\n"
                                 "environment = 2..4\n"
                                 "operators = 1..2..6\n"
                                 "performance = 5\n"
                                 "stability = 0..10\n"
                                 "learning = 1\n"
                                 "[rates]\n"
                                 "day_cost = 500\n"
                                 "[risk]\n"
                                 "probability = 0.2\n"
                                 "incident_cost = 10000\n"
                                 "[talent]\n"
                                 "premium = 0..0.5..2\n"
                                 "hire_cost = 12000\n"
                                 "[hardware]\n"
                                 "units = 4\n"
                                 "price_incumbent = 2000\n"
                                 "price_alternative = 1500\n"
                                 "[horizon]\n"
                                 "months = 24\n"
                                 "[decision]\n"
                                 "fallback_path = yes\n";

/* The assessment above evaluated with overrides o (may be NULL). */
static void evaluate(const tc_lockin_overrides *o, tc_lockin_result *r)
{
    tc_lockin a;
    char err[512];
    if (tc_lockin_parse("a.ini", ASSESSMENT, strlen(ASSESSMENT), &a, err, sizeof err) != TC_OK)
        fail_msg("parse: %s", err);
    if (tc_lockin_evaluate(&a, o, 2000, 1, r, err, sizeof err) != TC_OK)
        fail_msg("evaluate: %s", err);
}

/* What print wrote to a stream, as a string the caller frees. */
#define PRINTED(text, call)                                                                        \
    do {                                                                                           \
        size_t len_ = 0;                                                                           \
        FILE *out = open_memstream(&(text), &len_);                                                \
        assert_non_null(out);                                                                      \
        call;                                                                                      \
        fclose(out);                                                                               \
    } while (0)

static void lockin_text(void **state)
{
    (void)state;
    tc_lockin_result r;
    evaluate(NULL, &r);
    char *t = NULL;
    PRINTED(t, tc_report_lockin_print(out, &r, NULL));
    has_line(t, "Lock-in cost of a.ini (USD)");
    has_line(t, "Inputs (low .. point .. high):");
    has_line(t, "  environment           2 ..       3 ..       4  person-days   (line 2)");
    has_line(t, "  effort  16 person-days x 500.00 per day                = "
                "        8000 USD");
    char line[128];
    snprintf(line, sizeof line, "  %-56s %12s USD", "lock-in cost", "16000");
    has_line(t, line);
    has_line(t, "Hardware saving: 4 units x (2000.00 - 1500.00) = 2000 USD");
    has_line(t, "Break-even: not computed (give --running-saving-per-month)");
    assert_null(strstr(t, "Performance:"));
    assert_non_null(strstr(t, "Monte Carlo (2000 samples, seed 1): P10 "));
    assert_non_null(strstr(t, "\nReading: "));
    free(t);
    tc_lockin_result_free(&r);

    tc_lockin_overrides o = {.has_perf_ratio = 1, .perf_ratio = 0.9, .simulated = 1};
    snprintf(o.perf_source, sizeof o.perf_source, "runs 1 vs 2");
    o.has_running_saving = 1;
    o.running_saving_per_month = -5;
    evaluate(&o, &r);
    PRINTED(t, tc_report_lockin_print(out, &r, &o));
    has_line(t, "SIMULATED evidence: Lock-in cost of a.ini (USD)");
    has_line(t, "Performance: alternative / incumbent throughput 0.9 (runs 1 vs 2): tuning "
                "optional (T_perf at its low end)");
    has_line(t, "Break-even: never (the running saving is -5 USD per month)");
    free(t);
    tc_lockin_result_free(&r);
}

static void lockin_json(void **state)
{
    (void)state;
    tc_lockin_result r;
    evaluate(NULL, &r);
    json_t *doc = tc_report_lockin_json(&r, NULL);
    assert_non_null(doc);
    assert_true(json_is_false(json_object_get(doc, "simulated")));
    assert_string_equal(json_string_value(json_object_get(doc, "assessment")), "a.ini");
    assert_true(json_real_value(json_object_get(doc, "point_estimate")) == r.point.total);
    json_t *env =
        json_object_get(json_object_get(json_object_get(doc, "inputs"), "effort"), "environment");
    assert_true(json_real_value(json_object_get(env, "point")) == 3);
    assert_int_equal(json_integer_value(json_object_get(env, "line")), 2);
    assert_string_equal(json_string_value(json_object_get(env, "source")), "assessment");
    assert_true(json_is_null(json_object_get(json_object_get(doc, "inputs"), "tokens_per_month")));
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_object_get(doc, "inputs"), "decision"), "fallback_path")),
        "yes");
    assert_true(json_is_null(json_object_get(doc, "performance")));
    assert_true(json_is_null(json_object_get(doc, "break_even")));
    assert_true(json_is_null(json_object_get(doc, "running_saving_per_month")));
    assert_int_equal(json_array_size(json_object_get(doc, "sensitivity")), r.n_sensitivity);
    assert_non_null(json_string_value(json_object_get(doc, "reading")));
    json_decref(doc);
    tc_lockin_result_free(&r);

    tc_lockin_overrides o = {.has_perf_ratio = 1,
                             .perf_ratio = 0.4,
                             .has_running_saving = 1,
                             .running_saving_per_month = 1000};
    evaluate(&o, &r);
    doc = tc_report_lockin_json(&r, &o);
    json_t *perf = json_object_get(doc, "performance");
    assert_true(json_is_true(json_object_get(perf, "flagged")));
    assert_string_equal(json_string_value(json_object_get(perf, "source")), "measured");
    json_t *be = json_object_get(doc, "break_even");
    assert_true(json_is_false(json_object_get(be, "never")));
    assert_non_null(json_object_get(be, "after_hardware"));
    assert_true(json_real_value(json_object_get(doc, "running_saving_per_month")) == 1000);
    assert_true(json_is_true(
        json_object_get(json_object_get(doc, "net_benefit"), "running_saving_included")));
    json_decref(doc);
    tc_lockin_result_free(&r);
}

/* A decision on the assessment with a measured target run and nothing
 * else. */
static void decided(tc_lockin_result *r, tc_decide_result *d)
{
    evaluate(NULL, r);
    tc_decide_input in = {.has_target_run = 1,
                          .target_completed = 10,
                          .has_perf = 1,
                          .perf_ratio = 0.9,
                          .soak_passed = -1,
                          .profiler_skill = -1,
                          .fallback_path = 1,
                          .has_economics = 1,
                          .p_net_positive = r->probability_net_positive};
    in.target_status = TC_RUN_COMPLETE;
    tc_decide(&in, d);
}

static void decide_text(void **state)
{
    (void)state;
    tc_lockin_result r;
    tc_decide_result d;
    decided(&r, &d);
    char *t = NULL;
    PRINTED(t, tc_report_decide_print(out, &r, &d, 1));
    char title[128];
    snprintf(title, sizeof title, "SIMULATED evidence: Decision for a.ini: %s",
             tc_decide_verdict_name(d.verdict));
    has_line(t, title);
    has_line(t, "Checklist ([x] ticked, [ ] not met, [?] not yet measured):");
    for (int i = 0; i < TC_DECIDE_ITEMS; i++) {
        char line[sizeof d.items[0].evidence + 8];
        const tc_decide_item *it = &d.items[i];
        snprintf(line, sizeof line, "      %s", it->evidence);
        has_line(t, line);
        assert_non_null(strstr(t, it->text));
    }
    assert_non_null(strstr(t, "  [x] ")); /* the target run */
    assert_non_null(strstr(t, "  [?] ")); /* the gap table */
    has_line(t, "Reasons:");
    assert_non_null(strstr(t, "\nLock-in: "));
    free(t);
    tc_lockin_result_free(&r);
}

static void decide_json(void **state)
{
    (void)state;
    tc_lockin_result r;
    tc_decide_result d;
    decided(&r, &d);
    json_t *doc = tc_report_decide_json(&r, &d, 0);
    assert_non_null(doc);
    assert_true(json_is_false(json_object_get(doc, "simulated")));
    assert_string_equal(json_string_value(json_object_get(doc, "verdict")),
                        tc_decide_verdict_name(d.verdict));
    json_t *items = json_object_get(doc, "checklist");
    assert_int_equal(json_array_size(items), TC_DECIDE_ITEMS);
    size_t n_missing = 0;
    for (int i = 0; i < TC_DECIDE_ITEMS; i++) {
        json_t *it = json_array_get(items, (size_t)i);
        assert_string_equal(json_string_value(json_object_get(it, "id")), d.items[i].id);
        assert_string_equal(json_string_value(json_object_get(it, "state")),
                            tc_decide_state_name(d.items[i].state));
        n_missing += d.items[i].state == TC_ITEM_MISSING;
    }
    assert_true(n_missing > 0);
    assert_int_equal(json_array_size(json_object_get(doc, "missing")), n_missing);
    assert_int_equal(json_array_size(json_object_get(doc, "reasons")), d.n_reasons);
    json_t *eco = json_object_get(doc, "economics");
    assert_true(json_real_value(json_object_get(eco, "lockin_p50")) == r.total.p50);
    assert_true(json_is_null(json_object_get(eco, "running_saving_per_month")));
    json_decref(doc);
    tc_lockin_result_free(&r);
}

static void gaps_text(void **state)
{
    (void)state;
    static const char ops[] = "op,dtype,share\n"
                              "aten::mm,fp16,70%\n"
                              "aten::_flash_attention_forward,fp16,20%\n"
                              "aten::index_select,fp16,0.01%\n";
    static const char sup[] = "op,dtype,status,alternative,notes\n"
                              "aten::mm,*,native,,rocBLAS\n"
                              "aten::_flash_attention_forward,fp16,missing,aten::sdpa,no kernel\n";
    tc_gap_inventory inv;
    tc_gap_support s;
    tc_gap_table t;
    char err[512];
    if (tc_gaps_inventory_parse("ops.csv", ops, strlen(ops), NULL, &inv, err, sizeof err) !=
            TC_OK ||
        tc_gaps_support_parse("sup.csv", sup, strlen(sup), &s, err, sizeof err) != TC_OK)
        fail_msg("%s", err);
    assert_int_equal(tc_gaps_build(&inv, &s, NULL, &t), TC_OK);
    char *text = NULL;
    PRINTED(text, tc_report_gaps_print(out, &inv, &t, "ops.csv", "sup.csv"));
    has_line(text, "Operator gaps of ops.csv (plain_csv, share as the file gives it) against "
                   "sup.csv");
    has_line(text, "   share  operator                                     dtype    status    "
                   "risk        alternative");
    has_line(text, "   70.0%  aten::mm                                     fp16     native    "
                   "low         -");
    assert_non_null(strstr(text, "\n   20.0%  aten::_flash_attention_forward               fp16"
                                 "     missing   "));
    assert_non_null(strstr(text, "\n   <0.1%  aten::index_select "));
    has_line(text, "Gaps:");
    has_line(text, "Share by status:");
    has_line(text, "  native      70.0%  1 operator");
    has_line(text, "  missing     20.0%  1 operator");
    char line[128];
    snprintf(line, sizeof line, "T_op: %.2f .. %.2f .. %.2f person-days (low .. mode .. high)",
             t.t_low, t.t_mode, t.t_high);
    has_line(text, line);
    has_line(text, "  " TC_GAPS_T_OP_RULE);
    has_line(text, "Note: " TC_GAPS_NOTE ".");
    free(text);
    tc_gaps_table_free(&t);
    tc_gaps_inventory_free(&inv);
    tc_gaps_support_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lockin_text), cmocka_unit_test(lockin_json), cmocka_unit_test(decide_text),
        cmocka_unit_test(decide_json), cmocka_unit_test(gaps_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
