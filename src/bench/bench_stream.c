#include "bench_stream.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_jscan.h"
#include "bench_sse.h"
#include "core/tc_buf.h"

/* ---- What one chunk says: the fields of every API, read in one pass ---- */

enum { N_TOTAL, N_LOAD, N_PROMPT_EVAL_NS, N_EVAL_NS, N_PROMPT_EVAL_COUNT, N_EVAL_COUNT,
       N_TOKENS_PREDICTED, N_TOKENS_EVALUATED, N_USAGE_PROMPT, N_USAGE_COMPLETION,
       N_PROMPT_N, N_PREDICTED_N, N_COUNT };
enum { D_PROMPT_MS, D_PREDICTED_MS, D_PREDICTED_PER_SECOND, D_COUNT };

typedef struct facts {
    /* Non-empty text, by where each API puts it: a chunk only counts as a
     * token when its own API's field has text. */
    int text_ollama, text_oai, text_llama;
    int done, stop, has_timings;
    int error;        /* an "error" member that is not null or false */
    int error_object; /* "object": "error", the older vLLM error shape */
    tc_jstr error_msg, error_type, top_msg;
    int64_t num[N_COUNT];
    unsigned has_num; /* bit per num[] slot */
    double dbl[D_COUNT];
} facts;

typedef struct key {
    const char *name;
    size_t len;
    int id;
} key;

#define KEY(s, id) {s, sizeof s - 1, id}
#define N_KEYS(k) (sizeof k / sizeof k[0])

/* Lengths first: most keys are rejected without touching their bytes. */
static int key_id(const tc_jstr *k, const key *keys, size_t n)
{
    if (k->escaped)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (keys[i].len == k->n && memcmp(keys[i].name, k->s, k->n) == 0)
            return keys[i].id;
    return -1;
}

/* A string sets *flag when non-empty; any other value is skipped. */
static int read_text(tc_jscan *c, int *flag)
{
    tc_jstr s;
    if (!tc_jscan_peek(c, '"'))
        return tc_jscan_value(c);
    if (tc_jscan_string(c, &s) < 0)
        return -1;
    *flag |= s.n > 0;
    return 0;
}

static int read_str(tc_jscan *c, tc_jstr *out)
{
    return tc_jscan_peek(c, '"') ? tc_jscan_string(c, out) : tc_jscan_value(c);
}

/* A count is a non-negative whole number; anything else is ignored. */
static int read_count(tc_jscan *c, facts *f, int slot)
{
    tc_jnum n;
    if (!tc_jscan_is_number(c))
        return tc_jscan_value(c);
    if (tc_jscan_number(c, &n) < 0)
        return -1;
    if (n.is_count) {
        f->num[slot] = n.i;
        f->has_num |= 1u << slot;
    }
    return 0;
}

static int read_bool(tc_jscan *c, int *out)
{
    *out = tc_jscan_peek(c, 't');
    return tc_jscan_value(c);
}

/* Ollama chat's message, OpenAI's delta and message. */
static int on_message(tc_jscan *c, const tc_jstr *k, void *flag)
{
    static const key keys[] = {KEY("content", 0), KEY("thinking", 0),
                               KEY("reasoning_content", 0), KEY("reasoning", 0)};
    return key_id(k, keys, N_KEYS(keys)) == 0 ? read_text(c, flag) : tc_jscan_value(c);
}

static int on_choice_member(tc_jscan *c, const tc_jstr *k, void *ctx)
{
    static const key keys[] = {KEY("text", 0), KEY("delta", 1), KEY("message", 1)};
    int *flag = &((facts *)ctx)->text_oai;
    switch (key_id(k, keys, N_KEYS(keys))) {
    case 0:
        return read_text(c, flag);
    case 1:
        return tc_jscan_peek(c, '{') ? tc_jscan_object(c, on_message, flag) : tc_jscan_value(c);
    default:
        return tc_jscan_value(c);
    }
}

static int on_choice(tc_jscan *c, void *ctx)
{
    return tc_jscan_peek(c, '{') ? tc_jscan_object(c, on_choice_member, ctx) : tc_jscan_value(c);
}

static int on_usage(tc_jscan *c, const tc_jstr *k, void *ctx)
{
    static const key keys[] = {KEY("prompt_tokens", N_USAGE_PROMPT),
                               KEY("completion_tokens", N_USAGE_COMPLETION)};
    int id = key_id(k, keys, N_KEYS(keys));
    return id < 0 ? tc_jscan_value(c) : read_count(c, ctx, id);
}

enum { DBL = 100 }; /* key ids from DBL on name dbl[] slots */

static int on_timings(tc_jscan *c, const tc_jstr *k, void *ctx)
{
    static const key keys[] = {KEY("prompt_n", N_PROMPT_N), KEY("predicted_n", N_PREDICTED_N),
                               KEY("prompt_ms", DBL + D_PROMPT_MS),
                               KEY("predicted_ms", DBL + D_PREDICTED_MS),
                               KEY("predicted_per_second", DBL + D_PREDICTED_PER_SECOND)};
    facts *f = ctx;
    tc_jnum n;
    int id = key_id(k, keys, N_KEYS(keys));
    if (id < DBL)
        return id < 0 ? tc_jscan_value(c) : read_count(c, f, id);
    if (!tc_jscan_is_number(c))
        return tc_jscan_value(c);
    if (tc_jscan_number(c, &n) < 0)
        return -1;
    f->dbl[id - DBL] = isfinite(n.d) ? n.d : 0;
    return 0;
}

static int on_error_member(tc_jscan *c, const tc_jstr *k, void *ctx)
{
    static const key keys[] = {KEY("message", 0), KEY("type", 1)};
    facts *f = ctx;
    switch (key_id(k, keys, N_KEYS(keys))) {
    case 0:
        return read_str(c, &f->error_msg);
    case 1:
        return read_str(c, &f->error_type);
    default:
        return tc_jscan_value(c);
    }
}

/* "error": "text" (Ollama, TGI) or {message, type, ...} (OpenAI). */
static int read_error(tc_jscan *c, facts *f)
{
    f->error = !tc_jscan_peek(c, 'n') && !tc_jscan_peek(c, 'f');
    if (tc_jscan_peek(c, '{'))
        return tc_jscan_object(c, on_error_member, f);
    return read_str(c, &f->error_msg);
}

enum { K_OLLAMA_TEXT = DBL, K_MESSAGE, K_CONTENT, K_DONE, K_STOP, K_CHOICES, K_USAGE, K_TIMINGS,
       K_ERROR, K_OBJECT };

static const key top_keys[] = {
    KEY("response", K_OLLAMA_TEXT), KEY("thinking", K_OLLAMA_TEXT), KEY("message", K_MESSAGE),
    KEY("content", K_CONTENT), KEY("done", K_DONE), KEY("stop", K_STOP),
    KEY("choices", K_CHOICES), KEY("usage", K_USAGE), KEY("timings", K_TIMINGS),
    KEY("error", K_ERROR), KEY("object", K_OBJECT), KEY("total_duration", N_TOTAL),
    KEY("load_duration", N_LOAD), KEY("prompt_eval_duration", N_PROMPT_EVAL_NS),
    KEY("eval_duration", N_EVAL_NS), KEY("prompt_eval_count", N_PROMPT_EVAL_COUNT),
    KEY("eval_count", N_EVAL_COUNT), KEY("tokens_predicted", N_TOKENS_PREDICTED),
    KEY("tokens_evaluated", N_TOKENS_EVALUATED)};

static int on_top_nested(tc_jscan *c, int id, facts *f)
{
    tc_jstr s = {0};
    switch (id) {
    case K_MESSAGE: /* Ollama chat's message, or an error's text (older vLLM) */
        if (tc_jscan_peek(c, '{'))
            return tc_jscan_object(c, on_message, &f->text_ollama);
        return read_str(c, &f->top_msg);
    case K_CHOICES:
        return tc_jscan_peek(c, '[') ? tc_jscan_array(c, on_choice, f) : tc_jscan_value(c);
    case K_USAGE: /* null in every chunk but the usage chunk, as OpenAI sends it */
        return tc_jscan_peek(c, '{') ? tc_jscan_object(c, on_usage, f) : tc_jscan_value(c);
    case K_TIMINGS:
        f->has_timings |= tc_jscan_peek(c, '{');
        return tc_jscan_peek(c, '{') ? tc_jscan_object(c, on_timings, f) : tc_jscan_value(c);
    case K_ERROR:
        return read_error(c, f);
    default: /* K_OBJECT */
        if (read_str(c, &s) < 0)
            return -1;
        f->error_object |= tc_jscan_key_is(&s, "error", 5);
        return 0;
    }
}

static int on_top(tc_jscan *c, const tc_jstr *k, void *ctx)
{
    facts *f = ctx;
    int id = key_id(k, top_keys, N_KEYS(top_keys));
    if (id < 0)
        return tc_jscan_value(c);
    if (id < N_COUNT)
        return read_count(c, f, id);
    switch (id) {
    case K_OLLAMA_TEXT:
        return read_text(c, &f->text_ollama);
    case K_CONTENT:
        return read_text(c, &f->text_llama);
    case K_DONE:
        return read_bool(c, &f->done);
    case K_STOP:
        return read_bool(c, &f->stop);
    default:
        return on_top_nested(c, id, f);
    }
}

/* ---- The parser ---- */

/* Token counts seen so far, by source; settle() picks the best. */
enum { C_USAGE_OUT, C_USAGE_PROMPT, C_SERVER_OUT, C_SERVER_PROMPT, C_TIMINGS_OUT,
       C_TIMINGS_PROMPT, C_COUNT };

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

/* Up to 32 bytes of `doc` ending near `at`, printable ASCII only, so the
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

static void server_error(tc_stream_parser *p, const facts *f)
{
    const tc_jstr *cand[] = {&f->error_msg, &f->top_msg, &f->error_type};
    char msg[128] = "";
    for (size_t i = 0; i < 3 && !msg[0]; i++)
        if (cand[i]->n > 0)
            tc_jscan_decode(cand[i], msg, sizeof msg);
    set_error(p->rec, TC_REQ_SERVER, "the server reported an error%s: %s",
              p->streaming ? " in the stream" : "", msg[0] ? msg : "(it gave no message)");
}

static int64_t num_or_0(const facts *f, int slot)
{
    return (f->has_num >> slot & 1u) ? f->num[slot] : 0;
}

static void take_count(tc_stream_parser *p, const facts *f, int slot, int counter)
{
    if (f->has_num >> slot & 1u) {
        p->count[counter] = f->num[slot];
        p->has_count |= 1u << counter;
    }
}

/* Ollama's final object; every metric is omitted when zero. */
static void apply_ollama_done(tc_stream_parser *p, const facts *f)
{
    tc_server_report *s = &p->rec->server;
    s->has_ollama = 1;
    s->total_ns = num_or_0(f, N_TOTAL);
    s->load_ns = num_or_0(f, N_LOAD);
    s->prompt_eval_ns = num_or_0(f, N_PROMPT_EVAL_NS);
    s->eval_ns = num_or_0(f, N_EVAL_NS);
    s->prompt_eval_count = num_or_0(f, N_PROMPT_EVAL_COUNT);
    s->eval_count = num_or_0(f, N_EVAL_COUNT);
    p->count[C_SERVER_OUT] = s->eval_count;
    p->count[C_SERVER_PROMPT] = s->prompt_eval_count;
    p->has_count |= 1u << C_SERVER_OUT | 1u << C_SERVER_PROMPT;
    p->ended = 1;
}

static void apply_timings(tc_stream_parser *p, const facts *f)
{
    tc_server_report *s = &p->rec->server;
    s->has_timings = 1;
    s->prompt_n = num_or_0(f, N_PROMPT_N);
    s->predicted_n = num_or_0(f, N_PREDICTED_N);
    s->prompt_ms = f->dbl[D_PROMPT_MS];
    s->predicted_ms = f->dbl[D_PREDICTED_MS];
    s->predicted_per_second = f->dbl[D_PREDICTED_PER_SECOND];
    take_count(p, f, N_PREDICTED_N, C_TIMINGS_OUT);
    take_count(p, f, N_PROMPT_N, C_TIMINGS_PROMPT);
}

static tc_err apply(tc_stream_parser *p, const facts *f)
{
    int text = is_ollama(p->api)            ? f->text_ollama
               : p->api == TC_API_LLAMACPP ? f->text_llama
                                           : f->text_oai;
    if (text) {
        if (tc_req_record_add_chunk(p->rec, p->now_ns) < 0)
            return TC_ERR_NOMEM;
        p->text_chunks++;
    }
    take_count(p, f, N_USAGE_COMPLETION, C_USAGE_OUT);
    take_count(p, f, N_USAGE_PROMPT, C_USAGE_PROMPT);
    if (is_ollama(p->api) && f->done)
        apply_ollama_done(p, f);
    if (p->api == TC_API_LLAMACPP) {
        take_count(p, f, N_TOKENS_PREDICTED, C_SERVER_OUT);
        take_count(p, f, N_TOKENS_EVALUATED, C_SERVER_PROMPT);
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
    facts f;
    tc_jscan c;
    int is_object;
    memset(&f, 0, sizeof f);
    p->n_docs++;
    tc_jscan_init(&c, doc, len);
    if (tc_jscan_doc(&c, on_top, &f, &is_object) < 0) {
        if (!cut_is_end || !tc_jscan_is_cut(&c))
            malformed(p, doc, len, &c);
        return TC_OK;
    }
    if (!is_object) {
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
