/* Unit tests of views/view_train.c: a stored training run read back with
 * its figures, the card for MFU from --gpu or from the telemetry's first
 * GPU, "completed without error", and a serving run that is no training
 * run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "test_assert.h"
#include "test_run.h"
#include "views/view_train.h"

static int64_t store_train(tc_store *st, const char *gpu, tc_train_class cls, tc_run_status end)
{
    char err[512];
    tc_run_info run;
    test_run_info(&run);
    snprintf(run.group_kind, sizeof run.group_kind, "train");
    int64_t id = test_begin_run(st, &run);
    tc_train_info t;
    tc_train_info_init(&t);
    t.run_id = id;
    t.params = 1e9;
    snprintf(t.gpu, sizeof t.gpu, "%s", gpu);
    tc_train_step s[12];
    for (int i = 0; i < 12; i++) {
        tc_train_step_init(&s[i]);
        s[i].step = i + 1;
        s[i].t_ns = 1000000000LL + i * 50000000LL; /* 50 ms */
        s[i].tokens = 1000;
    }
    tc_train_warning w = {.cls = cls, .count = 3, .first_step = 2};
    snprintf(w.message, sizeof w.message, "something");
    assert_int_equal(tc_store_train_save(st, &t, s, 0, 12, &w, 1, err, sizeof err), TC_OK);
    assert_int_equal(tc_store_run_finish(st, id, end, err, sizeof err), TC_OK);
    return id;
}

static void read_back_with_figures(void **state)
{
    (void)state;
    char dir[] = "/tmp/tc-vtrain-XXXXXX", path[128], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/db", dir);
    tc_store *st;
    assert_int_equal(tc_store_open(path, TC_STORE_WRITE, &st, err, sizeof err), TC_OK);
    int64_t a = store_train(st, "RTX 4090", TC_TRAIN_PY_WARNING, TC_RUN_COMPLETE);
    int64_t b = store_train(st, "no such card", TC_TRAIN_OOM, TC_RUN_FAILED);
    tc_run_info run;
    tc_view_train v;
    int found;
    char id[24];
    snprintf(id, sizeof id, "%lld", (long long)a);
    assert_int_equal(tc_store_find_run(st, id, &run, err, sizeof err), TC_OK);
    assert_true(tc_view_is_train(&run));
    assert_int_equal(tc_view_train_load(st, &run, &v, &found, err, sizeof err), TC_OK);
    assert_true(found);
    assert_int_equal(v.n_steps, 12);
    assert_near(v.fig.step_ms.mean, 50, 1e-9);
    assert_near(v.fig.tokens_per_s, 20000, 1e-6);
    assert_string_equal(v.card, "RTX 4090");
    assert_near(v.fig.mfu, 6e9 * 20000 / (v.fig.peak_tflops * 1e12), 1e-12);
    assert_int_equal(v.warning_lines, 3);
    assert_int_equal(v.error_lines, 0);
    assert_true(tc_view_train_clean(&v));
    tc_view_train_free(&v);
    snprintf(id, sizeof id, "%lld", (long long)b);
    assert_int_equal(tc_store_find_run(st, id, &run, err, sizeof err), TC_OK);
    assert_int_equal(tc_view_train_load(st, &run, &v, &found, err, sizeof err), TC_OK);
    assert_string_equal(v.card, ""); /* not in the spec table: no MFU */
    assert_true(isnan(v.fig.mfu));
    assert_int_equal(v.error_lines, 3);
    assert_false(tc_view_train_clean(&v));
    tc_view_train_free(&v);
    tc_view_train_free(NULL);
    /* a serving run */
    test_run_info(&run);
    test_begin_run(st, &run);
    assert_false(tc_view_is_train(&run));
    assert_int_equal(tc_view_train_load(st, &run, &v, &found, err, sizeof err), TC_OK);
    assert_false(found);
    tc_store_close(st);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(read_back_with_figures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
