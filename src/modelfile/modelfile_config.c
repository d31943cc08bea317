/* A Hugging Face config.json: the shape, the dtype, and the parameters the
 * shapes give. Field names vary by family (GPT-2's n_layer, Falcon's
 * n_head_kv, Mixtral's num_local_experts): each is looked up by its known
 * names, in text_config first for a multimodal model. */
#include "modelfile_config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

typedef struct cfg {
    const char *file;
    json_t *root, *lm; /* lm: text_config, or root */
    char *err;
    size_t errlen;
    tc_err rc;
} cfg;

/* The value of the first of names present and not null (lm first). */
static json_t *find(const cfg *c, const char *const *names, const char **which)
{
    json_t *in[2] = {c->lm, c->root};
    for (int k = 0; k < 2; k++)
        for (int i = 0; names[i]; i++) {
            json_t *v = json_object_get(in[k], names[i]);
            if (v && !json_is_null(v)) {
                *which = names[i];
                return v;
            }
        }
    return NULL;
}

/* A whole number in [lo, hi] into *out; absent leaves *out. 0, or -1 with
 * the error kept. */
static int get_int(cfg *c, const char *const *names, int64_t lo, int64_t hi, int64_t *out)
{
    const char *key = names[0];
    json_t *v = find(c, names, &key);
    if (!v)
        return 0;
    double d = json_is_integer(v) ? (double)json_integer_value(v)
               : json_is_real(v)  ? json_real_value(v)
                                  : NAN;
    if (!(d >= (double)lo && d <= (double)hi) || d != floor(d)) {
        c->rc = tc_fail(c->err, c->errlen, TC_ERR_PARSE,
                        "%s: '%s' is not a whole number from %lld to %lld", c->file, key,
                        (long long)lo, (long long)hi);
        return -1;
    }
    *out = (int64_t)d;
    return 0;
}

static int in_list(const char *s, const char *const *list)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(s, list[i]) == 0)
            return 1;
    return 0;
}

/* Families without a gated feed-forward network, with a bias on every
 * projection and LayerNorm with bias. */
static const char *const UNGATED[] = {"gpt2",       "gpt_neox", "gptj",   "gpt_bigcode", "gpt_neo",
                                      "opt",        "bloom",    "falcon", "phi",         "mpt",
                                      "starcoder2", "codegen",  NULL};
/* Families whose output head is the embedding unless the config says. */
static const char *const TIED[] = {"gpt2",   "gpt_neo", "gpt_bigcode", "gemma",
                                   "gemma2", "gemma3",  "gemma3_text", "opt",
                                   "bloom",  "phi",     NULL};
static const char *const LEARNED_POSITIONS[] = {"gpt2", "gpt_bigcode", "gpt_neo", "opt", NULL};
static const char *const QKV_BIAS[] = {"qwen2", "qwen2_moe", "qwen2_vl", "qwen2_5_vl", NULL};

/* What the parameter count needs beyond the shape. */
typedef struct extra {
    int ungated, qkv_bias, o_bias, mlp_bias, learned_positions;
    int64_t moe_ffn, shared_ffn, dense_layers;
} extra;

/* One feed-forward network of width f. */
static double mlp(const tc_model_shape *m, const extra *x, double f)
{
    double h = (double)m->hidden;
    return (m->gated_ffn ? 3 : 2) * h * f + (x->mlp_bias ? (m->gated_ffn ? 2 : 1) * f + h : 0);
}

static double count_params(const tc_model_shape *m, const extra *x)
{
    double h = (double)m->hidden, a = (double)m->heads, kv = (double)m->kv_heads;
    double dk = (double)m->key_length, dv = (double)m->value_length, E = (double)m->experts;
    double attn = h * a * dk + h * kv * dk + h * kv * dv + a * dv * h;
    attn += x->qkv_bias ? a * dk + kv * dk + kv * dv : 0;
    attn += x->o_bias ? h : 0;
    double norm = (x->ungated ? 2 : 1) * h;
    double dense = mlp(m, x, (double)m->ffn);
    double moe = E * mlp(m, x, (double)x->moe_ffn) + h * E +
                 (x->shared_ffn ? mlp(m, x, (double)x->shared_ffn) : 0);
    double n_dense = E > 0 ? (double)x->dense_layers : (double)m->layers;
    double total = n_dense * (attn + 2 * norm + dense) +
                   ((double)m->layers - n_dense) * (attn + 2 * norm + moe);
    total += (double)m->vocab * h * (m->tied_embeddings == 1 ? 1 : 2) + norm;
    total += x->learned_positions ? (double)m->context_length * h : 0;
    return total;
}

/* The shape's numbers; -1 on a bad value (kept in c->rc). */
static int read_shape(cfg *c, tc_model_shape *m, extra *x)
{
    static const char *const LAYERS[] = {"num_hidden_layers", "n_layer", "num_layers", "n_layers",
                                         NULL};
    static const char *const HIDDEN[] = {"hidden_size", "n_embd", "d_model", "dim", NULL};
    static const char *const HEADS[] = {"num_attention_heads", "n_head", "num_heads", "n_heads",
                                        NULL};
    static const char *const KV[] = {"num_key_value_heads", "num_kv_heads", "n_head_kv", NULL};
    static const char *const HEAD_DIM[] = {"head_dim", NULL};
    static const char *const FFN[] = {"intermediate_size", "n_inner", "ffn_dim", "ffn_hidden_size",
                                      NULL};
    static const char *const VOCAB[] = {"vocab_size", "padded_vocab_size", NULL};
    static const char *const CTX[] = {"max_position_embeddings", "n_positions", "seq_length",
                                      "max_sequence_length",     "max_seq_len", NULL};
    static const char *const EXPERTS[] = {"num_local_experts", "num_experts", "n_routed_experts",
                                          NULL};
    static const char *const USED[] = {"num_experts_per_tok", "num_experts_per_token", NULL};
    static const char *const MOE_FFN[] = {"moe_intermediate_size", NULL};
    static const char *const SHARED[] = {"shared_expert_intermediate_size", NULL};
    static const char *const N_SHARED[] = {"n_shared_experts", NULL};
    static const char *const DENSE[] = {"first_k_dense_replace", NULL};
    int64_t n_shared = 0;
    if (get_int(c, LAYERS, 1, 1 << 16, &m->layers) || get_int(c, HIDDEN, 1, 1 << 24, &m->hidden) ||
        get_int(c, HEADS, 1, 1 << 16, &m->heads) || get_int(c, KV, 1, 1 << 16, &m->kv_heads) ||
        get_int(c, HEAD_DIM, 1, 1 << 20, &m->key_length) || get_int(c, FFN, 1, 1 << 26, &m->ffn) ||
        get_int(c, VOCAB, 1, 1 << 28, &m->vocab) ||
        get_int(c, CTX, 1, INT64_C(1) << 34, &m->context_length) ||
        get_int(c, EXPERTS, 0, 1 << 16, &m->experts) ||
        get_int(c, USED, 0, 1 << 16, &m->experts_used) ||
        get_int(c, MOE_FFN, 1, 1 << 26, &x->moe_ffn) ||
        get_int(c, SHARED, 0, 1 << 26, &x->shared_ffn) ||
        get_int(c, N_SHARED, 0, 1 << 16, &n_shared) ||
        get_int(c, DENSE, 0, 1 << 16, &x->dense_layers))
        return -1;
    if (!x->moe_ffn)
        x->moe_ffn = m->ffn;
    if (n_shared && !x->shared_ffn)
        x->shared_ffn = n_shared * x->moe_ffn;
    if (x->dense_layers > m->layers)
        x->dense_layers = m->layers;
    return 0;
}

/* The family's habits: gating, biases, tying, multi-query. */
static void read_family(cfg *c, tc_model_shape *m, extra *x)
{
    const char *key;
    static const char *const TYPE[] = {"model_type", NULL};
    static const char *const TIE[] = {"tie_word_embeddings", NULL};
    static const char *const MQ[] = {"multi_query", NULL};
    static const char *const ATT_BIAS[] = {"attention_bias", "bias", NULL};
    static const char *const MLP_BIAS[] = {"mlp_bias", NULL};
    const char *type = json_string_value(find(c, TYPE, &key));
    if (!type)
        type = json_string_value(json_array_get(json_object_get(c->root, "architectures"), 0));
    snprintf(m->arch, sizeof m->arch, "%s", type ? type : "");
    x->ungated = type && in_list(type, UNGATED);
    m->gated_ffn = !x->ungated;
    json_t *tie = find(c, TIE, &key);
    m->tied_embeddings = json_is_boolean(tie) ? json_is_true(tie) : type && in_list(type, TIED);
    if (json_is_true(find(c, MQ, &key)) && !m->kv_heads)
        m->kv_heads = 1;
    int att_bias = json_is_true(find(c, ATT_BIAS, &key));
    x->qkv_bias = x->ungated || att_bias || (type && in_list(type, QKV_BIAS));
    x->o_bias = x->ungated || att_bias;
    x->mlp_bias = x->ungated || json_is_true(find(c, MLP_BIAS, &key));
    x->learned_positions = type && in_list(type, LEARNED_POSITIONS);
    if (!m->ffn && x->ungated)
        m->ffn = 4 * m->hidden; /* GPT-2's n_inner: null */
}

/* ---- dtype --------------------------------------------------------------- */

/* Bytes per parameter of the quantised formats a config can declare
 * (applied to the linear layers; fit.h keeps embeddings at 16 bits). */
#define INT4_BYTES (0.5 + 2.0 / 128)                  /* 4 bits, an fp16 scale per group of 128 */
#define NF4_BYTES (0.5 + 1.0 / 64 + 4.0 / (64 * 256)) /* bitsandbytes, double quantisation */

static void set_dtype(tc_model_shape *m, const char *name, double bytes)
{
    snprintf(m->dtype, sizeof m->dtype, "%s", name);
    m->dtype_bytes = bytes;
}

/* quantization_config, when it names a format; 1 when it did. */
static int read_quant(const cfg *c, tc_model_shape *m)
{
    json_t *q = json_object_get(c->root, "quantization_config");
    if (!json_is_object(q))
        q = json_object_get(c->lm, "quantization_config");
    const char *method = json_string_value(json_object_get(q, "quant_method"));
    json_int_t bits = json_integer_value(json_object_get(q, "bits"));
    if (!method)
        return 0;
    if (strcmp(method, "bitsandbytes") == 0) {
        if (json_is_true(json_object_get(q, "load_in_4bit")))
            set_dtype(m, "nf4", NF4_BYTES);
        else
            set_dtype(m, "int8", 1);
    } else if (strcmp(method, "fp8") == 0) {
        set_dtype(m, "fp8", 1);
    } else if (strcmp(method, "mxfp4") == 0) {
        set_dtype(m, "mxfp4", 17.0 / 32); /* 4 bits and a shared 8-bit exponent per 32 */
    } else if (bits == 8) {
        set_dtype(m, "int8", 1);
    } else if (bits == 4) {
        set_dtype(m, "int4", INT4_BYTES);
    } else {
        return 0;
    }
    return 1;
}

static void read_dtype(const cfg *c, tc_model_shape *m)
{
    static const struct {
        const char *name, *as;
        double bytes;
    } MAP[] = {{"float32", "f32", 4},    {"float", "f32", 4},     {"float16", "f16", 2},
               {"half", "f16", 2},       {"bfloat16", "bf16", 2}, {"float8_e4m3fn", "fp8", 1},
               {"float8_e5m2", "fp8", 1}};
    if (read_quant(c, m))
        return;
    json_t *in[2] = {c->root, c->lm};
    for (int k = 0; k < 2; k++) {
        const char *s = json_string_value(json_object_get(in[k], "torch_dtype"));
        if (!s)
            s = json_string_value(json_object_get(in[k], "dtype"));
        for (size_t i = 0; s && i < sizeof MAP / sizeof MAP[0]; i++)
            if (strcmp(s, MAP[i].name) == 0) {
                set_dtype(m, MAP[i].as, MAP[i].bytes);
                return;
            }
    }
}

/* ---- the whole file ------------------------------------------------------ */

static tc_err missing(const cfg *c, const char *what, const char *key)
{
    return tc_fail(c->err, c->errlen, TC_ERR_PARSE,
                   "%s: no %s (%s): not a transformer's config.json, or a family truecost does "
                   "not know",
                   c->file, what, key);
}

static tc_err read_all(cfg *c, tc_model_shape *m)
{
    extra x;
    memset(&x, 0, sizeof x);
    if (read_shape(c, m, &x))
        return c->rc;
    read_family(c, m, &x);
    if (!m->layers)
        return missing(c, "layer count", "num_hidden_layers");
    if (!m->hidden)
        return missing(c, "hidden size", "hidden_size");
    if (!m->heads)
        return missing(c, "attention head count", "num_attention_heads");
    if (!m->vocab)
        return missing(c, "vocabulary size", "vocab_size");
    if (!m->ffn)
        return missing(c, "feed-forward size", "intermediate_size");
    if (m->experts && !x.moe_ffn)
        x.moe_ffn = m->ffn;
    const char *name = json_string_value(json_object_get(c->root, "_name_or_path"));
    snprintf(m->name, sizeof m->name, "%s", name ? name : "");
    read_dtype(c, m);
    tc_model_finish(m); /* kv heads, head dims */
    double p = count_params(m, &x);
    if (!(p > 0 && p < 9e18))
        return tc_fail(c->err, c->errlen, TC_ERR_PARSE,
                       "%s: the shapes give %.3g parameters: not a plausible model", c->file, p);
    m->params = (uint64_t)llround(p);
    m->params_from = TC_MODEL_FROM_CONFIG;
    return TC_OK;
}

tc_err tc_modelfile_json_object(const char *file, const char *text, size_t len, json_t **doc,
                                char *err, size_t errlen)
{
    json_error_t je;
    *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!*doc)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: line %d, column %d (offset %d): not JSON: %s", file, je.line, je.column,
                       je.position, je.text);
    if (json_is_object(*doc))
        return TC_OK;
    json_decref(*doc);
    *doc = NULL;
    return tc_fail(err, errlen, TC_ERR_PARSE, "%s: offset 0: not a JSON object", file);
}

tc_err tc_modelfile_config_parse(const char *file, const char *text, size_t len,
                                 tc_model_shape *out, char *err, size_t errlen)
{
    if (!file || (!text && len) || !out)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    json_t *doc = NULL;
    tc_err rc = tc_modelfile_json_object(file, text, len, &doc, err, errlen);
    if (rc != TC_OK)
        return rc;
    cfg c = {.file = file, .root = doc, .lm = doc, .err = err, .errlen = errlen};
    json_t *text_config = json_object_get(doc, "text_config");
    if (json_is_object(text_config))
        c.lm = text_config;
    out->format = TC_MODEL_CONFIG;
    out->files = 1;
    out->has_config = 1;
    rc = read_all(&c, out);
    json_decref(doc);
    if (rc != TC_OK)
        memset(out, 0, sizeof *out);
    return rc;
}
