/* Unit tests of the kernel tables: each profiler's format with its exact
 * columns (class times checked to the nanosecond against sums written
 * here), the rule table, normalised names, the fallback detection, two
 * platforms compared and their tuning list, the rules file, and every bad
 * input of issue 29 with its message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "assess/kernels.h"

#define EXAMPLES TC_FIXTURES_DIR "/../../examples/"

/* Fails unless every NULL-ended fragment is in err. */
static void has_all(const char *err, ...)
{
    va_list ap;
    va_start(ap, err);
    for (const char *frag; (frag = va_arg(ap, const char *));)
        if (!strstr(err, frag))
            fail_msg("'%s' not in '%s'", frag, err);
    va_end(ap);
}

static void near(double a, double b)
{
    if (fabs(a - b) > 1e-12 * (fabs(b) + 1))
        fail_msg("%.15g != %.15g", a, b);
}

static tc_kernel_table parse_ok(const char *text)
{
    tc_kernel_table t;
    char err[1024] = "";
    if (tc_kernels_parse("k.csv", text, strlen(text), &t, err, sizeof err) != TC_OK)
        fail_msg("parse: %s", err);
    tc_kernels_classify(&t, NULL);
    return t;
}

/* The error of parsing text, which must fail with TC_ERR_PARSE. */
static const char *parse_bad(const char *text, size_t len)
{
    static char err[1024];
    tc_kernel_table t;
    err[0] = '\0';
    tc_err rc = tc_kernels_parse("bad.csv", text, len, &t, err, sizeof err);
    if (rc != TC_ERR_PARSE)
        fail_msg("expected a parse error, got %d for: %.200s", rc, text);
    assert_int_equal(t.n, 0); /* nothing left behind */
    return err;
}

static const tc_kernel *kernel_named(const tc_kernel_table *t, const char *name)
{
    for (size_t i = 0; i < t->n; i++)
        if (strcmp(t->k[i].name, name) == 0)
            return &t->k[i];
    fail_msg("no kernel %s", name);
    return NULL;
}

/* The class time of t, summed here from its kernels. */
static int64_t class_ns(const tc_kernel_table *t, tc_kernel_class c)
{
    int64_t s = 0;
    for (size_t i = 0; i < t->n; i++)
        s += t->k[i].klass == c ? t->k[i].time_ns : 0;
    return s;
}

/* ---- the formats ---- */

/* nsys stats --report cuda_gpu_kern_sum --format csv, as nsys prints it:
 * the preamble, the header, a quoted name with commas, a second report
 * after the table. */
static const char NSYS[] =
    "Generating SQLite file report.sqlite from report.nsys-rep\n"
    "Processing [report.sqlite] with "
    "[/opt/nvidia/nsight-systems/2024.6.2/host-linux-x64/reports/cuda_gpu_kern_sum.py]... \n"
    "\n"
    " ** CUDA GPU Kernel Summary (cuda_gpu_kern_sum):\n"
    "\n"
    "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
    "60.0,6000,3,2000.0,2000.0,1900,2100,100.0,ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_"
    "stages_32x5_tn\n"
    "20.0,2000,2,1000.0,1000.0,900,1100,141.4,\"void flash_fwd_kernel<Flash_fwd_kernel_traits<128, "
    "64, 4>, false>(Flash_fwd_params)\"\n"
    "10.0,1000,4,250.0,250.0,240,260,8.2,\"void at::native::vectorized_elementwise_kernel<4, "
    "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3> >(int, "
    "at::native::CUDAFunctor_add<float>, at::detail::Array<char*, 3>)\"\n"
    "7.0,700,1,700.0,700.0,700,700,0.0,ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, "
    "unsigned long, ncclWork*)\n"
    "3.0,300,2,150.0,150.0,140,160,14.1,sm90_xmma_gemm_f16f16_f16f32_f32_tn_n_tilesize64x64x64\n"
    "\n"
    "Processing [report.sqlite] with [/opt/nvidia/.../cuda_api_sum.py]... \n"
    "Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
    "99.0,999999,3,1.0,1.0,1,1,0.0,cudaMalloc\n";

static void nsys_kern_sum(void **state)
{
    (void)state;
    tc_kernel_table t = parse_ok(NSYS);
    assert_int_equal(t.format, TC_KFMT_NSYS);
    assert_int_equal(t.n, 5); /* cudaMalloc of the next report is not read */
    assert_int_equal(t.rows, 5);
    /* 6000 + 2000 + 1000 + 700 + 300, and GEMM 6000 + 300 */
    assert_int_equal(t.total_ns, 10000);
    assert_int_equal(class_ns(&t, TC_KCLASS_GEMM), 6300);
    assert_int_equal(class_ns(&t, TC_KCLASS_ATTENTION), 2000);
    assert_int_equal(class_ns(&t, TC_KCLASS_ELEMENTWISE), 1000);
    assert_int_equal(class_ns(&t, TC_KCLASS_COMM), 700);
    const tc_kernel *f =
        kernel_named(&t, "void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64, 4>, "
                         "false>(Flash_fwd_params)");
    assert_int_equal(f->calls, 2);
    assert_int_equal(f->line, 8); /* 5 preamble lines, the header, the GEMM */
    tc_kernel_profile p;
    assert_int_equal(tc_kernels_profile(&t, 10, &p), TC_OK);
    near(p.cls[TC_KCLASS_GEMM].share, 6300.0 / 10000);
    near(p.cls[TC_KCLASS_COMM].share, 700.0 / 10000);
    assert_int_equal(p.cls[TC_KCLASS_GEMM].kernels, 2);
    /* Suspects: the non-GEMM kernels by time. */
    assert_int_equal(p.n_suspects, 3);
    assert_int_equal(p.suspects[0]->time_ns, 2000);
    assert_int_equal(p.suspects[2]->time_ns, 700);
    assert_false(p.fallback.probable);
    tc_kernels_profile_free(&p);
    tc_kernels_table_free(&t);
    tc_kernels_table_free(&t); /* idempotent */
}

/* Older nsys (gpukernsum) and the grid/block variant; --timeunit usec. */
static void nsys_variants(void **state)
{
    (void)state;
    tc_kernel_table t =
        parse_ok("Time(%),Total Time (ns),Instances,Average,Minimum,Maximum,StdDev,Name\n"
                 "75.0,1500,3,500.0,400,600,100.0,volta_sgemm_128x64_nn\n"
                 "25.0,500,1,500.0,500,500,0.0,\"void at::native::reduce_kernel<512, 1>(int)\"\n");
    assert_int_equal(t.format, TC_KFMT_NSYS);
    assert_int_equal(class_ns(&t, TC_KCLASS_GEMM), 1500);
    assert_int_equal(class_ns(&t, TC_KCLASS_REDUCTION), 500);
    tc_kernels_table_free(&t);

    /* cuda_gpu_kern_gb_sum: the same kernel on two grids is one kernel. */
    t = parse_ok("Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev "
                 "(ns),GridXYZ,BlockXYZ,Name\n"
                 "50.0,4000,2,2000.0,2000.0,2000,2000,0.0, 896    1    1 , 128    1    1 ,"
                 "\"rms_norm_kernel<half, 8>(half*, int)\"\n"
                 "50.0,4000,2,2000.0,2000.0,2000,2000,0.0,  56    1    1 , 128    1    1 ,"
                 "\"rms_norm_kernel<half, 8>(half*, int)\"\n");
    assert_int_equal(t.n, 1);
    assert_int_equal(t.k[0].time_ns, 8000);
    assert_int_equal(t.k[0].calls, 4);
    assert_int_equal(t.k[0].klass, TC_KCLASS_NORM);
    tc_kernels_table_free(&t);

    /* nsys stats --timeunit usec: decimals of microseconds, in ns. */
    t = parse_ok("Time (%),Total Time (us),Instances,Avg (us),Name\n"
                 "90.0,12.345,5,2.469,cunn_SoftMaxForward\n"
                 "10.0,1.5,1,1.5,copy_kernel\n");
    assert_int_equal(kernel_named(&t, "cunn_SoftMaxForward")->time_ns, 12345);
    assert_int_equal(kernel_named(&t, "copy_kernel")->time_ns, 1500);
    assert_int_equal(t.total_ns, 13845);
    tc_kernels_table_free(&t);
}

/* rocprofv3 --kernel-trace --stats --output-format csv: kernel_stats.csv. */
static void rocprofv3_kernel_stats(void **state)
{
    (void)state;
    tc_kernel_table t = parse_ok(
        "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\","
        "\"StdDev\"\n"
        "\"Cijk_Alik_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0\",10,50000,5000.000000,50.00,"
        "4000,6000,5.00000000e+02\n"
        "\"__amd_rocclr_copyBuffer\",7,7000,1000.000000,7.00,900,1100,1.00000000e+02\n"
        "\"void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::Half, float, "
        "c10::Half>(c10::Half*, c10::Half const*, int)\",3,30000,10000.000000,30.00,9000,11000,"
        "1.00000000e+03\n"
        "\"triton_poi_fused_add_mul_0.kd\",13,13000,1000.000000,13.00,900,1100,1.00000000e+02\n");
    assert_int_equal(t.format, TC_KFMT_ROCPROF_STATS);
    assert_int_equal(t.total_ns, 50000 + 7000 + 30000 + 13000);
    assert_int_equal(class_ns(&t, TC_KCLASS_GEMM), 50000);
    assert_int_equal(class_ns(&t, TC_KCLASS_COPY), 7000);
    assert_int_equal(class_ns(&t, TC_KCLASS_SOFTMAX), 30000);
    assert_int_equal(class_ns(&t, TC_KCLASS_TRITON), 13000);
    assert_int_equal(kernel_named(&t, "triton_poi_fused_add_mul_0")->calls, 13); /* .kd gone */
    tc_kernels_table_free(&t);
}

/* rocprofv3 kernel_trace.csv: one row a dispatch, its time End - Start. */
static const char TRACE_HEADER[] =
    "\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
    "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\",\"LDS_Block_Size\","
    "\"Scratch_Size\",\"VGPR_Count\",\"Accum_VGPR_Count\",\"SGPR_Count\",\"Workgroup_Size_X\","
    "\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\",\"Grid_Size_Z\"\n";

static void rocprofv3_kernel_trace(void **state)
{
    (void)state;
    char text[4096];
    snprintf(
        text, sizeof text,
        "%s"
        "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,852831,1,10,\"void addition_kernel<float>(float*, "
        "float const*, float const*, int, int)\",1,1551874061244694,1551874061255734,0,0,8,"
        "0,16,64,1,1,1024,1024,1\n"
        "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,852831,2,13,\"__amd_rocclr_fillBufferAligned\","
        "2,1551874061259214,1551874061270254,0,0,8,0,16,64,1,1,1024,1024,1\n"
        "\"KERNEL_DISPATCH\",\"Agent 4\",1,1,852831,3,10,\"void addition_kernel<float>(float*, "
        "float const*, float const*, int, int)\",3,1551874061300000,1551874061300100,0,0,8,0,"
        "16,64,1,1,1024,1024,1\n",
        TRACE_HEADER);
    tc_kernel_table t = parse_ok(text);
    assert_int_equal(t.format, TC_KFMT_ROCPROF_TRACE);
    const tc_kernel *add = kernel_named(
        &t, "void addition_kernel<float>(float*, float const*, float const*, int, int)");
    /* (1551874061255734 - 1551874061244694) + (1551874061300100 - 1551874061300000) */
    assert_int_equal(add->time_ns, 11040 + 100);
    assert_int_equal(add->calls, 2);
    assert_int_equal(kernel_named(&t, "__amd_rocclr_fillBufferAligned")->time_ns, 11040);
    assert_int_equal(t.total_ns, 11040 + 100 + 11040);
    tc_kernels_table_free(&t);

    /* The older rocprofv3 columns (Private/Group_Segment_Size, no
     * Stream_Id), an agent as a bare number, a .kd suffix. */
    t = parse_ok("\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Thread_Id\",\"Dispatch_Id\",\"Kernel_Id\","
                 "\"Kernel_Name\",\"Correlation_Id\",\"Start_Timestamp\",\"End_Timestamp\","
                 "\"Private_Segment_Size\",\"Group_Segment_Size\",\"Workgroup_Size_X\","
                 "\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\","
                 "\"Grid_Size_Z\"\n"
                 "\"KERNEL_DISPATCH\",4,1,74441,1,2,\"_Z11taylor_basePfS_mm.kd\",14,1000,4000,0,0,"
                 "256,1,1,256,1,1\n");
    assert_int_equal(t.k[0].time_ns, 3000);
    assert_string_equal(t.k[0].name, "_Z11taylor_basePfS_mm");
    tc_kernels_table_free(&t);

    /* rocpd convert's out_kernel_trace.csv: a Guid first. */
    t = parse_ok("\"Guid\",\"Kind\",\"Agent_Id\",\"Queue_Id\",\"Stream_Id\",\"Thread_Id\","
                 "\"Dispatch_Id\",\"Kernel_Id\",\"Kernel_Name\",\"Correlation_Id\","
                 "\"Start_Timestamp\",\"End_Timestamp\",\"Lds_Block_Size\",\"Scratch_Size\","
                 "\"Vgpr_Count\",\"Accum_Vgpr_Count\",\"Sgpr_Count\",\"Workgroup_Size_X\","
                 "\"Workgroup_Size_Y\",\"Workgroup_Size_Z\",\"Grid_Size_X\",\"Grid_Size_Y\","
                 "\"Grid_Size_Z\"\n"
                 "\"00006409-00d1-70d1-a5cb-b5ab88214544\",\"KERNEL_DISPATCH\",\"Agent 4\",1,0,"
                 "714789,1,3,\"ck::kernel_gemm_xdl_cshuffle_v3<256>\",1,1678314002982197,"
                 "1678314003082277,8456,0,16,0,32,256,1,1,233472,1,1\n");
    assert_int_equal(t.format, TC_KFMT_ROCPD_TRACE);
    assert_int_equal(t.k[0].time_ns, 1678314003082277 - 1678314002982197);
    assert_int_equal(t.k[0].klass, TC_KCLASS_GEMM);
    tc_kernels_table_free(&t);
}

/* rocprof v1/v2 --stats: results.stats.csv. */
static void rocprof_v1_stats(void **state)
{
    (void)state;
    tc_kernel_table t =
        parse_ok("\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\n"
                 "\"copy_kernel(float*, float*, int, int) [clone .kd]\",1,165920,165920,60.0\n"
                 "\"MIOpenBatchNormFwdTrainSpatial.kd\",2,110000,55000,39.76\n"
                 "\"Cijk_Ailk_Bljk_SB_MT64x64x8_SN.kd\",1,640,640,0.23\n");
    assert_int_equal(t.format, TC_KFMT_ROCPROF_V1);
    assert_int_equal(kernel_named(&t, "copy_kernel(float*, float*, int, int)")->time_ns, 165920);
    assert_int_equal(class_ns(&t, TC_KCLASS_COPY), 165920);
    assert_int_equal(class_ns(&t, TC_KCLASS_NORM), 110000);
    assert_int_equal(class_ns(&t, TC_KCLASS_GEMM), 640);
    tc_kernels_table_free(&t);
}

/* PyTorch: the kernels are the device-only rows; times carry units. */
static void pytorch_formats(void **state)
{
    (void)state;
    /* key_averages().table() with its eleven columns. */
    tc_kernel_table t = parse_ok("log line before the table\n"
                                 "----------------------------  -------------  -------------  "
                                 "-------------  -------------  -------------  -------------  "
                                 "-------------  -------------  -------------  -------------  \n"
                                 "                        Name     Self CPU %       Self CPU    "
                                 "CPU total %      CPU total   CPU time avg      Self CUDA    Self "
                                 "CUDA %     CUDA total  CUDA time avg     # of Calls  \n"
                                 "----------------------------  -------------  -------------  "
                                 "-------------  -------------  -------------  -------------  "
                                 "-------------  -------------  -------------  -------------  \n"
                                 "                    aten::mm         20.00%        1.000ms       "
                                 "  40.00%        2.000ms      200.000us        3.500ms         "
                                 "93.30%        3.500ms      350.000us             10  \n"
                                 "   ampere_sgemm_128x64_tn...          0.00%        0.000us       "
                                 "   0.00%        0.000us        0.000us        3.500ms         "
                                 "93.30%        3.500ms      350.000us             10  \n"
                                 "    cunn_SoftMaxForward(...)          0.00%        0.000us       "
                                 "   0.00%        0.000us        0.000us      250.000us          "
                                 "6.66%      250.000us       50.000us              5  \n"
                                 "    Memcpy HtoD (Pageable ->          0.00%        0.000us       "
                                 "   0.00%        0.000us        0.000us        1.500us          "
                                 "0.04%        1.500us        1.500us              1  \n"
                                 "            cudaLaunchKernel         10.00%      500.000us       "
                                 "  10.00%      500.000us       20.000us        0.000us          "
                                 "0.00%        0.000us        0.000us             25  \n"
                                 "----------------------------  -------------  -------------  "
                                 "-------------  -------------  -------------  -------------  "
                                 "-------------  -------------  -------------  -------------  \n"
                                 "Self CPU time total: 1.500ms\n"
                                 "Self CUDA time total: 3.752ms\n");
    assert_int_equal(t.format, TC_KFMT_TORCH_TABLE);
    assert_int_equal(t.n, 3);
    assert_int_equal(t.skipped, 2); /* aten::mm, cudaLaunchKernel */
    assert_int_equal(kernel_named(&t, "ampere_sgemm_128x64_tn...")->time_ns, 3500000);
    assert_int_equal(kernel_named(&t, "cunn_SoftMaxForward(...)")->time_ns, 250000);
    assert_int_equal(kernel_named(&t, "Memcpy HtoD (Pageable ->")->time_ns, 1500);
    assert_int_equal(t.total_ns, 3500000 + 250000 + 1500);
    assert_true(t.cut_names);
    assert_int_equal(class_ns(&t, TC_KCLASS_COPY), 1500);
    tc_kernels_table_free(&t);

    /* A CSV export of key_averages: microseconds; operators have CPU time. */
    t = parse_ok("name,self_cpu_time_total,cpu_time_total,self_device_time_total,count\n"
                 "aten::addmm,12.5,30.0,100.25,4\n"
                 "sm80_xmma_gemm_f16f16_f16f32,0,0,100.25,4\n"
                 "\"void at::native::vectorized_layer_norm_kernel<float, float>(int, float, "
                 "float const*)\",0,0,20.5,2\n");
    assert_int_equal(t.format, TC_KFMT_TORCH_CSV);
    assert_int_equal(t.n, 2);
    assert_int_equal(t.skipped, 1);
    assert_int_equal(class_ns(&t, TC_KCLASS_GEMM), 100250);
    assert_int_equal(class_ns(&t, TC_KCLASS_NORM), 20500);
    tc_kernels_table_free(&t);
}

/* ---- classes and names ---- */

static void builtin_classes(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        tc_kernel_class c;
    } cases[] = {
        {"ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_tn", TC_KCLASS_GEMM},
        {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64", TC_KCLASS_GEMM},
        {"nvjet_tst_128x256_64x4_1x2_h_bz_coopA_TNT", TC_KCLASS_GEMM},
        {"void cutlass::Kernel2<cutlass_80_wmma_tensorop_f16_s161616gemm_f16_32x32_128x2_nn>("
         "Params)",
         TC_KCLASS_GEMM},
        {"Cijk_Ailk_Bljk_BBS_BH_MT256x256x64_MI16x16x1", TC_KCLASS_GEMM},
        {"void ck::kernel_gemm_xdl_cshuffle_v3<ck::GridwiseGemm>(ck::Argument)", TC_KCLASS_GEMM},
        {"igemm_fwd_gtcx3_nhwc_fp16_bx0_ex0_bt128x128x32", TC_KCLASS_GEMM},
        {"_matmul_kernel_BLOCK_SIZE_M_128_BLOCK_SIZE_N_64", TC_KCLASS_GEMM},
        {"void gemv2T_kernel_val<int, int, float, 128, 16>(float)", TC_KCLASS_GEMM},
        {"void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits>(Flash_fwd_params)",
         TC_KCLASS_ATTENTION},
        {"fmha_cutlassF_f16_aligned_64x64_rf_sm80(PyTorchMemEffAttention::AttentionKernel)",
         TC_KCLASS_ATTENTION},
        {"aiter::fmha_fwd_hd128_bf16_causal", TC_KCLASS_ATTENTION},
        {"void ck_tile::kentry<ck_tile::FmhaFwdKernel<>>(Kargs)", TC_KCLASS_ATTENTION},
        {"void vllm::paged_attention_v1_kernel<unsigned short, 128>(float*)", TC_KCLASS_ATTENTION},
        {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float>(int)",
         TC_KCLASS_NORM},
        {"void vllm::rms_norm_kernel<c10::BFloat16, 8>(int)", TC_KCLASS_NORM},
        {"MIOpenBatchNormFwdTrainSpatial", TC_KCLASS_NORM},
        {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*)",
         TC_KCLASS_SOFTMAX},
        {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 10>(float*)",
         TC_KCLASS_SOFTMAX},
        {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float> "
         ">(int)",
         TC_KCLASS_ELEMENTWISE},
        {"void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda>(int)",
         TC_KCLASS_COPY},
        {"void at::native::elementwise_kernel<128, 2, at::native::MulFunctor<float>>(int)",
         TC_KCLASS_ELEMENTWISE},
        {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float>>(int)",
         TC_KCLASS_REDUCTION},
        {"__amd_rocclr_copyBuffer", TC_KCLASS_COPY},
        {"[CUDA memcpy Device-to-Device]", TC_KCLASS_COPY},
        {"Memset (Device)", TC_KCLASS_COPY},
        {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevComm*)", TC_KCLASS_COMM},
        {"ncclKernel_AllGather_RING_LL_Sum_int8_t", TC_KCLASS_COMM},
        {"triton_poi_fused_add_mul_0", TC_KCLASS_TRITON},
        {"triton_red_fused__to_copy_mean_pow_1", TC_KCLASS_TRITON},
        {"triton_per_fused__softmax_2", TC_KCLASS_TRITON},
        {"my_custom_kernel(float*)", TC_KCLASS_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const tc_kernel_rule *r;
        tc_kernel_class c = tc_kernels_classify_name(NULL, cases[i].name, &r);
        if (c != cases[i].c)
            fail_msg("%s: %s, expected %s", cases[i].name, tc_kernels_class_name(c),
                     tc_kernels_class_name(cases[i].c));
        assert_true(c == TC_KCLASS_OTHER ? r == NULL : r != NULL && r->line == 0);
    }
    tc_kernel_class c;
    assert_int_equal(tc_kernels_class_parse("Copy_Fill", &c), 0);
    assert_int_equal(c, TC_KCLASS_COPY);
    assert_int_equal(tc_kernels_class_parse("norm", &c), 0);
    assert_int_equal(c, TC_KCLASS_NORM);
    assert_int_equal(tc_kernels_class_parse("gemmm", &c), -1);
    assert_true(tc_kernels_glob("*GEMM*", "xgemmy"));
    assert_true(tc_kernels_glob("a?c*", "abcdef"));
    assert_false(tc_kernels_glob("a?c", "abcd"));
    assert_true(tc_kernels_glob("*", ""));
}

/* docs/commands/kernels.md lists every built-in rule, in order. */
static void rules_documented(void **state)
{
    (void)state;
    FILE *f = fopen(TC_FIXTURES_DIR "/../../docs/commands/kernels.md", "rb");
    assert_non_null(f);
    static char page[1 << 17];
    size_t len = fread(page, 1, sizeof page - 1, f);
    fclose(f);
    page[len] = '\0';
    size_t n;
    const tc_kernel_rule *r = tc_kernels_builtin_rules(&n);
    const char *at = strstr(page, "## Classes: the rule table");
    assert_non_null(at);
    for (size_t i = 0; i < n; i++) {
        char quoted[300];
        snprintf(quoted, sizeof quoted, "`%s`", r[i].pattern);
        const char *found = strstr(at, quoted);
        if (!found)
            fail_msg("rule %zu (%s) is not in docs/commands/kernels.md, or out of order", i,
                     r[i].pattern);
        at = found;
    }
}

static void normalised_names(void **state)
{
    (void)state;
    static const char *const cases[][2] = {
        {"void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>, "
         "at::detail::Array<char*, 3> >(int, at::native::CUDAFunctor_add<float>, "
         "at::detail::Array<char*, 3>)",
         "vectorized_elementwise_kernel"},
        {"void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>(float*, float "
         "const*, int)",
         "cunn_softmaxforward"},
        {"copy_kernel(float*, float*, int, int) [clone .kd]", "copy_kernel"},
        {"Cijk_Alik_Bljk_HHS_BH_MT128x128x32", "cijk_alik_bljk_hhs_bh_mt128x128x32"},
        {"void foo<a->b>(int)", "foo"},
        {"void at::native::elementwise_kernel<128, 2, at::nati...", "elementwise_kernel"},
        {"(weird)", "(weird)"},
        {"triton_poi_fused_add_0.kd", "triton_poi_fused_add_0"},
    };
    char out[256];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        tc_kernels_normalise_name(cases[i][0], out, sizeof out);
        assert_string_equal(out, cases[i][1]);
    }
    tc_kernels_normalise_name("vectorized_elementwise_kernel", out, 7);
    assert_string_equal(out, "vector"); /* 6 bytes and the NUL */
}

/* ---- the fallback pair, and the tuning list ---- */

/* The incumbent: fused flash attention. Times written so that the sums
 * below are hand arithmetic. */
static const char PAIR_NV[] =
    "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name\n"
    "60.0,600000,100,6000.0,6000.0,6000,6000,0.0,ampere_fp16_s16816gemm_fp16_128x128_tn\n"
    "25.0,250000,50,5000.0,5000.0,5000,5000,0.0,\"void flash_fwd_kernel<128, "
    "64>(Flash_fwd_params)\"\n"
    "10.0,100000,200,500.0,500.0,500,500,0.0,\"void vllm::rms_norm_kernel<half, 8>(half*, int)\"\n"
    "5.0,50000,100,500.0,500.0,500,500,0.0,\"void at::native::vectorized_elementwise_kernel<4, "
    "at::native::CUDAFunctor_add<half> >(int)\"\n";

/* The alternative: no attention kernel; the math path's batched GEMMs and
 * softmax instead. */
static const char PAIR_AMD[] =
    "\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\",\"MinNs\",\"MaxNs\","
    "\"StdDev\"\n"
    "\"Cijk_Alik_Bljk_HHS_BH_MT128x128x32\",100,700000,7000.0,50.0,7000,7000,0.0\n"
    "\"rocblas_gemm_strided_batched_Cijk_Ailk_Bljk_HHS_MT64x64\",100,200000,2000.0,14.0,2000,2000,"
    "0.0\n"
    "\"void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::Half>(c10::Half*)\","
    "50,300000,6000.0,21.0,6000,6000,0.0\n"
    "\"void vllm::rms_norm_kernel<half, 8>(half*, int)\",200,120000,600.0,9.0,600,600,0.0\n"
    "\"void at::native::vectorized_elementwise_kernel<4, at::native::MulFunctor<half> >(int)\","
    "100,80000,800.0,6.0,800,800,0.0\n";

static void fallback_pair(void **state)
{
    (void)state;
    tc_kernel_table ta = parse_ok(PAIR_NV), tb = parse_ok(PAIR_AMD);
    tc_kernel_profile a, b;
    assert_int_equal(tc_kernels_profile(&ta, 3, &a), TC_OK);
    assert_int_equal(tc_kernels_profile(&tb, 3, &b), TC_OK);
    assert_false(a.fallback.probable); /* the incumbent runs flash attention */
    assert_true(b.fallback.probable);
    assert_int_equal(b.fallback.softmax_ns, 300000);
    assert_int_equal(b.fallback.gemm_ns, 700000 + 200000);
    assert_int_equal(b.fallback.batched_gemm_ns, 200000);
    assert_non_null(b.fallback.batched);
    assert_string_equal(b.fallback.batched->name,
                        "rocblas_gemm_strided_batched_Cijk_Ailk_Bljk_HHS_MT64x64");

    tc_kernel_compare c;
    assert_int_equal(tc_kernels_compare(&a, &b, NULL, &c), TC_OK);
    assert_true(c.attention_fell_back);
    /* Shares: incumbent total 1000000, alternative 1400000. */
    near(c.share_change[TC_KCLASS_SOFTMAX], 300000.0 / 1400000);
    near(c.share_change[TC_KCLASS_ATTENTION], -250000.0 / 1000000);
    assert_int_equal(c.grew[0], TC_KCLASS_SOFTMAX);
    /* Matched by normalised name: rms_norm_kernel, vectorized_elementwise_kernel. */
    assert_int_equal(c.n_matched, 2);
    assert_string_equal(c.matched[0].name, "vectorized_elementwise_kernel"); /* +30000 */
    assert_int_equal(c.matched[0].a_ns, 50000);
    assert_int_equal(c.matched[0].b_ns, 80000);
    assert_string_equal(c.matched[1].name, "rms_norm_kernel"); /* +20000 */
    assert_int_equal(c.n_b_only, 3);
    /* Tuning: GEMM saves 900000 - 600000, softmax 300000 - 0, norm 20000
     * and elementwise 30000 (each >= 1% of 1400000 = 14000). GEMM first,
     * then softmax (same saving: class order), elementwise, normalisation. */
    assert_int_equal(c.n_tune, 4);
    assert_int_equal(c.tune[0].klass, TC_KCLASS_GEMM);
    assert_int_equal(c.tune[0].saving_ns, 300000);
    assert_int_equal(c.tune[0].n_kernels, 1); /* 700000 holds 300000 */
    assert_true(c.tune[0].suspect_fallback);
    assert_int_equal(c.tune[1].klass, TC_KCLASS_SOFTMAX);
    assert_int_equal(c.tune[1].saving_ns, 300000);
    assert_true(c.tune[1].suspect_fallback);
    assert_int_equal(c.tune[2].klass, TC_KCLASS_ELEMENTWISE);
    assert_int_equal(c.tune[2].saving_ns, 30000);
    assert_false(c.tune[2].suspect_fallback);
    assert_int_equal(c.tune[3].klass, TC_KCLASS_NORM);
    assert_int_equal(c.saving_ns, 300000 + 300000 + 30000 + 20000);
    /* Four entries of one kernel each at 2..3..5 person-days. */
    near(c.t_perf.low, 8), near(c.t_perf.mode, 12), near(c.t_perf.high, 20);
    tc_kernels_compare_free(&c);

    /* An assessment's effort per kernel replaces the default. */
    tc_kernel_effort e = {1, 1.5, 4};
    assert_int_equal(tc_kernels_compare(&a, &b, &e, &c), TC_OK);
    near(c.t_perf.low, 4), near(c.t_perf.mode, 6), near(c.t_perf.high, 16);
    tc_kernels_compare_free(&c);
    e = (tc_kernel_effort){3, 2, 4};
    assert_int_equal(tc_kernels_compare(&a, &b, &e, &c), TC_ERR_INVALID);
    e = (tc_kernel_effort){0, 1, NAN};
    assert_int_equal(tc_kernels_compare(&a, &b, &e, &c), TC_ERR_INVALID);

    /* The other way round: nothing fell back on the alternative. */
    assert_int_equal(tc_kernels_compare(&b, &a, NULL, &c), TC_OK);
    assert_false(c.attention_fell_back);
    assert_int_equal(c.n_tune, 1); /* attention 250000 - 0 */
    assert_int_equal(c.tune[0].klass, TC_KCLASS_ATTENTION);
    tc_kernels_compare_free(&c);
    tc_kernels_profile_free(&a);
    tc_kernels_profile_free(&b);
    tc_kernels_table_free(&ta);
    tc_kernels_table_free(&tb);
}

/* An entry holds the fewest kernels whose time reaches the saving. */
static void tuning_kernels(void **state)
{
    (void)state;
    tc_kernel_table ta = parse_ok("Time (%),Total Time (ns),Instances,Name\n"
                                  "1,100000,1,ampere_sgemm\n"
                                  "1,10000,1,\"layer_norm_kernel<float>(float*)\"\n");
    tc_kernel_table tb = parse_ok("Time (%),Total Time (ns),Instances,Name\n"
                                  "1,100000,1,Cijk_x\n"
                                  "1,40000,1,layer_norm_a\n"
                                  "1,30000,1,layer_norm_b\n"
                                  "1,20000,1,layer_norm_c\n"
                                  "1,10000,1,layer_norm_d\n");
    tc_kernel_profile a, b;
    assert_int_equal(tc_kernels_profile(&ta, 10, &a), TC_OK);
    assert_int_equal(tc_kernels_profile(&tb, 10, &b), TC_OK);
    tc_kernel_compare c;
    assert_int_equal(tc_kernels_compare(&a, &b, NULL, &c), TC_OK);
    /* Normalisation: 100000 - 10000 = 90000; 40000 + 30000 + 20000 holds it. */
    assert_int_equal(c.n_tune, 1);
    assert_int_equal(c.tune[0].saving_ns, 90000);
    assert_int_equal(c.tune[0].n_kernels, 3);
    assert_string_equal(c.tune[0].kernels[2]->name, "layer_norm_c");
    near(c.tune[0].days.mode, 9);
    assert_false(b.fallback.probable); /* no softmax */
    tc_kernels_compare_free(&c);
    tc_kernels_profile_free(&a);
    tc_kernels_profile_free(&b);
    tc_kernels_table_free(&ta);
    tc_kernels_table_free(&tb);
}

/* ---- the rules file ---- */

static void rules_file(void **state)
{
    (void)state;
    static const char rules[] = "# my kernels\n"
                                "pattern,class\n"
                                "my_custom_*,attention\n"
                                "*softmax*,other\n";
    tc_kernel_rules r;
    char err[512];
    assert_int_equal(tc_kernels_rules_parse("r.csv", rules, sizeof rules - 1, &r, err, sizeof err),
                     TC_OK);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.rules[0].line, 3);
    const tc_kernel_rule *rule;
    assert_int_equal(tc_kernels_classify_name(&r, "my_custom_attn(float*)", &rule),
                     TC_KCLASS_ATTENTION);
    assert_ptr_equal(rule, &r.rules[0]);
    /* The user's rules come first: softmax is now "other". */
    assert_int_equal(tc_kernels_classify_name(&r, "cunn_SoftMaxForward", NULL), TC_KCLASS_OTHER);
    assert_int_equal(tc_kernels_classify_name(&r, "ampere_sgemm", NULL), TC_KCLASS_GEMM);
    tc_kernels_rules_free(&r);
    tc_kernels_rules_free(&r);

    static const struct {
        const char *text, *frags[3];
    } bad[] = {
        {"", {"r.csv", "empty", NULL}},
        {"pattern,kind\nx,gemm\n", {"r.csv:1", "no 'class' column", NULL}},
        {"pattern,class\n,gemm\n", {"r.csv:2", "empty pattern", NULL}},
        {"pattern,class\nx,gem\n", {"r.csv:2", "class 'gem'", "copy_fill"}},
        {"pattern,class\n", {"r.csv", "no rules", NULL}},
        {"pattern,class\n\"x,gemm\n", {"r.csv:2", NULL}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(
            tc_kernels_rules_parse("r.csv", bad[i].text, strlen(bad[i].text), &r, err, sizeof err),
            TC_ERR_PARSE);
        for (int k = 0; k < 3 && bad[i].frags[k]; k++)
            has_all(err, bad[i].frags[k], NULL);
    }
    /* Bounds: a pattern over 256 bytes, more than 1000 rules. */
    char *big = malloc(64 * 1024);
    int o = snprintf(big, 64 * 1024, "pattern,class\n");
    memset(big + o, 'x', 300);
    snprintf(big + o + 300, 64, ",gemm\n");
    assert_int_equal(tc_kernels_rules_parse("r.csv", big, strlen(big), &r, err, sizeof err),
                     TC_ERR_PARSE);
    has_all(err, "r.csv:2", "longer than 256", NULL);
    o = snprintf(big, 64 * 1024, "pattern,class\n");
    for (int i = 0; i < 1001; i++)
        o += snprintf(big + o, 64 * 1024 - (size_t)o, "k%d,gemm\n", i);
    assert_int_equal(tc_kernels_rules_parse("r.csv", big, strlen(big), &r, err, sizeof err),
                     TC_ERR_PARSE);
    has_all(err, "r.csv:1002", "more than 1000 rules", NULL);
    free(big);
}

/* ---- bad input: every case of issue 29 ---- */

static void bad_inputs(void **state)
{
    (void)state;
    static const struct {
        const char *text, *frags[3];
    } cases[] = {
        {"", {"bad.csv", "empty", NULL}},
        {"  \n\n\t\n", {"bad.csv", "empty", NULL}},
        {"Calls,Percentage\n1,2\n", {"bad.csv", "no header with a kernel name", NULL}},
        {"Name,Calls,Percentage\nk,1,2\n", {"bad.csv:1", "no time column", "Name, Calls"}},
        {"Time (%),Total Time (ns),Instances\n1,2,3\n",
         {"bad.csv:1", "no kernel name column", NULL}},
        {"Time (%),Total Time (ns),Instances,Name\n1,12us,3,k\n",
         {"bad.csv:2", "units mixed", "the column's unit is ns"}},
        {"\"Name\",\"Calls\",\"TotalDurationNs\",\"AverageNs\",\"Percentage\"\nk,1,1.5ms,1,1\n",
         {"bad.csv:2", "carries a unit", NULL}},
        {"Time (%),Total Time (ns),Instances,Name\n1,-12,3,k\n", {"bad.csv:2", "negative", NULL}},
        {"Time (%),Total Time (ns),Instances,Name\n1,abc,3,k\n",
         {"bad.csv:2", "'abc' is not a time", NULL}},
        {"Time (%),Total Time (ns),Instances,Name\n1,,3,k\n", {"bad.csv:2", "empty", NULL}},
        {"Time (%),Total Time (ns),Instances,Name\n1,12,3,\"k, open\n",
         {"bad.csv:2", "never closed", NULL}},
        {"Time (%),Total Time (ns),Instances,Name\n1,12,3.5,k\n",
         {"bad.csv:2", "'3.5' is not a count", NULL}},
        {"Time (%),Total Time (ns),Instances,Name\n1,12,3\n", {"bad.csv:2", "3 cells", NULL}},
        {"Time (%),Total Time (ns),Instances,Name\n1,12,3,\"\"\n",
         {"bad.csv:2", "without a kernel name", NULL}},
        {"Time (%),Total Time (ns),Instances,Name\n", {"bad.csv", "no kernel rows", NULL}},
        {"Time (%),Total Time (ns),Instances,Name\n1,0,3,k\n",
         {"bad.csv", "every kernel time is 0", NULL}},
        {"Time (%),Total Time (ns),Num Calls,Name\n90,100,3,cudaMalloc\n10,10,1,cuLaunchKernel\n",
         {"bad.csv", "runtime API call", "cudaMalloc"}},
        {"\"Kind\",\"Kernel_Name\",\"Start_Timestamp\",\"End_Timestamp\"\nK,k,200,100\n",
         {"bad.csv:2", "ends before it starts", NULL}},
        {"Time (%),Total Time (ns),Instances,Name\n1,99999999999999999999,3,k\n",
         {"bad.csv:2", "beyond", NULL}},
        {" Time (%)  Total Time (ns)  Instances  Name\n --------  ---------------  ---------  "
         "----\n"
         "    100.0          326,795          6  k\n",
         {"bad.csv", "nsys's text table", "--format csv"}},
        {"Processing [r.sqlite] with [cuda_gpu_kern_sum.py]...\nSKIPPED: r.sqlite does not contain "
         "CUDA kernel data.\n",
         {"bad.csv", "no CUDA kernel data", "--trace=cuda"}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *err = parse_bad(cases[i].text, strlen(cases[i].text));
        for (int k = 0; k < 3 && cases[i].frags[k]; k++)
            if (!strstr(err, cases[i].frags[k]))
                fail_msg("case %zu: '%s' not in '%s'", i, cases[i].frags[k], err);
    }
    /* Found by fuzz_kernels: a lone CR inside the header of PyTorch's CSV
     * (the header finder and the reader must split it alike). */
    static const char lone_cr[] = "name,seltotal_timf_camtime_\x90\r\x90"
                                  "al,self_cuda_time_total,count\naten::mm,1,2,3,!\nk,se\n";
    has_all(parse_bad(lone_cr, sizeof lone_cr - 1), "bad.csv:3", "2 cells", NULL);
    /* A NUL byte. */
    has_all(parse_bad("Name\0x", 6), "NUL byte", NULL);
}

/* A name of 1 MB, a million distinct kernels, too many rows: refused with
 * the line, without reading on. */
static void bounds(void **state)
{
    (void)state;
    size_t cap = 4u << 20;
    char *big = malloc(cap);
    int o = snprintf(big, cap, "Time (%%),Total Time (ns),Instances,Name\n1,5,1,");
    memset(big + o, 'k', 1u << 20);
    snprintf(big + o + (1u << 20), 8, "\n");
    has_all(parse_bad(big, strlen(big)), "bad.csv:2", "longer than 65536", NULL);
    /* Quoted, too. */
    o = snprintf(big, cap, "Time (%%),Total Time (ns),Instances,Name\n1,5,1,\"");
    memset(big + o, 'k', 1u << 20);
    snprintf(big + o + (1u << 20), 8, "\"\n");
    has_all(parse_bad(big, strlen(big)), "bad.csv:2", "longer than 65536", NULL);
    free(big);

    /* A summary of a million rows, each a distinct kernel: refused at row
     * TC_KERNELS_MAX_KERNELS + 1 (line + 1 for the header). */
    size_t rows = 1000000;
    cap = rows * 24 + 64;
    big = malloc(cap);
    size_t n = (size_t)snprintf(big, cap, "Time (%%),Total Time (ns),Instances,Name\n");
    for (size_t i = 0; i < rows; i++)
        n += (size_t)snprintf(big + n, cap - n, "0.0,%zu,1,k%zu\n", i + 1, i);
    char line[64];
    snprintf(line, sizeof line, "bad.csv:%u:", TC_KERNELS_MAX_KERNELS + 2);
    has_all(parse_bad(big, n), line, "more than 100000 distinct kernels", NULL);
    free(big);
}

/* A trace of many rows of few kernels reads; its rows are counted. */
static void long_trace(void **state)
{
    (void)state;
    size_t rows = 200000, cap = rows * 96 + 1024;
    char *text = malloc(cap);
    size_t n = (size_t)snprintf(text, cap, "%s", TRACE_HEADER);
    int64_t sum = 0;
    for (size_t i = 0; i < rows; i++) {
        int64_t start = 1000000 + (int64_t)i * 100, dur = (int64_t)(i % 7) + 1;
        sum += dur;
        n += (size_t)snprintf(text + n, cap - n,
                              "\"KERNEL_DISPATCH\",1,1,0,1,%zu,1,\"%s\",%zu,%lld,%lld,0,0,8,0,16,"
                              "64,1,1,1024,1,1\n",
                              i, i % 2 ? "Cijk_A" : "rms_norm", i, (long long)start,
                              (long long)(start + dur));
    }
    tc_kernel_table t;
    char err[512];
    assert_int_equal(tc_kernels_parse("t.csv", text, n, &t, err, sizeof err), TC_OK);
    assert_int_equal(t.rows, rows);
    assert_int_equal(t.n, 2);
    assert_int_equal(t.total_ns, sum);
    assert_int_equal(t.k[0].calls + t.k[1].calls, rows);
    tc_kernels_table_free(&t);
    free(text);
}

static void files_load(void **state)
{
    (void)state;
    tc_kernel_files f;
    char err[512];
    assert_int_equal(tc_kernels_files_load("/nonexistent/a.csv", NULL, NULL, &f, err, sizeof err),
                     TC_ERR_IO);
    has_all(err, "/nonexistent/a.csv", NULL);
    tc_kernels_files_free(&f);
    assert_int_equal(tc_kernels_files_load(EXAMPLES "kernels-nsys-example.csv",
                                           EXAMPLES "kernels-rocprofv3-example.csv", NULL, &f, err,
                                           sizeof err),
                     TC_OK);
    assert_int_equal(f.n, 2);
    assert_int_equal(f.t[0].format, TC_KFMT_NSYS);
    assert_int_equal(f.t[1].format, TC_KFMT_ROCPROF_STATS);
    tc_kernels_files_free(&f);
    tc_kernels_files_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nsys_kern_sum),
        cmocka_unit_test(nsys_variants),
        cmocka_unit_test(rocprofv3_kernel_stats),
        cmocka_unit_test(rocprofv3_kernel_trace),
        cmocka_unit_test(rocprof_v1_stats),
        cmocka_unit_test(pytorch_formats),
        cmocka_unit_test(builtin_classes),
        cmocka_unit_test(rules_documented),
        cmocka_unit_test(normalised_names),
        cmocka_unit_test(fallback_pair),
        cmocka_unit_test(tuning_kernels),
        cmocka_unit_test(rules_file),
        cmocka_unit_test(bad_inputs),
        cmocka_unit_test(bounds),
        cmocka_unit_test(long_trace),
        cmocka_unit_test(files_load),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
