/* One kernel profile: the time per class, the kernels by time, the
 * largest non-GEMM ones (the seed's fallback suspects) and attention that
 * runs as batched GEMM plus softmax. */
#include <stdlib.h>
#include <string.h>

#include "kernels_internal.h"

/* Largest time first, then by name, so that the order never depends on
 * the file's row order. */
static int by_time(const void *x, const void *y)
{
    const tc_kernel *a = *(const tc_kernel *const *)x, *b = *(const tc_kernel *const *)y;
    if (a->time_ns != b->time_ns)
        return a->time_ns > b->time_ns ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* A softmax's time: a softmax kernel, or a Triton kernel that Inductor
 * named after the softmax it fused. */
static int softmax_like(const tc_kernel *k)
{
    return k->klass == TC_KCLASS_SOFTMAX ||
           (k->klass == TC_KCLASS_TRITON && tc_kernels_glob("*softmax*", k->name));
}

static int batched_gemm(const tc_kernel *k)
{
    return k->klass == TC_KCLASS_GEMM &&
           (tc_kernels_glob("*batched*", k->name) || tc_kernels_glob("*bmm*", k->name));
}

/* The fallback of p, from its kernels largest first. */
static void find_fallback(tc_kernel_profile *p)
{
    tc_kernel_fallback *f = &p->fallback;
    for (size_t i = 0; i < p->n; i++) {
        const tc_kernel *k = p->by_time[i];
        if (softmax_like(k)) {
            f->softmax_ns += k->time_ns;
            f->softmax = f->softmax ? f->softmax : k;
        }
        if (batched_gemm(k)) {
            f->batched_gemm_ns += k->time_ns;
            f->batched = f->batched ? f->batched : k;
        }
    }
    f->gemm_ns = p->cls[TC_KCLASS_GEMM].time_ns;
    f->probable = p->cls[TC_KCLASS_ATTENTION].time_ns == 0 &&
                  p->cls[TC_KCLASS_ATTENTION].kernels == 0 && f->softmax_ns > 0 && f->gemm_ns > 0;
}

tc_err tc_kernels_profile(const tc_kernel_table *t, size_t top, tc_kernel_profile *out)
{
    if (!out)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (!t || t->total_ns <= 0)
        return TC_ERR_INVALID;
    out->t = t;
    out->by_time = malloc((t->n ? t->n : 1) * sizeof *out->by_time);
    out->suspects = malloc((top ? top : 1) * sizeof *out->suspects);
    if (!out->by_time || !out->suspects) {
        tc_kernels_profile_free(out);
        return TC_ERR_NOMEM;
    }
    for (size_t i = 0; i < t->n; i++) {
        const tc_kernel *k = &t->k[i];
        out->by_time[out->n++] = k;
        out->cls[k->klass].time_ns += k->time_ns;
        out->cls[k->klass].kernels++;
    }
    for (int c = 0; c < TC_KCLASS_N; c++)
        out->cls[c].share = (double)out->cls[c].time_ns / (double)t->total_ns;
    qsort(out->by_time, out->n, sizeof *out->by_time, by_time);
    for (size_t i = 0; i < out->n && out->n_suspects < top; i++)
        if (out->by_time[i]->klass != TC_KCLASS_GEMM)
            out->suspects[out->n_suspects++] = out->by_time[i];
    find_fallback(out);
    return TC_OK;
}

void tc_kernels_profile_free(tc_kernel_profile *p)
{
    if (!p)
        return;
    free(p->by_time);
    free(p->suspects);
    memset(p, 0, sizeof *p);
}
