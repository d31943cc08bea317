/* Request records: written a batch per transaction, read back in seq
 * order with their chunk times decoded. */
#include "store_internal.h"
#include "core/tc_grow.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bound by bind_request in this order, read by read_request from seq on. */
#define REQ_COLS                                                                                   \
    "seq, warmup, send_ns, send_wall_ns, end_ns, http_status, error, error_detail, "               \
    "output_tokens, output_source, prompt_tokens, prompt_source, has_ollama, ollama_total_ns, "    \
    "ollama_load_ns, ollama_prompt_eval_ns, ollama_eval_ns, ollama_prompt_eval_count, "            \
    "ollama_eval_count, has_timings, timings_prompt_n, timings_predicted_n, timings_prompt_ms, "   \
    "timings_predicted_ms, timings_predicted_per_second, n_chunks, chunks"
/* The intended send time follows: NULL (a closed loop's request, or a row
 * from before TC_SCHEMA_LOAD_SHAPE) reads as the send time; then whether
 * it was retried (0 before TC_SCHEMA_RETRIED). */
#define REQ_SCHED_NEW ", COALESCE(sched_ns, send_ns)"
#define REQ_SCHED_OLD ", send_ns"
#define REQ_RETRIED_NEW ", retried"
#define REQ_RETRIED_OLD ", 0"
#define REQ_SELECT(sched, retried)                                                                 \
    "SELECT " REQ_COLS sched retried " FROM requests WHERE run_id = ?1 ORDER BY seq"

/* "SELECT <REQ_COLS, the intended time, retried> FROM requests WHERE
 * run_id = ?1 ORDER BY seq" for this file's schema (fixed for the
 * handle's life). */
static const char *req_select(const tc_store *s)
{
    if (s->version >= TC_SCHEMA_RETRIED)
        return REQ_SELECT(REQ_SCHED_NEW, REQ_RETRIED_NEW);
    if (s->version >= TC_SCHEMA_LOAD_SHAPE)
        return REQ_SELECT(REQ_SCHED_NEW, REQ_RETRIED_OLD);
    return REQ_SELECT(REQ_SCHED_OLD, REQ_RETRIED_OLD);
}

static tc_err check_enums(const tc_req_record *r, char *err, size_t errlen)
{
    if ((unsigned)r->error >= TC_REQ_ERROR_COUNT || (unsigned)r->output_source > TC_TOKENS_CHUNKS ||
        (unsigned)r->prompt_source > TC_TOKENS_CHUNKS)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "request %lld: error kind or token source out of range", (long long)r->seq);
    return TC_OK;
}

/* Encodes r's chunk times into the store's scratch buffer. */
static tc_err encode_chunks(tc_store *s, const tc_req_record *r, size_t *len, char *err,
                            size_t errlen)
{
    if (r->n_chunks > SIZE_MAX / TC_VARINT_MAX / 2)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "request %lld: %zu chunks", (long long)r->seq,
                       r->n_chunks);
    size_t need = tc_store_chunks_bound(r->n_chunks);
    if (need > s->blob_cap) {
        size_t cap = need > 2 * s->blob_cap ? need : 2 * s->blob_cap;
        uint8_t *p = realloc(s->blob, cap);
        if (!p)
            return tc_fail(err, errlen, TC_ERR_NOMEM, "request %lld: %zu chunks", (long long)r->seq,
                           r->n_chunks);
        s->blob = p;
        s->blob_cap = cap;
    }
    char why[160];
    tc_err e =
        tc_store_chunks_encode(r->send_ns, r->chunk_ns, r->n_chunks, s->blob, len, why, sizeof why);
    if (e != TC_OK)
        return tc_fail(err, errlen, e, "request %lld: %s", (long long)r->seq, why);
    return TC_OK;
}

static int bind_server(tc_db_stmt *st, int c, const tc_server_report *v)
{
    int rc = 0;
    rc |= tc_db_bind_int64(st, c++, v->has_ollama != 0);
    rc |= tc_db_bind_int64(st, c++, v->total_ns);
    rc |= tc_db_bind_int64(st, c++, v->load_ns);
    rc |= tc_db_bind_int64(st, c++, v->prompt_eval_ns);
    rc |= tc_db_bind_int64(st, c++, v->eval_ns);
    rc |= tc_db_bind_int64(st, c++, v->prompt_eval_count);
    rc |= tc_db_bind_int64(st, c++, v->eval_count);
    rc |= tc_db_bind_int64(st, c++, v->has_timings != 0);
    rc |= tc_db_bind_int64(st, c++, v->prompt_n);
    rc |= tc_db_bind_int64(st, c++, v->predicted_n);
    rc |= tc_db_bind_double(st, c++, v->prompt_ms);
    rc |= tc_db_bind_double(st, c++, v->predicted_ms);
    rc |= tc_db_bind_double(st, c++, v->predicted_per_second);
    return rc;
}

/* Parameter 1 is the run id; the record's columns follow in REQ_COLS
 * order. A zero-length blob needs a non-NULL pointer, else SQLite binds
 * NULL. */
static int bind_request(tc_db_stmt *st, const tc_req_record *r, const uint8_t *blob, size_t len)
{
    int rc = 0, c = 2;
    rc |= tc_db_bind_int64(st, c++, r->seq);
    rc |= tc_db_bind_int64(st, c++, r->warmup != 0);
    rc |= tc_db_bind_int64(st, c++, r->send_ns);
    rc |= tc_db_bind_int64(st, c++, r->send_wall_ns);
    rc |= tc_db_bind_int64(st, c++, r->end_ns);
    rc |= tc_db_bind_int64(st, c++, r->http_status);
    rc |= tc_db_bind_text(st, c++, tc_req_error_name(r->error), -1);
    rc |= tc_store_bind_field(st, c++, r->error_detail, sizeof r->error_detail);
    rc |= tc_db_bind_int64(st, c++, r->output_tokens);
    rc |= tc_db_bind_text(st, c++, tc_token_source_name(r->output_source), -1);
    rc |= tc_db_bind_int64(st, c++, r->prompt_tokens);
    rc |= tc_db_bind_text(st, c++, tc_token_source_name(r->prompt_source), -1);
    rc |= bind_server(st, c, &r->server);
    c += 13;
    rc |= tc_db_bind_int64(st, c++, (int64_t)r->n_chunks);
    rc |= tc_db_bind_blob_static(st, c++, blob, len);
    /* Sent when meant (a closed loop): NULL, which reads as the send time. */
    if (r->sched_ns > 0 && r->sched_ns != r->send_ns)
        rc |= tc_db_bind_int64(st, c++, r->sched_ns);
    else
        rc |= tc_db_bind_null(st, c++);
    rc |= tc_db_bind_int64(st, c++, r->retried != 0);
    return rc;
}

/* Turns a failed insert into a message the user can act on. */
static tc_err insert_failed(tc_store *s, int rc, int64_t run_id, int64_t seq, char *err,
                            size_t errlen)
{
    if (rc == TC_DB_UNIQUE)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "run %lld already has a request with seq %lld; the batch was not stored",
                       (long long)run_id, (long long)seq);
    if (rc == TC_DB_FOREIGNKEY)
        return tc_fail(err, errlen, TC_ERR_NOTFOUND, "no run with id %lld in %s", (long long)run_id,
                       s->path);
    return tc_store_sql_fail(s, rc, "storing requests", err, errlen);
}

tc_err tc_store_insert_request(tc_store *s, int64_t run_id, size_t i, const void *items, char *err,
                               size_t errlen)
{
    const tc_req_record *r = (const tc_req_record *)items + i;
    static const char sql[] =
        "INSERT INTO requests (run_id, " REQ_COLS
        ", sched_ns, retried) VALUES (?1, ?2, ?3, ?4, ?5, "
        "?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, "
        "?24, ?25, ?26, ?27, ?28, ?29, ?30)";
    size_t len;
    tc_err e = check_enums(r, err, errlen);
    if (e == TC_OK)
        e = encode_chunks(s, r, &len, err, errlen);
    tc_db_stmt *st = NULL;
    if (e == TC_OK)
        e = tc_store_stmt(s, ST_REQ_INSERT, sql, &st, err, errlen);
    if (e != TC_OK)
        return e;
    int rc = tc_db_bind_int64(st, 1, run_id);
    if (rc == TC_DB_OK && bind_request(st, r, s->blob, len) != TC_DB_OK)
        rc = TC_DB_ERROR;
    if (rc == TC_DB_OK)
        rc = tc_db_step(st);
    if (rc != TC_DB_DONE)
        e = insert_failed(s, rc, run_id, r->seq, err, errlen);
    tc_db_reset(st);
    return e;
}

/* One record as a COPY row, in the order of the INSERT above. */
static int copy_one(tc_db *db, int64_t run_id, const tc_req_record *r, const uint8_t *blob,
                    size_t len)
{
    const tc_server_report *v = &r->server;
    int rc = tc_db_copy_row(db, 30);
    const int64_t head[] = {run_id,          r->seq,    r->warmup != 0, r->send_ns,
                            r->send_wall_ns, r->end_ns, r->http_status};
    for (size_t i = 0; i < sizeof head / sizeof head[0]; i++)
        rc |= tc_db_copy_int64(db, head[i]);
    const char *error = tc_req_error_name(r->error);
    rc |= tc_db_copy_text(db, error, strlen(error));
    rc |= tc_db_copy_text(db, r->error_detail, strnlen(r->error_detail, sizeof r->error_detail));
    rc |= tc_db_copy_int64(db, r->output_tokens);
    const char *src = tc_token_source_name(r->output_source);
    rc |= tc_db_copy_text(db, src, strlen(src));
    rc |= tc_db_copy_int64(db, r->prompt_tokens);
    src = tc_token_source_name(r->prompt_source);
    rc |= tc_db_copy_text(db, src, strlen(src));
    const int64_t server[] = {v->has_ollama != 0, v->total_ns,         v->load_ns,
                              v->prompt_eval_ns,  v->eval_ns,          v->prompt_eval_count,
                              v->eval_count,      v->has_timings != 0, v->prompt_n,
                              v->predicted_n};
    for (size_t i = 0; i < sizeof server / sizeof server[0]; i++)
        rc |= tc_db_copy_int64(db, server[i]);
    rc |= tc_db_copy_double(db, v->prompt_ms);
    rc |= tc_db_copy_double(db, v->predicted_ms);
    rc |= tc_db_copy_double(db, v->predicted_per_second);
    rc |= tc_db_copy_int64(db, (int64_t)r->n_chunks);
    rc |= tc_db_copy_blob(db, blob, len);
    if (r->sched_ns > 0 && r->sched_ns != r->send_ns)
        rc |= tc_db_copy_int64(db, r->sched_ns);
    else
        rc |= tc_db_copy_null(db);
    rc |= tc_db_copy_int64(db, r->retried != 0);
    return rc;
}

/* PostgreSQL's requests have no FOREIGN KEY (schema 13: its check, a
 * query a row, took half the server's time for a batch). Every
 * transaction that adds requests first calls truecost_lock_run, which
 * updates the run's row (of nothing; schema 15): the run cannot be
 * deleted under the batch, a delete that began before the batch
 * committed fails as the key made it fail, and a missing run is refused
 * with the key's error. SQLite keeps its key. */
#define LOCK_RUN "SELECT truecost_lock_run(?1)"

/* The row-by-row path's lock (a COPY sends it with its own statement). */
static tc_err lock_run(tc_store *s, int64_t run_id, char *err, size_t errlen)
{
    if (tc_db_kind_of(s->db) != TC_DB_PG)
        return TC_OK;
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_REQ_RUN_LOCK, LOCK_RUN, &st, err, errlen);
    if (e != TC_OK)
        return e;
    int rc = tc_db_bind_int64(st, 1, run_id);
    if (rc == TC_DB_OK)
        rc = tc_db_step(st);
    tc_db_reset(st);
    return rc == TC_DB_ROW ? TC_OK : insert_failed(s, rc, run_id, 0, err, errlen);
}

/* tc_store_insert_request, the run locked before the first: PostgreSQL's
 * row-by-row retry of a refused COPY. */
static tc_err insert_request_locked(tc_store *s, int64_t run_id, size_t i, const void *items,
                                    char *err, size_t errlen)
{
    tc_err e = i == 0 ? lock_run(s, run_id, err, errlen) : TC_OK;
    return e == TC_OK ? tc_store_insert_request(s, run_id, i, items, err, errlen) : e;
}

/* The n records as one COPY after the run's lock, both sent in one round
 * trip: inside the caller's transaction, or (none open) as one of their
 * own, committed when the copy ends. */
static tc_err copy_rows(tc_store *s, int64_t run_id, const tc_req_record *recs, size_t n, char *err,
                        size_t errlen)
{
#define COPY_REQUESTS                                                                              \
    "COPY requests (run_id, " REQ_COLS ", sched_ns, retried) FROM STDIN (FORMAT binary)"
    char sql[sizeof COPY_REQUESTS + 64];
    snprintf(sql, sizeof sql, "SELECT truecost_lock_run(%lld); " COPY_REQUESTS, (long long)run_id);
    tc_err e = TC_OK;
    int rc = tc_db_copy_begin(s->db, sql);
    int copying = rc == TC_DB_OK;
    for (size_t i = 0; e == TC_OK && rc == TC_DB_OK && i < n; i++) {
        size_t len;
        e = check_enums(&recs[i], err, errlen);
        if (e == TC_OK)
            e = encode_chunks(s, &recs[i], &len, err, errlen);
        if (e == TC_OK)
            rc = copy_one(s->db, run_id, &recs[i], s->blob, len) ? TC_DB_ERROR : TC_DB_OK;
    }
    if (copying) {
        int end = tc_db_copy_end(s->db, e == TC_OK && rc == TC_DB_OK);
        rc = rc != TC_DB_OK ? rc : end;
    }
    if (e == TC_OK && rc == TC_DB_FOREIGNKEY)
        e = insert_failed(s, rc, run_id, 0, err, errlen);
    else if (e == TC_OK && rc != TC_DB_OK)
        e = tc_store_sql_fail(s, rc, "storing requests", err, errlen);
    return e;
}

tc_err tc_store_insert_requests_tx(tc_store *s, int64_t run_id, const tc_req_record *recs, size_t n,
                                   char *err, size_t errlen)
{
    if (tc_db_can_copy(s->db))
        return n ? copy_rows(s, run_id, recs, n, err, errlen) : TC_OK;
    tc_err e = TC_OK;
    for (size_t i = 0; e == TC_OK && i < n; i++)
        e = tc_store_insert_request(s, run_id, i, recs, err, errlen);
    return e;
}

tc_err tc_store_add_requests(tc_store *s, int64_t run_id, const tc_req_record *recs, size_t n,
                             char *err, size_t errlen)
{
    /* PostgreSQL takes a batch fastest as one COPY; one it refuses for
     * another reason than a missing run is stored again row by row (the
     * run locked first), so the message names the request at fault as
     * SQLite's does. */
    if (s->mode != TC_STORE_WRITE || n == 0 || !tc_db_can_copy(s->db))
        return tc_store_insert_batch(s, run_id, recs, n, tc_store_insert_request, err, errlen);
    tc_err e = copy_rows(s, run_id, recs, n, err, errlen);
    if (e == TC_OK || e == TC_ERR_NOTFOUND)
        return e;
    return tc_store_insert_batch(s, run_id, recs, n, insert_request_locked, err, errlen);
}

/* A REAL column; NULL (how SQLite stores a NaN) reads as NaN. */
static double col_real(tc_db_stmt *st, int c)
{
    return tc_db_col_is_null(st, c) ? NAN : tc_db_col_double(st, c);
}

static void read_server(tc_db_stmt *st, int c, tc_server_report *v)
{
    v->has_ollama = tc_db_col_int64(st, c++);
    v->total_ns = tc_db_col_int64(st, c++);
    v->load_ns = tc_db_col_int64(st, c++);
    v->prompt_eval_ns = tc_db_col_int64(st, c++);
    v->eval_ns = tc_db_col_int64(st, c++);
    v->prompt_eval_count = tc_db_col_int64(st, c++);
    v->eval_count = tc_db_col_int64(st, c++);
    v->has_timings = tc_db_col_int64(st, c++);
    v->prompt_n = tc_db_col_int64(st, c++);
    v->predicted_n = tc_db_col_int64(st, c++);
    v->prompt_ms = col_real(st, c++);
    v->predicted_ms = col_real(st, c++);
    v->predicted_per_second = col_real(st, c++);
}

/* A text column as a C string, "" for NULL. */
static const char *col_str(tc_db_stmt *st, int c)
{
    const char *t = tc_db_col_text(st, c);
    return t ? t : "";
}

/* One row of REQ_COLS into r (zeroed first); TC_ERR_PARSE for a name
 * this truecost does not know or a corrupt chunk blob. */
/* The first chunk time alone: the varint of its gap after the send. */
static tc_err first_chunk(tc_req_record *r, const uint8_t *blob, size_t len, int64_t n, char *why,
                          size_t whylen)
{
    uint64_t gap;
    if (n == 0)
        return TC_OK;
    if (!tc_store_varint_get(blob, len, &gap) || gap > (uint64_t)INT64_MAX - (uint64_t)r->send_ns)
        return tc_fail(why, whylen, TC_ERR_PARSE, "the first chunk time is malformed");
    if (tc_req_record_add_chunk(r, (int64_t)((uint64_t)r->send_ns + gap)) != 0)
        return tc_fail(why, whylen, TC_ERR_NOMEM, "out of memory");
    return TC_OK;
}

static tc_err read_request(tc_db_stmt *st, tc_req_record *r, int first_only, char *err,
                           size_t errlen)
{
    tc_req_record_init(r);
    int c = 0;
    r->seq = tc_db_col_int64(st, c++);
    r->warmup = tc_db_col_int64(st, c++);
    r->send_ns = tc_db_col_int64(st, c++);
    r->send_wall_ns = tc_db_col_int64(st, c++);
    r->end_ns = tc_db_col_int64(st, c++);
    r->http_status = tc_db_col_int64(st, c++);
    int bad = tc_req_error_parse(col_str(st, c++), &r->error);
    tc_store_col_text(st, c++, r->error_detail, sizeof r->error_detail);
    r->output_tokens = tc_db_col_int64(st, c++);
    bad |= tc_token_source_parse(col_str(st, c++), &r->output_source);
    r->prompt_tokens = tc_db_col_int64(st, c++);
    bad |= tc_token_source_parse(col_str(st, c++), &r->prompt_source);
    read_server(st, c, &r->server);
    c += 13;
    if (bad)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "request %lld: unknown error kind or token source", (long long)r->seq);
    int64_t n = tc_db_col_int64(st, c++);
    const uint8_t *blob = tc_db_col_blob(st, c);
    size_t len = (size_t)tc_db_col_bytes(st, c++);
    r->sched_ns = tc_db_col_int64(st, c++);
    r->retried = tc_db_col_int64(st, c) != 0;
    char why[160];
    tc_err e = n < 0        ? tc_fail(why, sizeof why, TC_ERR_PARSE, "negative chunk count")
               : first_only ? first_chunk(r, blob, len, n, why, sizeof why)
                            : tc_store_chunks_decode(r->send_ns, blob, len, (size_t)n, &r->chunk_ns,
                                                     why, sizeof why);
    if (e != TC_OK)
        return tc_fail(err, errlen, e, "request %lld: chunk times: %s", (long long)r->seq, why);
    if (!first_only)
        r->n_chunks = r->cap_chunks = (size_t)n;
    return TC_OK;
}

static tc_err check_run_exists(tc_store *s, int64_t run_id, char *err, size_t errlen)
{
    static const char sql[] = "SELECT 1 FROM runs WHERE id = ?1";
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_RUN_EXISTS, sql, &st, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_int64(st, 1, run_id);
    int rc = tc_db_step(st);
    if (rc == TC_DB_DONE)
        e = tc_fail(err, errlen, TC_ERR_NOTFOUND,
                    "no run with id %lld in %s: `truecost runs` lists the stored runs",
                    (long long)run_id, s->path);
    else if (rc != TC_DB_ROW)
        e = tc_store_sql_fail(s, rc, "finding the run", err, errlen);
    tc_db_reset(st);
    return e;
}

/* Makes room for one more record in a growing array. */
static tc_err grow(tc_req_record **recs, size_t n, size_t *cap, char *err, size_t errlen)
{
    if (tc_grow(recs, cap, n, sizeof **recs, 64) < 0)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "loading %zu requests", n + 1);
    return TC_OK;
}

tc_err tc_store_load_requests(tc_store *s, int64_t run_id, tc_req_record **recs, size_t *n,
                              char *err, size_t errlen)
{
    *recs = NULL;
    *n = 0;
    size_t cap = 0;
    tc_db_stmt *st = NULL;
    tc_err e = check_run_exists(s, run_id, err, errlen);
    if (e == TC_OK)
        e = tc_store_stmt(s, ST_REQ_LOAD, req_select(s), &st, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_stream(st); /* the records only, not all rows twice */
    tc_db_bind_int64(st, 1, run_id);
    int rc = TC_DB_DONE;
    while (e == TC_OK && (rc = tc_db_step(st)) == TC_DB_ROW) {
        e = grow(recs, *n, &cap, err, errlen);
        if (e == TC_OK)
            e = read_request(st, &(*recs)[*n], 0, err, errlen);
        if (e == TC_OK)
            (*n)++;
    }
    if (e == TC_OK && rc != TC_DB_DONE)
        e = tc_store_sql_fail(s, rc, "loading requests", err, errlen);
    tc_db_reset(st);
    if (e != TC_OK) {
        tc_store_free_requests(*recs, *n);
        *recs = NULL;
        *n = 0;
    }
    return e;
}

void tc_store_free_requests(tc_req_record *recs, size_t n)
{
    tc_req_records_free(recs, n);
}

tc_err tc_store_each_request(tc_store *s, int64_t run_id, int first_chunk_only,
                             tc_err (*fn)(void *ctx, const tc_req_record *r), void *ctx, char *err,
                             size_t errlen)
{
    tc_db_stmt *st = NULL;
    tc_err e = check_run_exists(s, run_id, err, errlen);
    if (e == TC_OK)
        e = tc_store_stmt(s, ST_REQ_EACH, req_select(s), &st, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_stream(st); /* one row in memory at a time; fn must not use this store */
    tc_db_bind_int64(st, 1, run_id);
    int rc = TC_DB_DONE;
    tc_req_record r;
    tc_req_record_init(&r);
    while (e == TC_OK && (rc = tc_db_step(st)) == TC_DB_ROW) {
        e = read_request(st, &r, first_chunk_only, err, errlen);
        if (e == TC_OK)
            e = fn(ctx, &r);
        tc_req_record_clear(&r); /* one record at a time: memory does not grow with the run */
    }
    if (e == TC_OK && rc != TC_DB_DONE)
        e = tc_store_sql_fail(s, rc, "reading the requests", err, errlen);
    tc_db_reset(st);
    return e;
}
