/* truecost import: copies runs from one store into another, each run
 * once (known by its uuid), each in one transaction of the target. */
#include "store_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A run from before schema 10 read from a store opened read-only has no
 * uuid: one derived from what never changes about it, so importing the
 * same old file twice still finds it. */
static void legacy_key(const tc_run_info *r, char *buf, size_t len)
{
    uint64_t h = 1469598103934665603ULL; /* FNV-1a over endpoint, model, label */
    const char *parts[] = {r->endpoint, r->model, r->label};
    for (int p = 0; p < 3; p++)
        for (const unsigned char *c = (const unsigned char *)parts[p]; *c; c++)
            h = (h ^ *c) * 1099511628211ULL;
    snprintf(buf, len, "%016llx%016llx", (unsigned long long)r->created_wall_ns,
             (unsigned long long)(h ^ (uint64_t)r->id));
}

static tc_err has_uuid(tc_store *dst, const char *uuid, int *found, char *err, size_t errlen)
{
    tc_db_stmt *st = NULL;
    tc_err e =
        tc_store_stmt(dst, ST_IMP_HAS_UUID, "SELECT 1 FROM runs WHERE uuid = ?1", &st, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_text(st, 1, uuid, -1);
    int rc = tc_db_step(st);
    *found = rc == TC_DB_ROW;
    if (rc != TC_DB_ROW && rc != TC_DB_DONE)
        e = tc_store_sql_fail(dst, rc, "looking for the run", err, errlen);
    tc_db_reset(st);
    return e;
}

/* The end of a finished run: its text and wall time, copied as they are. */
typedef struct run_end {
    char ended[40];
    int64_t ended_wall_ns;
} run_end;

static tc_err read_end(tc_store *src, int64_t id, run_end *out, char *err, size_t errlen)
{
    tc_db_stmt *st = NULL;
    memset(out, 0, sizeof *out);
    tc_err e = tc_store_stmt(
        src, ST_IMP_ENDED, "SELECT ended, ended_wall_ns FROM runs WHERE id = ?1", &st, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_int64(st, 1, id);
    int rc = tc_db_step(st);
    if (rc == TC_DB_ROW) {
        tc_store_col_text(st, 0, out->ended, sizeof out->ended);
        out->ended_wall_ns = tc_db_col_int64(st, 1);
    } else if (rc != TC_DB_DONE) {
        e = tc_store_sql_fail(src, rc, "reading the run", err, errlen);
    }
    tc_db_reset(st);
    return e;
}

static tc_err write_end(tc_store *dst, int64_t id, tc_run_status status, const run_end *end,
                        char *err, size_t errlen)
{
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_stmt(dst, ST_IMP_SET_END,
                             "UPDATE runs SET status = ?2, ended = ?3, ended_wall_ns = ?4 WHERE "
                             "id = ?1",
                             &st, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_int64(st, 1, id);
    tc_db_bind_text(st, 2, tc_status_name(status), -1);
    tc_db_bind_text(st, 3, end->ended, -1);
    tc_db_bind_int64(st, 4, end->ended_wall_ns);
    return tc_store_step_done(dst, st, "ending the imported run", err, errlen);
}

/* Requests gathered (deep copies: the reader reuses its record) and
 * stored IMPORT_BATCH at a time. */
#define IMPORT_BATCH 512

typedef struct req_copy {
    tc_store *dst;
    int64_t run_id;
    int64_t n;
    tc_req_record *batch; /* IMPORT_BATCH of them */
    size_t held;
    char *err;
    size_t errlen;
} req_copy;

static tc_err flush_requests(req_copy *c)
{
    tc_err e = tc_store_insert_requests_tx(c->dst, c->run_id, c->batch, c->held, c->err, c->errlen);
    for (size_t i = 0; i < c->held; i++)
        tc_req_record_clear(&c->batch[i]);
    c->n += e == TC_OK ? (int64_t)c->held : 0;
    c->held = 0;
    return e;
}

static tc_err copy_request(void *ctx, const tc_req_record *r)
{
    req_copy *c = ctx;
    tc_req_record *k = &c->batch[c->held];
    *k = *r;
    k->chunk_ns = NULL;
    k->n_chunks = k->cap_chunks = 0;
    if (r->n_chunks) {
        k->chunk_ns = malloc(r->n_chunks * sizeof *k->chunk_ns);
        if (!k->chunk_ns)
            return tc_fail(c->err, c->errlen, TC_ERR_NOMEM, "out of memory");
        memcpy(k->chunk_ns, r->chunk_ns, r->n_chunks * sizeof *k->chunk_ns);
        k->n_chunks = k->cap_chunks = r->n_chunks;
    }
    return ++c->held == IMPORT_BATCH ? flush_requests(c) : TC_OK;
}

static tc_err copy_telemetry(tc_store *dst, tc_store *src, int64_t from, int64_t to,
                             tc_store_import_stats *stats, char *err, size_t errlen)
{
    tc_run_device *devs = NULL;
    tc_run_sample *samples = NULL;
    int nd = 0;
    size_t ns = 0;
    tc_err e = tc_store_load_telemetry(src, from, &devs, &nd, &samples, &ns, err, errlen);
    for (int i = 0; e == TC_OK && i < nd; i++)
        e = tc_store_insert_device(dst, to, (size_t)i, devs, err, errlen);
    for (size_t i = 0; e == TC_OK && i < ns; i++)
        e = tc_store_insert_sample(dst, to, i, samples, err, errlen);
    stats->samples += e == TC_OK ? (int64_t)ns : 0;
    free(devs);
    free(samples);
    return e;
}

/* Every version of the run's stored figures, as they are. */
static tc_err copy_figures(tc_store *dst, tc_store *src, int64_t from, int64_t to, char *err,
                           size_t errlen)
{
    if (src->version < 5)
        return TC_OK;
    tc_db_stmt *st = NULL;
    tc_err e =
        tc_store_stmt(src, ST_IMP_FIGURES,
                      "SELECT version, json FROM run_figures WHERE run_id = ?1", &st, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_int64(st, 1, from);
    int rc;
    while (e == TC_OK && (rc = tc_db_step(st)) == TC_DB_ROW) {
        const char *json = tc_db_col_text(st, 1);
        e = tc_store_set_figures(dst, to, (int)tc_db_col_int64(st, 0), json ? json : "null", err,
                                 errlen);
    }
    if (e == TC_OK && rc != TC_DB_DONE)
        e = tc_store_sql_fail(src, rc, "reading the run's figures", err, errlen);
    tc_db_reset(st);
    return e;
}

/* A training run's plan, steps and warnings, when it is one. */
static tc_err copy_train(tc_store *dst, tc_store *src, int64_t from, int64_t to, char *err,
                         size_t errlen)
{
    tc_train_info info;
    tc_train_step *steps = NULL;
    tc_train_warning *w = NULL;
    size_t ns = 0, nw = 0;
    int found = 0;
    tc_err e = tc_store_train_load(src, from, &info, &found, &steps, &ns, &w, &nw, err, errlen);
    if (e == TC_OK && found) {
        info.run_id = to;
        e = tc_store_train_put(dst, &info, steps, 0, ns, w, nw, err, errlen);
    }
    free(steps);
    free(w);
    return e;
}

static tc_err copy_extras(tc_store *dst, tc_store *src, int64_t from, int64_t to, char *err,
                          size_t errlen)
{
    char *fp = NULL;
    tc_err e = tc_store_get_fingerprint(src, from, &fp, err, errlen);
    if (e == TC_OK && fp)
        e = tc_store_set_fingerprint(dst, to, fp, err, errlen);
    free(fp);
    tc_run_workload w;
    int found = 0;
    if (e == TC_OK)
        e = tc_store_get_workload(src, from, &w, &found, err, errlen);
    if (e == TC_OK && found)
        e = tc_store_set_workload(dst, to, &w, err, errlen);
    if (e == TC_OK)
        e = copy_figures(dst, src, from, to, err, errlen);
    if (e == TC_OK)
        e = copy_train(dst, src, from, to, err, errlen);
    return e;
}

/* One run, all or nothing, in one transaction of dst. */
static tc_err copy_run(tc_store *dst, tc_store *src, const tc_run_info *run,
                       tc_store_import_stats *stats, char *err, size_t errlen)
{
    tc_run_info copy = *run;
    run_end end;
    tc_err e = read_end(src, run->id, &end, err, errlen);
    if (e == TC_OK)
        e = tc_store_begin(dst, err, errlen);
    if (e != TC_OK)
        return e;
    e = tc_store_run_begin(dst, &copy, err, errlen);
    req_copy rc = {.dst = dst, .run_id = copy.id, .err = err, .errlen = errlen};
    rc.batch = calloc(IMPORT_BATCH, sizeof *rc.batch);
    if (e == TC_OK && !rc.batch)
        e = tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    if (e == TC_OK)
        e = tc_store_each_request(src, run->id, 0, copy_request, &rc, err, errlen);
    if (e == TC_OK)
        e = flush_requests(&rc);
    for (size_t i = 0; i < rc.held; i++) /* what a failure left unstored */
        tc_req_record_clear(&rc.batch[i]);
    free(rc.batch);
    if (e == TC_OK)
        e = copy_telemetry(dst, src, run->id, copy.id, stats, err, errlen);
    if (e == TC_OK)
        e = copy_extras(dst, src, run->id, copy.id, err, errlen);
    if (e == TC_OK)
        e = write_end(dst, copy.id, run->status, &end, err, errlen);
    if (e == TC_OK)
        e = tc_store_commit(dst, err, errlen);
    if (e != TC_OK) {
        tc_store_rollback(dst);
        return e;
    }
    stats->copied++;
    stats->requests += rc.n;
    return TC_OK;
}

tc_err tc_store_import(tc_store *dst, tc_store *src, tc_store_import_stats *stats, char *err,
                       size_t errlen)
{
    return tc_store_import_until(dst, src, NULL, stats, err, errlen);
}

tc_err tc_store_import_until(tc_store *dst, tc_store *src, const volatile sig_atomic_t *stop,
                             tc_store_import_stats *stats, char *err, size_t errlen)
{
    memset(stats, 0, sizeof *stats);
    if (dst->mode != TC_STORE_WRITE)
        return tc_fail(err, errlen, TC_ERR_INVALID, "%s was opened read-only", dst->path);
    tc_run_info *runs = NULL;
    size_t n = 0;
    tc_err e = tc_store_list_runs(src, &runs, &n, err, errlen);
    /* Oldest first, so the copies' ids keep the runs' order. */
    for (size_t k = n; e == TC_OK && k-- > 0;) {
        if (stop && *stop) {
            stats->interrupted = 1;
            break;
        }
        tc_run_info *r = &runs[k];
        stats->seen++;
        if (r->status == TC_RUN_RUNNING) {
            stats->running++;
            continue;
        }
        if (!r->uuid[0])
            legacy_key(r, r->uuid, sizeof r->uuid);
        int found = 0;
        e = has_uuid(dst, r->uuid, &found, err, errlen);
        if (e == TC_OK && found)
            stats->present++;
        else if (e == TC_OK) {
            char why[768];
            e = copy_run(dst, src, r, stats, why, sizeof why);
            if (e != TC_OK)
                tc_fail(err, errlen, e, "run %lld of %s: %s (nothing of it was imported)",
                        (long long)r->id, src->path, why);
        }
    }
    free(runs);
    return e;
}
