/* The model files a user already has, read into a tc_model_shape
 * (record/record_model.h): a GGUF file; a safetensors file, or a sharded
 * model's model.safetensors.index.json with its shards (headers only); a
 * Hugging Face config.json, or a folder holding one (with its safetensors
 * when there are). The kind is told from the content, not the name. Every
 * reader takes bytes (modelfile_gguf.h, modelfile_safetensors.h,
 * modelfile_config.h); this file opens the files, with bounds. */
#ifndef TC_MODELFILE_H
#define TC_MODELFILE_H

#include <stddef.h>

#include "core/tc_error.h"
#include "record/record_model.h"

/* What a file holds, from its first bytes. */
typedef enum tc_modelfile_kind {
    TC_MODELFILE_UNKNOWN = 0,
    TC_MODELFILE_GGUF,
    TC_MODELFILE_SAFETENSORS,
    TC_MODELFILE_INDEX, /* model.safetensors.index.json */
    TC_MODELFILE_CONFIG /* config.json */
} tc_modelfile_kind;

/* The kind of the file whose first len bytes are head (of a file of
 * file_size bytes): GGUF's magic; safetensors' 8-byte length (below 2^40)
 * then '{'; a JSON object with "weight_map" (an index) or without (a
 * config). */
tc_modelfile_kind tc_modelfile_detect(const unsigned char *head, size_t len,
                                      unsigned long long file_size);

/* Reads `path` into *out. A safetensors file or an index takes the
 * config.json beside it for the shape when there is one (the tensors
 * still give the parameters and bytes); a folder needs a config.json.
 * TC_OK; TC_ERR_IO (cannot be opened or read; err has errno's text);
 * TC_ERR_PARSE ("FILE: offset N: what is wrong", or "FILE: ..." for
 * JSON); TC_ERR_NOMEM; TC_ERR_INVALID (NULL arguments). */
TC_MUST_CHECK tc_err tc_modelfile_read(const char *path, tc_model_shape *out, char *err,
                                       size_t errlen);

#endif
