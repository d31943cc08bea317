/* libFuzzer target: the trainer's line readers (trainer/): every format,
 * auto detection, the named-group regex translation, the warning and error
 * classifier and its tally.
 *
 * Byte 0 picks the format (modulo 6: auto, hf, torchtune, lightning, jsonl,
 * regex); with regex, the input up to the first newline is the
 * --step-regex and the rest the output; otherwise the rest is the output.
 * Each line of the output is read in turn, as measure/ hands them over.
 *
 * Invariants: no crash or leak; a step's number never goes down; the
 * message and category are NUL-terminated within their arrays; a tally
 * keeps at most TC_TRAINER_MAX_DISTINCT messages, each counted at least
 * once. Seeds in corpus/trainer: one file per format. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trainer/trainer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok)
{
    if (!ok)
        __builtin_trap();
}

static void read_lines(tc_trainer *t, const char *text, size_t n)
{
    tc_train_info info;
    tc_train_info_init(&info);
    tc_trainer_tally tally = {0};
    char *line = malloc(n + 1);
    if (!line)
        return;
    int64_t last = -1;
    for (size_t at = 0; at < n;) {
        const char *nl = memchr(text + at, '\n', n - at);
        size_t len = nl ? (size_t)(nl - (text + at)) : n - at;
        memcpy(line, text + at, len);
        line[len] = '\0';
        tc_trainer_line l;
        tc_trainer_read_line(t, line, len, &l, &info);
        if (l.is_step) {
            check(l.step.step >= 0);
            last = l.step.step;
        }
        if (l.is_warning) {
            check(memchr(l.message, '\0', sizeof l.message) != NULL);
            check(memchr(l.category, '\0', sizeof l.category) != NULL);
            check(tc_trainer_tally_add(&tally, l.cls, l.category, l.message, last) == 0);
        }
        at += len + 1;
    }
    check(tally.n <= TC_TRAINER_MAX_DISTINCT);
    for (size_t i = 0; i < tally.n; i++)
        check(tally.w[i].count >= 1);
    tc_trainer_tally_free(&tally);
    free(line);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 1 << 16)
        return 0;
    tc_trainer_config cfg = {.format = (tc_train_format)(data[0] % 6)};
    const char *text = (const char *)data + 1;
    size_t n = size - 1;
    char *re = NULL;
    if (cfg.format == TC_TRAIN_REGEX) {
        const char *nl = memchr(text, '\n', n);
        size_t len = nl ? (size_t)(nl - text) : n;
        re = malloc(len + 1);
        if (!re)
            return 0;
        memcpy(re, text, len);
        re[len] = '\0';
        cfg.step_regex = re;
        text += nl ? len + 1 : len;
        n -= nl ? len + 1 : len;
    }
    tc_trainer *t = NULL;
    char err[512];
    if (tc_trainer_new(&cfg, &t, err, sizeof err) == TC_OK) {
        read_lines(t, text, n);
        tc_trainer_free(t);
    } else {
        check(memchr(err, '\0', sizeof err) != NULL && t == NULL);
    }
    free(re);
    return 0;
}
