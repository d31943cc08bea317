/* The SQLite back end of store_db.h: a thin layer over sqlite3_*. */
#include <sqlite3.h>
#include <stdlib.h>

#include "store_db.h"

typedef struct sq_db {
    tc_db base;
    sqlite3 *h;
} sq_db;

typedef struct sq_stmt {
    tc_db_stmt base;
    sq_db *db;
    sqlite3_stmt *h;
} sq_stmt;

static const tc_db_ops sq_ops;

/* SQLite's code to the interface's. */
static int map(int rc)
{
    switch (rc) {
    case SQLITE_OK:
        return TC_DB_OK;
    case SQLITE_ROW:
        return TC_DB_ROW;
    case SQLITE_DONE:
        return TC_DB_DONE;
    case SQLITE_CONSTRAINT_UNIQUE:
    case SQLITE_CONSTRAINT_PRIMARYKEY:
        return TC_DB_UNIQUE;
    case SQLITE_CONSTRAINT_FOREIGNKEY:
        return TC_DB_FOREIGNKEY;
    }
    switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
        return TC_DB_BUSY;
    case SQLITE_READONLY:
        return TC_DB_READONLY;
    case SQLITE_FULL:
        return TC_DB_FULL;
    case SQLITE_CANTOPEN:
        return TC_DB_CANTOPEN;
    case SQLITE_NOTADB:
        return TC_DB_NOTADB;
    }
    return TC_DB_ERROR;
}

int tc_db_open_sqlite(const char *path, int write, int busy_ms, tc_db **out)
{
    sq_db *db = calloc(1, sizeof *db);
    *out = db ? &db->base : NULL;
    if (!db)
        return TC_DB_ERROR;
    db->base.ops = &sq_ops;
    db->base.kind = TC_DB_SQLITE;
    int flags = write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
    int rc = sqlite3_open_v2(path, &db->h, flags, NULL);
    if (rc != SQLITE_OK)
        return map(rc);
    sqlite3_extended_result_codes(db->h, 1);
    sqlite3_busy_timeout(db->h, busy_ms);
    return TC_DB_OK;
}

struct sqlite3 *tc_db_sqlite_handle(tc_db *db)
{
    return db->kind == TC_DB_SQLITE ? ((sq_db *)db)->h : NULL;
}

static void sq_close(tc_db *d)
{
    sq_db *db = (sq_db *)d;
    sqlite3_close(db->h);
    free(db);
}

static const char *sq_errmsg(tc_db *d)
{
    sq_db *db = (sq_db *)d;
    return db->h ? sqlite3_errmsg(db->h) : "out of memory";
}

static void sq_set_busy_timeout(tc_db *d, int ms)
{
    sqlite3_busy_timeout(((sq_db *)d)->h, ms);
}

static int sq_exec(tc_db *d, const char *sql)
{
    return map(sqlite3_exec(((sq_db *)d)->h, sql, NULL, NULL, NULL));
}

static int sq_begin(tc_db *d)
{
    return sq_exec(d, "BEGIN IMMEDIATE");
}

static int sq_commit(tc_db *d)
{
    return sq_exec(d, "COMMIT");
}

static void sq_rollback(tc_db *d)
{
    /* SQLite may have rolled back by itself after an I/O error. */
    if (!sqlite3_get_autocommit(((sq_db *)d)->h))
        sqlite3_exec(((sq_db *)d)->h, "ROLLBACK", NULL, NULL, NULL);
}

static int sq_in_transaction(tc_db *d)
{
    return !sqlite3_get_autocommit(((sq_db *)d)->h);
}

static int64_t sq_changes(tc_db *d)
{
    return sqlite3_changes(((sq_db *)d)->h);
}

static int sq_prepare(tc_db *d, const char *sql, tc_db_stmt **out)
{
    sq_db *db = (sq_db *)d;
    *out = NULL;
    sq_stmt *st = calloc(1, sizeof *st);
    if (!st)
        return TC_DB_ERROR;
    int rc = sqlite3_prepare_v3(db->h, sql, -1, SQLITE_PREPARE_PERSISTENT, &st->h, NULL);
    if (rc != SQLITE_OK) {
        free(st);
        return map(rc);
    }
    st->base.ops = &sq_ops;
    st->db = db;
    *out = &st->base;
    return TC_DB_OK;
}

static void sq_finalize(tc_db_stmt *s)
{
    sq_stmt *st = (sq_stmt *)s;
    sqlite3_finalize(st->h);
    free(st);
}

static void sq_reset(tc_db_stmt *s)
{
    sqlite3_reset(((sq_stmt *)s)->h);
    sqlite3_clear_bindings(((sq_stmt *)s)->h);
}

#define H(s) (((sq_stmt *)(s))->h)

static int sq_bind_int64(tc_db_stmt *s, int i, int64_t v)
{
    return map(sqlite3_bind_int64(H(s), i, v));
}

static int sq_bind_double(tc_db_stmt *s, int i, double v)
{
    return map(sqlite3_bind_double(H(s), i, v));
}

static int sq_bind_text(tc_db_stmt *s, int i, const char *v, int len)
{
    return map(sqlite3_bind_text(H(s), i, v, len, SQLITE_TRANSIENT));
}

static int sq_bind_blob(tc_db_stmt *s, int i, const void *v, size_t len)
{
    /* A zero-length blob needs a non-NULL pointer, else SQLite binds NULL. */
    return map(sqlite3_bind_blob64(H(s), i, len ? v : "", len, SQLITE_STATIC));
}

static int sq_bind_null(tc_db_stmt *s, int i)
{
    return map(sqlite3_bind_null(H(s), i));
}

static int sq_step(tc_db_stmt *s)
{
    int rc = sqlite3_step(H(s));
    if (rc == SQLITE_ROW || rc == SQLITE_DONE)
        return map(rc);
    /* The extended code (constraint kinds) is on the connection. */
    return map(sqlite3_extended_errcode(((sq_stmt *)s)->db->h));
}

static int sq_col_is_null(tc_db_stmt *s, int c)
{
    return sqlite3_column_type(H(s), c) == SQLITE_NULL;
}

static int64_t sq_col_int64(tc_db_stmt *s, int c)
{
    return sqlite3_column_int64(H(s), c);
}

static double sq_col_double(tc_db_stmt *s, int c)
{
    return sqlite3_column_double(H(s), c);
}

static const char *sq_col_text(tc_db_stmt *s, int c)
{
    return (const char *)sqlite3_column_text(H(s), c);
}

static const void *sq_col_blob(tc_db_stmt *s, int c)
{
    return sqlite3_column_blob(H(s), c);
}

static size_t sq_col_bytes(tc_db_stmt *s, int c)
{
    return (size_t)sqlite3_column_bytes(H(s), c);
}

static const tc_db_ops sq_ops = {
    .close = sq_close,
    .errmsg = sq_errmsg,
    .set_busy_timeout = sq_set_busy_timeout,
    .exec = sq_exec,
    .begin = sq_begin,
    .commit = sq_commit,
    .rollback = sq_rollback,
    .in_transaction = sq_in_transaction,
    .changes = sq_changes,
    .prepare = sq_prepare,
    .finalize = sq_finalize,
    .reset = sq_reset,
    .bind_int64 = sq_bind_int64,
    .bind_double = sq_bind_double,
    .bind_text = sq_bind_text,
    .bind_blob = sq_bind_blob,
    .bind_null = sq_bind_null,
    .step = sq_step,
    .col_is_null = sq_col_is_null,
    .col_int64 = sq_col_int64,
    .col_double = sq_col_double,
    .col_text = sq_col_text,
    .col_blob = sq_col_blob,
    .col_bytes = sq_col_bytes,
};
