/* A soak's plan, windows and outages (schema version 11). Written once a
 * window, so the statements are prepared each time. */
#include "store_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TC_SCHEMA_SOAK 11

/* Negative byte counts are "not measured": NULL. */
static int bind_bytes(tc_db_stmt *st, int col, int64_t v)
{
    return v >= 0 ? tc_db_bind_int64(st, col, v) : tc_db_bind_null(st, col);
}

static double col_real(tc_db_stmt *st, int col)
{
    return tc_db_col_is_null(st, col) ? NAN : tc_db_col_double(st, col);
}

static int64_t col_bytes(tc_db_stmt *st, int col)
{
    return tc_db_col_is_null(st, col) ? -1 : tc_db_col_int64(st, col);
}

static tc_err put_plan(tc_store *s, const tc_soak_plan *p, char *err, size_t errlen)
{
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_prepare(
        s,
        "INSERT INTO soaks (run_id, duration_s, window_s, max_downtime_s, max_drift_pct, "
        "max_error_rate, chunks, covered_s, restarts, resumes, command) VALUES (?1, ?2, "
        "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT (run_id) DO UPDATE SET "
        "duration_s = "
        "excluded.duration_s, window_s = excluded.window_s, max_downtime_s = "
        "excluded.max_downtime_s, max_drift_pct = excluded.max_drift_pct, "
        "max_error_rate = excluded.max_error_rate, chunks = excluded.chunks, covered_s = "
        "excluded.covered_s, restarts = excluded.restarts, resumes = excluded.resumes",
        &st, "storing the soak", err, errlen);
    if (e != TC_OK)
        return e;
    int rc = tc_db_bind_int64(st, 1, p->run_id);
    rc |= tc_db_bind_double(st, 2, p->duration_s);
    rc |= tc_db_bind_double(st, 3, p->window_s);
    rc |= tc_db_bind_double(st, 4, p->max_downtime_s);
    rc |= tc_db_bind_double(st, 5, p->max_drift_pct);
    rc |= tc_db_bind_double(st, 6, p->max_error_rate);
    rc |= tc_db_bind_text(st, 7, tc_chunks_name(p->chunks), -1);
    rc |= tc_db_bind_double(st, 8, p->covered_s);
    rc |= tc_db_bind_int64(st, 9, p->restarts);
    rc |= tc_db_bind_int64(st, 10, p->resumes);
    rc |= tc_db_bind_text(st, 11, p->command, -1); /* kept from the first start on */
    return tc_store_step_once(s, st, rc, "storing the soak", err, errlen);
}

tc_err tc_store_soak_set_plan(tc_store *s, const tc_soak_plan *plan, char *err, size_t errlen)
{
    if (s->mode != TC_STORE_WRITE)
        return tc_fail(err, errlen, TC_ERR_INVALID, "%s was opened read-only", s->path);
    return put_plan(s, plan, err, errlen);
}

tc_err tc_store_soak_get_plan(tc_store *s, int64_t run_id, tc_soak_plan *p, int *found, char *err,
                              size_t errlen)
{
    memset(p, 0, sizeof *p);
    *found = 0;
    if (s->version < TC_SCHEMA_SOAK)
        return TC_OK;
    tc_db_stmt *st = NULL;
    /* Before TC_SCHEMA_SOAK_COMMAND (a file read, not migrated): no command. */
    tc_err e =
        tc_store_prepare(s,
                         s->version >= TC_SCHEMA_SOAK_COMMAND
                             ? "SELECT duration_s, window_s, max_downtime_s, max_drift_pct, "
                               "max_error_rate, chunks, covered_s, restarts, resumes, command FROM "
                               "soaks WHERE run_id = ?1"
                             : "SELECT duration_s, window_s, max_downtime_s, max_drift_pct, "
                               "max_error_rate, chunks, covered_s, restarts, resumes, '' FROM "
                               "soaks WHERE run_id = ?1",
                         &st, "reading the soak", err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_int64(st, 1, run_id);
    int rc = tc_db_step(st);
    if (rc == TC_DB_ROW) {
        *found = 1;
        p->run_id = run_id;
        p->duration_s = tc_db_col_double(st, 0);
        p->window_s = tc_db_col_double(st, 1);
        p->max_downtime_s = tc_db_col_double(st, 2);
        p->max_drift_pct = tc_db_col_double(st, 3);
        p->max_error_rate = tc_db_col_double(st, 4);
        const char *c = tc_db_col_text(st, 5);
        if (!c || tc_chunks_parse(c, &p->chunks) < 0)
            p->chunks = TC_SOAK_CHUNKS_SAMPLE;
        p->covered_s = tc_db_col_double(st, 6);
        p->restarts = (int)tc_db_col_int64(st, 7);
        p->resumes = (int)tc_db_col_int64(st, 8);
        tc_store_col_text(st, 9, p->command, sizeof p->command);
    } else if (rc != TC_DB_DONE) {
        e = tc_store_sql_fail(s, rc, "reading the soak", err, errlen);
    }
    tc_db_finalize(st);
    return e;
}

/* "connect:3 http:1" from the counts; "" when none failed. */
static void kinds_text(const tc_soak_window *w, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (int k = 1; k < TC_REQ_ERROR_COUNT && n < len; k++)
        if (w->errors_by_kind[k])
            n += (size_t)snprintf(out + n, len - n, "%s%s:%lld", n ? " " : "",
                                  tc_req_error_name((tc_req_error)k),
                                  (long long)w->errors_by_kind[k]);
}

static void kinds_parse(const char *text, tc_soak_window *w)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", text ? text : "");
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        char *colon = strchr(t, ':');
        tc_req_error k;
        if (!colon)
            continue;
        *colon = '\0';
        if (tc_req_error_parse(t, &k) == 0)
            w->errors_by_kind[k] = strtoll(colon + 1, NULL, 10);
    }
}

static tc_err put_window(tc_store *s, int64_t run_id, const tc_soak_window *w, char *err,
                         size_t errlen)
{
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_prepare(
        s,
        "INSERT INTO soak_windows (run_id, idx, start_s, span_s, wall_ns, requests, errors, "
        "errors_by_kind, output_tokens, tok_s, ttft_p50_ms, ttft_p99_ms, tpot_p50_ms, "
        "tpot_p99_ms, power_w, energy_j, gpu_mem_bytes, rss_bytes, restarts, down_s) VALUES (?1, "
        "?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20) "
        "ON CONFLICT (run_id, idx) DO UPDATE SET start_s = excluded.start_s, span_s = "
        "excluded.span_s, wall_ns = excluded.wall_ns, requests = excluded.requests, errors = "
        "excluded.errors, errors_by_kind = excluded.errors_by_kind, output_tokens = "
        "excluded.output_tokens, tok_s = excluded.tok_s, ttft_p50_ms = excluded.ttft_p50_ms, "
        "ttft_p99_ms = excluded.ttft_p99_ms, tpot_p50_ms = excluded.tpot_p50_ms, tpot_p99_ms = "
        "excluded.tpot_p99_ms, power_w = excluded.power_w, energy_j = excluded.energy_j, "
        "gpu_mem_bytes = excluded.gpu_mem_bytes, rss_bytes = excluded.rss_bytes, restarts = "
        "excluded.restarts, down_s = excluded.down_s",
        &st, "storing a soak window", err, errlen);
    if (e != TC_OK)
        return e;
    char kinds[256];
    kinds_text(w, kinds, sizeof kinds);
    int rc = tc_db_bind_int64(st, 1, run_id);
    rc |= tc_db_bind_int64(st, 2, w->idx);
    rc |= tc_db_bind_double(st, 3, w->start_s);
    rc |= tc_db_bind_double(st, 4, w->span_s);
    rc |= tc_db_bind_int64(st, 5, w->wall_ns);
    rc |= tc_db_bind_int64(st, 6, w->requests);
    rc |= tc_db_bind_int64(st, 7, w->errors);
    rc |= tc_db_bind_text(st, 8, kinds, -1);
    rc |= tc_db_bind_int64(st, 9, w->output_tokens);
    rc |= tc_store_bind_real(st, 10, w->tok_s);
    rc |= tc_store_bind_real(st, 11, w->ttft_p50_ms);
    rc |= tc_store_bind_real(st, 12, w->ttft_p99_ms);
    rc |= tc_store_bind_real(st, 13, w->tpot_p50_ms);
    rc |= tc_store_bind_real(st, 14, w->tpot_p99_ms);
    rc |= tc_store_bind_real(st, 15, w->avg_power_w);
    rc |= tc_store_bind_real(st, 16, w->energy_j);
    rc |= bind_bytes(st, 17, w->gpu_mem_bytes);
    rc |= bind_bytes(st, 18, w->rss_bytes);
    rc |= tc_db_bind_int64(st, 19, w->restarts);
    rc |= tc_db_bind_double(st, 20, w->down_s);
    return tc_store_step_once(s, st, rc, "storing a soak window", err, errlen);
}

static tc_err put_outage(tc_store *s, int64_t run_id, const tc_soak_outage *o, char *err,
                         size_t errlen)
{
    tc_db_stmt *st = NULL;
    tc_err e =
        tc_store_prepare(s,
                         "INSERT INTO soak_outages (run_id, start_s, end_s, failed, refused, "
                         "first_error) VALUES (?1, ?2, ?3, ?4, ?5, ?6) ON CONFLICT (run_id, "
                         "start_s) DO UPDATE SET end_s = excluded.end_s, failed = excluded.failed, "
                         "refused = excluded.refused, first_error = excluded.first_error",
                         &st, "storing an outage", err, errlen);
    if (e != TC_OK)
        return e;
    int rc = tc_db_bind_int64(st, 1, run_id);
    rc |= tc_db_bind_double(st, 2, o->start_s);
    rc |= o->end_s < 0 ? tc_db_bind_null(st, 3) : tc_db_bind_double(st, 3, o->end_s);
    rc |= tc_db_bind_int64(st, 4, o->failed);
    rc |= tc_db_bind_int64(st, 5, o->refused != 0);
    rc |= tc_store_bind_field(st, 6, o->first_error, sizeof o->first_error);
    return tc_store_step_once(s, st, rc, "storing an outage", err, errlen);
}

tc_err tc_store_soak_save(tc_store *s, const tc_soak_plan *plan, const tc_soak_window *w,
                          const tc_soak_outage *o, size_t n_outages, char *err, size_t errlen)
{
    if (s->mode != TC_STORE_WRITE)
        return tc_fail(err, errlen, TC_ERR_INVALID, "%s was opened read-only", s->path);
    tc_err e = tc_store_begin(s, err, errlen);
    if (e == TC_OK && w)
        e = put_window(s, plan->run_id, w, err, errlen);
    for (size_t i = 0; e == TC_OK && i < n_outages; i++)
        e = put_outage(s, plan->run_id, &o[i], err, errlen);
    if (e == TC_OK)
        e = put_plan(s, plan, err, errlen);
    if (e == TC_OK)
        e = tc_store_commit(s, err, errlen);
    if (e != TC_OK)
        tc_store_rollback(s);
    return e;
}

static void read_window(tc_db_stmt *st, tc_soak_window *w)
{
    memset(w, 0, sizeof *w);
    w->idx = tc_db_col_int64(st, 0);
    w->start_s = tc_db_col_double(st, 1);
    w->span_s = tc_db_col_double(st, 2);
    w->wall_ns = tc_db_col_int64(st, 3);
    w->requests = tc_db_col_int64(st, 4);
    w->errors = tc_db_col_int64(st, 5);
    kinds_parse(tc_db_col_text(st, 6), w);
    w->output_tokens = tc_db_col_int64(st, 7);
    w->tok_s = col_real(st, 8);
    w->ttft_p50_ms = col_real(st, 9);
    w->ttft_p99_ms = col_real(st, 10);
    w->tpot_p50_ms = col_real(st, 11);
    w->tpot_p99_ms = col_real(st, 12);
    w->avg_power_w = col_real(st, 13);
    w->energy_j = col_real(st, 14);
    w->gpu_mem_bytes = col_bytes(st, 15);
    w->rss_bytes = col_bytes(st, 16);
    w->restarts = (int)tc_db_col_int64(st, 17);
    w->down_s = tc_db_col_double(st, 18);
}

static void read_outage(tc_db_stmt *st, tc_soak_outage *o)
{
    memset(o, 0, sizeof *o);
    o->start_s = tc_db_col_double(st, 0);
    o->end_s = tc_db_col_is_null(st, 1) ? -1 : tc_db_col_double(st, 1);
    o->failed = tc_db_col_int64(st, 2);
    o->refused = (int)tc_db_col_int64(st, 3);
    tc_store_col_text(st, 4, o->first_error, sizeof o->first_error);
}

static void window_row(tc_db_stmt *st, void *item)
{
    read_window(st, item);
}

static void outage_row(tc_db_stmt *st, void *item)
{
    read_outage(st, item);
}

tc_err tc_store_soak_load(tc_store *s, int64_t run_id, tc_soak_window **w, size_t *n_windows,
                          tc_soak_outage **o, size_t *n_outages, char *err, size_t errlen)
{
    *w = NULL;
    *o = NULL;
    *n_windows = *n_outages = 0;
    if (s->version < TC_SCHEMA_SOAK)
        return TC_OK;
    void *wp = NULL, *op = NULL;
    tc_err e = tc_store_load_rows(
        s,
        "SELECT idx, start_s, span_s, wall_ns, requests, errors, errors_by_kind, "
        "output_tokens, tok_s, ttft_p50_ms, ttft_p99_ms, tpot_p50_ms, "
        "tpot_p99_ms, power_w, energy_j, gpu_mem_bytes, rss_bytes, restarts, "
        "down_s FROM soak_windows WHERE run_id = ?1 ORDER BY idx",
        run_id, sizeof **w, window_row, &wp, n_windows, "reading the soak windows", err, errlen);
    if (e == TC_OK)
        e = tc_store_load_rows(
            s,
            "SELECT start_s, end_s, failed, refused, first_error FROM soak_outages "
            "WHERE run_id = ?1 ORDER BY start_s",
            run_id, sizeof **o, outage_row, &op, n_outages, "reading the outages", err, errlen);
    if (e != TC_OK) {
        free(wp);
        free(op);
        *n_windows = *n_outages = 0;
        return e;
    }
    *w = wp;
    *o = op;
    return TC_OK;
}

tc_err tc_store_run_reopen(tc_store *s, int64_t run_id, int64_t *next_seq, char *err, size_t errlen)
{
    if (s->mode != TC_STORE_WRITE)
        return tc_fail(err, errlen, TC_ERR_INVALID, "%s was opened read-only", s->path);
    tc_db_stmt *st = NULL;
    tc_err e =
        tc_store_prepare(s,
                         "UPDATE runs SET status = 'running', ended = NULL, ended_wall_ns = NULL "
                         "WHERE id = ?1",
                         &st, "reopening the run", err, errlen);
    if (e != TC_OK)
        return e;
    e = tc_store_step_once(s, st, tc_db_bind_int64(st, 1, run_id), "reopening the run", err,
                           errlen);
    if (e != TC_OK)
        return e;
    e = tc_store_prepare(s, "SELECT coalesce(max(seq) + 1, 0) FROM requests WHERE run_id = ?1", &st,
                         "reading the run's requests", err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_int64(st, 1, run_id);
    int rc = tc_db_step(st);
    *next_seq = rc == TC_DB_ROW ? tc_db_col_int64(st, 0) : 0;
    if (rc != TC_DB_ROW)
        e = tc_store_sql_fail(s, rc, "reading the run's requests", err, errlen);
    tc_db_finalize(st);
    return e;
}
