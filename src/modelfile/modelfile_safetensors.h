/* safetensors: the header of one file (8 bytes of length, then a JSON
 * object of tensors: dtype, shape, data offsets), never the data; and the
 * index of a sharded model (model.safetensors.index.json), which names the
 * shards. */
#ifndef TC_MODELFILE_SAFETENSORS_H
#define TC_MODELFILE_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_error.h"
#include "record/record_model.h"

/* The format's own limit on a header (the safetensors library refuses
 * larger ones). */
#define TC_SAFETENSORS_HEADER_MAX ((uint64_t)100000000)

/* Bits per value of a safetensors dtype ("F16": 16, "F4": 4), 0 when
 * unknown. */
int tc_modelfile_safetensors_bits(const char *dtype);

/* Reads the header in b[0..len), the first len bytes of `file` (named in
 * messages), a file of file_size bytes, and adds its tensors to *out (so
 * that shards add up; zero it for one file). TC_OK with *need = 0: done.
 * TC_OK with *need > len: call again with the first *need bytes (nothing
 * added). TC_ERR_PARSE: "FILE: offset N: what is wrong" (a header over
 * 100 MB or past the file, JSON that is not an object, an unknown dtype,
 * data that leaves the file or overlaps); TC_ERR_NOMEM; TC_ERR_INVALID. */
TC_MUST_CHECK tc_err tc_modelfile_safetensors_parse(const char *file, const unsigned char *b,
                                                    size_t len, uint64_t file_size,
                                                    tc_model_shape *out, size_t *need, char *err,
                                                    size_t errlen);

/* The shards an index names. */
typedef struct tc_safetensors_index {
    char **files; /* sorted, each once; relative to the index's folder */
    size_t n;
    size_t tensors;      /* entries of its weight_map */
    uint64_t total_size; /* metadata.total_size; 0 = not given */
} tc_safetensors_index;

/* Parses a model.safetensors.index.json (text, len bytes, from `file`).
 * Shard names must be relative, without "..". TC_OK (free with
 * tc_modelfile_safetensors_index_free), TC_ERR_PARSE naming the file,
 * TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_modelfile_safetensors_index(const char *file, const char *text, size_t len,
                                                    tc_safetensors_index *out, char *err,
                                                    size_t errlen);
void tc_modelfile_safetensors_index_free(tc_safetensors_index *ix); /* accepts NULL */

#endif
