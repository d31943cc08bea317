/* Serializers for what the simulator sends: the chunks of each streaming
 * protocol (Ollama NDJSON, OpenAI SSE, llama.cpp native SSE), the
 * non-streamed bodies and the error bodies. Each appends to a tc_buf and
 * does no I/O, so tests compare the bytes exactly. */
#ifndef TC_SIM_WIRE_H
#define TC_SIM_WIRE_H

#include <stdint.h>

#include "core/tc_buf.h"
#include "sim_request.h"

/* What the simulator really did for one request, in the units the servers
 * report. Filled in by the server from its own clock. */
typedef struct tc_sim_metrics {
    int prompt_tokens;
    int completion_tokens;
    int64_t total_ns;        /* request arrival -> last token */
    int64_t load_ns;         /* arrival -> prefill start (request handling) */
    int64_t prompt_eval_ns;  /* prefill: TTFT less the first decode step */
    int64_t eval_ns;         /* decode: completion_tokens decode steps */
    const char *done_reason; /* "length", "stop" or "load" */
} tc_sim_metrics;

typedef struct tc_sim_wire_ctx {
    tc_sim_route route;
    const char *model;
    uint64_t id;       /* request number, used in "id" fields */
    int64_t created_s; /* Unix seconds, OpenAI "created" */
    int include_usage;
} tc_sim_wire_ctx;

/* Content-Type of a streamed response on this route. */
const char *tc_sim_wire_stream_type(tc_sim_route route);

/* Whatever precedes the first token: the role-only chunk of OpenAI chat;
 * nothing elsewhere. */
void tc_sim_wire_stream_start(const tc_sim_wire_ctx *c, int64_t wall_ns, tc_buf *out);

/* The chunk carrying one token. On OpenAI routes the last token's chunk
 * also carries finish_reason and llama.cpp-style timings (m is then
 * required; it may be NULL otherwise). */
void tc_sim_wire_token(const tc_sim_wire_ctx *c, const char *text, size_t len, int index,
                       int64_t wall_ns, int is_last, const tc_sim_metrics *m, tc_buf *out);

/* The bytes of a stream's token chunks that are the same for every token
 * but the last, built once, so that a token costs a few copies instead of
 * formatting: what tc_sim_wire_token_fast fills in matches
 * tc_sim_wire_token byte for byte (tests/unit/test_sim_wire.c checks it). */
#define TC_SIM_WIRE_TMPL_INLINE 256

typedef struct tc_sim_wire_tmpl {
    tc_sim_route route;
    /* Three pieces one after the other: up to the created_at time (Ollama
     * only), up to the text, and after the text (llama.cpp: the count). In
     * the template itself when they fit, as they do with a model name of
     * up to about 60 characters, so that they share the cache lines of
     * their stream; on the heap otherwise. */
    size_t open_len, text_open_len, len;
    char *heap;        /* NULL when they are inline */
    size_t second_len; /* 0 until the first time is formatted */
    int64_t second;    /* the second whose date and time of day second_text holds */
    char second_text[32];
    char inline_bytes[TC_SIM_WIRE_TMPL_INLINE];
} tc_sim_wire_tmpl;

/* Builds the template of `c`'s stream (c's strings are copied); TC_ERR_NOMEM
 * leaves *t empty. Free with _free. */
TC_MUST_CHECK tc_err tc_sim_wire_tmpl_init(const tc_sim_wire_ctx *c, tc_sim_wire_tmpl *t);
void tc_sim_wire_tmpl_free(tc_sim_wire_tmpl *t);

/* 1 when the chunks carry the time (Ollama's created_at): wall_ns is then read. */
int tc_sim_wire_tmpl_needs_time(const tc_sim_wire_tmpl *t);

/* Appends what tc_sim_wire_token(c, text, len, index, wall_ns, 0, NULL, out)
 * would for the stream `t` was built from. */
void tc_sim_wire_token_fast(tc_sim_wire_tmpl *t, const char *text, size_t len, int index,
                            int64_t wall_ns, tc_buf *out);

/* What follows the last token: Ollama's done object; llama.cpp's stop
 * chunk; OpenAI's usage chunk (when asked for) and "data: [DONE]". */
void tc_sim_wire_stream_end(const tc_sim_wire_ctx *c, int64_t wall_ns, const tc_sim_metrics *m,
                            tc_buf *out);

/* One chunk of invalid JSON in the route's framing (the malformed fault). */
void tc_sim_wire_malformed(const tc_sim_wire_ctx *c, tc_buf *out);

/* The whole non-streamed response body for `text`. */
void tc_sim_wire_full(const tc_sim_wire_ctx *c, const char *text, size_t len, int64_t wall_ns,
                      const tc_sim_metrics *m, tc_buf *out);

/* An error body in the shape of the route's API: Ollama {"error": msg};
 * OpenAI and llama.cpp {"error": {message, type, param, code}}. */
void tc_sim_wire_error(tc_sim_route route, int status, const char *message, tc_buf *out);

/* The OpenAI-shaped error body, for routes outside the inference APIs. */
void tc_sim_wire_error_openai(int status, const char *message, tc_buf *out);

#endif
