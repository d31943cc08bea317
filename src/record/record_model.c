#include "record_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tc_model_format_name(tc_model_format f)
{
    static const char *const names[] = {"none", "gguf", "safetensors", "config"};
    return (unsigned)f < sizeof names / sizeof names[0] ? names[f] : "none";
}

const char *tc_model_count_from_name(tc_model_count_from c)
{
    static const char *const names[] = {"none", "tensors", "config"};
    return (unsigned)c < sizeof names / sizeof names[0] ? names[c] : "none";
}

/* a += b unless it overflows: 0, else -1 (a unchanged). */
static int add_u64(uint64_t *a, uint64_t b)
{
    if (*a > UINT64_MAX - b)
        return -1;
    *a += b;
    return 0;
}

tc_err tc_model_add_tensor(tc_model_shape *m, const char *type, uint64_t elements, uint64_t bytes)
{
    if (!m || !type)
        return TC_ERR_INVALID;
    int i = 0;
    while (i < m->n_types && strcmp(m->types[i].name, type) != 0)
        i++;
    if (i == m->n_types) {
        if (m->n_types == TC_MODEL_MAX_TYPES)
            return TC_ERR_INVALID;
        memset(&m->types[i], 0, sizeof m->types[i]);
        size_t n = strnlen(type, sizeof m->types[i].name - 1);
        memcpy(m->types[i].name, type, n);
        m->n_types++;
    }
    tc_model_tensor_type *t = &m->types[i];
    uint64_t p = m->params, w = m->weight_bytes, te = t->elements, tb = t->bytes;
    if (add_u64(&p, elements) || add_u64(&w, bytes) || add_u64(&te, elements) ||
        add_u64(&tb, bytes))
        return TC_ERR_INVALID;
    m->params = p;
    m->weight_bytes = w;
    t->elements = te;
    t->bytes = tb;
    t->tensors++;
    m->tensors++;
    return TC_OK;
}

static int by_bytes(const void *a, const void *b)
{
    const tc_model_tensor_type *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    return strcmp(x->name, y->name);
}

void tc_model_finish(tc_model_shape *m)
{
    if (!m)
        return;
    if (m->n_types > 0) {
        qsort(m->types, (size_t)m->n_types, sizeof m->types[0], by_bytes);
        memcpy(m->dtype, m->types[0].name, sizeof m->dtype); /* both 16 bytes, NUL-ended */
    }
    if (m->heads > 0 && m->kv_heads <= 0)
        m->kv_heads = m->heads; /* no GQA: one KV head per query head */
    if (m->kv_heads_sum <= 0 && m->layers > 0 && m->kv_heads > 0)
        m->kv_heads_sum = m->layers * m->kv_heads;
    if (m->key_length <= 0 && m->hidden > 0 && m->heads > 0)
        m->key_length = m->hidden / m->heads;
    if (m->value_length <= 0)
        m->value_length = m->key_length;
}
