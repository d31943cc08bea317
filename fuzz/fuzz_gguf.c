/* libFuzzer target: the GGUF reader (modelfile_gguf.c), fed any bytes as a
 * whole file and as a prefix that asks for more. Whatever it accepts must
 * be a shape whose bytes lie inside the file and whose memory terms are
 * finite; every rejection explains itself. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analysis/fit.h"
#include "modelfile/modelfile_gguf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_err(tc_err rc, const char *err, size_t errlen)
{
    if (rc != TC_OK && rc != TC_ERR_NOMEM &&
        (strncmp(err, "fuzz.gguf: offset ", 18) != 0 || !memchr(err, 0, errlen)))
        __builtin_trap(); /* "FILE: offset N: why" */
}

/* The terms of an accepted shape: finite and not negative. */
static void terms(const tc_model_shape *m)
{
    tc_fit_options o;
    tc_fit_terms t;
    tc_fit_options_default(&o);
    tc_fit_resolve(&o, m, 0);
    if (tc_fit_compute(m, &o, &t, NULL, 0) != TC_OK)
        return;
    if (!isfinite(t.total) || t.total < 0)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tc_model_shape m;
    char err[512] = "";
    size_t need = 1;
    tc_err rc = tc_modelfile_gguf_parse("fuzz.gguf", data, size, size, &m, &need, err, sizeof err);
    check_err(rc, err, sizeof err);
    if (rc == TC_OK && need != 0)
        __builtin_trap(); /* the whole file never asks for more */
    if (rc == TC_OK) {
        if (m.weight_bytes > size || m.n_types > TC_MODEL_MAX_TYPES)
            __builtin_trap(); /* every tensor's bytes are inside the file */
        for (int i = 1; i < m.n_types; i++)
            if (m.types[i].bytes > m.types[i - 1].bytes)
                __builtin_trap();
        terms(&m);
    }
    /* Half of it, from a file of the full size: more is asked for, within
     * the file, or the same verdict is reached. */
    need = 0;
    err[0] = '\0';
    rc = tc_modelfile_gguf_parse("fuzz.gguf", data, size / 2, size, &m, &need, err, sizeof err);
    check_err(rc, err, sizeof err);
    if (rc == TC_OK && need && (need <= size / 2 || need > size))
        __builtin_trap();
    return 0;
}
