/* The engine-neutral calls of store_db.h: each goes to its back end. */
#include "store_db.h"

#include "core/tc_redact.h"

#include <stdio.h>
#include <string.h>

int tc_db_is_url(const char *target)
{
    return target &&
           (strncmp(target, "postgresql://", 13) == 0 || strncmp(target, "postgres://", 11) == 0);
}

void tc_db_redact(const char *target, char *buf, size_t len)
{
    if (tc_db_is_url(target))
        tc_redact_url(target, buf, len);
    else
        snprintf(buf, len, "%s", target ? target : "");
}

void tc_db_close(tc_db *db)
{
    if (db)
        db->ops->close(db);
}

tc_db_kind tc_db_kind_of(const tc_db *db)
{
    return db->kind;
}

const char *tc_db_errmsg(tc_db *db)
{
    return db ? db->ops->errmsg(db) : "out of memory";
}

void tc_db_set_busy_timeout(tc_db *db, int ms)
{
    db->ops->set_busy_timeout(db, ms);
}

int tc_db_exec(tc_db *db, const char *sql)
{
    return db->ops->exec(db, sql);
}

int tc_db_begin(tc_db *db)
{
    return db->ops->begin(db);
}

int tc_db_commit(tc_db *db)
{
    return db->ops->commit(db);
}

void tc_db_rollback(tc_db *db)
{
    db->ops->rollback(db);
}

int tc_db_in_transaction(tc_db *db)
{
    return db->ops->in_transaction(db);
}

void tc_db_defer_writes(tc_db *db)
{
    if (db->ops->defer_writes)
        db->ops->defer_writes(db);
}

void tc_db_stream(tc_db_stmt *st)
{
    if (st->ops->stream)
        st->ops->stream(st);
}

int tc_db_can_copy(const tc_db *db)
{
    return db->ops->copy_begin != NULL;
}

int tc_db_copy_begin(tc_db *db, const char *sql)
{
    return db->ops->copy_begin ? db->ops->copy_begin(db, sql) : TC_DB_ERROR;
}

int tc_db_copy_row(tc_db *db, int fields)
{
    return db->ops->copy_row(db, fields);
}

int tc_db_copy_int64(tc_db *db, int64_t v)
{
    return db->ops->copy_int64(db, v);
}

int tc_db_copy_double(tc_db *db, double v)
{
    return db->ops->copy_double(db, v);
}

int tc_db_copy_text(tc_db *db, const char *v, size_t len)
{
    return db->ops->copy_text(db, v, len);
}

int tc_db_copy_blob(tc_db *db, const void *v, size_t len)
{
    return db->ops->copy_blob(db, v, len);
}

int tc_db_copy_null(tc_db *db)
{
    return db->ops->copy_null(db);
}

int tc_db_copy_end(tc_db *db, int ok)
{
    return db->ops->copy_end(db, ok);
}

int64_t tc_db_changes(tc_db *db)
{
    return db->ops->changes(db);
}

int tc_db_prepare(tc_db *db, const char *sql, tc_db_stmt **out)
{
    return db->ops->prepare(db, sql, out);
}

void tc_db_finalize(tc_db_stmt *st)
{
    if (st)
        st->ops->finalize(st);
}

void tc_db_reset(tc_db_stmt *st)
{
    st->ops->reset(st);
}

int tc_db_bind_int64(tc_db_stmt *st, int i, int64_t v)
{
    return st->ops->bind_int64(st, i, v);
}

int tc_db_bind_double(tc_db_stmt *st, int i, double v)
{
    return st->ops->bind_double(st, i, v);
}

int tc_db_bind_text(tc_db_stmt *st, int i, const char *v, int len)
{
    return st->ops->bind_text(st, i, v, len);
}

int tc_db_bind_blob_static(tc_db_stmt *st, int i, const void *v, size_t len)
{
    return st->ops->bind_blob(st, i, v, len);
}

int tc_db_bind_null(tc_db_stmt *st, int i)
{
    return st->ops->bind_null(st, i);
}

int tc_db_step(tc_db_stmt *st)
{
    return st->ops->step(st);
}

int tc_db_col_is_null(tc_db_stmt *st, int c)
{
    return st->ops->col_is_null(st, c);
}

int64_t tc_db_col_int64(tc_db_stmt *st, int c)
{
    return st->ops->col_int64(st, c);
}

double tc_db_col_double(tc_db_stmt *st, int c)
{
    return st->ops->col_double(st, c);
}

const char *tc_db_col_text(tc_db_stmt *st, int c)
{
    return st->ops->col_text(st, c);
}

const void *tc_db_col_blob(tc_db_stmt *st, int c)
{
    return st->ops->col_blob(st, c);
}

size_t tc_db_col_bytes(tc_db_stmt *st, int c)
{
    return st->ops->col_bytes(st, c);
}
