/* The memory terms of `truecost fit`; the verdict and the largest setting
 * are in fit_judge.c. */
#include "fit.h"
#include "record/record_enum.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---- names --------------------------------------------------------------- */

static const char *const TASKS[] = {"serve", "lora", "qlora", "full"};
static const char *const OPTIMIZERS[] = {"adamw", "adamw-8bit", "adamw-bf16", "sgd"};
static const char *const CKPTS[] = {"none", "selective", "full"};
static const char *const ENGINES[] = {"llama.cpp", "vllm", "pytorch"};
static const char *const TERMS[] = {"weights",   "kv_cache",         "compute_buffer", "adapters",
                                    "gradients", "optimizer_states", "activations",    "overhead"};
static const char *const VERDICTS[] = {"fits", "tight", "does not fit"};
#define N_OF(a) ((int)(sizeof a / sizeof a[0]))

#define NAME_OF(names, v) ((unsigned)(v) < (unsigned)N_OF(names) ? names[v] : "?")

const char *tc_fit_task_name(tc_fit_task t)
{
    return NAME_OF(TASKS, t);
}

int tc_fit_task_parse(const char *s, tc_fit_task *out)
{
    int i = tc_enum_find(TASKS, N_OF(TASKS), s);
    if (i >= 0)
        *out = (tc_fit_task)i;
    return i < 0 ? -1 : 0;
}

const char *tc_fit_optimizer_name(tc_fit_optimizer o)
{
    return NAME_OF(OPTIMIZERS, o);
}

int tc_fit_optimizer_parse(const char *s, tc_fit_optimizer *out)
{
    int i = tc_enum_find(OPTIMIZERS, N_OF(OPTIMIZERS), s);
    if (i >= 0)
        *out = (tc_fit_optimizer)i;
    return i < 0 ? -1 : 0;
}

const char *tc_fit_ckpt_name(tc_fit_ckpt c)
{
    return NAME_OF(CKPTS, c);
}

int tc_fit_ckpt_parse(const char *s, tc_fit_ckpt *out)
{
    int i = tc_enum_find(CKPTS, N_OF(CKPTS), s);
    if (i >= 0)
        *out = (tc_fit_ckpt)i;
    return i < 0 ? -1 : 0;
}

const char *tc_fit_engine_name(tc_fit_engine e)
{
    return NAME_OF(ENGINES, e);
}

const char *tc_fit_term_name(tc_fit_term_id t)
{
    return NAME_OF(TERMS, t);
}

int tc_fit_term_split(tc_fit_term_id t)
{
    return t == TC_FIT_WEIGHTS || t == TC_FIT_KV_CACHE || t == TC_FIT_ADAPTERS ||
           t == TC_FIT_GRADIENTS || t == TC_FIT_OPTIMIZER;
}

const char *tc_fit_verdict_name(tc_fit_verdict v)
{
    return NAME_OF(VERDICTS, v);
}

/* ---- dtypes -------------------------------------------------------------- */

/* int4: 4 bits and an fp16 scale per group of 128 (GPTQ's and AWQ's
 * default group); nf4: bitsandbytes' 4 bits, an 8-bit absmax per 64 values
 * and an fp32 constant per 256 blocks (double quantisation) = 0.516. */
#define INT4_BYTES (0.5 + 2.0 / 128)
#define NF4_BYTES (0.5 + 1.0 / 64 + 4.0 / (64 * 256))

double tc_fit_weight_dtype_bytes(const char *name)
{
    static const struct {
        const char *name;
        double bytes;
    } W[] = {{"f32", 4}, {"f16", 2},           {"bf16", 2},        {"int8", 1},
             {"fp8", 1}, {"int4", INT4_BYTES}, {"nf4", NF4_BYTES}, {"mxfp4", 17.0 / 32}};
    for (int i = 0; name && i < N_OF(W); i++)
        if (strcmp(W[i].name, name) == 0)
            return W[i].bytes;
    return 0;
}

double tc_fit_kv_dtype_bytes(const char *name)
{
    static const struct {
        const char *name;
        double bytes;
    } K[] = {{"f16", 2}, {"bf16", 2}, {"q8_0", 34.0 / 32}, {"q4_0", 18.0 / 32}, {"fp8", 1}};
    for (int i = 0; name && i < N_OF(K); i++)
        if (strcmp(K[i].name, name) == 0)
            return K[i].bytes;
    return 0;
}

int tc_fit_dtype_quantised(const char *name)
{
    static const char *const Q[] = {"int8", "int4", "nf4", "fp8", "mxfp4"};
    return name && tc_enum_find(Q, N_OF(Q), name) >= 0;
}

/* ---- LoRA targets -------------------------------------------------------- */

static const struct {
    const char *name, *hf;
    unsigned bit;
} TARGETS[] = {{"q", "q_proj", TC_FIT_LORA_Q},          {"k", "k_proj", TC_FIT_LORA_K},
               {"v", "v_proj", TC_FIT_LORA_V},          {"o", "o_proj", TC_FIT_LORA_O},
               {"gate", "gate_proj", TC_FIT_LORA_GATE}, {"up", "up_proj", TC_FIT_LORA_UP},
               {"down", "down_proj", TC_FIT_LORA_DOWN}};

int tc_fit_lora_targets_parse(const char *list, unsigned *out)
{
    unsigned bits = 0;
    if (!list || !*list)
        return -1;
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ",");
        int found = n == 10 && strncmp(p, "all-linear", 10) == 0;
        if (found)
            bits |= TC_FIT_LORA_ALL;
        for (int i = 0; !found && i < N_OF(TARGETS); i++)
            if ((strlen(TARGETS[i].name) == n && strncmp(p, TARGETS[i].name, n) == 0) ||
                (strlen(TARGETS[i].hf) == n && strncmp(p, TARGETS[i].hf, n) == 0)) {
                bits |= TARGETS[i].bit;
                found = 1;
            }
        if (!found)
            return -1;
        p += n;
        if (*p == ',' && !*++p)
            return -1; /* a trailing comma: an empty item */
    }
    *out = bits;
    return 0;
}

const char *tc_fit_lora_targets_text(unsigned targets, char *buf, size_t len)
{
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; i < N_OF(TARGETS); i++)
        if (targets & TARGETS[i].bit && o < len)
            o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? "," : "", TARGETS[i].name);
    return buf;
}

/* ---- options ------------------------------------------------------------- */

/* Fixed costs per card that no log line shows. llama.cpp: the CUDA or ROCm
 * context and the library's workspaces, about 0.5 GiB as nvidia-smi shows
 * beside llama.cpp's own buffers. vLLM: its context, CUDA graphs and NCCL,
 * about 1 GiB. PyTorch training: context, cuBLAS workspaces and allocator
 * slack, about 1 GiB. Defaults, not measurements: --overhead replaces
 * them; --server-log and --run show what a real run took. */
double tc_fit_engine_overhead(tc_fit_engine e)
{
    return e == TC_FIT_ENGINE_LLAMACPP ? 0.5 * TC_FIT_GIB : 1.0 * TC_FIT_GIB;
}

void tc_fit_options_default(tc_fit_options *o)
{
    memset(o, 0, sizeof *o);
    o->task = TC_FIT_SERVE;
    o->concurrency = 1;
    snprintf(o->kv_dtype, sizeof o->kv_dtype, "f16");
    o->kv_bytes = 2;
    o->batch = 1;
    o->seq = 512;
    o->lora_rank = 16;
    o->lora_targets = TC_FIT_LORA_Q | TC_FIT_LORA_K | TC_FIT_LORA_V | TC_FIT_LORA_O;
    o->optimizer = TC_FIT_ADAMW;
    o->checkpointing = TC_FIT_CKPT_NONE;
    o->utilization = 0.9;
    o->gpus = 1;
}

#define DEFAULT_CTX 4096

void tc_fit_resolve(tc_fit_options *o, const tc_model_shape *m, int engine_given)
{
    if (o->ctx <= 0)
        o->ctx = m->context_length > 0 && m->context_length < DEFAULT_CTX ? m->context_length
                                                                          : DEFAULT_CTX;
    if (!engine_given)
        o->engine = o->task != TC_FIT_SERVE      ? TC_FIT_ENGINE_PYTORCH
                    : m->format == TC_MODEL_GGUF ? TC_FIT_ENGINE_LLAMACPP
                                                 : TC_FIT_ENGINE_VLLM;
    if (!o->overhead_given)
        o->overhead_bytes = tc_fit_engine_overhead(o->engine);
}
