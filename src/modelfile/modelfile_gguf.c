/* GGUF: the header and the metadata (the model's shape). The tensor infos
 * are in modelfile_gguf_tensors.c. */
#include "modelfile_gguf.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "modelfile_gguf_internal.h"

/* ggml.h's enum ggml_type: name, values per block, bytes per block; the
 * removed ids (4, 5, 31-33, 36-38) stay empty. */
static const tc_gguf_type TYPES[] = {
    [0] = {"F32", 1, 4},         [1] = {"F16", 1, 2},         [2] = {"Q4_0", 32, 18},
    [3] = {"Q4_1", 32, 20},      [6] = {"Q5_0", 32, 22},      [7] = {"Q5_1", 32, 24},
    [8] = {"Q8_0", 32, 34},      [9] = {"Q8_1", 32, 36},      [10] = {"Q2_K", 256, 84},
    [11] = {"Q3_K", 256, 110},   [12] = {"Q4_K", 256, 144},   [13] = {"Q5_K", 256, 176},
    [14] = {"Q6_K", 256, 210},   [15] = {"Q8_K", 256, 292},   [16] = {"IQ2_XXS", 256, 66},
    [17] = {"IQ2_XS", 256, 74},  [18] = {"IQ3_XXS", 256, 98}, [19] = {"IQ1_S", 256, 50},
    [20] = {"IQ4_NL", 32, 18},   [21] = {"IQ3_S", 256, 110},  [22] = {"IQ2_S", 256, 82},
    [23] = {"IQ4_XS", 256, 136}, [24] = {"I8", 1, 1},         [25] = {"I16", 1, 2},
    [26] = {"I32", 1, 4},        [27] = {"I64", 1, 8},        [28] = {"F64", 1, 8},
    [29] = {"IQ1_M", 256, 56},   [30] = {"BF16", 1, 2},       [34] = {"TQ1_0", 256, 54},
    [35] = {"TQ2_0", 256, 66},   [39] = {"MXFP4", 32, 17},    [40] = {"NVFP4", 64, 36},
    [41] = {"Q1_0", 128, 18},    [42] = {"Q2_0", 64, 18},
};

const tc_gguf_type *tc_modelfile_gguf_type(uint32_t id)
{
    if (id >= sizeof TYPES / sizeof TYPES[0] || !TYPES[id].name)
        return NULL;
    return &TYPES[id];
}

/* ---- the cursor ---------------------------------------------------------- */

int tc_gguf_fail(tc_gguf_cursor *c, uint64_t at, const char *fmt, ...)
{
    if (c->rc != TC_OK || c->need)
        return -1;
    char what[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    c->rc = tc_fail(c->err, c->errlen, TC_ERR_PARSE, "%s: offset %llu: %s", c->file,
                    (unsigned long long)at, what);
    return -1;
}

int tc_gguf_take(tc_gguf_cursor *c, uint64_t n, const char *what, const unsigned char **p)
{
    if (c->rc != TC_OK || c->need)
        return -1;
    if (n > c->size - c->pos)
        return tc_gguf_fail(c, c->pos,
                            "%s of %llu bytes goes past the end of the file (%llu bytes): the "
                            "file is cut short, or not GGUF",
                            what, (unsigned long long)n, (unsigned long long)c->size);
    if (n > c->len - c->pos) {
        uint64_t want = (uint64_t)c->pos + n, twice = (uint64_t)c->len * 2;
        want = want > twice ? want : twice;
        c->need = (size_t)(want < c->size ? want : c->size);
        return -1;
    }
    *p = c->b + c->pos;
    c->pos += (size_t)n;
    return 0;
}

static uint64_t le(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

int tc_gguf_u32(tc_gguf_cursor *c, const char *what, uint32_t *out)
{
    const unsigned char *p = NULL;
    if (tc_gguf_take(c, 4, what, &p))
        return -1;
    *out = (uint32_t)le(p, 4);
    return 0;
}

int tc_gguf_u64(tc_gguf_cursor *c, const char *what, uint64_t *out)
{
    const unsigned char *p = NULL;
    if (tc_gguf_take(c, 8, what, &p))
        return -1;
    *out = le(p, 8);
    return 0;
}

/* ---- values -------------------------------------------------------------- */

enum { T_U8, T_I8, T_U16, T_I16, T_U32, T_I32, T_F32, T_BOOL, T_STR, T_ARR, T_U64, T_I64, T_F64 };
static const int SCALAR_SIZE[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
static const char *const TYPE_NAME[] = {"uint8",  "int8",    "uint16", "int16",  "uint32",
                                        "int32",  "float32", "bool",   "string", "array",
                                        "uint64", "int64",   "float64"};
#define N_VALUE_TYPES 13

/* One value as the shape needs it. */
typedef struct gval {
    uint32_t type;
    int whole;     /* an integer (or bool), or an array of them */
    int64_t v;     /* the integer; of an array, its largest element */
    int64_t sum;   /* of an array's elements (saturated) */
    uint64_t n;    /* array length; 1 for a scalar */
    const char *s; /* a string, in the cursor's bytes */
    uint64_t slen;
} gval;

/* A string: its bytes in *s (not NUL-terminated), length *n. */
static int read_string(tc_gguf_cursor *c, const char *what, const char **s, uint64_t *n)
{
    const unsigned char *p = NULL;
    uint64_t at = c->pos;
    if (tc_gguf_u64(c, what, n))
        return -1;
    if (*n > c->size - c->pos)
        return tc_gguf_fail(c, at, "%s declares %llu bytes, more than the file has left", what,
                            (unsigned long long)*n);
    if (tc_gguf_take(c, *n, what, &p))
        return -1;
    *s = (const char *)p;
    return 0;
}

/* A scalar of type t (not a string or an array). */
static int read_scalar(tc_gguf_cursor *c, uint32_t t, gval *v)
{
    const unsigned char *p = NULL;
    if (tc_gguf_take(c, (uint64_t)SCALAR_SIZE[t], "a value", &p))
        return -1;
    uint64_t u = le(p, SCALAR_SIZE[t]);
    int bits = SCALAR_SIZE[t] * 8;
    int is_signed = t == T_I8 || t == T_I16 || t == T_I32 || t == T_I64;
    if (t == T_F32 || t == T_F64)
        return 0; /* no float enters the shape */
    v->whole = 1;
    if (is_signed && bits < 64 && (u >> (bits - 1)) & 1)
        v->v = (int64_t)(u | ~((UINT64_C(1) << bits) - 1)); /* sign-extend */
    else
        v->v = u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
    return 0;
}

/* An array's elements: summed and their largest kept when whole numbers;
 * strings and floats skipped. Nested arrays are not GGUF. */
static int read_array(tc_gguf_cursor *c, gval *v)
{
    uint32_t t;
    uint64_t at = c->pos, n;
    if (tc_gguf_u32(c, "an array's type", &t) || tc_gguf_u64(c, "an array's length", &n))
        return -1;
    if (t == T_ARR)
        return tc_gguf_fail(c, at, "an array of arrays: nested arrays are not GGUF");
    if (t >= N_VALUE_TYPES)
        return tc_gguf_fail(c, at, "an array of unknown type %u", t);
    uint64_t least = t == T_STR ? 8 : (uint64_t)SCALAR_SIZE[t];
    if (n > (c->size - c->pos) / least)
        return tc_gguf_fail(c, at, "an array declares %llu elements, more than the file has left",
                            (unsigned long long)n);
    v->n = n;
    v->whole = t != T_STR && t != T_F32 && t != T_F64;
    const unsigned char *p = NULL;
    if (t != T_STR && !v->whole) /* floats: skipped at once */
        return tc_gguf_take(c, n * least, "an array", &p);
    int64_t most = 0, sum = 0;
    for (uint64_t i = 0; i < n; i++) {
        gval e = {0};
        const char *s;
        uint64_t sl;
        if (t == T_STR ? read_string(c, "a string", &s, &sl) : read_scalar(c, t, &e))
            return -1;
        if (e.v > most || i == 0)
            most = e.v;
        sum = e.v > 0 && sum > INT64_MAX - e.v ? INT64_MAX : sum + (e.v > 0 ? e.v : 0);
    }
    v->v = most;
    v->sum = sum;
    return 0;
}

static int read_value(tc_gguf_cursor *c, gval *v)
{
    uint64_t at = c->pos;
    memset(v, 0, sizeof *v);
    if (tc_gguf_u32(c, "a value's type", &v->type))
        return -1;
    if (v->type >= N_VALUE_TYPES)
        return tc_gguf_fail(c, at, "a value of unknown type %u", v->type);
    v->n = 1;
    if (v->type == T_STR)
        return read_string(c, "a string value", &v->s, &v->slen);
    if (v->type == T_ARR)
        return read_array(c, v);
    if (read_scalar(c, v->type, v))
        return -1;
    v->sum = v->v;
    return 0;
}

/* ---- the metadata the shape needs ---------------------------------------- */

/* Keys "<architecture>.<suffix>": the largest value believed, and whether
 * a per-layer array is allowed. */
enum { K_LAYERS, K_HIDDEN, K_FFN, K_HEADS, K_KV, K_KLEN, K_VLEN, K_CTX, K_VOCAB, K_EXP, K_EXPU };
static const struct {
    const char *suffix;
    int64_t max;
    int array_ok;
} KEYS[] = {
    {"block_count", 1 << 16, 0},
    {"embedding_length", 1 << 24, 0},
    {"feed_forward_length", 1 << 26, 1},
    {"attention.head_count", 1 << 16, 1},
    {"attention.head_count_kv", 1 << 16, 1},
    {"attention.key_length", 1 << 20, 0},
    {"attention.value_length", 1 << 20, 0},
    {"context_length", INT64_C(1) << 34, 0},
    {"vocab_size", 1 << 28, 0},
    {"expert_count", 1 << 16, 0},
    {"expert_used_count", 1 << 16, 0},
};
#define N_KEYS ((int)(sizeof KEYS / sizeof KEYS[0]))
#define NAME_MAX_LEN 63

typedef struct meta {
    char arch[NAME_MAX_LEN + 1];
    struct {
        int set;
        char prefix[NAME_MAX_LEN + 1];
        gval v;
        uint64_t at;
    } k[N_KEYS];
    uint32_t alignment;
    uint64_t tokens; /* tokenizer.ggml.tokens' length */
} meta;

static int is_key(const char *key, uint64_t klen, const char *want)
{
    return klen == strlen(want) && memcmp(key, want, (size_t)klen) == 0;
}

static int general_key(tc_gguf_cursor *c, meta *m, const char *key, uint64_t klen, const gval *v,
                       uint64_t at, tc_model_shape *out)
{
    if (is_key(key, klen, "general.architecture")) {
        if (v->type != T_STR || v->slen == 0 || v->slen > NAME_MAX_LEN)
            return tc_gguf_fail(c, at, "general.architecture is not a name of 1 to %d bytes",
                                NAME_MAX_LEN);
        memcpy(m->arch, v->s, (size_t)v->slen);
        m->arch[v->slen] = '\0';
    } else if (is_key(key, klen, "general.name") && v->type == T_STR) {
        size_t n = v->slen < sizeof out->name ? (size_t)v->slen : sizeof out->name - 1;
        memcpy(out->name, v->s, n);
        out->name[n] = '\0';
    } else if (is_key(key, klen, "general.alignment")) {
        if (v->type == T_ARR || !v->whole || v->v <= 0 || v->v > (1 << 30) || (v->v & (v->v - 1)))
            return tc_gguf_fail(c, at, "general.alignment is not a power of two up to 2^30");
        m->alignment = (uint32_t)v->v;
    } else if (is_key(key, klen, "tokenizer.ggml.tokens") && v->type == T_ARR) {
        m->tokens = v->n;
    }
    return 0;
}

/* Keeps the value of a "<prefix>.<suffix>" key the shape needs. */
static void shape_key(meta *m, const char *key, uint64_t klen, const gval *v, uint64_t at)
{
    for (int i = 0; i < N_KEYS; i++) {
        size_t sl = strlen(KEYS[i].suffix);
        if (klen <= sl + 1 || key[klen - sl - 1] != '.' ||
            memcmp(key + klen - sl, KEYS[i].suffix, sl) != 0)
            continue;
        size_t pl = (size_t)klen - sl - 1;
        if (pl > NAME_MAX_LEN ||
            (m->arch[0] && (strlen(m->arch) != pl || memcmp(m->arch, key, pl) != 0)))
            return;
        m->k[i].set = 1;
        memcpy(m->k[i].prefix, key, pl);
        m->k[i].prefix[pl] = '\0';
        m->k[i].v = *v;
        m->k[i].at = at;
        return;
    }
}

/* The kept values, checked, into the shape. */
static int apply_keys(tc_gguf_cursor *c, const meta *m, tc_model_shape *out)
{
    int64_t got[N_KEYS] = {0}, sum_kv = 0;
    for (int i = 0; i < N_KEYS; i++) {
        if (!m->k[i].set || strcmp(m->k[i].prefix, m->arch) != 0)
            continue;
        const gval *v = &m->k[i].v;
        if (!v->whole || (v->type == T_ARR && !KEYS[i].array_ok))
            return tc_gguf_fail(c, m->k[i].at, "%s.%s holds a %s, not a whole number", m->arch,
                                KEYS[i].suffix, TYPE_NAME[v->type]);
        if (v->v < 0 || v->v > KEYS[i].max)
            return tc_gguf_fail(c, m->k[i].at, "%s.%s = %lld is not plausible (0 to %lld)", m->arch,
                                KEYS[i].suffix, (long long)v->v, (long long)KEYS[i].max);
        got[i] = v->v;
        if (i == K_KV && v->type == T_ARR)
            sum_kv = v->sum; /* per layer: at most 2^16 x 2^16 */
    }
    out->layers = got[K_LAYERS];
    out->hidden = got[K_HIDDEN];
    out->ffn = got[K_FFN];
    out->heads = got[K_HEADS];
    out->kv_heads = got[K_KV];
    out->kv_heads_sum = sum_kv;
    out->key_length = got[K_KLEN];
    out->value_length = got[K_VLEN];
    out->context_length = got[K_CTX];
    out->vocab = got[K_VOCAB] ? got[K_VOCAB] : (int64_t)(m->tokens < (1u << 28) ? m->tokens : 0);
    out->experts = got[K_EXP];
    out->experts_used = got[K_EXPU];
    snprintf(out->arch, sizeof out->arch, "%s", m->arch);
    return 0;
}

static int read_metadata(tc_gguf_cursor *c, uint64_t n_kv, meta *m, tc_model_shape *out)
{
    for (uint64_t i = 0; i < n_kv; i++) {
        uint64_t at = c->pos, klen;
        const char *key = NULL;
        gval v;
        if (read_string(c, "a key", &key, &klen) || read_value(c, &v) ||
            general_key(c, m, key, klen, &v, at, out))
            return -1;
        shape_key(m, key, klen, &v, at);
    }
    return apply_keys(c, m, out);
}

/* Magic, version and the two counts. */
static int read_header(tc_gguf_cursor *c, uint64_t *n_tensors, uint64_t *n_kv)
{
    const unsigned char *p = NULL;
    uint32_t version;
    if (tc_gguf_take(c, 4, "the magic", &p))
        return -1;
    if (memcmp(p, "GGUF", 4) != 0)
        return tc_gguf_fail(c, 0, "not a GGUF file (it does not start with 'GGUF')");
    if (tc_gguf_u32(c, "the version", &version))
        return -1;
    if (version == 1)
        return tc_gguf_fail(c, 4,
                            "GGUF version 1 is not read (llama.cpp dropped it too): "
                            "convert the model again");
    if (version != 2 && version != 3)
        return tc_gguf_fail(c, 4, "GGUF version %u is not read (2 and 3 are; %s)", version,
                            (version & 0xffff) == 0 ? "this looks big-endian" : "unknown");
    uint64_t at = c->pos;
    if (tc_gguf_u64(c, "the tensor count", n_tensors) || tc_gguf_u64(c, "the key count", n_kv))
        return -1;
    /* A tensor info takes at least 24 bytes, a key-value pair 13. */
    if (*n_tensors > (c->size - c->pos) / 24)
        return tc_gguf_fail(c, at, "declares %llu tensors, more than the file could hold",
                            (unsigned long long)*n_tensors);
    if (*n_kv > (c->size - c->pos) / 13)
        return tc_gguf_fail(c, at + 8, "declares %llu metadata keys, more than the file could hold",
                            (unsigned long long)*n_kv);
    return 0;
}

tc_err tc_modelfile_gguf_parse(const char *file, const unsigned char *b, size_t len,
                               uint64_t file_size, tc_model_shape *out, size_t *need, char *err,
                               size_t errlen)
{
    if (!file || (!b && len) || !out || !need || len > file_size)
        return TC_ERR_INVALID;
    *need = 0;
    tc_gguf_cursor c = {
        .b = b, .len = len, .size = file_size, .file = file, .err = err, .errlen = errlen};
    tc_model_shape m;
    memset(&m, 0, sizeof m);
    m.format = TC_MODEL_GGUF;
    m.files = 1;
    m.tied_embeddings = -1;
    m.params_from = TC_MODEL_FROM_TENSORS;
    meta md;
    memset(&md, 0, sizeof md);
    md.alignment = 32; /* GGUF's default */
    uint64_t n_tensors = 0, n_kv = 0;
    if (read_header(&c, &n_tensors, &n_kv) == 0 && read_metadata(&c, n_kv, &md, &m) == 0)
        (void)tc_gguf_read_tensors(&c, n_tensors, md.alignment, &m);
    if (c.need) {
        *need = c.need;
        return TC_OK;
    }
    if (c.rc != TC_OK)
        return c.rc;
    tc_model_finish(&m);
    *out = m;
    return TC_OK;
}
