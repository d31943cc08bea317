/* Unit tests of the results store: the file it creates or refuses, the
 * schema, runs, request round trips, the chunk-time codec and the batch
 * transaction. Every file lives in a mkdtemp directory under /tmp. */
#define _GNU_SOURCE /* nftw */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <ftw.h>
#include <grp.h>
#include <math.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/tc_time.h"
#include "store/store.h"
#include "store/store_internal.h"
#include "pg_fixture.h"

/* ---- fixtures ---- */

typedef struct tmp {
    char dir[64];
    char db[1024];            /* dir/t.db, or a PostgreSQL URL (setup_pg) */
    char pg_name[64];         /* the database setup_pg created, "" for SQLite */
    void (*fn)(void **state); /* setup_pg: the test to run */
} tmp;

typedef struct pg_case {
    void (*fn)(void **state);
} pg_case;

static int setup(void **state)
{
    tmp *t = calloc(1, sizeof *t);
    assert_non_null(t);
    strcpy(t->dir, "/tmp/tc_store_XXXXXX");
    assert_non_null(mkdtemp(t->dir));
    snprintf(t->db, sizeof t->db, "%s/t.db", t->dir);
    *state = t;
    return 0;
}

/* The same contract on PostgreSQL: each test gets a new database on the
 * server at $TC_TEST_PG_URL (scripts/pg-test.sh starts one), dropped
 * after it; without the variable the test is skipped. */
static int setup_pg(void **state)
{
    const pg_case *c = *state;
    setup(state);
    tmp *t = *state;
    t->fn = c->fn;
    if (!getenv("TC_TEST_PG_URL") || !getenv("TC_TEST_PG_URL")[0])
        return 0; /* pg_test says skipped: `scripts/pg-test.sh ctest -R store` runs it */
    pg_new_db(t->db, sizeof t->db, t->pg_name, sizeof t->pg_name);
    return 0;
}

/* Runs the test setup_pg was given, or says skipped without a server. */
static void pg_test(void **state)
{
    tmp *t = *state;
    if (!t->pg_name[0] && !pg_available()) {
        print_message("TC_TEST_PG_URL is not set: skipped (scripts/pg-test.sh sets it)\n");
        skip();
    }
    t->fn(state);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    chmod(path, 0700); /* undo the read-only tests so removal works for any user */
    return remove(path);
}

static int teardown(void **state)
{
    tmp *t = *state;
    if (t->pg_name[0])
        pg_drop_db(t->pg_name);
    chmod(t->dir, 0700);
    nftw(t->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    free(t);
    return 0;
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

/* The whole file, malloc'ed; *len its size. */
static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    unsigned char *buf = malloc(1 << 20);
    assert_non_null(buf);
    *len = fread(buf, 1, 1 << 20, f);
    fclose(f);
    return buf;
}

static void assert_unchanged(const char *path, const unsigned char *before, size_t len)
{
    size_t n;
    unsigned char *now = slurp(path, &n);
    assert_int_equal(n, len);
    assert_memory_equal(now, before, len);
    free(now);
}

/* Runs SQL on a connection of the test's own, outside the store. */
static void raw_sql(const char *path, const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

static tc_store *open_ok(const char *path, tc_store_mode mode)
{
    char err[512] = "";
    tc_store *s = NULL;
    tc_err e = tc_store_open(path, mode, &s, err, sizeof err);
    if (e != TC_OK)
        fail_msg("open %s: %s", path, err);
    return s;
}

/* The integers of the first column of sql's first n rows, read through
 * the store's own connection, whichever the back end. */
static void query_ints(const char *target, const char *sql, int64_t *out, int n)
{
    tc_store *s = open_ok(target, TC_STORE_WRITE);
    tc_db_stmt *st = NULL;
    assert_int_equal(tc_db_prepare(s->db, sql, &st), TC_DB_OK);
    for (int i = 0; i < n; i++) {
        assert_int_equal(tc_db_step(st), TC_DB_ROW);
        out[i] = tc_db_col_int64(st, 0);
    }
    tc_db_finalize(st);
    tc_store_close(s);
}

/* What TC_SCHEMA_LOAD_SHAPE (5) added, taken away again: with it, a file
 * goes back to what version 4 wrote. */
#define BACK_TO_V4                                                                                 \
    "DROP TABLE soak_outages; DROP TABLE soak_windows; DROP TABLE soaks;"                          \
    "ALTER TABLE runs DROP COLUMN command; ALTER TABLE requests DROP COLUMN retried;"              \
    "DROP INDEX runs_by_uuid; ALTER TABLE runs DROP COLUMN uuid;"                                  \
    "ALTER TABLE runs DROP COLUMN arrival; ALTER TABLE runs DROP COLUMN arrival_rate;"             \
    "ALTER TABLE runs DROP COLUMN arrival_burstiness; ALTER TABLE runs DROP COLUMN arrival_seed;"  \
    "ALTER TABLE runs DROP COLUMN max_concurrency; ALTER TABLE requests DROP COLUMN sched_ns;"     \
    "DROP TABLE run_workloads; ALTER TABLE runs DROP COLUMN slo; DROP TABLE run_figures;"          \
    "ALTER TABLE runs DROP COLUMN group_kind; ALTER TABLE runs DROP COLUMN gpus;"                  \
    "PRAGMA user_version = 4;"

static tc_run_info sample_run(const char *label)
{
    tc_run_info r;
    memset(&r, 0, sizeof r);
    snprintf(r.label, sizeof r.label, "%s", label);
    r.created_wall_ns = 1795966314123456789LL;
    snprintf(r.endpoint, sizeof r.endpoint, "http://127.0.0.1:11434");
    r.api = TC_API_OPENAI_CHAT;
    snprintf(r.model, sizeof r.model, "qwen2.5:7b");
    r.simulated = 1;
    snprintf(r.server_version, sizeof r.server_version, "0.5.7");
    r.concurrency = 8;
    r.warmup = 2;
    r.requests = 100;
    r.duration_s = 12.5;
    r.max_tokens = 256;
    return r;
}

static int64_t begin_run(tc_store *s, const char *label)
{
    char err[512] = "";
    tc_run_info r = sample_run(label);
    if (tc_store_run_begin(s, &r, err, sizeof err) != TC_OK)
        fail_msg("run_begin: %s", err);
    return r.id;
}

/* A record with n chunks 1 ms apart after a 20 ms TTFT. */
static void make_record(tc_req_record *r, int64_t seq, size_t n)
{
    tc_req_record_init(r);
    r->seq = seq;
    r->send_ns = 1000000000LL + seq * 1000;
    r->send_wall_ns = 1795966314000000000LL + seq;
    for (size_t i = 0; i < n; i++)
        assert_int_equal(tc_req_record_add_chunk(r, r->send_ns + 20000000 + (int64_t)i * 1000000),
                         0);
    r->end_ns = r->n_chunks ? r->chunk_ns[r->n_chunks - 1] + 5 : r->send_ns + 7;
    r->http_status = 200;
    r->output_tokens = (int64_t)n;
    r->output_source = TC_TOKENS_CHUNKS;
}

static void free_records(tc_req_record *recs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        tc_req_record_clear(&recs[i]);
}

static void assert_double_same(double a, double b)
{
    if (isnan(a) || isnan(b))
        assert_true(isnan(a) && isnan(b));
    else
        assert_true(a == b);
}

static void assert_record_equal(const tc_req_record *a, const tc_req_record *b)
{
    assert_int_equal(a->seq, b->seq);
    assert_int_equal(a->warmup, b->warmup);
    assert_int_equal(a->send_ns, b->send_ns);
    assert_int_equal(a->send_wall_ns, b->send_wall_ns);
    assert_int_equal(tc_req_start_ns(a), tc_req_start_ns(b)); /* 0 comes back as send_ns */
    assert_int_equal(a->end_ns, b->end_ns);
    assert_int_equal(a->http_status, b->http_status);
    assert_int_equal(a->error, b->error);
    assert_string_equal(a->error_detail, b->error_detail);
    assert_int_equal(a->output_tokens, b->output_tokens);
    assert_int_equal(a->output_source, b->output_source);
    assert_int_equal(a->prompt_tokens, b->prompt_tokens);
    assert_int_equal(a->prompt_source, b->prompt_source);
    const tc_server_report *x = &a->server, *y = &b->server;
    assert_int_equal(x->has_ollama, y->has_ollama);
    assert_int_equal(x->total_ns, y->total_ns);
    assert_int_equal(x->load_ns, y->load_ns);
    assert_int_equal(x->prompt_eval_ns, y->prompt_eval_ns);
    assert_int_equal(x->eval_ns, y->eval_ns);
    assert_int_equal(x->prompt_eval_count, y->prompt_eval_count);
    assert_int_equal(x->eval_count, y->eval_count);
    assert_int_equal(x->has_timings, y->has_timings);
    assert_int_equal(x->prompt_n, y->prompt_n);
    assert_int_equal(x->predicted_n, y->predicted_n);
    assert_double_same(x->prompt_ms, y->prompt_ms);
    assert_double_same(x->predicted_ms, y->predicted_ms);
    assert_double_same(x->predicted_per_second, y->predicted_per_second);
    assert_int_equal(a->n_chunks, b->n_chunks);
    if (a->n_chunks)
        assert_memory_equal(a->chunk_ns, b->chunk_ns, a->n_chunks * sizeof *a->chunk_ns);
}

/* ---- codec ---- */

static void varint_edges(void **state)
{
    (void)state;
    static const struct {
        uint64_t v;
        size_t len;
        uint8_t first, last;
    } cases[] = {
        {0, 1, 0x00, 0x00},
        {127, 1, 0x7f, 0x7f},
        {128, 2, 0x80, 0x01},
        {16383, 2, 0xff, 0x7f},
        {16384, 3, 0x80, 0x01},
        {1ULL << 35, 6, 0x80, 0x01},
        {(uint64_t)INT64_MAX, 9, 0xff, 0x7f},
        {UINT64_MAX, 10, 0xff, 0x01},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t buf[TC_VARINT_MAX];
        size_t n = tc_store_varint_put(cases[i].v, buf);
        assert_int_equal(n, cases[i].len);
        assert_int_equal(buf[0], cases[i].first);
        assert_int_equal(buf[n - 1], cases[i].last);
        uint64_t back = 1;
        assert_int_equal(tc_store_varint_get(buf, n, &back), n);
        assert_true(back == cases[i].v);
        /* One byte short is truncated. */
        assert_int_equal(tc_store_varint_get(buf, n - 1, &back), 0);
    }
    uint64_t v;
    static const uint8_t eleven[11] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                       0x80, 0x80, 0x80, 0x80, 0x00};
    assert_int_equal(tc_store_varint_get(eleven, sizeof eleven, &v), 0);
    static const uint8_t over64[10] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
    assert_int_equal(tc_store_varint_get(over64, sizeof over64, &v), 0);
    assert_int_equal(tc_store_varint_get(over64, 0, &v), 0);
}

static void chunks_round_trip_and_gaps(void **state)
{
    (void)state;
    char err[256];
    const int64_t send = 5;
    const int64_t t[] = {5, 132, 260, 260 + (1LL << 35), INT64_MAX - 1, INT64_MAX};
    size_t n = sizeof t / sizeof t[0];
    uint8_t buf[6 * TC_VARINT_MAX];
    size_t len = 0;
    assert_int_equal(tc_store_chunks_encode(send, t, n, buf, &len, err, sizeof err), TC_OK);
    /* 0 -> 1 byte, 127 -> 1, 128 -> 2, 2^35 -> 6, huge -> 9, 1 -> 1. */
    assert_int_equal(len, 1 + 1 + 2 + 6 + 9 + 1);
    int64_t *back = NULL;
    assert_int_equal(tc_store_chunks_decode(send, buf, len, n, &back, err, sizeof err), TC_OK);
    assert_memory_equal(back, t, sizeof t);
    free(back);

    /* The widest gap there is: INT64_MIN to INT64_MAX. */
    const int64_t far[] = {INT64_MAX};
    assert_int_equal(tc_store_chunks_encode(INT64_MIN, far, 1, buf, &len, err, sizeof err), TC_OK);
    assert_int_equal(len, 10);
    assert_int_equal(tc_store_chunks_decode(INT64_MIN, buf, len, 1, &back, err, sizeof err), TC_OK);
    assert_true(back[0] == INT64_MAX);
    free(back);

    /* No chunks: an empty blob and a NULL array. */
    assert_int_equal(tc_store_chunks_encode(send, NULL, 0, buf, &len, err, sizeof err), TC_OK);
    assert_int_equal(len, 0);
    assert_int_equal(tc_store_chunks_decode(send, buf, 0, 0, &back, err, sizeof err), TC_OK);
    assert_null(back);
}

static void chunks_refuse_bad_input(void **state)
{
    (void)state;
    char err[256];
    uint8_t buf[4 * TC_VARINT_MAX];
    size_t len;
    const int64_t backwards[] = {100, 99};
    assert_int_equal(tc_store_chunks_encode(0, backwards, 2, buf, &len, err, sizeof err),
                     TC_ERR_INVALID);
    assert_non_null(strstr(err, "before"));
    const int64_t before_send[] = {4};
    assert_int_equal(tc_store_chunks_encode(5, before_send, 1, buf, &len, err, sizeof err),
                     TC_ERR_INVALID);

    int64_t *back = (int64_t *)buf; /* must come back NULL on failure */
    const uint8_t two[] = {1, 2};
    assert_int_equal(tc_store_chunks_decode(0, two, 2, 1, &back, err, sizeof err), TC_ERR_PARSE);
    assert_null(back);
    assert_int_equal(tc_store_chunks_decode(0, two, 2, 3, &back, err, sizeof err), TC_ERR_PARSE);
    assert_int_equal(tc_store_chunks_decode(0, two, 2, 0, &back, err, sizeof err), TC_ERR_PARSE);
    const uint8_t cut[] = {1, 0x80};
    assert_int_equal(tc_store_chunks_decode(0, cut, 2, 2, &back, err, sizeof err), TC_ERR_PARSE);
    /* A gap that would carry the time past INT64_MAX. */
    size_t n = tc_store_varint_put((uint64_t)INT64_MAX, buf);
    buf[n] = 1;
    assert_int_equal(tc_store_chunks_decode(1, buf, n, 1, &back, err, sizeof err), TC_ERR_PARSE);
    assert_int_equal(tc_store_chunks_decode(0, buf, n + 1, 2, &back, err, sizeof err),
                     TC_ERR_PARSE);
    assert_null(back);
}

/* ---- default path ---- */

static void set_env(const char *name, const char *value)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
}

static void default_path_resolution(void **state)
{
    (void)state;
    static const char *const names[] = {"TRUECOST_DB", "XDG_DATA_HOME", "HOME"};
    char *saved[3];
    for (int i = 0; i < 3; i++)
        saved[i] = getenv(names[i]) ? strdup(getenv(names[i])) : NULL;
    static const struct {
        const char *db, *xdg, *home, *want;
    } cases[] = {
        {"/x/my.db", "/xdg", "/home/u", "/x/my.db"},
        {"", "/xdg", "/home/u", "/xdg/truecost/truecost.db"},
        {NULL, "/xdg", "/home/u", "/xdg/truecost/truecost.db"},
        {NULL, "relative", "/home/u", "/home/u/.local/share/truecost/truecost.db"},
        {NULL, "", "/home/u", "/home/u/.local/share/truecost/truecost.db"},
        {NULL, NULL, "/home/u", "/home/u/.local/share/truecost/truecost.db"},
        {"rel.db", NULL, NULL, "rel.db"},
        {NULL, "/xdg", NULL, "/xdg/truecost/truecost.db"},
    };
    char buf[TC_STORE_PATH_MAX], err[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        set_env("TRUECOST_DB", cases[i].db);
        set_env("XDG_DATA_HOME", cases[i].xdg);
        set_env("HOME", cases[i].home);
        assert_int_equal(tc_store_default_path(buf, sizeof buf, err, sizeof err), TC_OK);
        assert_string_equal(buf, cases[i].want);
    }
    unsetenv("TRUECOST_DB");
    unsetenv("XDG_DATA_HOME");
    unsetenv("HOME");
    assert_int_equal(tc_store_default_path(buf, sizeof buf, err, sizeof err), TC_ERR_NOTFOUND);
    assert_non_null(strstr(err, "HOME"));
    assert_non_null(strstr(err, "--db"));
    setenv("HOME", "/home/u", 1);
    assert_int_equal(tc_store_default_path(buf, 10, err, sizeof err), TC_ERR_INVALID);
    for (int i = 0; i < 3; i++) {
        set_env(names[i], saved[i]);
        free(saved[i]);
    }
}

/* ---- the file: creating, refusing, locking ---- */

static void write_creates_private_parent_dirs(void **state)
{
    tmp *t = *state;
    char path[256], dir[256];
    snprintf(path, sizeof path, "%s/a/b/c/truecost.db", t->dir);
    tc_store *s = open_ok(path, TC_STORE_WRITE);
    assert_string_equal(tc_store_path(s), path);
    tc_store_close(s);
    assert_true(exists(path));
    static const char *const parts[] = {"a", "a/b", "a/b/c"};
    for (int i = 0; i < 3; i++) {
        snprintf(dir, sizeof dir, "%s/%s", t->dir, parts[i]);
        struct stat st;
        assert_int_equal(stat(dir, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
        assert_int_equal(st.st_mode & 0777, 0700);
    }
    /* Opening again finds the schema in place. */
    s = open_ok(path, TC_STORE_WRITE);
    tc_store_close(s);
    s = open_ok(path, TC_STORE_READ);
    tc_store_close(s);
    /* A file where a directory should be. */
    snprintf(path, sizeof path, "%s/a/b/c/truecost.db/x.db", t->dir);
    char err[512];
    assert_int_equal(tc_store_open(path, TC_STORE_WRITE, &s, err, sizeof err), TC_ERR_IO);
    assert_null(s);
    assert_non_null(strstr(err, "cannot create the directory"));
}

static void read_missing_creates_nothing(void **state)
{
    tmp *t = *state;
    char path[256], dir[256], err[512];
    snprintf(dir, sizeof dir, "%s/sub", t->dir);
    snprintf(path, sizeof path, "%s/sub/t.db", t->dir);
    tc_store *s = (tc_store *)1;
    assert_int_equal(tc_store_open(path, TC_STORE_READ, &s, err, sizeof err), TC_ERR_NOTFOUND);
    assert_null(s);
    assert_non_null(strstr(err, "no database at"));
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "truecost run"));
    assert_false(exists(dir));
    assert_int_equal(tc_store_open(t->db, TC_STORE_READ, &s, err, sizeof err), TC_ERR_NOTFOUND);
    assert_false(exists(t->db));
    /* An empty file is not a database yet either, and stays empty. */
    fclose(fopen(t->db, "w"));
    assert_int_equal(tc_store_open(t->db, TC_STORE_READ, &s, err, sizeof err), TC_ERR_NOTFOUND);
    struct stat st;
    assert_int_equal(stat(t->db, &st), 0);
    assert_int_equal(st.st_size, 0);
    /* ... while writing takes it over. */
    s = open_ok(t->db, TC_STORE_WRITE);
    tc_store_close(s);
    assert_int_equal(tc_store_open(t->dir, TC_STORE_READ, &s, err, sizeof err), TC_ERR_INVALID);
    assert_non_null(strstr(err, "is a directory"));
}

/* Opening path in both modes fails with TC_ERR_INVALID, the message
 * contains `want`, and the file keeps every byte. */
static void assert_refused(const char *path, const char *want)
{
    size_t len;
    unsigned char *before = slurp(path, &len);
    char err[512], wal[300];
    for (int mode = TC_STORE_READ; mode <= TC_STORE_WRITE; mode++) {
        tc_store *s = NULL;
        err[0] = '\0';
        assert_int_equal(tc_store_open(path, (tc_store_mode)mode, &s, err, sizeof err),
                         TC_ERR_INVALID);
        assert_null(s);
        if (!strstr(err, want) || !strstr(err, path))
            fail_msg("unexpected message: %s", err);
    }
    assert_unchanged(path, before, len);
    snprintf(wal, sizeof wal, "%s-wal", path);
    assert_false(exists(wal));
    free(before);
}

static void foreign_sqlite_refused_unchanged(void **state)
{
    tmp *t = *state;
    raw_sql(t->db, "CREATE TABLE notes (x TEXT); INSERT INTO notes VALUES ('mine');"
                   "PRAGMA application_id = 42;");
    assert_refused(t->db, "not a truecost database");
    /* Other tables and no application_id at all: still not ours. */
    char other[256];
    snprintf(other, sizeof other, "%s/other.db", t->dir);
    raw_sql(other, "CREATE TABLE runs (id INTEGER PRIMARY KEY);");
    assert_refused(other, "not a truecost database");
}

static void garbage_file_refused_unchanged(void **state)
{
    tmp *t = *state;
    FILE *f = fopen(t->db, "wb");
    assert_non_null(f);
    for (int i = 0; i < 512; i++)
        fputs("not a database, just some text ", f);
    fclose(f);
    assert_refused(t->db, "not an SQLite file");
}

static void newer_schema_refused(void **state)
{
    tmp *t = *state;
    tc_store_close(open_ok(t->db, TC_STORE_WRITE));
    raw_sql(t->db, "PRAGMA user_version = 999;");
    assert_refused(t->db, "newer truecost");
    char err[512];
    tc_store *s;
    assert_int_not_equal(tc_store_open(t->db, TC_STORE_WRITE, &s, err, sizeof err), TC_OK);
    assert_non_null(strstr(err, "upgrade"));
}

static void locked_database_is_reported(void **state)
{
    tmp *t = *state;
    tc_store *s = open_ok(t->db, TC_STORE_WRITE);
    int64_t run = begin_run(s, "locked");
    sqlite3 *other;
    assert_int_equal(sqlite3_open(t->db, &other), SQLITE_OK);
    assert_int_equal(sqlite3_exec(other, "BEGIN EXCLUSIVE", NULL, NULL, NULL), SQLITE_OK);

    tc_store_set_busy_timeout(s, 100);
    tc_req_record r;
    make_record(&r, 0, 3);
    char err[512] = "";
    assert_int_equal(tc_store_add_requests(s, run, &r, 1, err, sizeof err), TC_ERR_BUSY);
    assert_non_null(strstr(err, "locked"));
    assert_non_null(strstr(err, t->db));
    assert_non_null(strstr(err, "--db"));
    /* TC_ERR_BUSY: `truecost run` tries again for a while */
    assert_int_equal(tc_store_run_finish(s, run, TC_RUN_COMPLETE, err, sizeof err), TC_ERR_BUSY);
    /* A new writer waits the full busy timeout, then says the same. */
    tc_store *s2 = NULL;
    assert_int_equal(tc_store_open(t->db, TC_STORE_WRITE, &s2, err, sizeof err), TC_ERR_BUSY);
    assert_null(s2);
    assert_non_null(strstr(err, "locked"));
    /* Readers are not blocked by a writer (WAL). */
    tc_store *reader = open_ok(t->db, TC_STORE_READ);
    tc_run_info info;
    assert_int_equal(tc_store_find_run(reader, "locked", &info, err, sizeof err), TC_OK);
    assert_int_equal(info.status, TC_RUN_RUNNING);

    sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(other);
    /* Once the lock is gone the same store carries on. */
    assert_int_equal(tc_store_add_requests(s, run, &r, 1, err, sizeof err), TC_OK);
    tc_req_record *got;
    size_t n;
    assert_int_equal(tc_store_load_requests(reader, run, &got, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 1);
    tc_store_free_requests(got, n);
    tc_store_close(reader);
    tc_store_close(s);
    tc_req_record_clear(&r);
}

/* In a child that is not root (root writes through file modes): opens
 * path for writing and exits 0 when it fails with TC_ERR_IO and a
 * message containing want; also checks reading still works. */
static void child_expect_write_refused(const char *path, const char *want)
{
    if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
        _exit(77);
    char err[512] = "";
    tc_store *s = NULL;
    tc_err e = tc_store_open(path, TC_STORE_WRITE, &s, err, sizeof err);
    if (e != TC_ERR_IO || s || !strstr(err, want) || !strstr(err, path)) {
        fprintf(stderr, "write open: %s (%s)\n", tc_strerror(e), err);
        _exit(1);
    }
    e = tc_store_open(path, TC_STORE_READ, &s, err, sizeof err);
    tc_run_info *runs = NULL;
    size_t n = 0;
    if (e == TC_OK)
        e = tc_store_list_runs(s, &runs, &n, err, sizeof err);
    free(runs);
    tc_store_close(s);
    if (e != TC_OK || n != 1) {
        fprintf(stderr, "read open: %s (%s), %zu runs\n", tc_strerror(e), err, n);
        _exit(2);
    }
    _exit(0);
}

static void run_child(const char *path, const char *want)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        child_expect_write_refused(path, want);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77)
        skip();
    assert_int_equal(WEXITSTATUS(status), 0);
}

static void read_only_file_and_dir_refused(void **state)
{
    tmp *t = *state;
    tc_store *s = open_ok(t->db, TC_STORE_WRITE);
    begin_run(s, "ro");
    tc_store_close(s);
    size_t len;
    unsigned char *before = slurp(t->db, &len);
    /* The child may be "nobody": the directory is open to it, the file
     * is not. */
    assert_int_equal(chmod(t->dir, 0777), 0);
    assert_int_equal(chmod(t->db, 0444), 0);
    run_child(t->db, "read-only");
    assert_unchanged(t->db, before, len);

    assert_int_equal(chmod(t->db, 0666), 0);
    assert_int_equal(chmod(t->dir, 0555), 0);
    run_child(t->db, "not writable");
    assert_unchanged(t->db, before, len);
    free(before);
}

/* The fix offered for a file the user cannot use depends on whose it is
 * and whether it can be read at all: chmod helps only the owner. */
static void unusable_file_messages(void **state)
{
    (void)state;
    char err[512];
    const char *db = "/srv/t.db";
    tc_store_access a = {.owner_uid = 1000, .my_uid = 1000, .owner_name = "alice"};
    assert_int_equal(tc_store_access_fail(db, &a, err, sizeof err), TC_OK);

    /* unreadable, one's own: chmod, with w too when writing is refused */
    a.read_errno = EACCES;
    assert_int_equal(tc_store_access_fail(db, &a, err, sizeof err), TC_ERR_IO);
    assert_string_equal(err, "cannot read /srv/t.db: permission denied; it is yours: make it "
                             "readable (chmod u+r /srv/t.db) or choose another path with --db");
    a.write_errno = EACCES;
    assert_int_equal(tc_store_access_fail(db, &a, err, sizeof err), TC_ERR_IO);
    assert_non_null(strstr(err, "(chmod u+rw /srv/t.db)"));

    /* unreadable, someone else's: who owns it, no chmod */
    a.my_uid = 1001;
    assert_int_equal(tc_store_access_fail(db, &a, err, sizeof err), TC_ERR_IO);
    assert_string_equal(err, "cannot read /srv/t.db: permission denied; it belongs to alice: ask "
                             "its owner for access or choose another path with --db");
    a.owner_name = NULL; /* an owner with no name */
    assert_int_equal(tc_store_access_fail(db, &a, err, sizeof err), TC_ERR_IO);
    assert_non_null(strstr(err, "it belongs to uid 1000:"));
    assert_null(strstr(err, "chmod"));

    /* readable, not writable: chmod for one's own only */
    a = (tc_store_access){.write_errno = EACCES, .owner_uid = 0, .my_uid = 0, .owner_name = "root"};
    assert_int_equal(tc_store_access_fail(db, &a, err, sizeof err), TC_ERR_IO);
    assert_string_equal(err, "/srv/t.db is read-only: make it writable (chmod u+w /srv/t.db) or "
                             "choose another path with --db");
    a.my_uid = 1000;
    assert_int_equal(tc_store_access_fail(db, &a, err, sizeof err), TC_ERR_IO);
    assert_string_equal(err, "/srv/t.db is read-only to you (it belongs to root): ask its owner "
                             "for write access or choose another path with --db");
    a.write_errno = EROFS; /* nobody's chmod helps on a read-only mount */
    assert_int_equal(tc_store_access_fail(db, &a, err, sizeof err), TC_ERR_IO);
    assert_string_equal(err,
                        "/srv/t.db is on a read-only file system: choose another path with --db");
}

/* In a child that is not root: opening path (for writing when `write`)
 * fails with TC_ERR_IO, naming the path, with a message containing want
 * and not containing unwanted. Exits 0 when so. */
static void child_expect_refused(const char *path, int write, const char *want,
                                 const char *unwanted)
{
    if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0))
        _exit(77);
    char err[512] = "";
    tc_store *s = NULL;
    tc_err e = tc_store_open(path, write ? TC_STORE_WRITE : TC_STORE_READ, &s, err, sizeof err);
    if (e != TC_ERR_IO || s || !strstr(err, want) || !strstr(err, path) ||
        (unwanted && strstr(err, unwanted))) {
        fprintf(stderr, "%s open: %s (%s)\n", write ? "write" : "read", tc_strerror(e), err);
        _exit(1);
    }
    _exit(0);
}

static void run_refused_child(const char *path, int write, const char *want, const char *unwanted)
{
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        child_expect_refused(path, write, want, unwanted);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) == 77)
        skip();
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* The same with real file modes, where the test can change users (root):
 * root's file, unreadable to "nobody"; then nobody's own. */
static void unreadable_file_refused(void **state)
{
    tmp *t = *state;
    tc_store *s = open_ok(t->db, TC_STORE_WRITE);
    begin_run(s, "secret");
    tc_store_close(s);
    if (geteuid() != 0)
        skip(); /* chown and a second user need root */
    assert_int_equal(chmod(t->dir, 0777), 0);
    assert_int_equal(chmod(t->db, 0600), 0);
    for (int write = 0; write < 2; write++)
        run_refused_child(t->db, write, "cannot read", "chmod");
    run_refused_child(t->db, 1, "permission denied; it belongs to root", NULL);
    assert_int_equal(chmod(t->db, 0444), 0);
    run_refused_child(t->db, 1, "read-only to you (it belongs to root)", "chmod");

    assert_int_equal(chown(t->db, 65534, 65534), 0);
    assert_int_equal(chmod(t->db, 0200), 0);
    run_refused_child(t->db, 0, "it is yours: make it readable (chmod u+r ", NULL);
    assert_int_equal(chmod(t->db, 0400), 0);
    run_refused_child(t->db, 1, "read-only: make it writable (chmod u+w ", NULL);
}

/* Processes that create the same new file at once (a report's two
 * sweeps, two shards) each open it: none may take the other's half-made
 * file for a foreign one. Each child opens NEW_FILES fresh files in the
 * same order, for writing and then for reading, started together. */
#define RACERS 4
#define NEW_FILES 100

static void racer(const char *dir, int start_fd)
{
    char go;
    if (read(start_fd, &go, 1) < 0)
        _exit(3);
    for (int i = 0; i < NEW_FILES; i++) {
        char path[1024], err[512] = "";
        snprintf(path, sizeof path, "%s/race%d.db", dir, i);
        tc_store *s = NULL;
        tc_err e = tc_store_open(path, TC_STORE_WRITE, &s, err, sizeof err);
        tc_store_close(s);
        if (e == TC_OK) {
            s = NULL;
            e = tc_store_open(path, TC_STORE_READ, &s, err, sizeof err);
            tc_store_close(s);
        }
        if (e != TC_OK) {
            fprintf(stderr, "racer %d, file %d: %s (%s)\n", (int)getpid(), i, tc_strerror(e), err);
            _exit(1);
        }
    }
    _exit(0);
}

static void first_opens_race_cleanly(void **state)
{
    tmp *t = *state;
    int start[2];
    assert_int_equal(pipe(start), 0);
    fflush(NULL);
    pid_t pids[RACERS];
    for (int r = 0; r < RACERS; r++) {
        pids[r] = fork();
        assert_true(pids[r] >= 0);
        if (pids[r] == 0) {
            close(start[1]);
            racer(t->dir, start[0]);
        }
    }
    close(start[0]);
    close(start[1]); /* every racer's read returns at once: go */
    int failed = 0;
    for (int r = 0; r < RACERS; r++) {
        int status;
        assert_int_equal(waitpid(pids[r], &status, 0), pids[r]);
        failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
    }
    assert_int_equal(failed, 0);
}

/* ---- runs ---- */

static void runs_round_trip_newest_first(void **state)
{
    tmp *t = *state;
    tc_store *s = open_ok(t->db, TC_STORE_WRITE);
    char err[512];
    /* Labels and endpoints are data: quotes, SQL, bytes that are not UTF-8. */
    static const char *const labels[] = {"", "it's \"quoted\"", "x'); DROP TABLE runs; --",
                                         "\xff\xfe\x80 bytes \xe2\x82\xac"};
    tc_run_info in[4];
    for (int i = 0; i < 4; i++) {
        in[i] = sample_run(labels[i]);
        in[i].api = (tc_api)(i % TC_API_COUNT);
        in[i].simulated = i % 2;
        in[i].concurrency = 10 + i;
        in[i].duration_s = i * 0.25;
        snprintf(in[i].endpoint, sizeof in[i].endpoint, "http://h%d:80/%s", i, labels[i]);
        if (i == 3)
            in[i].created_wall_ns = 0; /* the store fills in now */
        assert_int_equal(tc_store_run_begin(s, &in[i], err, sizeof err), TC_OK);
        assert_true(in[i].id > 0);
        assert_int_equal(in[i].status, TC_RUN_RUNNING);
    }
    assert_true(in[3].created_wall_ns > 1700000000LL * TC_NS_PER_S);
    tc_store_close(s);
    /* The writer leaves no -wal or -shm behind, and a reader makes none. */
    char wal[1100], shm[1100];
    snprintf(wal, sizeof wal, "%s-wal", t->db);
    snprintf(shm, sizeof shm, "%s-shm", t->db);
    assert_false(exists(wal));
    assert_false(exists(shm));

    s = open_ok(t->db, TC_STORE_READ);
    assert_false(exists(wal));
    assert_false(exists(shm));
    tc_run_info *runs = NULL;
    size_t n = 0;
    assert_int_equal(tc_store_list_runs(s, &runs, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 4);
    for (int i = 0; i < 4; i++) {
        const tc_run_info *a = &runs[i], *b = &in[3 - i];
        assert_int_equal(a->id, b->id);
        assert_string_equal(a->label, b->label);
        assert_int_equal(a->status, TC_RUN_RUNNING);
        assert_int_equal(a->created_wall_ns, b->created_wall_ns);
        assert_string_equal(a->endpoint, b->endpoint);
        assert_int_equal(a->api, b->api);
        assert_string_equal(a->model, b->model);
        assert_int_equal(a->simulated, b->simulated);
        assert_string_equal(a->server_version, b->server_version);
        assert_int_equal(a->concurrency, b->concurrency);
        assert_int_equal(a->warmup, b->warmup);
        assert_int_equal(a->requests, b->requests);
        assert_true(a->duration_s == b->duration_s);
        assert_int_equal(a->max_tokens, b->max_tokens);
    }
    free(runs);
    /* A reader cannot write. */
    tc_run_info r = sample_run("no");
    assert_int_equal(tc_store_run_begin(s, &r, err, sizeof err), TC_ERR_INVALID);
    assert_int_equal(tc_store_add_requests(s, 1, NULL, 0, err, sizeof err), TC_ERR_INVALID);
    tc_store_close(s);
    assert_false(exists(wal));
    assert_false(exists(shm));

    /* An empty store lists nothing. */
    char other[256];
    snprintf(other, sizeof other, "%s/empty.db", t->dir);
    s = open_ok(other, TC_STORE_WRITE);
    runs = (tc_run_info *)1;
    assert_int_equal(tc_store_list_runs(s, &runs, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 0);
    assert_null(runs);
    tc_store_close(s);
    tc_store_close(NULL);
}

static const char *status_of(tc_store *s, int64_t id)
{
    static tc_run_info info;
    char text[32], err[512];
    snprintf(text, sizeof text, "%lld", (long long)id);
    assert_int_equal(tc_store_find_run(s, text, &info, err, sizeof err), TC_OK);
    return tc_status_name(info.status);
}

/* The status is an enum in memory and its name on disk (where the schema
 * allows only these names): each name reads back as itself. */
static void run_status_names_round_trip(void **state)
{
    (void)state;
    for (int i = 0; i < TC_RUN_STATUS_COUNT; i++) {
        tc_run_status back;
        assert_int_equal(tc_status_parse(tc_status_name((tc_run_status)i), &back), 0);
        assert_int_equal(back, i);
    }
    tc_run_status none;
    assert_int_equal(tc_status_parse("done", &none), -1);
    assert_string_equal(tc_status_name(TC_RUN_STATUS_COUNT), "?");
}

/* A group's runs are counted and stored in one transaction: the first run
 * of a group that already has one is refused, and so is a run that does
 * not follow on from the count its process saw. */
static void group_starts_are_checked_and_stored_at_once(void **state)
{
    tmp *t = *state;
    tc_store *s = open_ok(t->db, TC_STORE_WRITE);
    char err[512] = "";
    tc_run_info a = sample_run("g"), b = sample_run("g");
    snprintf(a.group, sizeof a.group, "g");
    snprintf(b.group, sizeof b.group, "g");
    assert_int_equal(tc_store_run_begin_group(s, &a, 0, err, sizeof err), TC_OK);
    assert_int_equal(tc_store_run_begin_group(s, &b, 0, err, sizeof err), TC_ERR_INVALID);
    assert_non_null(strstr(err, "group 'g' already has 1 run(s)"));
    assert_int_equal(tc_store_run_begin_group(s, &b, 1, err, sizeof err), TC_OK);
    tc_run_info *runs;
    size_t n;
    assert_int_equal(tc_store_find_group(s, "g", &runs, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 2);
    free(runs);
    /* nothing was left half done: a plain run still stores */
    tc_run_info c = sample_run("h");
    assert_int_equal(tc_store_run_begin(s, &c, err, sizeof err), TC_OK);
    tc_store_close(s);
}

static void run_status_transitions(void **state)
{
    tmp *t = *state;
    tc_store *s = open_ok(t->db, TC_STORE_WRITE);
    char err[512];
    static const char *const ends[] = {"complete", "failed", "interrupted"};
    static const tc_run_status end_status[] = {TC_RUN_COMPLETE, TC_RUN_FAILED, TC_RUN_INTERRUPTED};
    for (int i = 0; i < 3; i++) {
        int64_t id = begin_run(s, ends[i]);
        assert_string_equal(status_of(s, id), "running");
        assert_int_equal(tc_store_run_finish(s, id, TC_RUN_STATUS_COUNT, err, sizeof err),
                         TC_ERR_INVALID);
        assert_int_equal(tc_store_run_finish(s, id, TC_RUN_RUNNING, err, sizeof err),
                         TC_ERR_INVALID);
        assert_string_equal(status_of(s, id), "running");
        assert_int_equal(tc_store_run_finish(s, id, end_status[i], err, sizeof err), TC_OK);
        assert_string_equal(status_of(s, id), ends[i]);
        /* An ended run stays ended. */
        assert_int_equal(tc_store_run_finish(s, id, TC_RUN_COMPLETE, err, sizeof err),
                         TC_ERR_INVALID);
        assert_non_null(strstr(err, "already ended"));
        assert_string_equal(status_of(s, id), ends[i]);
    }
    assert_int_equal(tc_store_run_finish(s, 999, TC_RUN_COMPLETE, err, sizeof err),
                     TC_ERR_NOTFOUND);
    tc_store_close(s);
    /* The ended time is stored with the status. */
    int64_t v[1];
    query_ints(t->db,
               "SELECT count(*) FROM runs WHERE ended IS NOT NULL AND ended_wall_ns >= "
               "created_wall_ns AND ended LIKE '%Z'",
               v, 1);
    assert_int_equal(v[0], 3);
}

static void find_by_id_label_and_missing(void **state)
{
    tmp *t = *state;
    tc_store *s = open_ok(t->db, TC_STORE_WRITE);
    char err[512];
    int64_t a = begin_run(s, "base");
    int64_t b = begin_run(s, "base");
    int64_t c = begin_run(s, "other");
    tc_run_info info;
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)a);
    assert_int_equal(tc_store_find_run(s, text, &info, err, sizeof err), TC_OK);
    assert_int_equal(info.id, a);
    assert_int_equal(tc_store_find_run(s, "base", &info, err, sizeof err), TC_OK);
    assert_int_equal(info.id, b); /* the newest of that label */
    assert_int_equal(tc_store_find_run(s, "other", &info, err, sizeof err), TC_OK);
    assert_int_equal(info.id, c);
    assert_int_equal(tc_store_find_run(s, "Base", &info, err, sizeof err), TC_ERR_NOTFOUND);
    assert_non_null(strstr(err, "truecost runs"));
    assert_non_null(strstr(err, "label 'Base'"));
    assert_int_equal(tc_store_find_run(s, "42", &info, err, sizeof err), TC_ERR_NOTFOUND);
    assert_non_null(strstr(err, "id '42'"));
    assert_non_null(strstr(err, "truecost runs"));
    assert_int_equal(tc_store_find_run(s, "99999999999999999999999", &info, err, sizeof err),
                     TC_ERR_NOTFOUND);
    assert_int_equal(tc_store_find_run(s, "", &info, err, sizeof err), TC_ERR_INVALID);
    /* "1x" is a label, not id 1. */
    assert_int_equal(tc_store_find_run(s, "1x", &info, err, sizeof err), TC_ERR_NOTFOUND);
    tc_store_close(s);
}

/* Runs of `run --repeat` share a group; a v3 file (before groups) is
 * migrated and keeps its runs, in no group. */
static void groups_round_trip_and_v3_migration(void **state)
{
    tmp *t = *state;
    tc_store *s = open_ok(t->db, TC_STORE_WRITE);
    char err[512];
    int64_t solo = begin_run(s, "solo");
    int64_t ids[3];
    for (int i = 0; i < 3; i++) {
        tc_run_info r = sample_run("g1");
        snprintf(r.group, sizeof r.group, "g1");
        snprintf(r.prompt_set, sizeof r.prompt_set, "2 prompts, fnv1a 00ff");
        snprintf(r.slo, sizeof r.slo, "ttft=200ms,tpot=50ms");
        assert_int_equal(tc_store_run_begin(s, &r, err, sizeof err), TC_OK);
        ids[i] = r.id;
    }
    tc_run_info *runs = NULL;
    size_t n = 0;
    assert_int_equal(tc_store_find_group(s, "g1", &runs, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 3);
    for (int i = 0; i < 3; i++) { /* oldest first */
        assert_int_equal(runs[i].id, ids[i]);
        assert_string_equal(runs[i].group, "g1");
        assert_string_equal(runs[i].prompt_set, "2 prompts, fnv1a 00ff");
        assert_string_equal(runs[i].slo, "ttft=200ms,tpot=50ms");
    }
    free(runs);
    assert_int_equal(tc_store_find_group(s, "solo", &runs, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 0); /* a label is not a group */
    assert_null(runs);
    assert_int_equal(tc_store_find_group(s, "", &runs, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 0);
    tc_store_close(s);

    /* Back to what version 3 wrote, then open: the migration adds the
     * columns again and the runs are all there. */
    raw_sql(t->db, BACK_TO_V4 "DROP INDEX runs_by_group; ALTER TABLE runs DROP COLUMN run_group;"
                              "ALTER TABLE runs DROP COLUMN prompt_set; PRAGMA user_version = 3;");
    s = open_ok(t->db, TC_STORE_WRITE);
    tc_run_info info;
    assert_int_equal(tc_store_find_run(s, "solo", &info, err, sizeof err), TC_OK);
    assert_int_equal(info.id, solo);
    assert_string_equal(info.group, "");
    assert_string_equal(info.prompt_set, "");
    assert_string_equal(info.slo, ""); /* migrated: older runs had no SLO */
    assert_int_equal(tc_store_find_group(s, "g1", &runs, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 0); /* the old file had no groups */
    tc_store_close(s);
}

/* `truecost runs` and `show` open read-only, which never migrates: a v3
 * file must still list and find its runs, and stay byte for byte as it
 * was. */
/* A finished run's figures: one row per run, found by version; the list of
 * finished runs lacking them never names a running one. */
static void figures_kept_by_version(void **state)
{
    tmp *t = *state;
    tc_store *s = open_ok(t->db, TC_STORE_WRITE);
    char err[512] = "", *text = NULL;
    int64_t done = begin_run(s, "done"), live = begin_run(s, "live");
    assert_int_equal(tc_store_run_finish(s, done, TC_RUN_COMPLETE, err, sizeof err), TC_OK);
    int64_t *ids = NULL;
    size_t n = 0;
    assert_int_equal(tc_store_runs_without_figures(s, 1, &ids, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 1);
    assert_int_equal(ids[0], done);
    free(ids);
    assert_int_equal(tc_store_set_figures(s, done, 1, "{\"a\": 1}", err, sizeof err), TC_OK);
    assert_int_equal(tc_store_set_figures(s, done, 1, "{\"a\": 2}", err, sizeof err), TC_OK);
    assert_int_equal(tc_store_get_figures(s, done, 1, &text, err, sizeof err), TC_OK);
    assert_string_equal(text, "{\"a\": 2}"); /* replaced, not added */
    free(text);
    assert_int_equal(tc_store_get_figures(s, done, 2, &text, err, sizeof err), TC_OK);
    assert_null(text); /* another definition's figures are not these */
    assert_int_equal(tc_store_get_figures(s, live, 1, &text, err, sizeof err), TC_OK);
    assert_null(text);
    assert_int_equal(tc_store_runs_without_figures(s, 1, &ids, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 0);
    assert_int_equal(tc_store_runs_without_figures(s, 2, &ids, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 1);
    free(ids);
    tc_store_close(s);
}

static void v3_file_reads_without_migrating(void **state)
{
    tmp *t = *state;
    tc_store *s = open_ok(t->db, TC_STORE_WRITE);
    char err[512] = "";
    int64_t first = begin_run(s, "old-a");
    int64_t second = begin_run(s, "old-b");
    tc_store_close(s);
    raw_sql(t->db, BACK_TO_V4 "DROP INDEX runs_by_group; ALTER TABLE runs DROP COLUMN run_group;"
                              "ALTER TABLE runs DROP COLUMN prompt_set; PRAGMA user_version = 3;");
    size_t len;
    unsigned char *before = slurp(t->db, &len);

    s = open_ok(t->db, TC_STORE_READ);
    tc_run_info *runs = NULL;
    size_t n = 0;
    tc_err e = tc_store_list_runs(s, &runs, &n, err, sizeof err);
    if (e != TC_OK)
        fail_msg("list_runs on a v3 file: %s", err);
    assert_int_equal(n, 2);
    assert_int_equal(runs[0].id, second); /* newest first */
    assert_int_equal(runs[1].id, first);
    assert_string_equal(runs[1].label, "old-a");
    assert_string_equal(runs[1].model, "qwen2.5:7b");
    assert_int_equal(runs[1].max_tokens, 256);
    assert_string_equal(runs[1].group, "");
    assert_string_equal(runs[1].prompt_set, "");
    free(runs);
    /* twice: the cached statements are the v3 ones too */
    assert_int_equal(tc_store_list_runs(s, &runs, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 2);
    free(runs);

    tc_run_info info;
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)first);
    e = tc_store_find_run(s, id, &info, err, sizeof err);
    if (e != TC_OK)
        fail_msg("find_run by id on a v3 file: %s", err);
    assert_string_equal(info.label, "old-a");
    assert_string_equal(info.group, "");
    e = tc_store_find_run(s, "old-b", &info, err, sizeof err);
    if (e != TC_OK)
        fail_msg("find_run by label on a v3 file: %s", err);
    assert_int_equal(info.id, second);
    assert_int_equal(tc_store_find_run(s, "nope", &info, err, sizeof err), TC_ERR_NOTFOUND);
    assert_int_equal(tc_store_find_group(s, "g1", &runs, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 0); /* a v3 file has no groups */
    /* Nor stored figures: none found, none wanted, nothing created. */
    char *fig = (char *)"x";
    assert_int_equal(tc_store_get_figures(s, first, 1, &fig, err, sizeof err), TC_OK);
    assert_null(fig);
    int64_t *missing = NULL;
    assert_int_equal(tc_store_runs_without_figures(s, 1, &missing, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 0);
    assert_int_equal(tc_store_set_figures(s, first, 1, "{}", err, sizeof err), TC_ERR_INVALID);
    assert_non_null(strstr(err, "read-only"));
    tc_store_close(s);

    assert_unchanged(t->db, before, len);
    free(before);
    sqlite3 *db;
    int version = -1;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open_v2(t->db, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    version = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    assert_int_equal(version, 3); /* not migrated */
}

/* ---- requests ---- */

/* Five records that between them set every field to something other
 * than its zero, and some to their extremes. */
static void varied_records(tc_req_record r[5])
{
    make_record(&r[0], 0, 3);
    r[0].warmup = 1;
    r[0].prompt_tokens = 17;
    r[0].prompt_source = TC_TOKENS_USAGE;
    r[0].output_source = TC_TOKENS_USAGE;
    r[0].server = (tc_server_report){.has_ollama = 1,
                                     .total_ns = 9000000001LL,
                                     .load_ns = 2,
                                     .prompt_eval_ns = 3,
                                     .eval_ns = 4,
                                     .prompt_eval_count = 5,
                                     .eval_count = 6};

    make_record(&r[1], 1, 0); /* failed before any chunk */
    r[1].http_status = 503;
    r[1].error = TC_REQ_HTTP;
    snprintf(r[1].error_detail, sizeof r[1].error_detail,
             "HTTP 503: '%s' \xff not UTF-8 \"quoted\"", "busy");
    r[1].output_source = TC_TOKENS_NONE;

    make_record(&r[2], 2, 100000); /* a long generation, sent 5 ms after its schedule */
    r[2].sched_ns = r[2].send_ns - 5000000;
    r[2].server = (tc_server_report){.has_timings = 1,
                                     .prompt_n = 12,
                                     .predicted_n = 100000,
                                     .prompt_ms = 1.5,
                                     .predicted_ms = 0.1 + 0.2,
                                     .predicted_per_second = NAN};
    r[2].output_source = TC_TOKENS_SERVER;

    make_record(&r[3], 3, 4); /* gaps of every size, one of them zero */
    r[3].chunk_ns[1] = r[3].chunk_ns[0];
    r[3].chunk_ns[2] = r[3].chunk_ns[1] + (1LL << 35);
    r[3].chunk_ns[3] = INT64_MAX;
    r[3].end_ns = INT64_MAX;
    r[3].error = TC_REQ_DISCONNECT;
    r[3].server = (tc_server_report){.has_ollama = 1,
                                     .has_timings = 1,
                                     .eval_count = -1,
                                     .predicted_per_second = INFINITY,
                                     .prompt_ms = -0.0};

    make_record(&r[4], 4, 1);
    r[4].send_ns = 0;
    r[4].send_wall_ns = INT64_MIN;
    r[4].chunk_ns[0] = 0;
    r[4].http_status = 0;
    r[4].error = TC_REQ_SERVER;
    /* A detail that fills its array with no NUL: stored cut, not overrun. */
    memset(r[4].error_detail, 'e', sizeof r[4].error_detail);
}

static void requests_round_trip_every_field(void **state)
{
    tmp *t = *state;
    tc_store *s = open_ok(t->db, TC_STORE_WRITE);
    char err[512];
    int64_t run = begin_run(s, "rt");
    int64_t empty_run = begin_run(s, "empty");
    tc_req_record in[5];
    varied_records(in);
    /* Two batches, second one first: load orders by seq. */
    assert_int_equal(tc_store_add_requests(s, run, in + 3, 2, err, sizeof err), TC_OK);
    assert_int_equal(tc_store_add_requests(s, run, in, 3, err, sizeof err), TC_OK);
    assert_int_equal(tc_store_add_requests(s, run, in, 0, err, sizeof err), TC_OK);
    tc_store_close(s);

    s = open_ok(t->db, TC_STORE_READ);
    tc_req_record *out = NULL;
    size_t n = 0;
    assert_int_equal(tc_store_load_requests(s, run, &out, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 5);
    /* What a full detail array comes back as: cut to fit with its NUL. */
    memset(in[4].error_detail, 'e', sizeof in[4].error_detail - 1);
    in[4].error_detail[sizeof in[4].error_detail - 1] = '\0';
    for (size_t i = 0; i < n; i++)
        assert_record_equal(&out[i], &in[i]);
    assert_true(signbit(out[3].server.prompt_ms) || out[3].server.prompt_ms == 0.0);
    assert_null(out[1].chunk_ns);
    tc_store_free_requests(out, n);

    assert_int_equal(tc_store_load_requests(s, empty_run, &out, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 0);
    assert_null(out);
    assert_int_equal(tc_store_load_requests(s, 12345, &out, &n, err, sizeof err), TC_ERR_NOTFOUND);
    assert_non_null(strstr(err, "12345"));
    tc_store_free_requests(NULL, 0);
    tc_store_close(s);
    free_records(in, 5);
}

/* An open loop's shape comes back as stored; a closed loop reads as one;
 * a request sent on time stores no intended time (NULL), a late one does. */
static void load_shape_round_trips(void **state)
{
    tmp *t = *state;
    tc_store *s = open_ok(t->db, TC_STORE_WRITE);
    char err[512];
    int64_t closed = begin_run(s, "closed");
    tc_run_info open = sample_run("open");
    open.arrival = TC_ARRIVAL_GAMMA;
    open.rate = 12.5;
    open.burstiness = 0.25;
    open.seed = (uint64_t)INT64_MAX;
    open.max_concurrency = 3;
    assert_int_equal(tc_store_run_begin(s, &open, err, sizeof err), TC_OK);
    tc_req_record r[2];
    make_record(&r[0], 0, 2); /* on time: sched_ns 0 */
    make_record(&r[1], 1, 2);
    r[1].sched_ns = r[1].send_ns - 2500000;
    r[1].retried = 1; /* its first attempt died on a stale connection */
    assert_int_equal(tc_store_add_requests(s, open.id, r, 2, err, sizeof err), TC_OK);
    tc_run_info bad = sample_run("bad");
    bad.arrival = TC_ARRIVAL_COUNT;
    assert_int_equal(tc_store_run_begin(s, &bad, err, sizeof err), TC_ERR_INVALID);
    tc_store_close(s);

    s = open_ok(t->db, TC_STORE_READ);
    tc_run_info info;
    assert_int_equal(tc_store_find_run(s, "open", &info, err, sizeof err), TC_OK);
    assert_int_equal(info.arrival, TC_ARRIVAL_GAMMA);
    assert_true(info.rate == 12.5 && info.burstiness == 0.25);
    assert_true(info.seed == (uint64_t)INT64_MAX);
    assert_int_equal(info.max_concurrency, 3);
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)closed);
    assert_int_equal(tc_store_find_run(s, id, &info, err, sizeof err), TC_OK);
    assert_int_equal(info.arrival, TC_ARRIVAL_CLOSED);
    assert_true(info.rate == 0 && info.max_concurrency == 0 && info.seed == 0);
    tc_req_record *out = NULL;
    size_t n = 0;
    assert_int_equal(tc_store_load_requests(s, open.id, &out, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 2);
    assert_int_equal(out[0].sched_ns, out[0].send_ns);
    assert_int_equal(out[1].sched_ns, r[1].send_ns - 2500000);
    assert_int_equal(tc_req_ttft_ns(&out[1]), 20000000 + 2500000);
    assert_int_equal(out[0].retried, 0);
    assert_int_equal(out[1].retried, 1);
    tc_store_free_requests(out, n);
    tc_store_close(s);

    int64_t v[2];
    query_ints(t->db, "SELECT sched_ns IS NULL FROM requests ORDER BY seq", v, 2);
    assert_int_equal(v[0], 1);
    assert_int_equal(v[1], 0);
    free_records(r, 2);
}

/* A file from before the load shape: read-only it reads as closed loops
 * sent on time, untouched; opened for writing it migrates and reads the
 * same. */
static void v4_file_reads_as_closed_loops(void **state)
{
    tmp *t = *state;
    tc_store *s = open_ok(t->db, TC_STORE_WRITE);
    char err[512];
    int64_t run = begin_run(s, "old");
    tc_req_record r;
    make_record(&r, 0, 3);
    assert_int_equal(tc_store_add_requests(s, run, &r, 1, err, sizeof err), TC_OK);
    tc_store_close(s);
    raw_sql(t->db, BACK_TO_V4);
    size_t len;
    unsigned char *before = slurp(t->db, &len);
    for (int pass = 0; pass < 2; pass++) {
        s = open_ok(t->db, pass ? TC_STORE_WRITE : TC_STORE_READ);
        tc_run_info info;
        assert_int_equal(tc_store_find_run(s, "old", &info, err, sizeof err), TC_OK);
        assert_int_equal(info.arrival, TC_ARRIVAL_CLOSED);
        assert_true(info.rate == 0);
        tc_req_record *out = NULL;
        size_t n = 0;
        if (tc_store_load_requests(s, run, &out, &n, err, sizeof err) != TC_OK)
            fail_msg("load_requests on a v4 file: %s", err);
        assert_int_equal(n, 1);
        assert_int_equal(out[0].sched_ns, r.send_ns);
        tc_store_free_requests(out, n);
        tc_store_close(s);
        if (pass == 0)
            assert_unchanged(t->db, before, len);
    }
    free(before);
    tc_req_record_clear(&r);
}

static void chunks_are_stored_compactly(void **state)
{
    tmp *t = *state;
    tc_store *s = open_ok(t->db, TC_STORE_WRITE);
    char err[512];
    int64_t run = begin_run(s, "size");
    tc_req_record r;
    make_record(&r, 0, 1000); /* 20 ms, then 1 ms gaps: 4 bytes and 3 bytes */
    assert_int_equal(tc_store_add_requests(s, run, &r, 1, err, sizeof err), TC_OK);
    tc_store_close(s);
    int64_t v[1];
    query_ints(t->db, "SELECT length(chunks) FROM requests", v, 1);
    assert_int_equal(v[0], 4 + 999 * 3);
    query_ints(t->db, "SELECT n_chunks FROM requests", v, 1);
    assert_int_equal(v[0], 1000);
    tc_req_record_clear(&r);
}

static size_t count_requests(tc_store *s, int64_t run)
{
    char err[512];
    tc_req_record *recs;
    size_t n;
    assert_int_equal(tc_store_load_requests(s, run, &recs, &n, err, sizeof err), TC_OK);
    tc_store_free_requests(recs, n);
    return n;
}

static void failed_batch_rolls_back_entirely(void **state)
{
    tmp *t = *state;
    tc_store *s = open_ok(t->db, TC_STORE_WRITE);
    tc_store *reader = open_ok(t->db, TC_STORE_READ);
    char err[512];
    int64_t run = begin_run(s, "batches");
    tc_req_record r[6];
    for (int i = 0; i < 6; i++)
        make_record(&r[i], i, 2);
    assert_int_equal(tc_store_add_requests(s, run, r, 3, err, sizeof err), TC_OK);
    /* Written as it goes: another connection sees the batch at once. */
    assert_int_equal(count_requests(reader, run), 3);

    /* 3 and 4 are new, then 1 again: none of the three is kept. */
    r[5].seq = 1;
    assert_int_equal(tc_store_add_requests(s, run, r + 3, 3, err, sizeof err), TC_ERR_INVALID);
    assert_non_null(strstr(err, "seq 1"));
    assert_int_equal(count_requests(reader, run), 3);

    /* A chunk time going backwards halfway through the batch. */
    r[5].seq = 5;
    r[4].chunk_ns[1] = r[4].chunk_ns[0] - 1;
    assert_int_equal(tc_store_add_requests(s, run, r + 3, 3, err, sizeof err), TC_ERR_INVALID);
    assert_non_null(strstr(err, "request 4"));
    assert_int_equal(count_requests(reader, run), 3);
    r[4].chunk_ns[1] = r[4].chunk_ns[0] + 1;

    /* An out-of-range enum is refused, not stored as "?". */
    r[4].error = TC_REQ_ERROR_COUNT;
    assert_int_equal(tc_store_add_requests(s, run, r + 3, 3, err, sizeof err), TC_ERR_INVALID);
    r[4].error = TC_REQ_OK;

    /* Requests of a run that does not exist. */
    assert_int_equal(tc_store_add_requests(s, run + 100, r + 3, 3, err, sizeof err),
                     TC_ERR_NOTFOUND);

    /* After all that the store is still usable, not stuck in a transaction. */
    assert_int_equal(tc_store_add_requests(s, run, r + 3, 3, err, sizeof err), TC_OK);
    assert_int_equal(count_requests(reader, run), 6);
    tc_store_close(reader);
    tc_store_close(s);
    free_records(r, 6);
}

/* Not a check: prints how long 10,000 records of 128 chunks take to
 * store in batches of 64, the shape of a busy run. */
static void insert_speed(void **state)
{
    tmp *t = *state;
    enum { TOTAL = 10000, BATCH = 64, CHUNKS = 128 };
    tc_store *s = open_ok(t->db, TC_STORE_WRITE);
    char err[512];
    int64_t run = begin_run(s, "speed");
    tc_req_record *r = calloc(BATCH, sizeof *r);
    assert_non_null(r);
    for (int i = 0; i < BATCH; i++)
        make_record(&r[i], i, CHUNKS);
    int64_t t0 = tc_mono_ns();
    for (int done = 0; done < TOTAL; done += BATCH) {
        int n = TOTAL - done < BATCH ? TOTAL - done : BATCH;
        for (int i = 0; i < n; i++)
            r[i].seq = done + i;
        if (tc_store_add_requests(s, run, r, (size_t)n, err, sizeof err) != TC_OK)
            fail_msg("%s", err);
    }
    int64_t ns = tc_mono_ns() - t0;
    tc_store_close(s);
    struct stat st = {0};
    assert_true(t->pg_name[0] || stat(t->db, &st) == 0);
    printf("store%s: %d records x %d chunks in batches of %d: %.1f ms (%.1f us/record), "
           "file %.1f MB\n",
           t->pg_name[0] ? " (PostgreSQL)" : "", TOTAL, CHUNKS, BATCH, ns / 1e6, ns / 1e3 / TOTAL,
           st.st_size / 1e6);
    s = open_ok(t->db, TC_STORE_READ);
    int64_t t1 = tc_mono_ns();
    assert_int_equal(count_requests(s, run), TOTAL);
    printf("store: loading them back: %.1f ms\n", (tc_mono_ns() - t1) / 1e6);
    tc_store_close(s);
    free_records(r, BATCH);
    free(r);
}

/* ---- import ---- */

/* A source store with two finished runs (one in a group, with telemetry,
 * fingerprint, workload and figures) and one still running. */
static void fill_source(const char *path, tc_req_record rec[5])
{
    tc_store *s = open_ok(path, TC_STORE_WRITE);
    char err[512];
    tc_run_info a = sample_run("alpha");
    snprintf(a.group, sizeof a.group, "g");
    assert_int_equal(tc_store_run_begin(s, &a, err, sizeof err), TC_OK);
    varied_records(rec);
    for (int i = 0; i < 5; i++) /* one fills its detail to the brim: compare as stored */
        rec[i].error_detail[sizeof rec[i].error_detail - 1] = '\0';
    assert_int_equal(tc_store_add_requests(s, a.id, rec, 5, err, sizeof err), TC_OK);
    tc_run_device dev = {.info = {.kind = TC_TELEM_GPU, .name = "G0"}, .backend = "nvml"};
    tc_run_sample smp[2] = {{0, {.mono_ns = 10, .valid = TC_TF_POWER, .power_mw = 250000}},
                            {0, {.mono_ns = 20, .valid = TC_TF_POWER, .power_mw = 260000}}};
    assert_int_equal(tc_store_add_devices(s, a.id, &dev, 1, err, sizeof err), TC_OK);
    assert_int_equal(tc_store_add_samples(s, a.id, smp, 2, err, sizeof err), TC_OK);
    assert_int_equal(tc_store_set_fingerprint(s, a.id, "{\"os\":1}", err, sizeof err), TC_OK);
    tc_run_workload w = {.seed = 7, .isl_min = 10, .isl = 20, .osl = 30, .tokens_per_word = 1.3};
    snprintf(w.calibration, sizeof w.calibration, "c");
    assert_int_equal(tc_store_set_workload(s, a.id, &w, err, sizeof err), TC_OK);
    assert_int_equal(tc_store_set_figures(s, a.id, 3, "{\"f\":3}", err, sizeof err), TC_OK);
    assert_int_equal(tc_store_run_finish(s, a.id, TC_RUN_COMPLETE, err, sizeof err), TC_OK);
    int64_t b = begin_run(s, "beta");
    assert_int_equal(tc_store_run_finish(s, b, TC_RUN_INTERRUPTED, err, sizeof err), TC_OK);
    (void)begin_run(s, "still-running");
    tc_store_close(s);
}

/* Imports src into dst and checks the counts. */
static void import_ok(const char *dst_path, const char *src_path, size_t copied, size_t present)
{
    char err[1024] = "";
    tc_store *dst = open_ok(dst_path, TC_STORE_WRITE), *src = open_ok(src_path, TC_STORE_READ);
    tc_store_import_stats st;
    if (tc_store_import(dst, src, &st, err, sizeof err) != TC_OK)
        fail_msg("import: %s", err);
    assert_int_equal(st.seen, 3);
    assert_int_equal(st.running, 1);
    assert_int_equal(st.copied, copied);
    assert_int_equal(st.present, present);
    tc_store_close(src);
    tc_store_close(dst);
}

/* What fill_source stored, found again in dst under new ids. */
static void assert_imported(const char *path, const tc_req_record rec[5])
{
    char err[512];
    tc_store *s = open_ok(path, TC_STORE_READ);
    tc_run_info a, b;
    assert_int_equal(tc_store_find_run(s, "alpha", &a, err, sizeof err), TC_OK);
    assert_int_equal(tc_store_find_run(s, "beta", &b, err, sizeof err), TC_OK);
    assert_int_equal(tc_store_find_run(s, "still-running", &b, err, sizeof err), TC_ERR_NOTFOUND);
    assert_int_equal(tc_store_find_run(s, "beta", &b, err, sizeof err), TC_OK);
    assert_int_equal(a.status, TC_RUN_COMPLETE);
    assert_int_equal(b.status, TC_RUN_INTERRUPTED);
    assert_true(b.id > a.id); /* in the source's order */
    assert_string_equal(a.group, "g");
    assert_int_equal(a.created_wall_ns, 1795966314123456789LL);
    tc_req_record *out = NULL;
    size_t n = 0;
    assert_int_equal(tc_store_load_requests(s, a.id, &out, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 5);
    for (size_t i = 0; i < n; i++)
        assert_record_equal(&out[i], &rec[i]);
    tc_store_free_requests(out, n);
    tc_run_device *d;
    tc_run_sample *smp;
    int nd;
    size_t ns;
    assert_int_equal(tc_store_load_telemetry(s, a.id, &d, &nd, &smp, &ns, err, sizeof err), TC_OK);
    assert_int_equal(nd, 1);
    assert_int_equal(ns, 2);
    assert_int_equal(smp[1].s.power_mw, 260000);
    free(d);
    free(smp);
    char *json = NULL;
    assert_int_equal(tc_store_get_fingerprint(s, a.id, &json, err, sizeof err), TC_OK);
    assert_string_equal(json, "{\"os\":1}");
    free(json);
    assert_int_equal(tc_store_get_figures(s, a.id, 3, &json, err, sizeof err), TC_OK);
    assert_string_equal(json, "{\"f\":3}");
    free(json);
    tc_run_workload w;
    int found = 0;
    assert_int_equal(tc_store_get_workload(s, a.id, &w, &found, err, sizeof err), TC_OK);
    assert_int_equal(found, 1);
    assert_int_equal(w.osl, 30);
    tc_store_close(s);
}

/* Runs from another store land under new ids beside the target's own,
 * with everything they had; a second import adds nothing. The target is
 * t->db (SQLite, or PostgreSQL in the PG variant, which also imports
 * back from PostgreSQL into a new SQLite file). */
static void import_copies_each_run_once(void **state)
{
    tmp *t = *state;
    char src[128], back[128];
    snprintf(src, sizeof src, "%s/src.db", t->dir);
    snprintf(back, sizeof back, "%s/back.db", t->dir);
    tc_req_record rec[5];
    fill_source(src, rec);
    tc_store *s = open_ok(t->db, TC_STORE_WRITE);
    (void)begin_run(s, "own"); /* takes id 1, which the source's first run has too */
    tc_store_close(s);

    { /* stopped before the first run (Ctrl-C): nothing copied, said so */
        char err[512];
        tc_store *dst = open_ok(t->db, TC_STORE_WRITE), *from = open_ok(src, TC_STORE_READ);
        volatile sig_atomic_t stop = 1;
        tc_store_import_stats st;
        assert_int_equal(tc_store_import_until(dst, from, &stop, &st, err, sizeof err), TC_OK);
        assert_true(st.interrupted);
        assert_int_equal(st.copied, 0);
        tc_store_close(from);
        tc_store_close(dst);
    }
    import_ok(t->db, src, 2, 0);
    assert_imported(t->db, rec);
    import_ok(t->db, src, 0, 2); /* the same file again: nothing added */
    s = open_ok(t->db, TC_STORE_READ);
    tc_run_info *runs;
    size_t n;
    char err[512];
    assert_int_equal(tc_store_list_runs(s, &runs, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 3);
    free(runs);
    tc_store_close(s);
    if (t->pg_name[0]) { /* and out of PostgreSQL again */
        tc_store *b = open_ok(back, TC_STORE_WRITE);
        tc_store_close(b);
        char err2[1024];
        tc_store *dst = open_ok(back, TC_STORE_WRITE), *from = open_ok(t->db, TC_STORE_READ);
        tc_store_import_stats st;
        if (tc_store_import(dst, from, &st, err2, sizeof err2) != TC_OK)
            fail_msg("import back: %s", err2);
        assert_int_equal(st.copied, 2);
        tc_store_close(from);
        tc_store_close(dst);
        assert_imported(back, rec);
    }
    free_records(rec, 5);
}

/* A run of more requests than one import batch (512) comes over whole,
 * in order, chunk times and all. */
static void import_crosses_batches(void **state)
{
    tmp *t = *state;
    char src[128], err[1024];
    snprintf(src, sizeof src, "%s/big.db", t->dir);
    enum { N = 1300 };
    tc_store *s = open_ok(src, TC_STORE_WRITE);
    int64_t run = begin_run(s, "big");
    tc_req_record *r = calloc(N, sizeof *r);
    assert_non_null(r);
    for (int i = 0; i < N; i++)
        make_record(&r[i], i, (size_t)(i % 7));
    assert_int_equal(tc_store_add_requests(s, run, r, N, err, sizeof err), TC_OK);
    assert_int_equal(tc_store_run_finish(s, run, TC_RUN_COMPLETE, err, sizeof err), TC_OK);
    tc_store_close(s);
    tc_store *dst = open_ok(t->db, TC_STORE_WRITE), *from = open_ok(src, TC_STORE_READ);
    tc_store_import_stats st;
    if (tc_store_import(dst, from, &st, err, sizeof err) != TC_OK)
        fail_msg("import: %s", err);
    assert_int_equal(st.requests, N);
    tc_store_close(from);
    tc_run_info info;
    assert_int_equal(tc_store_find_run(dst, "big", &info, err, sizeof err), TC_OK);
    tc_req_record *out = NULL;
    size_t n = 0;
    assert_int_equal(tc_store_load_requests(dst, info.id, &out, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, N);
    for (size_t i = 0; i < n; i++)
        assert_record_equal(&out[i], &r[i]);
    tc_store_free_requests(out, n);
    tc_store_close(dst);
    free_records(r, N);
    free(r);
}

static tc_err stop_at_second(void *ctx, const tc_req_record *r)
{
    (void)r;
    return ++*(int *)ctx == 2 ? TC_ERR_INVALID : TC_OK;
}

/* A reader that stops early (its callback fails) leaves the store usable:
 * on PostgreSQL the rows are streamed, and the rest must be read off the
 * connection before the next statement. */
static void each_request_stops_cleanly(void **state)
{
    tmp *t = *state;
    tc_store *s = open_ok(t->db, TC_STORE_WRITE);
    char err[512];
    int64_t run = begin_run(s, "stream");
    tc_req_record r[5];
    varied_records(r);
    assert_int_equal(tc_store_add_requests(s, run, r, 5, err, sizeof err), TC_OK);
    int seen = 0;
    assert_int_equal(tc_store_each_request(s, run, 0, stop_at_second, &seen, err, sizeof err),
                     TC_ERR_INVALID);
    assert_int_equal(seen, 2);
    assert_int_equal(count_requests(s, run), 5);
    seen = -100; /* all of them this time */
    assert_int_equal(tc_store_each_request(s, run, 1, stop_at_second, &seen, err, sizeof err),
                     TC_OK);
    assert_int_equal(seen, -95);
    assert_int_equal(tc_store_run_finish(s, run, TC_RUN_COMPLETE, err, sizeof err), TC_OK);
    tc_store_close(s);
    free_records(r, 5);
}

/* Every message shows a PostgreSQL URL through tc_store_redact. */
static void urls_are_redacted(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"postgresql://alice:s3cret@db.example:5432/tc",
         "postgresql://alice:***@db.example:5432/tc"},
        {"postgres://al:ice:p@ss@h/db?sslmode=require", "postgres://al:***@h/db?sslmode=require"},
        {"postgresql://bob@h/db?password=s3cret&sslmode=require",
         "postgresql://bob@h/db?password=***&sslmode=require"},
        {"postgresql:///db?host=/tmp&password=x", "postgresql:///db?host=/tmp&password=***"},
        {"postgresql://h/db", "postgresql://h/db"},
        {"/home/a/user:pw@x.db", "/home/a/user:pw@x.db"}, /* a file name is not a URL */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[256];
        tc_store_redact(cases[i][0], out, sizeof out);
        assert_string_equal(out, cases[i][1]);
        assert_int_equal(tc_store_is_url(cases[i][0]), i < 5);
    }
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
#define PG(f)                                                                                      \
    {                                                                                              \
#f " (PostgreSQL)", pg_test, setup_pg, teardown, &(pg_case)                                \
        {                                                                                          \
            f                                                                                      \
        }                                                                                          \
    }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(varint_edges),
        cmocka_unit_test(chunks_round_trip_and_gaps),
        cmocka_unit_test(chunks_refuse_bad_input),
        cmocka_unit_test(default_path_resolution),
        cmocka_unit_test(urls_are_redacted),
        T(write_creates_private_parent_dirs),
        T(read_missing_creates_nothing),
        T(foreign_sqlite_refused_unchanged),
        T(garbage_file_refused_unchanged),
        T(newer_schema_refused),
        T(locked_database_is_reported),
        T(read_only_file_and_dir_refused),
        cmocka_unit_test(unusable_file_messages),
        T(unreadable_file_refused),
        T(first_opens_race_cleanly),
        T(runs_round_trip_newest_first),
        T(run_status_transitions),
        T(run_status_names_round_trip),
        T(group_starts_are_checked_and_stored_at_once),
        T(find_by_id_label_and_missing),
        T(groups_round_trip_and_v3_migration),
        T(v3_file_reads_without_migrating),
        T(figures_kept_by_version),
        T(requests_round_trip_every_field),
        T(load_shape_round_trips),
        T(v4_file_reads_as_closed_loops),
        T(chunks_are_stored_compactly),
        T(failed_batch_rolls_back_entirely),
        T(insert_speed),
        T(import_copies_each_run_once),
        T(each_request_stops_cleanly),
        T(import_crosses_batches),
        PG(import_crosses_batches),
        PG(each_request_stops_cleanly),
        PG(import_copies_each_run_once),
        PG(runs_round_trip_newest_first),
        PG(run_status_transitions),
        PG(run_status_names_round_trip),
        PG(group_starts_are_checked_and_stored_at_once),
        PG(find_by_id_label_and_missing),
        PG(figures_kept_by_version),
        PG(requests_round_trip_every_field),
        PG(load_shape_round_trips),
        PG(chunks_are_stored_compactly),
        PG(failed_batch_rolls_back_entirely),
        PG(insert_speed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
