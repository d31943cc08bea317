/* Unit tests of store/store_train.c: a training run's plan, steps and
 * warnings stored as it goes and read back, on SQLite and (with
 * TC_TEST_PG_URL) PostgreSQL, and copied by import. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>

#include "pg_fixture.h"
#include "test_assert.h"
#include "test_run.h"

static void fill(tc_train_info *t, tc_train_step *s, size_t n, tc_train_warning *w)
{
    tc_train_info_init(t);
    t->format = TC_TRAIN_JSONL;
    snprintf(t->command, sizeof t->command, "python3 train.py --lora");
    snprintf(t->gpu, sizeof t->gpu, "MI300X");
    t->samples_per_step = 8;
    t->params = 7e9;
    t->trainable_params = 4e7;
    t->start_ns = 1000;
    for (size_t i = 0; i < n; i++) {
        tc_train_step_init(&s[i]);
        s[i].step = (int64_t)i + 1;
        s[i].t_ns = 1000 + (int64_t)(i + 1) * 500000000LL;
        s[i].wall_ns = 1700000000000000000LL + s[i].t_ns;
        s[i].loss = 2.0 - 0.1 * (double)i;
    }
    s[1].tokens = 4096;
    s[2].peak_memory_bytes = 21474836480LL;
    memset(w, 0, 2 * sizeof *w);
    w[0].cls = TC_TRAIN_PY_WARNING;
    snprintf(w[0].category, sizeof w[0].category, "UserWarning");
    snprintf(w[0].message, sizeof w[0].message, "UserWarning: slow path");
    w[0].count = 3;
    w[0].first_step = 1;
    w[1].cls = TC_TRAIN_OOM;
    snprintf(w[1].message, sizeof w[1].message, "CUDA out of memory");
    w[1].count = 1;
    w[1].first_step = 3;
}

/* Saves in two batches, the run ending with the second, and reads back. */
static void round_trip(tc_store *st)
{
    char err[512];
    tc_run_info run;
    test_run_info(&run);
    int64_t id = test_begin_run(st, &run);
    tc_train_info t, back;
    tc_train_step s[3], *got = NULL;
    tc_train_warning w[2], *gw = NULL;
    fill(&t, s, 3, w);
    t.run_id = id;
    assert_int_equal(tc_store_train_save(st, &t, s, 0, 2, w, 1, err, sizeof err), TC_OK);
    t.end = TC_TRAIN_EXITED;
    t.exit_code = 1;
    t.steps = 3;
    t.train_loss = 1.5;
    assert_int_equal(tc_store_train_save(st, &t, s + 2, 2, 1, w, 2, err, sizeof err), TC_OK);
    /* a step idx stored twice is refused, and nothing of that batch lands */
    assert_int_not_equal(tc_store_train_save(st, &t, s, 1, 1, NULL, 0, err, sizeof err), TC_OK);
    size_t ns, nw;
    int found = 0;
    assert_int_equal(
        tc_store_train_load(st, id, &back, &found, &got, &ns, &gw, &nw, err, sizeof err), TC_OK);
    assert_true(found);
    assert_int_equal(ns, 3);
    assert_int_equal(nw, 2);
    assert_int_equal(back.format, TC_TRAIN_JSONL);
    assert_string_equal(back.command, "python3 train.py --lora");
    assert_string_equal(back.gpu, "MI300X");
    assert_int_equal(back.end, TC_TRAIN_EXITED);
    assert_int_equal(back.exit_code, 1);
    assert_near(back.params, 7e9, 0);
    assert_near(back.train_loss, 1.5, 0);
    assert_true(isnan(back.train_runtime_s));
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(got[i].step, s[i].step);
        assert_int_equal(got[i].t_ns, s[i].t_ns);
        assert_near(got[i].loss, s[i].loss, 0);
    }
    assert_true(isnan(got[0].tokens));
    assert_near(got[1].tokens, 4096, 0);
    assert_int_equal(got[0].peak_memory_bytes, -1);
    assert_int_equal(got[2].peak_memory_bytes, 21474836480LL);
    assert_int_equal(gw[1].cls, TC_TRAIN_OOM);
    assert_int_equal(gw[0].count, 3);
    assert_string_equal(gw[0].category, "UserWarning");
    free(got);
    free(gw);
    /* a serving run is no training run */
    test_run_info(&run);
    int64_t other = test_begin_run(st, &run);
    assert_int_equal(
        tc_store_train_load(st, other, &back, &found, NULL, NULL, NULL, NULL, err, sizeof err),
        TC_OK);
    assert_false(found);
}

static void sqlite_round_trip_and_import(void **state)
{
    (void)state;
    char dir[] = "/tmp/tc-train-db-XXXXXX", a[128], b[128], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(a, sizeof a, "%s/a.db", dir);
    snprintf(b, sizeof b, "%s/b.db", dir);
    tc_store *st = NULL, *dst = NULL;
    assert_int_equal(tc_store_open(a, TC_STORE_WRITE, &st, err, sizeof err), TC_OK);
    round_trip(st);
    assert_int_equal(tc_store_run_finish(st, 1, TC_RUN_FAILED, err, sizeof err), TC_OK);
    assert_int_equal(tc_store_run_finish(st, 2, TC_RUN_COMPLETE, err, sizeof err), TC_OK);
    assert_int_equal(tc_store_open(b, TC_STORE_WRITE, &dst, err, sizeof err), TC_OK);
    tc_store_import_stats stats;
    assert_int_equal(tc_store_import(dst, st, &stats, err, sizeof err), TC_OK);
    assert_int_equal(stats.copied, 2);
    tc_run_info r;
    assert_int_equal(tc_store_find_run(dst, "1", &r, err, sizeof err), TC_OK);
    tc_train_info back;
    tc_train_step *steps;
    tc_train_warning *w;
    size_t ns, nw;
    int found;
    assert_int_equal(
        tc_store_train_load(dst, r.id, &back, &found, &steps, &ns, &w, &nw, err, sizeof err),
        TC_OK);
    assert_true(found);
    assert_int_equal(ns, 3);
    assert_int_equal(nw, 2);
    assert_int_equal(back.end, TC_TRAIN_EXITED);
    free(steps);
    free(w);
    tc_store_close(st);
    tc_store_close(dst);
    unlink(a);
    unlink(b);
    rmdir(dir);
}

static void pg_round_trip(void **state)
{
    (void)state;
    if (!pg_available()) {
        print_message("TC_TEST_PG_URL is not set: skipped (scripts/pg-test.sh sets it)\n");
        skip();
    }
    char url[1024], name[64], err[512];
    pg_new_db(url, sizeof url, name, sizeof name);
    tc_store *st = NULL;
    if (tc_store_open(url, TC_STORE_WRITE, &st, err, sizeof err) != TC_OK)
        fail_msg("open %s: %s", url, err);
    round_trip(st);
    tc_store_close(st);
    pg_drop_db(name);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sqlite_round_trip_and_import),
        cmocka_unit_test(pg_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
