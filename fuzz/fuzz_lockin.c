/* libFuzzer target: the lock-in assessment (INI) parser, fed any bytes a
 * user's file could hold; whatever it accepts must evaluate, and its range
 * parser (also used for --gaps-top) must take any string. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "assess/lockin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void range_of(const uint8_t *data, size_t size)
{
    char text[128];
    size_t n = size < sizeof text - 1 ? size : sizeof text - 1;
    memcpy(text, data, n);
    text[n] = '\0';
    tc_lockin_range r;
    char err[256] = "";
    if (tc_lockin_range_parse(text, &r, err, sizeof err) == TC_OK) {
        if (!(r.low <= r.mode && r.mode <= r.high) || r.low < 0)
            __builtin_trap(); /* an accepted range is in order */
    } else if (err[0] == '\0') {
        __builtin_trap();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    range_of(data, size);
    tc_lockin a;
    char err[512] = "";
    if (tc_lockin_parse("fuzz.ini", (const char *)data, size, &a, err, sizeof err) != TC_OK) {
        if (err[0] == '\0' || !memchr(err, 0, sizeof err))
            __builtin_trap(); /* every rejection explains itself */
        return 0;
    }
    /* A few samples keep the fuzzer fast; the evidence paths run too. */
    tc_lockin_overrides o = {.has_perf_ratio = 1,
                             .perf_ratio = 0.6,
                             .has_running_saving = 1,
                             .running_saving_per_month = 100};
    tc_lockin_result r;
    if (tc_lockin_evaluate(&a, &o, 64, size, &r, err, sizeof err) == TC_OK) {
        if (!(r.total.p10 <= r.total.p50 && r.total.p50 <= r.total.p90) || isnan(r.mean))
            __builtin_trap();
        char reading[600];
        tc_lockin_reading(&r, reading, sizeof reading);
        tc_lockin_result_free(&r);
    }
    return 0;
}
