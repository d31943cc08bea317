/* libFuzzer target: --slo (analysis/slo) and the durations it reads
 * (core/tc_number), from a command line or a stored run. Any text is
 * taken or refused with the item named; what is taken writes back as
 * text that reads back to the same objectives. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/slo.h"
#include "core/tc_number.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1), err[512] = "";
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    double ms;
    if (tc_parse_duration_ms(text, &ms) == 0 && !(ms >= 0))
        __builtin_trap(); /* a duration is never negative or NaN */
    tc_slo slo, again;
    if (tc_slo_parse(text, &slo, err, sizeof err) != TC_OK) {
        if (!err[0])
            __builtin_trap(); /* every refusal says why */
        free(text);
        return 0;
    }
    char back[TC_SLO_TEXT_MAX];
    tc_slo_text(&slo, back, sizeof back);
    if (tc_slo_parse(back, &again, err, sizeof err) != TC_OK || again.has_ttft != slo.has_ttft ||
        again.has_tpot != slo.has_tpot || again.has_e2e != slo.has_e2e)
        __builtin_trap();
    free(text);
    return 0;
}
