#include "sim_wire.h"

#include <stdlib.h>
#include <string.h>

#include "core/tc_time.h"

static int is_ollama(tc_sim_route r)
{
    return r == TC_ROUTE_OLLAMA_GENERATE || r == TC_ROUTE_OLLAMA_CHAT;
}

static int is_chat(tc_sim_route r)
{
    return r == TC_ROUTE_OLLAMA_CHAT || r == TC_ROUTE_OAI_CHAT;
}

const char *tc_sim_wire_stream_type(tc_sim_route route)
{
    return is_ollama(route) ? "application/x-ndjson" : "text/event-stream";
}

static void put_str(tc_buf *out, const char *s)
{
    tc_buf_json_str(out, s, strlen(s));
}

static double ms_of(int64_t ns)
{
    return (double)ns / 1e6;
}

static double ratio(double num, double den)
{
    return den > 0 ? num / den : 0.0;
}

/* llama.cpp's timings object. */
static void put_timings(tc_buf *out, const tc_sim_metrics *m)
{
    double pms = ms_of(m->prompt_eval_ns), gms = ms_of(m->eval_ns);
    tc_buf_printf(out,
                  "{\"prompt_n\":%d,\"prompt_ms\":%.3f,\"prompt_per_token_ms\":%.6f,"
                  "\"prompt_per_second\":%.6f,",
                  m->prompt_tokens, pms, ratio(pms, m->prompt_tokens),
                  ratio(m->prompt_tokens * 1000.0, pms));
    tc_buf_printf(out,
                  "\"predicted_n\":%d,\"predicted_ms\":%.3f,\"predicted_per_token_ms\":%.6f,"
                  "\"predicted_per_second\":%.6f}",
                  m->completion_tokens, gms, ratio(gms, m->completion_tokens),
                  ratio(m->completion_tokens * 1000.0, gms));
}

static void put_usage(tc_buf *out, const tc_sim_metrics *m)
{
    tc_buf_printf(out, "{\"prompt_tokens\":%d,\"completion_tokens\":%d,\"total_tokens\":%d}",
                  m->prompt_tokens, m->completion_tokens, m->prompt_tokens + m->completion_tokens);
}

/* Ollama omits every metric that is zero. */
static void put_ollama_metrics(tc_buf *out, const tc_sim_metrics *m)
{
    const struct {
        const char *key;
        int64_t v;
    } f[] = {{"total_duration", m->total_ns},         {"load_duration", m->load_ns},
             {"prompt_eval_count", m->prompt_tokens}, {"prompt_eval_duration", m->prompt_eval_ns},
             {"eval_count", m->completion_tokens},    {"eval_duration", m->eval_ns}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        if (f[i].v != 0)
            tc_buf_printf(out, ",\"%s\":%lld", f[i].key, (long long)f[i].v);
}

/* `{"model":...,"created_at":"`: what precedes the time of an Ollama object. */
static void ollama_head_open(const tc_sim_wire_ctx *c, tc_buf *out)
{
    tc_buf_puts(out, "{\"model\":");
    put_str(out, c->model);
    tc_buf_puts(out, ",\"created_at\":\"");
}

/* What sits between the time and the text of an Ollama object. */
static void ollama_text_open(const tc_sim_wire_ctx *c, tc_buf *out)
{
    tc_buf_puts(out, c->route == TC_ROUTE_OLLAMA_CHAT
                         ? "\",\"message\":{\"role\":\"assistant\",\"content\":"
                         : "\",\"response\":");
}

static void ollama_text_close(const tc_sim_wire_ctx *c, tc_buf *out)
{
    if (c->route == TC_ROUTE_OLLAMA_CHAT)
        tc_buf_puts(out, "}");
}

static void ollama_head_text(const tc_sim_wire_ctx *c, const char *text, size_t len,
                             int64_t wall_ns, tc_buf *out)
{
    char when[40];
    ollama_head_open(c, out);
    tc_buf_puts(out, tc_rfc3339_ns(wall_ns, when, sizeof when));
    ollama_text_open(c, out);
    tc_buf_json_str(out, text, len);
    ollama_text_close(c, out);
}

static void ollama_done(const tc_sim_wire_ctx *c, const char *text, size_t len, int64_t wall_ns,
                        const tc_sim_metrics *m, tc_buf *out)
{
    ollama_head_text(c, text, len, wall_ns, out);
    tc_buf_puts(out, ",\"done\":true,\"done_reason\":");
    put_str(out, m->done_reason);
    put_ollama_metrics(out, m);
    tc_buf_puts(out, "}\n");
}

/* `{"id":...,"object":...,"created":...,"model":...,` of OpenAI objects. */
static void oai_head(const tc_sim_wire_ctx *c, const char *object, tc_buf *out)
{
    tc_buf_printf(out, "{\"id\":\"%s-sim-%llu\",\"object\":\"%s\",\"created\":%lld,\"model\":",
                  is_chat(c->route) ? "chatcmpl" : "cmpl", (unsigned long long)c->id, object,
                  (long long)c->created_s);
    put_str(out, c->model);
}

static void oai_chunk_open(const tc_sim_wire_ctx *c, tc_buf *out)
{
    tc_buf_puts(out, "data: ");
    oai_head(c, is_chat(c->route) ? "chat.completion.chunk" : "text_completion", out);
    tc_buf_puts(out, ",\"choices\":[{\"index\":0,");
}

static void oai_chunk_close(const tc_sim_wire_ctx *c, const char *finish, const tc_sim_metrics *m,
                            tc_buf *out)
{
    tc_buf_puts(out, "\"logprobs\":null,\"finish_reason\":");
    if (finish)
        put_str(out, finish);
    else
        tc_buf_puts(out, "null");
    tc_buf_puts(out, "}]");
    if (c->include_usage)
        tc_buf_puts(out, ",\"usage\":null"); /* as OpenAI: null until the usage chunk */
    if (m) {
        tc_buf_puts(out, ",\"timings\":");
        put_timings(out, m);
    }
    tc_buf_puts(out, "}\n\n");
}

void tc_sim_wire_stream_start(const tc_sim_wire_ctx *c, int64_t wall_ns, tc_buf *out)
{
    (void)wall_ns;
    if (c->route != TC_ROUTE_OAI_CHAT)
        return;
    oai_chunk_open(c, out);
    tc_buf_puts(out, "\"delta\":{\"role\":\"assistant\"},");
    oai_chunk_close(c, NULL, NULL, out);
}

/* The pieces of a token chunk around its text (and, for llama.cpp, its
 * count), shared by tc_sim_wire_token and the template of a stream. */
static void token_open(const tc_sim_wire_ctx *c, tc_buf *out)
{
    switch (c->route) {
    case TC_ROUTE_OLLAMA_GENERATE:
    case TC_ROUTE_OLLAMA_CHAT:
        ollama_text_open(c, out);
        return;
    case TC_ROUTE_LLAMA_COMPLETION:
        tc_buf_puts(out, "data: {\"index\":0,\"content\":");
        return;
    case TC_ROUTE_OAI_COMPLETIONS:
        oai_chunk_open(c, out);
        tc_buf_puts(out, "\"text\":");
        return;
    case TC_ROUTE_OAI_CHAT:
        oai_chunk_open(c, out);
        tc_buf_puts(out, "\"delta\":{\"content\":");
        return;
    }
}

static const char llama_count[] =
    ",\"tokens\":[],\"stop\":false,\"id_slot\":0,\"tokens_predicted\":";

/* After the text (after the count, for llama.cpp). */
static void token_close(const tc_sim_wire_ctx *c, int is_last, const tc_sim_metrics *m, tc_buf *out)
{
    switch (c->route) {
    case TC_ROUTE_OLLAMA_GENERATE:
    case TC_ROUTE_OLLAMA_CHAT:
        ollama_text_close(c, out);
        tc_buf_puts(out, ",\"done\":false}\n");
        return;
    case TC_ROUTE_LLAMA_COMPLETION:
        tc_buf_puts(out, "}\n\n");
        return;
    case TC_ROUTE_OAI_COMPLETIONS:
        tc_buf_puts(out, ",");
        break;
    case TC_ROUTE_OAI_CHAT:
        tc_buf_puts(out, "},");
        break;
    }
    oai_chunk_close(c, is_last ? m->done_reason : NULL, is_last ? m : NULL, out);
}

void tc_sim_wire_token(const tc_sim_wire_ctx *c, const char *text, size_t len, int index,
                       int64_t wall_ns, int is_last, const tc_sim_metrics *m, tc_buf *out)
{
    if (is_ollama(c->route)) {
        char when[40];
        ollama_head_open(c, out);
        tc_buf_puts(out, tc_rfc3339_ns(wall_ns, when, sizeof when));
    }
    token_open(c, out);
    tc_buf_json_str(out, text, len);
    if (c->route == TC_ROUTE_LLAMA_COMPLETION)
        tc_buf_printf(out, "%s%d", llama_count, index + 1);
    token_close(c, is_last, m, out);
}

/* ---- a stream's token template ------------------------------------------ */

tc_err tc_sim_wire_tmpl_init(const tc_sim_wire_ctx *c, tc_sim_wire_tmpl *t)
{
    memset(t, 0, sizeof *t);
    t->route = c->route;
    tc_buf b = {0};
    if (is_ollama(c->route))
        ollama_head_open(c, &b);
    t->open_len = b.len;
    token_open(c, &b);
    t->text_open_len = b.len - t->open_len;
    token_close(c, 0, NULL, &b);
    t->len = b.len;
    tc_err rc = tc_buf_status(&b);
    if (rc == TC_OK && b.len <= sizeof t->inline_bytes)
        memcpy(t->inline_bytes, b.data, b.len);
    else if (rc == TC_OK)
        t->heap = b.data; /* kept, not freed */
    else
        memset(t, 0, sizeof *t);
    if (!t->heap)
        tc_buf_free(&b);
    return rc;
}

void tc_sim_wire_tmpl_free(tc_sim_wire_tmpl *t)
{
    free(t->heap);
    t->heap = NULL;
}

/* `v` in decimal, as %d writes it. */
static void put_int(tc_buf *out, long long v)
{
    char digits[24];
    size_t n = sizeof digits;
    unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    do {
        digits[--n] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        digits[--n] = '-';
    tc_buf_append(out, digits + n, sizeof digits - n);
}

/* tc_rfc3339_ns's text, its date and time of day formatted once a second:
 * only the nine digits of the fraction change in between. */
static void put_time(tc_sim_wire_tmpl *t, int64_t wall_ns, tc_buf *out)
{
    int64_t secs = wall_ns / TC_NS_PER_S, frac = wall_ns % TC_NS_PER_S;
    if (frac < 0) {
        frac += TC_NS_PER_S;
        secs -= 1;
    }
    if (!t->second_len || secs != t->second) {
        char when[40];
        const char *dot = strchr(tc_rfc3339_ns(wall_ns, when, sizeof when), '.');
        if (!dot || (size_t)(dot + 1 - when) >= sizeof t->second_text)
            return; /* tc_rfc3339_ns wrote nothing: neither does this */
        t->second = secs;
        t->second_len = (size_t)(dot + 1 - when);
        memcpy(t->second_text, when, t->second_len);
    }
    char digits[10];
    for (int i = 8; i >= 0; i--, frac /= 10)
        digits[i] = (char)('0' + frac % 10);
    digits[9] = 'Z';
    tc_buf_append(out, t->second_text, t->second_len);
    tc_buf_append(out, digits, sizeof digits);
}

void tc_sim_wire_token_fast(tc_sim_wire_tmpl *t, const char *text, size_t len, int index,
                            int64_t wall_ns, tc_buf *out)
{
    const char *p = t->heap ? t->heap : t->inline_bytes;
    size_t close_at = t->open_len + t->text_open_len;
    if (is_ollama(t->route)) {
        tc_buf_append(out, p, t->open_len);
        put_time(t, wall_ns, out);
    }
    tc_buf_append(out, p + t->open_len, t->text_open_len);
    tc_buf_json_str(out, text, len);
    if (t->route == TC_ROUTE_LLAMA_COMPLETION) {
        tc_buf_append(out, llama_count, sizeof llama_count - 1);
        put_int(out, (long long)index + 1);
    }
    tc_buf_append(out, p + close_at, t->len - close_at);
}

int tc_sim_wire_tmpl_needs_time(const tc_sim_wire_tmpl *t)
{
    return is_ollama(t->route);
}

static void llama_final(const tc_sim_wire_ctx *c, const char *text, size_t len,
                        const tc_sim_metrics *m, tc_buf *out)
{
    tc_buf_puts(out, "{\"index\":0,\"content\":");
    tc_buf_json_str(out, text, len);
    tc_buf_puts(out, ",\"id_slot\":0,\"stop\":true,\"model\":");
    put_str(out, c->model);
    tc_buf_printf(out,
                  ",\"tokens_predicted\":%d,\"tokens_evaluated\":%d,\"stop_type\":\"%s\","
                  "\"truncated\":false,\"timings\":",
                  m->completion_tokens, m->prompt_tokens,
                  strcmp(m->done_reason, "length") == 0 ? "limit" : "eos");
    put_timings(out, m);
    tc_buf_puts(out, "}");
}

void tc_sim_wire_stream_end(const tc_sim_wire_ctx *c, int64_t wall_ns, const tc_sim_metrics *m,
                            tc_buf *out)
{
    switch (c->route) {
    case TC_ROUTE_OLLAMA_GENERATE:
    case TC_ROUTE_OLLAMA_CHAT:
        ollama_done(c, "", 0, wall_ns, m, out);
        return;
    case TC_ROUTE_LLAMA_COMPLETION:
        tc_buf_puts(out, "data: ");
        llama_final(c, "", 0, m, out);
        tc_buf_puts(out, "\n\n");
        return;
    case TC_ROUTE_OAI_COMPLETIONS:
    case TC_ROUTE_OAI_CHAT:
        if (c->include_usage) {
            tc_buf_puts(out, "data: ");
            oai_head(c, c->route == TC_ROUTE_OAI_CHAT ? "chat.completion.chunk" : "text_completion",
                     out);
            tc_buf_puts(out, ",\"choices\":[],\"usage\":");
            put_usage(out, m);
            tc_buf_puts(out, "}\n\n");
        }
        tc_buf_puts(out, "data: [DONE]\n\n");
        return;
    }
}

void tc_sim_wire_malformed(const tc_sim_wire_ctx *c, tc_buf *out)
{
    /* A truncated object: valid framing, invalid JSON, as a broken proxy
     * or a server bug produces. */
    if (is_ollama(c->route)) {
        tc_buf_puts(out, "{\"model\":");
        put_str(out, c->model);
        tc_buf_puts(out, ",\"response\":\"\\u12\n");
    } else {
        tc_buf_puts(out, "data: {\"choices\":[{\"index\":0,\"text\":\"\\u12\n\n");
    }
}

void tc_sim_wire_full(const tc_sim_wire_ctx *c, const char *text, size_t len, int64_t wall_ns,
                      const tc_sim_metrics *m, tc_buf *out)
{
    switch (c->route) {
    case TC_ROUTE_OLLAMA_GENERATE:
    case TC_ROUTE_OLLAMA_CHAT:
        ollama_done(c, text, len, wall_ns, m, out);
        return;
    case TC_ROUTE_LLAMA_COMPLETION:
        llama_final(c, text, len, m, out);
        tc_buf_puts(out, "\n");
        return;
    case TC_ROUTE_OAI_COMPLETIONS:
        oai_head(c, "text_completion", out);
        tc_buf_puts(out, ",\"choices\":[{\"index\":0,\"text\":");
        tc_buf_json_str(out, text, len);
        break;
    case TC_ROUTE_OAI_CHAT:
        oai_head(c, "chat.completion", out);
        tc_buf_puts(out, ",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                         "\"content\":");
        tc_buf_json_str(out, text, len);
        tc_buf_puts(out, "}");
        break;
    }
    tc_buf_puts(out, ",\"logprobs\":null,\"finish_reason\":");
    put_str(out, m->done_reason);
    tc_buf_puts(out, "}],\"usage\":");
    put_usage(out, m);
    tc_buf_puts(out, ",\"timings\":");
    put_timings(out, m);
    tc_buf_puts(out, "}\n");
}

static const char *oai_error_type(int status)
{
    switch (status) {
    case 404:
        return "not_found_error";
    case 405:
    case 400:
    case 413:
        return "invalid_request_error";
    case 503:
        return "unavailable_error";
    default:
        return status >= 500 ? "server_error" : "invalid_request_error";
    }
}

void tc_sim_wire_error_openai(int status, const char *message, tc_buf *out)
{
    tc_buf_puts(out, "{\"error\":{\"message\":");
    put_str(out, message);
    tc_buf_printf(out, ",\"type\":\"%s\",\"param\":null,\"code\":%d}}\n", oai_error_type(status),
                  status);
}

void tc_sim_wire_error(tc_sim_route route, int status, const char *message, tc_buf *out)
{
    if (is_ollama(route)) {
        tc_buf_puts(out, "{\"error\":");
        put_str(out, message);
        tc_buf_puts(out, "}\n");
        return;
    }
    tc_sim_wire_error_openai(status, message, out);
}
