/* The names of a training run's enums (record_train.h). */
#include "record_train.h"
#include "record_enum.h"

#include <math.h>
#include <string.h>

static const char *const FORMATS[TC_TRAIN_FORMAT_COUNT] = {"auto",      "hf",    "torchtune",
                                                           "lightning", "jsonl", "regex"};
static const char *const CLASSES[TC_TRAIN_CLASS_COUNT] = {
    "python_warning", "runtime_error", "out_of_memory", "gpu_error", "no_binary_for_gpu",
    "collective",     "hsa_error",     "segfault",      "traceback", "error"};
static const char *const ENDS[TC_TRAIN_END_COUNT] = {"running",     "exited", "signaled",
                                                     "interrupted", "killed", "not_started"};

TC_ENUM_NAMES(tc_train_format, tc_train_format, FORMATS, TC_TRAIN_FORMAT_COUNT, "unknown")
TC_ENUM_NAMES(tc_train_class, tc_train_class, CLASSES, TC_TRAIN_CLASS_COUNT, "unknown")
TC_ENUM_NAMES(tc_train_end, tc_train_end, ENDS, TC_TRAIN_END_COUNT, "unknown")

int tc_train_class_is_error(tc_train_class c)
{
    return c != TC_TRAIN_PY_WARNING;
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
