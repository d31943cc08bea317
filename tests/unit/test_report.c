/* Unit tests of report/: the JSON contract (every key, with its type), the
 * terminal table, the runs list, and the export formats. Output goes to
 * open_memstream buffers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "capture.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/run_metrics.h"
#include "report/report_energy.h"
#include "report/report_export.h"
#include "report/report_json.h"
#include "report/report_table.h"

#define MS(x) ((int64_t)(x)*1000000LL)
#define WALL 1795966314123456789LL /* 2026-11-29T15:31:54.123456789Z */

/* ---- fixtures ---------------------------------------------------------- */

static tc_run_info make_run(int simulated, const char *label)
{
    tc_run_info run;
    memset(&run, 0, sizeof run);
    run.id = 7;
    snprintf(run.label, sizeof run.label, "%s", label);
    run.status = TC_RUN_COMPLETE;
    run.created_wall_ns = WALL;
    snprintf(run.endpoint, sizeof run.endpoint, "http://127.0.0.1:1234");
    run.api = TC_API_OLLAMA;
    snprintf(run.model, sizeof run.model, "sim-llama-8b");
    run.simulated = simulated;
    snprintf(run.server_version, sizeof run.server_version, "0.5.1");
    run.concurrency = 2;
    return run;
}

static void req(tc_req_record *r, int64_t seq, int64_t send_ms, const int64_t *chunk_ms, size_t nc,
                int64_t end_ms, int64_t out)
{
    tc_req_record_init(r);
    r->seq = seq;
    r->send_ns = MS(send_ms);
    r->send_wall_ns = WALL + MS(send_ms);
    r->end_ns = MS(end_ms);
    r->http_status = 200;
    for (size_t i = 0; i < nc; i++)
        assert_int_equal(tc_req_record_add_chunk(r, MS(chunk_ms[i])), 0);
    r->output_tokens = out;
    r->output_source = TC_TOKENS_SERVER;
    r->prompt_tokens = 5;
    r->prompt_source = TC_TOKENS_SERVER;
}

/* Warm-up, two completed (one with an Ollama report), one failed with a
 * detail that needs CSV quoting. 1 + 3 + 2 + 1 = 7 chunks in all. */
#define N_RECS 4
#define N_CHUNKS 7
static void build(tc_req_record r[N_RECS], int server_report)
{
    const int64_t c0[] = {3}, c1[] = {110, 120, 140}, c2[] = {130, 135}, c3[] = {150};
    req(&r[0], 0, 0, c0, 1, 5, 1);
    r[0].warmup = 1;
    req(&r[1], 1, 100, c1, 3, 150, 3);
    req(&r[2], 2, 120, c2, 2, 140, 2);
    req(&r[3], 3, 140, c3, 1, 160, 0);
    r[3].error = TC_REQ_SERVER;
    snprintf(r[3].error_detail, sizeof r[3].error_detail, "bad, \"worse\"\nworst");
    if (server_report) {
        r[1].server.has_ollama = 1;
        r[1].server.eval_count = 3;
        r[1].server.eval_ns = 30000000; /* 100 tokens/s */
    }
}

static void clear_all(tc_req_record *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tc_req_record_clear(&r[i]);
}

static size_t count_char(const char *s, char ch)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == ch;
    return n;
}

/* ---- JSON contract ----------------------------------------------------- */

static json_t *get(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        fail_msg("missing key \"%s\"", key);
    return v;
}

static void expect_type(json_t *obj, const char *key, json_type type)
{
    json_t *v = get(obj, key);
    if (json_typeof(v) != type)
        fail_msg("\"%s\" has type %d, expected %d", key, (int)json_typeof(v), (int)type);
}

static void expect_number(json_t *obj, const char *key)
{
    if (!json_is_number(get(obj, key)))
        fail_msg("\"%s\" is not a number", key);
}

static const char *const summary_keys[] = {"mean", "stddev", "min", "p50",
                                           "p90",  "p95",    "p99", "max"};

/* A summary object with every key, all numbers (full) or all null. */
static void expect_summary(json_t *s, int full)
{
    assert_true(json_is_object(s));
    assert_int_equal(json_object_size(s), 8);
    for (int i = 0; i < 8; i++) {
        if (full)
            expect_number(s, summary_keys[i]);
        else
            expect_type(s, summary_keys[i], JSON_NULL);
    }
}

static void expect_run_object(json_t *run)
{
    expect_type(run, "id", JSON_INTEGER);
    expect_type(run, "label", JSON_STRING);
    expect_type(run, "status", JSON_STRING);
    expect_type(run, "created", JSON_STRING);
    expect_type(run, "endpoint", JSON_STRING);
    expect_type(run, "api", JSON_STRING);
    expect_type(run, "model", JSON_STRING);
    assert_true(json_is_boolean(get(run, "simulated")));
    expect_type(run, "concurrency", JSON_INTEGER);
    expect_type(run, "server_version", JSON_STRING);
    assert_string_equal(json_string_value(get(run, "created")), "2026-11-29T15:31:54.123456789Z");
    assert_string_equal(json_string_value(get(run, "api")), "ollama");
}

static void expect_requests(json_t *req_obj, int measured, int completed, int failed, int warmup)
{
    assert_int_equal(json_integer_value(get(req_obj, "measured")), measured);
    assert_int_equal(json_integer_value(get(req_obj, "completed")), completed);
    assert_int_equal(json_integer_value(get(req_obj, "failed")), failed);
    assert_int_equal(json_integer_value(get(req_obj, "warmup")), warmup);
}

/* Builds the document, dumps it and parses it back, as a user would. */
static json_t *round_trip(const tc_run_info *run, const tc_run_metrics *m)
{
    json_t *doc = tc_report_run_json(run, m);
    assert_non_null(doc);
    capture c;
    char err[128];
    assert_int_equal(tc_json_dump(cap_open(&c), doc, err, sizeof err), TC_OK);
    json_decref(doc);
    json_error_t e;
    json_t *back = json_loads(cap_close(&c), 0, &e);
    if (!back)
        fail_msg("invalid JSON: %s in %s", e.text, c.text);
    free(c.text);
    return back;
}

static void json_has_every_contract_key(void **state)
{
    (void)state;
    tc_req_record r[N_RECS];
    tc_run_metrics m;
    tc_run_info run = make_run(0, "nightly");
    build(r, 1);
    assert_int_equal(tc_run_metrics_compute(&run, r, N_RECS, &m), TC_OK);
    json_t *doc = round_trip(&run, &m);

    expect_run_object(get(doc, "run"));
    expect_requests(get(doc, "requests"), 3, 2, 1, 1);
    json_t *metrics = get(doc, "metrics");
    expect_summary(get(metrics, "ttft_ms"), 1);
    expect_summary(get(metrics, "itl_ms"), 1);
    expect_summary(get(metrics, "tpot_ms"), 1);
    expect_summary(get(metrics, "e2e_ms"), 1);
    json_t *tp = get(doc, "throughput");
    expect_number(tp, "requests_per_s");
    expect_number(tp, "output_tokens_per_s");
    expect_number(tp, "total_tokens_per_s");
    json_t *tok = get(doc, "tokens");
    assert_int_equal(json_integer_value(get(tok, "output")), 5);
    assert_int_equal(json_integer_value(get(tok, "prompt")), 10);
    assert_string_equal(json_string_value(get(tok, "source")), "server");
    assert_string_equal(json_string_value(get(tok, "prompt_source")), "server");
    assert_int_equal(json_integer_value(get(tok, "prompt_missing")), 0);
    json_t *speed = get(get(doc, "server"), "decode_tokens_per_s");
    assert_true(json_number_value(get(speed, "mean")) > 99.999);
    expect_number(speed, "p50");
    json_t *errors = get(doc, "errors");
    assert_int_equal(json_object_size(errors), 1);
    assert_int_equal(json_integer_value(get(errors, "server")), 1);
    expect_number(doc, "duration_s");
    expect_summary(get(doc, "decode_tokens_per_s"), 1);
    /* Only simulated runs carry the label. */
    assert_null(json_object_get(doc, "simulated"));
    assert_null(json_object_get(doc, "note"));
    json_decref(doc);
    tc_run_metrics_free(&m);
    clear_all(r, N_RECS);
}

static void json_nulls_when_nothing_measured(void **state)
{
    (void)state;
    tc_run_metrics m;
    tc_run_info run = make_run(0, "");
    run.server_version[0] = '\0';
    assert_int_equal(tc_run_metrics_compute(&run, NULL, 0, &m), TC_OK);
    json_t *doc = round_trip(&run, &m);
    json_t *metrics = get(doc, "metrics");
    expect_summary(get(metrics, "ttft_ms"), 0);
    expect_summary(get(metrics, "itl_ms"), 0);
    expect_summary(get(metrics, "tpot_ms"), 0);
    expect_summary(get(metrics, "e2e_ms"), 0);
    expect_summary(get(doc, "decode_tokens_per_s"), 0);
    expect_type(doc, "server", JSON_NULL);
    expect_type(doc, "duration_s", JSON_NULL);
    expect_type(get(doc, "throughput"), "requests_per_s", JSON_NULL);
    expect_type(get(doc, "throughput"), "output_tokens_per_s", JSON_NULL);
    expect_type(get(doc, "throughput"), "total_tokens_per_s", JSON_NULL);
    expect_type(get(doc, "tokens"), "source", JSON_NULL);
    expect_type(get(doc, "tokens"), "prompt_source", JSON_NULL);
    expect_type(get(doc, "run"), "label", JSON_NULL);
    expect_type(get(doc, "run"), "server_version", JSON_NULL);
    assert_true(json_is_object(get(doc, "errors")));
    assert_int_equal(json_object_size(get(doc, "errors")), 0);
    expect_requests(get(doc, "requests"), 0, 0, 0, 0);
    json_decref(doc);
    tc_run_metrics_free(&m);
}

static void json_server_null_without_reports(void **state)
{
    (void)state;
    tc_req_record r[N_RECS];
    tc_run_metrics m;
    tc_run_info run = make_run(0, "x");
    build(r, 0);
    assert_int_equal(tc_run_metrics_compute(&run, r, N_RECS, &m), TC_OK);
    json_t *doc = round_trip(&run, &m);
    expect_type(doc, "server", JSON_NULL);
    json_decref(doc);
    tc_run_metrics_free(&m);
    clear_all(r, N_RECS);
}

static void json_labels_simulated_runs(void **state)
{
    (void)state;
    tc_req_record r[N_RECS];
    tc_run_metrics m;
    tc_run_info run = make_run(1, "");
    build(r, 1);
    assert_int_equal(tc_run_metrics_compute(&run, r, N_RECS, &m), TC_OK);
    json_t *doc = round_trip(&run, &m);
    assert_true(json_is_true(get(doc, "simulated")));
    assert_true(json_is_true(get(get(doc, "run"), "simulated")));
    assert_memory_equal(json_string_value(get(doc, "note")), "SIMULATED: ", 11);
    json_decref(doc);
    tc_run_metrics_free(&m);
    clear_all(r, N_RECS);
}

/* The shared helpers: a missing value is null, never 0 or "", and a
 * printed document is written whole with a final newline. */
static void json_helpers_say_null_and_print(void **state)
{
    (void)state;
    json_t *v = tc_json_num(0, 3.5);
    assert_true(json_is_null(v));
    json_decref(v);
    v = tc_json_num(1, NAN);
    assert_true(json_is_null(v));
    json_decref(v);
    v = tc_json_num(1, 9.1);
    assert_true(json_real_value(v) == 9.1);
    json_decref(v);
    v = tc_json_str_or_null("");
    assert_true(json_is_null(v));
    json_decref(v);
    char err[128] = "";
    FILE *f = tmpfile();
    assert_non_null(f);
    assert_int_equal(tc_json_print(f, json_pack("{s:f}", "x", 9.1), err, sizeof err), TC_OK);
    assert_int_equal(tc_json_print(f, NULL, err, sizeof err), TC_ERR_NOMEM);
    assert_non_null(strstr(err, "out of memory"));
    char text[64] = "";
    rewind(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    text[n] = '\0';
    assert_string_equal(text, "{\n  \"x\": 9.1\n}\n");
    fclose(f);
}

/* A server's message cut at 200 bytes can end mid-character. */
static void json_string_replaces_bad_utf8(void **state)
{
    (void)state;
    json_t *v = tc_json_string("caf\xc3\xa9 \xe2\x82");
    assert_non_null(v);
    assert_string_equal(json_string_value(v), "caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd");
    json_decref(v);
    v = tc_json_string("\xc0\xaf\xed\xa0\x80ok"); /* overlong, surrogate */
    assert_non_null(v);
    assert_string_equal(json_string_value(v), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
                                              "\xef\xbf\xbd\xef\xbf\xbdok");
    json_decref(v);
    v = tc_json_string(NULL);
    assert_true(json_is_null(v));

    tc_run_metrics m;
    tc_run_info run = make_run(0, "bad \xff label");
    assert_int_equal(tc_run_metrics_compute(&run, NULL, 0, &m), TC_OK);
    json_t *doc = tc_report_run_json(&run, &m);
    assert_non_null(doc);
    assert_string_equal(json_string_value(get(get(doc, "run"), "label")), "bad \xef\xbf\xbd label");
    json_decref(doc);
    tc_run_metrics_free(&m);
}

static void runs_json_rows(void **state)
{
    (void)state;
    tc_req_record r[N_RECS];
    tc_run_metrics m;
    tc_run_info runs[2] = {make_run(0, "a"), make_run(1, "b")};
    runs[1].id = 8;
    build(r, 1);
    assert_int_equal(tc_run_metrics_compute(&runs[0], r, N_RECS, &m), TC_OK);
    const tc_run_metrics *ms[2] = {&m, NULL};
    json_t *arr = tc_report_runs_json(runs, ms, 2);
    assert_true(json_is_array(arr));
    assert_int_equal(json_array_size(arr), 2);
    static const char *const keys[] = {
        "id",         "label", "status",    "created",  "endpoint",
        "model",      "api",   "simulated", "requests", "output_tokens_per_s",
        "ttft_p50_ms"};
    for (size_t i = 0; i < 2; i++)
        for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
            get(json_array_get(arr, i), keys[k]);
    json_t *first = json_array_get(arr, 0), *second = json_array_get(arr, 1);
    expect_requests(get(first, "requests"), 3, 2, 1, 1);
    expect_number(first, "output_tokens_per_s");
    expect_number(first, "ttft_p50_ms");
    expect_type(second, "requests", JSON_NULL);
    expect_type(second, "ttft_p50_ms", JSON_NULL);
    assert_true(json_is_true(get(second, "simulated")));
    json_decref(arr);
    /* No metrics at all. */
    arr = tc_report_runs_json(runs, NULL, 2);
    expect_type(json_array_get(arr, 0), "output_tokens_per_s", JSON_NULL);
    json_decref(arr);
    tc_run_metrics_free(&m);
    clear_all(r, N_RECS);
}

/* ---- terminal table ---------------------------------------------------- */

static char *table_text(const tc_run_info *run, const tc_run_metrics *m)
{
    capture c;
    assert_int_equal(tc_report_table(cap_open(&c), run, m, 0), TC_OK);
    return cap_close(&c);
}

static void table_lines_fit(const char *text)
{
    /* "about 80 columns": no line over 82 bytes, "—" counting 3. */
    const char *line = text;
    while (*line) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (strncmp(line, "truecost run", 12) != 0 && len > 82)
            fail_msg("line of %zu bytes: %.*s", len, (int)len, line);
        line += len + (nl != NULL);
    }
}

static void table_title_and_sections(void **state)
{
    (void)state;
    tc_req_record r[N_RECS];
    tc_run_metrics m;
    tc_run_info run = make_run(0, "");
    build(r, 1);
    assert_int_equal(tc_run_metrics_compute(&run, r, N_RECS, &m), TC_OK);
    char *t = table_text(&run, &m);
    assert_memory_equal(
        t, "truecost run 7 \xe2\x80\x94 sim-llama-8b at http://127.0.0.1:1234 (ollama)\n",
        strlen("truecost run 7 \xe2\x80\x94 sim-llama-8b at http://127.0.0.1:1234 (ollama)\n"));
    assert_null(strstr(t, "SIMULATED"));
    assert_non_null(strstr(t, "3 measured, 2 completed, 1 failed, 1 warm-up"));
    assert_non_null(strstr(t, "TTFT (ms)"));
    assert_non_null(strstr(t, "ITL (ms)"));
    assert_non_null(strstr(t, "TPOT (ms)"));
    assert_non_null(strstr(t, "E2E (ms)"));
    assert_non_null(strstr(t, "requests/s"));
    assert_non_null(strstr(t, "output tokens/s"));
    assert_non_null(strstr(t, "total tokens/s"));
    assert_non_null(strstr(t, "(counted by: server count)"));
    assert_non_null(strstr(t, "server-reported: mean 100.0"));
    assert_non_null(strstr(t, "server 1\n"));
    table_lines_fit(t);
    free(t);
    tc_run_metrics_free(&m);
    clear_all(r, N_RECS);
}

static void table_simulated_title(void **state)
{
    (void)state;
    tc_req_record r[N_RECS];
    tc_run_metrics m;
    tc_run_info run = make_run(1, "");
    build(r, 0);
    assert_int_equal(tc_run_metrics_compute(&run, r, N_RECS, &m), TC_OK);
    char *t = table_text(&run, &m);
    const char *nl = strchr(t, '\n');
    const char *sim = strstr(t, "SIMULATED");
    assert_non_null(sim);
    assert_true(sim < nl); /* in the title line */
    assert_non_null(strstr(t, "server-reported: not reported by the server"));
    free(t);
    tc_run_metrics_free(&m);
    clear_all(r, N_RECS);
}

static void table_missing_is_na(void **state)
{
    (void)state;
    tc_run_metrics m;
    tc_run_info run = make_run(0, "");
    assert_int_equal(tc_run_metrics_compute(&run, NULL, 0, &m), TC_OK);
    char *t = table_text(&run, &m);
    assert_non_null(strstr(t, "TTFT (ms)      n/a     n/a     n/a     n/a     n/a     n/a"));
    assert_non_null(strstr(t, "n/a requests/s"));
    assert_non_null(strstr(t, "client-measured: mean n/a, p50 n/a"));
    assert_non_null(strstr(t, "errors        none"));
    assert_non_null(strstr(t, "duration      n/a\n"));
    free(t);
    tc_run_metrics_free(&m);
    assert_int_equal(tc_report_table(stdout, NULL, &m, 0), TC_ERR_INVALID);
}

static void fmt_precision(void **state)
{
    (void)state;
    char b[32];
    /* 4 significant digits for people, wherever the point falls (JSON
     * keeps every digit). */
    assert_string_equal(tc_report_fmt(b, sizeof b, 1, 1.23456), "1.235");
    assert_string_equal(tc_report_fmt(b, sizeof b, 1, 123.456), "123.5");
    assert_string_equal(tc_report_fmt(b, sizeof b, 1, 20.5795), "20.58");
    assert_string_equal(tc_report_fmt(b, sizeof b, 1, 12345.67), "12350");
    assert_string_equal(tc_report_fmt(b, sizeof b, 1, 1234567.8), "1235000");
    assert_string_equal(tc_report_fmt(b, sizeof b, 1, 0.0123456), "0.01235");
    assert_string_equal(tc_report_fmt(b, sizeof b, 0, 5), "n/a");
    assert_string_equal(tc_report_fmt(b, sizeof b, 1, NAN), "n/a");
    /* The shortest form, as text and the HTML print one figure. */
    assert_string_equal(tc_report_sig(b, sizeof b, 2.84938), "2.849");
    assert_string_equal(tc_report_sig(b, sizeof b, 20), "20");
    assert_string_equal(tc_report_sig(b, sizeof b, 0.5), "0.5");
    assert_string_equal(tc_report_sig(b, sizeof b, 0), "0");
    assert_string_equal(tc_report_sig(b, sizeof b, -19.8058), "-19.81");
    assert_string_equal(tc_report_sig(b, sizeof b, 864.98), "865");
    assert_string_equal(tc_report_sig(b, sizeof b, 99999.5), "100000");
    assert_string_equal(tc_report_sig(b, sizeof b, 3.2e-6), "3.200e-06");
    assert_string_equal(tc_report_sig(b, sizeof b, INFINITY), "n/a");
}

static void runs_table_lines(void **state)
{
    (void)state;
    tc_req_record r[N_RECS];
    tc_run_metrics m;
    tc_run_info runs[2] = {make_run(0, "a label much longer than twelve"), make_run(1, "")};
    build(r, 1);
    assert_int_equal(tc_run_metrics_compute(&runs[0], r, N_RECS, &m), TC_OK);
    const tc_run_metrics *ms[2] = {&m, NULL};
    capture c;
    assert_int_equal(tc_report_runs_table(cap_open(&c), runs, ms, 2, 0), TC_OK);
    char *t = cap_close(&c);
    assert_int_equal(count_char(t, '\n'), 3);
    assert_memory_equal(t, "  ID  DATE (UTC)", 16);
    assert_non_null(strstr(t, "2026-11-29 15:31"));
    assert_non_null(strstr(t, "a label muc~"));
    assert_non_null(strstr(t, "127.0.0.1:1234"));
    assert_non_null(strstr(t, "2/3"));
    const char *second = strchr(strchr(t, '\n') + 1, '\n') + 1;
    assert_null(strstr(t, "SIMULATED") < second ? strstr(t, "SIMULATED") : NULL);
    assert_non_null(strstr(second, "SIMULATED"));
    free(t);
    tc_run_metrics_free(&m);
    clear_all(r, N_RECS);
}

/* ---- export ------------------------------------------------------------ */

static char *export_text(tc_export_what what, tc_export_format fmt, const tc_run_info *run,
                         const tc_req_record *r, size_t n)
{
    capture c;
    char err[128] = "";
    tc_err e = tc_report_export(cap_open(&c), what, fmt, run, r, n, err, sizeof err);
    char *t = cap_close(&c);
    if (e != TC_OK)
        fail_msg("export failed: %s", err);
    return t;
}

/* The summary export: the run's document (computed here, as the view
 * computes it for the command) written by tc_report_export_doc. */
static char *summary_text(tc_export_format fmt, const tc_run_info *run, const tc_req_record *r,
                          size_t n)
{
    tc_run_metrics m;
    assert_int_equal(tc_run_metrics_compute(run, r, n, &m), TC_OK);
    json_t *doc = tc_report_run_json(run, &m);
    assert_non_null(doc);
    capture c;
    char err[128] = "";
    tc_err e = tc_report_export_doc(cap_open(&c), fmt, doc, err, sizeof err);
    char *t = cap_close(&c);
    json_decref(doc);
    tc_run_metrics_free(&m);
    if (e != TC_OK)
        fail_msg("export failed: %s", err);
    return t;
}

static void csv_field_quoting(void **state)
{
    (void)state;
    capture c;
    FILE *f = cap_open(&c);
    tc_report_csv_field(f, "plain");
    fputc('|', f);
    tc_report_csv_field(f, "a,b \"c\"\nd");
    fputc('|', f);
    tc_report_csv_field(f, "cr\r");
    fputc('|', f);
    tc_report_csv_field(f, "");
    char *t = cap_close(&c);
    assert_string_equal(t, "plain|\"a,b \"\"c\"\"\nd\"|\"cr\r\"|");
    free(t);
}

static void export_requests_csv(void **state)
{
    (void)state;
    tc_req_record r[N_RECS];
    tc_run_info run = make_run(0, "");
    build(r, 1);
    char *t = export_text(TC_EXPORT_REQUESTS, TC_EXPORT_CSV, &run, r, N_RECS);
    const char *head = "seq,warmup,send_wall,http_status,error,error_detail,ttft_ms,e2e_ms,";
    assert_memory_equal(t, head, strlen(head));
    /* Row of r1: TTFT 10 ms, E2E 50 ms, TPOT 20 ms, and its Ollama report;
     * no llama.cpp timings: empty fields. */
    assert_non_null(strstr(t, "\n1,false,2026-11-29T15:31:54.223456789Z,200,ok,,10,50,20,3,"
                              "server,5,server,3,0,0,0,0,3,30000000,,,,,,false\n"));
    /* The failed one: quoted detail, no latency. */
    assert_non_null(strstr(t, "\n3,false,2026-11-29T15:31:54.263456789Z,200,server,"
                              "\"bad, \"\"worse\"\"\nworst\",,,,0,server,"));
    free(t);
    clear_all(r, N_RECS);
}

static void export_requests_json(void **state)
{
    (void)state;
    tc_req_record r[N_RECS];
    tc_run_info run = make_run(1, "");
    build(r, 0);
    char *t = export_text(TC_EXPORT_REQUESTS, TC_EXPORT_JSON, &run, r, N_RECS);
    json_error_t e;
    json_t *arr = json_loads(t, 0, &e);
    if (!arr)
        fail_msg("invalid JSON: %s in %s", e.text, t);
    assert_int_equal(json_array_size(arr), N_RECS);
    json_t *failed = json_array_get(arr, 3);
    expect_type(failed, "ttft_ms", JSON_NULL);
    expect_type(failed, "eval_count", JSON_NULL);
    assert_string_equal(json_string_value(get(failed, "error")), "server");
    assert_string_equal(json_string_value(get(failed, "error_detail")), "bad, \"worse\"\nworst");
    assert_true(json_is_true(get(json_array_get(arr, 0), "warmup")));
    assert_true(json_is_true(get(failed, "simulated")));
    assert_true(json_number_value(get(json_array_get(arr, 1), "ttft_ms")) == 10.0);
    json_decref(arr);
    free(t);
    clear_all(r, N_RECS);
}

static void export_chunks_counts(void **state)
{
    (void)state;
    tc_req_record r[N_RECS];
    tc_run_info run = make_run(0, "");
    build(r, 0);
    char *t = export_text(TC_EXPORT_CHUNKS, TC_EXPORT_CSV, &run, r, N_RECS);
    assert_int_equal(count_char(t, '\n'), 1 + N_CHUNKS);
    const char *head = "seq,index,t_ms,gap_ms,warmup,error,simulated\n0,0,3,,true,ok,false\n"
                       "1,0,10,,false,ok,false\n1,1,20,10,false,ok,false\n"
                       "1,2,40,20,false,ok,false\n";
    assert_memory_equal(t, head, strlen(head));
    free(t);
    t = export_text(TC_EXPORT_CHUNKS, TC_EXPORT_JSON, &run, r, N_RECS);
    json_t *arr = json_loads(t, 0, NULL);
    assert_non_null(arr);
    assert_int_equal(json_array_size(arr), N_CHUNKS);
    expect_type(json_array_get(arr, 0), "gap_ms", JSON_NULL);
    json_decref(arr);
    free(t);
    /* No records: a header only / an empty array. */
    t = export_text(TC_EXPORT_CHUNKS, TC_EXPORT_CSV, &run, NULL, 0);
    assert_string_equal(t, "seq,index,t_ms,gap_ms,warmup,error,simulated\n");
    free(t);
    t = export_text(TC_EXPORT_REQUESTS, TC_EXPORT_JSON, &run, NULL, 0);
    assert_string_equal(t, "[]\n");
    free(t);
    clear_all(r, N_RECS);
}

/* A group: three runs (the middle one without records) under one header
 * with a run_id column; JSON stays one valid array. */
static void export_group_parts(void **state)
{
    (void)state;
    tc_req_record r[N_RECS];
    tc_run_info runs[3] = {make_run(0, ""), make_run(0, ""), make_run(0, "")};
    for (int i = 0; i < 3; i++)
        runs[i].id = 7 + i;
    build(r, 0);
    for (int fmt = TC_EXPORT_CSV; fmt <= TC_EXPORT_JSON; fmt++) {
        capture c;
        char err[128] = "";
        size_t rows = 0;
        FILE *f = cap_open(&c);
        for (int i = 0; i < 3; i++) {
            size_t n = i == 1 ? 0 : N_RECS;
            assert_int_equal(tc_report_export_part(f, TC_EXPORT_CHUNKS, (tc_export_format)fmt,
                                                   &runs[i], n ? r : NULL, n, i == 0, i == 2, &rows,
                                                   err, sizeof err),
                             TC_OK);
        }
        char *t = cap_close(&c);
        assert_int_equal(rows, 2 * N_CHUNKS);
        if (fmt == TC_EXPORT_CSV) {
            assert_int_equal(count_char(t, '\n'), 1 + 2 * N_CHUNKS);
            const char *head =
                "run_id,seq,index,t_ms,gap_ms,warmup,error,simulated\n7,0,0,3,,true,ok,false\n";
            assert_memory_equal(t, head, strlen(head));
            assert_non_null(strstr(t, "\n9,1,2,40,20,false,ok,false\n"));
            assert_null(strstr(t, "\n8,")); /* the empty run has no rows */
        } else {
            json_error_t je;
            json_t *arr = json_loads(t, 0, &je);
            if (!arr)
                fail_msg("not JSON: %s in %s", je.text, t);
            assert_int_equal(json_array_size(arr), 2 * N_CHUNKS);
            assert_int_equal(json_integer_value(json_object_get(json_array_get(arr, 0), "run_id")),
                             7);
            assert_int_equal(
                json_integer_value(json_object_get(json_array_get(arr, N_CHUNKS), "run_id")), 9);
            json_decref(arr);
        }
        free(t);
    }
    char err[128] = "";
    size_t rows = 0;
    assert_int_equal(tc_report_export_part(stdout, TC_EXPORT_SUMMARY, TC_EXPORT_CSV, &runs[0], r,
                                           N_RECS, 1, 1, &rows, err, sizeof err),
                     TC_ERR_INVALID);
    clear_all(r, N_RECS);
}

/* Arrays in a summary document flatten by index. */
static void export_doc_flattens_arrays(void **state)
{
    (void)state;
    json_t *doc = json_pack("{s:s,s:[{s:i},{s:i}]}", "group", "g", "runs", "id", 4, "id", 5);
    capture c;
    char err[128];
    assert_int_equal(tc_report_export_doc(cap_open(&c), TC_EXPORT_CSV, doc, err, sizeof err),
                     TC_OK);
    char *t = cap_close(&c);
    assert_string_equal(t, "key,value\ngroup,g\nruns.0.id,4\nruns.1.id,5\n");
    free(t);
    json_decref(doc);
}

static void export_summary_both(void **state)
{
    (void)state;
    tc_req_record r[N_RECS];
    tc_run_info run = make_run(1, "lab,el \"q\"\nx");
    build(r, 0);
    char *t = summary_text(TC_EXPORT_CSV, &run, r, N_RECS);
    /* The note holds a comma, so it is quoted. */
    const char *head = "key,value\nsimulated,true\nnote,\"SIMULATED: ";
    assert_memory_equal(t, head, strlen(head));
    assert_non_null(strstr(t, "\nrun.label,\"lab,el \"\"q\"\"\nx\"\n"));
    assert_non_null(strstr(t, "\nrequests.measured,3\n"));
    assert_non_null(strstr(t, "\nmetrics.ttft_ms.p50,"));
    assert_non_null(strstr(t, "\nserver,\n")); /* null: empty value */
    free(t);
    t = summary_text(TC_EXPORT_JSON, &run, r, N_RECS);
    json_t *doc = json_loads(t, 0, NULL);
    assert_non_null(doc);
    assert_string_equal(json_string_value(get(get(doc, "run"), "label")), "lab,el \"q\"\nx");
    json_decref(doc);
    free(t);
    clear_all(r, N_RECS);
}

static void export_names(void **state)
{
    (void)state;
    tc_export_what w;
    tc_export_format f;
    assert_int_equal(tc_report_export_what_parse("chunks", &w), 0);
    assert_int_equal(w, TC_EXPORT_CHUNKS);
    assert_int_equal(tc_report_export_what_parse("chunk", &w), -1);
    assert_int_equal(tc_report_export_format_parse("json", &f), 0);
    assert_int_equal(f, TC_EXPORT_JSON);
    assert_int_equal(tc_report_export_format_parse("xml", &f), -1);
    assert_string_equal(tc_report_export_what_name(TC_EXPORT_SUMMARY), "summary");
    assert_string_equal(tc_report_export_format_name(TC_EXPORT_CSV), "csv");
    char err[64];
    assert_int_equal(tc_report_export(stdout, TC_EXPORT_WHAT_COUNT, TC_EXPORT_CSV, NULL, NULL, 0,
                                      err, sizeof err),
                     TC_ERR_INVALID);
    /* The summary is not computed a second way here: the caller's document. */
    tc_run_info run = make_run(1, "x");
    assert_int_equal(
        tc_report_export(stdout, TC_EXPORT_SUMMARY, TC_EXPORT_CSV, &run, NULL, 0, err, sizeof err),
        TC_ERR_INVALID);
}

/* ---- review fixes ------------------------------------------------------ */

/* r2's server gave no prompt count (an older Ollama on a cached prompt):
 * the prompt total and total tokens/s are not available, not r1's 5. */
static void prompt_unknown_is_null_and_na(void **state)
{
    (void)state;
    tc_req_record r[N_RECS];
    tc_run_metrics m;
    tc_run_info run = make_run(0, "x");
    build(r, 0);
    r[2].prompt_tokens = 0;
    r[2].prompt_source = TC_TOKENS_NONE;
    assert_int_equal(tc_run_metrics_compute(&run, r, N_RECS, &m), TC_OK);
    json_t *doc = round_trip(&run, &m);
    json_t *tok = get(doc, "tokens"), *tp = get(doc, "throughput");
    expect_type(tok, "prompt", JSON_NULL);
    assert_string_equal(json_string_value(get(tok, "prompt_source")), "mixed");
    assert_int_equal(json_integer_value(get(tok, "prompt_missing")), 1);
    assert_int_equal(json_integer_value(get(tok, "output")), 5);
    expect_type(tp, "total_tokens_per_s", JSON_NULL);
    expect_number(tp, "output_tokens_per_s");
    json_decref(doc);

    char *t = table_text(&run, &m);
    assert_non_null(strstr(t, "n/a total tokens/s (no prompt count for 1 of 2 requests)\n"));
    assert_non_null(strstr(t, "5 output, n/a prompt (counted by: server count)"));
    table_lines_fit(t);
    free(t);
    tc_run_metrics_free(&m);

    /* The export of the summary says the same. */
    t = summary_text(TC_EXPORT_CSV, &run, r, N_RECS);
    assert_non_null(strstr(t, "\ntokens.prompt,\n"));
    assert_non_null(strstr(t, "\nthroughput.total_tokens_per_s,\n"));
    assert_non_null(strstr(t, "\ntokens.prompt_source,mixed\n"));
    free(t);
    clear_all(r, N_RECS);
}

/* Each chunk row says its request's warmup and error, so the ITL
 * population (warmup false, error ok) can be selected from the export. */
static void export_chunks_mark_warmup_and_failed(void **state)
{
    (void)state;
    tc_req_record r[N_RECS];
    tc_run_info run = make_run(1, "");
    build(r, 0);
    char *t = export_text(TC_EXPORT_CHUNKS, TC_EXPORT_CSV, &run, r, N_RECS);
    assert_memory_equal(t, "seq,index,t_ms,gap_ms,warmup,error,simulated\n0,0,3,,true,ok,true\n",
                        strlen("seq,index,t_ms,gap_ms,warmup,error,simulated\n"
                               "0,0,3,,true,ok,true\n"));
    assert_non_null(strstr(t, "\n3,0,10,,false,server,true\n"));
    free(t);
    t = export_text(TC_EXPORT_CHUNKS, TC_EXPORT_JSON, &run, r, N_RECS);
    json_t *arr = json_loads(t, 0, NULL);
    assert_non_null(arr);
    assert_int_equal(json_array_size(arr), N_CHUNKS);
    size_t i, itl = 0;
    json_t *row;
    json_array_foreach(arr, i, row)
    {
        int64_t seq = json_integer_value(get(row, "seq"));
        assert_true(json_is_boolean(get(row, "warmup")));
        assert_int_equal(json_is_true(get(row, "warmup")), seq == 0);
        assert_string_equal(json_string_value(get(row, "error")), seq == 3 ? "server" : "ok");
        assert_true(json_is_true(get(row, "simulated")));
        if (json_is_false(get(row, "warmup")) &&
            strcmp(json_string_value(get(row, "error")), "ok") == 0 &&
            !json_is_null(get(row, "gap_ms")))
            itl++;
    }
    /* The rows so selected hold exactly the gaps the ITL figure pools. */
    tc_run_metrics m;
    assert_int_equal(tc_run_metrics_compute(&run, r, N_RECS, &m), TC_OK);
    assert_int_equal(itl, m.itl_ms.n);
    tc_run_metrics_free(&m);
    json_decref(arr);
    free(t);
    clear_all(r, N_RECS);
}

/* Two devices, three samples; the second device's name is not UTF-8. */
static char *samples_text(int json, int simulated)
{
    tc_run_device devs[2];
    tc_run_sample smp[3];
    memset(devs, 0, sizeof devs);
    memset(smp, 0, sizeof smp);
    snprintf(devs[0].info.name, sizeof devs[0].info.name, "GPU \"zero\"");
    snprintf(devs[1].info.name, sizeof devs[1].info.name, "bad \xff name");
    for (int i = 0; i < 3; i++) {
        smp[i].device = i == 2;
        smp[i].s.mono_ns = MS(100 * i);
        smp[i].s.valid = TC_TF_POWER;
        smp[i].s.power_mw = 250000;
    }
    capture c;
    char err[128] = "";
    tc_err e =
        tc_report_export_samples(cap_open(&c), json, simulated, devs, 2, smp, 3, err, sizeof err);
    char *t = cap_close(&c);
    if (e != TC_OK)
        fail_msg("export samples failed: %s", err);
    return t;
}

/* Like every other export, the samples say SIMULATED on every row. */
static void export_samples_simulated(void **state)
{
    (void)state;
    for (int sim = 0; sim <= 1; sim++) {
        char *t = samples_text(0, sim);
        const char *nl = strchr(t, '\n');
        assert_non_null(nl);
        assert_memory_equal(nl - strlen(",simulated"), ",simulated", strlen(",simulated"));
        assert_int_equal(count_char(t, '\n'), 4);
        for (const char *line = nl + 1; *line; line = strchr(line, '\n') + 1) {
            const char *end = strchr(line, '\n');
            const char *want = sim ? ",true" : ",false";
            assert_memory_equal(end - strlen(want), want, strlen(want));
        }
        free(t);
        t = samples_text(1, sim);
        json_error_t je;
        json_t *arr = json_loads(t, 0, &je);
        if (!arr)
            fail_msg("not JSON: %s in %s", je.text, t);
        assert_int_equal(json_array_size(arr), 3); /* the bad name loses no row */
        for (size_t i = 0; i < 3; i++)
            assert_int_equal(json_is_true(get(json_array_get(arr, i), "simulated")), sim);
        assert_string_equal(json_string_value(get(json_array_get(arr, 2), "name")),
                            "bad \xef\xbf\xbd name");
        json_decref(arr);
        free(t);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_has_every_contract_key),
        cmocka_unit_test(json_nulls_when_nothing_measured),
        cmocka_unit_test(json_server_null_without_reports),
        cmocka_unit_test(json_labels_simulated_runs),
        cmocka_unit_test(json_string_replaces_bad_utf8),
        cmocka_unit_test(runs_json_rows),
        cmocka_unit_test(table_title_and_sections),
        cmocka_unit_test(table_simulated_title),
        cmocka_unit_test(table_missing_is_na),
        cmocka_unit_test(fmt_precision),
        cmocka_unit_test(runs_table_lines),
        cmocka_unit_test(csv_field_quoting),
        cmocka_unit_test(export_requests_csv),
        cmocka_unit_test(export_requests_json),
        cmocka_unit_test(export_chunks_counts),
        cmocka_unit_test(export_group_parts),
        cmocka_unit_test(export_doc_flattens_arrays),
        cmocka_unit_test(export_summary_both),
        cmocka_unit_test(export_names),
        cmocka_unit_test(prompt_unknown_is_null_and_na),
        cmocka_unit_test(export_chunks_mark_warmup_and_failed),
        cmocka_unit_test(export_samples_simulated),
        cmocka_unit_test(json_helpers_say_null_and_print),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
