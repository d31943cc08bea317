/* The schema and its migrations, and the checks that keep truecost away
 * from files that are not its own. */
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "store_internal.h"

/* Migration i takes a file from schema version i to i + 1; the file's
 * version is the number of migrations applied. Adding a table later is
 * one more string here: never edit a migration that has shipped. */
static const char *const migrations[] = {
    /* 1: runs and their requests */
    "CREATE TABLE runs ("
    " id INTEGER PRIMARY KEY,"
    " label TEXT NOT NULL DEFAULT '',"
    " status TEXT NOT NULL DEFAULT 'running'"
    "  CHECK (status IN ('running', 'complete', 'failed', 'interrupted')),"
    " created TEXT NOT NULL," /* UTC RFC 3339, for people and other tools */
    " created_wall_ns INTEGER NOT NULL,"
    " ended TEXT," /* NULL while running */
    " ended_wall_ns INTEGER,"
    " endpoint TEXT NOT NULL,"
    " api TEXT NOT NULL,"
    " model TEXT NOT NULL,"
    " simulated INTEGER NOT NULL CHECK (simulated IN (0, 1)),"
    " server_version TEXT NOT NULL DEFAULT '',"
    " concurrency INTEGER NOT NULL,"
    " warmup INTEGER NOT NULL,"
    " requests_planned INTEGER NOT NULL,"
    " duration_s_planned REAL NOT NULL,"
    " max_tokens INTEGER NOT NULL);"
    "CREATE INDEX runs_by_label ON runs (label, id);"
    "CREATE TABLE requests ("
    " run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
    " seq INTEGER NOT NULL,"
    " warmup INTEGER NOT NULL CHECK (warmup IN (0, 1)),"
    " send_ns INTEGER NOT NULL,"
    " send_wall_ns INTEGER NOT NULL,"
    " end_ns INTEGER NOT NULL,"
    " http_status INTEGER NOT NULL,"
    " error TEXT NOT NULL," /* tc_req_error_name */
    " error_detail TEXT NOT NULL,"
    " output_tokens INTEGER NOT NULL,"
    " output_source TEXT NOT NULL," /* tc_token_source_name */
    " prompt_tokens INTEGER NOT NULL,"
    " prompt_source TEXT NOT NULL,"
    " has_ollama INTEGER NOT NULL CHECK (has_ollama IN (0, 1)),"
    " ollama_total_ns INTEGER NOT NULL,"
    " ollama_load_ns INTEGER NOT NULL,"
    " ollama_prompt_eval_ns INTEGER NOT NULL,"
    " ollama_eval_ns INTEGER NOT NULL,"
    " ollama_prompt_eval_count INTEGER NOT NULL,"
    " ollama_eval_count INTEGER NOT NULL,"
    " has_timings INTEGER NOT NULL CHECK (has_timings IN (0, 1)),"
    " timings_prompt_n INTEGER NOT NULL,"
    " timings_predicted_n INTEGER NOT NULL,"
    /* REAL columns may be NULL: SQLite stores a NaN as NULL. */
    " timings_prompt_ms REAL,"
    " timings_predicted_ms REAL,"
    " timings_predicted_per_second REAL,"
    " n_chunks INTEGER NOT NULL CHECK (n_chunks >= 0),"
    " chunks BLOB NOT NULL," /* varint deltas, see store.h */
    " UNIQUE (run_id, seq));",
    /* 2: hardware telemetry of a run: its devices and their samples */
    "CREATE TABLE devices ("
    " run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
    " device INTEGER NOT NULL," /* index within the run */
    " backend TEXT NOT NULL,"
    " kind TEXT NOT NULL CHECK (kind IN ('gpu', 'cpu')),"
    " name TEXT NOT NULL,"
    " ident TEXT NOT NULL,"
    " driver TEXT NOT NULL,"
    " runtime TEXT NOT NULL,"
    " energy_what TEXT NOT NULL,"
    " PRIMARY KEY (run_id, device));"
    "CREATE TABLE samples ("
    " run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
    " device INTEGER NOT NULL,"
    " t_ns INTEGER NOT NULL,"  /* CLOCK_MONOTONIC, comparable with requests.send_ns */
    " valid INTEGER NOT NULL," /* TC_TF_* bits: a field without its bit is not available */
    " power_mw INTEGER NOT NULL, power_instant INTEGER NOT NULL,"
    " energy_uj INTEGER NOT NULL,"
    " util_pct INTEGER NOT NULL, mem_util_pct INTEGER NOT NULL,"
    " mem_used_bytes INTEGER NOT NULL, mem_total_bytes INTEGER NOT NULL,"
    " temp_mc INTEGER NOT NULL, temp_hot_mc INTEGER NOT NULL,"
    " clock_sm_mhz INTEGER NOT NULL, clock_mem_mhz INTEGER NOT NULL,"
    " power_limit_mw INTEGER NOT NULL);"
    "CREATE INDEX samples_by_run ON samples (run_id, device, t_ns);",
    /* 3: the environment fingerprint of a run (truecost env), as JSON */
    "CREATE TABLE fingerprints ("
    " run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,"
    " json TEXT NOT NULL);",
    /* 4: repeated runs as a group, and which prompts a run sent */
    "ALTER TABLE runs ADD COLUMN run_group TEXT NOT NULL DEFAULT '';"
    "ALTER TABLE runs ADD COLUMN prompt_set TEXT NOT NULL DEFAULT '';"
    "CREATE INDEX runs_by_group ON runs (run_group, id);",
    /* 5: a finished run's figures, computed once when it ends (JSON; the
     * version says which definition of the figures made them) */
    "CREATE TABLE run_figures ("
    " run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,"
    " version INTEGER NOT NULL,"
    " json TEXT NOT NULL);",
    /* 6: the service-level objectives a run was measured against */
    "ALTER TABLE runs ADD COLUMN slo TEXT NOT NULL DEFAULT '';",
    /* 7: the workload shape of a run of synthetic prompts (run --isl); IF
     * NOT EXISTS, as a file taken back to version 4 by hand may keep it */
    "CREATE TABLE IF NOT EXISTS run_workloads ("
    " run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,"
    " preset TEXT NOT NULL DEFAULT '',"
    " seed INTEGER NOT NULL,"
    " isl_min INTEGER NOT NULL, isl INTEGER NOT NULL, isl_range REAL NOT NULL,"
    " osl INTEGER NOT NULL,"
    " ignore_eos INTEGER NOT NULL CHECK (ignore_eos IN (0, 1)),"
    " eos_note TEXT NOT NULL DEFAULT '',"
    " tokens_per_word REAL NOT NULL, overhead_tokens REAL NOT NULL,"
    " calibration TEXT NOT NULL);",
    /* 8 (TC_SCHEMA_LOAD_SHAPE): the load's shape (closed loop: arrival
     * 'closed', the rest 0), and each request's intended send time (NULL:
     * its send time, as in a closed loop and every older row) */
    "ALTER TABLE runs ADD COLUMN arrival TEXT NOT NULL DEFAULT 'closed';"
    "ALTER TABLE runs ADD COLUMN arrival_rate REAL NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN arrival_burstiness REAL NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN arrival_seed INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE runs ADD COLUMN max_concurrency INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE requests ADD COLUMN sched_ns INTEGER;",
    /* 9: sweeps: a group's kind, and the GPUs a point's throughput is
     * shared by */
    ("ALTER TABLE runs ADD COLUMN group_kind TEXT NOT NULL DEFAULT '';"
     "ALTER TABLE runs ADD COLUMN gpus INTEGER NOT NULL DEFAULT 0;"),
    /* 10 (TC_SCHEMA_UUID): a run's identity across stores, so `truecost
     * import` copies each run once; older runs get a random one */
    ("ALTER TABLE runs ADD COLUMN uuid TEXT;"
     "UPDATE runs SET uuid = lower(hex(randomblob(16))) WHERE uuid IS NULL;"
     "CREATE UNIQUE INDEX runs_by_uuid ON runs (uuid);"),
    /* 11 (TC_SCHEMA_SOAK): soaks: the plan and where it stands, one
     * summary per window, the outages (times in seconds of soak time); IF
     * NOT EXISTS, as a file taken back to an older version by hand keeps
     * them */
    ("CREATE TABLE IF NOT EXISTS soaks ("
     " run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,"
     " duration_s REAL NOT NULL, window_s REAL NOT NULL,"
     " max_downtime_s REAL NOT NULL, max_drift_pct REAL NOT NULL, max_error_rate REAL NOT NULL,"
     " chunks TEXT NOT NULL, covered_s REAL NOT NULL, restarts INTEGER NOT NULL,"
     " resumes INTEGER NOT NULL);"
     "CREATE TABLE IF NOT EXISTS soak_windows ("
     " run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
     " idx INTEGER NOT NULL, start_s REAL NOT NULL, span_s REAL NOT NULL,"
     " wall_ns INTEGER NOT NULL, requests INTEGER NOT NULL, errors INTEGER NOT NULL,"
     " errors_by_kind TEXT NOT NULL," /* "connect:3 http:1" */
     " output_tokens INTEGER NOT NULL, tok_s REAL,"
     " ttft_p50_ms REAL, ttft_p99_ms REAL, tpot_p50_ms REAL, tpot_p99_ms REAL,"
     " power_w REAL, energy_j REAL," /* NULL: not measured */
     " gpu_mem_bytes INTEGER, rss_bytes INTEGER,"
     " restarts INTEGER NOT NULL, down_s REAL NOT NULL,"
     " PRIMARY KEY (run_id, idx));"
     "CREATE TABLE IF NOT EXISTS soak_outages ("
     " run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,"
     " start_s REAL NOT NULL, end_s REAL," /* NULL: still down */
     " failed INTEGER NOT NULL, refused INTEGER NOT NULL, first_error TEXT NOT NULL,"
     " PRIMARY KEY (run_id, start_s));"),
    /* 12 (TC_SCHEMA_COMMAND): the command line that made each run */
    "ALTER TABLE runs ADD COLUMN command TEXT NOT NULL DEFAULT '';",
    /* 13: nothing in SQLite, whose per-row key check
     * is an index probe in the same process; PostgreSQL's requests trade
     * theirs for a lock a batch (store_schema_pg.c) */
    "",
    /* 14 (TC_SCHEMA_SOAK_COMMAND): the command line a soak started as, so
     * `soak --resume RUN` alone can take its URL and load from it */
    "ALTER TABLE soaks ADD COLUMN command TEXT NOT NULL DEFAULT '';",
    /* 15: nothing in SQLite; PostgreSQL's batch lock becomes an update of
     * the run, so an older snapshot's delete fails rather than orphans */
    "",
    /* 16 (TC_SCHEMA_RETRIED): a request sent once more on a fresh
     * connection after a kept-alive one died before any response byte */
    "ALTER TABLE requests ADD COLUMN retried INTEGER NOT NULL DEFAULT 0;",
    /* 17 (TC_SCHEMA_TRAIN): training runs (truecost train): the plan and
     * its end, one row per step (times CLOCK_MONOTONIC ns as read), the
     * distinct warnings and errors with their counts */
    ("CREATE TABLE IF NOT EXISTS train_runs ( run_id INTEGER PRIMARY KEY "
     "REFERENCES runs (id) ON DELETE CASCADE, format TEXT NOT NULL, command "
     "TEXT NOT NULL, metrics_path TEXT NOT NULL, samples_per_step REAL NOT "
     "NULL, tokens_per_step REAL NOT NULL, warmup_steps INTEGER NOT NULL, "
     "params REAL NOT NULL, trainable_params REAL NOT NULL, gpu TEXT NOT "
     "NULL, start_ns INTEGER NOT NULL, end_ns INTEGER NOT NULL, end_state "
     "TEXT NOT NULL, exit_code INTEGER NOT NULL, signal INTEGER NOT NULL, "
     "steps INTEGER NOT NULL, checkpoints INTEGER NOT NULL, lines INTEGER "
     "NOT NULL, long_lines INTEGER NOT NULL, binary_lines INTEGER NOT NULL, "
     "train_runtime_s REAL, train_samples_per_s REAL, train_steps_per_s "
     "REAL, train_loss REAL, total_flos REAL, note TEXT NOT NULL);CREATE "
     "TABLE IF NOT EXISTS train_steps ( run_id INTEGER NOT NULL REFERENCES "
     "runs (id) ON DELETE CASCADE, idx INTEGER NOT NULL, step INTEGER NOT "
     "NULL, t_ns INTEGER NOT NULL, wall_ns INTEGER NOT NULL, loss REAL, lr "
     "REAL, samples REAL, tokens REAL, samples_per_s REAL, tokens_per_s "
     "REAL, peak_memory_bytes INTEGER, PRIMARY KEY (run_id, idx));CREATE "
     "TABLE IF NOT EXISTS train_warnings ( run_id INTEGER NOT NULL "
     "REFERENCES runs (id) ON DELETE CASCADE, idx INTEGER NOT NULL, class "
     "TEXT NOT NULL, category TEXT NOT NULL, message TEXT NOT NULL, count "
     "INTEGER NOT NULL, first_step INTEGER NOT NULL, PRIMARY KEY (run_id, "
     "idx));"),
};
#define SCHEMA_VERSION ((int)(sizeof migrations / sizeof migrations[0]))

int tc_store_schema_version(void)
{
    return SCHEMA_VERSION;
}

/* What the file says about itself before truecost touches it. */
typedef struct file_header {
    int app_id;
    int version;
    int n_objects; /* tables, indexes, views, triggers */
} file_header;

/* One statement is one snapshot: read apart, the three could straddle
 * another truecost's first commit (id 0 read before it, its tables
 * counted after) and call a new truecost file foreign. */
static tc_err read_header(tc_store *s, file_header *h, char *err, size_t errlen)
{
    static const char sql[] = "SELECT (SELECT application_id FROM pragma_application_id), "
                              "(SELECT user_version FROM pragma_user_version), "
                              "(SELECT count(*) FROM sqlite_master)";
    tc_db_stmt *st = NULL;
    int rc = tc_db_prepare(s->db, sql, &st);
    if (rc == TC_DB_OK) {
        rc = tc_db_step(st);
        if (rc == TC_DB_ROW) {
            h->app_id = (int)tc_db_col_int64(st, 0);
            h->version = (int)tc_db_col_int64(st, 1);
            h->n_objects = (int)tc_db_col_int64(st, 2);
            rc = TC_DB_OK;
        }
    }
    tc_db_finalize(st);
    if (rc == TC_DB_NOTADB)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "%s is not a truecost database (not an SQLite file); truecost leaves it "
                       "alone: choose another path with --db or TRUECOST_DB",
                       s->path);
    if (rc != TC_DB_OK)
        return tc_store_sql_fail(s, rc, "reading the database header", err, errlen);
    return TC_OK;
}

static int is_empty(const file_header *h)
{
    return h->app_id == 0 && h->version == 0 && h->n_objects == 0;
}

/* Refuses another program's database, a newer schema, and (read-only) a
 * file with nothing in it yet. */
static tc_err judge(tc_store *s, const file_header *h, char *err, size_t errlen)
{
    if (h->app_id != TC_STORE_APPLICATION_ID && !is_empty(h))
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "%s is not a truecost database (SQLite application_id 0x%08x, %d schema "
                       "objects); truecost leaves it alone: choose another path with --db or "
                       "TRUECOST_DB",
                       s->path, (unsigned)h->app_id, h->n_objects);
    if (h->version > SCHEMA_VERSION)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "%s was written by a newer truecost (schema version %d; this one knows up "
                       "to %d): upgrade truecost",
                       s->path, h->version, SCHEMA_VERSION);
    if (s->mode == TC_STORE_READ && h->version == 0)
        return tc_fail(err, errlen, TC_ERR_NOTFOUND,
                       "no database at %s yet: run `truecost run` first", s->path);
    return TC_OK;
}

static tc_err exec(tc_store *s, const char *sql, const char *what, char *err, size_t errlen)
{
    int rc = tc_db_exec(s->db, sql);
    return rc == TC_DB_OK ? TC_OK : tc_store_sql_fail(s, rc, what, err, errlen);
}

/* WAL lets `truecost runs` read while a run writes (tc_store_close
 * turns it off again). NORMAL sync in WAL
 * mode survives a crash of the process (only a power cut can lose the
 * last batch) and makes each batch's commit cheap. */
static int journal_wal(tc_store *s, int *wal)
{
    tc_db_stmt *st = NULL;
    int rc = tc_db_prepare(s->db, "PRAGMA journal_mode = WAL", &st);
    if (rc == TC_DB_OK)
        rc = tc_db_step(st);
    const char *mode = rc == TC_DB_ROW ? tc_db_col_text(st, 0) : NULL;
    *wal = mode && strcasecmp(mode, "wal") == 0;
    tc_db_finalize(st);
    return rc;
}

static tc_err set_wal(tc_store *s, char *err, size_t errlen)
{
    /* Changing the journal mode wants the file to itself, and SQLite
     * answers busy at once, without its busy handler, while another
     * connection opens or closes (its own switch back to rollback mode):
     * try again for as long as any other statement would wait. */
    int wal, rc, waited = 0;
    while ((rc = journal_wal(s, &wal)) == TC_DB_BUSY && waited < s->busy_ms) {
        sqlite3_sleep(10);
        waited += 10;
    }
    if (rc != TC_DB_ROW)
        return tc_store_sql_fail(s, rc, "turning on WAL mode", err, errlen);
    if (!wal)
        return tc_fail(err, errlen, TC_ERR_IO,
                       "%s: the file system does not support SQLite's WAL mode; choose a path "
                       "on a local disk with --db",
                       s->path);
    s->wal = 1;
    return exec(s, "PRAGMA synchronous = NORMAL", "setting synchronous mode", err, errlen);
}

/* Applies the missing migrations; the caller holds the write lock. */
static tc_err migrate(tc_store *s, int from, char *err, size_t errlen)
{
    if (from == SCHEMA_VERSION)
        return TC_OK;
    for (int v = from; v < SCHEMA_VERSION; v++) {
        tc_err e = exec(s, migrations[v], "creating the schema", err, errlen);
        if (e != TC_OK)
            return e;
    }
    /* PRAGMA takes no parameters; these are the program's own constants. */
    char sql[96];
    snprintf(sql, sizeof sql, "PRAGMA application_id = %d; PRAGMA user_version = %d",
             TC_STORE_APPLICATION_ID, SCHEMA_VERSION);
    return exec(s, sql, "stamping the schema version", err, errlen);
}

static tc_err prepare_write(tc_store *s, char *err, size_t errlen)
{
    if (sqlite3_db_readonly(tc_db_sqlite_handle(s->db), "main") == 1)
        return tc_store_sql_fail(s, TC_DB_READONLY, "opening for writing", err, errlen);
    tc_err e = set_wal(s, err, errlen);
    if (e == TC_OK)
        e = exec(s, "BEGIN IMMEDIATE", "locking for writing", err, errlen);
    if (e != TC_OK)
        return e;
    /* Read again under the lock: another truecost may have created or
     * migrated the file since the first look. */
    file_header h;
    e = read_header(s, &h, err, errlen);
    if (e == TC_OK)
        e = judge(s, &h, err, errlen);
    if (e == TC_OK)
        e = migrate(s, h.version, err, errlen);
    if (e == TC_OK)
        e = exec(s, "COMMIT", "saving the schema", err, errlen);
    if (e != TC_OK) {
        tc_db_rollback(s->db);
        return e;
    }
    s->version = SCHEMA_VERSION;
    return TC_OK;
}

tc_err tc_store_schema_prepare(tc_store *s, char *err, size_t errlen)
{
    /* Look before writing anything: a foreign or garbage file must stay
     * byte for byte as it was. */
    file_header h;
    tc_err e = read_header(s, &h, err, errlen);
    if (e == TC_OK)
        e = judge(s, &h, err, errlen);
    if (e == TC_OK)
        e = exec(s, "PRAGMA foreign_keys = ON", "turning on foreign keys", err, errlen);
    if (e != TC_OK)
        return e;
    if (s->mode == TC_STORE_READ) {
        s->version = h.version;
        return TC_OK;
    }
    return prepare_write(s, err, errlen);
}
