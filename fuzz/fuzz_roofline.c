/* libFuzzer target: the GPU spec CSV parser (--gpu-specs files) and the
 * parameter-count and quantisation readers, fed any bytes. Whatever the
 * parser accepts must be matchable and usable for a ceiling. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analysis/roofline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input as a C string for the one-line readers (at most 63 bytes). */
static void short_text(const uint8_t *data, size_t size, char out[64])
{
    size_t n = size < 63 ? size : 63;
    memcpy(out, data, n);
    out[n] = '\0';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tc_roofline_table t = {0};
    char err[512] = "";
    tc_err rc =
        tc_roofline_table_add_csv(&t, "fuzz.csv", (const char *)data, size, 0, err, sizeof err);
    if (rc != TC_OK && (err[0] == '\0' || !memchr(err, 0, sizeof err)))
        __builtin_trap(); /* every rejection explains itself */
    if (rc != TC_OK && t.n != 0)
        __builtin_trap(); /* a rejected file keeps no row */
    char text[64];
    short_text(data, size, text);
    double v = 0;
    if (tc_roofline_parse_params(text, &v) == TC_OK && !(v >= 1))
        __builtin_trap();
    if (tc_roofline_quant_bits(text, &v) == TC_OK && !(v > 0))
        __builtin_trap(); /* an accepted quantisation has bits */
    for (int i = 0; i < t.n; i++) {
        if (!(t.rows[i].bandwidth_gb_s > 0) || tc_roofline_lookup(&t, t.rows[i].name) == NULL)
            __builtin_trap(); /* every accepted row has a bandwidth and finds itself */
        tc_roofline_inputs in = {.gpu_name = t.rows[i].name,
                                 .model_bytes = 1e9,
                                 .params = 1e9,
                                 .measured_decode_tps = 10};
        tc_roofline_result r;
        if (tc_roofline_for_run(&t, &in, &r, err, sizeof err) != TC_OK || !r.has_decode)
            __builtin_trap();
    }
    tc_roofline_lookup(&t, text);
    tc_roofline_table_free(&t);
    return 0;
}
