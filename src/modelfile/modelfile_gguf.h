/* GGUF (llama.cpp's model file): the header, the metadata and the tensor
 * infos, never the tensor data, so a 40 GB file answers from its first
 * megabytes. Versions 2 and 3, little-endian. Every declared count and
 * length is checked against the bytes the file has before it is used. */
#ifndef TC_MODELFILE_GGUF_H
#define TC_MODELFILE_GGUF_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_error.h"
#include "record/record_model.h"

/* The most header bytes read: a header is a few megabytes (a 256k-token
 * vocabulary with its merges is about 10 MB); beyond this it is refused. */
#define TC_GGUF_HEADER_MAX ((size_t)512 << 20)

/* GGML storage types by id (ggml.h's enum): block size in values and
 * bytes per block; 0 for ids that are unknown or were removed. */
typedef struct tc_gguf_type {
    const char *name;
    uint32_t block, bytes;
} tc_gguf_type;

/* The type of id `id`, or NULL when GGUF files cannot hold it. */
const tc_gguf_type *tc_modelfile_gguf_type(uint32_t id);

/* Reads the header in b[0..len), the first len bytes of `file` (named in
 * messages), a file of file_size bytes (len <= file_size; the tensor data
 * need not be in b). TC_OK with *need = 0: *out holds the shape. TC_OK
 * with *need > len: the header goes on past len; call again with at least
 * *need bytes (*out untouched). TC_ERR_PARSE: "FILE: offset N: what is
 * wrong", bounded in time and memory whatever the bytes; TC_ERR_NOMEM;
 * TC_ERR_INVALID for NULL arguments. */
TC_MUST_CHECK tc_err tc_modelfile_gguf_parse(const char *file, const unsigned char *b, size_t len,
                                             uint64_t file_size, tc_model_shape *out, size_t *need,
                                             char *err, size_t errlen);

#endif
