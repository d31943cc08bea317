/* A Hugging Face config.json: the transformer's shape, its dtype, and the
 * parameter count its shapes give. A multimodal config's language model
 * is read from its text_config (the vision tower is not counted: its
 * tensors are, where there are tensors). */
#ifndef TC_MODELFILE_CONFIG_H
#define TC_MODELFILE_CONFIG_H

#include <stddef.h>

#include <jansson.h>

#include "core/tc_error.h"
#include "record/record_model.h"

/* A config.json is a few kilobytes; past this it is refused. */
#define TC_MODEL_CONFIG_MAX ((size_t)16 << 20)

/* Parses text (len bytes of `file`) into *out (zeroed first): format
 * TC_MODEL_CONFIG, the shape, params from the config (params_from
 * TC_MODEL_FROM_CONFIG), dtype and dtype_bytes from torch_dtype / dtype
 * or quantization_config ("" and 0 when none). TC_ERR_PARSE: "FILE: ..."
 * (not JSON, not an object, a field out of range, no layer count);
 * TC_ERR_INVALID for NULL arguments. */
/* text as a JSON object (duplicate keys refused) into *doc (the caller
 * decrefs it); TC_ERR_PARSE naming file and where it is not one. */
TC_MUST_CHECK tc_err tc_modelfile_json_object(const char *file, const char *text, size_t len,
                                              json_t **doc, char *err, size_t errlen);

TC_MUST_CHECK tc_err tc_modelfile_config_parse(const char *file, const char *text, size_t len,
                                               tc_model_shape *out, char *err, size_t errlen);

#endif
