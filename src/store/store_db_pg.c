/* The PostgreSQL back end of store_db.h, through libpq. Statements are
 * prepared on the server once per connection (named s1, s2, ...) and
 * run with PQexecPrepared; parameters go as text (the server types them
 * from their columns) except blobs, which go as binary bytea; results
 * come back as text, bytea in hex. */
#include <errno.h>
#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_db.h"

typedef struct pg_db {
    tc_db base;
    PGconn *conn;
    int next_name;
    int64_t changes;
    char msg[512];
    /* Pipeline mode (tc_db_defer_writes): asked for the next transaction,
     * on, inserts sent and not yet answered, the first error among them. */
    int defer, in_pipe, pending, pipe_rc;
    uint8_t *copy_buf; /* tc_db_copy_*: rows not yet sent */
    size_t copy_len, copy_cap;
} pg_db;

/* Inserts sent before their answers are read: enough to fill the
 * network's buffers without ever blocking on them. */
#define PG_PIPE_MAX 256

/* One parameter: short values sit in buf, longer text in heap. */
typedef struct pg_param {
    const char *val; /* NULL: SQL NULL */
    int len;
    int fmt; /* 0 text, 1 binary */
    char buf[32];
    char *heap;
    size_t heap_cap;
} pg_param;

typedef struct pg_stmt {
    tc_db_stmt base;
    pg_db *db;
    char name[16];
    int n_params;
    pg_param *params;
    const char **vals;
    int *lens, *fmts;
    int deferrable; /* an INSERT without RETURNING: may go into a pipeline */
    int stream;     /* tc_db_stream: rows fetched one at a time */
    int streaming;  /* a streamed query is under way: its results are unread */
    PGresult *res;  /* NULL until the first step */
    int row, n_rows;
    uint8_t *blob; /* a decoded bytea column of the current row */
    size_t blob_len, blob_cap;
    int blob_row, blob_col;
    char *text; /* col_text's unmapped copy */
    size_t text_len, text_cap;
} pg_stmt;

static const tc_db_ops pg_ops;

static void ignore_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message; /* "relation already exists, skipping" and the like: not for the user */
}

/* Keeps libpq's message, without its trailing newline. */
static void keep_msg(pg_db *db, const char *m)
{
    snprintf(db->msg, sizeof db->msg, "%s", m && m[0] ? m : "unknown PostgreSQL error");
    size_t n = strlen(db->msg);
    while (n && (db->msg[n - 1] == '\n' || db->msg[n - 1] == ' '))
        db->msg[--n] = '\0';
}

/* A failed result's SQLSTATE to the interface's code; keeps the message. */
static int fail_res(pg_db *db, PGresult *res)
{
    keep_msg(db, res ? PQresultErrorMessage(res) : PQerrorMessage(db->conn));
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    if (PQstatus(db->conn) == CONNECTION_BAD)
        return TC_DB_CANTOPEN;
    if (!state)
        return TC_DB_ERROR;
    if (strcmp(state, "23505") == 0)
        return TC_DB_UNIQUE;
    if (strcmp(state, "23503") == 0)
        return TC_DB_FOREIGNKEY;
    if (strcmp(state, "55P03") == 0 || strcmp(state, "40P01") == 0 || strcmp(state, "40001") == 0)
        return TC_DB_BUSY;
    if (strcmp(state, "25006") == 0)
        return TC_DB_READONLY;
    if (strcmp(state, "53100") == 0)
        return TC_DB_FULL;
    if (strncmp(state, "08", 2) == 0)
        return TC_DB_CANTOPEN;
    return TC_DB_ERROR;
}

/* Reads the answers to everything sent in the pipeline up to a sync
 * point; keeps the first error in db->pipe_rc (and its message). */
static void pipe_drain(pg_db *db)
{
    if (!db->in_pipe || PQpipelineSync(db->conn) != 1) {
        if (db->in_pipe && !db->pipe_rc)
            db->pipe_rc = fail_res(db, NULL);
        return;
    }
    for (int nulls = 0;;) {
        PGresult *res = PQgetResult(db->conn);
        if (!res) { /* the end of one query's results; two in a row: nothing more */
            if (++nulls >= 2 || PQstatus(db->conn) == CONNECTION_BAD)
                break;
            continue;
        }
        nulls = 0;
        ExecStatusType s = PQresultStatus(res);
        if (s == PGRES_PIPELINE_SYNC) {
            PQclear(res);
            break;
        }
        if (s == PGRES_FATAL_ERROR && !db->pipe_rc)
            db->pipe_rc = fail_res(db, res);
        if (s == PGRES_FATAL_ERROR && PQstatus(db->conn) == CONNECTION_BAD) {
            PQclear(res);
            break;
        }
        PQclear(res);
    }
    db->pending = 0;
}

/* Leaves pipeline mode (reading what is pending); the first error of the
 * pipelined inserts, or TC_DB_OK. */
static int pipe_end(pg_db *db)
{
    db->defer = 0;
    if (!db->in_pipe)
        return TC_DB_OK;
    pipe_drain(db);
    PQexitPipelineMode(db->conn);
    db->in_pipe = 0;
    int rc = db->pipe_rc;
    db->pipe_rc = TC_DB_OK;
    return rc;
}

static int pg_exec(tc_db *d, const char *sql)
{
    pg_db *db = (pg_db *)d;
    int prc = pipe_end(db); /* PQexec runs outside pipeline mode */
    if (prc != TC_DB_OK)
        return prc;
    PGresult *res = PQexec(db->conn, sql);
    ExecStatusType s = PQresultStatus(res);
    int rc = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK ? TC_DB_OK : fail_res(db, res);
    PQclear(res);
    return rc;
}

static void pg_set_busy_timeout(tc_db *d, int ms)
{
    char sql[64];
    snprintf(sql, sizeof sql, "SET lock_timeout = %d", ms);
    (void)pg_exec(d, sql);
}

int tc_db_open_pg(const char *url, int write, int busy_ms, tc_db **out)
{
    pg_db *db = calloc(1, sizeof *db);
    *out = db ? &db->base : NULL;
    if (!db)
        return TC_DB_ERROR;
    db->base.ops = &pg_ops;
    db->base.kind = TC_DB_PG;
    db->conn = PQconnectdb(url);
    if (!db->conn || PQstatus(db->conn) != CONNECTION_OK) {
        keep_msg(db, db->conn ? PQerrorMessage(db->conn) : "out of memory");
        return TC_DB_CANTOPEN;
    }
    PQsetNoticeProcessor(db->conn, ignore_notice, NULL);
    int rc = pg_exec(&db->base, "SET client_min_messages = warning");
    if (rc == TC_DB_OK && !write)
        rc = pg_exec(&db->base, "SET default_transaction_read_only = on");
    if (rc == TC_DB_OK)
        pg_set_busy_timeout(&db->base, busy_ms);
    return rc;
}

static void pg_close(tc_db *d)
{
    pg_db *db = (pg_db *)d;
    PQfinish(db->conn);
    free(db->copy_buf);
    free(db);
}

static const char *pg_errmsg(tc_db *d)
{
    return ((pg_db *)d)->msg;
}

static int pg_in_transaction(tc_db *d)
{
    return PQtransactionStatus(((pg_db *)d)->conn) != PQTRANS_IDLE;
}

static void pg_defer_writes(tc_db *d)
{
    ((pg_db *)d)->defer = 1;
}

static int pg_begin(tc_db *d)
{
    pg_db *db = (pg_db *)d;
    int defer = db->defer;
    int rc = pg_exec(d, "BEGIN");
    if (rc == TC_DB_OK && defer && PQenterPipelineMode(db->conn) == 1) {
        db->in_pipe = 1;
        db->pipe_rc = TC_DB_OK;
        db->pending = 0;
    }
    return rc;
}

static int pg_commit(tc_db *d)
{
    pg_db *db = (pg_db *)d;
    int prc = pipe_end(db);
    if (prc != TC_DB_OK) {
        char keep[sizeof db->msg];
        memcpy(keep, db->msg, sizeof keep); /* the rollback's own message must not hide it */
        (void)pg_exec(d, "ROLLBACK");
        memcpy(db->msg, keep, sizeof keep);
        return prc;
    }
    PGresult *res = PQexec(db->conn, "COMMIT");
    int rc = PQresultStatus(res) == PGRES_COMMAND_OK ? TC_DB_OK : fail_res(db, res);
    /* COMMIT of a transaction that failed answers ROLLBACK, not an error. */
    if (rc == TC_DB_OK && strcmp(PQcmdStatus(res), "ROLLBACK") == 0) {
        keep_msg(db, "the transaction had failed and was rolled back");
        rc = TC_DB_ERROR;
    }
    PQclear(res);
    return rc;
}

static void pg_rollback(tc_db *d)
{
    (void)pipe_end((pg_db *)d);
    if (pg_in_transaction(d))
        (void)pg_exec(d, "ROLLBACK");
}

static int64_t pg_changes(tc_db *d)
{
    return ((pg_db *)d)->changes;
}

/* ?N -> $N and ? -> $k outside quotes; returns the highest number used,
 * or -1 when out does not have room. */
static int rewrite(const char *sql, char *out, size_t len)
{
    size_t k = 0;
    int next = 1, max = 0, quoted = 0;
    for (const char *p = sql; *p; p++) {
        if (k + 12 >= len)
            return -1;
        if (*p == '\'')
            quoted = !quoted;
        if (quoted || *p != '?') {
            out[k++] = *p;
            continue;
        }
        int n = 0;
        while (p[1] >= '0' && p[1] <= '9')
            n = n * 10 + (*++p - '0');
        if (n == 0)
            n = next;
        next = n + 1;
        if (n > max)
            max = n;
        k += (size_t)snprintf(out + k, len - k, "$%d", n);
    }
    out[k] = '\0';
    return max;
}

static int pg_prepare(tc_db *d, const char *sql, tc_db_stmt **out)
{
    pg_db *db = (pg_db *)d;
    *out = NULL;
    size_t len = strlen(sql) * 2 + 64;
    char *text = malloc(len);
    pg_stmt *st = calloc(1, sizeof *st);
    int n = text && st ? rewrite(sql, text, len) : -1;
    if (n < 0) {
        free(text);
        free(st);
        keep_msg(db, "out of memory");
        return TC_DB_ERROR;
    }
    st->base.ops = &pg_ops;
    st->db = db;
    st->n_params = n;
    st->blob_row = -1;
    st->deferrable = strncmp(sql, "INSERT", 6) == 0 && !strstr(sql, "RETURNING");
    snprintf(st->name, sizeof st->name, "s%d", ++db->next_name);
    PGresult *res = PQprepare(db->conn, st->name, text, 0, NULL);
    free(text);
    int rc = PQresultStatus(res) == PGRES_COMMAND_OK ? TC_DB_OK : fail_res(db, res);
    PQclear(res);
    if (rc == TC_DB_OK && n > 0) {
        st->params = calloc((size_t)n, sizeof *st->params);
        st->vals = calloc((size_t)n, sizeof *st->vals);
        st->lens = calloc((size_t)n, sizeof *st->lens);
        st->fmts = calloc((size_t)n, sizeof *st->fmts);
        if (!st->params || !st->vals || !st->lens || !st->fmts) {
            keep_msg(db, "out of memory");
            rc = TC_DB_ERROR;
        }
    }
    if (rc != TC_DB_OK) {
        free(st->params);
        free(st->vals);
        free(st->lens);
        free(st->fmts);
        free(st);
        return rc;
    }
    *out = &st->base;
    return TC_DB_OK;
}

/* Reads what is left of a streamed query, so the connection is free. */
static void stream_end(pg_stmt *st)
{
    if (!st->streaming)
        return;
    PGresult *res;
    while ((res = PQgetResult(st->db->conn)) != NULL)
        PQclear(res);
    st->streaming = 0;
}

static void pg_reset(tc_db_stmt *s)
{
    pg_stmt *st = (pg_stmt *)s;
    PQclear(st->res);
    st->res = NULL;
    stream_end(st);
    st->row = st->n_rows = 0;
    st->blob_row = -1;
    for (int i = 0; i < st->n_params; i++)
        st->params[i].val = NULL;
}

static void pg_finalize(tc_db_stmt *s)
{
    pg_stmt *st = (pg_stmt *)s;
    pg_reset(s);
    (void)pipe_end(st->db);
    /* The server drops the statement with the connection; a long-lived
     * one would gather them, so deallocate now. */
    char sql[40];
    snprintf(sql, sizeof sql, "DEALLOCATE %s", st->name);
    if (PQstatus(st->db->conn) == CONNECTION_OK)
        PQclear(PQexec(st->db->conn, sql));
    for (int i = 0; i < st->n_params; i++)
        free(st->params[i].heap);
    free(st->params);
    free(st->vals);
    free(st->lens);
    free(st->fmts);
    free(st->blob);
    free(st->text);
    free(st);
}

static pg_param *param(tc_db_stmt *s, int i)
{
    pg_stmt *st = (pg_stmt *)s;
    if (i < 1 || i > st->n_params) {
        keep_msg(st->db, "parameter index out of range");
        return NULL;
    }
    return &st->params[i - 1];
}

static int pg_bind_int64(tc_db_stmt *s, int i, int64_t v)
{
    pg_param *p = param(s, i);
    if (!p)
        return TC_DB_ERROR;
    p->len = snprintf(p->buf, sizeof p->buf, "%lld", (long long)v);
    p->val = p->buf;
    p->fmt = 0;
    return TC_DB_OK;
}

static int pg_bind_double(tc_db_stmt *s, int i, double v)
{
    pg_param *p = param(s, i);
    if (!p)
        return TC_DB_ERROR;
    if (isnan(v))
        p->len = snprintf(p->buf, sizeof p->buf, "NaN");
    else if (isinf(v) && v > 0)
        p->len = snprintf(p->buf, sizeof p->buf, "Infinity");
    else if (isinf(v))
        p->len = snprintf(p->buf, sizeof p->buf, "-Infinity");
    else
        p->len = snprintf(p->buf, sizeof p->buf, "%.17g", v);
    p->val = p->buf;
    p->fmt = 0;
    return TC_DB_OK;
}

/* Copies len bytes and a NUL into the parameter's own storage. */
static int copy_in(pg_stmt *st, pg_param *p, const char *v, size_t len)
{
    if (len < sizeof p->buf) {
        memcpy(p->buf, v, len);
        p->buf[len] = '\0';
        p->val = p->buf;
    } else {
        if (len + 1 > p->heap_cap) {
            char *h = realloc(p->heap, len + 1);
            if (!h) {
                keep_msg(st->db, "out of memory");
                return TC_DB_ERROR;
            }
            p->heap = h;
            p->heap_cap = len + 1;
        }
        memcpy(p->heap, v, len);
        p->heap[len] = '\0';
        p->val = p->heap;
    }
    p->len = (int)len;
    return TC_DB_OK;
}

/* Length of the valid UTF-8 sequence at p (n bytes left), 0 if none. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    size_t k = p[0] < 0x80                    ? 1
               : p[0] >= 0xc2 && p[0] <= 0xdf ? 2
               : p[0] >= 0xe0 && p[0] <= 0xef ? 3
               : p[0] >= 0xf0 && p[0] <= 0xf4 ? 4
                                              : 0;
    if (k == 0 || k > n)
        return 0;
    for (size_t i = 1; i < k; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if ((k == 3 && p[0] == 0xe0 && p[1] < 0xa0) || (k == 3 && p[0] == 0xed && p[1] >= 0xa0) ||
        (k == 4 && p[0] == 0xf0 && p[1] < 0x90) || (k == 4 && p[0] == 0xf4 && p[1] >= 0x90))
        return 0; /* overlong, surrogate, beyond U+10FFFF */
    return k;
}

/* A byte that is not UTF-8 as U+10FF00 + byte (plane 16, private use),
 * lead byte 0xf4 0x8f then 0xbc..0xbf: text columns hold any bytes
 * (labels, endpoints, error details are data) and PostgreSQL's text
 * holds valid UTF-8 only. col_text maps them back. */
#define PG_RAW_LEAD0 0xf4
#define PG_RAW_LEAD1 0x8f

/* 1 when v[0..n) must be mapped: a byte that is not UTF-8, or a
 * character that reads as a mapped byte. */
static int needs_map(const unsigned char *u, size_t n)
{
    for (size_t k = 0, at = 0; at < n; at += k)
        if ((k = utf8_len(u + at, n - at)) == 0 || (k == 4 && u[at] == PG_RAW_LEAD0))
            return 1;
    return 0;
}

/* The mapped text of v[0..n) into out (NULL: only counts); its length. */
static size_t map_text(const unsigned char *v, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t k = utf8_len(v + i, n - i);
        if (k) {
            if (out)
                memcpy(out + o, v + i, k);
            o += k;
            i += k;
            continue;
        }
        unsigned cp = 0x10ff00u + v[i++];
        if (out) {
            out[o] = (char)PG_RAW_LEAD0;
            out[o + 1] = (char)PG_RAW_LEAD1;
            out[o + 2] = (char)(0x80 | ((cp >> 6) & 0x3f));
            out[o + 3] = (char)(0x80 | (cp & 0x3f));
        }
        o += 4;
    }
    return o;
}

static int bind_mapped(pg_stmt *st, pg_param *p, const unsigned char *v, size_t n)
{
    char *out = malloc(map_text(v, n, NULL) + 1);
    if (!out) {
        keep_msg(st->db, "out of memory");
        return TC_DB_ERROR;
    }
    int rc = copy_in(st, p, out, map_text(v, n, out));
    free(out);
    return rc;
}

static int pg_bind_text(tc_db_stmt *s, int i, const char *v, int len)
{
    pg_param *p = param(s, i);
    if (!p)
        return TC_DB_ERROR;
    p->fmt = 0;
    /* A text parameter ends at its NUL for PostgreSQL: a NUL inside is cut. */
    size_t n = len < 0 ? strlen(v) : strnlen(v, (size_t)len);
    const unsigned char *u = (const unsigned char *)v;
    if (needs_map(u, n))
        return bind_mapped((pg_stmt *)s, p, u, n);
    return copy_in((pg_stmt *)s, p, v, n);
}

static int pg_bind_blob(tc_db_stmt *s, int i, const void *v, size_t len)
{
    pg_param *p = param(s, i);
    if (!p)
        return TC_DB_ERROR;
    p->val = len ? v : "";
    p->len = (int)len;
    p->fmt = 1;
    return TC_DB_OK;
}

static int pg_bind_null(tc_db_stmt *s, int i)
{
    pg_param *p = param(s, i);
    if (!p)
        return TC_DB_ERROR;
    p->val = NULL;
    return TC_DB_OK;
}

/* In a pipeline: sends the insert and answers DONE at once; its error,
 * if any, comes at commit. */
static int pipe_send(pg_stmt *st)
{
    pg_db *db = st->db;
    if (db->pipe_rc != TC_DB_OK) /* the transaction has failed already: send no more */
        return TC_DB_DONE;
    if (PQsendQueryPrepared(db->conn, st->name, st->n_params, st->vals, st->lens, st->fmts, 0) !=
        1) {
        db->pipe_rc = fail_res(db, NULL);
        return TC_DB_DONE;
    }
    db->changes = 1;
    if (++db->pending >= PG_PIPE_MAX)
        pipe_drain(db);
    return TC_DB_DONE;
}

/* The next row of a streamed query (single-row mode): one PGresult a
 * row, so memory stays that of one row however many there are. */
static int stream_step(pg_stmt *st)
{
    pg_db *db = st->db;
    if (!st->streaming) {
        if (PQsendQueryPrepared(db->conn, st->name, st->n_params, st->vals, st->lens, st->fmts,
                                0) != 1)
            return fail_res(db, NULL);
        st->streaming = 1;
        if (PQsetSingleRowMode(db->conn) != 1) {
            stream_end(st);
            keep_msg(db, "cannot read the rows one at a time");
            return TC_DB_ERROR;
        }
    }
    PQclear(st->res);
    st->res = PQgetResult(db->conn);
    st->blob_row = -1;
    ExecStatusType s = PQresultStatus(st->res);
    if (st->res && s == PGRES_SINGLE_TUPLE) {
        st->row = 0;
        st->n_rows = 1;
        return TC_DB_ROW;
    }
    int rc = st->res && s == PGRES_TUPLES_OK ? TC_DB_DONE : fail_res(db, st->res);
    PQclear(st->res);
    st->res = NULL;
    stream_end(st);
    st->row = st->n_rows = 0;
    return rc;
}

static int pg_step(tc_db_stmt *s)
{
    pg_stmt *st = (pg_stmt *)s;
    if (st->streaming)
        return stream_step(st);
    if (!st->res) {
        for (int i = 0; i < st->n_params; i++) {
            st->vals[i] = st->params[i].val;
            st->lens[i] = st->params[i].len;
            st->fmts[i] = st->params[i].fmt;
        }
        if (st->db->in_pipe && st->deferrable)
            return pipe_send(st);
        if (st->db->in_pipe) { /* a statement that answers: out of the pipeline first */
            int prc = pipe_end(st->db);
            if (prc != TC_DB_OK)
                return prc;
        }
        if (st->stream)
            return stream_step(st);
        st->res =
            PQexecPrepared(st->db->conn, st->name, st->n_params, st->vals, st->lens, st->fmts, 0);
        ExecStatusType status = PQresultStatus(st->res);
        if (status == PGRES_COMMAND_OK) {
            const char *t = PQcmdTuples(st->res);
            st->db->changes = t && t[0] ? strtoll(t, NULL, 10) : 0;
            return TC_DB_DONE;
        }
        if (status != PGRES_TUPLES_OK) {
            int rc = fail_res(st->db, st->res);
            PQclear(st->res);
            st->res = NULL;
            return rc;
        }
        const char *t = PQcmdTuples(st->res); /* INSERT ... RETURNING counts too */
        st->db->changes = t && t[0] ? strtoll(t, NULL, 10) : 0;
        st->n_rows = PQntuples(st->res);
        st->row = -1;
    }
    if (st->row < st->n_rows)
        st->row++;
    return st->row < st->n_rows ? TC_DB_ROW : TC_DB_DONE;
}

static int pg_col_is_null(tc_db_stmt *s, int c)
{
    pg_stmt *st = (pg_stmt *)s;
    return !st->res || PQgetisnull(st->res, st->row, c);
}

static const char *value(pg_stmt *st, int c)
{
    if (!st->res || st->row < 0 || st->row >= st->n_rows || c >= PQnfields(st->res) ||
        PQgetisnull(st->res, st->row, c))
        return NULL;
    return PQgetvalue(st->res, st->row, c);
}

static int64_t pg_col_int64(tc_db_stmt *s, int c)
{
    const char *v = value((pg_stmt *)s, c);
    if (!v)
        return 0;
    if (v[0] == 't' || v[0] == 'f') /* boolean */
        return v[0] == 't';
    return strtoll(v, NULL, 10);
}

static double pg_col_double(tc_db_stmt *s, int c)
{
    const char *v = value((pg_stmt *)s, c);
    return v ? strtod(v, NULL) : 0.0; /* strtod reads NaN and Infinity too */
}

/* v with the bytes bind_mapped encoded turned back, in st's scratch. */
static const char *unmap(pg_stmt *st, const char *v)
{
    size_t n = strlen(v);
    if (n + 1 > st->text_cap) {
        char *t = realloc(st->text, n + 1);
        if (!t)
            return v;
        st->text = t;
        st->text_cap = n + 1;
    }
    const unsigned char *u = (const unsigned char *)v;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        if (i + 4 <= n && u[i] == PG_RAW_LEAD0 && u[i + 1] == PG_RAW_LEAD1 && u[i + 2] >= 0xbc) {
            st->text[o++] = (char)(((u[i + 2] & 0x3f) << 6 | (u[i + 3] & 0x3f)) & 0xff);
            i += 4;
        } else {
            st->text[o++] = (char)u[i++];
        }
    }
    st->text[o] = '\0';
    st->text_len = o;
    return st->text;
}

static const char *pg_col_text(tc_db_stmt *s, int c)
{
    pg_stmt *st = (pg_stmt *)s;
    const char *v = value(st, c);
    if (!v || !strchr(v, (char)PG_RAW_LEAD0))
        return v;
    /* One column's text at a time, as SQLite's pointer lasts until the
     * next call: callers copy it at once. */
    return unmap(st, v);
}

static int hex(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Decodes the bytea of column c ("\x" and hex pairs) into st->blob. */
static int decode_blob(pg_stmt *st, int c)
{
    if (st->blob_row == st->row && st->blob_col == c)
        return 0;
    const char *v = value(st, c);
    st->blob_len = 0;
    st->blob_row = st->row;
    st->blob_col = c;
    if (!v)
        return 0;
    size_t n = strlen(v);
    if (n < 2 || v[0] != '\\' || v[1] != 'x')
        return -1; /* the escape format: bytea_output was changed */
    size_t bytes = (n - 2) / 2;
    if (bytes > st->blob_cap) {
        uint8_t *b = realloc(st->blob, bytes);
        if (!b)
            return -1;
        st->blob = b;
        st->blob_cap = bytes;
    }
    for (size_t i = 0; i < bytes; i++) {
        int hi = hex(v[2 + 2 * i]), lo = hex(v[3 + 2 * i]);
        if (hi < 0 || lo < 0)
            return -1;
        st->blob[i] = (uint8_t)(hi << 4 | lo);
    }
    st->blob_len = bytes;
    return 0;
}

static const void *pg_col_blob(tc_db_stmt *s, int c)
{
    pg_stmt *st = (pg_stmt *)s;
    if (decode_blob(st, c) != 0) {
        st->blob_row = -1;
        return NULL;
    }
    return st->blob_len ? st->blob : NULL;
}

static size_t pg_col_bytes(tc_db_stmt *s, int c)
{
    pg_stmt *st = (pg_stmt *)s;
    if (st->res && c < PQnfields(st->res) && PQftype(st->res, c) == 17 /* bytea */) {
        if (decode_blob(st, c) != 0) {
            st->blob_row = -1;
            return 0;
        }
        return st->blob_len;
    }
    const char *v = pg_col_text(s, c);
    return !v ? 0 : v == st->text ? st->text_len : strlen(v);
}

/* ---- COPY ... FROM STDIN (FORMAT binary) ---------------------------------- */

/* Appends n bytes to the copy buffer, sending it on when it is full. */
static int copy_put(pg_db *db, const void *p, size_t n)
{
    if (db->copy_len + n > db->copy_cap) {
        if (db->copy_len &&
            PQputCopyData(db->conn, (const char *)db->copy_buf, (int)db->copy_len) != 1)
            return fail_res(db, NULL);
        db->copy_len = 0;
        if (n > db->copy_cap) {
            size_t cap = n > 65536 ? n : 65536;
            uint8_t *b = realloc(db->copy_buf, cap);
            if (!b) {
                keep_msg(db, "out of memory");
                return TC_DB_ERROR;
            }
            db->copy_buf = b;
            db->copy_cap = cap;
        }
    }
    memcpy(db->copy_buf + db->copy_len, p, n);
    db->copy_len += n;
    return TC_DB_OK;
}

static int copy_be(pg_db *db, uint64_t v, int bytes)
{
    uint8_t b[8];
    for (int i = 0; i < bytes; i++)
        b[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
    return copy_put(db, b, (size_t)bytes);
}

static int pg_copy_begin(tc_db *d, const char *sql)
{
    pg_db *db = (pg_db *)d;
    int rc = pipe_end(db);
    if (rc != TC_DB_OK)
        return rc;
    PGresult *res = PQexec(db->conn, sql);
    if (PQresultStatus(res) != PGRES_COPY_IN) {
        rc = fail_res(db, res);
        PQclear(res);
        return rc == TC_DB_OK ? TC_DB_ERROR : rc;
    }
    PQclear(res);
    db->copy_len = 0;
    static const uint8_t header[] = {
        'P', 'G', 'C', 'O', 'P', 'Y', '\n', 0xff, '\r', '\n',
        0,   0,   0,   0,   0,   0,   0,    0,    0}; /* flags, no extension */
    return copy_put(db, header, sizeof header);
}

static int pg_copy_row(tc_db *d, int fields)
{
    return copy_be((pg_db *)d, (uint64_t)fields, 2);
}

static int pg_copy_int64(tc_db *d, int64_t v)
{
    int rc = copy_be((pg_db *)d, 8, 4);
    return rc != TC_DB_OK ? rc : copy_be((pg_db *)d, (uint64_t)v, 8);
}

static int pg_copy_double(tc_db *d, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int rc = copy_be((pg_db *)d, 8, 4);
    return rc != TC_DB_OK ? rc : copy_be((pg_db *)d, bits, 8);
}

static int pg_copy_null(tc_db *d)
{
    return copy_be((pg_db *)d, 0xffffffffu, 4);
}

static int pg_copy_blob(tc_db *d, const void *v, size_t n)
{
    int rc = copy_be((pg_db *)d, n, 4);
    return rc != TC_DB_OK ? rc : copy_put((pg_db *)d, v, n);
}

static int pg_copy_text(tc_db *d, const char *v, size_t n)
{
    const unsigned char *u = (const unsigned char *)v;
    if (!needs_map(u, n))
        return pg_copy_blob(d, v, n);
    size_t m = map_text(u, n, NULL);
    char *out = malloc(m ? m : 1);
    if (!out) {
        keep_msg((pg_db *)d, "out of memory");
        return TC_DB_ERROR;
    }
    map_text(u, n, out);
    int rc = pg_copy_blob(d, out, m);
    free(out);
    return rc;
}

/* ok 0: abandons the copy (nothing of it is stored). */
static int pg_copy_end(tc_db *d, int ok)
{
    pg_db *db = (pg_db *)d;
    int rc = ok ? copy_be(db, 0xffff, 2) : TC_DB_OK; /* the trailer: -1 fields */
    if (ok && rc == TC_DB_OK && db->copy_len &&
        PQputCopyData(db->conn, (const char *)db->copy_buf, (int)db->copy_len) != 1)
        rc = fail_res(db, NULL);
    db->copy_len = 0;
    int end = PQputCopyEnd(db->conn, ok && rc == TC_DB_OK ? NULL : "abandoned by truecost");
    PGresult *res;
    int first = TC_DB_OK;
    while ((res = PQgetResult(db->conn)) != NULL) {
        if (PQresultStatus(res) != PGRES_COMMAND_OK && first == TC_DB_OK)
            first = fail_res(db, res);
        PQclear(res);
    }
    if (rc == TC_DB_OK && end != 1)
        rc = fail_res(db, NULL);
    return rc != TC_DB_OK ? rc : ok ? first : TC_DB_ERROR;
}

static void pg_stream(tc_db_stmt *s)
{
    ((pg_stmt *)s)->stream = 1;
}

static const tc_db_ops pg_ops = {
    .close = pg_close,
    .errmsg = pg_errmsg,
    .set_busy_timeout = pg_set_busy_timeout,
    .exec = pg_exec,
    .begin = pg_begin,
    .commit = pg_commit,
    .rollback = pg_rollback,
    .in_transaction = pg_in_transaction,
    .changes = pg_changes,
    .defer_writes = pg_defer_writes,
    .stream = pg_stream,
    .copy_begin = pg_copy_begin,
    .copy_row = pg_copy_row,
    .copy_int64 = pg_copy_int64,
    .copy_double = pg_copy_double,
    .copy_text = pg_copy_text,
    .copy_blob = pg_copy_blob,
    .copy_null = pg_copy_null,
    .copy_end = pg_copy_end,
    .prepare = pg_prepare,
    .finalize = pg_finalize,
    .reset = pg_reset,
    .bind_int64 = pg_bind_int64,
    .bind_double = pg_bind_double,
    .bind_text = pg_bind_text,
    .bind_blob = pg_bind_blob,
    .bind_null = pg_bind_null,
    .step = pg_step,
    .col_is_null = pg_col_is_null,
    .col_int64 = pg_col_int64,
    .col_double = pg_col_double,
    .col_text = pg_col_text,
    .col_blob = pg_col_blob,
    .col_bytes = pg_col_bytes,
};
