/* Opens the model files, with bounds, and hands their bytes to the
 * readers: GGUF and safetensors headers are read from the start of the
 * file, growing only as far as the header says it goes. */
#define _GNU_SOURCE /* memmem */
#include "modelfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/tc_file.h"
#include "modelfile_config.h"
#include "modelfile_gguf.h"
#include "modelfile_safetensors.h"

#define FIRST_READ ((size_t)1 << 20) /* a GGUF header of 10,000 tensors is ~0.7 MB */
#define INDEX_MAX ((size_t)64 << 20)
#define PATH_MAX_LEN 4096

tc_modelfile_kind tc_modelfile_detect(const unsigned char *head, size_t len,
                                      unsigned long long file_size)
{
    if (len >= 4 && memcmp(head, "GGUF", 4) == 0)
        return TC_MODELFILE_GGUF;
    /* A length below 2^40 (its top bytes 0) and the JSON's '{': the
     * reader then checks the length against the file and the 100 MB. */
    (void)file_size;
    if (len >= 9 && head[8] == '{' && !head[5] && !head[6] && !head[7])
        return TC_MODELFILE_SAFETENSORS;
    size_t i = 0;
    while (i < len && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
        i++;
    if (i < len && head[i] == '{')
        return memmem(head, len, "\"weight_map\"", 12) ? TC_MODELFILE_INDEX : TC_MODELFILE_CONFIG;
    return TC_MODELFILE_UNKNOWN;
}

/* ---- reading with bounds ------------------------------------------------- */

static tc_err open_file(const char *path, int *fd, unsigned long long *size, char *err,
                        size_t errlen)
{
    struct stat st;
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0)
        return tc_fail(err, errlen, TC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    if (fstat(*fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int e = errno;
        close(*fd);
        *fd = -1;
        return tc_fail(err, errlen, TC_ERR_IO, "%s: %s", path,
                       S_ISREG(st.st_mode) ? strerror(e) : "not a regular file");
    }
    *size = (unsigned long long)st.st_size;
    return TC_OK;
}

/* n bytes at offset off into buf. */
static tc_err read_at(int fd, const char *path, unsigned char *buf, size_t off, size_t n, char *err,
                      size_t errlen)
{
    while (n > 0) {
        ssize_t got = pread(fd, buf, n, (off_t)off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return tc_fail(err, errlen, TC_ERR_IO, "%s: cannot read at offset %zu: %s", path, off,
                           got < 0 ? strerror(errno) : "the file got shorter");
        buf += got;
        off += (size_t)got;
        n -= (size_t)got;
    }
    return TC_OK;
}

typedef tc_err (*header_fn)(const char *file, const unsigned char *b, size_t len,
                            uint64_t file_size, tc_model_shape *out, size_t *need, char *err,
                            size_t errlen);

/* Reads the header of an open file: FIRST_READ bytes, then as many as the
 * reader asks for, never more than max. */
static tc_err read_header(int fd, const char *path, unsigned long long size, size_t max,
                          header_fn fn, tc_model_shape *out, char *err, size_t errlen)
{
    size_t len = size < FIRST_READ ? (size_t)size : FIRST_READ, need = 0;
    unsigned char *buf = malloc(len ? len : 1);
    if (!buf)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", path);
    tc_err rc = read_at(fd, path, buf, 0, len, err, errlen);
    while (rc == TC_OK && (rc = fn(path, buf, len, size, out, &need, err, errlen)) == TC_OK &&
           need > len) {
        if (need > max) {
            rc = tc_fail(err, errlen, TC_ERR_PARSE,
                         "%s: offset %zu: the header goes on past %zu MiB: not read", path, len,
                         max >> 20);
            break;
        }
        unsigned char *grown = realloc(buf, need);
        if (!grown) {
            rc = tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", path);
            break;
        }
        buf = grown;
        rc = read_at(fd, path, buf + len, len, need - len, err, errlen);
        len = need;
    }
    free(buf);
    return rc;
}

/* A GGUF or safetensors file's header into *out (safetensors adds). */
static tc_err read_binary(const char *path, tc_modelfile_kind kind, tc_model_shape *out, char *err,
                          size_t errlen)
{
    int fd = -1;
    unsigned long long size = 0;
    tc_err rc = open_file(path, &fd, &size, err, errlen);
    if (rc != TC_OK)
        return rc;
    if (kind == TC_MODELFILE_GGUF)
        rc = read_header(fd, path, size, TC_GGUF_HEADER_MAX, tc_modelfile_gguf_parse, out, err,
                         errlen);
    else
        rc = read_header(fd, path, size, (size_t)(8 + TC_SAFETENSORS_HEADER_MAX),
                         tc_modelfile_safetensors_parse, out, err, errlen);
    close(fd);
    return rc;
}

/* The kind of the file at path, from its first bytes. */
static tc_err kind_of(const char *path, tc_modelfile_kind *kind, char *err, size_t errlen)
{
    int fd = -1;
    unsigned long long size = 0;
    unsigned char head[64];
    tc_err rc = open_file(path, &fd, &size, err, errlen);
    if (rc != TC_OK)
        return rc;
    size_t n = size < sizeof head ? (size_t)size : sizeof head;
    rc = read_at(fd, path, head, 0, n, err, errlen);
    close(fd);
    if (rc == TC_OK)
        *kind = tc_modelfile_detect(head, n, size);
    return rc;
}

/* ---- configs, indexes and folders ---------------------------------------- */

/* The folder of path, and dir/name, into out. */
static tc_err join(const char *dir, const char *name, char *out, size_t len, char *err,
                   size_t errlen)
{
    if ((size_t)snprintf(out, len, "%s/%s", dir, name) >= len)
        return tc_fail(err, errlen, TC_ERR_INVALID, "%s/%s: path too long", dir, name);
    return TC_OK;
}

static void dir_of(const char *path, char *out, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(out, len, ".");
    else if (slash == path)
        snprintf(out, len, "/");
    else
        snprintf(out, len, "%.*s", (int)(slash - path), path);
}

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static tc_err read_config(const char *path, tc_model_shape *out, char *err, size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    tc_err rc = tc_read_file(path, TC_MODEL_CONFIG_MAX, "a config.json", &text, &len, err, errlen);
    if (rc == TC_OK)
        rc = tc_modelfile_config_parse(path, text, len, out, err, errlen);
    free(text);
    return rc;
}

/* Every shard an index names, added up. */
static tc_err read_index_text(const char *path, const char *text, size_t len, tc_model_shape *out,
                              char *err, size_t errlen)
{
    tc_safetensors_index ix;
    char dir[PATH_MAX_LEN], shard[PATH_MAX_LEN];
    tc_err rc = tc_modelfile_safetensors_index(path, text, len, &ix, err, errlen);
    if (rc != TC_OK)
        return rc;
    dir_of(path, dir, sizeof dir);
    out->format = TC_MODEL_SAFETENSORS;
    for (size_t i = 0; i < ix.n && rc == TC_OK; i++)
        if ((rc = join(dir, ix.files[i], shard, sizeof shard, err, errlen)) == TC_OK)
            rc = read_binary(shard, TC_MODELFILE_SAFETENSORS, out, err, errlen);
    if (rc == TC_OK && out->tensors != ix.tensors)
        rc = tc_fail(err, errlen, TC_ERR_PARSE,
                     "%s: its weight_map names %zu tensors, its %zu shards hold %llu", path,
                     ix.tensors, ix.n, (unsigned long long)out->tensors);
    out->files = (int)ix.n;
    tc_modelfile_safetensors_index_free(&ix);
    return rc;
}

/* A JSON file: an index (with its shards) or a config. */
static tc_err read_json(const char *path, tc_model_shape *out, int *is_config, char *err,
                        size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    tc_err rc = tc_read_file(path, INDEX_MAX, "a config.json or safetensors index", &text, &len,
                             err, errlen);
    if (rc != TC_OK)
        return rc;
    *is_config = tc_modelfile_detect((const unsigned char *)text, len, len) == TC_MODELFILE_CONFIG;
    if (*is_config && len > TC_MODEL_CONFIG_MAX)
        rc = tc_fail(err, errlen, TC_ERR_PARSE, "%s: over 16 MiB: not a config.json", path);
    else if (*is_config)
        rc = tc_modelfile_config_parse(path, text, len, out, err, errlen);
    else
        rc = read_index_text(path, text, len, out, err, errlen);
    free(text);
    return rc;
}

/* The config's shape over the tensors' counts. */
static void merge_config(tc_model_shape *t, const tc_model_shape *c)
{
    t->has_config = 1;
    t->files += 1;
    t->layers = c->layers;
    t->hidden = c->hidden;
    t->heads = c->heads;
    t->kv_heads = c->kv_heads;
    t->kv_heads_sum = c->kv_heads_sum;
    t->key_length = c->key_length;
    t->value_length = c->value_length;
    t->ffn = c->ffn;
    t->gated_ffn = c->gated_ffn;
    t->vocab = c->vocab;
    t->context_length = c->context_length;
    t->experts = c->experts;
    t->experts_used = c->experts_used;
    t->tied_embeddings = c->tied_embeddings;
    snprintf(t->arch, sizeof t->arch, "%s", c->arch);
    if (!t->name[0])
        snprintf(t->name, sizeof t->name, "%s", c->name);
}

/* Tensors (a safetensors file or an index) and the config.json in dir,
 * when there is one. */
static tc_err with_config(const char *dir, tc_model_shape *t, char *err, size_t errlen)
{
    char path[PATH_MAX_LEN];
    tc_model_shape c;
    tc_err rc = join(dir, "config.json", path, sizeof path, err, errlen);
    if (rc != TC_OK || !exists(path))
        return rc;
    if ((rc = read_config(path, &c, err, errlen)) == TC_OK)
        merge_config(t, &c);
    return rc;
}

static tc_err read_folder(const char *dir, tc_model_shape *out, char *err, size_t errlen)
{
    char cfg[PATH_MAX_LEN], index[PATH_MAX_LEN], one[PATH_MAX_LEN];
    tc_err rc;
    if ((rc = join(dir, "config.json", cfg, sizeof cfg, err, errlen)) != TC_OK ||
        (rc = join(dir, "model.safetensors.index.json", index, sizeof index, err, errlen)) !=
            TC_OK ||
        (rc = join(dir, "model.safetensors", one, sizeof one, err, errlen)) != TC_OK)
        return rc;
    if (!exists(cfg))
        return tc_fail(err, errlen, TC_ERR_IO,
                       "%s: no config.json in this folder: give the model file itself", dir);
    if (!exists(index) && !exists(one))
        return read_config(cfg, out, err, errlen);
    int is_config = 0;
    out->tied_embeddings = -1;
    if (exists(index))
        rc = read_json(index, out, &is_config, err, errlen);
    else if ((rc = read_binary(one, TC_MODELFILE_SAFETENSORS, out, err, errlen)) == TC_OK)
        out->files = 1;
    if (rc == TC_OK && is_config)
        rc = tc_fail(err, errlen, TC_ERR_PARSE, "%s: not a safetensors index", index);
    if (rc == TC_OK) {
        out->format = TC_MODEL_SAFETENSORS;
        out->params_from = TC_MODEL_FROM_TENSORS;
        tc_model_finish(out);
        rc = with_config(dir, out, err, errlen);
    }
    return rc;
}

static tc_err read_file_kind(const char *path, tc_model_shape *out, char *err, size_t errlen)
{
    tc_modelfile_kind kind = TC_MODELFILE_UNKNOWN;
    tc_err rc = kind_of(path, &kind, err, errlen);
    int is_config = 0;
    char dir[PATH_MAX_LEN];
    if (rc != TC_OK)
        return rc;
    if (kind == TC_MODELFILE_UNKNOWN)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: offset 0: not a model file (GGUF, safetensors, a "
                       "model.safetensors.index.json or a config.json)",
                       path);
    if (kind == TC_MODELFILE_GGUF)
        return read_binary(path, kind, out, err, errlen);
    out->tied_embeddings = -1;
    if (kind == TC_MODELFILE_SAFETENSORS) {
        rc = read_binary(path, kind, out, err, errlen);
        out->files = 1;
    } else if ((rc = read_json(path, out, &is_config, err, errlen)) != TC_OK || is_config) {
        return rc;
    }
    if (rc != TC_OK)
        return rc;
    out->format = TC_MODEL_SAFETENSORS;
    out->params_from = TC_MODEL_FROM_TENSORS;
    tc_model_finish(out);
    dir_of(path, dir, sizeof dir);
    return with_config(dir, out, err, errlen);
}

tc_err tc_modelfile_read(const char *path, tc_model_shape *out, char *err, size_t errlen)
{
    if (!path || !out)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    struct stat st;
    if (stat(path, &st) != 0)
        return tc_fail(err, errlen, TC_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    tc_err rc = S_ISDIR(st.st_mode) ? read_folder(path, out, err, errlen)
                                    : read_file_kind(path, out, err, errlen);
    if (rc != TC_OK)
        memset(out, 0, sizeof *out);
    return rc;
}
