/* An incremental Server-Sent-Events framer (the WHATWG event-stream format),
 * as OpenAI-style and llama.cpp servers stream. Bytes are fed in whatever
 * slices the network delivers: an event may be split at any byte, or many
 * events may come in one slice. Lines end in "\n", "\r\n" or "\r"; lines
 * starting with ':' are comments; `data:` lines (one optional space after
 * the colon) of one event are joined with "\n"; a blank line dispatches the
 * event. Other fields (event, id, retry, unknown ones) are accepted and
 * ignored. Pure: no I/O, so tests and fuzzers feed it directly. */
#ifndef TC_BENCH_SSE_H
#define TC_BENCH_SSE_H

#include <stddef.h>

#include "core/tc_buf.h"
#include "core/tc_error.h"

/* The default bound on one event's data (and on any one line). */
#define TC_SSE_MAX_EVENT_BYTES (4u << 20)

/* Called once per dispatched event with its data: `data` is NUL-terminated
 * (data[len] == '\0'), valid only during the call, and may be empty
 * ("data:" alone). A return other than TC_OK stops the feed, which returns
 * that code. */
typedef tc_err (*tc_sse_event_fn)(void *ctx, const char *data, size_t len);

typedef struct tc_sse {
    tc_sse_event_fn on_event;
    void *ctx;
    size_t max_event_bytes;
    tc_buf line;    /* the current line, while it is split across slices */
    tc_buf data;    /* the current event's data lines, joined with '\n' */
    int has_data;   /* the current event has had a data field */
    int skip_lf;    /* the last line ended in '\r': a '\n' next belongs to it */
    int first_line; /* a UTF-8 byte order mark may open the stream */
    tc_err failed;  /* sticky: an oversized event ends the framing */
} tc_sse;

/* Prepares `s` (no allocation yet). max_event_bytes 0 means
 * TC_SSE_MAX_EVENT_BYTES. Pair with tc_sse_free. */
void tc_sse_init(tc_sse *s, size_t max_event_bytes, tc_sse_event_fn on_event, void *ctx);

/* Forgets any partial event so `s` can frame a new stream, keeping its
 * memory and callback. */
void tc_sse_reset(tc_sse *s);

/* Frames `len` bytes, calling on_event for each event they complete.
 * Returns TC_OK; TC_ERR_PARSE when a line or an event's data exceeds the
 * bound (detail in err; every later feed returns it too); TC_ERR_NOMEM; or
 * the callback's non-OK return. */
TC_MUST_CHECK tc_err tc_sse_feed(tc_sse *s, const char *bytes, size_t len, char *err,
                                 size_t errlen);

/* The stream ended. An event whose lines all ended but whose closing blank
 * line never came is dispatched (servers that close right after their last
 * event are common); an unfinished last line is dropped, as the format
 * says. Returns as tc_sse_feed. `s` can then be reset or freed. */
TC_MUST_CHECK tc_err tc_sse_finish(tc_sse *s, char *err, size_t errlen);

/* Frees the buffers; accepts NULL. `s` may be re-initialised after. */
void tc_sse_free(tc_sse *s);

#endif
