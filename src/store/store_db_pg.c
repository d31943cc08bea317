/* The PostgreSQL back end of store_db.h, through libpq: the connection,
 * transactions, the pipeline a batch's inserts go in, and the operations
 * table (statements: store_db_pg_stmt.c; COPY: store_db_pg_copy.c). */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_db_pg.h"

static void ignore_notice(void *arg, const char *message)
{
    (void)arg;
    (void)message; /* "relation already exists, skipping" and the like: not for the user */
}

/* Keeps libpq's message, without its trailing newline. */
void tc_pg_keep_msg(pg_db *db, const char *m)
{
    snprintf(db->msg, sizeof db->msg, "%s", m && m[0] ? m : "unknown PostgreSQL error");
    size_t n = strlen(db->msg);
    while (n && (db->msg[n - 1] == '\n' || db->msg[n - 1] == ' '))
        db->msg[--n] = '\0';
}

/* A failed result's SQLSTATE to the interface's code; keeps the message. */
int tc_pg_fail_res(pg_db *db, PGresult *res)
{
    tc_pg_keep_msg(db, res ? PQresultErrorMessage(res) : PQerrorMessage(db->conn));
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
void tc_pg_pipe_drain(pg_db *db)
{
    if (!db->in_pipe || PQpipelineSync(db->conn) != 1) {
        if (db->in_pipe && !db->pipe_rc)
            db->pipe_rc = tc_pg_fail_res(db, NULL);
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
            db->pipe_rc = tc_pg_fail_res(db, res);
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
int tc_pg_pipe_end(pg_db *db)
{
    db->defer = 0;
    if (!db->in_pipe)
        return TC_DB_OK;
    tc_pg_pipe_drain(db);
    PQexitPipelineMode(db->conn);
    db->in_pipe = 0;
    int rc = db->pipe_rc;
    db->pipe_rc = TC_DB_OK;
    return rc;
}

int tc_pg_exec(tc_db *d, const char *sql)
{
    pg_db *db = (pg_db *)d;
    int prc = tc_pg_pipe_end(db); /* PQexec runs outside pipeline mode */
    if (prc != TC_DB_OK)
        return prc;
    PGresult *res = PQexec(db->conn, sql);
    ExecStatusType s = PQresultStatus(res);
    int rc = s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK ? TC_DB_OK : tc_pg_fail_res(db, res);
    PQclear(res);
    return rc;
}

void tc_pg_set_busy_timeout(tc_db *d, int ms)
{
    char sql[64];
    snprintf(sql, sizeof sql, "SET lock_timeout = %d", ms);
    (void)tc_pg_exec(d, sql);
}

int tc_db_open_pg(const char *url, int write, int busy_ms, tc_db **out)
{
    pg_db *db = calloc(1, sizeof *db);
    *out = db ? &db->base : NULL;
    if (!db)
        return TC_DB_ERROR;
    db->base.ops = &tc_pg_ops;
    db->base.kind = TC_DB_PG;
    db->conn = PQconnectdb(url);
    if (!db->conn || PQstatus(db->conn) != CONNECTION_OK) {
        tc_pg_keep_msg(db, db->conn ? PQerrorMessage(db->conn) : "out of memory");
        return TC_DB_CANTOPEN;
    }
    PQsetNoticeProcessor(db->conn, ignore_notice, NULL);
    /* READ COMMITTED whatever the server's default: the store's batches,
     * locks and triggers are written for a snapshot a statement. */
    int rc = tc_pg_exec(&db->base, "SET client_min_messages = warning; "
                                   "SET default_transaction_isolation = 'read committed'");
    if (rc == TC_DB_OK && !write)
        rc = tc_pg_exec(&db->base, "SET default_transaction_read_only = on");
    if (rc == TC_DB_OK)
        tc_pg_set_busy_timeout(&db->base, busy_ms);
    return rc;
}

void tc_pg_close(tc_db *d)
{
    pg_db *db = (pg_db *)d;
    PQfinish(db->conn);
    free(db->copy_buf);
    free(db);
}

const char *tc_pg_errmsg(tc_db *d)
{
    return ((pg_db *)d)->msg;
}

int tc_pg_in_transaction(tc_db *d)
{
    return PQtransactionStatus(((pg_db *)d)->conn) != PQTRANS_IDLE;
}

void tc_pg_defer_writes(tc_db *d)
{
    ((pg_db *)d)->defer = 1;
}

int tc_pg_begin(tc_db *d)
{
    pg_db *db = (pg_db *)d;
    int defer = db->defer;
    int rc = tc_pg_exec(d, "BEGIN");
    if (rc == TC_DB_OK && defer && PQenterPipelineMode(db->conn) == 1) {
        db->in_pipe = 1;
        db->pipe_rc = TC_DB_OK;
        db->pending = 0;
    }
    return rc;
}

int tc_pg_commit(tc_db *d)
{
    pg_db *db = (pg_db *)d;
    int prc = tc_pg_pipe_end(db);
    if (prc != TC_DB_OK) {
        char keep[sizeof db->msg];
        memcpy(keep, db->msg, sizeof keep); /* the rollback's own message must not hide it */
        (void)tc_pg_exec(d, "ROLLBACK");
        memcpy(db->msg, keep, sizeof keep);
        return prc;
    }
    PGresult *res = PQexec(db->conn, "COMMIT");
    int rc = PQresultStatus(res) == PGRES_COMMAND_OK ? TC_DB_OK : tc_pg_fail_res(db, res);
    /* COMMIT of a transaction that failed answers ROLLBACK, not an error. */
    if (rc == TC_DB_OK && strcmp(PQcmdStatus(res), "ROLLBACK") == 0) {
        tc_pg_keep_msg(db, "the transaction had failed and was rolled back");
        rc = TC_DB_ERROR;
    }
    PQclear(res);
    return rc;
}

void tc_pg_rollback(tc_db *d)
{
    (void)tc_pg_pipe_end((pg_db *)d);
    if (tc_pg_in_transaction(d))
        (void)tc_pg_exec(d, "ROLLBACK");
}

int64_t tc_pg_changes(tc_db *d)
{
    return ((pg_db *)d)->changes;
}

const tc_db_ops tc_pg_ops = {
    .close = tc_pg_close,
    .errmsg = tc_pg_errmsg,
    .set_busy_timeout = tc_pg_set_busy_timeout,
    .exec = tc_pg_exec,
    .begin = tc_pg_begin,
    .commit = tc_pg_commit,
    .rollback = tc_pg_rollback,
    .in_transaction = tc_pg_in_transaction,
    .changes = tc_pg_changes,
    .defer_writes = tc_pg_defer_writes,
    .stream = tc_pg_stream,
    .copy_begin = tc_pg_copy_begin,
    .copy_row = tc_pg_copy_row,
    .copy_int64 = tc_pg_copy_int64,
    .copy_double = tc_pg_copy_double,
    .copy_text = tc_pg_copy_text,
    .copy_blob = tc_pg_copy_blob,
    .copy_null = tc_pg_copy_null,
    .copy_end = tc_pg_copy_end,
    .prepare = tc_pg_prepare,
    .finalize = tc_pg_finalize,
    .reset = tc_pg_reset,
    .bind_int64 = tc_pg_bind_int64,
    .bind_double = tc_pg_bind_double,
    .bind_text = tc_pg_bind_text,
    .bind_blob = tc_pg_bind_blob,
    .bind_null = tc_pg_bind_null,
    .step = tc_pg_step,
    .col_is_null = tc_pg_col_is_null,
    .col_int64 = tc_pg_col_int64,
    .col_double = tc_pg_col_double,
    .col_text = tc_pg_col_text,
    .col_blob = tc_pg_col_blob,
    .col_bytes = tc_pg_col_bytes,
};
