/* The documents of report/ built from analysis results without the CLI:
 * the run summary (report_run), a group (report_group), the cost
 * (report_cost) and the roofline (report_roofline). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "capture.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/roofline_run.h"
#include "report/report_cost.h"
#include "report/report_group.h"
#include "report/report_roofline.h"
#include "report/report_run.h"

#define MS(x) ((int64_t)(x)*1000000LL)

/* ---- fixtures ---------------------------------------------------------- */

static const char GPU_ROW[] =
    TC_ROOF_COLUMNS "\n"
                    "Test GPU,NVIDIA,24,1000,100,300,,Test GPU,https://example.com\n";

static const char FINGERPRINT[] =
    "{\"os\": {\"name\": \"Debian\", \"kernel\": \"6.1\", \"virtualisation\": \"none\"},"
    " \"cpu\": {\"model\": \"Xeon\"},"
    " \"gpus\": [{\"name\": \"Test GPU\", \"driver\": \"550\", \"runtime\": \"CUDA 12\"}],"
    " \"server\": {\"kind\": \"Ollama\", \"version\": \"0.5\","
    "  \"model\": {\"name\": \"llama\", \"parameter_size\": \"8B\","
    "   \"quantization_level\": \"Q4_K_M\"}}}";

/* A run of `n` completed requests of 11 tokens, 10 ms apart, at tps. */
static void make_figures(tc_figures *f, int64_t id, const char *label, int n)
{
    memset(f, 0, sizeof *f);
    f->run.id = id;
    snprintf(f->run.label, sizeof f->run.label, "%s", label);
    f->run.status = TC_RUN_COMPLETE;
    snprintf(f->run.model, sizeof f->run.model, "m");
    f->run.concurrency = 1;
    f->run.simulated = 1;
    f->recs = calloc((size_t)n, sizeof *f->recs);
    f->n_recs = (size_t)n;
    for (int i = 0; i < n; i++) {
        tc_req_record *r = &f->recs[i];
        tc_req_record_init(r);
        r->seq = i;
        r->send_ns = MS(100 * i);
        r->http_status = 200;
        for (int c = 0; c <= 10; c++)
            assert_int_equal(tc_req_record_add_chunk(r, MS(100 * i + 10 + 5 * c)), 0);
        r->end_ns = MS(100 * i + 60 + id); /* runs differ a little */
        r->output_tokens = 11;
        r->output_source = TC_TOKENS_SERVER;
    }
    assert_int_equal(tc_run_metrics_compute(&f->run, f->recs, f->n_recs, &f->m), TC_OK);
    tc_figures_cost_measured(&f->m, &f->e, &f->cost_in);
}

static json_t *fingerprint(void)
{
    json_t *fp = json_loads(FINGERPRINT, 0, NULL);
    assert_non_null(fp);
    return fp;
}

static tc_roofline_table table(void)
{
    tc_roofline_table t = {0};
    char err[256];
    assert_int_equal(
        tc_roofline_table_add_csv(&t, "u.csv", GPU_ROW, strlen(GPU_ROW), 0, err, sizeof err),
        TC_OK);
    return t;
}

/* The bound of f on the test GPU, from its fingerprint. */
static tc_roofline_result bound(const tc_figures *f, json_t *fp)
{
    tc_roofline_table t = table();
    tc_roofline_result r;
    assert_int_equal(tc_roofline_brief(&t, "Test GPU", fp, f->m.decode_tps.p50, &r), TC_OK);
    tc_roofline_table_free(&t);
    return r;
}

static void has(const char *text, const char *want)
{
    if (!strstr(text, want))
        fail_msg("'%s' not in:\n%s", want, text);
}

/* ---- the run summary --------------------------------------------------- */

static void run_doc_members(void **state)
{
    (void)state;
    tc_figures f;
    make_figures(&f, 1, "a", 3);
    json_t *fp = fingerprint();
    tc_roofline_result roof = bound(&f, fp);
    json_t *doc = tc_report_run_doc(&f, fp, &roof);
    assert_non_null(doc);
    assert_true(json_is_null(json_object_get(doc, "energy"))); /* no telemetry */
    json_t *b = json_object_get(doc, "roofline");
    assert_string_equal(json_string_value(json_object_get(b, "gpu")), "Test GPU");
    assert_true(json_is_string(json_object_get(b, "reading")));
    assert_ptr_equal(json_object_get(doc, "environment"), fp);
    assert_int_equal(json_object_get(json_object_get(doc, "run"), "id") != NULL, 1);
    json_decref(doc);

    /* No fingerprint, no GPU: null environment and bound. */
    tc_roofline_result none;
    memset(&none, 0, sizeof none);
    none.missing = TC_ROOF_NEED_GPU;
    doc = tc_report_run_doc(&f, NULL, &none);
    assert_true(json_is_null(json_object_get(doc, "environment")));
    assert_true(json_is_null(json_object_get(doc, "roofline")));
    json_decref(doc);
    json_decref(fp);
    tc_figures_free(&f);
}

static void run_text_sections(void **state)
{
    (void)state;
    tc_figures f;
    make_figures(&f, 1, "a", 3);
    json_t *fp = fingerprint();
    tc_roofline_result roof = bound(&f, fp);
    capture c;
    assert_int_equal(tc_report_run_text(cap_open(&c), &f, fp, &roof, 0), TC_OK);
    char *text = cap_close(&c);
    has(text, "truecost run 1 \"a\"");
    has(text, "Bandwidth bound: Test GPU, 1000 GB/s / ");
    has(text, "environment   Debian, kernel 6.1, none; Xeon\n");
    has(text, "              GPU 0: Test GPU, driver 550, CUDA 12\n");
    has(text, "              server Ollama 0.5; model llama Q4_K_M\n");
    free(text);

    json_t *null = json_null();
    tc_roofline_result none;
    memset(&none, 0, sizeof none);
    none.missing = TC_ROOF_NEED_GPU;
    assert_int_equal(tc_report_run_text(cap_open(&c), &f, null, &none, 0), TC_OK);
    text = cap_close(&c);
    has(text, "environment   not recorded\n");
    assert_null(strstr(text, "Bandwidth bound"));
    free(text);
    json_decref(null);
    json_decref(fp);
    tc_figures_free(&f);
}

static void run_export_flattens(void **state)
{
    (void)state;
    tc_figures f;
    make_figures(&f, 1, "a", 2);
    json_t *fp = fingerprint();
    tc_roofline_result roof = bound(&f, fp);
    capture c;
    char err[256];
    assert_int_equal(
        tc_report_run_export(cap_open(&c), TC_EXPORT_CSV, &f, fp, &roof, err, sizeof err), TC_OK);
    char *text = cap_close(&c);
    assert_int_equal(strncmp(text, "key,value\n", 10), 0);
    has(text, "environment.os.name,Debian\n");
    has(text, "roofline.gpu,Test GPU\n");
    free(text);
    assert_int_equal(
        tc_report_run_export(cap_open(&c), TC_EXPORT_JSON, &f, fp, &roof, err, sizeof err), TC_OK);
    text = cap_close(&c);
    json_t *back = json_loads(text, 0, NULL);
    assert_non_null(json_object_get(back, "metrics"));
    json_decref(back);
    free(text);
    json_decref(fp);
    tc_figures_free(&f);
}

/* ---- a group ----------------------------------------------------------- */

typedef struct group_fixture {
    tc_runset set;
    tc_figures f[2];
    tc_set_summary s;
} group_fixture;

static void make_group(group_fixture *g)
{
    memset(g, 0, sizeof *g);
    snprintf(g->set.name, sizeof g->set.name, "grp");
    g->set.is_group = 1;
    g->set.n = 2;
    g->set.runs = calloc(2, sizeof *g->set.runs);
    make_figures(&g->f[0], 3, "grp", 3);
    make_figures(&g->f[1], 4, "grp", 3);
    g->f[1].run.status = TC_RUN_INTERRUPTED;
    g->set.runs[0] = g->f[0].run;
    g->set.runs[1] = g->f[1].run;
    tc_figures_summarise("the group", &g->set, g->f, &g->s);
}

static void free_group(group_fixture *g)
{
    tc_figures_free(&g->f[0]);
    tc_figures_free(&g->f[1]);
    tc_runset_free(&g->set);
}

static void group_json_and_text(void **state)
{
    (void)state;
    group_fixture g;
    make_group(&g);
    assert_int_equal(g.s.n_warnings, 1); /* run 4 is interrupted */
    json_t *doc = tc_report_group_json(&g.set, g.f, &g.s);
    assert_non_null(doc);
    assert_string_equal(json_string_value(json_object_get(doc, "group")), "grp");
    assert_true(json_is_true(json_object_get(doc, "simulated")));
    assert_int_equal(json_array_size(json_object_get(doc, "runs")), 2);
    json_t *r0 = json_array_get(json_object_get(doc, "runs"), 0);
    json_t *win = json_object_get(r0, "window_output_tokens_per_s");
    assert_true(json_is_number(win));
    assert_ptr_equal(json_object_get(r0, "output_tokens_per_s"), win); /* the old name, an alias */
    json_t *tps = json_object_get(doc, "throughput");
    assert_int_equal(json_integer_value(json_object_get(tps, "runs")), 2);
    assert_true(json_real_value(json_object_get(tps, "mean")) > 0);
    assert_int_equal(json_array_size(json_object_get(doc, "warnings")), 1);
    json_decref(doc);

    capture c;
    assert_int_equal(tc_report_group_text(cap_open(&c), &g.set, g.f, &g.s), TC_OK);
    char *text = cap_close(&c);
    has(text, "SIMULATED Group 'grp': 2 repeated runs of m\n");
    has(text, "WARNING the group: run 4 is interrupted: its figures are partial\n");
    /* output tokens/s named as the window's, as against runs' whole-run one */
    has(text, "       run status         win tok/s   TTFT p50");
    has(text, "Window throughput over the runs: mean ");
    has(text, " output tok/s, stddev ");
    free(text);

    char err[256];
    assert_int_equal(
        tc_report_group_export(cap_open(&c), TC_EXPORT_CSV, &g.set, g.f, &g.s, err, sizeof err),
        TC_OK);
    text = cap_close(&c);
    has(text, "group,grp\n");
    free(text);
    free_group(&g);
}

/* ---- the cost ---------------------------------------------------------- */

static const char PROFILE[] = "currency = EUR\n"
                              "[hardware]\n"
                              "price = 3000\n"
                              "amortize_months = 30\n"
                              "[power]\n"
                              "price_per_kwh = 0.25\n"
                              "busy_watts = 400\n"
                              "idle_watts = 100\n"
                              "[operations]\n"
                              "hours_per_month = 5\n"
                              "hourly_rate = 60\n"
                              "[workload]\n"
                              "utilization = 0.5\n";

static void cost_json_and_text(void **state)
{
    (void)state;
    group_fixture g;
    make_group(&g);
    tc_cost_profile p;
    tc_cost_result r;
    char err[512];
    if (tc_cost_profile_parse("p.ini", PROFILE, strlen(PROFILE), &p, err, sizeof err) != TC_OK)
        fail_msg("profile: %s", err);
    assert_int_equal(tc_cost_compute(&p, &g.s.mean, &r), TC_OK);
    json_t *doc = tc_report_cost_json(&g.set, &p, &g.s, &r);
    assert_non_null(doc);
    assert_int_equal(json_integer_value(json_object_get(doc, "run_id")), 3);
    assert_string_equal(json_string_value(json_object_get(doc, "currency")), "EUR");
    assert_true(json_is_real(json_object_get(doc, "cost_per_million_tokens")));
    json_t *grp = json_object_get(doc, "group");
    assert_int_equal(json_array_size(json_object_get(grp, "run_ids")), 2);
    assert_string_equal(
        json_string_value(json_object_get(
            json_object_get(json_object_get(doc, "inputs"), "busy_watts"), "source")),
        "profile");
    assert_int_equal(json_array_size(json_object_get(doc, "warnings")), 1);
    const char *last = NULL;
    const char *key;
    json_t *v;
    json_object_foreach(doc, key, v) last = key;
    assert_string_equal(last, "warnings"); /* keys are only ever added after */
    json_decref(doc);

    capture c;
    assert_int_equal(tc_report_cost_text(cap_open(&c), &g.set, &p, &g.s, &r), TC_OK);
    char *text = cap_close(&c);
    has(text, "SIMULATED Cost of group 'grp' (2 runs, mean throughput, CV ");
    has(text, "Cost per million output tokens: ");
    has(text, "\nWARNING the group: run 4 is interrupted");
    free(text);
    free_group(&g);
}

/* ---- the roofline ------------------------------------------------------ */

static void brief_forms(void **state)
{
    (void)state;
    tc_figures f;
    make_figures(&f, 1, "a", 3);
    json_t *fp = fingerprint();
    tc_roofline_result r = bound(&f, fp);
    json_t *b = tc_report_roofline_brief_json(&r, 4);
    has(json_string_value(json_object_get(b, "reading")), "per stream at concurrency > 1");
    assert_string_equal(json_string_value(json_object_get(b, "weight_bytes_source")),
                        "parameters x quantisation");
    json_decref(b);
    capture c;
    assert_int_equal(tc_report_roofline_brief(cap_open(&c), &r, 4), TC_OK);
    char *text = cap_close(&c);
    has(text, "% of the bound (per stream): per stream at concurrency > 1");
    free(text);

    tc_roofline_table t = table();
    assert_int_equal(tc_roofline_brief(&t, "Other GPU", fp, 0, &r), TC_OK);
    b = tc_report_roofline_brief_json(&r, 1);
    assert_true(json_is_null(b));
    json_decref(b);
    assert_int_equal(tc_report_roofline_brief(cap_open(&c), &r, 1), TC_OK);
    text = cap_close(&c);
    has(text, "Bandwidth bound: GPU 'Other GPU' is not in the spec table");
    free(text);
    tc_roofline_table_free(&t);
    json_decref(fp);
    tc_figures_free(&f);
}

static void list_origins(void **state)
{
    (void)state;
    tc_roofline_table t = table();
    char err[256];
    assert_int_equal(tc_roofline_table_add_builtin(&t, err, sizeof err), TC_OK);
    json_t *rows = tc_report_roofline_list_json(&t, "mine.csv");
    assert_int_equal((int)json_array_size(rows), t.n);
    assert_string_equal(json_string_value(json_object_get(json_array_get(rows, 0), "origin")),
                        "mine.csv:2");
    assert_true(json_is_null(json_object_get(json_array_get(rows, 0), "launch_price_usd")));
    has(json_string_value(json_object_get(json_array_get(rows, 1), "origin")), "built-in:");
    json_decref(rows);
    capture c;
    assert_int_equal(tc_report_roofline_list(cap_open(&c), &t, NULL), TC_OK);
    char *text = cap_close(&c);
    has(text, "NAME               VENDOR     MEM GB");
    has(text, "(--gpu-specs:2)");
    has(text, "--gpu-specs rows win first.\n");
    free(text);
    tc_roofline_table_free(&t);
}

static void run_ceilings(void **state)
{
    (void)state;
    tc_figures f;
    make_figures(&f, 9, "", 3);
    json_t *fp = fingerprint();
    tc_roofline_result r = bound(&f, fp);
    json_t *doc = tc_report_roofline_json(&f.run, &r, 3, NULL);
    assert_int_equal(json_integer_value(json_object_get(doc, "run_id")), 9);
    assert_int_equal(json_integer_value(json_object_get(doc, "measured_requests")), 3);
    json_t *model = json_object_get(doc, "model");
    assert_string_equal(json_string_value(json_object_get(model, "quantization")), "Q4_K_M");
    assert_true(json_is_real(json_object_get(doc, "prefill_ceiling_tokens_per_s")));
    assert_null(json_object_get(doc, "prefill_note"));
    json_decref(doc);
    capture c;
    assert_int_equal(tc_report_roofline_text(cap_open(&c), &f.run, &r, 3), TC_OK);
    char *text = cap_close(&c);
    has(text, "SIMULATED Bandwidth ceiling of run 9 (no label)\n");
    has(text, "Model:   8B parameters (server parameter_size), Q4_K_M = 4.84 bits per weight\n");
    has(text, "Measured decode (median of 3 requests): ");
    free(text);

    r.has_prefill = 0;
    r.missing |= TC_ROOF_NEED_PARAMS;
    doc = tc_report_roofline_json(&f.run, &r, 3, NULL);
    assert_string_equal(json_string_value(json_object_get(doc, "prefill_note")),
                        "no parameter count (give --params N)");
    json_decref(doc);
    json_decref(fp);
    tc_figures_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(run_doc_members),     cmocka_unit_test(run_text_sections),
        cmocka_unit_test(run_export_flattens), cmocka_unit_test(group_json_and_text),
        cmocka_unit_test(cost_json_and_text),  cmocka_unit_test(brief_forms),
        cmocka_unit_test(list_origins),        cmocka_unit_test(run_ceilings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
