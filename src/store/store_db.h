/* Private to src/store: the database engines behind one small interface,
 * so the store's modules hold SQL and never an engine's API. Two back
 * ends: SQLite (store_db_sqlite.c, the default, a file) and PostgreSQL
 * through libpq (store_db_pg.c, a postgresql:// URL).
 *
 * SQL given to tc_db_prepare is written once for both: parameters as ?N
 * (or ?), upserts as INSERT ... ON CONFLICT, new ids by RETURNING. The
 * PostgreSQL back end rewrites ?N to $N. Transactions go through
 * tc_db_begin/commit/rollback, never through SQL text. */
#ifndef TC_STORE_DB_H
#define TC_STORE_DB_H

#include <stddef.h>
#include <stdint.h>

typedef enum tc_db_kind { TC_DB_SQLITE, TC_DB_PG } tc_db_kind;

/* Result codes of the interface; each engine's own are mapped to these. */
enum {
    TC_DB_OK = 0,
    TC_DB_ERROR,      /* anything else: tc_db_errmsg says what */
    TC_DB_BUSY,       /* a lock held by another connection outlasted the wait */
    TC_DB_READONLY,   /* the database or this connection is read-only */
    TC_DB_FULL,       /* the disk is full */
    TC_DB_CANTOPEN,   /* the file or server cannot be reached */
    TC_DB_NOTADB,     /* the file is not a database of this engine */
    TC_DB_UNIQUE,     /* a UNIQUE or PRIMARY KEY constraint refused a row */
    TC_DB_FOREIGNKEY, /* a FOREIGN KEY constraint refused a row */
    TC_DB_ROW = 100,  /* tc_db_step: a row is ready */
    TC_DB_DONE = 101  /* tc_db_step: no (more) rows */
};

typedef struct tc_db tc_db;
typedef struct tc_db_stmt tc_db_stmt;

/* True for a postgresql:// or postgres:// URL (the PostgreSQL back end). */
int tc_db_is_url(const char *target);

/* Writes target into buf with any password of a URL replaced by "***",
 * for every message a user may see. */
void tc_db_redact(const char *target, char *buf, size_t len);

/* Opens a connection; write 0 opens read-only. Returns a TC_DB_ code; *out
 * is set even on failure (so tc_db_errmsg can say why) and must be closed
 * with tc_db_close. busy_ms: how long a statement waits for a lock. */
int tc_db_open_sqlite(const char *path, int write, int busy_ms, tc_db **out);
int tc_db_open_pg(const char *url, int write, int busy_ms, tc_db **out);

/* Finalizes nothing: the caller finalizes its statements first. Accepts
 * NULL. */
void tc_db_close(tc_db *db);
tc_db_kind tc_db_kind_of(const tc_db *db);
/* The engine's last error message (owned by db). */
const char *tc_db_errmsg(tc_db *db);
void tc_db_set_busy_timeout(tc_db *db, int ms);

/* Runs one or more statements without parameters or rows. */
int tc_db_exec(tc_db *db, const char *sql);
/* BEGIN (SQLite: IMMEDIATE, so a writer takes the lock at once), COMMIT,
 * ROLLBACK (a no-op outside a transaction). */
int tc_db_begin(tc_db *db);
int tc_db_commit(tc_db *db);
void tc_db_rollback(tc_db *db);
int tc_db_in_transaction(tc_db *db);
/* For the next transaction only (tc_db_begin .. commit or rollback):
 * INSERTs without RETURNING may be sent without waiting for each answer
 * (PostgreSQL's pipeline mode: one round trip per batch, not per row), so
 * their errors come at commit, which then rolls back and returns the first
 * one. SQLite ignores it. */
void tc_db_defer_writes(tc_db *db);

/* Rows of st are fetched one at a time (PostgreSQL's single-row mode;
 * SQLite always does), so reading a run of any size takes the memory of
 * one row. Until st is reset or has answered DONE, no other statement may
 * run on the connection. Set once, after tc_db_prepare. */
void tc_db_stream(tc_db_stmt *st);

/* Bulk loading (PostgreSQL's COPY FROM STDIN in binary; SQLite has none:
 * tc_db_can_copy 0): copy_begin with "COPY table (cols) FROM STDIN (FORMAT
 * binary)", then per row copy_row(fields) and one value per field in the
 * columns' types (int64 for BIGINT, double for DOUBLE PRECISION, text,
 * blob for BYTEA, null), then copy_end(ok) (ok 0 abandons it). The COPY
 * may follow other statements ("SELECT ...; COPY ..."), sent with it in
 * one round trip; an error in one of them comes at copy_begin. Inside a
 * transaction, or, outside one, all of it is a transaction of its own,
 * committed by copy_end; an error (a UNIQUE clash...) comes at copy_end,
 * and rolls back all of it. */
int tc_db_can_copy(const tc_db *db);
int tc_db_copy_begin(tc_db *db, const char *sql);
int tc_db_copy_row(tc_db *db, int fields);
int tc_db_copy_int64(tc_db *db, int64_t v);
int tc_db_copy_double(tc_db *db, double v);
int tc_db_copy_text(tc_db *db, const char *v, size_t len);
int tc_db_copy_blob(tc_db *db, const void *v, size_t len);
int tc_db_copy_null(tc_db *db);
int tc_db_copy_end(tc_db *db, int ok);

/* Rows changed by the last INSERT, UPDATE or DELETE. */
int64_t tc_db_changes(tc_db *db);

/* Prepares sql (see the top). The statement lives until tc_db_finalize. */
int tc_db_prepare(tc_db *db, const char *sql, tc_db_stmt **out);
void tc_db_finalize(tc_db_stmt *st);
/* Back to before the first step, bindings cleared. */
void tc_db_reset(tc_db_stmt *st);

/* Parameters count from 1. Text and blobs are copied unless said
 * otherwise; tc_db_bind_blob_static's bytes must stay until the step. */
int tc_db_bind_int64(tc_db_stmt *st, int i, int64_t v);
int tc_db_bind_double(tc_db_stmt *st, int i, double v);
int tc_db_bind_text(tc_db_stmt *st, int i, const char *v, int len); /* len < 0: to the NUL */
int tc_db_bind_blob_static(tc_db_stmt *st, int i, const void *v, size_t len);
int tc_db_bind_null(tc_db_stmt *st, int i);

/* TC_DB_ROW, TC_DB_DONE or an error code. */
int tc_db_step(tc_db_stmt *st);

/* Columns of the current row, from 0. NULL reads as 0, 0.0, NULL text. */
int tc_db_col_is_null(tc_db_stmt *st, int c);
int64_t tc_db_col_int64(tc_db_stmt *st, int c);
double tc_db_col_double(tc_db_stmt *st, int c);
const char *tc_db_col_text(tc_db_stmt *st, int c); /* NULL for NULL */
const void *tc_db_col_blob(tc_db_stmt *st, int c);
size_t tc_db_col_bytes(tc_db_stmt *st, int c);

/* ---- the back ends' entry points, behind the calls above ---- */

typedef struct tc_db_ops {
    void (*close)(tc_db *db);
    const char *(*errmsg)(tc_db *db);
    void (*set_busy_timeout)(tc_db *db, int ms);
    int (*exec)(tc_db *db, const char *sql);
    int (*begin)(tc_db *db);
    int (*commit)(tc_db *db);
    void (*rollback)(tc_db *db);
    int (*in_transaction)(tc_db *db);
    int64_t (*changes)(tc_db *db);
    void (*defer_writes)(tc_db *db);
    void (*stream)(tc_db_stmt *st);
    int (*copy_begin)(tc_db *db, const char *sql);
    int (*copy_row)(tc_db *db, int fields);
    int (*copy_int64)(tc_db *db, int64_t v);
    int (*copy_double)(tc_db *db, double v);
    int (*copy_text)(tc_db *db, const char *v, size_t len);
    int (*copy_blob)(tc_db *db, const void *v, size_t len);
    int (*copy_null)(tc_db *db);
    int (*copy_end)(tc_db *db, int ok);
    int (*prepare)(tc_db *db, const char *sql, tc_db_stmt **out);
    void (*finalize)(tc_db_stmt *st);
    void (*reset)(tc_db_stmt *st);
    int (*bind_int64)(tc_db_stmt *st, int i, int64_t v);
    int (*bind_double)(tc_db_stmt *st, int i, double v);
    int (*bind_text)(tc_db_stmt *st, int i, const char *v, int len);
    int (*bind_blob)(tc_db_stmt *st, int i, const void *v, size_t len);
    int (*bind_null)(tc_db_stmt *st, int i);
    int (*step)(tc_db_stmt *st);
    int (*col_is_null)(tc_db_stmt *st, int c);
    int64_t (*col_int64)(tc_db_stmt *st, int c);
    double (*col_double)(tc_db_stmt *st, int c);
    const char *(*col_text)(tc_db_stmt *st, int c);
    const void *(*col_blob)(tc_db_stmt *st, int c);
    size_t (*col_bytes)(tc_db_stmt *st, int c);
} tc_db_ops;

/* Every back end's connection and statement start with these. */
struct tc_db {
    const tc_db_ops *ops;
    tc_db_kind kind;
};
struct tc_db_stmt {
    const tc_db_ops *ops;
};

/* SQLite only: the raw handle, for the PRAGMAs of store_schema.c. */
struct sqlite3 *tc_db_sqlite_handle(tc_db *db);

#endif
