/* The reader of a trainer's lines: the format's step records (or the
 * first format that matches, for auto), checkpoints, warnings. */
#include <math.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "trainer_internal.h"

#define DEFAULT_CHECKPOINT                                                                         \
    "Saving model checkpoint|[Cc]heckpoint[^ ]* (of size [^ ]+ )?(is )?saved|Saved checkpoint"

struct tc_trainer {
    tc_train_format format; /* AUTO until detected */
    tc_trainer_regex step_re;
    regex_t ckpt_re;
    int ckpt_compiled;
    int ckpt_default;   /* the default regex: tried only on lines that say "heckpoint" */
    int64_t last_step;  /* the last step number read (0: none yet) */
    double tokens_seen; /* Hugging Face's num_input_tokens_seen so far */
    tc_trainer_csv csv; /* Lightning's metrics.csv header, once seen */
};

tc_err tc_trainer_new(const tc_trainer_config *cfg, tc_trainer **out, char *err, size_t errlen)
{
    *out = NULL;
    if (cfg->format == TC_TRAIN_REGEX && !cfg->step_regex)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "--format regex needs --step-regex RE with named groups (%s)",
                       tc_trainer_regex_groups);
    tc_trainer *t = calloc(1, sizeof *t);
    if (!t)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    t->format = cfg->step_regex ? TC_TRAIN_REGEX : cfg->format;
    t->tokens_seen = NAN;
    tc_err e = TC_OK;
    if (cfg->step_regex)
        e = tc_trainer_regex_compile(&t->step_re, cfg->step_regex, err, errlen);
    const char *ck = cfg->checkpoint_regex ? cfg->checkpoint_regex : DEFAULT_CHECKPOINT;
    t->ckpt_default = !cfg->checkpoint_regex;
    if (e == TC_OK && cfg->checkpoint_regex)
        e = tc_trainer_regex_check(ck, "--checkpoint-regex", err, errlen);
    if (e == TC_OK) {
        int rc = regcomp(&t->ckpt_re, ck, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char why[200];
            regerror(rc, &t->ckpt_re, why, sizeof why);
            e = tc_fail(err, errlen, TC_ERR_INVALID, "--checkpoint-regex '%s': %s", ck, why);
        } else {
            t->ckpt_compiled = 1;
        }
    }
    if (e != TC_OK) {
        tc_trainer_free(t);
        return e;
    }
    *out = t;
    return TC_OK;
}

void tc_trainer_free(tc_trainer *t)
{
    if (!t)
        return;
    tc_trainer_regex_free(&t->step_re);
    tc_trainer_csv_free(&t->csv);
    if (t->ckpt_compiled)
        regfree(&t->ckpt_re);
    free(t);
}

tc_train_format tc_trainer_format(const tc_trainer *t)
{
    return t->format;
}

/* One format on the line: 1 when it is a step (or HF's summary). */
static int try_format(tc_trainer *t, tc_train_format f, const char *line, size_t len,
                      tc_trainer_line *out, tc_train_info *info)
{
    switch (f) {
    case TC_TRAIN_HF:
        return tc_trainer_hf(line, &out->step, &out->is_final, info, &t->tokens_seen);
    case TC_TRAIN_TORCHTUNE:
        return tc_trainer_torchtune(line, &out->step);
    case TC_TRAIN_LIGHTNING:
        return tc_trainer_lightning_csv(&t->csv, line, &out->step) ||
               tc_trainer_lightning(line, &out->step);
    case TC_TRAIN_JSONL:
        return tc_trainer_jsonl(line, len, &out->step);
    case TC_TRAIN_REGEX:
        return tc_trainer_regex_match(&t->step_re, line, &out->step);
    default:
        return 0;
    }
}

static int read_step(tc_trainer *t, const char *line, size_t len, tc_trainer_line *out,
                     tc_train_info *info)
{
    static const tc_train_format ORDER[] = {TC_TRAIN_JSONL, TC_TRAIN_HF, TC_TRAIN_TORCHTUNE,
                                            TC_TRAIN_LIGHTNING};
    out->step.step = -1;
    if (t->format != TC_TRAIN_AUTO)
        return try_format(t, t->format, line, len, out, info);
    for (size_t i = 0; i < sizeof ORDER / sizeof ORDER[0]; i++) {
        tc_train_step_init(&out->step);
        out->step.step = -1;
        if (try_format(t, ORDER[i], line, len, out, info)) {
            t->format = ORDER[i];
            return 1;
        }
    }
    return 0;
}

int tc_trainer_read_line(tc_trainer *t, const char *line, size_t len, tc_trainer_line *out,
                         tc_train_info *info)
{
    memset(out, 0, sizeof *out);
    tc_train_step_init(&out->step);
    len = strnlen(line, len);
    if (read_step(t, line, len, out, info) && !out->is_final) {
        out->is_step = 1;
        if (out->step.step < 0)
            out->step.step = t->last_step + 1; /* a format without step numbers */
        t->last_step = out->step.step;
    }
    if (t->ckpt_compiled && (!t->ckpt_default || strstr(line, "heckpoint")) &&
        regexec(&t->ckpt_re, line, 0, NULL, 0) == 0)
        out->checkpoint = 1;
    if (!out->is_step)
        out->is_warning = tc_trainer_classify(line, &out->cls, out->category, sizeof out->category,
                                              out->message, sizeof out->message);
    return out->is_step || out->is_final || out->checkpoint || out->is_warning;
}
