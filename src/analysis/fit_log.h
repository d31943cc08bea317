/* What an inference server reported about its own memory, read from its
 * log, to print beside `truecost fit`'s prediction:
 *
 * llama.cpp (per buffer: CUDA0, ROCm0, Vulkan0, CPU, CPU_Mapped, ...):
 *   load_tensors:        CUDA0 model buffer size =  3577.56 MiB
 *   llm_load_tensors:      CUDA0 buffer size =  3577.56 MiB          (older)
 *   llama_kv_cache:        CUDA0 KV buffer size =   256.00 MiB
 *   llama_kv_cache: size =  256.00 MiB (  2048 cells,  32 layers, ...)
 *   llama_new_context_with_model: KV self size  =  256.00 MiB, ...   (older)
 *   llama_context:        CUDA0 compute buffer size =   164.01 MiB
 * vLLM:
 *   Model loading took 14.99 GiB memory and 5.1 seconds
 *   Available KV cache memory: 50.34 GiB
 *   GPU KV cache size: 412,368 tokens
 *   Maximum concurrency for 4,096 tokens per request: 100.68x
 *   ... model weights take 14.99GiB; ... PyTorch activation peak memory
 *   takes 1.19GiB; the rest of the memory reserved for KV Cache is 50.3GiB
 *
 * A log may hold several loads: the last one counts (a model line after a
 * context's lines starts a new load, a KV line after a compute line a new
 * context). A buffer named *REPACK or *AMX holds copies of weights already
 * mapped (llama.cpp's CPU repacking): kept apart, not added. */
#ifndef TC_FIT_LOG_H
#define TC_FIT_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/fit.h"
#include "core/tc_error.h"

/* A server log of more than this is refused (give the part of the load). */
#define TC_FIT_LOG_MAX ((size_t)256 << 20)
#define TC_FIT_LOG_MAX_DEVICES 16

typedef enum tc_fit_log_engine {
    TC_FIT_LOG_NONE = 0,
    TC_FIT_LOG_LLAMACPP,
    TC_FIT_LOG_VLLM
} tc_fit_log_engine;

/* "none", "llama.cpp", "vllm". */
const char *tc_fit_log_engine_name(tc_fit_log_engine e);

/* One llama.cpp buffer's device and what it holds (bytes; -1 = no line). */
typedef struct tc_fit_log_device {
    char name[32]; /* as llama.cpp names the buffer: "CUDA0", "CPU_Mapped" */
    int host;      /* CPU, CPU_Mapped, CUDA_Host: host memory */
    double model_bytes, kv_bytes, compute_bytes, repack_bytes;
} tc_fit_log_device;

typedef struct tc_fit_log {
    tc_fit_log_engine engine;
    /* llama.cpp: per buffer, and summed (all buffers; on a device only) */
    int n_devices;
    tc_fit_log_device dev[TC_FIT_LOG_MAX_DEVICES];
    int has_model, has_kv, has_compute, has_repack;
    double model_bytes, kv_bytes, compute_bytes, repack_bytes;
    double device_model_bytes, device_kv_bytes, device_compute_bytes;
    int64_t kv_cells; /* the KV cache's cells (tokens), 0 = not said */
    /* vLLM */
    int has_weights, has_activation, has_available_kv, has_kv_tokens, has_max_concurrency;
    double weights_bytes, activation_bytes, available_kv_bytes;
    int64_t kv_tokens;
    double max_concurrency;
    int64_t max_concurrency_tokens;
} tc_fit_log;

/* Reads the memory lines of a log (text, len bytes, from `file`) into
 * *out. TC_OK; TC_ERR_PARSE "FILE: none of llama.cpp's or vLLM's memory
 * lines ..." when it holds none; TC_ERR_INVALID for NULL arguments.
 * Bounded: every line is scanned once, whatever its length. */
TC_MUST_CHECK tc_err tc_fit_log_parse(const char *file, const char *text, size_t len,
                                      tc_fit_log *out, char *err, size_t errlen);

/* One figure the server reported beside the prediction. */
typedef struct tc_fit_check {
    const char *what;  /* static: "weights", "kv_cache", "compute_buffer",
                          "kv_bytes_per_token", "available_kv", "kv_tokens",
                          "max_concurrency" */
    const char *unit;  /* static: "bytes", "tokens", "sequences" */
    int has_predicted; /* 0 when the prediction needs a card and none was given */
    double predicted, reported;
    double difference; /* reported - predicted */
    double share;      /* difference / reported */
} tc_fit_check;

#define TC_FIT_MAX_CHECKS 8

/* The log's figures beside the prediction of terms t under o (the whole
 * server: split terms times o->gpus); `card` (may be NULL) gives what
 * needs a card (vLLM's KV space). Returns the number of checks in out. */
int tc_fit_log_compare(const tc_fit_log *log, const tc_model_shape *m, const tc_fit_options *o,
                       const tc_fit_terms *t, const tc_fit_card *card,
                       tc_fit_check out[TC_FIT_MAX_CHECKS]);

#endif
