#include "analysis/figures_codec.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

/* ---- the codec: one table of fields, read and written alike ------------- */

typedef enum { F_INT, F_I64, F_DBL } field_kind;

typedef struct field {
    const char *name;
    field_kind kind;
    size_t off;
} field;

#define I(f)                                                                                       \
    {                                                                                              \
#f, F_INT, offsetof(tc_run_metrics, f)                                                     \
    }
#define L(f)                                                                                       \
    {                                                                                              \
#f, F_I64, offsetof(tc_run_metrics, f)                                                     \
    }
#define D(f)                                                                                       \
    {                                                                                              \
#f, F_DBL, offsetof(tc_run_metrics, f)                                                     \
    }

static const field fields[] = {
    I(simulated),
    I(open_loop),
    L(requests.measured),
    L(requests.completed),
    L(requests.failed),
    L(requests.warmup),
    L(requests.retried),
    I(has_server_decode),
    I(has_duration),
    D(duration_s),
    D(requests_per_s),
    D(output_tokens_per_s),
    D(total_tokens_per_s),
    L(output_tokens),
    I(has_prompt_tokens),
    L(prompt_tokens),
    L(prompt_missing),
    I(token_source),
    I(token_source_mixed),
    I(prompt_source),
    I(prompt_source_mixed),
    I(has_send),
    I(has_end),
    L(first_send),
    L(last_end),
    I(has_any_send),
    L(first_send_any),
    I(window.has_window),
    L(window.from),
    L(window.to),
    D(window.seconds),
    D(window.output_tokens),
    D(window.requests),
    L(window.completed),
    D(window.output_tokens_per_s),
    D(window.requests_per_s),
    D(window.arrivals_per_s),
    I(has_slo),
    L(goodput.measured),
    L(goodput.completed),
    L(goodput.good),
    L(goodput.good_output_tokens),
    I(goodput.has_rates),
    D(goodput.requests_per_s),
    D(goodput.output_tokens_per_s),
    D(goodput.attainment),
    I(goodput.has_window),
    D(goodput.window_good),
    D(goodput.window_good_tokens),
    D(goodput.window_requests_per_s),
    D(goodput.window_output_tokens_per_s),
};

static const struct {
    const char *name;
    size_t off;
} summaries[] = {
    {"ttft_ms", offsetof(tc_run_metrics, ttft_ms)},
    {"itl_ms", offsetof(tc_run_metrics, itl_ms)},
    {"tpot_ms", offsetof(tc_run_metrics, tpot_ms)},
    {"e2e_ms", offsetof(tc_run_metrics, e2e_ms)},
    {"decode_tps", offsetof(tc_run_metrics, decode_tps)},
    {"server_decode_tps", offsetof(tc_run_metrics, server_decode_tps)},
    {"schedule_lag_ms", offsetof(tc_run_metrics, schedule_lag_ms)},
};

#define N_SUMMARY_VALUES 8
static const char *const summary_keys[N_SUMMARY_VALUES] = {"mean", "stddev", "min", "p50",
                                                           "p90",  "p95",    "p99", "max"};

static double *summary_value(tc_summary *s, int i)
{
    double *v[N_SUMMARY_VALUES] = {&s->mean, &s->stddev, &s->min, &s->p50,
                                   &s->p90,  &s->p95,    &s->p99, &s->max};
    return v[i];
}

/* NaN has no JSON form: null stands for it. */
static json_t *real_or_null(double v)
{
    return isnan(v) ? json_null() : json_real(v);
}

static json_t *encode_field(const tc_run_metrics *m, const field *f)
{
    const char *p = (const char *)m + f->off;
    switch (f->kind) {
    case F_INT:
        return json_integer(*(const int *)p);
    case F_I64:
        return json_integer(*(const int64_t *)p);
    default:
        return real_or_null(*(const double *)p);
    }
}

static json_t *encode_summary(const tc_summary *s)
{
    json_t *o = json_object();
    json_object_set_new(o, "n", json_integer((json_int_t)s->n));
    for (int i = 0; i < N_SUMMARY_VALUES; i++)
        json_object_set_new(o, summary_keys[i], real_or_null(*summary_value((tc_summary *)s, i)));
    return o;
}

char *tc_figures_encode(const tc_run_metrics *m)
{
    json_t *doc = json_object(), *errors = json_object();
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        json_object_set_new(doc, fields[i].name, encode_field(m, &fields[i]));
    for (size_t i = 0; i < sizeof summaries / sizeof summaries[0]; i++)
        json_object_set_new(
            doc, summaries[i].name,
            encode_summary((const tc_summary *)((const char *)m + summaries[i].off)));
    for (int e = 1; e < TC_REQ_ERROR_COUNT; e++)
        json_object_set_new(errors, tc_req_error_name((tc_req_error)e), json_integer(m->errors[e]));
    json_object_set_new(doc, "errors", errors);
    char slo[TC_SLO_TEXT_MAX] = "";
    if (m->has_slo)
        tc_slo_text(&m->slo, slo, sizeof slo);
    json_object_set_new(doc, "slo", json_string(slo));
    /* 17 significant digits: every double comes back to the last bit. */
    char *text = json_dumps(doc, JSON_COMPACT | JSON_REAL_PRECISION(17));
    json_decref(doc);
    return text;
}

static int read_number(json_t *v, field_kind kind, void *dst)
{
    if (kind == F_DBL) {
        if (!json_is_number(v) && !json_is_null(v))
            return -1;
        *(double *)dst = json_is_null(v) ? NAN : json_number_value(v);
    } else if (!json_is_integer(v)) {
        return -1;
    } else if (kind == F_INT) {
        *(int *)dst = (int)json_integer_value(v);
    } else {
        *(int64_t *)dst = json_integer_value(v);
    }
    return 0;
}

static int decode_summary(json_t *o, tc_summary *s)
{
    json_t *n = json_object_get(o, "n");
    if (!json_is_integer(n) || json_integer_value(n) < 0)
        return -1;
    s->n = (size_t)json_integer_value(n);
    for (int i = 0; i < N_SUMMARY_VALUES; i++)
        if (read_number(json_object_get(o, summary_keys[i]), F_DBL, summary_value(s, i)) != 0)
            return -1;
    return 0;
}

static const char *decode_all(json_t *doc, tc_run_metrics *m)
{
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        if (read_number(json_object_get(doc, fields[i].name), fields[i].kind,
                        (char *)m + fields[i].off) != 0)
            return fields[i].name;
    for (size_t i = 0; i < sizeof summaries / sizeof summaries[0]; i++)
        if (decode_summary(json_object_get(doc, summaries[i].name),
                           (tc_summary *)((char *)m + summaries[i].off)) != 0)
            return summaries[i].name;
    json_t *errors = json_object_get(doc, "errors");
    for (int e = 1; e < TC_REQ_ERROR_COUNT; e++)
        if (read_number(json_object_get(errors, tc_req_error_name((tc_req_error)e)), F_I64,
                        &m->errors[e]) != 0)
            return "errors";
    const char *slo = json_string_value(json_object_get(doc, "slo"));
    char ignored[256];
    if (!slo || (m->has_slo && tc_slo_parse(slo, &m->slo, ignored, sizeof ignored) != TC_OK))
        return "slo";
    return NULL;
}

tc_err tc_figures_decode(const char *json, tc_run_metrics *m, char *err, size_t errlen)
{
    tc_run_metrics_begin(m, NULL, 1, 0);
    json_t *doc = json_loads(json ? json : "", 0, NULL);
    const char *bad = json_is_object(doc) ? decode_all(doc, m) : "the document";
    json_decref(doc);
    if (bad) {
        tc_run_metrics_free(m);
        return tc_fail(err, errlen, TC_ERR_INVALID, "stored figures: %s is missing or malformed",
                       bad);
    }
    return TC_OK;
}

/* ---- computing, reading and saving ------------------------------------- */
