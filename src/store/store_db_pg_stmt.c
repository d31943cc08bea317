/* The PostgreSQL back end's statements: prepared once per connection,
 * parameters as text (blobs binary), rows as text, bytea in hex; text
 * that is not UTF-8 mapped to private-use characters and back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_db_pg.h"

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

int tc_pg_prepare(tc_db *d, const char *sql, tc_db_stmt **out)
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
        tc_pg_keep_msg(db, "out of memory");
        return TC_DB_ERROR;
    }
    st->base.ops = &tc_pg_ops;
    st->db = db;
    st->n_params = n;
    st->blob_row = -1;
    st->deferrable = strncmp(sql, "INSERT", 6) == 0 && !strstr(sql, "RETURNING");
    snprintf(st->name, sizeof st->name, "s%d", ++db->next_name);
    PGresult *res = PQprepare(db->conn, st->name, text, 0, NULL);
    free(text);
    int rc = PQresultStatus(res) == PGRES_COMMAND_OK ? TC_DB_OK : tc_pg_fail_res(db, res);
    PQclear(res);
    if (rc == TC_DB_OK && n > 0) {
        st->params = calloc((size_t)n, sizeof *st->params);
        st->vals = calloc((size_t)n, sizeof *st->vals);
        st->lens = calloc((size_t)n, sizeof *st->lens);
        st->fmts = calloc((size_t)n, sizeof *st->fmts);
        if (!st->params || !st->vals || !st->lens || !st->fmts) {
            tc_pg_keep_msg(db, "out of memory");
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

void tc_pg_reset(tc_db_stmt *s)
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

void tc_pg_finalize(tc_db_stmt *s)
{
    pg_stmt *st = (pg_stmt *)s;
    tc_pg_reset(s);
    (void)tc_pg_pipe_end(st->db);
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
        tc_pg_keep_msg(st->db, "parameter index out of range");
        return NULL;
    }
    return &st->params[i - 1];
}

int tc_pg_bind_int64(tc_db_stmt *s, int i, int64_t v)
{
    pg_param *p = param(s, i);
    if (!p)
        return TC_DB_ERROR;
    p->len = snprintf(p->buf, sizeof p->buf, "%lld", (long long)v);
    p->val = p->buf;
    p->fmt = 0;
    return TC_DB_OK;
}

int tc_pg_bind_double(tc_db_stmt *s, int i, double v)
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
                tc_pg_keep_msg(st->db, "out of memory");
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

/* 1 when v[0..n) must be mapped: a byte that is not UTF-8, or a
 * character that reads as a mapped byte. */
int tc_pg_needs_map(const unsigned char *u, size_t n)
{
    for (size_t k = 0, at = 0; at < n; at += k)
        if ((k = utf8_len(u + at, n - at)) == 0 || (k == 4 && u[at] == PG_RAW_LEAD0))
            return 1;
    return 0;
}

/* The mapped text of v[0..n) into out (NULL: only counts); its length. */
size_t tc_pg_map_text(const unsigned char *v, size_t n, char *out)
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
    char *out = malloc(tc_pg_map_text(v, n, NULL) + 1);
    if (!out) {
        tc_pg_keep_msg(st->db, "out of memory");
        return TC_DB_ERROR;
    }
    int rc = copy_in(st, p, out, tc_pg_map_text(v, n, out));
    free(out);
    return rc;
}

int tc_pg_bind_text(tc_db_stmt *s, int i, const char *v, int len)
{
    pg_param *p = param(s, i);
    if (!p)
        return TC_DB_ERROR;
    p->fmt = 0;
    /* A text parameter ends at its NUL for PostgreSQL: a NUL inside is cut. */
    size_t n = len < 0 ? strlen(v) : strnlen(v, (size_t)len);
    const unsigned char *u = (const unsigned char *)v;
    if (tc_pg_needs_map(u, n))
        return bind_mapped((pg_stmt *)s, p, u, n);
    return copy_in((pg_stmt *)s, p, v, n);
}

int tc_pg_bind_blob(tc_db_stmt *s, int i, const void *v, size_t len)
{
    pg_param *p = param(s, i);
    if (!p)
        return TC_DB_ERROR;
    p->val = len ? v : "";
    p->len = (int)len;
    p->fmt = 1;
    return TC_DB_OK;
}

int tc_pg_bind_null(tc_db_stmt *s, int i)
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
        db->pipe_rc = tc_pg_fail_res(db, NULL);
        return TC_DB_DONE;
    }
    db->changes = 1;
    if (++db->pending >= PG_PIPE_MAX)
        tc_pg_pipe_drain(db);
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
            return tc_pg_fail_res(db, NULL);
        st->streaming = 1;
        if (PQsetSingleRowMode(db->conn) != 1) {
            stream_end(st);
            tc_pg_keep_msg(db, "cannot read the rows one at a time");
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
    int rc = st->res && s == PGRES_TUPLES_OK ? TC_DB_DONE : tc_pg_fail_res(db, st->res);
    PQclear(st->res);
    st->res = NULL;
    stream_end(st);
    st->row = st->n_rows = 0;
    return rc;
}

int tc_pg_step(tc_db_stmt *s)
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
            int prc = tc_pg_pipe_end(st->db);
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
            int rc = tc_pg_fail_res(st->db, st->res);
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

int tc_pg_col_is_null(tc_db_stmt *s, int c)
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

int64_t tc_pg_col_int64(tc_db_stmt *s, int c)
{
    const char *v = value((pg_stmt *)s, c);
    if (!v)
        return 0;
    if (v[0] == 't' || v[0] == 'f') /* boolean */
        return v[0] == 't';
    return strtoll(v, NULL, 10);
}

double tc_pg_col_double(tc_db_stmt *s, int c)
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

const char *tc_pg_col_text(tc_db_stmt *s, int c)
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

const void *tc_pg_col_blob(tc_db_stmt *s, int c)
{
    pg_stmt *st = (pg_stmt *)s;
    if (decode_blob(st, c) != 0) {
        st->blob_row = -1;
        return NULL;
    }
    return st->blob_len ? st->blob : NULL;
}

size_t tc_pg_col_bytes(tc_db_stmt *s, int c)
{
    pg_stmt *st = (pg_stmt *)s;
    if (st->res && c < PQnfields(st->res) && PQftype(st->res, c) == 17 /* bytea */) {
        if (decode_blob(st, c) != 0) {
            st->blob_row = -1;
            return 0;
        }
        return st->blob_len;
    }
    const char *v = tc_pg_col_text(s, c);
    return !v ? 0 : v == st->text ? st->text_len : strlen(v);
}

void tc_pg_stream(tc_db_stmt *s)
{
    ((pg_stmt *)s)->stream = 1;
}
