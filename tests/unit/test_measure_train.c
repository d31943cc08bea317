/* Unit tests of measure/measure_train*.c: a trainer run through the
 * library with a small line cap, its steps stamped and stored as read,
 * long and binary lines counted, a command that cannot run, a stop passed
 * on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "measure/measure_train.h"
#include "test_assert.h"

typedef struct fixture {
    char dir[64], path[128];
    tc_store *st;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/tc-mtrain-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof f->path, "%s/db", f->dir);
    char err[512];
    assert_int_equal(tc_store_open(f->path, TC_STORE_WRITE, &f->st, err, sizeof err), TC_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    tc_store_close(f->st);
    unlink(f->path);
    rmdir(f->dir);
    free(f);
    return 0;
}

typedef struct seen {
    size_t out_bytes, steps;
} seen;

static void on_output(void *ctx, int fd, const char *buf, size_t len)
{
    (void)fd;
    (void)buf;
    ((seen *)ctx)->out_bytes += len;
}

static void on_step(void *ctx, const tc_train_step *s, const tc_train_info *info)
{
    (void)s;
    (void)info;
    ((seen *)ctx)->steps++;
}

static tc_measure_train_config config(char **argv)
{
    tc_measure_train_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.argv = argv;
    cfg.telemetry = "none";
    cfg.max_line = 64;
    cfg.grace_s = 1;
    tc_train_info_init(&cfg.plan);
    return cfg;
}

static void steps_long_and_binary_lines(void **state)
{
    fixture *f = *state;
    char *argv[] = {"sh", "-c",
                    "for i in 1 2 3 4 5 6 7 8; do echo \"{\\\"step\\\": $i, \\\"samples\\\": 2}\"; "
                    "done; head -c 300 /dev/zero | tr '\\0' x; echo; printf 'a\\001b\\n'; "
                    "echo 'UserWarning: x' >&2",
                    NULL};
    tc_measure_train_config cfg = config(argv);
    seen s = {0};
    tc_measure_train_callbacks cb = {.output = on_output, .step = on_step, .ctx = &s};
    tc_measure_train_outcome o;
    char err[512];
    assert_int_equal(tc_measure_train(&cfg, f->st, &cb, &o, err, sizeof err), TC_OK);
    assert_int_equal(o.info.end, TC_TRAIN_EXITED);
    assert_int_equal(o.info.exit_code, 0);
    assert_int_equal(o.run.status, TC_RUN_COMPLETE);
    assert_int_equal(o.info.steps, 8);
    assert_int_equal(s.steps, 8);
    assert_int_equal(o.info.long_lines, 1);
    assert_int_equal(o.info.binary_lines, 1);
    assert_int_equal(o.info.format, TC_TRAIN_JSONL);
    assert_int_equal(o.warnings, 1);
    assert_true(s.out_bytes > 300);
    tc_train_info back;
    tc_train_step *steps;
    size_t n;
    int found;
    assert_int_equal(tc_store_train_load(f->st, o.run.id, &back, &found, &steps, &n, NULL, NULL,
                                         err, sizeof err),
                     TC_OK);
    assert_int_equal(n, 8);
    for (size_t i = 1; i < n; i++)
        assert_true(steps[i].t_ns >= steps[i - 1].t_ns);
    assert_near(steps[3].samples, 2, 0);
    free(steps);
}

static void not_started_and_no_steps(void **state)
{
    fixture *f = *state;
    char *missing[] = {"/nonexistent/trainer", NULL};
    tc_measure_train_config cfg = config(missing);
    tc_measure_train_callbacks cb = {0};
    tc_measure_train_outcome o;
    char err[512];
    assert_int_equal(tc_measure_train(&cfg, f->st, &cb, &o, err, sizeof err), TC_OK);
    assert_int_equal(o.info.end, TC_TRAIN_NOT_STARTED);
    assert_int_equal(o.run.status, TC_RUN_FAILED);
    assert_says(o.info.note, "cannot run '/nonexistent/trainer'", "No such file", NULL);
    char *quiet[] = {"true", NULL};
    cfg = config(quiet);
    assert_int_equal(tc_measure_train(&cfg, f->st, &cb, &o, err, sizeof err), TC_OK);
    assert_int_equal(o.info.steps, 0);
    assert_int_equal(o.run.status, TC_RUN_FAILED);
    assert_says(o.err, "no step was read", NULL);
}

static void a_stop_is_passed_on(void **state)
{
    fixture *f = *state;
    /* the shell ignores nothing: SIGTERM ends it */
    char *argv[] = {"sh", "-c", "echo '{\"step\": 1}'; echo '{\"step\": 2}'; exec sleep 30", NULL};
    tc_measure_train_config cfg = config(argv);
    volatile sig_atomic_t stop = SIGTERM; /* set from the start: passed on at once */
    tc_measure_train_callbacks cb = {.stop = &stop};
    tc_measure_train_outcome o;
    char err[512];
    assert_int_equal(tc_measure_train(&cfg, f->st, &cb, &o, err, sizeof err), TC_OK);
    assert_int_equal(o.info.end, TC_TRAIN_INTERRUPTED);
    assert_int_equal(o.info.signal, SIGTERM);
    assert_int_equal(o.run.status, TC_RUN_INTERRUPTED);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(steps_long_and_binary_lines, setup, teardown),
        cmocka_unit_test_setup_teardown(not_started_and_no_steps, setup, teardown),
        cmocka_unit_test_setup_teardown(a_stop_is_passed_on, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
