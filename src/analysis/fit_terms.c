/* Each memory term of `truecost fit`, by the formulas of
 * docs/commands/fit.md. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fit.h"

double tc_fit_kv_bytes_per_token(const tc_model_shape *m, double kv_bytes)
{
    if (m->kv_heads_sum <= 0 || m->key_length <= 0 || m->value_length <= 0)
        return 0;
    return (double)m->kv_heads_sum * (double)(m->key_length + m->value_length) * kv_bytes;
}

double tc_fit_lora_params(const tc_model_shape *m, int64_t rank, unsigned targets)
{
    double h = (double)m->hidden, q = (double)(m->heads * m->key_length);
    double k = (double)(m->kv_heads * m->key_length), v = (double)(m->kv_heads * m->value_length);
    double o = (double)(m->heads * m->value_length), f = (double)m->ffn;
    double experts = m->experts > 0 ? (double)m->experts : 1;
    double per_layer = 0;
    if (targets & TC_FIT_LORA_Q)
        per_layer += h + q;
    if (targets & TC_FIT_LORA_K)
        per_layer += h + k;
    if (targets & TC_FIT_LORA_V)
        per_layer += h + v;
    if (targets & TC_FIT_LORA_O)
        per_layer += o + h;
    if (targets & TC_FIT_LORA_GATE && m->gated_ffn)
        per_layer += experts * (h + f);
    if (targets & TC_FIT_LORA_UP)
        per_layer += experts * (h + f);
    if (targets & TC_FIT_LORA_DOWN)
        per_layer += experts * (f + h);
    return (double)rank * per_layer * (double)m->layers;
}

double tc_fit_activation_bytes(const tc_model_shape *m, int64_t batch, int64_t seq, tc_fit_ckpt c)
{
    double s = (double)seq, b = (double)batch, h = (double)m->hidden, a = (double)m->heads;
    double layers = (double)m->layers;
    if (h <= 0 || a <= 0 || layers <= 0)
        return 0;
    double whole_layer = s * b * h * (34 + 5 * a * s / h);
    double kept = c == TC_FIT_CKPT_NONE        ? layers * whole_layer
                  : c == TC_FIT_CKPT_SELECTIVE ? layers * 34 * s * b * h
                                               : layers * 2 * s * b * h + whole_layer;
    return kept + 4 * s * b * (double)m->vocab;
}

/* llama.cpp: n_ubatch = min(512, n_ctx) tokens of f32 intermediates (the
 * logits, three FFN-wide and three hidden-wide buffers) and an f16 mask of
 * n_ubatch x n_ctx, as flash attention (its default) needs; measured
 * against llama.cpp's own "compute buffer size" (tests/integration/fit).
 * vLLM: its profiling batch of 8192 tokens (max_num_batched_tokens) in
 * 16 bits through the FFN and four fp32 copies of the logits of 256
 * sequences (max_num_seqs). Training: 0 (the activations hold it). */
double tc_fit_compute_bytes(const tc_model_shape *m, const tc_fit_options *o)
{
    double V = (double)m->vocab, H = (double)m->hidden;
    double F = (double)m->ffn * (m->experts_used > 0 ? (double)m->experts_used : 1);
    if (o->engine == TC_FIT_ENGINE_LLAMACPP) {
        double n_ctx = (double)o->ctx * (double)o->concurrency;
        double u = n_ctx < 512 ? n_ctx : 512;
        return 4 * u * (V + 3 * F + 3 * H) + 2 * u * n_ctx;
    }
    if (o->engine == TC_FIT_ENGINE_VLLM)
        return 8192.0 * (2 * F + 2 * H) * 2 + 4 * 256.0 * V * 4;
    return 0;
}

/* ---- the weights --------------------------------------------------------- */

/* Parameters outside the linear layers: the embedding and, untied, the
 * output head (quantisation leaves them 16-bit). */
static double embedding_params(const tc_model_shape *m)
{
    double e = (double)m->vocab * (double)m->hidden * (m->tied_embeddings == 1 ? 1 : 2);
    return e < (double)m->params ? e : 0;
}

/* Weights of dtype `name` (bytes per value b): quantised ones on the
 * linear layers only. */
static double weights_as(const tc_model_shape *m, const char *name, double b)
{
    double p = (double)m->params;
    if (!tc_fit_dtype_quantised(name))
        return p * b;
    double e = embedding_params(m);
    return (p - e) * b + e * 2;
}

static tc_err weights(const tc_model_shape *m, const tc_fit_options *o, tc_fit_terms *t, char *err,
                      size_t errlen)
{
    const char *dt = o->dtype[0] ? o->dtype : NULL;
    t->weights_from = "parameters x dtype";
    if (o->task == TC_FIT_FULL) {
        double w = dt ? tc_fit_weight_dtype_bytes(dt) : 2;
        if (dt && tc_fit_dtype_quantised(dt))
            return tc_fail(err, errlen, TC_ERR_INVALID,
                           "full training updates every weight: --dtype %s cannot be trained "
                           "(f32, f16 or bf16)",
                           dt);
        t->weight_bytes = (double)m->params * w;
        t->gradient_bytes_per_param = w;
    } else if (o->task == TC_FIT_QLORA) {
        t->weight_bytes = weights_as(m, "nf4", tc_fit_weight_dtype_bytes("nf4"));
    } else if (dt) {
        t->weight_bytes = weights_as(m, dt, tc_fit_weight_dtype_bytes(dt));
    } else if (m->weight_bytes > 0) {
        t->weight_bytes = (double)m->weight_bytes;
        t->weights_from = "tensors";
    } else if (m->dtype_bytes > 0) {
        t->weight_bytes = weights_as(m, m->dtype, m->dtype_bytes);
    } else {
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "the model gives no dtype (torch_dtype): give --dtype f16, bf16, int8, ...");
    }
    const char *counted = o->task == TC_FIT_QLORA  ? "nf4"
                          : o->task == TC_FIT_FULL ? (dt ? dt : "bf16")
                          : dt                     ? dt
                          : m->weight_bytes > 0    ? ""
                                                   : m->dtype;
    snprintf(t->weights_dtype, sizeof t->weights_dtype, "%s", counted);
    t->weight_bytes_per_param = t->weight_bytes / (double)m->params;
    return TC_OK;
}

/* ---- the terms ----------------------------------------------------------- */

/* Bytes per trained parameter beyond its weight and gradient: the fp32
 * master copy of mixed precision (none when the weights are fp32 already,
 * or with adamw-bf16) and the optimizer's states. */
static double optimizer_bytes(tc_fit_optimizer opt, double grad_bytes)
{
    double master = grad_bytes >= 4 ? 0 : 4;
    switch (opt) {
    case TC_FIT_ADAMW_8BIT:
        return master + 2; /* two 8-bit states */
    case TC_FIT_ADAMW_BF16:
        return 4; /* two 16-bit states, no master copy */
    case TC_FIT_SGD:
        return master + 4; /* fp32 momentum */
    default:
        return master + 8; /* fp32 first and second moments */
    }
}

static tc_err serve_terms(const tc_model_shape *m, const tc_fit_options *o, tc_fit_terms *t,
                          char *err, size_t errlen)
{
    t->kv_bytes_per_token = tc_fit_kv_bytes_per_token(m, o->kv_bytes);
    if (t->kv_bytes_per_token <= 0)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "the model file says nothing of its attention (layers, KV heads, head "
                       "size): put its config.json beside it");
    t->used[TC_FIT_KV_CACHE] = t->used[TC_FIT_COMPUTE] = 1;
    t->bytes[TC_FIT_KV_CACHE] = t->kv_bytes_per_token * (double)o->ctx * (double)o->concurrency;
    t->bytes[TC_FIT_COMPUTE] = tc_fit_compute_bytes(m, o);
    return TC_OK;
}

static tc_err train_terms(const tc_model_shape *m, const tc_fit_options *o, tc_fit_terms *t,
                          char *err, size_t errlen)
{
    int lora = o->task != TC_FIT_FULL;
    if (m->layers <= 0 || m->hidden <= 0 || m->heads <= 0)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "training needs the layers, hidden size and heads, which the model file "
                       "does not give: put its config.json beside it");
    if (lora)
        t->gradient_bytes_per_param = 2;
    t->trainable = lora ? tc_fit_lora_params(m, o->lora_rank, o->lora_targets) : t->params;
    t->optimizer_bytes_per_param = optimizer_bytes(o->optimizer, t->gradient_bytes_per_param);
    t->used[TC_FIT_ADAPTERS] = lora;
    t->used[TC_FIT_GRADIENTS] = t->used[TC_FIT_OPTIMIZER] = t->used[TC_FIT_ACTIVATIONS] = 1;
    t->bytes[TC_FIT_ADAPTERS] = lora ? t->trainable * 2 : 0;
    t->bytes[TC_FIT_GRADIENTS] = t->trainable * t->gradient_bytes_per_param;
    t->bytes[TC_FIT_OPTIMIZER] = t->trainable * t->optimizer_bytes_per_param;
    t->bytes[TC_FIT_ACTIVATIONS] = tc_fit_activation_bytes(m, o->batch, o->seq, o->checkpointing);
    return TC_OK;
}

tc_err tc_fit_compute(const tc_model_shape *m, const tc_fit_options *o, tc_fit_terms *out,
                      char *err, size_t errlen)
{
    if (!m || !o || !out)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (m->params == 0)
        return tc_fail(err, errlen, TC_ERR_INVALID, "the model file gives no parameters");
    out->params = (double)m->params;
    tc_err rc = weights(m, o, out, err, errlen);
    if (rc == TC_OK)
        rc = o->task == TC_FIT_SERVE ? serve_terms(m, o, out, err, errlen)
                                     : train_terms(m, o, out, err, errlen);
    if (rc != TC_OK)
        return rc;
    out->used[TC_FIT_WEIGHTS] = out->used[TC_FIT_OVERHEAD] = 1;
    out->bytes[TC_FIT_WEIGHTS] = out->weight_bytes;
    out->bytes[TC_FIT_OVERHEAD] = o->overhead_bytes;
    double gpus = o->gpus > 0 ? (double)o->gpus : 1;
    for (int i = 0; i < TC_FIT_N_TERMS; i++) {
        if (tc_fit_term_split((tc_fit_term_id)i))
            out->bytes[i] /= gpus;
        if (out->used[i])
            out->total += out->bytes[i];
    }
    return TC_OK;
}
