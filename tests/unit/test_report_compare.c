/* Unit tests of compare's documents (report/report_compare.c), on
 * comparison results built here: the table, the intervals and the claim
 * in words, the warnings and differences, and the JSON document. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "test_assert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/figures.h"
#include "report/report_compare.h"

/* What the report printed, as a string the caller frees. Not inlined:
 * GCC 12 then takes the memstream's buffer for the local variable that
 * held its address and warns of a dangling pointer (-Wdangling-pointer). */
__attribute__((noinline)) static char *printed(const tc_compare_result *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    tc_report_compare_print(out, r);
    fclose(out);
    return text;
}

/* The pieces of a result that live on the stack. */
typedef struct fixture {
    tc_run_info runs_a[1], runs_b[2];
    tc_figures f_a[1], f_b[2];
    tc_runset set_a, set_b;
    tc_cost_profile pa, pb;
    tc_compare_result r;
} fixture;

static void run_info(tc_run_info *run, int64_t id, const char *label, int simulated)
{
    memset(run, 0, sizeof *run);
    run->id = id;
    snprintf(run->label, sizeof run->label, "%s", label);
    snprintf(run->model, sizeof run->model, "llama3.1:8b");
    run->status = TC_RUN_COMPLETE;
    run->concurrency = 1;
    run->simulated = simulated;
}

static void figures(tc_figures *f, double tps, double ttft_p50)
{
    memset(f, 0, sizeof *f);
    f->m.has_duration = 1;
    f->m.output_tokens_per_s = tps;
    f->m.requests_per_s = tps / 100;
    f->m.ttft_ms.n = ttft_p50 > 0;
    f->m.ttft_ms.p50 = ttft_p50;
    f->cost_in.output_tokens_per_s = tps;
}

static tc_boot_ci ci(double point, double lo, double hi)
{
    return (tc_boot_ci){.point = point,
                        .lo = lo,
                        .hi = hi,
                        .level = 0.95,
                        .resamples = 1000,
                        .used = 1000,
                        .seed = 7};
}

/* A is one run (id 1, "nv") at 100 tok/s; B a group of two simulated runs
 * at 240 and 260; a throughput claim of 2, one warning, two differences. */
static void build(fixture *x)
{
    memset(x, 0, sizeof *x);
    run_info(&x->runs_a[0], 1, "nv", 0);
    run_info(&x->runs_b[0], 4, "grp", 1);
    run_info(&x->runs_b[1], 5, "grp", 1);
    figures(&x->f_a[0], 100, 50);
    figures(&x->f_b[0], 240, 0);
    figures(&x->f_b[1], 260, 0);
    x->set_a = (tc_runset){.name = "nv", .runs = x->runs_a, .n = 1};
    x->set_b = (tc_runset){.name = "grp", .is_group = 1, .runs = x->runs_b, .n = 2};
    tc_compare_result *r = &x->r;
    r->a = (tc_compare_platform){.label = "A", .set = &x->set_a, .f = x->f_a};
    r->b = (tc_compare_platform){.label = "B", .set = &x->set_b, .f = x->f_b};
    r->b.tps = (tc_group_stat){.n = 2, .mean = 250, .stddev = 14.14, .cv = 0.0566, .noisy = 1};
    r->simulated = 1;
    r->resampling = "mixed";
    r->method = "percentile bootstrap";
    r->tps_ratio = ci(2.5, 2.2, 2.8);
    r->claim = (tc_compare_claim){.given = 1,
                                  .x = 2,
                                  .why = "no cost profiles given",
                                  .ci = ci(0.4, 0.36, 0.45),
                                  .verdict = TC_CLAIM_REFUTED};
    snprintf(r->warnings[0], sizeof r->warnings[0], "B: run 5 is interrupted");
    r->n_warnings = 1;
    r->differences =
        json_pack("[{s:s,s:s,s:s,s:s,s:b},{s:s,s:i,s:i,s:s,s:b}]", "field", "gpus.0.name", "a",
                  "RTX 4090", "b", "RX 7900 XTX", "why", "a different GPU", "hardware", 1, "field",
                  "concurrency", "a", 1, "b", 4, "why", "different concurrency", "hardware", 0);
    assert_non_null(r->differences);
}

static void text_side_by_side(void **state)
{
    (void)state;
    fixture x;
    build(&x);
    char *t = printed(&x.r);
    has_line(t, "SIMULATED Comparison, ratios B/A");
    has_line(t, "  A: run 1 (nv): llama3.1:8b");
    has_line(t, "  B: group 'grp' (2 runs, ids 4..5): llama3.1:8b [SIMULATED]");
    has_line(t, "     window throughput 250 tok/s mean, CV 5.7%: over 3%, NOISY: rerun or look for "
                "noise "
                "(thermal, other load)");
    has_line(t, "  figure                     unit              A            B          B/A");
    has_line(t, "  window_output_tokens_per_s tok/s           100          250          2.5");
    /* B has no TTFT: n/a, and so is the ratio. */
    has_line(t, "  ttft_p50_ms                ms               50          n/a          n/a");
    assert_null(strstr(t, "cost_per_million")); /* no profiles */
    assert_null(strstr(t, "decode_of_bound"));  /* no bound measured */
    has_line(t, "Confidence: 95%, percentile bootstrap; 1000 resamples, seed 7, resampling mixed");
    has_line(t, "  throughput B/A                     2.5  [2.2, 2.8]");
    has_line(t, "Claim: \"A is 2 times more efficient (throughput) than B\": refuted");
    has_line(t, "  measured: A is 0.4 times as fast (tokens/s A / B) [0.36, 0.45]");
    has_line(t, "  (no cost profiles given)");
    has_line(t, "WARNING B: run 5 is interrupted");
    has_line(t, "Differences (warnings: the comparison changes more than the hardware):");
    has_line(t, "  (compared) gpus.0.name: \"RTX 4090\" vs \"RX 7900 XTX\": a different GPU");
    has_line(t, "  WARNING concurrency: 1 vs 4: different concurrency");
    free(t);
    json_decref(x.r.differences);
}

static void text_with_costs_and_bound(void **state)
{
    (void)state;
    fixture x;
    build(&x);
    tc_compare_result *r = &x.r;
    snprintf(x.pa.currency, sizeof x.pa.currency, "EUR");
    r->a.profile = &x.pa;
    r->b.profile = &x.pb;
    r->a.has_cost = r->b.has_cost = 1;
    r->a.cost.cost_per_million_tokens = 2;
    r->b.cost.cost_per_million_tokens = 1;
    r->has_cost_ratio = 1;
    r->cost_ratio = ci(0.5, 0.4, 0.6);
    r->claim = (tc_compare_claim){0};
    r->resampling = "runs";
    r->a.roof.has_measured = 1;
    r->a.roof.percent_of_ceiling = 61.5;
    json_decref(r->differences);
    r->differences = json_array();
    r->n_warnings = 0;
    char *t = printed(r);
    has_line(t, "  cost_per_million           EUR               2            1          0.5");
    has_line(t,
             "  decode_of_bound            %              61.5          n/a   (median decode / the "
             "GPU's bandwidth bound)");
    has_line(t, "  cost per token B/A                 0.5  [0.4, 0.6]");
    has_line(t, "  Note: 1 runs on a side give a wide interval; 5 or more make it useful.");
    assert_null(strstr(t, "Claim:"));
    assert_null(strstr(t, "run-to-run variation is NOT covered"));
    has_line(t, "Differences: none recorded besides the figures");
    free(t);
    json_decref(r->differences);
}

static void json_document(void **state)
{
    (void)state;
    fixture x;
    build(&x);
    snprintf(x.r.b.roof.gpu_name, sizeof x.r.b.roof.gpu_name, "RX 7900 XTX");
    x.r.b.roof.has_spec = 1;
    snprintf(x.r.b.roof.spec.name, sizeof x.r.b.roof.spec.name, "RX 7900 XTX");
    x.r.b.roof.has_decode = 1;
    x.r.b.roof.decode_ceiling_tps = 120;
    json_t *doc = tc_report_compare_json(&x.r);
    assert_non_null(doc);
    assert_true(json_is_true(json_object_get(doc, "simulated")));
    json_t *a = json_object_get(doc, "a"), *b = json_object_get(doc, "b");
    assert_string_equal(json_string_value(json_object_get(a, "name")), "nv");
    assert_true(json_is_false(json_object_get(a, "group")));
    assert_int_equal(json_array_size(json_object_get(b, "run_ids")), 2);
    json_t *fa = json_object_get(a, "figures");
    assert_true(json_real_value(json_object_get(fa, "window_output_tokens_per_s")) == 100);
    assert_true(json_real_value(json_object_get(fa, "output_tokens_per_s")) == 100); /* alias */
    assert_true(json_is_null(json_object_get(fa, "joules_per_output_token")));
    assert_true(json_is_null(json_object_get(fa, "cost_per_million_tokens")));
    assert_null(json_object_get(a, "profile"));
    assert_true(json_is_null(json_object_get(a, "roofline")));
    assert_string_equal(json_string_value(json_object_get(json_object_get(b, "roofline"), "gpu")),
                        "RX 7900 XTX");
    assert_null(json_object_get(a, "throughput_spread"));
    assert_true(json_is_true(json_object_get(json_object_get(b, "throughput_spread"), "noisy")));
    json_t *ratios = json_object_get(doc, "ratios_b_over_a");
    assert_true(json_real_value(json_object_get(ratios, "window_output_tokens_per_s")) == 2.5);
    assert_true(json_real_value(json_object_get(ratios, "output_tokens_per_s")) == 2.5);
    assert_true(json_is_null(json_object_get(ratios, "ttft_p50_ms")));
    assert_string_equal(json_string_value(json_object_get(doc, "resampling")), "mixed");
    assert_true(json_is_false(json_object_get(doc, "run_to_run_covered")));
    assert_int_equal(json_integer_value(json_object_get(doc, "resamples")), 1000);
    assert_int_equal(json_integer_value(json_object_get(doc, "seed")), 7);
    json_t *conf = json_object_get(doc, "confidence");
    assert_true(
        json_real_value(json_object_get(json_object_get(conf, "throughput_ratio"), "low")) == 2.2);
    assert_true(json_is_null(json_object_get(conf, "cost_ratio")));
    json_t *claim = json_object_get(doc, "claim");
    assert_string_equal(json_string_value(json_object_get(claim, "basis")), "throughput");
    assert_string_equal(json_string_value(json_object_get(claim, "verdict")), "refuted");
    assert_string_equal(json_string_value(json_object_get(claim, "note")),
                        "no cost profiles given");
    assert_int_equal(json_array_size(json_object_get(doc, "warnings")), 1);
    assert_ptr_equal(json_object_get(doc, "differences"), x.r.differences);
    json_decref(doc);

    x.r.claim.given = 0;
    doc = tc_report_compare_json(&x.r);
    assert_true(json_is_null(json_object_get(doc, "claim")));
    json_decref(doc);
    json_decref(x.r.differences);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(text_side_by_side),
        cmocka_unit_test(text_with_costs_and_bound),
        cmocka_unit_test(json_document),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
