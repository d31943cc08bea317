/* safetensors: one file's header, and a sharded model's index. */
#include "modelfile_safetensors.h"
#include "modelfile_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static const struct {
    const char *name;
    int bits;
} DTYPES[] = {{"F64", 64},    {"F32", 32},    {"F16", 16},    {"BF16", 16},   {"I64", 64},
              {"I32", 32},    {"I16", 16},    {"I8", 8},      {"U64", 64},    {"U32", 32},
              {"U16", 16},    {"U8", 8},      {"BOOL", 8},    {"F8_E4M3", 8}, {"F8_E5M2", 8},
              {"F8_E8M0", 8}, {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"F4", 4}};

int tc_modelfile_safetensors_bits(const char *dtype)
{
    for (size_t i = 0; dtype && i < sizeof DTYPES / sizeof DTYPES[0]; i++)
        if (strcmp(DTYPES[i].name, dtype) == 0)
            return DTYPES[i].bits;
    return 0;
}

/* One tensor's data span, for the overlap check. */
typedef struct span {
    uint64_t begin, end;
    const char *name;
} span;

static int by_begin(const void *a, const void *b)
{
    const span *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* A JSON integer in [0, 2^63). */
static int whole(const json_t *v, uint64_t *out)
{
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return -1;
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

/* Values of a shape array, checked against overflow; -1 when it is not one. */
static int shape_elements(const json_t *shape, uint64_t *n)
{
    size_t i;
    json_t *d;
    if (!json_is_array(shape) || json_array_size(shape) > 16)
        return -1;
    *n = 1;
    json_array_foreach(shape, i, d)
    {
        uint64_t v;
        if (whole(d, &v) || (v && *n > (uint64_t)INT64_MAX / v))
            return -1;
        *n *= v;
    }
    return 0;
}

/* One entry of the header into the shape and its span; TC_ERR_PARSE. */
static tc_err one_tensor(const char *file, const char *name, const json_t *t, uint64_t data,
                         tc_model_shape *out, span *sp, char *err, size_t errlen)
{
    const char *dtype = json_string_value(json_object_get(t, "dtype"));
    const json_t *off = json_object_get(t, "data_offsets");
    uint64_t n, b, e;
    if (!json_is_object(t) || !dtype)
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s: offset 8: tensor '%.64s' has no dtype", file,
                       name);
    int bits = tc_modelfile_safetensors_bits(dtype);
    if (!bits)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: offset 8: tensor '%.64s': unknown dtype "
                       "'%.16s'",
                       file, name, dtype);
    if (shape_elements(json_object_get(t, "shape"), &n))
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: offset 8: tensor '%.64s': its shape is "
                       "not up to 16 whole numbers that multiply below 2^63",
                       file, name);
    if (!json_is_array(off) || json_array_size(off) != 2 || whole(json_array_get(off, 0), &b) ||
        whole(json_array_get(off, 1), &e) || e < b)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: offset 8: tensor '%.64s': data_offsets "
                       "is not [begin, end] with begin <= end",
                       file, name);
    if (e > data)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: offset 8: tensor '%.64s': its data ends at "
                       "%llu, past the %llu bytes of data the file holds",
                       file, name, (unsigned long long)e, (unsigned long long)data);
    if (n > UINT64_MAX / (uint64_t)bits || n * (uint64_t)bits % 8 ||
        n * (uint64_t)bits / 8 != e - b)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: offset 8: tensor '%.64s': its offsets span "
                       "%llu bytes, but %llu values of %s need %.0f",
                       file, name, (unsigned long long)(e - b), (unsigned long long)n, dtype,
                       (double)n * bits / 8);
    if (tc_model_add_tensor(out, dtype, n, e - b) != TC_OK)
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s: the tensors add up past 2^64", file);
    *sp = (span){b, e, name};
    return TC_OK;
}

/* Every tensor of the parsed header, then the overlap check. */
static tc_err tensors(const char *file, json_t *h, uint64_t data, tc_model_shape *out, char *err,
                      size_t errlen)
{
    size_t n = json_object_size(h), k = 0;
    span *sp = malloc((n ? n : 1) * sizeof *sp); /* n is of parsed JSON, not declared */
    if (!sp)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", file);
    const char *name;
    json_t *t;
    tc_err rc = TC_OK;
    json_object_foreach(h, name, t)
    {
        if (strcmp(name, "__metadata__") == 0)
            continue;
        if ((rc = one_tensor(file, name, t, data, out, &sp[k], err, errlen)) != TC_OK)
            break;
        k++;
    }
    if (rc == TC_OK) {
        qsort(sp, k, sizeof *sp, by_begin);
        for (size_t i = 0; i + 1 < k && rc == TC_OK; i++)
            if (sp[i].end > sp[i + 1].begin)
                rc = tc_fail(err, errlen, TC_ERR_PARSE,
                             "%s: offset 8: tensors '%.64s' and "
                             "'%.64s' overlap (bytes %llu-%llu and %llu-%llu of the data)",
                             file, sp[i].name, sp[i + 1].name, (unsigned long long)sp[i].begin,
                             (unsigned long long)sp[i].end, (unsigned long long)sp[i + 1].begin,
                             (unsigned long long)sp[i + 1].end);
    }
    free(sp);
    return rc;
}

tc_err tc_modelfile_safetensors_parse(const char *file, const unsigned char *b, size_t len,
                                      uint64_t file_size, tc_model_shape *out, size_t *need,
                                      char *err, size_t errlen)
{
    if (!file || (!b && len) || !out || !need || len > file_size)
        return TC_ERR_INVALID;
    *need = 0;
    if (file_size < 8)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: offset 0: %llu bytes: too short for a "
                       "safetensors file",
                       file, (unsigned long long)file_size);
    if (len < 8) {
        *need = 8;
        return TC_OK;
    }
    uint64_t h = 0;
    for (int i = 7; i >= 0; i--)
        h = h << 8 | b[i];
    if (h > TC_SAFETENSORS_HEADER_MAX)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: offset 0: a header of %llu bytes, over "
                       "safetensors' limit of 100 MB",
                       file, (unsigned long long)h);
    if (h > file_size - 8)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: offset 0: a header of %llu bytes goes past "
                       "the end of the file (%llu bytes)",
                       file, (unsigned long long)h, (unsigned long long)file_size);
    if (len < 8 + h) {
        *need = (size_t)(8 + h);
        return TC_OK;
    }
    json_error_t je;
    json_t *doc = json_loadb((const char *)b + 8, (size_t)h, JSON_REJECT_DUPLICATES, &je);
    if (!doc)
        return tc_fail(err, errlen, TC_ERR_PARSE, "%s: offset %llu: the header is not JSON: %s",
                       file, (unsigned long long)(8 + (je.position > 0 ? je.position : 0)),
                       je.text);
    tc_err rc = TC_OK;
    if (!json_is_object(doc))
        rc = tc_fail(err, errlen, TC_ERR_PARSE, "%s: offset 8: the header is not a JSON object",
                     file);
    else
        rc = tensors(file, doc, file_size - 8 - h, out, err, errlen);
    json_decref(doc);
    return rc;
}

/* ---- the index of a sharded model ---------------------------------------- */

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* 1 when a shard name is a plain relative path: no "..", not absolute. */
static int safe_name(const char *s)
{
    if (!*s || *s == '/' || strlen(s) > 255)
        return 0;
    for (const char *p = s; *p; p++)
        if (p[0] == '.' && p[1] == '.' && (p == s || p[-1] == '/') && (!p[2] || p[2] == '/'))
            return 0;
    return 1;
}

/* The weight map's file names, checked, sorted and each once. */
static tc_err shard_names(const char *file, json_t *map, tc_safetensors_index *out, char *err,
                          size_t errlen)
{
    size_t n = json_object_size(map);
    out->files = calloc(n ? n : 1, sizeof *out->files);
    if (!out->files)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", file);
    const char *key;
    json_t *v;
    json_object_foreach(map, key, v)
    {
        const char *s = json_string_value(v);
        if (!s || !safe_name(s))
            return tc_fail(err, errlen, TC_ERR_PARSE,
                           "%s: weight_map['%.64s'] is not a shard file "
                           "name beside the index (relative, without '..')",
                           file, key);
        out->files[out->n++] = (char *)s;
    }
    out->tensors = n;
    qsort(out->files, out->n, sizeof *out->files, by_name);
    size_t u = 0;
    for (size_t i = 0; i < out->n; i++)
        if (!u || strcmp(out->files[u - 1], out->files[i]) != 0)
            out->files[u++] = out->files[i];
    out->n = u;
    for (size_t i = 0; i < u; i++) /* own the names: the document goes */
        if (!(out->files[i] = strdup(out->files[i]))) {
            while (i > 0)
                free(out->files[--i]);
            out->n = 0;
            return tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", file);
        }
    return TC_OK;
}

tc_err tc_modelfile_safetensors_index(const char *file, const char *text, size_t len,
                                      tc_safetensors_index *out, char *err, size_t errlen)
{
    if (!file || (!text && len) || !out)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    json_t *doc = NULL;
    tc_err rc = tc_modelfile_json_object(file, text, len, &doc, err, errlen);
    if (rc != TC_OK)
        return rc;
    json_t *map = json_object_get(doc, "weight_map");
    if (!json_is_object(map) || json_object_size(map) == 0)
        rc = tc_fail(err, errlen, TC_ERR_PARSE,
                     "%s: no weight_map object naming the shards: not "
                     "a model.safetensors.index.json",
                     file);
    else
        rc = shard_names(file, map, out, err, errlen);
    uint64_t total;
    if (rc == TC_OK &&
        !whole(json_object_get(json_object_get(doc, "metadata"), "total_size"), &total))
        out->total_size = total;
    json_decref(doc);
    if (rc != TC_OK) /* the names point into doc until strdup'ed: drop them all */
        out->n = 0;
    if (rc != TC_OK)
        tc_modelfile_safetensors_index_free(out);
    return rc;
}

void tc_modelfile_safetensors_index_free(tc_safetensors_index *ix)
{
    if (!ix)
        return;
    for (size_t i = 0; i < ix->n; i++)
        free(ix->files[i]);
    free(ix->files);
    memset(ix, 0, sizeof *ix);
}
