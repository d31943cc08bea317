/* Unit tests of sim/sim_train.c: each format the SIMULATED trainer prints
 * is read back by trainer/ (one step a line, the numbers it meant), its
 * truth has one line a step on the monotonic clock, out of memory and a
 * crash end it at step K, and its options are checked. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/tc_time.h"
#include "sim/sim_train.h"
#include "test_assert.h"
#include "trainer/trainer.h"

/* Runs the sim with cfg into memory: its stdout and stderr texts. */
static void run(const tc_sim_train_config *cfg, char **out, char **errs, tc_sim_train_end *end,
                int64_t *last)
{
    size_t n1, n2;
    FILE *o = open_memstream(out, &n1), *e = open_memstream(errs, &n2);
    char err[256];
    assert_int_equal(tc_sim_train_run(cfg, o, e, NULL, end, last, err, sizeof err), TC_OK);
    fclose(o);
    fclose(e);
}

/* Steps trainer/ reads from text in format f (regex: the sim's own line). */
static int64_t read_back(const char *text, tc_train_format f, tc_train_info *info)
{
    tc_trainer_config rc = {.format = f};
    if (f == TC_TRAIN_REGEX)
        rc.step_regex = "it (?<step>[0-9]+) loss=(?<loss>[0-9.]+) samples=(?<samples>[0-9]+)";
    tc_trainer *t;
    char err[256];
    assert_int_equal(tc_trainer_new(&rc, &t, err, sizeof err), TC_OK);
    tc_train_info_init(info);
    int64_t steps = 0, last = 0;
    char *copy = strdup(text), *save = NULL;
    for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
        tc_trainer_line line;
        tc_trainer_read_line(t, l, strlen(l), &line, info);
        if (line.is_step) {
            steps++;
            assert_true(line.step.step > last);
            last = line.step.step;
        }
    }
    free(copy);
    tc_trainer_free(t);
    return steps;
}

static void every_format_reads_back(void **state)
{
    (void)state;
    static const char *const names[] = {"hf", "torchtune", "lightning", "jsonl", "regex"};
    for (size_t i = 0; i < 5; i++) {
        tc_sim_train_config c;
        tc_sim_train_defaults(&c);
        c.format = names[i];
        c.steps = 7;
        c.step_ms = 1;
        char *out, *errs;
        tc_sim_train_end end;
        int64_t last;
        run(&c, &out, &errs, &end, &last);
        assert_int_equal(end, TC_SIM_TRAIN_DONE);
        assert_int_equal(last, 7);
        tc_train_format f;
        assert_int_equal(tc_train_format_parse(names[i], &f), 0);
        tc_train_info info;
        if (read_back(out, f, &info) != 7)
            fail_msg("%s: not 7 steps read back from:\n%s", names[i], out);
        if (f == TC_TRAIN_HF)
            assert_near(info.train_samples_per_s, 8000, 1e-9); /* 8 samples a 1 ms step */
        free(out);
        free(errs);
    }
}

static void truth_warnings_and_faults(void **state)
{
    (void)state;
    char truth[] = "/tmp/tc-simtrain-XXXXXX";
    int fd = mkstemp(truth);
    assert_true(fd >= 0);
    close(fd);
    tc_sim_train_config c;
    tc_sim_train_defaults(&c);
    c.steps = 20;
    c.step_ms = 2;
    c.warn_every = 5;
    c.oom_at = 12;
    c.truth_path = truth;
    char *out, *errs;
    tc_sim_train_end end;
    int64_t last;
    int64_t started = tc_mono_ns();
    run(&c, &out, &errs, &end, &last);
    assert_int_equal(end, TC_SIM_TRAIN_OOM);
    assert_int_equal(last, 11);
    assert_non_null(strstr(errs, "torch.OutOfMemoryError: CUDA out of memory"));
    int warnings = 0;
    for (const char *p = errs; (p = strstr(p, "UserWarning: SIMULATED")); p++)
        warnings++;
    assert_int_equal(warnings, 2); /* steps 5 and 10 */
    FILE *t = fopen(truth, "r");
    char line[256];
    int lines = 0;
    long long emit = 0;
    double scheduled_ms = 0;
    while (fgets(line, sizeof line, t)) {
        assert_non_null(strstr(line, "\"emit_ns\": "));
        long long e = atoll(strstr(line, "\"emit_ns\": ") + 11);
        assert_true(e >= emit); /* monotonic */
        emit = e;
        assert_non_null(strstr(line, "\"planned_ms\": "));
        scheduled_ms += atof(strstr(line, "\"planned_ms\": ") + 14);
        lines++;
        /* Steps keep a schedule from the start: no step before its time
         * (a late one, on a busy machine, is caught up by the next). */
        assert_true(e - started >= (long long)(scheduled_ms * 1e6) - 1000LL * lines);
    }
    /* about 2 ms a step, as asked */
    assert_true(scheduled_ms > 11 * 2 * 0.5 && scheduled_ms < 11 * 2 * 1.5);
    fclose(t);
    assert_int_equal(lines, 11);
    free(out);
    free(errs);
    c.oom_at = 0;
    c.crash_at = 3;
    c.truth_path = NULL;
    run(&c, &out, &errs, &end, &last);
    assert_int_equal(end, TC_SIM_TRAIN_CRASH);
    assert_int_equal(last, 2);
    assert_non_null(strstr(errs, "Segmentation fault"));
    free(out);
    free(errs);
    unlink(truth);
}

static void options_checked(void **state)
{
    (void)state;
    tc_sim_train_config c;
    tc_sim_train_defaults(&c);
    char err[256];
    assert_int_equal(tc_sim_train_check(&c, err, sizeof err), 0);
    c.format = "yaml";
    assert_int_equal(tc_sim_train_check(&c, err, sizeof err), -1);
    assert_says(err, "--format 'yaml'", NULL);
    c.format = "hf";
    c.jitter_ms = 200;
    assert_int_equal(tc_sim_train_check(&c, err, sizeof err), -1);
    assert_says(err, "--jitter-ms", NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_format_reads_back),
        cmocka_unit_test(truth_warnings_and_faults),
        cmocka_unit_test(options_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
