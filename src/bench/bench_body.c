#include "bench_body.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

const char *tc_body_route(tc_api api)
{
    switch (api) {
    case TC_API_OLLAMA:
        return "/api/generate";
    case TC_API_OLLAMA_CHAT:
        return "/api/chat";
    case TC_API_OPENAI:
        return "/v1/completions";
    case TC_API_OPENAI_CHAT:
        return "/v1/chat/completions";
    case TC_API_LLAMACPP:
    case TC_API_COUNT:
        break;
    }
    return "/completion";
}

int tc_body_is_chat(tc_api api)
{
    return api == TC_API_OLLAMA_CHAT || api == TC_API_OPENAI_CHAT;
}

static json_t *messages_of(const tc_prompt *p)
{
    if (p->messages_json)
        return json_loads(p->messages_json, 0, NULL);
    return json_pack("[{s:s, s:s}]", "role", "user", "content", p->text);
}

static json_t *prompt_of(const tc_prompt *p)
{
    if (p->text)
        return json_string(p->text);
    json_t *msgs = json_loads(p->messages_json, 0, NULL);
    tc_buf b = {0};
    size_t i;
    json_t *m;
    json_array_foreach(msgs, i, m)
    {
        const char *role = json_string_value(json_object_get(m, "role"));
        json_t *content = json_object_get(m, "content");
        tc_buf_printf(&b, "%s%s: ", i ? "\n" : "", role ? role : "user");
        if (json_is_string(content))
            tc_buf_puts(&b, json_string_value(content));
        size_t k;
        json_t *part;
        json_array_foreach(content, k, part) /* OpenAI's text parts, joined by spaces */
        {
            tc_buf_printf(&b, "%s%s", k ? " " : "",
                          json_string_value(json_object_get(part, "text")));
        }
    }
    json_t *s = json_string(b.data ? b.data : "");
    tc_buf_free(&b);
    json_decref(msgs);
    return s;
}

tc_err tc_body_build(tc_api api, const char *model, const tc_prompt *prompt, int64_t max_tokens,
                     tc_buf *out)
{
    json_int_t limit = (json_int_t)(prompt->max_tokens > 0 ? prompt->max_tokens : max_tokens);
    json_t *input = tc_body_is_chat(api) ? messages_of(prompt) : prompt_of(prompt);
    json_t *body = NULL;
    const char *key = tc_body_is_chat(api) ? "messages" : "prompt";
    switch (api) {
    case TC_API_OLLAMA:
    case TC_API_OLLAMA_CHAT:
        body = json_pack("{s:s, s:O, s:b, s:{s:I, s:i}}", "model", model, key, input, "stream", 1,
                         "options", "num_predict", limit, "temperature", 0);
        break;
    case TC_API_OPENAI:
    case TC_API_OPENAI_CHAT:
        body = json_pack("{s:s, s:O, s:I, s:i, s:b, s:{s:b}}", "model", model, key, input,
                         "max_tokens", limit, "temperature", 0, "stream", 1, "stream_options",
                         "include_usage", 1);
        break;
    case TC_API_LLAMACPP:
    case TC_API_COUNT:
        body = json_pack("{s:O, s:I, s:i, s:b}", "prompt", input, "n_predict", limit, "temperature",
                         0, "stream", 1);
        break;
    }
    json_decref(input);
    /* vLLM, SGLang and llama.cpp read it on every route but Ollama's. */
    if (body && prompt->ignore_eos && api != TC_API_OLLAMA && api != TC_API_OLLAMA_CHAT &&
        json_object_set_new(body, "ignore_eos", json_true()) != 0) {
        json_decref(body);
        body = NULL;
    }
    char *text = body ? json_dumps(body, JSON_COMPACT) : NULL;
    json_decref(body);
    if (!text)
        return TC_ERR_NOMEM;
    tc_buf_reset(out);
    tc_buf_puts(out, text);
    free(text);
    return tc_buf_status(out);
}
