/* What one JSON chunk of an inference response says, read in one pass
 * for every API at once: where text was, the end flags, an error object,
 * token counts, Ollama's metrics and llama.cpp's timings. The stream
 * parser (bench_stream) decides which of them its API uses. */
#ifndef TC_BENCH_CHUNK_H
#define TC_BENCH_CHUNK_H

#include <stddef.h>
#include <stdint.h>

#include "bench_jscan.h"

/* The whole-number fields a chunk may carry (slots of tc_chunk.num). */
enum tc_chunk_num {
    TC_CHUNK_TOTAL_NS, /* Ollama: total_duration, load_duration, ... */
    TC_CHUNK_LOAD_NS,
    TC_CHUNK_PROMPT_EVAL_NS,
    TC_CHUNK_EVAL_NS,
    TC_CHUNK_PROMPT_EVAL_COUNT,
    TC_CHUNK_EVAL_COUNT,
    TC_CHUNK_TOKENS_PREDICTED, /* llama.cpp native */
    TC_CHUNK_TOKENS_EVALUATED,
    TC_CHUNK_USAGE_PROMPT, /* OpenAI usage */
    TC_CHUNK_USAGE_COMPLETION,
    TC_CHUNK_PROMPT_N, /* llama.cpp timings */
    TC_CHUNK_PREDICTED_N,
    TC_CHUNK_NUM_COUNT
};

/* The fractional fields of llama.cpp's timings (slots of tc_chunk.dbl). */
enum tc_chunk_dbl {
    TC_CHUNK_PROMPT_MS,
    TC_CHUNK_PREDICTED_MS,
    TC_CHUNK_PREDICTED_PER_SECOND,
    TC_CHUNK_DBL_COUNT
};

typedef struct tc_chunk {
    int is_object; /* only an object is a chunk; the rest is 0 otherwise */
    /* Non-empty text, by where each API puts it: Ollama's response,
     * thinking, message.{content,thinking}; OpenAI's choices[].text,
     * .delta/.message.{content,reasoning_content,reasoning}; llama.cpp's
     * content. */
    int text_ollama, text_oai, text_llama;
    int done, stop;                         /* Ollama's done, llama.cpp's stop: true */
    int has_timings;                        /* a timings object was there */
    int error;                              /* an "error" member that is not null or false */
    int error_object;                       /* "object": "error", the older vLLM error shape */
    tc_jstr error_msg, error_type, top_msg; /* spans of the input; n == 0 when absent */
    int64_t num[TC_CHUNK_NUM_COUNT];        /* valid where has_num has the slot's bit */
    unsigned has_num;
    double dbl[TC_CHUNK_DBL_COUNT]; /* 0 when absent */
} tc_chunk;

/* Scans the JSON document doc[0, len) into *out (zeroed first); counts
 * that are not non-negative whole numbers are left out. Returns 0, or -1
 * when it is not valid JSON, with the fault in *c. */
int tc_chunk_scan(const char *doc, size_t len, tc_chunk *out, tc_jscan *c);

/* The slot's value, 0 when the chunk lacks it. */
int64_t tc_chunk_num(const tc_chunk *k, enum tc_chunk_num slot);

/* 1 when the chunk carries the slot. */
int tc_chunk_has(const tc_chunk *k, enum tc_chunk_num slot);

#endif
