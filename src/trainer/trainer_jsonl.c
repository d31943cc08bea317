/* JSON lines: one object a step, {"step": N, "loss": ..., "samples": ...,
 * "tokens": ..., "lr": ..., "peak_memory_bytes": ...}. */
#include <jansson.h>
#include <math.h>
#include <string.h>

#include "trainer.h"

static int num(json_t *o, const char *key, double *out)
{
    json_t *v = json_object_get(o, key);
    if (!json_is_number(v))
        return 0;
    double d = json_number_value(v);
    if (!isfinite(d))
        return 0;
    *out = d;
    return 1;
}

int tc_trainer_jsonl(const char *line, size_t len, tc_train_step *s)
{
    const char *p = line;
    while (len > 0 && (*p == ' ' || *p == '\t')) {
        p++;
        len--;
    }
    if (len < 2 || *p != '{' || !memchr(p, '"', len))
        return 0;
    json_t *o = json_loadb(p, len, JSON_REJECT_DUPLICATES, NULL);
    double step = NAN;
    int ok = json_is_object(o) && num(o, "step", &step) && step >= 0 && step < 9e18;
    if (ok) {
        double v;
        s->step = (int64_t)step;
        num(o, "loss", &s->loss);
        num(o, "lr", &s->lr);
        if (num(o, "samples", &v) && v >= 0)
            s->samples = v;
        if (num(o, "tokens", &v) && v >= 0)
            s->tokens = v;
        if (num(o, "samples_per_s", &v) && v >= 0)
            s->samples_per_s = v;
        if (num(o, "tokens_per_s", &v) && v >= 0)
            s->tokens_per_s = v;
        if (num(o, "peak_memory_bytes", &v) && v >= 0 && v < 9e18)
            s->peak_memory_bytes = (int64_t)v;
    }
    json_decref(o);
    return ok;
}
