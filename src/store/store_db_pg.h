/* Private to store_db_pg*.c: the PostgreSQL back end's connection and
 * statement, and what its files share. store_db_pg.c: the connection,
 * transactions and pipelines; store_db_pg_stmt.c: statements, parameters,
 * rows and the text mapping; store_db_pg_copy.c: COPY FROM STDIN. */
#ifndef TC_STORE_DB_PG_H
#define TC_STORE_DB_PG_H

#include <libpq-fe.h>
#include <stddef.h>
#include <stdint.h>

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

/* A byte that is not UTF-8 is stored as U+10FF00 + byte (see
 * store_db_pg_stmt.c): these are its first two bytes in UTF-8. */
#define PG_RAW_LEAD0 0xf4
#define PG_RAW_LEAD1 0x8f

/* The operations table (store_db_pg.c). */
extern const tc_db_ops tc_pg_ops;

/* store_db_pg.c: libpq's message kept without its newline; a failed
 * result (NULL: the connection's error) as a TC_DB_ code, its message
 * kept; a pipeline's answers read up to a sync point (the first error
 * kept), and the pipeline left (its first error, or TC_DB_OK). */
void tc_pg_keep_msg(pg_db *db, const char *m);
int tc_pg_fail_res(pg_db *db, PGresult *res);
void tc_pg_pipe_drain(pg_db *db);
int tc_pg_pipe_end(pg_db *db);
/* store_db_pg.c: the connection's and transactions' operations. */
int tc_pg_exec(tc_db *d, const char *sql);
void tc_pg_set_busy_timeout(tc_db *d, int ms);
void tc_pg_close(tc_db *d);
const char *tc_pg_errmsg(tc_db *d);
int tc_pg_in_transaction(tc_db *d);
void tc_pg_defer_writes(tc_db *d);
int tc_pg_begin(tc_db *d);
int tc_pg_commit(tc_db *d);
void tc_pg_rollback(tc_db *d);
int64_t tc_pg_changes(tc_db *d);
/* store_db_pg_stmt.c: statements, parameters, rows. tc_pg_needs_map:
 * text that must be mapped (a byte that is not UTF-8, or a character
 * that reads as a mapped byte); tc_pg_map_text: the mapped text into out
 * (NULL: only counts), its length. */
int tc_pg_prepare(tc_db *d, const char *sql, tc_db_stmt **out);
void tc_pg_reset(tc_db_stmt *s);
void tc_pg_finalize(tc_db_stmt *s);
int tc_pg_bind_int64(tc_db_stmt *s, int i, int64_t v);
int tc_pg_bind_double(tc_db_stmt *s, int i, double v);
int tc_pg_needs_map(const unsigned char *u, size_t n);
size_t tc_pg_map_text(const unsigned char *v, size_t n, char *out);
int tc_pg_bind_text(tc_db_stmt *s, int i, const char *v, int len);
int tc_pg_bind_blob(tc_db_stmt *s, int i, const void *v, size_t len);
int tc_pg_bind_null(tc_db_stmt *s, int i);
int tc_pg_step(tc_db_stmt *s);
int tc_pg_col_is_null(tc_db_stmt *s, int c);
int64_t tc_pg_col_int64(tc_db_stmt *s, int c);
double tc_pg_col_double(tc_db_stmt *s, int c);
const char *tc_pg_col_text(tc_db_stmt *s, int c);
const void *tc_pg_col_blob(tc_db_stmt *s, int c);
size_t tc_pg_col_bytes(tc_db_stmt *s, int c);
/* store_db_pg_copy.c: COPY FROM STDIN in binary (store_db.h). */
int tc_pg_copy_begin(tc_db *d, const char *sql);
int tc_pg_copy_row(tc_db *d, int fields);
int tc_pg_copy_int64(tc_db *d, int64_t v);
int tc_pg_copy_double(tc_db *d, double v);
int tc_pg_copy_null(tc_db *d);
int tc_pg_copy_blob(tc_db *d, const void *v, size_t n);
int tc_pg_copy_text(tc_db *d, const char *v, size_t n);
int tc_pg_copy_end(tc_db *d, int ok);
/* store_db_pg_stmt.c: rows one at a time (single-row mode). */
void tc_pg_stream(tc_db_stmt *s);

#endif
