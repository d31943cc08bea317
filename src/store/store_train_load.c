/* A training run read back: plan and end, steps, warnings. */
#include "store_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double col_real(tc_db_stmt *st, int col)
{
    return tc_db_col_is_null(st, col) ? NAN : tc_db_col_double(st, col);
}

static void read_info(tc_db_stmt *st, tc_train_info *t)
{
    const char *f = tc_db_col_text(st, 0);
    if (!f || tc_train_format_parse(f, &t->format) < 0)
        t->format = TC_TRAIN_AUTO;
    tc_store_col_text(st, 1, t->command, sizeof t->command);
    tc_store_col_text(st, 2, t->metrics_path, sizeof t->metrics_path);
    t->samples_per_step = tc_db_col_double(st, 3);
    t->tokens_per_step = tc_db_col_double(st, 4);
    t->warmup_steps = tc_db_col_int64(st, 5);
    t->params = tc_db_col_double(st, 6);
    t->trainable_params = tc_db_col_double(st, 7);
    tc_store_col_text(st, 8, t->gpu, sizeof t->gpu);
    t->start_ns = tc_db_col_int64(st, 9);
    t->end_ns = tc_db_col_int64(st, 10);
    const char *end = tc_db_col_text(st, 11);
    if (!end || tc_train_end_parse(end, &t->end) < 0)
        t->end = TC_TRAIN_RUNNING;
    t->exit_code = (int)tc_db_col_int64(st, 12);
    t->signal = (int)tc_db_col_int64(st, 13);
    t->steps = tc_db_col_int64(st, 14);
    t->checkpoints = tc_db_col_int64(st, 15);
    t->lines = tc_db_col_int64(st, 16);
    t->long_lines = tc_db_col_int64(st, 17);
    t->binary_lines = tc_db_col_int64(st, 18);
    t->train_runtime_s = col_real(st, 19);
    t->train_samples_per_s = col_real(st, 20);
    t->train_steps_per_s = col_real(st, 21);
    t->train_loss = col_real(st, 22);
    t->total_flos = col_real(st, 23);
    tc_store_col_text(st, 24, t->note, sizeof t->note);
}

static void read_step(tc_db_stmt *st, void *item)
{
    tc_train_step *p = item;
    p->step = tc_db_col_int64(st, 0);
    p->t_ns = tc_db_col_int64(st, 1);
    p->wall_ns = tc_db_col_int64(st, 2);
    p->loss = col_real(st, 3);
    p->lr = col_real(st, 4);
    p->samples = col_real(st, 5);
    p->tokens = col_real(st, 6);
    p->samples_per_s = col_real(st, 7);
    p->tokens_per_s = col_real(st, 8);
    p->peak_memory_bytes = tc_db_col_is_null(st, 9) ? -1 : tc_db_col_int64(st, 9);
}

static void read_warning(tc_db_stmt *st, void *item)
{
    tc_train_warning *w = item;
    memset(w, 0, sizeof *w);
    const char *c = tc_db_col_text(st, 0);
    if (!c || tc_train_class_parse(c, &w->cls) < 0)
        w->cls = TC_TRAIN_ERROR;
    tc_store_col_text(st, 1, w->category, sizeof w->category);
    tc_store_col_text(st, 2, w->message, sizeof w->message);
    w->count = tc_db_col_int64(st, 3);
    w->first_step = tc_db_col_int64(st, 4);
}

static tc_err load_info(tc_store *s, int64_t run_id, tc_train_info *info, int *found, char *err,
                        size_t errlen)
{
    tc_db_stmt *st = NULL;
    int rc = tc_db_prepare(s->db,
                           "SELECT format, command, metrics_path, samples_per_step, "
                           "tokens_per_step, warmup_steps, params, trainable_params, gpu, "
                           "start_ns, end_ns, end_state, exit_code, signal, steps, checkpoints, "
                           "lines, long_lines, binary_lines, train_runtime_s, "
                           "train_samples_per_s, train_steps_per_s, train_loss, total_flos, note "
                           "FROM train_runs WHERE run_id = ?1",
                           &st);
    if (rc != TC_DB_OK)
        return tc_store_sql_fail(s, rc, "reading the training run", err, errlen);
    tc_db_bind_int64(st, 1, run_id);
    rc = tc_db_step(st);
    tc_err e = TC_OK;
    if (rc == TC_DB_ROW) {
        *found = 1;
        info->run_id = run_id;
        read_info(st, info);
    } else if (rc != TC_DB_DONE) {
        e = tc_store_sql_fail(s, rc, "reading the training run", err, errlen);
    }
    tc_db_finalize(st);
    return e;
}

tc_err tc_store_train_load(tc_store *s, int64_t run_id, tc_train_info *info, int *found,
                           tc_train_step **steps, size_t *n_steps, tc_train_warning **w,
                           size_t *n_w, char *err, size_t errlen)
{
    tc_train_info_init(info);
    *found = 0;
    if (steps)
        *steps = NULL, *n_steps = 0;
    if (w)
        *w = NULL, *n_w = 0;
    if (s->version < TC_SCHEMA_TRAIN)
        return TC_OK;
    tc_err e = load_info(s, run_id, info, found, err, errlen);
    if (e != TC_OK || !*found)
        return e;
    void *sp = NULL, *wp = NULL;
    size_t ns = 0, nw = 0;
    if (steps)
        e = tc_store_load_rows(
            s,
            "SELECT step, t_ns, wall_ns, loss, lr, samples, tokens, samples_per_s, "
            "tokens_per_s, peak_memory_bytes FROM train_steps WHERE run_id = ?1 ORDER "
            "BY idx",
            run_id, sizeof **steps, read_step, &sp, &ns, "reading the steps", err, errlen);
    if (e == TC_OK && w)
        e = tc_store_load_rows(
            s,
            "SELECT class, category, message, count, first_step FROM train_warnings "
            "WHERE run_id = ?1 ORDER BY idx",
            run_id, sizeof **w, read_warning, &wp, &nw, "reading the warnings", err, errlen);
    if (e != TC_OK) {
        free(sp);
        free(wp);
        return e;
    }
    if (steps)
        *steps = sp, *n_steps = ns;
    if (w)
        *w = wp, *n_w = nw;
    return TC_OK;
}
