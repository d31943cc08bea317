/* libFuzzer target: the config.json reader (modelfile_config.c), fed any
 * bytes; an accepted config must give a plausible shape whose memory terms
 * are finite for every task, and a card judged on them. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analysis/fit.h"
#include "modelfile/modelfile_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void judge(const tc_model_shape *m, tc_fit_task task)
{
    tc_fit_options o;
    tc_fit_terms t;
    tc_fit_options_default(&o);
    o.task = task;
    if (!m->dtype_bytes)
        memcpy(o.dtype, "bf16", 5);
    tc_fit_resolve(&o, m, 0);
    if (tc_fit_compute(m, &o, &t, NULL, 0) != TC_OK)
        return;
    if (!isfinite(t.total) || t.total <= 0)
        __builtin_trap();
    tc_fit_card c;
    tc_fit_card_vram(24, &c);
    tc_fit_judge(m, &o, &t, &c);
    if (c.verdict == TC_FIT_FITS && c.spare_share < TC_FIT_TIGHT_SHARE)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tc_model_shape m;
    char err[512] = "";
    tc_err rc =
        tc_modelfile_config_parse("config.json", (const char *)data, size, &m, err, sizeof err);
    if (rc != TC_OK && rc != TC_ERR_NOMEM &&
        (strncmp(err, "config.json: ", 13) != 0 || !memchr(err, 0, sizeof err)))
        __builtin_trap();
    if (rc != TC_OK)
        return 0;
    if (m.layers < 1 || m.hidden < 1 || m.heads < 1 || m.vocab < 1 || m.params == 0)
        __builtin_trap();
    judge(&m, TC_FIT_SERVE);
    judge(&m, TC_FIT_LORA);
    judge(&m, TC_FIT_FULL);
    return 0;
}
