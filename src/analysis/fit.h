/* Will a model and its workload fit a card's memory? The arithmetic of
 * `truecost fit` on a model's shape (record/record_model.h): every term
 * (weights, KV cache, compute buffer, runtime overhead; for training the
 * adapters, gradients, optimizer states and activations), the verdict per
 * card, and the largest setting that fits. Pure functions: no file, no
 * store. docs/commands/fit.md gives each formula under the names of
 * tc_fit_term_name. Bytes are bytes; a GiB is 2^30 of them. */
#ifndef TC_FIT_H
#define TC_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/roofline.h"
#include "core/tc_error.h"
#include "record/record_model.h"

#define TC_FIT_GIB 1073741824.0

typedef enum tc_fit_task { TC_FIT_SERVE = 0, TC_FIT_LORA, TC_FIT_QLORA, TC_FIT_FULL } tc_fit_task;

/* The optimizer of a training task. ADAMW is mixed precision (16-bit
 * weights and gradients, fp32 master weights and states); ADAMW_BF16
 * keeps everything in 16 bits, as the first seed counts it. */
typedef enum tc_fit_optimizer {
    TC_FIT_ADAMW = 0,
    TC_FIT_ADAMW_8BIT,
    TC_FIT_ADAMW_BF16,
    TC_FIT_SGD
} tc_fit_optimizer;

typedef enum tc_fit_ckpt {
    TC_FIT_CKPT_NONE = 0,  /* every activation kept */
    TC_FIT_CKPT_SELECTIVE, /* attention's recomputed */
    TC_FIT_CKPT_FULL       /* only each layer's input kept */
} tc_fit_ckpt;

/* Whose defaults the compute buffer and the fixed overhead follow. */
typedef enum tc_fit_engine {
    TC_FIT_ENGINE_LLAMACPP = 0, /* GGUF files, llama.cpp and what embeds it (Ollama) */
    TC_FIT_ENGINE_VLLM,         /* safetensors and config.json served */
    TC_FIT_ENGINE_PYTORCH       /* training */
} tc_fit_engine;

/* Names as the options take them ("serve", "lora", "qlora", "full";
 * "adamw", "adamw-8bit", "adamw-bf16", "sgd"; "none", "selective", "full";
 * "llama.cpp", "vllm", "pytorch"); parse returns 0 or -1. */
const char *tc_fit_task_name(tc_fit_task t);
int tc_fit_task_parse(const char *s, tc_fit_task *out);
const char *tc_fit_optimizer_name(tc_fit_optimizer o);
int tc_fit_optimizer_parse(const char *s, tc_fit_optimizer *out);
const char *tc_fit_ckpt_name(tc_fit_ckpt c);
int tc_fit_ckpt_parse(const char *s, tc_fit_ckpt *out);
const char *tc_fit_engine_name(tc_fit_engine e);

/* Bytes per value of a weight dtype (f32 4, f16 and bf16 2, int8 1, int4
 * 0.515625, nf4 0.516: see fit.c) and of a KV-cache dtype (f16 and bf16 2,
 * q8_0 34/32, q4_0 18/32, fp8 1); 0 when unknown. */
double tc_fit_weight_dtype_bytes(const char *name);
double tc_fit_kv_dtype_bytes(const char *name);

/* 1 for the quantised weight dtypes (int8, int4, nf4, fp8, mxfp4): they
 * apply to the linear layers, and the embeddings stay 16-bit. */
int tc_fit_dtype_quantised(const char *name);

/* The matrices LoRA adapts, as bits. */
enum {
    TC_FIT_LORA_Q = 1,
    TC_FIT_LORA_K = 2,
    TC_FIT_LORA_V = 4,
    TC_FIT_LORA_O = 8,
    TC_FIT_LORA_GATE = 16,
    TC_FIT_LORA_UP = 32,
    TC_FIT_LORA_DOWN = 64,
    TC_FIT_LORA_ALL = 127
};

/* "q,k,v,o", "q_proj,v_proj", "all-linear" (every one) into *out: 0, or
 * -1 for an empty list or an unknown name. */
int tc_fit_lora_targets_parse(const char *list, unsigned *out);
/* The targets as "q,k,v,o" into buf. Returns buf. */
const char *tc_fit_lora_targets_text(unsigned targets, char *buf, size_t len);

typedef struct tc_fit_options {
    tc_fit_task task;
    tc_fit_engine engine;
    int64_t ctx;         /* tokens per sequence (serve) */
    int64_t concurrency; /* sequences at once (serve) */
    char kv_dtype[8];
    double kv_bytes; /* per cached value */
    char dtype[16];  /* the weights' dtype; "" = the file's */
    int64_t batch;   /* micro-batch (training) */
    int64_t seq;     /* tokens per training sequence */
    int64_t lora_rank;
    unsigned lora_targets;
    tc_fit_optimizer optimizer;
    tc_fit_ckpt checkpointing;
    double utilization;    /* of the card's memory, (0, 1] */
    double overhead_bytes; /* the runtime's fixed cost per card */
    int overhead_given;    /* --overhead, else the engine's default */
    int64_t gpus;          /* cards the model is split across */
} tc_fit_options;

/* The defaults: serve, ctx 0 (tc_fit_resolve: the model's, at most 4096),
 * concurrency 1, KV f16, the file's dtype, batch 1, seq 512, LoRA rank 16
 * on q,k,v,o, AdamW, no checkpointing, utilization 0.9, one GPU. */
void tc_fit_options_default(tc_fit_options *o);

/* Settles what depends on the model: ctx (when 0), the engine (training:
 * pytorch; serving a GGUF: llama.cpp; else vllm) unless engine_given, and
 * the engine's overhead unless overhead_given. */
void tc_fit_resolve(tc_fit_options *o, const tc_model_shape *m, int engine_given);

/* The engine's fixed overhead per card, in bytes (fit.c says why). */
double tc_fit_engine_overhead(tc_fit_engine e);

/* In the order the documents list them. */
typedef enum tc_fit_term_id {
    TC_FIT_WEIGHTS = 0,
    TC_FIT_KV_CACHE,
    TC_FIT_COMPUTE,
    TC_FIT_ADAPTERS,
    TC_FIT_GRADIENTS,
    TC_FIT_OPTIMIZER,
    TC_FIT_ACTIVATIONS,
    TC_FIT_OVERHEAD,
    TC_FIT_N_TERMS
} tc_fit_term_id;

/* "weights", "kv_cache", "compute_buffer", "adapters", "gradients",
 * "optimizer_states", "activations", "overhead". */
const char *tc_fit_term_name(tc_fit_term_id t);
/* 1 when --gpus N divides the term across the cards. */
int tc_fit_term_split(tc_fit_term_id t);

/* The terms of one setting, per card. */
typedef struct tc_fit_terms {
    int used[TC_FIT_N_TERMS];         /* the task's terms */
    double bytes[TC_FIT_N_TERMS];     /* per card */
    double total;                     /* per card: the memory needed */
    double params;                    /* of the model */
    double weight_bytes;              /* of the whole model, before any split */
    const char *weights_from;         /* static: "tensors", "parameters x dtype" */
    char weights_dtype[16];           /* the dtype counted ("" for the tensors\' own) */
    double weight_bytes_per_param;    /* weight_bytes / params */
    double trainable;                 /* parameters trained (0 serving) */
    double kv_bytes_per_token;        /* of one sequence, before any split */
    double optimizer_bytes_per_param; /* beyond weight and gradient */
    double gradient_bytes_per_param;
} tc_fit_terms;

/* Bytes of KV cache per token: the sum over layers of KV heads x (key
 * length + value length) x kv_bytes, i.e. 2 x layers x KV heads x head
 * dim x bytes when uniform. 0 when the shape lacks layers or heads. */
double tc_fit_kv_bytes_per_token(const tc_model_shape *m, double kv_bytes);
/* LoRA's trainable parameters: rank x (d_in + d_out) per adapted matrix,
 * per layer (gate only where the FFN is gated). */
double tc_fit_lora_params(const tc_model_shape *m, int64_t rank, unsigned targets);
/* Activations of a micro-batch (Korthikanti et al. 2022, 16-bit): per
 * layer s*b*h*(34 + 5*a*s/h) without recomputation, 34*s*b*h selective,
 * 2*s*b*h full (plus one layer rebuilt at a time); plus 4*s*b*V for the
 * fp32 logits. */
double tc_fit_activation_bytes(const tc_model_shape *m, int64_t batch, int64_t seq, tc_fit_ckpt c);
/* The engine's compute buffer for the setting (fit.c: the estimate). */
double tc_fit_compute_bytes(const tc_model_shape *m, const tc_fit_options *o);

/* Computes the terms of model m under o into *out. TC_OK, or
 * TC_ERR_INVALID with a sentence in err saying what the model lacks or
 * which option does not apply ("...: give its config.json", "--dtype"). */
TC_MUST_CHECK tc_err tc_fit_compute(const tc_model_shape *m, const tc_fit_options *o,
                                    tc_fit_terms *out, char *err, size_t errlen);

typedef enum tc_fit_verdict { TC_FIT_FITS = 0, TC_FIT_TIGHT, TC_FIT_NO } tc_fit_verdict;
/* "fits", "tight", "does not fit". */
const char *tc_fit_verdict_name(tc_fit_verdict v);
/* Below this share of the budget left over, a fit is tight. */
#define TC_FIT_TIGHT_SHARE 0.10

/* One card judged. */
typedef struct tc_fit_card {
    char name[64];
    const char *capacity_from; /* static: "memory_usable_mib", "memory_gb as GiB", "--vram" */
    double capacity_bytes;     /* the card's memory */
    double budget_bytes;       /* capacity x utilization */
    double need_bytes;         /* the terms' total, per card */
    double spare_bytes;        /* budget - need; negative when it does not fit */
    double spare_share;        /* spare / budget */
    tc_fit_verdict verdict;
    /* The largest settings that fit; -1 where they do not apply. */
    int64_t max_concurrency; /* serve: sequences at --ctx */
    int64_t max_ctx;         /* serve: tokens of one sequence */
    int64_t max_batch;       /* training: micro-batch at --seq */
    int64_t min_gpus;        /* cards needed at this setting (up to 1024); 0: none is enough */
} tc_fit_card;

/* A card from a spec table row (analysis/roofline.h): its capacity is
 * usable_memory_mib MiB when the row gives it, else memory_gb GiB (GPU
 * memory's "GB" are binary). 0, or -1 when the row gives neither. */
int tc_fit_card_from_spec(const tc_gpu_spec *s, tc_fit_card *out);
/* A card of `gib` GiB named "--vram N GiB". */
void tc_fit_card_vram(double gib, tc_fit_card *out);

/* Judges a card of capacity_bytes (name and capacity_from kept as given)
 * for model m under o, whose terms are t. */
void tc_fit_judge(const tc_model_shape *m, const tc_fit_options *o, const tc_fit_terms *t,
                  tc_fit_card *card);

#endif
