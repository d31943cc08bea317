/* The saver: what is added is stored, in order and whole, while the adder
 * never waits on the database; a store that refuses keeps what was
 * queued, refuses more until it takes it, and what it never takes is
 * counted. On an SQLite file locked by a second connection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/tc_time.h"
#include "measure/measure_saver.h"
#include "test_run.h"

typedef struct fixture {
    char dir[64], db[96];
    tc_store *store;
    int64_t run;
    sqlite3 *locker; /* a second connection that holds the file's write lock */
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/tc_saver_XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->db, sizeof f->db, "%s/s.db", f->dir);
    char err[512];
    assert_int_equal(tc_store_open(f->db, TC_STORE_WRITE, &f->store, err, sizeof err), TC_OK);
    tc_run_info r;
    test_run_info(&r);
    f->run = test_begin_run(f->store, &r);
    assert_int_equal(sqlite3_open(f->db, &f->locker), SQLITE_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    sqlite3_close(f->locker);
    tc_store_close(f->store);
    char side[128];
    unlink(f->db);
    snprintf(side, sizeof side, "%s-wal", f->db);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", f->db);
    unlink(side);
    rmdir(f->dir);
    free(f);
    return 0;
}

static void lock_file(fixture *f, int on)
{
    assert_int_equal(sqlite3_exec(f->locker, on ? "BEGIN EXCLUSIVE" : "COMMIT", NULL, NULL, NULL),
                     SQLITE_OK);
}

/* n records from seq `from`, record i with i % 5 + 1 chunk times. */
static tc_req_record *records(int64_t from, size_t n)
{
    tc_req_record *r = calloc(n, sizeof *r);
    assert_non_null(r);
    for (size_t i = 0; i < n; i++) {
        r[i].seq = from + (int64_t)i;
        r[i].send_ns = 1000000000LL + r[i].seq * 1000;
        for (size_t k = 0; k <= (size_t)r[i].seq % 5; k++)
            assert_int_equal(tc_req_record_add_chunk(&r[i], r[i].send_ns + 1000000 * (k + 1)), 0);
        r[i].end_ns = r[i].chunk_ns[r[i].n_chunks - 1] + 1;
        r[i].http_status = 200;
        r[i].output_tokens = (int64_t)r[i].n_chunks;
        r[i].output_source = TC_TOKENS_CHUNKS;
    }
    return r;
}

/* Adds n records from seq `from`; what tc_saver_add_requests returns. */
static int add(tc_saver *s, int64_t from, size_t n, char *err, size_t errlen)
{
    tc_req_record *r = records(from, n);
    int rc = tc_saver_add_requests(s, r, n, err, errlen);
    test_records_free(r, n); /* the saver keeps copies */
    return rc;
}

/* Adds one record at a time until the saver refuses (it has met the
 * lock), at most 10 s; how many it took. */
static size_t add_until_refused(tc_saver *s, int64_t from, char *err, size_t errlen)
{
    for (size_t i = 0; i < 1000; i++) {
        if (add(s, from + (int64_t)i, 1, err, errlen) != 0)
            return i;
        nanosleep(&(struct timespec){.tv_nsec = 10000000}, NULL);
    }
    fail_msg("the saver never refused");
    return 0;
}

/* The run's stored requests: their count, and that each is whole. */
static size_t stored(fixture *f)
{
    tc_req_record *got = NULL;
    size_t n = 0;
    char err[512];
    assert_int_equal(tc_store_load_requests(f->store, f->run, &got, &n, err, sizeof err), TC_OK);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(got[i].n_chunks, (size_t)got[i].seq % 5 + 1);
        assert_int_equal(got[i].chunk_ns[0], got[i].send_ns + 1000000);
    }
    tc_store_free_requests(got, n);
    return n;
}

static void everything_added_is_stored(void **state)
{
    fixture *f = *state;
    tc_saver *s;
    char err[512] = "";
    /* The devices first: while the saver runs, the store is its. */
    tc_run_device dev = {.info = {.kind = TC_TELEM_GPU, .name = "G0"}, .backend = "nvml"};
    assert_int_equal(tc_store_add_devices(f->store, f->run, &dev, 1, err, sizeof err), TC_OK);
    assert_int_equal(tc_saver_start(f->store, f->run, 5, &s, err, sizeof err), TC_OK);
    for (int b = 0; b < 50; b++)
        assert_int_equal(add(s, b * 64, 64, err, sizeof err), 0);
    tc_run_sample smp[3] = {{0, {.mono_ns = 10, .valid = TC_TF_POWER, .power_mw = 250000}},
                            {0, {.mono_ns = 20, .valid = TC_TF_POWER, .power_mw = 260000}},
                            {0, {.mono_ns = 30, .valid = TC_TF_POWER, .power_mw = 270000}}};
    assert_int_equal(tc_saver_add_samples(s, smp, 3), 0);
    assert_int_equal(tc_saver_stop(s, err, sizeof err), 0);
    assert_int_equal(stored(f), 50 * 64);
    tc_run_device *devs = NULL;
    tc_run_sample *got = NULL;
    int nd = 0;
    size_t ns = 0;
    assert_int_equal(
        tc_store_load_telemetry(f->store, f->run, &devs, &nd, &got, &ns, err, sizeof err), TC_OK);
    assert_int_equal(ns, 3);
    assert_int_equal(got[2].s.power_mw, 270000);
    free(devs);
    free(got);
    assert_int_equal(tc_saver_stop(NULL, err, sizeof err), 0);
}

/* The adder does not wait while the store is locked: its batches queue
 * (a write waits out the busy timeout on the saver's thread). Once a
 * write is refused, more is refused, with the store's reason; once the
 * lock goes, the queued batches land, and adding works again. */
static void a_locked_store_holds_nobody_up_and_loses_nothing(void **state)
{
    fixture *f = *state;
    tc_store_set_busy_timeout(f->store, 2000);
    lock_file(f, 1);
    tc_saver *s;
    char err[512] = "";
    assert_int_equal(tc_saver_start(f->store, f->run, 30, &s, err, sizeof err), TC_OK);
    /* Taken while the file stays locked: stored by the caller, each would
     * have waited out the busy timeout and failed. */
    assert_int_equal(add(s, 0, 64, err, sizeof err), 0);
    assert_int_equal(add(s, 64, 64, err, sizeof err), 0);
    err[0] = '\0';
    size_t more = add_until_refused(s, 128, err, sizeof err);
    assert_non_null(strstr(err, "locked"));
    /* Not patient: says at once what is unsaved, and why. */
    char why[512] = "";
    assert_true(tc_saver_flush(s, 0, why, sizeof why) >= 128);
    assert_non_null(strstr(why, "locked"));
    lock_file(f, 0);
    assert_int_equal(tc_saver_flush(s, 1, why, sizeof why), 0);
    assert_int_equal(add(s, 100000, 3, err, sizeof err), 0);
    assert_int_equal(tc_saver_stop(s, err, sizeof err), 0);
    assert_int_equal(stored(f), 128 + more + 3);
}

/* A store that stays locked past the patience: stop counts what was
 * never stored and says why. */
static void what_is_never_stored_is_counted(void **state)
{
    fixture *f = *state;
    tc_store_set_busy_timeout(f->store, 50);
    lock_file(f, 1);
    tc_saver *s;
    char err[512] = "";
    assert_int_equal(tc_saver_start(f->store, f->run, 0.5, &s, err, sizeof err), TC_OK);
    assert_int_equal(add(s, 0, 5, err, sizeof err), 0);
    /* Samples behind them wait with them, and are said lost in the end. */
    tc_run_sample smp = {0, {.mono_ns = 10, .valid = TC_TF_POWER, .power_mw = 250000}};
    assert_int_equal(tc_saver_add_samples(s, &smp, 1), 0);
    assert_int_equal(tc_saver_samples_lost(s, err, sizeof err), 0);
    assert_int_equal(tc_saver_flush(s, 1, err, sizeof err), 5);
    err[0] = '\0';
    assert_int_equal(tc_saver_samples_lost(s, err, sizeof err), 1);
    assert_non_null(strstr(err, "locked"));
    assert_int_equal(tc_saver_samples_lost(s, err, sizeof err), 0); /* said once */
    assert_int_equal(tc_saver_stop(s, err, sizeof err), 5);
    assert_non_null(strstr(err, "locked"));
    lock_file(f, 0);
    assert_int_equal(stored(f), 0);
}

static tc_err finish_run(tc_store *store, void *arg)
{
    char err[512];
    return tc_store_run_finish(store, *(int64_t *)arg, TC_RUN_INTERRUPTED, err, sizeof err);
}

/* The store may be used while the saver runs, through it, between its
 * writes; what the call returns comes back. */
static void the_store_is_lent_between_writes(void **state)
{
    fixture *f = *state;
    tc_saver *s;
    char err[512] = "";
    assert_int_equal(tc_saver_start(f->store, f->run, 5, &s, err, sizeof err), TC_OK);
    assert_int_equal(add(s, 0, 64, err, sizeof err), 0);
    assert_int_equal(tc_saver_with_store(s, NULL, finish_run, &f->run), TC_OK);
    assert_int_equal(add(s, 64, 64, err, sizeof err), 0);
    int64_t missing = f->run + 1000;
    assert_int_equal(tc_saver_with_store(s, NULL, finish_run, &missing), TC_ERR_NOTFOUND);
    assert_int_equal(tc_saver_stop(s, err, sizeof err), 0);
    assert_int_equal(stored(f), 128);
    tc_run_info info;
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)f->run);
    assert_int_equal(tc_store_find_run(f->store, id, &info, err, sizeof err), TC_OK);
    assert_int_equal(info.status, TC_RUN_INTERRUPTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(everything_added_is_stored, setup, teardown),
        cmocka_unit_test_setup_teardown(a_locked_store_holds_nobody_up_and_loses_nothing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(what_is_never_stored_is_counted, setup, teardown),
        cmocka_unit_test_setup_teardown(the_store_is_lent_between_writes, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
