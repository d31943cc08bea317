/* libFuzzer target: the --fault spec parser, and the decisions of
 * whatever plan it accepts. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_fault.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *spec = malloc(size + 1);
    if (!spec)
        return 0;
    memcpy(spec, data, size);
    spec[size] = '\0';
    tc_sim_fault_plan plan = {0};
    char err[512];
    if (tc_sim_fault_parse(&plan, spec, err, sizeof err) == 0) {
        for (int i = 0; i < plan.count; i++)
            if (!(plan.rules[i].rate >= 0 && plan.rules[i].rate <= 1) || plan.rules[i].arg < 0)
                __builtin_trap();
        tc_sim_fault_decision d = tc_sim_fault_decide(&plan, size, 1);
        if (d.stall_ms < 0 || d.slow_accept_ms < 0)
            __builtin_trap();
    } else if (err[0] == '\0') {
        __builtin_trap();
    }
    free(spec);
    return 0;
}
