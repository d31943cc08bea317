/* Unit tests of the model file readers: GGUF and safetensors files the
 * test writes itself (several tensor types, their bytes counted by hand
 * from the formats' block sizes), config.json shapes against hand-counted
 * parameters, and every kind of bad input refused with the file and the
 * offset named. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "modelfile/modelfile.h"
#include "modelfile/modelfile_config.h"
#include "modelfile/modelfile_gguf.h"
#include "modelfile/modelfile_safetensors.h"

/* ---- a GGUF writer ------------------------------------------------------- */

typedef struct wbuf {
    unsigned char *b;
    size_t n, cap;
} wbuf;

static void put(wbuf *w, const void *p, size_t n)
{
    if (w->n + n > w->cap) {
        w->cap = (w->n + n) * 2 + 64;
        w->b = realloc(w->b, w->cap);
        assert_non_null(w->b);
    }
    memcpy(w->b + w->n, p, n);
    w->n += n;
}

static void u32(wbuf *w, uint32_t v)
{
    unsigned char b[4] = {v, v >> 8, v >> 16, v >> 24};
    put(w, b, 4);
}

static void u64(wbuf *w, uint64_t v)
{
    u32(w, (uint32_t)v);
    u32(w, (uint32_t)(v >> 32));
}

static void str(wbuf *w, const char *s)
{
    u64(w, strlen(s));
    put(w, s, strlen(s));
}

enum { G_U32 = 4, G_F32 = 6, G_STR = 8, G_ARR = 9 };

static void kv_u32(wbuf *w, const char *key, uint32_t v)
{
    str(w, key);
    u32(w, G_U32);
    u32(w, v);
}

static void kv_str(wbuf *w, const char *key, const char *v)
{
    str(w, key);
    u32(w, G_STR);
    str(w, v);
}

typedef struct tspec {
    const char *name;
    uint32_t type;
    int n_dims;
    uint64_t dims[4];
} tspec;

/* ggml: F32 0, F16 1, Q4_0 2, Q8_0 8, Q4_K 12, Q6_K 14, BF16 30. */
static uint64_t tbytes(const tspec *t)
{
    uint64_t n = 1;
    for (int i = 0; i < t->n_dims; i++)
        n *= t->dims[i];
    switch (t->type) {
    case 0:
        return n * 4;
    case 1:
    case 30:
        return n * 2;
    case 2:
        return n / 32 * 18;
    case 8:
        return n / 32 * 34;
    case 12:
        return n / 256 * 144;
    case 14:
        return n / 256 * 210;
    default:
        fail_msg("type %u", t->type);
        return 0;
    }
}

/* The llama metadata of a small model: 2 layers, hidden 256, 4 heads, 2
 * KV heads, FFN 512, vocabulary 1000 (given as llama.vocab_size). */
static void llama_meta(wbuf *w)
{
    kv_str(w, "general.architecture", "llama");
    kv_str(w, "general.name", "tiny");
    kv_u32(w, "llama.block_count", 2);
    kv_u32(w, "llama.embedding_length", 256);
    kv_u32(w, "llama.feed_forward_length", 512);
    kv_u32(w, "llama.attention.head_count", 4);
    kv_u32(w, "llama.attention.head_count_kv", 2);
    kv_u32(w, "llama.context_length", 2048);
    kv_u32(w, "llama.vocab_size", 1000);
    kv_u32(w, "clip.block_count", 77); /* another architecture's key: not read */
}
#define N_META 10

/* A whole GGUF: header, metadata (meta() writes n_kv pairs), tensor infos
 * at consecutive 32-byte aligned offsets, data (zeros). */
static wbuf gguf(void (*meta)(wbuf *), uint64_t n_kv, const tspec *t, int n)
{
    wbuf w = {0};
    put(&w, "GGUF", 4);
    u32(&w, 3);
    u64(&w, (uint64_t)n);
    u64(&w, n_kv);
    meta(&w);
    uint64_t off = 0;
    for (int i = 0; i < n; i++) {
        str(&w, t[i].name);
        u32(&w, (uint32_t)t[i].n_dims);
        for (int d = 0; d < t[i].n_dims; d++)
            u64(&w, t[i].dims[d]);
        u32(&w, t[i].type);
        u64(&w, off);
        off += (tbytes(&t[i]) + 31) / 32 * 32;
    }
    static const unsigned char zero[64];
    while (w.n % 32)
        put(&w, zero, 1);
    for (uint64_t i = 0; i < off; i += 32)
        put(&w, zero, 32);
    return w;
}

static const tspec TINY[] = {
    {"token_embd.weight", 12, 2, {256, 1000}},    /* Q4_K */
    {"blk.0.attn_q.weight", 8, 2, {256, 256}},    /* Q8_0 */
    {"blk.0.ffn_gate.weight", 14, 2, {256, 512}}, /* Q6_K */
    {"blk.0.attn_norm.weight", 0, 1, {256}},      /* F32 */
    {"blk.1.attn_k.weight", 1, 2, {256, 128}},    /* F16 */
    {"blk.1.attn_v.weight", 30, 2, {256, 128}},   /* BF16 */
    {"blk.1.ffn_down.weight", 2, 2, {512, 256}},  /* Q4_0 */
    {"output.weight", 1, 2, {256, 1000}},         /* F16 */
};
#define N_TINY ((int)(sizeof TINY / sizeof TINY[0]))

static tc_err parse_all(const wbuf *w, tc_model_shape *m, char *err, size_t len)
{
    size_t need = 0;
    tc_err rc = tc_modelfile_gguf_parse("t.gguf", w->b, w->n, w->n, m, &need, err, len);
    assert_int_equal(need, 0);
    return rc;
}

static void gguf_bytes_by_hand(void **state)
{
    (void)state;
    wbuf w = gguf(llama_meta, N_META, TINY, N_TINY);
    tc_model_shape m;
    char err[512] = "";
    if (parse_all(&w, &m, err, sizeof err) != TC_OK)
        fail_msg("%s", err);
    /* Q4_K 256000 values / 256 x 144 = 144000; Q8_0 65536 / 32 x 34 = 69632;
     * Q6_K 131072 / 256 x 210 = 107520; F32 1024; F16 2 x 32768 + 512000;
     * BF16 65536; Q4_0 131072 / 32 x 18 = 73728. */
    uint64_t want = 144000 + 69632 + 107520 + 1024 + 65536 + 65536 + 73728 + 512000;
    assert_int_equal(m.weight_bytes, want);
    assert_int_equal(m.params, 256000 + 65536 + 131072 + 256 + 32768 + 32768 + 131072 + 256000);
    assert_int_equal(m.params_from, TC_MODEL_FROM_TENSORS);
    assert_int_equal(m.n_types, 7);
    assert_string_equal(m.types[0].name, "F16"); /* most bytes first: 32768 x 2 + 512000 */
    assert_int_equal(m.types[0].bytes, 65536 + 512000);
    assert_int_equal(m.types[0].tensors, 2);
    assert_string_equal(m.dtype, "F16");
    assert_int_equal(m.layers, 2);
    assert_int_equal(m.hidden, 256);
    assert_int_equal(m.heads, 4);
    assert_int_equal(m.kv_heads, 2);
    assert_int_equal(m.kv_heads_sum, 4); /* 2 layers x 2 */
    assert_int_equal(m.key_length, 64);  /* 256 / 4 */
    assert_int_equal(m.value_length, 64);
    assert_int_equal(m.ffn, 512);
    assert_int_equal(m.vocab, 1000);
    assert_int_equal(m.context_length, 2048);
    assert_int_equal(m.tied_embeddings, 0); /* output.weight is there */
    assert_int_equal(m.gated_ffn, 1);       /* ffn_gate is there */
    assert_string_equal(m.arch, "llama");
    assert_string_equal(m.name, "tiny");
    free(w.b);
}

/* The reader asks for more bytes while the header goes on. */
/* Found by fuzz_gguf: a file of no tensors is read (nothing to sort). */
static void gguf_without_tensors(void **state)
{
    (void)state;
    wbuf w = gguf(llama_meta, N_META, TINY, 0);
    tc_model_shape m;
    char err[512] = "";
    if (parse_all(&w, &m, err, sizeof err) != TC_OK)
        fail_msg("%s", err);
    assert_int_equal(m.tensors, 0);
    assert_int_equal(m.params, 0);
    assert_int_equal(m.layers, 2);
    free(w.b);
}

static void gguf_grows_its_read(void **state)
{
    (void)state;
    wbuf w = gguf(llama_meta, N_META, TINY, N_TINY);
    tc_model_shape m;
    char err[512] = "";
    size_t need = 0, len = 16;
    int rounds = 0;
    while (tc_modelfile_gguf_parse("t.gguf", w.b, len, w.n, &m, &need, err, sizeof err) == TC_OK &&
           need) {
        assert_true(need > len && need <= w.n);
        len = need;
        rounds++;
    }
    assert_int_equal(need, 0);
    assert_true(rounds >= 2);
    assert_int_equal(m.tensors, N_TINY);
    free(w.b);
}

/* Writes w to a temporary file and reads it back through the path reader. */
static char *temp_write(const char *dir, const char *name, const void *b, size_t n)
{
    char *path = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
    return path;
}

static void gguf_from_a_path(void **state)
{
    (void)state;
    char dir[] = "/tmp/tc-modelfile-XXXXXX";
    assert_non_null(mkdtemp(dir));
    wbuf w = gguf(llama_meta, N_META, TINY, N_TINY);
    char *path = temp_write(dir, "tiny.gguf", w.b, w.n);
    tc_model_shape m;
    char err[512] = "";
    if (tc_modelfile_read(path, &m, err, sizeof err) != TC_OK)
        fail_msg("%s", err);
    assert_int_equal(m.format, TC_MODEL_GGUF);
    assert_int_equal(m.tensors, N_TINY);
    assert_int_equal(tc_modelfile_detect(w.b, w.n, w.n), TC_MODELFILE_GGUF);
    unlink(path);
    free(path);
    assert_int_equal(tc_modelfile_read("/nonexistent/x.gguf", &m, err, sizeof err), TC_ERR_IO);
    assert_non_null(strstr(err, "/nonexistent/x.gguf"));
    rmdir(dir);
    free(w.b);
}

/* ---- bad GGUF ------------------------------------------------------------ */

/* Expects TC_ERR_PARSE naming the file and an offset, with `want`. */
static void gguf_bad(const unsigned char *b, size_t n, const char *want)
{
    tc_model_shape m;
    char err[512] = "";
    size_t need = 0;
    tc_err rc = tc_modelfile_gguf_parse("t.gguf", b, n, n, &m, &need, err, sizeof err);
    if (rc != TC_ERR_PARSE || !strstr(err, "t.gguf: offset ") || !strstr(err, want))
        fail_msg("rc %d, '%s' (wanted '%s')", rc, err, want);
    assert_int_equal(need, 0);
}

/* A header of n tensors at the given offsets, then data_bytes of data. */
static wbuf raw(const tspec *t, const uint64_t *off, int n, uint64_t data_bytes)
{
    wbuf w = {0};
    put(&w, "GGUF", 4);
    u32(&w, 3);
    u64(&w, (uint64_t)n);
    u64(&w, 0);
    for (int i = 0; i < n; i++) {
        str(&w, t[i].name);
        u32(&w, (uint32_t)t[i].n_dims);
        for (int d = 0; d < t[i].n_dims; d++)
            u64(&w, t[i].dims[d]);
        u32(&w, t[i].type);
        u64(&w, off[i]);
    }
    static const unsigned char zero[32];
    while (w.n % 32)
        put(&w, zero, 1);
    for (uint64_t i = 0; i < data_bytes; i++)
        put(&w, zero, 1);
    return w;
}

static void gguf_header_errors(void **state)
{
    (void)state;
    wbuf w = {0};
    put(&w, "GGUX", 4);
    u32(&w, 3);
    u64(&w, 0);
    u64(&w, 0);
    gguf_bad(w.b, w.n, "not a GGUF file");
    w.b[3] = 'F';
    w.b[4] = 1; /* version 1 */
    gguf_bad(w.b, w.n, "version 1");
    w.b[4] = 0;
    w.b[7] = 3; /* big-endian version 3 */
    gguf_bad(w.b, w.n, "big-endian");
    w.b[7] = 0;
    w.b[4] = 3;
    w.b[15] = 0x10; /* 2^60 tensors declared */
    gguf_bad(w.b, w.n, "declares 1152921504606846976 tensors");
    w.b[15] = 0;
    w.b[23] = 0x10; /* 2^60 keys */
    gguf_bad(w.b, w.n, "metadata keys, more than the file could hold");
    gguf_bad(w.b, 10, "goes past the end of the file");
    free(w.b);
}

/* One key whose value is written by `value`. */
static wbuf one_pair(void (*value)(wbuf *))
{
    wbuf w = {0};
    put(&w, "GGUF", 4);
    u32(&w, 3);
    u64(&w, 0);
    u64(&w, 1);
    value(&w);
    for (int i = 0; i < 16; i++)
        u32(&w, 0); /* room, so that counts are checked against real bytes */
    return w;
}

static void huge_string(wbuf *w)
{
    u64(w, UINT64_C(1) << 60); /* the key's length */
}

static void nested(wbuf *w)
{
    str(w, "k");
    u32(w, G_ARR);
    u32(w, G_ARR);
    u64(w, 1);
}

static void unknown_type(wbuf *w)
{
    str(w, "k");
    u32(w, 99);
}

static void huge_array(wbuf *w)
{
    str(w, "tokenizer.ggml.tokens");
    u32(w, G_ARR);
    u32(w, G_STR);
    u64(w, UINT64_C(1) << 40);
}

static void bad_arch(wbuf *w)
{
    str(w, "general.architecture");
    u32(w, G_U32);
    u32(w, 7);
}

static void gguf_metadata_errors(void **state)
{
    (void)state;
    static const struct {
        void (*value)(wbuf *);
        const char *want;
    } cases[] = {
        {huge_string, "declares 1152921504606846976 bytes, more than the file has left"},
        {nested, "nested arrays are not GGUF"},
        {unknown_type, "unknown type 99"},
        {huge_array, "declares 1099511627776 elements"},
        {bad_arch, "general.architecture is not a name"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        wbuf w = one_pair(cases[i].value);
        gguf_bad(w.b, w.n, cases[i].want);
        free(w.b);
    }
    /* A shape key out of range names the key. */
    wbuf w = {0};
    put(&w, "GGUF", 4);
    u32(&w, 3);
    u64(&w, 0);
    u64(&w, 2);
    kv_str(&w, "general.architecture", "llama");
    kv_u32(&w, "llama.block_count", 100000);
    gguf_bad(w.b, w.n, "llama.block_count = 100000 is not plausible");
    free(w.b);
}

static void gguf_tensor_errors(void **state)
{
    (void)state;
    const tspec two[] = {{"a", 0, 1, {8}}, {"b", 0, 1, {16}}};
    uint64_t at0[] = {0, 0}, at_far[] = {0, 4096}, at_odd[] = {0, 16};
    wbuf w = raw(two, at0, 2, 64);
    gguf_bad(w.b, w.n, "tensors 'a' and 'b' overlap");
    free(w.b);
    w = raw(two, at_far, 2, 64);
    gguf_bad(w.b, w.n, "tensor 'b': its 64 bytes at data offset 4096 leave the file");
    free(w.b);
    w = raw(two, at_odd, 2, 64);
    gguf_bad(w.b, w.n, "data offset 16 is not a multiple of the alignment 32");
    free(w.b);
    const tspec unknown[] = {{"u", 4, 1, {32}}}; /* Q4_2: removed from ggml */
    uint64_t z[] = {0};
    w = raw(unknown, z, 1, 64);
    gguf_bad(w.b, w.n, "tensor 'u' has unknown type id 4");
    free(w.b);
    const tspec partial[] = {{"p", 8, 1, {33}}}; /* Q8_0 rows of 33 values */
    w = raw(partial, z, 1, 64);
    gguf_bad(w.b, w.n, "rows of 33 values are not whole Q8_0 blocks of 32");
    free(w.b);
    const tspec huge[] = {{"h", 0, 2, {UINT64_C(1) << 40, UINT64_C(1) << 40}}};
    w = raw(huge, z, 1, 64);
    gguf_bad(w.b, w.n, "its dimensions multiply past 2^63");
    free(w.b);
    const tspec dims5[] = {{"d", 0, 4, {1, 1, 1, 1}}};
    w = raw(dims5, z, 1, 64);
    w.b[24 + 8 + 1] = 5; /* after the name: n_dims */
    gguf_bad(w.b, w.n, "has 5 dimensions");
    free(w.b);
    /* Cut in the middle of the metadata: past the end of the file. */
    w = gguf(llama_meta, N_META, TINY, N_TINY);
    gguf_bad(w.b, 100, "declares 8 tensors, more than the file could hold");
    gguf_bad(w.b, 300, "past the end of the file");
    free(w.b);
}

/* ---- safetensors --------------------------------------------------------- */

/* 8 bytes of length, the header, then `data` zero bytes. */
static wbuf st_file(const char *header, size_t data)
{
    wbuf w = {0};
    u64(&w, strlen(header));
    put(&w, header, strlen(header));
    static const unsigned char zero[1];
    for (size_t i = 0; i < data; i++)
        put(&w, zero, 1);
    return w;
}

static tc_err st_parse(const wbuf *w, tc_model_shape *m, char *err, size_t len)
{
    size_t need = 0;
    memset(m, 0, sizeof *m);
    tc_err rc =
        tc_modelfile_safetensors_parse("m.safetensors", w->b, w->n, w->n, m, &need, err, len);
    assert_int_equal(need, 0);
    return rc;
}

static const char ST_HEADER[] =
    "{\"__metadata__\":{\"format\":\"pt\"},"
    "\"model.embed_tokens.weight\":{\"dtype\":\"BF16\",\"shape\":[100,64],"
    "\"data_offsets\":[0,12800]},"
    "\"model.layers.0.mlp.up_proj.weight\":{\"dtype\":\"F16\",\"shape\":[128,64],"
    "\"data_offsets\":[12800,29184]},"
    "\"model.norm.weight\":{\"dtype\":\"F32\",\"shape\":[64],\"data_offsets\":[29184,29440]},"
    "\"scales\":{\"dtype\":\"F8_E4M3\",\"shape\":[64,4],\"data_offsets\":[29440,29696]},"
    "\"packed\":{\"dtype\":\"I8\",\"shape\":[3],\"data_offsets\":[29696,29699]}}";

static void safetensors_bytes_by_hand(void **state)
{
    (void)state;
    /* BF16 100x64x2 = 12800; F16 128x64x2 = 16384; F32 64x4 = 256;
     * F8_E4M3 256x1; I8 3. */
    wbuf w = st_file(ST_HEADER, 29699);
    tc_model_shape m;
    char err[512] = "";
    if (st_parse(&w, &m, err, sizeof err) != TC_OK)
        fail_msg("%s", err);
    assert_int_equal(m.weight_bytes, 12800 + 16384 + 256 + 256 + 3);
    assert_int_equal(m.params, 6400 + 8192 + 64 + 256 + 3);
    assert_int_equal(m.tensors, 5);
    assert_int_equal(m.n_types, 5);
    tc_model_finish(&m);
    assert_string_equal(m.dtype, "F16"); /* 16384 bytes: the most */
    assert_int_equal(tc_modelfile_detect(w.b, w.n, w.n), TC_MODELFILE_SAFETENSORS);
    /* Only the first bytes: asks for the header. */
    size_t need = 0;
    assert_int_equal(
        tc_modelfile_safetensors_parse("m.safetensors", w.b, 4, w.n, &m, &need, err, sizeof err),
        TC_OK);
    assert_int_equal(need, 8);
    assert_int_equal(
        tc_modelfile_safetensors_parse("m.safetensors", w.b, 8, w.n, &m, &need, err, sizeof err),
        TC_OK);
    assert_int_equal(need, 8 + strlen(ST_HEADER));
    assert_int_equal(tc_modelfile_safetensors_bits("F4"), 4);
    assert_int_equal(tc_modelfile_safetensors_bits("Q4"), 0);
    free(w.b);
}

static void st_bad(const char *header, size_t data, const char *want)
{
    wbuf w = st_file(header, data);
    tc_model_shape m;
    char err[512] = "";
    tc_err rc = st_parse(&w, &m, err, sizeof err);
    if (rc != TC_ERR_PARSE || !strstr(err, "m.safetensors: offset ") || !strstr(err, want))
        fail_msg("rc %d, '%s' (wanted '%s')", rc, err, want);
    free(w.b);
}

static void safetensors_errors(void **state)
{
    (void)state;
    st_bad("[1,2]", 0, "the header is not a JSON object");
    st_bad("{\"a\":", 0, "the header is not JSON");
    st_bad("{\"a\":{\"dtype\":\"Q4\",\"shape\":[2],\"data_offsets\":[0,1]}}", 1,
           "tensor 'a': unknown dtype 'Q4'");
    st_bad("{\"a\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,3]}}", 3,
           "its offsets span 3 bytes, but 2 values of F16 need 4");
    st_bad("{\"a\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]}}", 2,
           "its data ends at 4, past the 2 bytes of data");
    st_bad("{\"a\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]},"
           "\"b\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[2,6]}}",
           6, "tensors 'a' and 'b' overlap");
    st_bad("{\"a\":{\"dtype\":\"F16\",\"shape\":[-2],\"data_offsets\":[0,4]}}", 4,
           "its shape is not");
    st_bad("{\"a\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[4,0]}}", 4,
           "data_offsets is not [begin, end]");
    st_bad("{\"a\":{\"dtype\":\"F16\",\"shape\":[4294967296,4294967296],\"data_offsets\":[0,4]}}",
           4, "its shape is not");
    /* A declared header over the format's limit, and one past the file. */
    wbuf w = {0};
    u64(&w, 200000000);
    put(&w, "{}", 2);
    tc_model_shape m;
    char err[512] = "";
    size_t need;
    assert_int_equal(
        tc_modelfile_safetensors_parse("m.safetensors", w.b, w.n, w.n, &m, &need, err, sizeof err),
        TC_ERR_PARSE);
    assert_non_null(strstr(err, "m.safetensors: offset 0: a header of 200000000 bytes, over"));
    w.n = 0;
    u64(&w, 5000);
    put(&w, "{}", 2);
    assert_int_equal(
        tc_modelfile_safetensors_parse("m.safetensors", w.b, w.n, w.n, &m, &need, err, sizeof err),
        TC_ERR_PARSE);
    assert_non_null(strstr(err, "goes past the end of the file"));
    free(w.b);
}

/* ---- config.json --------------------------------------------------------- */

static const char LLAMA2_7B[] =
    "{\"architectures\":[\"LlamaForCausalLM\"],\"hidden_size\":4096,\"intermediate_size\":11008,"
    "\"max_position_embeddings\":4096,\"model_type\":\"llama\",\"num_attention_heads\":32,"
    "\"num_hidden_layers\":32,\"num_key_value_heads\":32,\"rms_norm_eps\":1e-05,"
    "\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\",\"vocab_size\":32000}";

static tc_model_shape config_ok(const char *text)
{
    tc_model_shape m;
    char err[512] = "";
    if (tc_modelfile_config_parse("config.json", text, strlen(text), &m, err, sizeof err) != TC_OK)
        fail_msg("%s", err);
    return m;
}

static void llama2_7b_by_hand(void **state)
{
    (void)state;
    tc_model_shape m = config_ok(LLAMA2_7B);
    /* Per layer: q, k, v, o 4 x 4096^2 = 67108864; gate, up, down 3 x 4096
     * x 11008 = 135266304; two norms 8192: 202383360, x 32 = 6476267520.
     * Embedding and head 2 x 32000 x 4096 = 262144000; final norm 4096. */
    assert_int_equal(m.params, UINT64_C(6476267520) + 262144000 + 4096);
    assert_int_equal(m.params, UINT64_C(6738415616)); /* "6.74 B" */
    assert_int_equal(m.params_from, TC_MODEL_FROM_CONFIG);
    assert_int_equal(m.layers, 32);
    assert_int_equal(m.kv_heads, 32);
    assert_int_equal(m.kv_heads_sum, 32 * 32);
    assert_int_equal(m.key_length, 128);
    assert_int_equal(m.value_length, 128);
    assert_string_equal(m.dtype, "f16");
    assert_true(m.dtype_bytes == 2);
    assert_int_equal(m.tied_embeddings, 0);
    assert_int_equal(m.weight_bytes, 0); /* no tensors: not exact */
    assert_int_equal(m.format, TC_MODEL_CONFIG);
}

static void other_families_by_hand(void **state)
{
    (void)state;
    /* GPT-2 small: wte 50257 x 768 + wpe 1024 x 768; per layer attention
     * 4 x 768^2 + 4 x 768 biases, MLP 2 x 768 x 3072 + 3072 + 768 biases,
     * two LayerNorms 4 x 768; final LayerNorm 2 x 768; tied head. */
    tc_model_shape g = config_ok("{\"model_type\":\"gpt2\",\"n_embd\":768,\"n_head\":12,"
                                 "\"n_layer\":12,\"n_positions\":1024,\"vocab_size\":50257,"
                                 "\"n_inner\":null}");
    uint64_t layer = 4 * 768 * 768 + 4 * 768 + 2 * 768 * 3072 + 3072 + 768 + 4 * 768;
    assert_int_equal(g.params, 50257ull * 768 + 1024 * 768 + 12 * layer + 2 * 768);
    assert_int_equal(g.params, 124439808ull);
    assert_int_equal(g.tied_embeddings, 1);
    /* Mixtral 8x7B: GQA 8 KV heads, 8 experts of 14336, a router. */
    tc_model_shape x =
        config_ok("{\"model_type\":\"mixtral\",\"hidden_size\":4096,\"intermediate_size\":14336,"
                  "\"num_attention_heads\":32,\"num_hidden_layers\":32,\"num_key_value_heads\":8,"
                  "\"num_local_experts\":8,\"num_experts_per_tok\":2,\"vocab_size\":32000,"
                  "\"torch_dtype\":\"bfloat16\"}");
    uint64_t attn = 2 * 4096ull * 4096 + 2 * 4096ull * 1024;
    uint64_t moe = 8 * 3 * 4096ull * 14336 + 4096 * 8;
    assert_int_equal(x.params, 32 * (attn + moe + 2 * 4096) + 2 * 32000ull * 4096 + 4096);
    assert_int_equal(x.experts, 8);
    assert_int_equal(x.experts_used, 2);
    assert_int_equal(x.kv_heads_sum, 32 * 8);
    /* A multimodal config: the language model from text_config; a GPTQ
     * quantisation from quantization_config. */
    tc_model_shape v =
        config_ok("{\"model_type\":\"llava\",\"vision_config\":{\"hidden_size\":1024},"
                  "\"quantization_config\":{\"quant_method\":\"gptq\",\"bits\":4},"
                  "\"text_config\":{\"model_type\":\"llama\",\"hidden_size\":4096,"
                  "\"intermediate_size\":11008,\"num_attention_heads\":32,\"num_hidden_layers\":32,"
                  "\"vocab_size\":32000,\"max_position_embeddings\":4096}}");
    assert_int_equal(v.params, 6738415616ull);
    assert_string_equal(v.arch, "llama");
    assert_string_equal(v.dtype, "int4");
    assert_true(v.dtype_bytes == 0.5 + 2.0 / 128);
}

static void config_bad(const char *text, const char *want)
{
    tc_model_shape m;
    char err[512] = "";
    tc_err rc = tc_modelfile_config_parse("config.json", text, strlen(text), &m, err, sizeof err);
    if (rc != TC_ERR_PARSE || !strstr(err, "config.json: ") || !strstr(err, want))
        fail_msg("rc %d, '%s' (wanted '%s')", rc, err, want);
}

static void config_errors(void **state)
{
    (void)state;
    config_bad("[]", "offset 0: not a JSON object");
    config_bad("{\"a\":", "line 1, column 5");
    config_bad("{\"num_hidden_layers\":-3}", "'num_hidden_layers' is not a whole number");
    config_bad("{\"num_hidden_layers\":2.5}", "'num_hidden_layers' is not a whole number");
    config_bad("{\"num_hidden_layers\":\"32\"}", "'num_hidden_layers' is not a whole number");
    config_bad("{\"hidden_size\":64}", "no layer count");
    config_bad("{\"num_hidden_layers\":2,\"hidden_size\":64,\"num_attention_heads\":4}",
               "no vocabulary size");
    config_bad("{\"num_hidden_layers\":2,\"hidden_size\":64,\"num_attention_heads\":4,"
               "\"vocab_size\":10}",
               "no feed-forward size");
}

/* ---- sharded safetensors and folders --------------------------------------- */

static const char SHARD1[] = "{\"a\":{\"dtype\":\"BF16\",\"shape\":[4,8],\"data_offsets\":[0,64]},"
                             "\"b\":{\"dtype\":\"F32\",\"shape\":[8],\"data_offsets\":[64,96]}}";
static const char SHARD2[] =
    "{\"c\":{\"dtype\":\"F16\",\"shape\":[16,8],\"data_offsets\":[0,256]}}";
static const char SMALL_CONFIG[] =
    "{\"model_type\":\"llama\",\"hidden_size\":8,\"intermediate_size\":16,"
    "\"num_attention_heads\":2,\"num_key_value_heads\":1,\"num_hidden_layers\":1,"
    "\"vocab_size\":4,\"torch_dtype\":\"bfloat16\"}";

static void write_shard(const char *dir, const char *name, const char *header, size_t data)
{
    wbuf w = st_file(header, data);
    free(temp_write(dir, name, w.b, w.n));
    free(w.b);
}

static void sharded_with_config(void **state)
{
    (void)state;
    char dir[] = "/tmp/tc-modelfile-XXXXXX";
    assert_non_null(mkdtemp(dir));
    write_shard(dir, "model-00001-of-00002.safetensors", SHARD1, 96);
    write_shard(dir, "model-00002-of-00002.safetensors", SHARD2, 256);
    const char index[] = "{\"metadata\":{\"total_size\":352},\"weight_map\":{"
                         "\"a\":\"model-00001-of-00002.safetensors\","
                         "\"b\":\"model-00001-of-00002.safetensors\","
                         "\"c\":\"model-00002-of-00002.safetensors\"}}";
    char *ix = temp_write(dir, "model.safetensors.index.json", index, strlen(index));
    free(temp_write(dir, "config.json", SMALL_CONFIG, strlen(SMALL_CONFIG)));
    tc_model_shape m;
    char err[512] = "";
    const char *paths[] = {ix, dir};
    for (int k = 0; k < 2; k++) {
        if (tc_modelfile_read(paths[k], &m, err, sizeof err) != TC_OK)
            fail_msg("%s: %s", paths[k], err);
        assert_int_equal(m.format, TC_MODEL_SAFETENSORS);
        assert_int_equal(m.files, 3); /* two shards and the config */
        assert_int_equal(m.weight_bytes, 64 + 32 + 256);
        assert_int_equal(m.params, 32 + 8 + 128); /* from the tensors, not the config */
        assert_int_equal(m.params_from, TC_MODEL_FROM_TENSORS);
        assert_int_equal(m.layers, 1); /* the shape: from the config */
        assert_int_equal(m.kv_heads, 1);
        assert_int_equal(m.key_length, 4);
        assert_true(m.has_config);
    }
    /* An index whose map names a tensor no shard holds. */
    const char more[] = "{\"weight_map\":{\"a\":\"model-00001-of-00002.safetensors\","
                        "\"b\":\"model-00001-of-00002.safetensors\","
                        "\"x\":\"model-00001-of-00002.safetensors\","
                        "\"c\":\"model-00002-of-00002.safetensors\"}}";
    char *bad = temp_write(dir, "more.index.json", more, strlen(more));
    assert_int_equal(tc_modelfile_read(bad, &m, err, sizeof err), TC_ERR_PARSE);
    assert_non_null(strstr(err, "names 4 tensors, its 2 shards hold 3"));
    const char up[] = "{\"weight_map\":{\"a\":\"../etc/passwd\"}}";
    char *escape = temp_write(dir, "up.index.json", up, strlen(up));
    assert_int_equal(tc_modelfile_read(escape, &m, err, sizeof err), TC_ERR_PARSE);
    assert_non_null(strstr(err, "not a shard file name beside the index"));
    const char *files[] = {"model-00001-of-00002.safetensors",
                           "model-00002-of-00002.safetensors",
                           "model.safetensors.index.json",
                           "config.json",
                           "more.index.json",
                           "up.index.json"};
    char path[256];
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    assert_int_equal(tc_modelfile_read(dir, &m, err, sizeof err), TC_ERR_IO);
    assert_non_null(strstr(err, "no config.json in this folder"));
    rmdir(dir);
    free(ix);
    free(bad);
    free(escape);
}

static void detects_kinds(void **state)
{
    (void)state;
    const unsigned char cfg[] = "  {\"hidden_size\": 1}";
    const unsigned char ix[] = "{\"metadata\":{},\"weight_map\":{}}";
    const unsigned char junk[] = "hello world, not a model";
    assert_int_equal(tc_modelfile_detect(cfg, sizeof cfg - 1, 100), TC_MODELFILE_CONFIG);
    assert_int_equal(tc_modelfile_detect(ix, sizeof ix - 1, 100), TC_MODELFILE_INDEX);
    assert_int_equal(tc_modelfile_detect(junk, sizeof junk - 1, 100), TC_MODELFILE_UNKNOWN);
    assert_int_equal(tc_modelfile_detect(junk, 0, 0), TC_MODELFILE_UNKNOWN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gguf_bytes_by_hand),     cmocka_unit_test(gguf_without_tensors),
        cmocka_unit_test(gguf_grows_its_read),    cmocka_unit_test(gguf_from_a_path),
        cmocka_unit_test(gguf_header_errors),     cmocka_unit_test(gguf_metadata_errors),
        cmocka_unit_test(gguf_tensor_errors),     cmocka_unit_test(safetensors_bytes_by_hand),
        cmocka_unit_test(safetensors_errors),     cmocka_unit_test(llama2_7b_by_hand),
        cmocka_unit_test(other_families_by_hand), cmocka_unit_test(config_errors),
        cmocka_unit_test(sharded_with_config),    cmocka_unit_test(detects_kinds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
