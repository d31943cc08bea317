/* libFuzzer target: stored figures (analysis/figures_stored), read from a
 * database file that anyone may have written. Any bytes are decoded or
 * refused with the field named; what decodes must encode and decode again
 * to the same text (the codec is its own inverse). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/figures_codec.h"
#include "views/view_stored.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), err[256] = "";
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    tc_run_metrics m;
    tc_err rc = tc_figures_decode(text, &m, err, sizeof err);
    free(text);
    if (rc != TC_OK) {
        if (err[0] == '\0')
            __builtin_trap(); /* every refusal names what was wrong */
        return 0;
    }
    char *once = tc_figures_encode(&m);
    tc_run_metrics again;
    if (!once || tc_figures_decode(once, &again, err, sizeof err) != TC_OK)
        __builtin_trap();
    char *twice = tc_figures_encode(&again);
    if (!twice || strcmp(once, twice) != 0)
        __builtin_trap();
    free(once);
    free(twice);
    tc_run_metrics_free(&m);
    tc_run_metrics_free(&again);
    return 0;
}
