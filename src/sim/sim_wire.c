#include "sim_wire.h"

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

static void ollama_head(const tc_sim_wire_ctx *c, int64_t wall_ns, tc_buf *out)
{
    char when[40];
    tc_buf_puts(out, "{\"model\":");
    put_str(out, c->model);
    tc_buf_printf(out, ",\"created_at\":\"%s\",", tc_rfc3339_ns(wall_ns, when, sizeof when));
}

static void ollama_text(const tc_sim_wire_ctx *c, const char *text, size_t len, tc_buf *out)
{
    if (c->route == TC_ROUTE_OLLAMA_CHAT) {
        tc_buf_puts(out, "\"message\":{\"role\":\"assistant\",\"content\":");
        tc_buf_json_str(out, text, len);
        tc_buf_puts(out, "}");
    } else {
        tc_buf_puts(out, "\"response\":");
        tc_buf_json_str(out, text, len);
    }
}

static void ollama_done(const tc_sim_wire_ctx *c, const char *text, size_t len, int64_t wall_ns,
                        const tc_sim_metrics *m, tc_buf *out)
{
    ollama_head(c, wall_ns, out);
    ollama_text(c, text, len, out);
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

static void llama_chunk(const tc_sim_wire_ctx *c, const char *text, size_t len, int index,
                        tc_buf *out)
{
    (void)c;
    tc_buf_puts(out, "data: {\"index\":0,\"content\":");
    tc_buf_json_str(out, text, len);
    tc_buf_printf(out, ",\"tokens\":[],\"stop\":false,\"id_slot\":0,\"tokens_predicted\":%d}\n\n",
                  index + 1);
}

void tc_sim_wire_token(const tc_sim_wire_ctx *c, const char *text, size_t len, int index,
                       int64_t wall_ns, int is_last, const tc_sim_metrics *m, tc_buf *out)
{
    switch (c->route) {
    case TC_ROUTE_OLLAMA_GENERATE:
    case TC_ROUTE_OLLAMA_CHAT:
        ollama_head(c, wall_ns, out);
        ollama_text(c, text, len, out);
        tc_buf_puts(out, ",\"done\":false}\n");
        return;
    case TC_ROUTE_LLAMA_COMPLETION:
        llama_chunk(c, text, len, index, out);
        return;
    case TC_ROUTE_OAI_COMPLETIONS:
        oai_chunk_open(c, out);
        tc_buf_puts(out, "\"text\":");
        tc_buf_json_str(out, text, len);
        tc_buf_puts(out, ",");
        break;
    case TC_ROUTE_OAI_CHAT:
        oai_chunk_open(c, out);
        tc_buf_puts(out, "\"delta\":{\"content\":");
        tc_buf_json_str(out, text, len);
        tc_buf_puts(out, "},");
        break;
    }
    oai_chunk_close(c, is_last ? m->done_reason : NULL, is_last ? m : NULL, out);
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
