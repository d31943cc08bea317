/* Runs: begin, finish, list and find. */
#include "store_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_time.h"
#include "core/tc_grow.h"

/* The columns read into a tc_run_info by read_run, in its order, with the
 * schema version that brought each. A file opened read-only is not
 * migrated: a column it lacks reads as its default (an older run is in no
 * group, names no prompt set, had no SLO, ran a closed loop). s->version is fixed for the
 * handle's life, so each statement slot still gets one text. */
typedef struct run_col {
    const char *name;
    int since;        /* schema version that added it */
    const char *dflt; /* SQL of its value in an older file */
} run_col;

static const run_col run_cols[] = {
    {"id", 0, NULL},
    {"label", 0, NULL},
    {"status", 0, NULL},
    {"created_wall_ns", 0, NULL},
    {"endpoint", 0, NULL},
    {"api", 0, NULL},
    {"model", 0, NULL},
    {"simulated", 0, NULL},
    {"server_version", 0, NULL},
    {"concurrency", 0, NULL},
    {"warmup", 0, NULL},
    {"requests_planned", 0, NULL},
    {"duration_s_planned", 0, NULL},
    {"max_tokens", 0, NULL},
    {"run_group", 4, "''"},
    {"prompt_set", 4, "''"},
    {"slo", 6, "''"},
    {"arrival", TC_SCHEMA_LOAD_SHAPE, "'closed'"},
    {"arrival_rate", TC_SCHEMA_LOAD_SHAPE, "0"},
    {"arrival_burstiness", TC_SCHEMA_LOAD_SHAPE, "0"},
    {"arrival_seed", TC_SCHEMA_LOAD_SHAPE, "0"},
    {"max_concurrency", TC_SCHEMA_LOAD_SHAPE, "0"},
    {"group_kind", 9, "''"},
    {"gpus", 9, "0"},
    {"uuid", TC_SCHEMA_UUID, "''"},
    {"command", TC_SCHEMA_COMMAND, "''"},
};
#define N_RUN_COLS ((int)(sizeof run_cols / sizeof run_cols[0]))

/* "SELECT <columns> FROM runs <rest>" for this file's version. */
static const char *run_select(const tc_store *s, const char *rest, char *buf, size_t len)
{
    size_t k = (size_t)snprintf(buf, len, "SELECT ");
    for (int i = 0; i < N_RUN_COLS && k < len; i++) {
        const run_col *c = &run_cols[i];
        const char *sep = i ? ", " : "";
        k += (size_t)(s->version >= c->since
                          ? snprintf(buf + k, len - k, "%s%s", sep, c->name)
                          : snprintf(buf + k, len - k, "%s%s AS %s", sep, c->dflt, c->name));
    }
    if (k < len)
        snprintf(buf + k, len - k, " FROM runs %s", rest);
    return buf;
}

/* 128 random bits as 32 hex digits: unique across hosts without asking
 * anyone. */
static void new_uuid(char *buf, size_t len)
{
    uint8_t b[16] = {0};
    size_t got = 0;
    FILE *f = fopen("/dev/urandom", "rb");
    if (f) {
        got = fread(b, 1, sizeof b, f);
        fclose(f);
    }
    if (got != sizeof b) { /* no /dev/urandom: time and address, still unlikely to clash */
        uint64_t x = (uint64_t)tc_wall_ns() ^ (uint64_t)(uintptr_t)buf;
        for (size_t i = 0; i < sizeof b;
             i++, x = x * 6364136223846793005ULL + 1442695040888963407ULL)
            b[i] ^= (uint8_t)(x >> 56);
    }
    size_t k = 0;
    for (size_t i = 0; i < sizeof b && k + 2 < len; i++)
        k += (size_t)snprintf(buf + k, len - k, "%02x", b[i]);
}

static int bind_run(tc_db_stmt *st, const tc_run_info *r, const char *created)
{
    int rc = 0;
    rc |= tc_store_bind_field(st, 1, r->label, sizeof r->label);
    rc |= tc_db_bind_text(st, 2, created, -1);
    rc |= tc_db_bind_int64(st, 3, r->created_wall_ns);
    rc |= tc_store_bind_field(st, 4, r->endpoint, sizeof r->endpoint);
    rc |= tc_db_bind_text(st, 5, tc_api_name(r->api), -1);
    rc |= tc_store_bind_field(st, 6, r->model, sizeof r->model);
    rc |= tc_db_bind_int64(st, 7, r->simulated != 0);
    rc |= tc_store_bind_field(st, 8, r->server_version, sizeof r->server_version);
    rc |= tc_db_bind_int64(st, 9, r->concurrency);
    rc |= tc_db_bind_int64(st, 10, r->warmup);
    rc |= tc_db_bind_int64(st, 11, r->requests);
    rc |= tc_db_bind_double(st, 12, r->duration_s);
    rc |= tc_db_bind_int64(st, 13, r->max_tokens);
    rc |= tc_store_bind_field(st, 14, r->group, sizeof r->group);
    rc |= tc_store_bind_field(st, 15, r->prompt_set, sizeof r->prompt_set);
    rc |= tc_store_bind_field(st, 16, r->slo, sizeof r->slo);
    rc |= tc_db_bind_text(st, 17, tc_arrival_name(r->arrival), -1);
    rc |= tc_db_bind_double(st, 18, r->rate);
    rc |= tc_db_bind_double(st, 19, r->burstiness);
    rc |= tc_db_bind_int64(st, 20, (int64_t)r->seed); /* read back as the same bits */
    rc |= tc_db_bind_int64(st, 21, r->max_concurrency);
    rc |= tc_store_bind_field(st, 22, r->group_kind, sizeof r->group_kind);
    rc |= tc_db_bind_int64(st, 23, r->gpus);
    rc |= tc_store_bind_field(st, 24, r->uuid, sizeof r->uuid);
    rc |= tc_store_bind_field(st, 25, r->command, sizeof r->command);
    return rc;
}

tc_err tc_store_run_begin(tc_store *s, tc_run_info *info, char *err, size_t errlen)
{
    static const char sql[] =
        "INSERT INTO runs (label, status, created, created_wall_ns, endpoint, api, model, "
        "simulated, server_version, concurrency, warmup, requests_planned, duration_s_planned, "
        "max_tokens, run_group, prompt_set, slo, arrival, arrival_rate, arrival_burstiness, "
        "arrival_seed, max_concurrency, group_kind, gpus, uuid, command) VALUES (?1, 'running', "
        "?2, "
        "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, "
        "?22, ?23, ?24, ?25) "
        "RETURNING id";
    if (s->mode != TC_STORE_WRITE)
        return tc_fail(err, errlen, TC_ERR_INVALID, "%s was opened read-only", s->path);
    if ((unsigned)info->api >= TC_API_COUNT)
        return tc_fail(err, errlen, TC_ERR_INVALID, "run: unknown api %d", (int)info->api);
    if ((unsigned)info->arrival >= TC_ARRIVAL_COUNT)
        return tc_fail(err, errlen, TC_ERR_INVALID, "run: unknown arrival process %d",
                       (int)info->arrival);
    if (info->created_wall_ns == 0)
        info->created_wall_ns = tc_wall_ns();
    if (!info->uuid[0])
        new_uuid(info->uuid, sizeof info->uuid);
    char created[40];
    tc_rfc3339_ns(info->created_wall_ns, created, sizeof created);
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_RUN_INSERT, sql, &st, err, errlen);
    if (e != TC_OK)
        return e;
    if (bind_run(st, info, created) != TC_DB_OK) {
        /* Bind calls leave their error code on the connection. */
        e = tc_store_sql_fail(s, TC_DB_ERROR, "storing the run", err, errlen);
        tc_db_reset(st);
        return e;
    }
    int rc = tc_db_step(st);
    if (rc == TC_DB_ROW)
        info->id = tc_db_col_int64(st, 0);
    tc_db_reset(st);
    if (rc != TC_DB_ROW)
        return tc_store_sql_fail(s, rc, "storing the run", err, errlen);
    info->status = TC_RUN_RUNNING;
    return TC_OK;
}

tc_err tc_store_run_begin_group(tc_store *s, tc_run_info *info, size_t runs_before, char *err,
                                size_t errlen)
{
    if (!info->group[0])
        return tc_fail(err, errlen, TC_ERR_INVALID, "run: no group to start");
    tc_err e = tc_store_begin_exclusive(s, err, errlen); /* no other group start until the end */
    if (e != TC_OK)
        return e;
    tc_run_info *runs = NULL;
    size_t n = 0;
    e = tc_store_find_group(s, info->group, &runs, &n, err, errlen);
    free(runs);
    if (e == TC_OK && n != runs_before)
        e = tc_fail(err, errlen, TC_ERR_INVALID,
                    "group '%s' already has %zu run(s) (another run with this --label has "
                    "started meanwhile?); choose another --label",
                    info->group, n);
    if (e == TC_OK)
        e = tc_store_run_begin(s, info, err, errlen);
    if (e == TC_OK)
        e = tc_store_commit(s, err, errlen);
    if (e != TC_OK)
        tc_store_rollback(s);
    return e;
}

/* After a finish that changed nothing: says whether the run is missing
 * or has already ended. */
static tc_err why_not_running(tc_store *s, int64_t run_id, char *err, size_t errlen)
{
    static const char sql[] = "SELECT status FROM runs WHERE id = ?1";
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_RUN_STATUS, sql, &st, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_int64(st, 1, run_id);
    int rc = tc_db_step(st);
    if (rc == TC_DB_ROW) {
        char status[16];
        tc_store_col_text(st, 0, status, sizeof status);
        e = tc_fail(err, errlen, TC_ERR_INVALID, "run %lld has already ended (%s)",
                    (long long)run_id, status);
    } else if (rc == TC_DB_DONE) {
        e = tc_fail(err, errlen, TC_ERR_NOTFOUND, "no run with id %lld in %s", (long long)run_id,
                    s->path);
    } else {
        e = tc_store_sql_fail(s, rc, "reading the run", err, errlen);
    }
    tc_db_reset(st);
    return e;
}

tc_err tc_store_run_finish(tc_store *s, int64_t run_id, tc_run_status status, char *err,
                           size_t errlen)
{
    static const char sql[] = "UPDATE runs SET status = ?2, ended = ?3, ended_wall_ns = ?4 "
                              "WHERE id = ?1 AND status = 'running'";
    if (s->mode != TC_STORE_WRITE)
        return tc_fail(err, errlen, TC_ERR_INVALID, "%s was opened read-only", s->path);
    if (status != TC_RUN_COMPLETE && status != TC_RUN_FAILED && status != TC_RUN_INTERRUPTED)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "a run ends as complete, failed or interrupted, not '%s'",
                       tc_status_name(status));
    int64_t now = tc_wall_ns();
    char ended[40];
    tc_rfc3339_ns(now, ended, sizeof ended);
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_RUN_FINISH, sql, &st, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_int64(st, 1, run_id);
    tc_db_bind_text(st, 2, tc_status_name(status), -1);
    tc_db_bind_text(st, 3, ended, -1);
    tc_db_bind_int64(st, 4, now);
    e = tc_store_step_done(s, st, "ending the run", err, errlen);
    if (e == TC_OK && tc_db_changes(s->db) == 0)
        e = why_not_running(s, run_id, err, errlen);
    return e;
}

/* One row of run_cols into out. TC_ERR_PARSE for an api or status this
 * truecost does not know. */
static tc_err read_run(tc_db_stmt *st, tc_run_info *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->id = tc_db_col_int64(st, 0);
    tc_store_col_text(st, 1, out->label, sizeof out->label);
    const char *status = tc_db_col_text(st, 2);
    if (!status || tc_status_parse(status, &out->status) != 0)
        return tc_fail(err, errlen, TC_ERR_PARSE, "run %lld: unknown status '%s'",
                       (long long)out->id, status ? status : "");
    out->created_wall_ns = tc_db_col_int64(st, 3);
    tc_store_col_text(st, 4, out->endpoint, sizeof out->endpoint);
    const char *api = tc_db_col_text(st, 5);
    if (!api || tc_api_parse(api, &out->api) != 0)
        return tc_fail(err, errlen, TC_ERR_PARSE, "run %lld: unknown api '%s'", (long long)out->id,
                       api ? api : "");
    tc_store_col_text(st, 6, out->model, sizeof out->model);
    out->simulated = tc_db_col_int64(st, 7);
    tc_store_col_text(st, 8, out->server_version, sizeof out->server_version);
    out->concurrency = tc_db_col_int64(st, 9);
    out->warmup = tc_db_col_int64(st, 10);
    out->requests = tc_db_col_int64(st, 11);
    out->duration_s = tc_db_col_double(st, 12);
    out->max_tokens = tc_db_col_int64(st, 13);
    tc_store_col_text(st, 14, out->group, sizeof out->group);
    tc_store_col_text(st, 15, out->prompt_set, sizeof out->prompt_set);
    tc_store_col_text(st, 16, out->slo, sizeof out->slo);
    const char *arrival = tc_db_col_text(st, 17);
    if (!arrival || tc_arrival_parse(arrival, &out->arrival) != 0)
        return tc_fail(err, errlen, TC_ERR_PARSE, "run %lld: unknown arrival process '%s'",
                       (long long)out->id, arrival ? arrival : "");
    out->rate = tc_db_col_double(st, 18);
    out->burstiness = tc_db_col_double(st, 19);
    out->seed = (uint64_t)tc_db_col_int64(st, 20);
    out->max_concurrency = tc_db_col_int64(st, 21);
    tc_store_col_text(st, 22, out->group_kind, sizeof out->group_kind);
    out->gpus = tc_db_col_int64(st, 23);
    tc_store_col_text(st, 24, out->uuid, sizeof out->uuid);
    tc_store_col_text(st, 25, out->command, sizeof out->command);
    return TC_OK;
}

/* Appends one run to a growing array. */
static tc_err push_run(tc_run_info **runs, size_t *n, size_t *cap, char *err, size_t errlen)
{
    if (tc_grow(runs, cap, *n, sizeof **runs, 16) < 0)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "listing %zu runs", *n + 1);
    return TC_OK;
}

/* Every row of the prepared statement st into a malloc'ed array. */
static tc_err collect_runs(tc_store *s, tc_db_stmt *st, const char *what, tc_run_info **runs,
                           size_t *n, char *err, size_t errlen)
{
    tc_err e = TC_OK;
    size_t cap = 0;
    int rc = TC_DB_DONE;
    while (e == TC_OK && (rc = tc_db_step(st)) == TC_DB_ROW) {
        e = push_run(runs, n, &cap, err, errlen);
        if (e == TC_OK)
            e = read_run(st, &(*runs)[*n], err, errlen);
        if (e == TC_OK)
            (*n)++;
    }
    if (e == TC_OK && rc != TC_DB_DONE)
        e = tc_store_sql_fail(s, rc, what, err, errlen);
    tc_db_reset(st);
    if (e != TC_OK) {
        free(*runs);
        *runs = NULL;
        *n = 0;
    }
    return e;
}

tc_err tc_store_list_runs(tc_store *s, tc_run_info **runs, size_t *n, char *err, size_t errlen)
{
    /* Ids grow with each run begun, so they order runs by start even when
     * the wall clock was stepped between them. */
    char sql[1024];
    *runs = NULL;
    *n = 0;
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_RUN_LIST, run_select(s, "ORDER BY id DESC", sql, sizeof sql),
                             &st, err, errlen);
    return e != TC_OK ? e : collect_runs(s, st, "listing runs", runs, n, err, errlen);
}

tc_err tc_store_find_group(tc_store *s, const char *group, tc_run_info **runs, size_t *n, char *err,
                           size_t errlen)
{
    char sql[1024];
    *runs = NULL;
    *n = 0;
    if (!group || !group[0] || s->version < 4)
        return TC_OK; /* "" is "in no group", not a group; an old file has no groups */
    tc_db_stmt *st = NULL;
    tc_err e = tc_store_stmt(s, ST_RUN_GROUP,
                             run_select(s, "WHERE run_group = ?1 ORDER BY id", sql, sizeof sql),
                             &st, err, errlen);
    if (e != TC_OK)
        return e;
    tc_db_bind_text(st, 1, group, -1);
    return collect_runs(s, st, "finding the group", runs, n, err, errlen);
}

/* "42" -> 42; -1 for anything but a non-empty run of digits that fits. */
static int64_t parse_id(const char *text)
{
    if (!text[0] || strspn(text, "0123456789") != strlen(text))
        return -1;
    errno = 0;
    long long v = strtoll(text, NULL, 10);
    return errno == ERANGE ? -1 : (int64_t)v;
}

tc_err tc_store_find_run(tc_store *s, const char *id_or_label, tc_run_info *out, char *err,
                         size_t errlen)
{
    char sql[1024];
    if (!id_or_label || !id_or_label[0])
        return tc_fail(err, errlen, TC_ERR_INVALID, "which run? give an id or a label");
    int all_digits = strspn(id_or_label, "0123456789") == strlen(id_or_label);
    tc_db_stmt *st = NULL;
    tc_err e = all_digits
                   ? tc_store_stmt(s, ST_RUN_BY_ID, run_select(s, "WHERE id = ?1", sql, sizeof sql),
                                   &st, err, errlen)
                   : tc_store_stmt(s, ST_RUN_BY_LABEL,
                                   run_select(s, "WHERE label = ?1 ORDER BY id DESC LIMIT 1", sql,
                                              sizeof sql),
                                   &st, err, errlen);
    if (e != TC_OK)
        return e;
    if (all_digits)
        tc_db_bind_int64(st, 1, parse_id(id_or_label));
    else
        tc_db_bind_text(st, 1, id_or_label, -1);
    int rc = tc_db_step(st);
    if (rc == TC_DB_ROW)
        e = read_run(st, out, err, errlen);
    else if (rc == TC_DB_DONE)
        e = tc_fail(err, errlen, TC_ERR_NOTFOUND,
                    "no run with %s '%s' in %s: `truecost runs` lists the stored runs",
                    all_digits ? "id" : "label", id_or_label, s->path);
    else
        e = tc_store_sql_fail(s, rc, "finding the run", err, errlen);
    tc_db_reset(st);
    return e;
}
