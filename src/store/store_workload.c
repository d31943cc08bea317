/* A run's workload shape (schema version 7): the targets of its synthetic
 * prompts and the calibration they were sized by. */
#include "store_internal.h"

#include <string.h>

tc_err tc_store_set_workload(tc_store *s, int64_t run_id, const tc_run_workload *w, char *err,
                             size_t errlen)
{
    static const char sql[] =
        "INSERT INTO run_workloads (run_id, preset, seed, isl_min, isl, isl_range, osl, "
        "ignore_eos, eos_note, tokens_per_word, overhead_tokens, calibration) VALUES (?1, ?2, ?3, "
        "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) ON CONFLICT (run_id) DO UPDATE SET preset = "
        "excluded.preset, seed = excluded.seed, isl_min = excluded.isl_min, isl = excluded.isl, "
        "isl_range = excluded.isl_range, osl = excluded.osl, ignore_eos = excluded.ignore_eos, "
        "eos_note = excluded.eos_note, tokens_per_word = excluded.tokens_per_word, "
        "overhead_tokens = excluded.overhead_tokens, calibration = excluded.calibration";
    if (s->mode != TC_STORE_WRITE)
        return tc_fail(err, errlen, TC_ERR_INVALID, "%s was opened read-only", s->path);
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_WL_SET, sql, &st, err, errlen);
    if (e != TC_OK)
        return e;
    int rc = tc_db_bind_int64(st, 1, run_id);
    rc |= tc_store_bind_field(st, 2, w->preset, sizeof w->preset);
    rc |= tc_db_bind_int64(st, 3, w->seed);
    rc |= tc_db_bind_int64(st, 4, w->isl_min);
    rc |= tc_db_bind_int64(st, 5, w->isl);
    rc |= tc_db_bind_double(st, 6, w->isl_range);
    rc |= tc_db_bind_int64(st, 7, w->osl);
    rc |= tc_db_bind_int64(st, 8, w->ignore_eos != 0);
    rc |= tc_store_bind_field(st, 9, w->eos_note, sizeof w->eos_note);
    rc |= tc_db_bind_double(st, 10, w->tokens_per_word);
    rc |= tc_db_bind_double(st, 11, w->overhead_tokens);
    rc |= tc_store_bind_field(st, 12, w->calibration, sizeof w->calibration);
    if (rc != TC_DB_OK) {
        e = tc_store_sql_fail(s, TC_DB_ERROR, "storing the workload", err, errlen);
        tc_db_reset(st);
        return e;
    }
    return tc_store_step_done(s, st, "storing the workload", err, errlen);
}

tc_err tc_store_get_workload(tc_store *s, int64_t run_id, tc_run_workload *w, int *found, char *err,
                             size_t errlen)
{
    static const char sql[] =
        "SELECT preset, seed, isl_min, isl, isl_range, osl, ignore_eos, eos_note, "
        "tokens_per_word, overhead_tokens, calibration FROM run_workloads WHERE run_id = ?1";
    memset(w, 0, sizeof *w);
    *found = 0;
    if (s->version < 7) /* a read-only open of a file from before workload shapes */
        return TC_OK;
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_WL_GET, sql, &st, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_int64(st, 1, run_id);
    int rc = tc_db_step(st);
    if (rc == TC_DB_ROW) {
        *found = 1;
        tc_store_col_text(st, 0, w->preset, sizeof w->preset);
        w->seed = tc_db_col_int64(st, 1);
        w->isl_min = tc_db_col_int64(st, 2);
        w->isl = tc_db_col_int64(st, 3);
        w->isl_range = tc_db_col_double(st, 4);
        w->osl = tc_db_col_int64(st, 5);
        w->ignore_eos = tc_db_col_int64(st, 6);
        tc_store_col_text(st, 7, w->eos_note, sizeof w->eos_note);
        w->tokens_per_word = tc_db_col_double(st, 8);
        w->overhead_tokens = tc_db_col_double(st, 9);
        tc_store_col_text(st, 10, w->calibration, sizeof w->calibration);
    } else if (rc != TC_DB_DONE) {
        e = tc_store_sql_fail(s, rc, "reading the workload", err, errlen);
    }
    tc_db_reset(st);
    return e;
}
