/* A finished run's figures, kept beside its records (schema version 5). */
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "core/tc_grow.h"

tc_err tc_store_set_figures(tc_store *s, int64_t run_id, int version, const char *json, char *err,
                            size_t errlen)
{
    static const char sql[] =
        "INSERT INTO run_figures (run_id, version, json) VALUES (?1, ?2, ?3) ON CONFLICT (run_id) "
        "DO UPDATE SET version = excluded.version, json = excluded.json";
    if (s->mode != TC_STORE_WRITE)
        return tc_fail(err, errlen, TC_ERR_INVALID, "%s was opened read-only", s->path);
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_FIG_SET, sql, &st, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_int64(st, 1, run_id);
    tc_db_bind_int64(st, 2, version);
    tc_db_bind_text(st, 3, json, -1);
    return tc_store_step_done(s, st, "storing the run's figures", err, errlen);
}

tc_err tc_store_get_figures(tc_store *s, int64_t run_id, int version, char **json, char *err,
                            size_t errlen)
{
    static const char sql[] = "SELECT json FROM run_figures WHERE run_id = ?1 AND version = ?2";
    *json = NULL;
    if (s->version < 5) /* a read-only open of a file from before stored figures */
        return TC_OK;
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_FIG_GET, sql, &st, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_int64(st, 1, run_id);
    tc_db_bind_int64(st, 2, version);
    int rc = tc_db_step(st);
    if (rc == TC_DB_ROW) {
        const char *t = tc_db_col_text(st, 0);
        *json = t ? strdup((const char *)t) : NULL;
        if (t && !*json)
            e = tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    } else if (rc != TC_DB_DONE) {
        e = tc_store_sql_fail(s, rc, "reading the run's figures", err, errlen);
    }
    tc_db_reset(st);
    return e;
}

static tc_err push_id(int64_t **ids, size_t *n, size_t *cap, int64_t id)
{
    if (tc_grow(ids, cap, *n, sizeof **ids, 16) < 0)
        return TC_ERR_NOMEM;
    (*ids)[(*n)++] = id;
    return TC_OK;
}

tc_err tc_store_runs_without_figures(tc_store *s, int version, int64_t **ids, size_t *n, char *err,
                                     size_t errlen)
{
    static const char sql[] =
        "SELECT r.id FROM runs r LEFT JOIN run_figures f ON f.run_id = r.id AND f.version = ?1"
        " WHERE r.status <> 'running' AND f.run_id IS NULL ORDER BY r.id";
    *ids = NULL;
    *n = 0;
    if (s->version < 5)
        return TC_OK;
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_FIG_MISSING, sql, &st, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_int64(st, 1, version);
    size_t cap = 0;
    int rc;
    while (e == TC_OK && (rc = tc_db_step(st)) == TC_DB_ROW)
        if (push_id(ids, n, &cap, tc_db_col_int64(st, 0)) != TC_OK)
            e = tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    if (e == TC_OK && rc != TC_DB_DONE)
        e = tc_store_sql_fail(s, rc, "listing the runs without stored figures", err, errlen);
    tc_db_reset(st);
    if (e != TC_OK) {
        free(*ids);
        *ids = NULL;
        *n = 0;
    }
    return e;
}
