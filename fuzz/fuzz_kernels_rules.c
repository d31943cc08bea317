/* libFuzzer target: the kernel rules file (--rules), fed any bytes. What
 * it accepts classifies a few kernel names without harm, and its own
 * patterns match the names they were written for when they hold no glob
 * characters. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "assess/kernels.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024] = "";
    tc_kernel_rules r;
    tc_err rc = tc_kernels_rules_parse("fuzz", (const char *)data, size, &r, err, sizeof err);
    if (rc != TC_OK) {
        if (rc != TC_ERR_NOMEM && (!err[0] || !memchr(err, 0, sizeof err)))
            __builtin_trap();
        return 0;
    }
    if (r.n == 0 || r.n > TC_KERNELS_MAX_RULES)
        __builtin_trap();
    static const char *const names[] = {"ampere_sgemm_128x64_tn", "flash_fwd_kernel",
                                        "cunn_SoftMaxForward", ""};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        (void)tc_kernels_classify_name(&r, names[i], NULL);
    for (size_t i = 0; i < r.n; i++) {
        const char *p = r.rules[i].pattern;
        if (!p[0] || strlen(p) > TC_KERNELS_MAX_PATTERN ||
            (unsigned)r.rules[i].klass >= TC_KCLASS_N)
            __builtin_trap();
        const tc_kernel_rule *hit;
        /* A plain pattern matches itself, by this rule or an earlier one. */
        if (!strpbrk(p, "*?") && (tc_kernels_classify_name(&r, p, &hit), !hit || hit > &r.rules[i]))
            __builtin_trap();
    }
    tc_kernels_rules_free(&r);
    return 0;
}
