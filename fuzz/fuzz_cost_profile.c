/* libFuzzer target: the cost profile (INI) parser, fed any bytes a user's
 * file could hold; whatever it accepts must be computable. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analysis/cost.h"
#include "analysis/cost_profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    tc_cost_profile p;
    char err[512] = "";
    if (tc_cost_profile_parse("fuzz.ini", (const char *)data, size, &p, err, sizeof err) != TC_OK) {
        if (err[0] == '\0' || !memchr(err, 0, sizeof err))
            __builtin_trap(); /* every rejection explains itself */
        return 0;
    }
    tc_cost_measured m = {.output_tokens_per_s = 100,
                          .has_power = 1,
                          .busy_power_w = 300,
                          .has_idle = 1,
                          .idle_power_w = 50,
                          .joules_per_output_token = 3};
    tc_cost_result r;
    if (tc_cost_compute(&p, &m, &r) != TC_OK)
        return 0; /* refused inputs are fine: not crashing is the check */
    return 0;
}
