/* A training run's plan and end, steps and warnings (schema version 17).
 * Saved a batch at a time as the run goes, so statements are prepared
 * each time. */
#include "store_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double finite_or_0(double v)
{
    return isfinite(v) ? v : 0;
}

static const char PUT_INFO[] =
    "INSERT INTO train_runs (run_id, format, command, metrics_path, samples_per_step, "
    "tokens_per_step, warmup_steps, params, trainable_params, gpu, start_ns, end_ns, end_state, "
    "exit_code, signal, steps, checkpoints, lines, long_lines, binary_lines, train_runtime_s, "
    "train_samples_per_s, train_steps_per_s, train_loss, total_flos, note) VALUES (?1, ?2, ?3, "
    "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, "
    "?23, ?24, ?25, ?26) ON CONFLICT (run_id) DO UPDATE SET format = excluded.format, "
    "start_ns = excluded.start_ns, end_ns = excluded.end_ns, end_state = excluded.end_state, "
    "exit_code = excluded.exit_code, signal = excluded.signal, steps = excluded.steps, "
    "checkpoints = excluded.checkpoints, lines = excluded.lines, long_lines = "
    "excluded.long_lines, binary_lines = excluded.binary_lines, train_runtime_s = "
    "excluded.train_runtime_s, train_samples_per_s = excluded.train_samples_per_s, "
    "train_steps_per_s = excluded.train_steps_per_s, train_loss = excluded.train_loss, "
    "total_flos = excluded.total_flos, note = excluded.note";

static tc_err put_info(tc_store *s, const tc_train_info *t, char *err, size_t errlen)
{
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_prepare(s, PUT_INFO, &st, "storing the training run", err, errlen);
    if (e != TC_OK)
        return e;
    int rc = tc_db_bind_int64(st, 1, t->run_id);
    rc |= tc_db_bind_text(st, 2, tc_train_format_name(t->format), -1);
    rc |= tc_store_bind_field(st, 3, t->command, sizeof t->command);
    rc |= tc_store_bind_field(st, 4, t->metrics_path, sizeof t->metrics_path);
    rc |= tc_db_bind_double(st, 5, finite_or_0(t->samples_per_step));
    rc |= tc_db_bind_double(st, 6, finite_or_0(t->tokens_per_step));
    rc |= tc_db_bind_int64(st, 7, t->warmup_steps);
    rc |= tc_db_bind_double(st, 8, finite_or_0(t->params));
    rc |= tc_db_bind_double(st, 9, finite_or_0(t->trainable_params));
    rc |= tc_store_bind_field(st, 10, t->gpu, sizeof t->gpu);
    rc |= tc_db_bind_int64(st, 11, t->start_ns);
    rc |= tc_db_bind_int64(st, 12, t->end_ns);
    rc |= tc_db_bind_text(st, 13, tc_train_end_name(t->end), -1);
    rc |= tc_db_bind_int64(st, 14, t->exit_code);
    rc |= tc_db_bind_int64(st, 15, t->signal);
    rc |= tc_db_bind_int64(st, 16, t->steps);
    rc |= tc_db_bind_int64(st, 17, t->checkpoints);
    rc |= tc_db_bind_int64(st, 18, t->lines);
    rc |= tc_db_bind_int64(st, 19, t->long_lines);
    rc |= tc_db_bind_int64(st, 20, t->binary_lines);
    rc |= tc_store_bind_real(st, 21, t->train_runtime_s);
    rc |= tc_store_bind_real(st, 22, t->train_samples_per_s);
    rc |= tc_store_bind_real(st, 23, t->train_steps_per_s);
    rc |= tc_store_bind_real(st, 24, t->train_loss);
    rc |= tc_store_bind_real(st, 25, t->total_flos);
    rc |= tc_store_bind_field(st, 26, t->note, sizeof t->note);
    return tc_store_step_once(s, st, rc, "storing the training run", err, errlen);
}

static tc_err put_steps(tc_store *s, int64_t run_id, const tc_train_step *steps, int64_t first,
                        size_t n, char *err, size_t errlen)
{
    if (n == 0)
        return TC_OK;
    tc_db_stmt *st = NULL;
    tc_err e =
        tc_store_prepare(s,
                         "INSERT INTO train_steps (run_id, idx, step, t_ns, wall_ns, loss, lr, "
                         "samples, tokens, samples_per_s, tokens_per_s, peak_memory_bytes) VALUES "
                         "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
                         &st, "storing the steps", err, errlen);
    for (size_t i = 0; e == TC_OK && i < n; i++) {
        const tc_train_step *p = &steps[i];
        tc_db_reset(st);
        int rc = tc_db_bind_int64(st, 1, run_id);
        rc |= tc_db_bind_int64(st, 2, first + (int64_t)i);
        rc |= tc_db_bind_int64(st, 3, p->step);
        rc |= tc_db_bind_int64(st, 4, p->t_ns);
        rc |= tc_db_bind_int64(st, 5, p->wall_ns);
        rc |= tc_store_bind_real(st, 6, p->loss);
        rc |= tc_store_bind_real(st, 7, p->lr);
        rc |= tc_store_bind_real(st, 8, p->samples);
        rc |= tc_store_bind_real(st, 9, p->tokens);
        rc |= tc_store_bind_real(st, 10, p->samples_per_s);
        rc |= tc_store_bind_real(st, 11, p->tokens_per_s);
        rc |= p->peak_memory_bytes >= 0 ? tc_db_bind_int64(st, 12, p->peak_memory_bytes)
                                        : tc_db_bind_null(st, 12);
        rc = rc == TC_DB_OK ? tc_db_step(st) : rc;
        if (rc != TC_DB_DONE)
            e = tc_store_sql_fail(s, rc, "storing the steps", err, errlen);
    }
    tc_db_finalize(st);
    return e;
}

static tc_err put_warnings(tc_store *s, int64_t run_id, const tc_train_warning *w, size_t n,
                           char *err, size_t errlen)
{
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_prepare(s, "DELETE FROM train_warnings WHERE run_id = ?1", &st,
                                "storing the warnings", err, errlen);
    if (e == TC_OK)
        e = tc_store_step_once(s, st, tc_db_bind_int64(st, 1, run_id), "storing the warnings", err,
                               errlen);
    if (e == TC_OK && n > 0)
        e = tc_store_prepare(
            s,
            "INSERT INTO train_warnings (run_id, idx, class, category, message, count, "
            "first_step) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            &st, "storing the warnings", err, errlen);
    else
        return e;
    for (size_t i = 0; e == TC_OK && i < n; i++) {
        tc_db_reset(st);
        int rc = tc_db_bind_int64(st, 1, run_id);
        rc |= tc_db_bind_int64(st, 2, (int64_t)i);
        rc |= tc_db_bind_text(st, 3, tc_train_class_name(w[i].cls), -1);
        rc |= tc_store_bind_field(st, 4, w[i].category, sizeof w[i].category);
        rc |= tc_store_bind_field(st, 5, w[i].message, sizeof w[i].message);
        rc |= tc_db_bind_int64(st, 6, w[i].count);
        rc |= tc_db_bind_int64(st, 7, w[i].first_step);
        rc = rc == TC_DB_OK ? tc_db_step(st) : rc;
        if (rc != TC_DB_DONE)
            e = tc_store_sql_fail(s, rc, "storing the warnings", err, errlen);
    }
    tc_db_finalize(st);
    return e;
}

tc_err tc_store_train_put(tc_store *s, const tc_train_info *info, const tc_train_step *steps,
                          int64_t first_idx, size_t n_steps, const tc_train_warning *w, size_t n_w,
                          char *err, size_t errlen)
{
    if (s->version < TC_SCHEMA_TRAIN)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "%s is older than training runs (schema %d): open it for writing to "
                       "migrate it",
                       s->path, s->version);
    tc_err e = put_info(s, info, err, errlen);
    if (e == TC_OK)
        e = put_steps(s, info->run_id, steps, first_idx, n_steps, err, errlen);
    if (e == TC_OK && w)
        e = put_warnings(s, info->run_id, w, n_w, err, errlen);
    return e;
}

tc_err tc_store_train_save(tc_store *s, const tc_train_info *info, const tc_train_step *steps,
                           int64_t first_idx, size_t n_steps, const tc_train_warning *w, size_t n_w,
                           char *err, size_t errlen)
{
    if (s->mode != TC_STORE_WRITE)
        return tc_fail(err, errlen, TC_ERR_INVALID, "%s was opened read-only", s->path);
    tc_err e = tc_store_begin(s, err, errlen);
    if (e == TC_OK)
        e = tc_store_train_put(s, info, steps, first_idx, n_steps, w, n_w, err, errlen);
    if (e == TC_OK)
        e = tc_store_commit(s, err, errlen);
    if (e != TC_OK)
        tc_store_rollback(s);
    return e;
}
