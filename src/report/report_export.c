#include "report_export.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "analysis/run_metrics.h"
#include "core/tc_time.h"
#include "report/report_json.h"

/* A write to out failed: says what was being written and why (the caller
 * puts its own "export:" in front). */
static tc_err write_failed(char *err, size_t errlen, const char *what)
{
    int e = errno;
    return tc_fail(err, errlen, TC_ERR_IO, "writing %s failed: %s", what,
                   e ? strerror(e) : "unknown error");
}

static const char *const what_names[TC_EXPORT_WHAT_COUNT] = {"requests", "chunks", "summary"};
static const char *const format_names[TC_EXPORT_FORMAT_COUNT] = {"csv", "json"};

const char *tc_report_export_what_name(tc_export_what what)
{
    return (unsigned)what < TC_EXPORT_WHAT_COUNT ? what_names[what] : "?";
}

const char *tc_report_export_format_name(tc_export_format fmt)
{
    return (unsigned)fmt < TC_EXPORT_FORMAT_COUNT ? format_names[fmt] : "?";
}

static int find_name(const char *const *names, int n, const char *name)
{
    for (int i = 0; name && i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

int tc_report_export_what_parse(const char *name, tc_export_what *out)
{
    int i = find_name(what_names, TC_EXPORT_WHAT_COUNT, name);
    if (i < 0)
        return -1;
    *out = (tc_export_what)i;
    return 0;
}

int tc_report_export_format_parse(const char *name, tc_export_format *out)
{
    int i = find_name(format_names, TC_EXPORT_FORMAT_COUNT, name);
    if (i < 0)
        return -1;
    *out = (tc_export_format)i;
    return 0;
}

void tc_report_csv_field(FILE *out, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        fputs(s, out);
        return;
    }
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

/* One value of a row, written the same way into CSV and JSON. */
typedef enum cell_kind { CELL_NULL, CELL_INT, CELL_REAL, CELL_TEXT, CELL_BOOL } cell_kind;

typedef struct cell {
    cell_kind kind;
    int64_t i;
    double d;
    const char *s;
} cell;

static cell c_int(int valid, int64_t v)
{
    return (cell){valid ? CELL_INT : CELL_NULL, v, 0, NULL};
}

static cell c_real(int valid, double v)
{
    return (cell){valid && isfinite(v) ? CELL_REAL : CELL_NULL, 0, v, NULL};
}

/* "" is missing, like every unknown text in a record. */
static cell c_text(const char *s)
{
    return (cell){s && s[0] ? CELL_TEXT : CELL_NULL, 0, 0, s};
}

static cell c_bool(int v)
{
    return (cell){CELL_BOOL, v != 0, 0, NULL};
}

/* Rows go out one by one, so a run of millions of chunks needs no memory
 * beyond one row. */
typedef struct writer {
    FILE *out;
    tc_export_format fmt;
    const char *const *cols;
    int ncols;
    size_t rows;
    int nomem;
    /* A group's export: a first column "run_id", and the begin and end of
     * the list written only around the first and the last run. */
    int with_run_id, skip_begin, skip_end;
    int64_t run_id;
} writer;

static void csv_cell(FILE *out, const cell *c)
{
    switch (c->kind) {
    case CELL_INT:
        fprintf(out, "%lld", (long long)c->i);
        break;
    case CELL_REAL:
        fprintf(out, "%.15g", c->d); /* 15 digits: ns-exact ms, no binary noise */
        break;
    case CELL_TEXT:
        tc_report_csv_field(out, c->s);
        break;
    case CELL_BOOL:
        fputs(c->i ? "true" : "false", out);
        break;
    default:
        break;
    }
}

static json_t *json_cell(const cell *c)
{
    switch (c->kind) {
    case CELL_INT:
        return json_integer(c->i);
    case CELL_REAL:
        return json_real(c->d);
    case CELL_TEXT:
        return tc_json_string(c->s);
    case CELL_BOOL:
        return json_boolean(c->i);
    default:
        return json_null();
    }
}

static void w_begin(writer *w)
{
    if (w->skip_begin)
        return;
    if (w->fmt == TC_EXPORT_JSON) {
        fputc('[', w->out);
        return;
    }
    if (w->with_run_id)
        fputs(w->ncols ? "run_id," : "run_id", w->out);
    for (int i = 0; i < w->ncols; i++) {
        if (i)
            fputc(',', w->out);
        tc_report_csv_field(w->out, w->cols[i]);
    }
    fputc('\n', w->out);
}

static void w_json_row(writer *w, const cell *row)
{
    json_t *o = json_object();
    if (o && w->with_run_id && json_object_set_new(o, "run_id", json_integer(w->run_id)) != 0)
        w->nomem = 1;
    for (int i = 0; o && i < w->ncols; i++)
        if (json_object_set_new(o, w->cols[i], json_cell(&row[i])) != 0)
            w->nomem = 1;
    if (!o || w->nomem) {
        w->nomem = 1;
        json_decref(o);
        return;
    }
    fputs(w->rows ? ",\n" : "\n", w->out);
    json_dumpf(o, w->out, JSON_REAL_PRECISION(15));
    json_decref(o);
}

static void w_row(writer *w, const cell *row)
{
    if (w->nomem)
        return;
    if (w->fmt == TC_EXPORT_JSON) {
        w_json_row(w, row);
    } else {
        if (w->with_run_id)
            fprintf(w->out, "%lld%s", (long long)w->run_id, w->ncols ? "," : "");
        for (int i = 0; i < w->ncols; i++) {
            if (i)
                fputc(',', w->out);
            csv_cell(w->out, &row[i]);
        }
        fputc('\n', w->out);
    }
    w->rows++;
}

static void w_end(writer *w)
{
    if (w->skip_end)
        return;
    if (w->fmt == TC_EXPORT_JSON)
        fputs(w->rows ? "\n]\n" : "]\n", w->out);
}

/* clang-format off */
static const char *const request_cols[] = {
    "seq", "warmup", "send_wall", "http_status", "error", "error_detail",
    "ttft_ms", "e2e_ms", "tpot_ms",
    "output_tokens", "output_source", "prompt_tokens", "prompt_source", "chunks",
    /* Ollama */
    "total_duration_ns", "load_duration_ns", "prompt_eval_count", "prompt_eval_duration_ns",
    "eval_count", "eval_duration_ns",
    /* llama.cpp */
    "prompt_n", "prompt_ms", "predicted_n", "predicted_ms", "predicted_per_second",
    "simulated"};
/* clang-format on */
#define REQUEST_NCOLS ((int)(sizeof request_cols / sizeof request_cols[0]))
/* An open loop's rows add, after send_wall, when each request was meant to
 * go out and how late it went: a closed loop's rows stay as they were. */
/* clang-format off */
static const char *const open_request_cols[] = {
    "seq", "warmup", "send_wall", "sched_wall", "schedule_lag_ms", "http_status", "error",
    "error_detail", "ttft_ms", "e2e_ms", "tpot_ms",
    "output_tokens", "output_source", "prompt_tokens", "prompt_source", "chunks",
    "total_duration_ns", "load_duration_ns", "prompt_eval_count", "prompt_eval_duration_ns",
    "eval_count", "eval_duration_ns",
    "prompt_n", "prompt_ms", "predicted_n", "predicted_ms", "predicted_per_second",
    "simulated"};
/* clang-format on */
#define OPEN_REQUEST_NCOLS ((int)(sizeof open_request_cols / sizeof open_request_cols[0]))

/* The server's own figures; all missing when it sent none. */
static void server_cells(const tc_server_report *s, cell *c)
{
    int o = s->has_ollama, t = s->has_timings;
    c[0] = c_int(o, s->total_ns);
    c[1] = c_int(o, s->load_ns);
    c[2] = c_int(o, s->prompt_eval_count);
    c[3] = c_int(o, s->prompt_eval_ns);
    c[4] = c_int(o, s->eval_count);
    c[5] = c_int(o, s->eval_ns);
    c[6] = c_int(t, s->prompt_n);
    c[7] = c_real(t, s->prompt_ms);
    c[8] = c_int(t, s->predicted_n);
    c[9] = c_real(t, s->predicted_ms);
    c[10] = c_real(t, s->predicted_per_second);
}

/* The intended send time on the wall clock: the send's, less the lag. */
static cell sched_wall(const tc_req_record *r, char *date, size_t dlen)
{
    if (r->send_wall_ns <= 0)
        return c_text("");
    return c_text(tc_rfc3339_ns(r->send_wall_ns - (r->send_ns - tc_req_start_ns(r)), date, dlen));
}

/* The row of one request; `open` adds the two open-loop columns. */
static void request_cells(const tc_req_record *r, int simulated, int open, char *date, char *date2,
                          size_t dlen, cell *c)
{
    int64_t ttft = tc_req_ttft_ns(r), e2e = tc_req_e2e_ns(r);
    double tpot = tc_req_tpot_ns(r);
    int k = 0;
    c[k++] = c_int(1, r->seq);
    c[k++] = c_bool(r->warmup);
    c[k++] = c_text(r->send_wall_ns > 0 ? tc_rfc3339_ns(r->send_wall_ns, date, dlen) : "");
    if (open) {
        c[k++] = sched_wall(r, date2, dlen);
        c[k++] = c_real(1, (double)(r->send_ns - tc_req_start_ns(r)) / 1e6);
    }
    c[k++] = c_int(r->http_status > 0, r->http_status);
    c[k++] = c_text(tc_req_error_name(r->error));
    c[k++] = c_text(r->error_detail);
    c[k++] = c_real(ttft >= 0, (double)ttft / 1e6);
    c[k++] = c_real(e2e >= 0, (double)e2e / 1e6);
    c[k++] = c_real(tpot >= 0, tpot / 1e6);
    /* A count of unknown source is no count at all. */
    c[k++] = c_int(r->output_source != TC_TOKENS_NONE, r->output_tokens);
    c[k++] = c_text(tc_token_source_name(r->output_source));
    c[k++] = c_int(r->prompt_source != TC_TOKENS_NONE, r->prompt_tokens);
    c[k++] = c_text(tc_token_source_name(r->prompt_source));
    c[k++] = c_int(1, (int64_t)r->n_chunks);
    server_cells(&r->server, &c[k]);
    k += 11;
    _Static_assert(REQUEST_NCOLS == 26 && OPEN_REQUEST_NCOLS == 28,
                   "request_cells fills 26 columns, 28 in an open loop");
    c[k] = c_bool(simulated);
}

static void export_requests(writer *w, const tc_req_record *recs, size_t n, int simulated, int open)
{
    cell row[OPEN_REQUEST_NCOLS];
    char date[40], date2[40];
    w->cols = open ? open_request_cols : request_cols;
    w->ncols = open ? OPEN_REQUEST_NCOLS : REQUEST_NCOLS;
    w_begin(w);
    for (size_t i = 0; i < n && !w->nomem; i++) {
        request_cells(&recs[i], simulated, open, date, date2, sizeof date, row);
        w_row(w, row);
    }
    w_end(w);
}

/* warmup and error say which request a chunk belongs to, so that the ITL
 * population (not warm-up, error "ok") can be selected; simulated stays
 * last, as in the requests export. */
static const char *const chunk_cols[] = {"seq",    "index", "t_ms",     "gap_ms",
                                         "warmup", "error", "simulated"};
#define CHUNK_NCOLS ((int)(sizeof chunk_cols / sizeof chunk_cols[0]))

static void export_chunks(writer *w, const tc_req_record *recs, size_t n, int simulated)
{
    cell row[CHUNK_NCOLS];
    w->cols = chunk_cols;
    w->ncols = CHUNK_NCOLS;
    w_begin(w);
    for (size_t i = 0; i < n && !w->nomem; i++) {
        const tc_req_record *r = &recs[i];
        for (size_t k = 0; k < r->n_chunks && !w->nomem; k++) {
            row[0] = c_int(1, r->seq);
            row[1] = c_int(1, (int64_t)k);
            row[2] = c_real(1, (double)(r->chunk_ns[k] - r->send_ns) / 1e6);
            row[3] = c_real(k > 0, k > 0 ? (double)(r->chunk_ns[k] - r->chunk_ns[k - 1]) / 1e6 : 0);
            row[4] = c_bool(r->warmup);
            row[5] = c_text(tc_req_error_name(r->error));
            _Static_assert(CHUNK_NCOLS == 7, "export_chunks fills 7 columns");
            row[6] = c_bool(simulated);
            w_row(w, row);
        }
    }
    w_end(w);
}

/* One "key,value" row per leaf of the document; dotted keys, array
 * elements by index ("runs.0.id"). */
static void flatten(FILE *out, const char *prefix, json_t *v)
{
    char key[256];
    const char *k;
    json_t *child;
    size_t i;
    if (json_is_array(v)) {
        json_array_foreach(v, i, child)
        {
            snprintf(key, sizeof key, "%s%s%zu", prefix, prefix[0] ? "." : "", i);
            flatten(out, key, child);
        }
        return;
    }
    if (json_is_object(v)) {
        json_object_foreach(v, k, child)
        {
            snprintf(key, sizeof key, "%s%s%s", prefix, prefix[0] ? "." : "", k);
            flatten(out, key, child);
        }
        return;
    }
    tc_report_csv_field(out, prefix);
    fputc(',', out);
    if (json_is_string(v))
        tc_report_csv_field(out, json_string_value(v));
    else if (json_is_integer(v))
        fprintf(out, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        fprintf(out, "%.12g", json_real_value(v));
    else if (json_is_boolean(v))
        fputs(json_is_true(v) ? "true" : "false", out);
    fputc('\n', out);
}

tc_err tc_report_export_doc(FILE *out, tc_export_format fmt, json_t *doc, char *err, size_t errlen)
{
    if (fmt == TC_EXPORT_JSON)
        return tc_json_dump(out, doc, err, errlen);
    fputs("key,value\n", out);
    flatten(out, "", doc);
    if (fflush(out) == EOF || ferror(out))
        return write_failed(err, errlen, "the summary");
    return TC_OK;
}

static tc_err export_rows(writer *w, tc_export_what what, const tc_run_info *run,
                          const tc_req_record *recs, size_t n, char *err, size_t errlen)
{
    if (what == TC_EXPORT_REQUESTS)
        export_requests(w, recs, n, run->simulated, run->rate > 0);
    else
        export_chunks(w, recs, n, run->simulated);
    if (w->nomem)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "%s", tc_strerror(TC_ERR_NOMEM));
    if (fflush(w->out) == EOF || ferror(w->out))
        return write_failed(err, errlen, tc_report_export_what_name(what));
    return TC_OK;
}

tc_err tc_report_export(FILE *out, tc_export_what what, tc_export_format fmt,
                        const tc_run_info *run, const tc_req_record *recs, size_t n, char *err,
                        size_t errlen)
{
    if (!out || !run || (!recs && n > 0) ||
        (what != TC_EXPORT_REQUESTS && what != TC_EXPORT_CHUNKS) ||
        (unsigned)fmt >= TC_EXPORT_FORMAT_COUNT)
        return tc_fail(err, errlen, TC_ERR_INVALID, "invalid argument");
    writer w = {.out = out, .fmt = fmt};
    return export_rows(&w, what, run, recs, n, err, errlen);
}

tc_err tc_report_export_part(FILE *out, tc_export_what what, tc_export_format fmt,
                             const tc_run_info *run, const tc_req_record *recs, size_t n, int first,
                             int last, size_t *rows, char *err, size_t errlen)
{
    if (!out || !run || !rows || (!recs && n > 0) ||
        (what != TC_EXPORT_REQUESTS && what != TC_EXPORT_CHUNKS) ||
        (unsigned)fmt >= TC_EXPORT_FORMAT_COUNT)
        return tc_fail(err, errlen, TC_ERR_INVALID, "invalid argument");
    writer w = {.out = out,
                .fmt = fmt,
                .with_run_id = 1,
                .run_id = run->id,
                .skip_begin = !first,
                .skip_end = !last,
                .rows = *rows}; /* JSON: a comma before every row but the very first */
    tc_err e = export_rows(&w, what, run, recs, n, err, errlen);
    *rows = w.rows;
    return e;
}
