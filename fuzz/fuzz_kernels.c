/* libFuzzer target: the kernel table reader (every format, detected from
 * the bytes), fed any bytes. What it accepts must hold together: the
 * kernels' times add up to the total, the class shares to 1, and the
 * comparison with a fixed table gives a sane tuning list and a document. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <jansson.h>

#include "assess/kernels.h"
#include "report/report_kernels.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char FIXED[] = "Time (%),Total Time (ns),Instances,Name\n"
                            "50,5000,5,ampere_sgemm_128x64_tn\n"
                            "30,3000,3,\"void flash_fwd_kernel<128>(Flash_fwd_params)\"\n"
                            "20,2000,2,vectorized_elementwise_kernel\n";

static void check_table(const tc_kernel_table *t)
{
    int64_t sum = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (t->k[i].time_ns < 0 || !t->k[i].name[0] || strlen(t->k[i].name) > TC_KERNELS_MAX_NAME)
            __builtin_trap();
        sum += t->k[i].time_ns;
    }
    if (sum != t->total_ns || t->total_ns <= 0 || t->n > TC_KERNELS_MAX_KERNELS ||
        t->rows > TC_KERNELS_MAX_ROWS)
        __builtin_trap();
}

static void check_profiles(const tc_kernel_profile *a, const tc_kernel_profile *b)
{
    double shares = 0;
    for (int c = 0; c < TC_KCLASS_N; c++)
        shares += b->cls[c].share;
    if (!(fabs(shares - 1) < 1e-9))
        __builtin_trap();
    tc_kernel_compare cmp;
    if (tc_kernels_compare(a, b, NULL, &cmp) != TC_OK)
        return;
    if (!(cmp.t_perf.low <= cmp.t_perf.mode && cmp.t_perf.mode <= cmp.t_perf.high))
        __builtin_trap();
    for (size_t i = 0; i < cmp.n_tune; i++)
        if (cmp.tune[i].saving_ns <= 0 || cmp.tune[i].n_kernels > TC_KERNELS_TUNE_MAX_KERNELS ||
            (i && cmp.tune[i].saving_ns > cmp.tune[i - 1].saving_ns))
            __builtin_trap();
    tc_kernels_doc d = {{a, b}, 2, &cmp, {"a", "b"}, NULL, 5};
    json_t *doc = tc_report_kernels_json(&d);
    json_decref(doc);
    tc_kernels_compare_free(&cmp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[1024] = "";
    tc_kernel_table t, fixed;
    tc_err rc = tc_kernels_parse("fuzz", (const char *)data, size, &t, err, sizeof err);
    if (rc != TC_OK) {
        if (rc != TC_ERR_NOMEM && (!err[0] || !memchr(err, 0, sizeof err)))
            __builtin_trap(); /* every rejection explains itself */
        return 0;
    }
    check_table(&t);
    tc_kernels_classify(&t, NULL);
    if (tc_kernels_parse("fixed", FIXED, sizeof FIXED - 1, &fixed, err, sizeof err) != TC_OK)
        __builtin_trap();
    tc_kernels_classify(&fixed, NULL);
    tc_kernel_profile a, b;
    if (tc_kernels_profile(&fixed, 5, &a) == TC_OK && tc_kernels_profile(&t, 5, &b) == TC_OK) {
        check_profiles(&a, &b);
        check_profiles(&b, &a);
    }
    tc_kernels_profile_free(&a);
    tc_kernels_profile_free(&b);
    tc_kernels_table_free(&fixed);
    tc_kernels_table_free(&t);
    return 0;
}
