/* libFuzzer target: the reader of llama.cpp's and vLLM's memory lines
 * (analysis/fit_log.c), fed any bytes; whatever it reads is put beside a
 * prediction, and every figure must be finite and not negative. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analysis/fit_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tc_fit_log l;
    char err[512] = "";
    tc_err rc = tc_fit_log_parse("fuzz.log", (const char *)data, size, &l, err, sizeof err);
    if (rc != TC_OK && (strncmp(err, "fuzz.log: ", 10) != 0 || !memchr(err, 0, sizeof err)))
        __builtin_trap();
    if (rc != TC_OK)
        return 0;
    if (l.n_devices > TC_FIT_LOG_MAX_DEVICES || l.model_bytes < 0 || l.kv_bytes < 0 ||
        l.compute_bytes < 0 || !isfinite(l.model_bytes + l.kv_bytes + l.compute_bytes))
        __builtin_trap();
    tc_model_shape m = {.layers = 2,
                        .hidden = 64,
                        .heads = 4,
                        .kv_heads = 2,
                        .kv_heads_sum = 4,
                        .key_length = 16,
                        .value_length = 16,
                        .ffn = 128,
                        .vocab = 100,
                        .params = 100000,
                        .weight_bytes = 200000,
                        .format = TC_MODEL_GGUF};
    tc_fit_options o;
    tc_fit_terms t;
    tc_fit_options_default(&o);
    o.engine = l.engine == TC_FIT_LOG_VLLM ? TC_FIT_ENGINE_VLLM : TC_FIT_ENGINE_LLAMACPP;
    tc_fit_resolve(&o, &m, 1);
    if (tc_fit_compute(&m, &o, &t, NULL, 0) != TC_OK)
        __builtin_trap();
    tc_fit_card c;
    tc_fit_card_vram(1, &c);
    tc_fit_judge(&m, &o, &t, &c);
    tc_fit_check k[TC_FIT_MAX_CHECKS];
    int n = tc_fit_log_compare(&l, &m, &o, &t, &c, k);
    if (n < 0 || n > TC_FIT_MAX_CHECKS)
        __builtin_trap();
    return 0;
}
