/* Unit tests of `truecost fit`'s arithmetic against hand arithmetic: the KV
 * cache per token (Llama-2-7B, GQA), LoRA's trainable parameters,
 * Korthikanti's activations, the optimizer's bytes, the seed's boundary
 * for 24 GB cards, the verdicts and the largest settings; and the reader
 * of llama.cpp's and vLLM's memory lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/fit.h"
#include "analysis/fit_log.h"
#include "modelfile/modelfile_config.h"

#define GIB 1073741824.0
#define MIB 1048576.0

static void near(double a, double b)
{
    if (fabs(a - b) > 1e-9 * (fabs(b) + 1))
        fail_msg("%.17g != %.17g", a, b);
}

static tc_model_shape config(const char *text)
{
    tc_model_shape m;
    char err[512] = "";
    if (tc_modelfile_config_parse("config.json", text, strlen(text), &m, err, sizeof err) != TC_OK)
        fail_msg("%s", err);
    return m;
}

/* Llama-2-7B's config.json (fp16), and Llama-2-13B's. */
static tc_model_shape llama7b(void)
{
    return config("{\"model_type\":\"llama\",\"hidden_size\":4096,\"intermediate_size\":11008,"
                  "\"max_position_embeddings\":4096,\"num_attention_heads\":32,"
                  "\"num_hidden_layers\":32,\"num_key_value_heads\":32,\"vocab_size\":32000,"
                  "\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\"}");
}

static tc_model_shape llama13b(void)
{
    return config("{\"model_type\":\"llama\",\"hidden_size\":5120,\"intermediate_size\":13824,"
                  "\"max_position_embeddings\":4096,\"num_attention_heads\":40,"
                  "\"num_hidden_layers\":40,\"num_key_value_heads\":40,\"vocab_size\":32000,"
                  "\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\"}");
}

static void kv_cache_per_token(void **state)
{
    (void)state;
    tc_model_shape m = llama7b();
    /* 2 x 32 layers x 32 KV heads x 128 x 2 bytes. */
    near(tc_fit_kv_bytes_per_token(&m, 2), 2.0 * 32 * 32 * 128 * 2);
    near(tc_fit_kv_bytes_per_token(&m, 2), 524288);
    /* GQA: 8 KV heads of 128 over 32 layers. */
    tc_model_shape g = config("{\"model_type\":\"llama\",\"hidden_size\":4096,"
                              "\"intermediate_size\":14336,\"num_attention_heads\":32,"
                              "\"num_hidden_layers\":32,\"num_key_value_heads\":8,"
                              "\"vocab_size\":128256,\"torch_dtype\":\"bfloat16\"}");
    near(tc_fit_kv_bytes_per_token(&g, 2), 131072);
    /* Quantised KV at its block size: q8_0 34 bytes per 32 values. */
    near(tc_fit_kv_bytes_per_token(&m, tc_fit_kv_dtype_bytes("q8_0")), 524288.0 / 2 * 34 / 32);
    near(tc_fit_kv_bytes_per_token(&m, tc_fit_kv_dtype_bytes("q4_0")), 524288.0 / 2 * 18 / 32);
    near(tc_fit_kv_bytes_per_token(&m, tc_fit_kv_dtype_bytes("fp8")), 262144);
    /* key_length and value_length differ (a GGUF override): (k + v) per head. */
    m.key_length = 192;
    m.value_length = 128;
    near(tc_fit_kv_bytes_per_token(&m, 2), 32.0 * 32 * (192 + 128) * 2);
    tc_model_shape none = {0};
    near(tc_fit_kv_bytes_per_token(&none, 2), 0);
}

static void lora_activations_optimizer(void **state)
{
    (void)state;
    tc_model_shape m = llama7b();
    /* q, k, v, o: each 16 x (4096 + 4096), 32 layers. */
    near(tc_fit_lora_params(&m, 16, TC_FIT_LORA_Q | TC_FIT_LORA_K | TC_FIT_LORA_V | TC_FIT_LORA_O),
         32.0 * 4 * 16 * 8192);
    /* gate, up and down add 3 x 8 x (4096 + 11008) per layer at rank 8. */
    near(tc_fit_lora_params(&m, 8, TC_FIT_LORA_ALL), 32.0 * 8 * (4 * 8192 + 3 * (4096 + 11008)));
    /* Korthikanti: s 512, b 1, h 4096, a 32, 32 layers, vocab 32000. */
    double sbh = 512.0 * 1 * 4096;
    near(tc_fit_activation_bytes(&m, 1, 512, TC_FIT_CKPT_NONE),
         32 * sbh * (34 + 5.0 * 32 * 512 / 4096) + 4 * 512.0 * 32000);
    near(tc_fit_activation_bytes(&m, 1, 512, TC_FIT_CKPT_NONE), 3689414656.0);
    near(tc_fit_activation_bytes(&m, 2, 512, TC_FIT_CKPT_SELECTIVE),
         32 * 34 * 2 * sbh + 4 * 1024.0 * 32000);
    near(tc_fit_activation_bytes(&m, 1, 512, TC_FIT_CKPT_FULL),
         32 * 2 * sbh + sbh * (34 + 5.0 * 32 * 512 / 4096) + 4 * 512.0 * 32000);
    /* Full training, mixed-precision AdamW: 2 + 2 + 4 + 4 + 4 = 16 bytes
     * per parameter (the "about 112 GB for 7B" at 7e9). */
    tc_fit_options o;
    tc_fit_options_default(&o);
    o.task = TC_FIT_FULL;
    tc_fit_resolve(&o, &m, 0);
    tc_fit_terms t;
    char err[256] = "";
    assert_int_equal(tc_fit_compute(&m, &o, &t, err, sizeof err), TC_OK);
    double p = 6738415616.0;
    near(t.bytes[TC_FIT_WEIGHTS] + t.bytes[TC_FIT_GRADIENTS] + t.bytes[TC_FIT_OPTIMIZER], 16 * p);
    /* The seed's 16-bit count: 14 + 14 + 28 GB at 7e9 = 8 bytes each. */
    o.optimizer = TC_FIT_ADAMW_BF16;
    assert_int_equal(tc_fit_compute(&m, &o, &t, err, sizeof err), TC_OK);
    near(t.bytes[TC_FIT_WEIGHTS], 2 * p);
    near(t.bytes[TC_FIT_GRADIENTS], 2 * p);
    near(t.bytes[TC_FIT_OPTIMIZER], 4 * p);
    o.optimizer = TC_FIT_ADAMW_8BIT;
    assert_int_equal(tc_fit_compute(&m, &o, &t, err, sizeof err), TC_OK);
    near(t.bytes[TC_FIT_OPTIMIZER], (4 + 2) * p);
    o.optimizer = TC_FIT_SGD;
    assert_int_equal(tc_fit_compute(&m, &o, &t, err, sizeof err), TC_OK);
    near(t.bytes[TC_FIT_OPTIMIZER], (4 + 4) * p);
    /* fp32 training has no master copy. */
    snprintf(o.dtype, sizeof o.dtype, "f32");
    o.optimizer = TC_FIT_ADAMW;
    assert_int_equal(tc_fit_compute(&m, &o, &t, err, sizeof err), TC_OK);
    near(t.bytes[TC_FIT_WEIGHTS] + t.bytes[TC_FIT_GRADIENTS] + t.bytes[TC_FIT_OPTIMIZER], 16 * p);
    snprintf(o.dtype, sizeof o.dtype, "int4");
    assert_int_equal(tc_fit_compute(&m, &o, &t, err, sizeof err), TC_ERR_INVALID);
    assert_non_null(strstr(err, "cannot be trained"));
}

/* A 24 GB card as the driver reports an RTX 4090: 24564 MiB. */
static tc_fit_card card24(const tc_model_shape *m, const tc_fit_options *o, tc_fit_terms *t)
{
    char err[256] = "";
    if (tc_fit_compute(m, o, t, err, sizeof err) != TC_OK)
        fail_msg("%s", err);
    tc_fit_card c;
    memset(&c, 0, sizeof c);
    c.capacity_bytes = 24564 * MIB;
    tc_fit_judge(m, o, t, &c);
    return c;
}

static tc_fit_options task(const tc_model_shape *m, tc_fit_task k, const char *dtype)
{
    tc_fit_options o;
    tc_fit_options_default(&o);
    o.task = k;
    if (dtype)
        snprintf(o.dtype, sizeof o.dtype, "%s", dtype);
    tc_fit_resolve(&o, m, 0);
    return o;
}

/* The first seed's boundary for 24 GB cards, term by term. */
static void the_seeds_boundary(void **state)
{
    (void)state;
    const double budget = 24564 * MIB * 0.9, p7 = 6738415616.0, p13 = 13015864320.0;
    tc_model_shape m7 = llama7b(), m13 = llama13b();
    tc_fit_terms t;
    assert_int_equal(m13.params, (uint64_t)p13);

    /* 7B FP16 serving (vLLM's defaults, 4096 tokens): fits. */
    tc_fit_options o = task(&m7, TC_FIT_SERVE, NULL);
    tc_fit_card c = card24(&m7, &o, &t);
    double compute = 8192.0 * (2 * 11008 + 2 * 4096) * 2 + 4 * 256.0 * 32000 * 4;
    double need = p7 * 2 + 524288.0 * 4096 + compute + GIB;
    near(t.total, need);
    near(c.budget_bytes, budget);
    assert_int_equal(c.verdict, TC_FIT_FITS);
    /* The largest concurrency at 4096 tokens, by hand. */
    assert_int_equal(c.max_concurrency,
                     (int64_t)floor((budget - need + 524288.0 * 4096) / (524288.0 * 4096)));

    /* 13B INT8 and INT4: the linear layers quantised, the embedding and
     * head (2 x 32000 x 5120) kept at 16 bits. */
    double emb = 2 * 32000.0 * 5120;
    double kv13 = 2.0 * 40 * 40 * 128 * 2 * 4096;
    double c13 = 8192.0 * (2 * 13824 + 2 * 5120) * 2 + 4 * 256.0 * 32000 * 4;
    o = task(&m13, TC_FIT_SERVE, "int8");
    c = card24(&m13, &o, &t);
    near(t.total, (p13 - emb) * 1 + emb * 2 + kv13 + c13 + GIB);
    assert_int_equal(c.verdict, TC_FIT_FITS);
    o = task(&m13, TC_FIT_SERVE, "int4");
    c = card24(&m13, &o, &t);
    near(t.total, (p13 - emb) * (0.5 + 2.0 / 128) + emb * 2 + kv13 + c13 + GIB);
    assert_int_equal(c.verdict, TC_FIT_FITS);
    /* ... while 13B FP16 does not. */
    o = task(&m13, TC_FIT_SERVE, NULL);
    c = card24(&m13, &o, &t);
    assert_int_equal(c.verdict, TC_FIT_NO);
    assert_int_equal(c.min_gpus, 2);

    /* 7B LoRA (rank 16 on q, k, v, o; fp16 base; 1 x 512 tokens): fits. */
    o = task(&m7, TC_FIT_LORA, NULL);
    c = card24(&m7, &o, &t);
    double lora = 32.0 * 4 * 16 * 8192;
    near(t.total, p7 * 2 + lora * (2 + 2 + 12) + 3689414656.0 + GIB);
    assert_int_equal(c.verdict, TC_FIT_FITS);
    assert_true(c.max_batch >= 1);

    /* 7B full training does not: 16 bytes per parameter alone is 100 GiB;
     * and not with the seed's 16-bit states either. */
    o = task(&m7, TC_FIT_FULL, NULL);
    c = card24(&m7, &o, &t);
    near(t.total, p7 * 16 + 3689414656.0 + GIB);
    assert_int_equal(c.verdict, TC_FIT_NO);
    assert_int_equal(c.max_batch, 0);
    o.optimizer = TC_FIT_ADAMW_BF16;
    c = card24(&m7, &o, &t);
    assert_int_equal(c.verdict, TC_FIT_NO);
}

static void verdicts_and_splits(void **state)
{
    (void)state;
    tc_model_shape m = llama7b();
    tc_fit_options o = task(&m, TC_FIT_SERVE, NULL);
    tc_fit_terms t;
    char err[256] = "";
    assert_int_equal(tc_fit_compute(&m, &o, &t, err, sizeof err), TC_OK);
    /* A card whose budget leaves 5% spare: tight; 20%: fits; -1%: no. */
    tc_fit_card c;
    const double shares[] = {0.05, 0.2, -0.01};
    const tc_fit_verdict want[] = {TC_FIT_TIGHT, TC_FIT_FITS, TC_FIT_NO};
    for (int i = 0; i < 3; i++) {
        memset(&c, 0, sizeof c);
        c.capacity_bytes = t.total / (1 - shares[i]) / 0.9;
        tc_fit_judge(&m, &o, &t, &c);
        near(c.spare_share, shares[i]);
        assert_int_equal(c.verdict, want[i]);
    }
    /* Two cards: weights and KV cache halve; compute and overhead stay. */
    tc_fit_terms one = t;
    o.gpus = 2;
    assert_int_equal(tc_fit_compute(&m, &o, &t, err, sizeof err), TC_OK);
    near(t.bytes[TC_FIT_WEIGHTS], one.bytes[TC_FIT_WEIGHTS] / 2);
    near(t.bytes[TC_FIT_KV_CACHE], one.bytes[TC_FIT_KV_CACHE] / 2);
    near(t.bytes[TC_FIT_COMPUTE], one.bytes[TC_FIT_COMPUTE]);
    near(t.bytes[TC_FIT_OVERHEAD], one.bytes[TC_FIT_OVERHEAD]);
    /* --vram names its card. */
    tc_fit_card_vram(24, &c);
    assert_string_equal(c.name, "--vram 24 GiB");
    near(c.capacity_bytes, 24 * GIB);
}

/* llama.cpp's compute buffer grows with the context: the longest context
 * is searched, and checked here against the formula at n and n + 1. */
static void largest_context_llamacpp(void **state)
{
    (void)state;
    tc_model_shape m = llama7b();
    m.format = TC_MODEL_GGUF;
    m.weight_bytes = 3825065984; /* a Q4_K_M file's tensors */
    tc_fit_options o = task(&m, TC_FIT_SERVE, NULL);
    assert_int_equal(o.engine, TC_FIT_ENGINE_LLAMACPP);
    near(o.overhead_bytes, 0.5 * GIB);
    tc_fit_terms t;
    char err[256] = "";
    assert_int_equal(tc_fit_compute(&m, &o, &t, err, sizeof err), TC_OK);
    near(t.bytes[TC_FIT_COMPUTE], 4 * 512.0 * (32000 + 3 * 11008 + 3 * 4096) + 2 * 512.0 * 4096);
    tc_fit_card c;
    memset(&c, 0, sizeof c);
    c.capacity_bytes = 8188 * MIB; /* an 8 GB card */
    tc_fit_judge(&m, &o, &t, &c);
    double budget = 8188 * MIB * 0.9, n = (double)c.max_ctx;
    double fixed = 3825065984.0 + 0.5 * GIB + 4 * 512.0 * (32000 + 3 * 11008 + 3 * 4096);
    assert_true(fixed + n * 524288 + 2 * 512 * n <= budget);
    assert_true(fixed + (n + 1) * 524288 + 2 * 512 * (n + 1) > budget);
}

static void names_and_targets(void **state)
{
    (void)state;
    tc_fit_task k;
    tc_fit_optimizer op;
    tc_fit_ckpt ck;
    assert_int_equal(tc_fit_task_parse("qlora", &k), 0);
    assert_int_equal(k, TC_FIT_QLORA);
    assert_int_equal(tc_fit_task_parse("train", &k), -1);
    assert_int_equal(tc_fit_optimizer_parse("adamw-8bit", &op), 0);
    assert_int_equal(op, TC_FIT_ADAMW_8BIT);
    assert_int_equal(tc_fit_ckpt_parse("selective", &ck), 0);
    assert_string_equal(tc_fit_verdict_name(TC_FIT_TIGHT), "tight");
    assert_string_equal(tc_fit_term_name(TC_FIT_OPTIMIZER), "optimizer_states");
    unsigned bits;
    char buf[64];
    assert_int_equal(tc_fit_lora_targets_parse("q_proj,v", &bits), 0);
    assert_int_equal(bits, TC_FIT_LORA_Q | TC_FIT_LORA_V);
    assert_string_equal(tc_fit_lora_targets_text(bits, buf, sizeof buf), "q,v");
    assert_int_equal(tc_fit_lora_targets_parse("all-linear", &bits), 0);
    assert_int_equal(bits, TC_FIT_LORA_ALL);
    assert_int_equal(tc_fit_lora_targets_parse("q,,v", &bits), -1);
    assert_int_equal(tc_fit_lora_targets_parse("q,", &bits), -1);
    assert_int_equal(tc_fit_lora_targets_parse("lm_head", &bits), -1);
    near(tc_fit_weight_dtype_bytes("nf4"), 0.5 + 1.0 / 64 + 4.0 / (64 * 256));
    assert_true(fabs(tc_fit_weight_dtype_bytes("nf4") - 0.516) < 0.0005); /* "about 0.516" */
    near(tc_fit_weight_dtype_bytes("int4"), 0.515625);
    near(tc_fit_kv_dtype_bytes("q4_0"), 0.5625);
    assert_true(tc_fit_weight_dtype_bytes("fp4") == 0);
}

/* ---- server logs --------------------------------------------------------- */

static tc_fit_log log_of(const char *text)
{
    tc_fit_log l;
    char err[512] = "";
    if (tc_fit_log_parse("server.log", text, strlen(text), &l, err, sizeof err) != TC_OK)
        fail_msg("%s", err);
    return l;
}

static void llamacpp_lines(void **state)
{
    (void)state;
    /* llama.cpp before mid-2024, one CUDA card. */
    tc_fit_log l =
        log_of("llm_load_tensors: ggml ctx size =    0.30 MiB\n"
               "llm_load_tensors:        CPU buffer size =    70.31 MiB\n"
               "llm_load_tensors:      CUDA0 buffer size =  3577.56 MiB\n"
               "llama_kv_cache_init:      CUDA0 KV buffer size =  2048.00 MiB\n"
               "llama_new_context_with_model: KV self size  = 2048.00 MiB, K (f16): 1024.00 MiB, V "
               "(f16): 1024.00 MiB\n"
               "llama_new_context_with_model:  CUDA_Host  output buffer size =     0.12 MiB\n"
               "llama_new_context_with_model:      CUDA0 compute buffer size =   296.00 MiB\n"
               "llama_new_context_with_model:  CUDA_Host compute buffer size =    16.01 MiB\n");
    assert_int_equal(l.engine, TC_FIT_LOG_LLAMACPP);
    near(l.model_bytes, (70.31 + 3577.56) * MIB);
    near(l.device_model_bytes, 3577.56 * MIB);
    near(l.kv_bytes, 2048 * MIB); /* the buffer, not again the "KV self size" */
    near(l.compute_bytes, (296 + 16.01) * MIB);
    near(l.device_compute_bytes, 296 * MIB);
    assert_int_equal(l.n_devices, 3);
    assert_string_equal(l.dev[1].name, "CUDA0");
    assert_false(l.dev[1].host);
    assert_true(l.dev[2].host); /* CUDA_Host */

    /* Today's lines, two ROCm cards, two contexts (the last counts), the
     * CPU's repacked copies apart; then a second load resets all. */
    const char *two =
        "load_tensors:        ROCm0 model buffer size =  1000.00 MiB\n"
        "load_tensors:        ROCm1 model buffer size =  1100.00 MiB\n"
        "load_tensors:   CPU_Mapped model buffer size =   100.00 MiB\n"
        "load_tensors:   CPU_REPACK model buffer size =    40.00 MiB\n"
        "llama_kv_cache:        ROCm0 KV buffer size =   128.00 MiB\n"
        "llama_kv_cache:        ROCm1 KV buffer size =   128.00 MiB\n"
        "llama_kv_cache: size =  256.00 MiB (  2048 cells,  32 layers,  1/1 seqs), K (f16):  "
        "128.00 MiB, V (f16):  128.00 MiB\n"
        "sched_reserve:        ROCm0 compute buffer size =   100.00 MiB\n"
        "llama_kv_cache:        ROCm0 KV buffer size =   512.00 MiB\n"
        "llama_kv_cache:        ROCm1 KV buffer size =   512.00 MiB\n"
        "llama_kv_cache: size = 1024.00 MiB (  8192 cells,  32 layers,  1/1 seqs), K (f16):  "
        "512.00 MiB, V (f16):  512.00 MiB\n"
        "sched_reserve:        ROCm0 compute buffer size =   200.00 MiB\n"
        "~llama_context:        ROCm0 compute buffer size is 200.0000 MiB, matches expectation\n";
    l = log_of(two);
    near(l.model_bytes, 2200 * MIB);
    near(l.device_model_bytes, 2100 * MIB);
    near(l.repack_bytes, 40 * MIB);
    near(l.kv_bytes, 1024 * MIB);
    near(l.compute_bytes, 200 * MIB);
    assert_int_equal(l.kv_cells, 8192);
    char text[4096];
    snprintf(text, sizeof text, "%sload_tensors:        CUDA0 model buffer size =    10.00 MiB\n",
             two);
    l = log_of(text);
    near(l.model_bytes, 10 * MIB);
    assert_false(l.has_kv);
    assert_int_equal(l.n_devices, 1);
    /* Only the total of the cache, as some versions print it. */
    l = log_of("llama_new_context_with_model: KV self size  =  256.00 MiB, K (f16):  128.00 MiB\n");
    near(l.kv_bytes, 256 * MIB);
}

static void vllm_lines(void **state)
{
    (void)state;
    tc_fit_log l = log_of(
        "INFO 05-01 10:00:00 [gpu_model_runner.py:1234] Model loading took 14.9596 GiB and "
        "4.512 seconds\n"
        "(VllmWorker rank=0 pid=7) INFO 05-01 10:00:10 [gpu_worker.py:227] Available KV cache "
        "memory: 50.27 GiB\n"
        "INFO 05-01 10:00:10 [kv_cache_utils.py:634] GPU KV cache size: 411,824 tokens\n"
        "INFO 05-01 10:00:10 [kv_cache_utils.py:637] Maximum concurrency for 4,096 tokens per "
        "request: 100.54x\n");
    assert_int_equal(l.engine, TC_FIT_LOG_VLLM);
    near(l.weights_bytes, 14.9596 * GIB);
    near(l.available_kv_bytes, 50.27 * GIB);
    assert_int_equal(l.kv_tokens, 411824);
    assert_int_equal(l.max_concurrency_tokens, 4096);
    near(l.max_concurrency, 100.54);
    /* vLLM V0's profile line: "GB" there is 2^30 bytes too. */
    l = log_of("INFO worker.py:256] Loading model weights took 14.9888 GB\n"
               "INFO worker.py:260] Memory profiling takes 4.52 seconds ... model weights take "
               "14.99GiB; non_torch_memory takes 0.18GiB; PyTorch activation peak memory takes "
               "1.23GiB; the rest of the memory reserved for KV Cache is 54.87GiB.\n");
    near(l.weights_bytes, 14.99 * GIB);
    near(l.activation_bytes, 1.23 * GIB);
    near(l.available_kv_bytes, 54.87 * GIB);

    /* Beside a prediction: KV bytes per token reported = available /
     * tokens, against the model's 524288 (Llama-2-7B, one card). */
    tc_model_shape m = llama7b();
    tc_fit_options o = task(&m, TC_FIT_SERVE, NULL);
    tc_fit_terms t;
    char err[256];
    assert_int_equal(tc_fit_compute(&m, &o, &t, err, sizeof err), TC_OK);
    l = log_of("Available KV cache memory: 50.00 GiB\nGPU KV cache size: 102,400 tokens\n"
               "Model loading took 12.5515 GiB\n");
    tc_fit_check c[TC_FIT_MAX_CHECKS];
    int n = tc_fit_log_compare(&l, &m, &o, &t, NULL, c);
    assert_int_equal(n, 4);
    assert_string_equal(c[0].what, "weights");
    near(c[0].predicted, 6738415616.0 * 2);
    near(c[0].reported, 12.5515 * GIB);
    assert_string_equal(c[1].what, "kv_bytes_per_token");
    near(c[1].reported, 50 * GIB / 102400);
    near(c[1].predicted, 524288);
    assert_string_equal(c[2].what, "available_kv");
    assert_false(c[2].has_predicted); /* needs a card */
}

static void logs_without_memory_lines(void **state)
{
    (void)state;
    tc_fit_log l;
    char err[512] = "";
    const char *text = "hello\nmain: server is listening on 127.0.0.1:8080\n";
    assert_int_equal(tc_fit_log_parse("server.log", text, strlen(text), &l, err, sizeof err),
                     TC_ERR_PARSE);
    assert_non_null(strstr(err, "server.log: none of llama.cpp's or vLLM's memory lines"));
    /* Found by fuzz_server_log: a count past 64 bits is no memory line. */
    text = "GPU KV cache size: 444444444444444444444444444444444444444 tokens\n"
           "Maximum concurrency for 111111111111111111111111111111111111111111 tokens per "
           "request: 2x\n";
    assert_int_equal(tc_fit_log_parse("server.log", text, strlen(text), &l, err, sizeof err),
                     TC_ERR_PARSE);
    /* A number without its unit is no memory line. */
    text = "load_tensors:        CUDA0 model buffer size =  3577.56\n";
    assert_int_equal(tc_fit_log_parse("server.log", text, strlen(text), &l, err, sizeof err),
                     TC_ERR_PARSE);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kv_cache_per_token),
        cmocka_unit_test(lora_activations_optimizer),
        cmocka_unit_test(the_seeds_boundary),
        cmocka_unit_test(verdicts_and_splits),
        cmocka_unit_test(largest_context_llamacpp),
        cmocka_unit_test(names_and_targets),
        cmocka_unit_test(llamacpp_lines),
        cmocka_unit_test(vllm_lines),
        cmocka_unit_test(logs_without_memory_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
