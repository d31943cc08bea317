#include "sim_request.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "core/tc_rng.h"
#include "sim_text.h"

const char *tc_sim_route_path(tc_sim_route route)
{
    switch (route) {
    case TC_ROUTE_OLLAMA_GENERATE:
        return "/api/generate";
    case TC_ROUTE_OLLAMA_CHAT:
        return "/api/chat";
    case TC_ROUTE_OAI_COMPLETIONS:
        return "/v1/completions";
    case TC_ROUTE_OAI_CHAT:
        return "/v1/chat/completions";
    case TC_ROUTE_LLAMA_COMPLETION:
        return "/completion";
    }
    return "?";
}

static int bad(char *err, size_t errlen, const char *fmt, const char *what)
{
    if (err && errlen)
        snprintf(err, errlen, fmt, what);
    return 400;
}

/* Reads an optional integer token limit; <= 0 (llama.cpp's -1) means the
 * default. Returns 0, or 400 when present but not an integer. */
static int read_limit(json_t *obj, const char *key, int *out, char *err, size_t errlen)
{
    json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_integer(v))
        return bad(err, errlen, "'%s' must be an integer", key);
    json_int_t n = json_integer_value(v);
    if (n > TC_SIM_MAX_TOKENS_LIMIT)
        return bad(err, errlen, "'%s' is larger than 1000000", key);
    *out = n > 0 ? (int)n : TC_SIM_DEFAULT_MAX_TOKENS;
    return 0;
}

static int read_bool(json_t *obj, const char *key, int *out, char *err, size_t errlen)
{
    json_t *v = json_object_get(obj, key);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_boolean(v))
        return bad(err, errlen, "'%s' must be true or false", key);
    *out = json_is_true(v);
    return 0;
}

/* Text of a message's content: a string, or OpenAI's array of parts whose
 * "text" fields are joined. Counts words and hashes what it reads. */
static void absorb_text(json_t *content, int *words, uint64_t *hash)
{
    if (json_is_string(content)) {
        const char *s = json_string_value(content);
        size_t n = json_string_length(content);
        *words += tc_sim_count_words(s, n);
        *hash = tc_hash_bytes(s, n, *hash);
        return;
    }
    size_t i;
    json_t *part;
    json_array_foreach(content, i, part)
    {
        absorb_text(json_object_get(part, "text"), words, hash);
    }
}

static int read_messages(json_t *root, tc_sim_request *out, char *err, size_t errlen)
{
    json_t *msgs = json_object_get(root, "messages");
    if (!msgs || json_is_null(msgs) || (json_is_array(msgs) && json_array_size(msgs) == 0)) {
        if (out->route == TC_ROUTE_OLLAMA_CHAT) {
            out->load_only = 1; /* Ollama loads the model and answers done_reason "load" */
            return 0;
        }
        return bad(err, errlen, "'%s' is required: a non-empty array of {role, content}",
                   "messages");
    }
    if (!json_is_array(msgs))
        return bad(err, errlen, "'%s' must be an array of {role, content}", "messages");
    int words = 0, count = 0, role_words = 0;
    uint64_t hash = 0;
    size_t i;
    json_t *m;
    json_array_foreach(msgs, i, m)
    {
        if (!json_is_object(m) || !json_is_string(json_object_get(m, "role")))
            return bad(err, errlen, "each of '%s' must be an object with a string 'role'",
                       "messages");
        /* the role shapes the completion (hashed) but is template, not words */
        absorb_text(json_object_get(m, "role"), &role_words, &hash);
        absorb_text(json_object_get(m, "content"), &words, &hash);
        count++;
    }
    out->prompt_tokens = 1 + words + count * TC_SIM_CHAT_MESSAGE_OVERHEAD;
    out->prompt_words = words;
    out->prompt_hash = hash;
    return 0;
}

static int read_prompt(json_t *root, tc_sim_request *out, char *err, size_t errlen)
{
    json_t *p = json_object_get(root, "prompt");
    if (json_is_array(p)) /* OpenAI accepts a list of prompts; the first is served */
        p = json_array_get(p, 0);
    if (!p || json_is_null(p) || (json_is_string(p) && json_string_length(p) == 0)) {
        if (out->route == TC_ROUTE_OLLAMA_GENERATE) {
            out->load_only = 1;
            return 0;
        }
        return bad(err, errlen, "'%s' is required: a non-empty string", "prompt");
    }
    if (!json_is_string(p))
        return bad(err, errlen, "'%s' must be a string", "prompt");
    const char *s = json_string_value(p);
    size_t n = json_string_length(p);
    out->prompt_tokens = tc_sim_count_prompt_tokens(s, n);
    out->prompt_words = tc_sim_count_words(s, n);
    out->prompt_hash = tc_hash_bytes(s, n, 0);
    return 0;
}

static int read_model(json_t *root, tc_sim_request *out, char *err, size_t errlen)
{
    json_t *m = json_object_get(root, "model");
    if (!m || json_is_null(m)) {
        if (out->route == TC_ROUTE_LLAMA_COMPLETION)
            return 0; /* llama.cpp serves its one model whatever the body says */
        return bad(err, errlen, "'%s' is required", "model");
    }
    if (!json_is_string(m))
        return bad(err, errlen, "'%s' must be a string", "model");
    if (json_string_length(m) >= sizeof out->model)
        return bad(err, errlen, "'%s' is too long", "model");
    memcpy(out->model, json_string_value(m), json_string_length(m) + 1);
    return 0;
}

static int read_limits(json_t *root, tc_sim_request *out, char *err, size_t errlen)
{
    int rc = 0;
    switch (out->route) {
    case TC_ROUTE_OLLAMA_GENERATE:
    case TC_ROUTE_OLLAMA_CHAT: {
        json_t *opts = json_object_get(root, "options");
        if (opts && !json_is_null(opts) && !json_is_object(opts))
            return bad(err, errlen, "'%s' must be an object", "options");
        rc = read_limit(opts, "num_predict", &out->max_tokens, err, errlen);
        break;
    }
    case TC_ROUTE_OAI_CHAT:
        /* max_tokens is deprecated in favour of max_completion_tokens, which
         * wins when both are sent (as OpenAI and vLLM read them). */
        rc = read_limit(root, "max_tokens", &out->max_tokens, err, errlen);
        if (!rc)
            rc = read_limit(root, "max_completion_tokens", &out->max_tokens, err, errlen);
        break;
    case TC_ROUTE_OAI_COMPLETIONS:
        rc = read_limit(root, "max_tokens", &out->max_tokens, err, errlen);
        break;
    case TC_ROUTE_LLAMA_COMPLETION:
        rc = read_limit(root, "n_predict", &out->max_tokens, err, errlen);
        break;
    }
    if (!rc)
        rc = read_bool(root, "ignore_eos", &out->ignore_eos, err, errlen);
    return rc;
}

static int read_stream(json_t *root, tc_sim_request *out, char *err, size_t errlen)
{
    /* Ollama streams unless told not to; OpenAI and llama.cpp only when asked. */
    int is_ollama = out->route == TC_ROUTE_OLLAMA_GENERATE || out->route == TC_ROUTE_OLLAMA_CHAT;
    out->stream = is_ollama;
    int rc = read_bool(root, "stream", &out->stream, err, errlen);
    if (rc)
        return rc;
    json_t *so = json_object_get(root, "stream_options");
    if (so && !json_is_null(so)) {
        if (!json_is_object(so))
            return bad(err, errlen, "'%s' must be an object", "stream_options");
        rc = read_bool(so, "include_usage", &out->include_usage, err, errlen);
    }
    return rc;
}

void tc_sim_scale_prompt(tc_sim_request *rq, double tokens_per_word)
{
    rq->prompt_tokens += tc_sim_scale_words(rq->prompt_words, tokens_per_word) - rq->prompt_words;
}

int tc_sim_request_parse(tc_sim_route route, const char *body, size_t len, tc_sim_request *out,
                         char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->route = route;
    out->max_tokens = TC_SIM_DEFAULT_MAX_TOKENS;
    if (len == 0)
        return bad(err, errlen, "%s", "request body is empty: send a JSON object");
    json_error_t jerr;
    json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!root) {
        if (err && errlen)
            snprintf(err, errlen, "request body is not valid JSON: %s (line %d, column %d)",
                     jerr.text, jerr.line, jerr.column);
        return 400;
    }
    int rc;
    if (!json_is_object(root))
        rc = bad(err, errlen, "%s", "request body must be a JSON object");
    else if (!(rc = read_model(root, out, err, errlen)) &&
             !(rc = read_limits(root, out, err, errlen)) &&
             !(rc = read_stream(root, out, err, errlen))) {
        if (route == TC_ROUTE_OLLAMA_CHAT || route == TC_ROUTE_OAI_CHAT)
            rc = read_messages(root, out, err, errlen);
        else
            rc = read_prompt(root, out, err, errlen);
    }
    json_decref(root);
    return rc;
}
