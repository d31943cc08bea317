/* GGUF: the tensor infos, and the checks that their data lies inside the
 * file, aligned, without overlap. */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "modelfile_gguf.h"
#include "modelfile_gguf_internal.h"

#define TENSOR_NAME_MAX 63 /* ggml's GGML_MAX_NAME is 64 with the NUL */
#define MAX_DIMS 4

/* What the checks need of one tensor. */
typedef struct tinfo {
    uint64_t off, bytes;
    uint64_t at;    /* where its info starts in the file */
    size_t name_at; /* its name, in the cursor's bytes */
    uint32_t name_len;
} tinfo;

/* "'name'" of t, for messages. */
static const char *tname(const tc_gguf_cursor *c, const tinfo *t, char *buf, size_t len)
{
    snprintf(buf, len, "'%.*s'", (int)t->name_len, (const char *)c->b + t->name_at);
    return buf;
}

/* Values of the dims, checked: each and their product at most 2^63 - 1. */
static int read_dims(tc_gguf_cursor *c, const char *name, uint64_t *ne0, uint64_t *elements)
{
    uint32_t n;
    uint64_t at = c->pos;
    if (tc_gguf_u32(c, "a tensor's dimension count", &n))
        return -1;
    if (n < 1 || n > MAX_DIMS)
        return tc_gguf_fail(c, at, "tensor %s has %u dimensions (1 to %d)", name, n, MAX_DIMS);
    *elements = 1;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t d;
        if (tc_gguf_u64(c, "a tensor's dimension", &d))
            return -1;
        if (d > (uint64_t)INT64_MAX || (d && *elements > (uint64_t)INT64_MAX / d))
            return tc_gguf_fail(c, at, "tensor %s: its dimensions multiply past 2^63", name);
        if (i == 0)
            *ne0 = d;
        *elements *= d;
    }
    return 0;
}

static int read_info(tc_gguf_cursor *c, tinfo *t, tc_model_shape *m)
{
    const unsigned char *p;
    uint64_t len, ne0 = 0, elements = 0;
    uint32_t type;
    t->at = c->pos;
    if (tc_gguf_u64(c, "a tensor name's length", &len))
        return -1;
    if (len > TENSOR_NAME_MAX)
        return tc_gguf_fail(c, t->at, "a tensor name of %llu bytes (at most %d)",
                            (unsigned long long)len, TENSOR_NAME_MAX);
    if (tc_gguf_take(c, len, "a tensor name", &p))
        return -1;
    t->name_at = (size_t)(p - c->b);
    t->name_len = (uint32_t)len;
    char name[TENSOR_NAME_MAX + 3];
    tname(c, t, name, sizeof name);
    if (read_dims(c, name, &ne0, &elements))
        return -1;
    uint64_t at = c->pos;
    if (tc_gguf_u32(c, "a tensor's type", &type) || tc_gguf_u64(c, "a tensor's offset", &t->off))
        return -1;
    const tc_gguf_type *ty = tc_modelfile_gguf_type(type);
    if (!ty)
        return tc_gguf_fail(c, at, "tensor %s has unknown type id %u", name, type);
    if (ne0 % ty->block)
        return tc_gguf_fail(c, at, "tensor %s: rows of %llu values are not whole %s blocks of %u",
                            name, (unsigned long long)ne0, ty->name, ty->block);
    uint64_t blocks = elements / ty->block;
    if (blocks > UINT64_MAX / ty->bytes)
        return tc_gguf_fail(c, at, "tensor %s: its size passes 2^64 bytes", name);
    t->bytes = blocks * ty->bytes;
    if (tc_model_add_tensor(m, ty->name, elements, t->bytes) != TC_OK)
        return tc_gguf_fail(c, t->at, "the tensors' sizes add up past 2^64");
    if (len == 13 && memcmp(p, "output.weight", 13) == 0)
        m->tied_embeddings = 0;
    else if (len == 17 && memcmp(p, "token_embd.weight", 17) == 0 && m->tied_embeddings < 0)
        m->tied_embeddings = 1;
    if (len >= 8 && memmem(p, (size_t)len, "ffn_gate", 8))
        m->gated_ffn = 1;
    return 0;
}

static int by_offset(const void *a, const void *b)
{
    const tinfo *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return x->bytes < y->bytes ? -1 : x->bytes > y->bytes;
}

/* Each tensor's data inside the data section (data bytes from data_at),
 * aligned, and none overlapping the next. */
static int check_data(tc_gguf_cursor *c, tinfo *t, size_t n, uint64_t data_at, uint32_t align)
{
    uint64_t data = c->size - data_at;
    char a[TENSOR_NAME_MAX + 3], b[TENSOR_NAME_MAX + 3];
    for (size_t i = 0; i < n; i++) {
        if (t[i].off % align)
            return tc_gguf_fail(c, t[i].at,
                                "tensor %s: data offset %llu is not a multiple of "
                                "the alignment %u",
                                tname(c, &t[i], a, sizeof a), (unsigned long long)t[i].off, align);
        if (t[i].off > data || t[i].bytes > data - t[i].off)
            return tc_gguf_fail(c, t[i].at,
                                "tensor %s: its %llu bytes at data offset %llu leave "
                                "the file (the data section holds %llu bytes)",
                                tname(c, &t[i], a, sizeof a), (unsigned long long)t[i].bytes,
                                (unsigned long long)t[i].off, (unsigned long long)data);
    }
    if (n > 1)
        qsort(t, n, sizeof *t, by_offset);
    for (size_t i = 0; i + 1 < n; i++)
        if (t[i].bytes && t[i].off + t[i].bytes > t[i + 1].off)
            return tc_gguf_fail(c, t[i + 1].at,
                                "tensors %s and %s overlap (data offsets %llu "
                                "and %llu, the first %llu bytes long)",
                                tname(c, &t[i], a, sizeof a), tname(c, &t[i + 1], b, sizeof b),
                                (unsigned long long)t[i].off, (unsigned long long)t[i + 1].off,
                                (unsigned long long)t[i].bytes);
    return 0;
}

int tc_gguf_read_tensors(tc_gguf_cursor *c, uint64_t n, uint32_t alignment, tc_model_shape *m)
{
    tinfo *t = NULL;
    size_t cap = 0, got = 0;
    int rc = 0;
    /* Grown as infos are read, never from the declared count alone. */
    for (uint64_t i = 0; i < n && rc == 0; i++) {
        if (got == cap) {
            size_t more = cap ? cap * 2 : 256;
            tinfo *grown = realloc(t, more * sizeof *t);
            if (!grown) {
                c->rc = tc_fail(c->err, c->errlen, TC_ERR_NOMEM, "%s: out of memory", c->file);
                rc = -1;
                break;
            }
            t = grown;
            cap = more;
        }
        rc = read_info(c, &t[got++], m);
    }
    if (rc == 0) {
        uint64_t data_at = (c->pos + (uint64_t)alignment - 1) / alignment * alignment;
        if (data_at > c->size)
            rc = tc_gguf_fail(c, c->pos, "the tensor data would start past the end of the file");
        else
            rc = check_data(c, t, got, data_at, alignment);
    }
    free(t);
    return rc;
}
