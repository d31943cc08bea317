/* The telemetry of a run: its devices and their samples (schema v2), and
 * its environment fingerprint (v3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_internal.h"
#include "core/tc_grow.h"

static tc_err writable(tc_store *s, char *err, size_t errlen)
{
    if (s->mode != TC_STORE_WRITE)
        return tc_fail(err, errlen, TC_ERR_INVALID, "%s was opened read-only", s->path);
    return TC_OK;
}

tc_err tc_store_insert_device(tc_store *s, int64_t run_id, size_t i, const void *items, char *err,
                              size_t errlen)
{
    const tc_run_device *d = (const tc_run_device *)items + i;
    /* A resumed soak stores its devices again: the second is kept. */
    static const char sql[] =
        "INSERT INTO devices (run_id, device, backend, kind, name, ident, driver, runtime, "
        "energy_what) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) ON CONFLICT (run_id, device) DO "
        "UPDATE SET backend = excluded.backend, kind = excluded.kind, name = excluded.name, "
        "ident = excluded.ident, driver = excluded.driver, runtime = excluded.runtime, "
        "energy_what = excluded.energy_what";
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_DEV_INSERT, sql, &st, err, errlen);
    if (e != TC_OK)
        return e;
    const tc_telem_device *x = &d->info;
    tc_db_bind_int64(st, 1, run_id);
    tc_db_bind_int64(st, 2, (int)i);
    tc_db_bind_text(st, 3, d->backend, -1);
    tc_db_bind_text(st, 4, x->kind == TC_TELEM_CPU ? "cpu" : "gpu", -1);
    tc_db_bind_text(st, 5, x->name, -1);
    tc_db_bind_text(st, 6, x->id, -1);
    tc_db_bind_text(st, 7, x->driver, -1);
    tc_db_bind_text(st, 8, x->runtime, -1);
    tc_db_bind_text(st, 9, x->energy_what, -1);
    return tc_store_step_done(s, st, "storing a device", err, errlen);
}

tc_err tc_store_add_devices(tc_store *s, int64_t run_id, const tc_run_device *devs, int n,
                            char *err, size_t errlen)
{
    return tc_store_insert_batch(s, run_id, devs, (size_t)(n > 0 ? n : 0), tc_store_insert_device,
                                 err, errlen);
}

tc_err tc_store_insert_sample(tc_store *s, int64_t run_id, size_t i, const void *items, char *err,
                              size_t errlen)
{
    const tc_run_sample *r = (const tc_run_sample *)items + i;
    static const char sql[] = "INSERT INTO samples (run_id, device, t_ns, valid, power_mw, "
                              "power_instant, energy_uj, util_pct, mem_util_pct, mem_used_bytes, "
                              "mem_total_bytes, temp_mc, temp_hot_mc, clock_sm_mhz, clock_mem_mhz, "
                              "power_limit_mw) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
                              "?11, ?12, ?13, ?14, ?15, ?16)";
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_SAMPLE_INSERT, sql, &st, err, errlen);
    if (e != TC_OK)
        return e;
    const tc_telem_sample *x = &r->s;
    const int64_t v[] = {run_id,
                         r->device,
                         x->mono_ns,
                         (int64_t)x->valid,
                         x->power_mw,
                         x->power_instant,
                         (int64_t)x->energy_uj, /* < 2^63 uJ: 292 years of a 1 MW device */
                         x->util_pct,
                         x->mem_util_pct,
                         x->mem_used_bytes,
                         x->mem_total_bytes,
                         x->temp_mc,
                         x->temp_hot_mc,
                         x->clock_sm_mhz,
                         x->clock_mem_mhz,
                         x->power_limit_mw};
    for (int c = 0; c < (int)(sizeof v / sizeof v[0]); c++)
        tc_db_bind_int64(st, c + 1, v[c]);
    return tc_store_step_done(s, st, "storing a telemetry sample", err, errlen);
}

tc_err tc_store_add_samples(tc_store *s, int64_t run_id, const tc_run_sample *samples, size_t n,
                            char *err, size_t errlen)
{
    return tc_store_insert_batch(s, run_id, samples, n, tc_store_insert_sample, err, errlen);
}

static void copy_col(tc_db_stmt *st, int c, char *out, size_t len)
{
    const char *t = tc_db_col_text(st, c);
    snprintf(out, len, "%s", t ? (const char *)t : "");
}

static tc_err load_devices(tc_store *s, int64_t run_id, tc_run_device **out, int *n, char *err,
                           size_t errlen)
{
    static const char sql[] = "SELECT backend, kind, name, ident, driver, runtime, energy_what "
                              "FROM devices WHERE run_id = ?1 ORDER BY device";
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_DEV_LOAD, sql, &st, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_int64(st, 1, run_id);
    int rc;
    while ((rc = tc_db_step(st)) == TC_DB_ROW) {
        tc_run_device *d = realloc(*out, (size_t)(*n + 1) * sizeof *d);
        if (!d) {
            tc_db_reset(st);
            return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
        }
        *out = d;
        d = &d[(*n)++];
        memset(d, 0, sizeof *d);
        copy_col(st, 0, d->backend, sizeof d->backend);
        const char *kind = tc_db_col_text(st, 1);
        d->info.kind = kind && strcmp((const char *)kind, "cpu") == 0 ? TC_TELEM_CPU : TC_TELEM_GPU;
        copy_col(st, 2, d->info.name, sizeof d->info.name);
        copy_col(st, 3, d->info.id, sizeof d->info.id);
        copy_col(st, 4, d->info.driver, sizeof d->info.driver);
        copy_col(st, 5, d->info.runtime, sizeof d->info.runtime);
        copy_col(st, 6, d->info.energy_what, sizeof d->info.energy_what);
    }
    tc_db_reset(st);
    return rc == TC_DB_DONE ? TC_OK : tc_store_sql_fail(s, rc, "reading devices", err, errlen);
}

static void read_sample(tc_db_stmt *st, tc_run_sample *r)
{
    tc_telem_sample *x = &r->s;
    memset(r, 0, sizeof *r);
    r->device = tc_db_col_int64(st, 0);
    x->mono_ns = tc_db_col_int64(st, 1);
    x->valid = (uint32_t)tc_db_col_int64(st, 2);
    x->power_mw = tc_db_col_int64(st, 3);
    x->power_instant = tc_db_col_int64(st, 4);
    x->energy_uj = (uint64_t)tc_db_col_int64(st, 5);
    x->util_pct = tc_db_col_int64(st, 6);
    x->mem_util_pct = tc_db_col_int64(st, 7);
    x->mem_used_bytes = tc_db_col_int64(st, 8);
    x->mem_total_bytes = tc_db_col_int64(st, 9);
    x->temp_mc = tc_db_col_int64(st, 10);
    x->temp_hot_mc = tc_db_col_int64(st, 11);
    x->clock_sm_mhz = tc_db_col_int64(st, 12);
    x->clock_mem_mhz = tc_db_col_int64(st, 13);
    x->power_limit_mw = tc_db_col_int64(st, 14);
}

static tc_err load_samples(tc_store *s, int64_t run_id, tc_run_sample **out, size_t *n, char *err,
                           size_t errlen)
{
    static const char sql[] = "SELECT device, t_ns, valid, power_mw, power_instant, energy_uj, "
                              "util_pct, mem_util_pct, mem_used_bytes, mem_total_bytes, temp_mc, "
                              "temp_hot_mc, clock_sm_mhz, clock_mem_mhz, power_limit_mw FROM "
                              "samples WHERE run_id = ?1 ORDER BY device, t_ns";
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_SAMPLE_LOAD, sql, &st, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_int64(st, 1, run_id);
    size_t cap = 0;
    int rc;
    while ((rc = tc_db_step(st)) == TC_DB_ROW) {
        if (tc_grow(out, &cap, *n, sizeof **out, 1024) < 0) {
            tc_db_reset(st);
            return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
        }
        read_sample(st, &(*out)[(*n)++]);
    }
    tc_db_reset(st);
    return rc == TC_DB_DONE ? TC_OK : tc_store_sql_fail(s, rc, "reading samples", err, errlen);
}

tc_err tc_store_load_telemetry(tc_store *s, int64_t run_id, tc_run_device **devs, int *n_devs,
                               tc_run_sample **samples, size_t *n_samples, char *err, size_t errlen)
{
    *devs = NULL;
    *n_devs = 0;
    *samples = NULL;
    *n_samples = 0;
    if (s->version < 2) /* a read-only open of a file from before telemetry */
        return TC_OK;
    tc_err e = load_devices(s, run_id, devs, n_devs, err, errlen);
    if (e == TC_OK)
        e = load_samples(s, run_id, samples, n_samples, err, errlen);
    if (e != TC_OK) {
        free(*devs);
        free(*samples);
        *devs = NULL;
        *samples = NULL;
        *n_devs = 0;
        *n_samples = 0;
    }
    return e;
}

/* ---- fingerprints -------------------------------------------------------- */

tc_err tc_store_set_fingerprint(tc_store *s, int64_t run_id, const char *json, char *err,
                                size_t errlen)
{
    static const char sql[] = "INSERT INTO fingerprints (run_id, json) VALUES (?1, ?2) "
                              "ON CONFLICT (run_id) DO UPDATE SET json = excluded.json";
    tc_err e = writable(s, err, errlen);
    tc_db_stmt *st = NULL;
    if (e == TC_OK)
        e = tc_store_stmt(s, ST_FP_SET, sql, &st, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_int64(st, 1, run_id);
    tc_db_bind_text(st, 2, json, -1);
    return tc_store_step_done(s, st, "storing the environment fingerprint", err, errlen);
}

tc_err tc_store_get_fingerprint(tc_store *s, int64_t run_id, char **json, char *err, size_t errlen)
{
    static const char sql[] = "SELECT json FROM fingerprints WHERE run_id = ?1";
    *json = NULL;
    if (s->version < 3) /* a read-only open of a file from before fingerprints */
        return TC_OK;
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_FP_GET, sql, &st, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_int64(st, 1, run_id);
    int rc = tc_db_step(st);
    if (rc == TC_DB_ROW) {
        const char *t = tc_db_col_text(st, 0);
        *json = strdup(t ? (const char *)t : "null");
        if (!*json)
            e = tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    } else if (rc != TC_DB_DONE) {
        e = tc_store_sql_fail(s, rc, "reading the environment fingerprint", err, errlen);
    }
    tc_db_reset(st);
    return e;
}
