/* Private to src/store: the store handle shared by store.c (the public
 * API over runs and requests) and store_schema.c (opening, checking and
 * migrating the file). */
#ifndef TC_STORE_INTERNAL_H
#define TC_STORE_INTERNAL_H

#include "store.h"
#include "store_db.h"

/* Statements prepared on first use and kept for the store's life, so a
 * batch of requests costs no parsing. */
typedef enum store_stmt {
    ST_RUN_INSERT,
    ST_RUN_FINISH,
    ST_RUN_STATUS,
    ST_RUN_EXISTS,
    ST_RUN_BY_ID,
    ST_RUN_BY_LABEL,
    ST_RUN_LIST,
    ST_RUN_GROUP,
    ST_REQ_INSERT,
    ST_REQ_RUN_LOCK,
    ST_REQ_LOAD,
    ST_REQ_EACH,
    ST_DEV_INSERT,
    ST_DEV_LOAD,
    ST_SAMPLE_INSERT,
    ST_SAMPLE_LOAD,
    ST_FP_SET,
    ST_FP_GET,
    ST_FIG_SET,
    ST_FIG_GET,
    ST_FIG_MISSING,
    ST_WL_SET,
    ST_WL_GET,
    ST_IMP_HAS_UUID,
    ST_IMP_ENDED,
    ST_IMP_SET_END,
    ST_IMP_FIGURES,
    ST_COUNT
} store_stmt;

/* The schema version that added the load shape (runs.arrival and its
 * companions, requests.sched_ns): a file opened read-only below it reads
 * every run as a closed loop. */
#define TC_SCHEMA_LOAD_SHAPE 8
/* The schema version that added runs.uuid. */
#define TC_SCHEMA_UUID 10
/* The schema version that added runs.command. */
#define TC_SCHEMA_COMMAND 12
/* The schema version that added soaks.command. */
#define TC_SCHEMA_SOAK_COMMAND 14
/* The schema version that added requests.retried. */
#define TC_SCHEMA_RETRIED 16
/* The schema version that added training runs (train_runs, _steps, _warnings). */
#define TC_SCHEMA_TRAIN 17

/* The schema version this truecost writes (both back ends). */
int tc_store_schema_version(void);

struct tc_store {
    tc_db *db;
    char *path; /* for messages: a URL's password is redacted */
    tc_store_mode mode;
    int version; /* schema version of the file */
    int busy_ms; /* for messages: how long a lock was waited for */
    int wal;     /* this connection turned WAL on, and turns it off at close */
    tc_db_stmt *stmt[ST_COUNT];
    uint8_t *blob; /* scratch for encoding chunk times, reused across batches */
    size_t blob_cap;
};

/* Checks the open file is truecost's (or empty), and in WRITE mode turns
 * on WAL and migrates it to the current schema. */
TC_MUST_CHECK tc_err tc_store_schema_prepare(tc_store *s, char *err, size_t errlen);

/* What access() said about a database file that exists, and whose it is. */
typedef struct tc_store_access {
    int read_errno, write_errno; /* 0: allowed (or, for writing, not asked) */
    unsigned owner_uid, my_uid;
    const char *owner_name; /* NULL or "" when the owner has no name */
} tc_store_access;

/* When *a says the file cannot be used, writes why and the fix that fits
 * (chmod only for the user's own file, else whose it is) and returns
 * TC_ERR_IO; else TC_OK. Separate from the access() calls so tests can
 * cover every case whoever runs them (root passes every access check). */
TC_MUST_CHECK tc_err tc_store_access_fail(const char *path, const tc_store_access *a, char *err,
                                          size_t errlen);

/* The PostgreSQL schema (store_schema_pg.c): checks the database is
 * truecost's (or holds none of its tables) and in WRITE mode migrates it,
 * under an advisory lock so that many hosts may start at once. */
TC_MUST_CHECK tc_err tc_store_schema_prepare_pg(tc_store *s, char *err, size_t errlen);

/* Writes "<path>: <what the database said>" plus a fix for the usual causes
 * (locked, read-only, full disk) and returns TC_ERR_BUSY for a lock that
 * outlasted the busy timeout (worth trying again later), else TC_ERR_IO. */
TC_MUST_CHECK tc_err tc_store_sql_fail(tc_store *s, int rc /* TC_DB_* */, const char *what,
                                       char *err, size_t errlen);

/* The statement in slot id, prepared from sql on first use (the caller
 * always passes the same static text for an id, so the SQL sits beside
 * the code that binds it) and otherwise reset with bindings cleared.
 * Callers tc_db_reset it when done, so no read stays open between
 * calls. */
TC_MUST_CHECK tc_err tc_store_stmt(tc_store *s, store_stmt id, const char *sql, tc_db_stmt **out,
                                   char *err, size_t errlen);

/* Steps a statement that returns no rows and resets it; TC_OK or the
 * error from tc_store_sql_fail with `what`. */
TC_MUST_CHECK tc_err tc_store_step_done(tc_store *s, tc_db_stmt *st, const char *what, char *err,
                                        size_t errlen);

/* A one-off statement: prepared (failing with tc_store_sql_fail and
 * `what`), then stepped once after its bindings (bind_rc, the first
 * binding error or TC_DB_OK) and finalized. */
TC_MUST_CHECK tc_err tc_store_prepare(tc_store *s, const char *sql, tc_db_stmt **st,
                                      const char *what, char *err, size_t errlen);
TC_MUST_CHECK tc_err tc_store_step_once(tc_store *s, tc_db_stmt *st, int bind_rc, const char *what,
                                        char *err, size_t errlen);

/* Every row of `sql` (its one parameter: run_id), each read by `row` into
 * a grown array *out of *n items of `size` bytes (the caller frees it,
 * also on error). */
TC_MUST_CHECK tc_err tc_store_load_rows(tc_store *s, const char *sql, int64_t run_id, size_t size,
                                        void (*row)(tc_db_stmt *, void *), void **out, size_t *n,
                                        const char *what, char *err, size_t errlen);

/* Binds v, or NULL when it is not finite ("not measured"). */
int tc_store_bind_real(tc_db_stmt *st, int col, double v);

/* BEGIN (a writer's lock at once) / COMMIT / ROLLBACK. Rollback is a
 * no-op outside a transaction (SQLite may have rolled back by itself
 * after an I/O error). */
TC_MUST_CHECK tc_err tc_store_begin(tc_store *s, char *err, size_t errlen);
TC_MUST_CHECK tc_err tc_store_commit(tc_store *s, char *err, size_t errlen);
/* tc_store_begin, and on PostgreSQL also the store-wide advisory lock
 * (released at commit or rollback): what SQLite's IMMEDIATE gives, for the
 * few transactions that read before they write (a group's start). */
TC_MUST_CHECK tc_err tc_store_begin_exclusive(tc_store *s, char *err, size_t errlen);
void tc_store_rollback(tc_store *s);

/* Inserts item i (i = 0..n-1) of a batch for run_id. */
typedef tc_err (*tc_store_insert_fn)(tc_store *s, int64_t run_id, size_t i, const void *items,
                                     char *err, size_t errlen);

/* The insert functions behind tc_store_add_requests, _add_devices and
 * _add_samples, for a caller that holds its own transaction (import):
 * items is an array of tc_req_record, tc_run_device or tc_run_sample. */
TC_MUST_CHECK tc_err tc_store_insert_request(tc_store *s, int64_t run_id, size_t i,
                                             const void *items, char *err, size_t errlen);
TC_MUST_CHECK tc_err tc_store_insert_device(tc_store *s, int64_t run_id, size_t i,
                                            const void *items, char *err, size_t errlen);
TC_MUST_CHECK tc_err tc_store_insert_sample(tc_store *s, int64_t run_id, size_t i,
                                            const void *items, char *err, size_t errlen);

/* n requests of run_id inside the caller's transaction, the fastest way
 * the back end has (PostgreSQL: one COPY). */
TC_MUST_CHECK tc_err tc_store_insert_requests_tx(tc_store *s, int64_t run_id,
                                                 const tc_req_record *recs, size_t n, char *err,
                                                 size_t errlen);

/* Stores a whole batch in one transaction, all or nothing: refuses a
 * read-only store, does nothing for n == 0, rolls back on any failure. */
TC_MUST_CHECK tc_err tc_store_insert_batch(tc_store *s, int64_t run_id, const void *items, size_t n,
                                           tc_store_insert_fn insert, char *err, size_t errlen);

/* Binds a fixed-size char array as text, up to its NUL or its end:
 * labels, endpoints and error details are data, any bytes. Returns a
 * TC_DB_ code. */
int tc_store_bind_field(tc_db_stmt *st, int col, const char *field, size_t size);

/* tc_store_train_save inside the caller's transaction (import). */
TC_MUST_CHECK tc_err tc_store_train_put(tc_store *s, const tc_train_info *info,
                                        const tc_train_step *steps, int64_t first_idx,
                                        size_t n_steps, const tc_train_warning *w, size_t n_w,
                                        char *err, size_t errlen);

/* Copies a text column into a fixed buffer, cut to fit. */
void tc_store_col_text(tc_db_stmt *st, int col, char *buf, size_t len);

#endif
