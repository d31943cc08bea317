/* bench_kernels: `truecost kernels` on a rocprofv3 kernel_trace.csv of
 * 1,000,000 dispatches (issue 29: under 2 s). The trace has the real
 * column set and real-looking names (long quoted C++ templates beside
 * short Tensile names), is written to a temporary file, then read, parsed,
 * classified and profiled. The floor is reading the same file once, in the
 * same run: the figure is printed as a ratio to it. Medians of 3. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "assess/kernels.h"
#include "core/tc_time.h"

#define ROWS 1000000

static const char *const NAMES[] = {
    "Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0_GRVW8_ISA942_WG32_8_1_WGM8",
    "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::Half>, "
    "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<c10::Half>, "
    "at::detail::Array<char*, 3>)",
    "void vllm::rms_norm_kernel<c10::Half, 8, 4>(c10::Half*, c10::Half const*, c10::Half "
    "const*, float, int, int)",
    "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::Half, float, c10::Half, "
    "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(c10::Half*, c10::Half const*, "
    "int)",
    "__amd_rocclr_copyBuffer",
    "Cijk_Ailk_Bljk_HHS_BH_MT64x64x64_MI32x32x8x1_SN_1LDSB0_GRVW4_ISA942_WG16_16_1_WGM4",
    "void vllm::act_and_mul_kernel<c10::Half, &(c10::Half vllm::silu_kernel<c10::Half>(c10::Half "
    "const&)), true>(c10::Half*, c10::Half const*, int)",
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
    "at::native::ArgMaxOps<float>, unsigned int, long, 4> >(at::native::ReduceOp<float, "
    "at::native::ArgMaxOps<float>, unsigned int, long, 4>)",
};
#define N_NAMES (sizeof NAMES / sizeof NAMES[0])

/* Writes the trace; returns its size in bytes, or 0. */
static size_t write_trace(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return 0;
    fputs("\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\","
          "\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\","
          "\"End_Timestamp\",\"LDS_Block_Size\",\"Scratch_Size\",\"VGPR_Count\","
          "\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\",\"Workgroup_Size_Y\","
          "\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n",
          f);
    long long t = 1551874061244694LL;
    for (long i = 0; i < ROWS; i++) {
        size_t k = (size_t)(i * 7 + i / 3) % N_NAMES;
        long long dur = 2000 + (i * 37) % 60000;
        fprintf(f,
                "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,852831,%ld,%zu,\"%s\",%ld,%lld,%lld,0,0,"
                "128,0,64,256,1,1,%ld,1,1\n",
                i + 1, k, NAMES[k], i + 1, t, t + dur, 1024 + i % 4096);
        t += dur + 500;
    }
    long size = ftell(f);
    return fclose(f) == 0 && size > 0 ? (size_t)size : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Seconds to read the file (floor), or to read, parse, classify and
 * profile it; exits on a failure. */
static double once(const char *path, int floor)
{
    char *text, err[512];
    size_t len;
    int64_t t0 = tc_mono_ns();
    if (tc_kernels_read_file(path, &text, &len, err, sizeof err) != TC_OK) {
        fprintf(stderr, "bench_kernels: %s\n", err);
        exit(1);
    }
    if (!floor) {
        tc_kernel_table t;
        tc_kernel_profile p;
        if (tc_kernels_parse(path, text, len, &t, err, sizeof err) != TC_OK) {
            fprintf(stderr, "bench_kernels: %s\n", err);
            exit(1);
        }
        tc_kernels_classify(&t, NULL);
        if (tc_kernels_profile(&t, 10, &p) != TC_OK || t.rows != ROWS || t.n != N_NAMES) {
            fprintf(stderr, "bench_kernels: the trace read wrong (%zu rows)\n", t.rows);
            exit(1);
        }
        tc_kernels_profile_free(&p);
        tc_kernels_table_free(&t);
    }
    free(text);
    return (double)(tc_mono_ns() - t0) / 1e9;
}

static double median3(const char *path, int floor)
{
    double t[3];
    for (int i = 0; i < 3; i++)
        t[i] = once(path, floor);
    qsort(t, 3, sizeof t[0], cmp_double);
    return t[1];
}

int main(void)
{
    char path[] = "/tmp/bench_kernels_XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("bench_kernels: mkstemp");
        return 1;
    }
    close(fd);
    size_t bytes = write_trace(path);
    if (!bytes) {
        fprintf(stderr, "bench_kernels: cannot write %s\n", path);
        unlink(path);
        return 1;
    }
    double floor = median3(path, 1), full = median3(path, 0);
    unlink(path);
    printf("kernels bench: a rocprofv3 kernel_trace.csv of %d dispatches (%.0f MB), %zu kernels, "
           "medians of 3\n",
           ROWS, (double)bytes / 1e6, N_NAMES);
    printf("  read, parse, classify, profile  %.3f s (reading the file once %.3f s, x%.1f)  "
           "target < 2 s: %s\n",
           full, floor, floor > 0 ? full / floor : 0, full < 2 ? "PASS" : "FAIL");
    return 0;
}
