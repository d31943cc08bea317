/* The PostgreSQL store's own schema rules (schemas 13 and 15): requests
 * keep no per-row FOREIGN KEY there; each batch locks its run instead (an
 * update of the run), and a trigger deletes a deleted run's requests. Every test runs on a new
 * database on the server at $TC_TEST_PG_URL (scripts/pg-test.sh starts
 * one) and is skipped without it, unless TC_REQUIRE_PG says it must run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/store.h"
#include "store/store_internal.h"
#include "pg_fixture.h"
#include "test_run.h"

typedef struct {
    char url[1024];
    char name[64];
} pg_db;

static int setup(void **state)
{
    pg_db *d = calloc(1, sizeof *d);
    assert_non_null(d);
    *state = d;
    if (getenv("TC_TEST_PG_URL") && getenv("TC_TEST_PG_URL")[0])
        pg_new_db(d->url, sizeof d->url, d->name, sizeof d->name);
    return 0;
}

static int teardown(void **state)
{
    pg_db *d = *state;
    if (d->name[0])
        pg_drop_db(d->name);
    free(d);
    return 0;
}

/* Skips the test when no server is given (and TC_REQUIRE_PG allows it). */
static pg_db *need_pg(void **state)
{
    pg_db *d = *state;
    if (!d->name[0] && !pg_available()) {
        print_message("TC_TEST_PG_URL is not set: skipped (scripts/pg-test.sh sets it)\n");
        skip();
    }
    return d;
}

static PGconn *connect_raw(const pg_db *d)
{
    PGconn *c = PQconnectdb(d->url);
    if (PQstatus(c) != CONNECTION_OK)
        fail_msg("%s", PQerrorMessage(c));
    return c;
}

/* One statement on a connection of the test's own. */
static void sql_ok(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    ExecStatusType st = PQresultStatus(r);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQresultErrorMessage(r));
    PQclear(r);
}

/* The integer in the first column of the first row of sql. */
static long long sql_int(PGconn *c, const char *sql)
{
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) != 1)
        fail_msg("%s: %s", sql, PQresultErrorMessage(r));
    long long v = atoll(PQgetvalue(r, 0, 0));
    PQclear(r);
    return v;
}

static long long requests_of(PGconn *c, int64_t run)
{
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM requests WHERE run_id = %lld", (long long)run);
    return sql_int(c, sql);
}

static tc_store *open_write(const pg_db *d)
{
    char err[512] = "";
    tc_store *s = NULL;
    if (tc_store_open(d->url, TC_STORE_WRITE, &s, err, sizeof err) != TC_OK)
        fail_msg("open %s: %s", d->url, err);
    return s;
}

static int64_t begin_run(tc_store *s)
{
    tc_run_info r;
    test_run_info(&r);
    return test_begin_run(s, &r);
}

/* n records from seq 0, each with two chunk times. */
static tc_req_record *records(size_t n)
{
    tc_req_record *r = calloc(n, sizeof *r);
    assert_non_null(r);
    for (size_t i = 0; i < n; i++) {
        tc_req_record_init(&r[i]);
        r[i].seq = (int64_t)i;
        r[i].send_ns = 1000000000LL + (int64_t)i * 1000;
        assert_int_equal(tc_req_record_add_chunk(&r[i], r[i].send_ns + 20000000), 0);
        assert_int_equal(tc_req_record_add_chunk(&r[i], r[i].send_ns + 21000000), 0);
        r[i].end_ns = r[i].chunk_ns[1] + 5;
        r[i].http_status = 200;
        r[i].output_tokens = 2;
        r[i].output_source = TC_TOKENS_CHUNKS;
    }
    return r;
}

/* Deleting a run (by hand, in SQL) deletes its requests, as ON DELETE
 * CASCADE did, and leaves other runs' alone; truncating runs empties
 * them. */
static void deleting_a_run_deletes_its_requests(void **state)
{
    pg_db *d = need_pg(state);
    tc_store *s = open_write(d);
    char err[512];
    int64_t gone = begin_run(s), kept = begin_run(s);
    tc_req_record *r = records(4);
    assert_int_equal(tc_store_add_requests(s, gone, r, 4, err, sizeof err), TC_OK);
    assert_int_equal(tc_store_add_requests(s, kept, r, 3, err, sizeof err), TC_OK);
    PGconn *c = connect_raw(d);
    assert_int_equal(requests_of(c, gone), 4);
    char sql[64];
    snprintf(sql, sizeof sql, "DELETE FROM runs WHERE id = %lld", (long long)gone);
    sql_ok(c, sql);
    assert_int_equal(requests_of(c, gone), 0);
    assert_int_equal(requests_of(c, kept), 3);
    /* Whatever the deleting session's search_path: the trigger names the
     * table in its own schema. */
    snprintf(sql, sizeof sql, "DELETE FROM public.runs WHERE id = %lld", (long long)kept);
    sql_ok(c, "SET search_path = pg_catalog");
    sql_ok(c, sql);
    sql_ok(c, "RESET search_path");
    assert_int_equal(requests_of(c, kept), 0);
    /* TRUNCATE runs CASCADE (the other tables' keys ask for it) empties
     * the requests too. */
    int64_t again = begin_run(s);
    assert_int_equal(tc_store_add_requests(s, again, r, 2, err, sizeof err), TC_OK);
    sql_ok(c, "TRUNCATE runs CASCADE");
    assert_int_equal(sql_int(c, "SELECT count(*) FROM requests"), 0);
    PQfinish(c);
    test_records_free(r, 4);
    tc_store_close(s);
}

/* A run that does not exist refuses a batch of any size, the first
 * request as well as a COPY's worth; nothing is stored. */
static void batch_for_a_missing_run_is_refused(void **state)
{
    pg_db *d = need_pg(state);
    tc_store *s = open_write(d);
    char err[512];
    int64_t run = begin_run(s);
    tc_req_record *r = records(3);
    const size_t sizes[] = {1, 3};
    for (size_t i = 0; i < 2; i++) {
        err[0] = '\0';
        assert_int_equal(tc_store_add_requests(s, run + 100, r, sizes[i], err, sizeof err),
                         TC_ERR_NOTFOUND);
        assert_non_null(strstr(err, "no run with id"));
    }
    PGconn *c = connect_raw(d);
    assert_int_equal(sql_int(c, "SELECT count(*) FROM requests"), 0);
    PQfinish(c);
    assert_int_equal(tc_store_add_requests(s, run, r, 3, err, sizeof err), TC_OK);
    test_records_free(r, 3);
    tc_store_close(s);
}

typedef struct {
    tc_store *s;
    int64_t run;
    tc_req_record *r;
    tc_err rc;
    char err[512];
} adder;

static void *add_batch(void *arg)
{
    adder *a = arg;
    a->rc = tc_store_add_requests(a->s, a->run, a->r, 3, a->err, sizeof a->err);
    return NULL;
}

/* A batch stored while another session deletes its run: the batch waits
 * on the run's lock, as the key's check did, and is refused once the
 * delete commits; no request is left without its run. (Without the lock
 * the COPY would land after the delete's trigger had run.) */
static void batch_during_a_delete_leaves_no_orphans(void **state)
{
    pg_db *d = need_pg(state);
    tc_store *s = open_write(d);
    int64_t run = begin_run(s);
    PGconn *c = connect_raw(d);
    char sql[64];
    snprintf(sql, sizeof sql, "DELETE FROM runs WHERE id = %lld", (long long)run);
    sql_ok(c, "BEGIN");
    sql_ok(c, sql);
    adder a = {.s = s, .run = run, .r = records(3)};
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, add_batch, &a), 0);
    /* Committed once the batch waits on the run's lock (seen in
     * pg_stat_activity): without the lock it would not wait, and land. */
    PGconn *watch = connect_raw(d);
    int waited = 0;
    for (int i = 0; i < 500 && !waited; i++) {
        waited = sql_int(watch, "SELECT count(*) FROM pg_stat_activity WHERE datname = "
                                "current_database() AND wait_event_type = 'Lock'") > 0;
        if (!waited)
            nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    }
    PQfinish(watch);
    sql_ok(c, "COMMIT");
    assert_true(waited);
    pthread_join(th, NULL);
    assert_int_equal(a.rc, TC_ERR_NOTFOUND);
    assert_int_equal(sql_int(c, "SELECT count(*) FROM requests"), 0);
    PQfinish(c);
    test_records_free(a.r, 3);
    tc_store_close(s);
}

/* A delete whose snapshot is older than a batch's commit (REPEATABLE
 * READ, as a server or a session may default to) cannot see the batch's
 * requests: it fails with a serialization error, as the key's check made
 * it, rather than deleting the run and leaving them behind. (With a lock
 * alone, FOR KEY SHARE, it deleted the run and left 3 orphans.) */
static void older_snapshot_delete_fails_rather_than_orphans(void **state)
{
    pg_db *d = need_pg(state);
    tc_store *s = open_write(d);
    char err[512];
    int64_t run = begin_run(s);
    tc_req_record *r = records(5);
    assert_int_equal(tc_store_add_requests(s, run, r, 2, err, sizeof err), TC_OK);
    PGconn *c = connect_raw(d);
    sql_ok(c, "BEGIN ISOLATION LEVEL REPEATABLE READ");
    assert_int_equal(requests_of(c, run), 2); /* the snapshot: two requests */
    assert_int_equal(tc_store_add_requests(s, run, r + 2, 3, err, sizeof err), TC_OK);
    char sql[64];
    snprintf(sql, sizeof sql, "DELETE FROM runs WHERE id = %lld", (long long)run);
    PGresult *res = PQexec(c, sql);
    const char *state_code = PQresultErrorField(res, PG_DIAG_SQLSTATE);
    assert_int_equal(PQresultStatus(res), PGRES_FATAL_ERROR);
    assert_string_equal(state_code ? state_code : "", "40001");
    PQclear(res);
    sql_ok(c, "ROLLBACK");
    assert_int_equal(requests_of(c, run), 5);
    sql_ok(c, sql); /* again, with a snapshot of now: all of it goes */
    assert_int_equal(sql_int(c, "SELECT count(*) FROM requests"), 0);
    PQfinish(c);
    test_records_free(r, 5);
    tc_store_close(s);
}

/* truecost's own sessions read committed whatever the database's
 * default, which the locks and triggers are written for. */
static void store_reads_committed_whatever_the_default(void **state)
{
    pg_db *d = need_pg(state);
    PGconn *c = connect_raw(d);
    char sql[160];
    snprintf(sql, sizeof sql,
             "ALTER DATABASE %s SET default_transaction_isolation = 'repeatable read'", d->name);
    sql_ok(c, sql);
    PQfinish(c);
    c = connect_raw(d);
    PGresult *res = PQexec(c, "SHOW transaction_isolation");
    assert_string_equal(PQgetvalue(res, 0, 0), "repeatable read"); /* the default took */
    PQclear(res);
    PQfinish(c);
    tc_store *s = open_write(d);
    tc_db_stmt *st = NULL;
    assert_int_equal(tc_db_prepare(s->db, "SHOW transaction_isolation", &st), TC_DB_OK);
    assert_int_equal(tc_db_step(st), TC_DB_ROW);
    assert_string_equal(tc_db_col_text(st, 0), "read committed");
    tc_db_finalize(st);
    tc_store_close(s);
}

/* A database from before schema 13 (its requests with their FOREIGN KEY)
 * is migrated when opened for writing: the key dropped, the trigger in
 * place, and it goes on storing and deleting as before. */
static void schema_12_database_is_migrated(void **state)
{
    pg_db *d = need_pg(state);
    tc_store *s = open_write(d);
    tc_store_close(s);
    PGconn *c = connect_raw(d);
    sql_ok(c, "DROP TRIGGER runs_delete_requests ON runs;"
              "DROP FUNCTION truecost_delete_requests();"
              "DROP TRIGGER runs_truncate_requests ON runs;"
              "DROP FUNCTION truecost_truncate_requests();"
              "DROP FUNCTION truecost_lock_run(BIGINT);"
              "ALTER TABLE requests ADD CONSTRAINT requests_run_id_fkey FOREIGN KEY (run_id) "
              "REFERENCES runs (id) ON DELETE CASCADE;"
              "ALTER TABLE soaks DROP COLUMN command;"    /* schema 14's */
              "ALTER TABLE requests DROP COLUMN retried;" /* schema 16's */
              "UPDATE truecost_schema SET version = 12");
    s = open_write(d);
    assert_true(sql_int(c, "SELECT max(version) FROM truecost_schema") >= 13);
    assert_int_equal(sql_int(c, "SELECT count(*) FROM pg_constraint WHERE conrelid = "
                                "'requests'::regclass AND contype = 'f'"),
                     0);
    assert_int_equal(sql_int(c, "SELECT count(*) FROM pg_trigger WHERE tgname = "
                                "'runs_delete_requests'"),
                     1);
    /* schema 15's lock: an update of the run */
    assert_int_equal(sql_int(c, "SELECT count(*) FROM pg_proc WHERE proname = "
                                "'truecost_lock_run' AND prosrc LIKE '%UPDATE runs%'"),
                     1);
    char err[512];
    int64_t run = begin_run(s);
    tc_req_record *r = records(2);
    assert_int_equal(tc_store_add_requests(s, run, r, 2, err, sizeof err), TC_OK);
    char sql[64];
    snprintf(sql, sizeof sql, "DELETE FROM runs WHERE id = %lld", (long long)run);
    sql_ok(c, sql);
    assert_int_equal(requests_of(c, run), 0);
    PQfinish(c);
    test_records_free(r, 2);
    tc_store_close(s);
}

#define PG(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
    const struct CMUnitTest tests[] = {
        PG(deleting_a_run_deletes_its_requests),
        PG(batch_for_a_missing_run_is_refused),
        PG(batch_during_a_delete_leaves_no_orphans),
        PG(older_snapshot_delete_fails_rather_than_orphans),
        PG(store_reads_committed_whatever_the_default),
        PG(schema_12_database_is_migrated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
