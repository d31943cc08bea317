/* The shape of a model as every layer sees it: modelfile/ reads it from a
 * GGUF file, safetensors headers or a Hugging Face config.json; analysis/
 * computes memory from it (fit.h); report/ prints it. A number 0 is
 * unknown, never a real zero. */
#ifndef TC_RECORD_MODEL_H
#define TC_RECORD_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_error.h"

/* What the shape was read from. */
typedef enum tc_model_format {
    TC_MODEL_NONE = 0,
    TC_MODEL_GGUF,        /* a GGUF file: metadata and tensor infos */
    TC_MODEL_SAFETENSORS, /* safetensors headers (one file or an index's shards) */
    TC_MODEL_CONFIG       /* a Hugging Face config.json alone */
} tc_model_format;

/* Where the parameter count came from. */
typedef enum tc_model_count_from {
    TC_MODEL_FROM_NONE = 0,
    TC_MODEL_FROM_TENSORS, /* the sum of every tensor's elements */
    TC_MODEL_FROM_CONFIG   /* the shapes a config.json gives */
} tc_model_count_from;

/* "none", "gguf", "safetensors", "config"; "tensors", "config". Static. */
const char *tc_model_format_name(tc_model_format f);
const char *tc_model_count_from_name(tc_model_count_from c);

/* The weights of one storage type ("F16", "Q4_K", "BF16"): how many
 * tensors, values and bytes the file holds of it. */
typedef struct tc_model_tensor_type {
    char name[16];
    uint64_t tensors, elements, bytes;
} tc_model_tensor_type;

/* More distinct types than any format has (GGUF: 43 ids, safetensors 16). */
#define TC_MODEL_MAX_TYPES 48

typedef struct tc_model_shape {
    tc_model_format format;
    int files;      /* files read: 1, or an index's shards (+ a config.json) */
    int has_config; /* a config.json gave the shape (beside tensors, or alone) */
    char name[128]; /* general.name or _name_or_path; "" = none */
    char arch[64];  /* general.architecture or model_type; "" = unknown */

    /* The transformer's shape; 0 = unknown. */
    int64_t layers;
    int64_t hidden;       /* embedding width */
    int64_t heads;        /* attention (query) heads */
    int64_t kv_heads;     /* key/value heads per layer (GQA); = heads without GQA */
    int64_t kv_heads_sum; /* key/value heads summed over the layers: layers x kv_heads,
                             less where layers differ (per-layer arrays, layers without
                             attention) */
    int64_t key_length;   /* per head: the head dimension unless overridden */
    int64_t value_length; /* per head */
    int64_t ffn;          /* feed-forward width (per expert for a mixture of experts) */
    int gated_ffn;        /* 1: gate, up and down projections (SwiGLU); 0: up and down */
    int64_t vocab;
    int64_t context_length; /* the longest context the model was trained for */
    int64_t experts;        /* 0: dense */
    int64_t experts_used;   /* per token */
    int tied_embeddings;    /* 1: the output head is the embedding; 0: its own; -1 unknown */

    /* Parameters and weight bytes. */
    uint64_t params;
    tc_model_count_from params_from;
    uint64_t weight_bytes; /* exact, from the tensors; 0 when only a config was read */
    uint64_t tensors;
    char dtype[16];     /* the type holding most bytes, or the config's dtype ("bf16") */
    double dtype_bytes; /* bytes per parameter of a config's dtype; 0 = unknown */
    int n_types;
    tc_model_tensor_type types[TC_MODEL_MAX_TYPES]; /* most bytes first after tc_model_finish */
} tc_model_shape;

/* Adds one tensor of storage type `type` (elements values, bytes bytes) to
 * m's totals and its type table. TC_OK, or TC_ERR_INVALID when the table
 * is full or a sum would overflow 64 bits. */
TC_MUST_CHECK tc_err tc_model_add_tensor(tc_model_shape *m, const char *type, uint64_t elements,
                                         uint64_t bytes);

/* After the last tensor: sorts the type table by bytes (most first) and
 * sets dtype to the first; fills what follows from the rest (kv_heads from
 * heads, kv_heads_sum from layers x kv_heads, key/value lengths from
 * hidden / heads). */
void tc_model_finish(tc_model_shape *m);

#endif
