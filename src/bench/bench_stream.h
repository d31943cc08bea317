/* The response parser of the measuring client: one per request, fed the
 * body bytes as they arrive, it fills the request's record (the arrival
 * time of every chunk that carries text, token counts with their source,
 * the server's own report, and why the response failed, if it did).
 *
 * Framing by API: Ollama is NDJSON and ends with an object whose `done` is
 * true; OpenAI-style is SSE ending with `data: [DONE]`; llama.cpp's native
 * /completion is SSE ending with a chunk whose `stop` is true. In
 * non-streaming mode the whole body is one JSON document, parsed at finish,
 * whose text counts as one chunk arriving then.
 *
 * Errors go into the record, first one wins: the parser never replaces an
 * error already set (by the HTTP client or an earlier chunk), and keeps
 * reading after a malformed chunk, so the rest is still counted.
 * Pure: no I/O and no clock reads, so tests and fuzzers drive it with
 * bytes and times of their own. */
#ifndef TC_BENCH_STREAM_H
#define TC_BENCH_STREAM_H

#include <stddef.h>
#include <stdint.h>

#include "record/record.h"
#include "core/tc_error.h"

/* The bound on one NDJSON line or SSE event, and on a non-streamed body. */
#define TC_STREAM_MAX_EVENT_BYTES (4u << 20)
#define TC_STREAM_MAX_BODY_BYTES (64u << 20)

typedef struct tc_stream_parser tc_stream_parser;

/* A parser for one response of `api`, streamed (streaming != 0) or not.
 * Returns NULL when out of memory or `api` is not a tc_api. Free with
 * tc_stream_free. */
tc_stream_parser *tc_stream_new(tc_api api, int streaming);

/* Makes `p` ready for another response, keeping its buffers, so a client
 * reusing parsers allocates nothing per request. Returns TC_OK, or
 * TC_ERR_INVALID when `api` is not a tc_api (p is then unchanged). */
TC_MUST_CHECK tc_err tc_stream_reset(tc_stream_parser *p, tc_api api, int streaming);

/* Frees the parser; accepts NULL. The record is the caller's. */
void tc_stream_free(tc_stream_parser *p);

/* Parses the next `len` body bytes, which arrived at `now_ns`
 * (CLOCK_MONOTONIC; non-decreasing from one call to the next). Each chunk
 * with text they complete appends now_ns to rec's chunk times; counts and
 * the server report are updated as they come. Problems in the data go to
 * rec->error. Returns TC_OK, or TC_ERR_NOMEM (the record keeps what it had). */
TC_MUST_CHECK tc_err tc_stream_feed(tc_stream_parser *p, const char *bytes, size_t len,
                                    int64_t now_ns, tc_req_record *rec);

/* The transfer ended normally at `now_ns`: parses what is left (the whole
 * body in non-streaming mode), settles the token counts, and sets
 * TC_REQ_DISCONNECT when the stream never reached its end marker.
 * Returns as tc_stream_feed. Call it once; reset or free after. */
TC_MUST_CHECK tc_err tc_stream_finish(tc_stream_parser *p, int64_t now_ns, tc_req_record *rec);

#endif
