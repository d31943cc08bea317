/* Which output lines are warnings or errors, and the distinct ones
 * counted. The most specific class wins: an out-of-memory RuntimeError is
 * out_of_memory, a "HIP error: hipErrorNoBinaryForGpu" no_binary_for_gpu. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "trainer.h"

/* Copies from p, trimmed, cut to len. */
static void copy_msg(const char *p, char *out, size_t len)
{
    while (*p == ' ' || *p == '\t' || *p == '\r')
        p++;
    size_t n = strlen(p);
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\r' || p[n - 1] == '\t'))
        n--;
    if (n >= len)
        n = len - 1;
    memcpy(out, p, n);
    out[n] = '\0';
}

/* The Python warning "path:12: UserWarning: text": the category's start
 * and length, or NULL. */
static const char *py_warning(const char *line, size_t *catlen)
{
    for (const char *p = strstr(line, "Warning: "); p; p = strstr(p + 1, "Warning: ")) {
        const char *s = p;
        while (s > line && (isalnum((unsigned char)s[-1]) || s[-1] == '_' || s[-1] == '.'))
            s--;
        /* "UserWarning", "torch.jit.TracerWarning"; not "a Warning: ..." mid-sentence */
        if (s == p || (!isupper((unsigned char)*s) && !memchr(s, '.', (size_t)(p - s))))
            continue;
        if (s > line && s[-1] != ' ' && s[-1] != ':')
            continue;
        *catlen = (size_t)(p + 7 - s);
        return s;
    }
    return NULL;
}

typedef struct rule {
    const char *needle;
    tc_train_class cls;
} rule;

/* In order: the first needle found names the class; the message starts
 * at it. */
static const rule RULES[] = {
    {"hipErrorNoBinaryForGpu", TC_TRAIN_NO_BINARY},
    {"hipErrorOutOfMemory", TC_TRAIN_OOM},
    {"CUDA out of memory", TC_TRAIN_OOM},
    {"HIP out of memory", TC_TRAIN_OOM},
    {"OutOfMemoryError", TC_TRAIN_OOM},
    {"HSA_STATUS_ERROR", TC_TRAIN_HSA},
    {"NCCL WARN", TC_TRAIN_COLLECTIVE},
    {"NCCL error", TC_TRAIN_COLLECTIVE},
    {"NCCL Error", TC_TRAIN_COLLECTIVE},
    {"NCCL timeout", TC_TRAIN_COLLECTIVE},
    {"RCCL error", TC_TRAIN_COLLECTIVE},
    {"RCCL Error", TC_TRAIN_COLLECTIVE},
    {"RCCL WARN", TC_TRAIN_COLLECTIVE},
    {"ncclInternalError", TC_TRAIN_COLLECTIVE},
    {"ncclSystemError", TC_TRAIN_COLLECTIVE},
    {"ncclUnhandledCudaError", TC_TRAIN_COLLECTIVE},
    {"Watchdog caught collective operation timeout", TC_TRAIN_COLLECTIVE},
    {"CUDA error", TC_TRAIN_GPU_ERROR},
    {"HIP error", TC_TRAIN_GPU_ERROR},
    {"hipError", TC_TRAIN_GPU_ERROR},
    {"cudaError", TC_TRAIN_GPU_ERROR},
    {"Segmentation fault", TC_TRAIN_SEGFAULT},
    {"SIGSEGV", TC_TRAIN_SEGFAULT},
    {"Traceback (most recent call last)", TC_TRAIN_TRACEBACK},
    {"RuntimeError", TC_TRAIN_RUNTIME_ERROR},
};

/* "ValueError: ..." or "torch.distributed.DistBackendError: ..." at the
 * start of a line: a Python exception; its start or NULL. */
static const char *exception(const char *line)
{
    const char *p = line;
    while (*p == ' ')
        p++;
    const char *s = p;
    while (isalnum((unsigned char)*p) || *p == '_' || *p == '.')
        p++;
    if (p - s < 6 || *p != ':' || p[1] != ' ' ||
        (!isupper((unsigned char)*s) && !memchr(s, '.', (size_t)(p - s))))
        return NULL;
    if (memcmp(p - 5, "Error", 5) == 0 || (p - s >= 9 && memcmp(p - 9, "Exception", 9) == 0))
        return s;
    return NULL;
}

/* Every needle above, the warning and the exception contain one of these:
 * a line with none is no warning (most lines; the rules are not tried). */
static int may_be_one(const char *line)
{
    static const char *const KEYS[] = {"rror",      "RROR",    "WARN",    "arning",
                                       "memory",    "timeout", "SIGSEGV", "Segmentation",
                                       "Traceback", "xception"};
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++)
        if (strstr(line, KEYS[i]))
            return 1;
    return 0;
}

int tc_trainer_classify(const char *line, tc_train_class *cls, char *category, size_t catlen,
                        char *message, size_t msglen)
{
    category[0] = '\0';
    if (!may_be_one(line))
        return 0;
    for (size_t i = 0; i < sizeof RULES / sizeof RULES[0]; i++) {
        const char *at = strstr(line, RULES[i].needle);
        if (at) {
            *cls = RULES[i].cls;
            /* the exception's name leads when it is on the line: "torch.OutOfMemoryError: CUDA ..."
             */
            const char *ex = exception(line);
            copy_msg(ex && ex < at ? ex : at, message, msglen);
            return 1;
        }
    }
    size_t n;
    const char *w = py_warning(line, &n);
    if (w) {
        *cls = TC_TRAIN_PY_WARNING;
        if (n >= catlen)
            n = catlen - 1;
        memcpy(category, w, n);
        category[n] = '\0';
        copy_msg(w, message, msglen);
        return 1;
    }
    const char *ex = exception(line);
    if (ex) {
        *cls = TC_TRAIN_ERROR;
        copy_msg(ex, message, msglen);
        return 1;
    }
    return 0;
}

int tc_trainer_tally_add(tc_trainer_tally *t, tc_train_class cls, const char *category,
                         const char *message, int64_t step)
{
    t->changed = 1;
    for (size_t i = 0; i < t->n; i++) {
        tc_train_warning *w = &t->w[i];
        if (w->cls == cls && strcmp(w->category, category) == 0 &&
            strncmp(w->message, message, sizeof w->message - 1) == 0) {
            w->count++;
            return 0;
        }
    }
    if (t->n >= TC_TRAINER_MAX_DISTINCT) {
        t->beyond++;
        return 0;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 16;
        tc_train_warning *grown = realloc(t->w, cap * sizeof *grown);
        if (!grown)
            return -1;
        t->w = grown;
        t->cap = cap;
    }
    tc_train_warning *w = &t->w[t->n++];
    memset(w, 0, sizeof *w);
    w->cls = cls;
    copy_msg(category, w->category, sizeof w->category);
    copy_msg(message, w->message, sizeof w->message);
    w->count = 1;
    w->first_step = step;
    return 0;
}

void tc_trainer_tally_free(tc_trainer_tally *t)
{
    if (!t)
        return;
    free(t->w);
    memset(t, 0, sizeof *t);
}
