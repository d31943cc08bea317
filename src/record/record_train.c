/* The names of a training run's enums (record_train.h). */
#include "record_train.h"

#include <math.h>
#include <string.h>

static const char *const FORMATS[TC_TRAIN_FORMAT_COUNT] = {"auto",      "hf",    "torchtune",
                                                           "lightning", "jsonl", "regex"};
static const char *const CLASSES[TC_TRAIN_CLASS_COUNT] = {
    "python_warning", "runtime_error", "out_of_memory", "gpu_error", "no_binary_for_gpu",
    "collective",     "hsa_error",     "segfault",      "traceback", "error"};
static const char *const ENDS[TC_TRAIN_END_COUNT] = {"running",     "exited", "signaled",
                                                     "interrupted", "killed", "not_started"};

static int find(const char *const *names, int n, const char *name)
{
    for (int i = 0; name && i < n; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

const char *tc_train_format_name(tc_train_format f)
{
    return f >= 0 && f < TC_TRAIN_FORMAT_COUNT ? FORMATS[f] : "unknown";
}

int tc_train_format_parse(const char *name, tc_train_format *out)
{
    int i = find(FORMATS, TC_TRAIN_FORMAT_COUNT, name);
    if (i < 0)
        return -1;
    *out = (tc_train_format)i;
    return 0;
}

const char *tc_train_class_name(tc_train_class c)
{
    return c >= 0 && c < TC_TRAIN_CLASS_COUNT ? CLASSES[c] : "unknown";
}

int tc_train_class_parse(const char *name, tc_train_class *out)
{
    int i = find(CLASSES, TC_TRAIN_CLASS_COUNT, name);
    if (i < 0)
        return -1;
    *out = (tc_train_class)i;
    return 0;
}

int tc_train_class_is_error(tc_train_class c)
{
    return c != TC_TRAIN_PY_WARNING;
}

const char *tc_train_end_name(tc_train_end e)
{
    return e >= 0 && e < TC_TRAIN_END_COUNT ? ENDS[e] : "unknown";
}

int tc_train_end_parse(const char *name, tc_train_end *out)
{
    int i = find(ENDS, TC_TRAIN_END_COUNT, name);
    if (i < 0)
        return -1;
    *out = (tc_train_end)i;
    return 0;
}

void tc_train_step_init(tc_train_step *s)
{
    memset(s, 0, sizeof *s);
    s->loss = s->lr = s->samples = s->tokens = NAN;
    s->samples_per_s = s->tokens_per_s = NAN;
    s->peak_memory_bytes = -1;
}

void tc_train_info_init(tc_train_info *t)
{
    memset(t, 0, sizeof *t);
    t->warmup_steps = -1;
    t->exit_code = -1;
    t->train_runtime_s = t->train_samples_per_s = t->train_steps_per_s = NAN;
    t->train_loss = t->total_flos = NAN;
}
