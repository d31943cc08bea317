#include "bench_stream.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_chunk.h"
#include "bench_jscan.h"
#include "bench_sse.h"
#include "core/tc_buf.h"

/* Token counts seen so far, by source; settle() picks the best. */
enum {
    C_USAGE_OUT,
    C_USAGE_PROMPT,
    C_SERVER_OUT,
    C_SERVER_PROMPT,
    C_TIMINGS_OUT,
    C_TIMINGS_PROMPT,
    C_COUNT
};

struct tc_stream_parser {
    tc_api api;
    int streaming;
    tc_sse sse;
    tc_buf pending; /* NDJSON: a line split across slices; non-streamed: the body */
    tc_req_record *rec;
    int64_t now_ns; /* arrival time of the bytes being parsed */
    int ended;      /* the end marker came (or, non-streamed, the whole document) */
    int dead;       /* the framing broke (an oversized line or event): read no more */
    int64_t n_docs; /* JSON documents seen, to name one in a message */
    int64_t text_chunks;
    int64_t count[C_COUNT];
    unsigned has_count;
};

static int is_ollama(tc_api api)
{
    return api == TC_API_OLLAMA || api == TC_API_OLLAMA_CHAT;
}

__attribute__((format(printf, 3, 4))) static void set_error(tc_req_record *rec, tc_req_error e,
                                                            const char *fmt, ...)
{
    if (rec->error != TC_REQ_OK)
        return; /* the first error is the cause; later ones are its echoes */
    va_list ap;
    va_start(ap, fmt);
    rec->error = e;
    vsnprintf(rec->error_detail, sizeof rec->error_detail, fmt, ap);
    va_end(ap);
}

/* Up to 32 bytes of `doc` around `at` (24 before it), printable ASCII only, so the
 * detail stays one clean line whatever the server sent. */
static void excerpt(const char *doc, size_t len, size_t at, char *out, size_t n)
{
    size_t from = at > 24 ? at - 24 : 0, o = 0;
    if (from > 0)
        o = (size_t)snprintf(out, n, "...");
    for (size_t i = from; i < len && i < from + 32 && o + 5 < n; i++) {
        unsigned char ch = (unsigned char)doc[i];
        if (ch >= 0x20 && ch < 0x7F)
            out[o++] = (char)ch;
        else
            o += (size_t)snprintf(out + o, n - o, "\\x%02X", ch);
    }
    out[o] = '\0';
}

static void malformed(tc_stream_parser *p, const char *doc, size_t len, const tc_jscan *c)
{
    char where[48], what[96], near[80];
    size_t at = c->why ? (size_t)(c->at - doc) : 0;
    if (p->streaming)
        snprintf(where, sizeof where, "%s %lld of the stream", is_ollama(p->api) ? "line" : "event",
                 (long long)p->n_docs);
    else
        snprintf(where, sizeof where, "the response body");
    if (c->why)
        snprintf(what, sizeof what, "not valid JSON (%s at byte %zu)", c->why, at);
    else
        snprintf(what, sizeof what, "valid JSON but not an object");
    excerpt(doc, len, at, near, sizeof near);
    set_error(p->rec, TC_REQ_MALFORMED, "%s is %s: %s", where, what, near);
}

static void server_error(tc_stream_parser *p, const tc_chunk *f)
{
    const tc_jstr *cand[] = {&f->error_msg, &f->top_msg, &f->error_type};
    char msg[128] = "";
    for (size_t i = 0; i < 3 && !msg[0]; i++)
        if (cand[i]->n > 0)
            tc_jscan_decode(cand[i], msg, sizeof msg);
    set_error(p->rec, TC_REQ_SERVER, "the server reported an error%s: %s",
              p->streaming ? " in the stream" : "", msg[0] ? msg : "(it gave no message)");
}

static void take_count(tc_stream_parser *p, const tc_chunk *f, enum tc_chunk_num slot, int counter)
{
    if (tc_chunk_has(f, slot)) {
        p->count[counter] = f->num[slot];
        p->has_count |= 1u << counter;
    }
}

/* Ollama's final object; every metric is omitted when zero. */
static void apply_ollama_done(tc_stream_parser *p, const tc_chunk *f)
{
    tc_server_report *s = &p->rec->server;
    s->has_ollama = 1;
    s->total_ns = tc_chunk_num(f, TC_CHUNK_TOTAL_NS);
    s->load_ns = tc_chunk_num(f, TC_CHUNK_LOAD_NS);
    s->prompt_eval_ns = tc_chunk_num(f, TC_CHUNK_PROMPT_EVAL_NS);
    s->eval_ns = tc_chunk_num(f, TC_CHUNK_EVAL_NS);
    s->prompt_eval_count = tc_chunk_num(f, TC_CHUNK_PROMPT_EVAL_COUNT);
    s->eval_count = tc_chunk_num(f, TC_CHUNK_EVAL_COUNT);
    /* Only a count that was there is the server's: an absent eval_count
     * leaves the chunk count, an absent prompt_eval_count (older Ollama
     * omits it for a cached prompt) leaves the prompt unknown, not 0. */
    take_count(p, f, TC_CHUNK_EVAL_COUNT, C_SERVER_OUT);
    take_count(p, f, TC_CHUNK_PROMPT_EVAL_COUNT, C_SERVER_PROMPT);
    p->ended = 1;
}

static void apply_timings(tc_stream_parser *p, const tc_chunk *f)
{
    tc_server_report *s = &p->rec->server;
    s->has_timings = 1;
    s->prompt_n = tc_chunk_num(f, TC_CHUNK_PROMPT_N);
    s->predicted_n = tc_chunk_num(f, TC_CHUNK_PREDICTED_N);
    s->prompt_ms = f->dbl[TC_CHUNK_PROMPT_MS];
    s->predicted_ms = f->dbl[TC_CHUNK_PREDICTED_MS];
    s->predicted_per_second = f->dbl[TC_CHUNK_PREDICTED_PER_SECOND];
    take_count(p, f, TC_CHUNK_PREDICTED_N, C_TIMINGS_OUT);
    take_count(p, f, TC_CHUNK_PROMPT_N, C_TIMINGS_PROMPT);
}

static tc_err apply(tc_stream_parser *p, const tc_chunk *f)
{
    int text = is_ollama(p->api)           ? f->text_ollama
               : p->api == TC_API_LLAMACPP ? f->text_llama
                                           : f->text_oai;
    if (text) {
        if (tc_req_record_add_chunk(p->rec, p->now_ns) < 0)
            return TC_ERR_NOMEM;
        p->text_chunks++;
    }
    take_count(p, f, TC_CHUNK_USAGE_COMPLETION, C_USAGE_OUT);
    take_count(p, f, TC_CHUNK_USAGE_PROMPT, C_USAGE_PROMPT);
    if (is_ollama(p->api) && f->done)
        apply_ollama_done(p, f);
    if (p->api == TC_API_LLAMACPP) {
        take_count(p, f, TC_CHUNK_TOKENS_PREDICTED, C_SERVER_OUT);
        take_count(p, f, TC_CHUNK_TOKENS_EVALUATED, C_SERVER_PROMPT);
        p->ended |= f->stop;
    }
    if (f->has_timings)
        apply_timings(p, f);
    if (!p->streaming)
        p->ended = 1; /* a whole, valid document is the whole response */
    return TC_OK;
}

static int is_blank(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r' && s[i] != '\n')
            return 0;
    return 1;
}

/* One JSON document: an NDJSON line, an SSE event's data, a whole body.
 * `cut_is_end`: a document the input ends inside is a truncated response
 * (finish reports it as such), not a malformed one. */
static tc_err take_doc(tc_stream_parser *p, const char *doc, size_t len, int cut_is_end)
{
    tc_chunk f;
    tc_jscan c;
    p->n_docs++;
    if (tc_chunk_scan(doc, len, &f, &c) < 0) {
        if (!cut_is_end || !tc_jscan_is_cut(&c))
            malformed(p, doc, len, &c);
        return TC_OK;
    }
    if (!f.is_object) {
        malformed(p, doc, len, &c);
        return TC_OK;
    }
    if (f.error || f.error_object) {
        server_error(p, &f);
        return TC_OK;
    }
    return apply(p, &f);
}

static tc_err on_event(void *ctx, const char *data, size_t len)
{
    tc_stream_parser *p = ctx;
    if (is_blank(data, len))
        return TC_OK; /* "data:" alone, a keep-alive */
    while (len > 0 && (data[len - 1] == ' ' || data[len - 1] == '\t'))
        len--;
    if (len == 6 && memcmp(data, "[DONE]", 6) == 0) {
        p->ended = 1;
        return TC_OK;
    }
    return take_doc(p, data, len, 0);
}

static tc_err ndjson_line(tc_stream_parser *p, const char *line, size_t n)
{
    return is_blank(line, n) ? TC_OK : take_doc(p, line, n, 0);
}

static tc_err ndjson_feed(tc_stream_parser *p, const char *bytes, size_t len)
{
    for (size_t i = 0; i < len;) {
        const char *nl = memchr(bytes + i, '\n', len - i);
        size_t j = nl ? (size_t)(nl - bytes) : len;
        if (p->pending.len + (j - i) > TC_STREAM_MAX_EVENT_BYTES) {
            p->dead = 1;
            set_error(p->rec, TC_REQ_MALFORMED,
                      "a line of the stream is longer than %u bytes, the most truecost accepts",
                      TC_STREAM_MAX_EVENT_BYTES);
            return TC_OK;
        }
        tc_err rc;
        if (!nl) { /* the line goes on in a later slice */
            tc_buf_append(&p->pending, bytes + i, j - i);
            return tc_buf_status(&p->pending);
        }
        if (p->pending.len == 0) { /* whole line in this slice: no copy */
            rc = ndjson_line(p, bytes + i, j - i);
        } else {
            tc_buf_append(&p->pending, bytes + i, j - i);
            rc = tc_buf_status(&p->pending);
            if (rc == TC_OK)
                rc = ndjson_line(p, p->pending.data, p->pending.len);
            tc_buf_reset(&p->pending);
        }
        if (rc != TC_OK)
            return rc;
        i = j + 1;
    }
    return TC_OK;
}

static tc_err sse_feed(tc_stream_parser *p, const char *bytes, size_t len, int finish)
{
    char err[sizeof p->rec->error_detail];
    tc_err rc = finish ? tc_sse_finish(&p->sse, err, sizeof err)
                       : tc_sse_feed(&p->sse, bytes, len, err, sizeof err);
    if (rc != TC_ERR_PARSE)
        return rc;
    p->dead = 1;
    set_error(p->rec, TC_REQ_MALFORMED, "%s", err);
    return TC_OK;
}

static tc_err body_feed(tc_stream_parser *p, const char *bytes, size_t len)
{
    if (p->pending.len + len > TC_STREAM_MAX_BODY_BYTES) {
        p->dead = 1;
        set_error(p->rec, TC_REQ_MALFORMED,
                  "the response body is larger than %u bytes, the most truecost accepts",
                  TC_STREAM_MAX_BODY_BYTES);
        return TC_OK;
    }
    tc_buf_append(&p->pending, bytes, len);
    return tc_buf_status(&p->pending);
}

/* Best source first: usage, the server's own count, its timings, else
 * (output only) the text chunks counted. */
static void pick(const tc_stream_parser *p, int usage, int server, int timings, int64_t *v,
                 tc_token_source *src)
{
    const int order[] = {usage, server, timings};
    for (int i = 0; i < 3; i++) {
        if (p->has_count >> order[i] & 1u) {
            *v = p->count[order[i]];
            *src = i == 0 ? TC_TOKENS_USAGE : TC_TOKENS_SERVER;
            return;
        }
    }
}

static void settle(const tc_stream_parser *p, tc_req_record *rec)
{
    rec->output_tokens = p->text_chunks;
    rec->output_source = TC_TOKENS_CHUNKS;
    rec->prompt_tokens = 0;
    rec->prompt_source = TC_TOKENS_NONE;
    pick(p, C_USAGE_OUT, C_SERVER_OUT, C_TIMINGS_OUT, &rec->output_tokens, &rec->output_source);
    pick(p, C_USAGE_PROMPT, C_SERVER_PROMPT, C_TIMINGS_PROMPT, &rec->prompt_tokens,
         &rec->prompt_source);
}

static void report_unended(tc_stream_parser *p)
{
    static const char *const marks[TC_API_COUNT] = {
        "Ollama's final object (\"done\": true)", "Ollama's final object (\"done\": true)",
        "its end marker (data: [DONE])", "its end marker (data: [DONE])",
        "llama.cpp's final chunk (\"stop\": true)"};
    if (p->streaming)
        set_error(p->rec, TC_REQ_DISCONNECT, "the stream ended before %s", marks[p->api]);
    else if (is_blank(p->pending.data, p->pending.len))
        set_error(p->rec, TC_REQ_DISCONNECT, "the response ended with an empty body");
    else
        set_error(p->rec, TC_REQ_DISCONNECT,
                  "the response ended before its JSON document was complete (%zu bytes received)",
                  p->pending.len);
}

tc_stream_parser *tc_stream_new(tc_api api, int streaming)
{
    if ((unsigned)api >= TC_API_COUNT)
        return NULL;
    tc_stream_parser *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->api = api;
    p->streaming = streaming != 0;
    tc_sse_init(&p->sse, TC_STREAM_MAX_EVENT_BYTES, on_event, p);
    return p;
}

tc_err tc_stream_reset(tc_stream_parser *p, tc_api api, int streaming)
{
    if ((unsigned)api >= TC_API_COUNT)
        return TC_ERR_INVALID;
    tc_sse sse = p->sse;
    tc_buf pending = p->pending;
    memset(p, 0, sizeof *p);
    p->sse = sse;
    p->pending = pending;
    tc_sse_reset(&p->sse);
    tc_buf_reset(&p->pending);
    p->api = api;
    p->streaming = streaming != 0;
    return TC_OK;
}

void tc_stream_free(tc_stream_parser *p)
{
    if (!p)
        return;
    tc_sse_free(&p->sse);
    tc_buf_free(&p->pending);
    free(p);
}

tc_err tc_stream_feed(tc_stream_parser *p, const char *bytes, size_t len, int64_t now_ns,
                      tc_req_record *rec)
{
    tc_err rc = TC_OK;
    p->now_ns = now_ns;
    p->rec = rec;
    if (p->dead || len == 0)
        return TC_OK;
    if (!p->streaming)
        rc = body_feed(p, bytes, len);
    else if (is_ollama(p->api))
        rc = ndjson_feed(p, bytes, len);
    else
        rc = sse_feed(p, bytes, len, 0);
    settle(p, rec);
    return rc;
}

tc_err tc_stream_finish(tc_stream_parser *p, int64_t now_ns, tc_req_record *rec)
{
    tc_err rc = TC_OK;
    p->now_ns = now_ns;
    p->rec = rec;
    if (p->dead) {
        /* the framing broke: its error is set, nothing more can be read */
    } else if (!p->streaming || is_ollama(p->api)) {
        /* The whole body, or a last NDJSON line without its newline: it
         * counts when it is whole; cut short, it is a truncated response. */
        if (!is_blank(p->pending.data, p->pending.len))
            rc = take_doc(p, p->pending.data, p->pending.len, 1);
    } else {
        rc = sse_feed(p, NULL, 0, 1);
    }
    if (!p->ended)
        report_unended(p);
    settle(p, rec);
    return rc;
}
