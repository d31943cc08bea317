#include "bench_calib.h"

#include <curl/curl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "bench_body.h"
#include "bench_stream.h"
#include "core/tc_buf.h"

#define REPLY_MAX (4u << 20)

typedef struct reply {
    long status; /* 0: no HTTP answer */
    CURLcode code;
    tc_buf body;
} reply;

static size_t on_body(char *data, size_t size, size_t nmemb, void *userp)
{
    reply *r = userp;
    size_t n = size * nmemb;
    if (r->body.len < REPLY_MAX)
        tc_buf_append(&r->body, data, n);
    return n;
}

/* POSTs the JSON body to path; the reply (status, body) in *r, which the
 * caller frees with tc_buf_free(&r->body). */
static void post(const tc_calib_config *cfg, const char *path, const char *json, reply *r)
{
    char url[640];
    memset(r, 0, sizeof *r);
    CURL *c = curl_easy_init();
    struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
    if (h && cfg->api_key && *cfg->api_key) {
        tc_buf auth = {0};
        tc_buf_printf(&auth, "Authorization: Bearer %s", cfg->api_key);
        if (!auth.data || !curl_slist_append(h, auth.data)) {
            curl_slist_free_all(h); /* never send a request without its key */
            h = NULL;
        }
        if (auth.data)
            memset(auth.data, 0, auth.len);
        tc_buf_free(&auth);
    }
    if (!c || !h) {
        r->code = CURLE_OUT_OF_MEMORY;
    } else {
        long ms = (long)(cfg->timeout_s * 1000.0);
        curl_easy_setopt(c, CURLOPT_URL, tc_endpoint_url(&cfg->endpoint, path, url, sizeof url));
        curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, json);
        curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
        curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, ms > 0 ? ms : 1L);
        curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
        r->code = curl_easy_perform(c);
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    }
    for (struct curl_slist *i = h; i; i = i->next)
        memset(i->data, 0, strlen(i->data)); /* holds the API key */
    curl_slist_free_all(h);
    if (c)
        curl_easy_cleanup(c);
}

/* The server's words from an error reply, as the load generator reads
 * them: {error: "..."}, {error: {message}}, or FastAPI's {detail}. */
static void error_text(const reply *r, char *out, size_t len)
{
    json_t *doc = json_loadb(r->body.data ? r->body.data : "", r->body.len, 0, NULL);
    json_t *e = json_object_get(doc, "error");
    const char *msg = json_string_value(e);
    if (!msg)
        msg = json_string_value(json_object_get(e, "message"));
    if (!msg)
        msg = json_string_value(json_object_get(doc, "detail"));
    snprintf(out, len, "HTTP %ld: %.150s", r->status,
             msg            ? msg
             : r->body.data ? r->body.data
                            : "(empty body)");
    json_decref(doc);
}

static const char *source_name(tc_api api, tc_token_source src)
{
    if (src == TC_TOKENS_USAGE)
        return "usage.prompt_tokens";
    if (api == TC_API_OLLAMA || api == TC_API_OLLAMA_CHAT)
        return "prompt_eval_count";
    return api == TC_API_LLAMACPP ? "tokens_evaluated" : "server count";
}

/* One probe request of `text` with a 1-token reply; its prompt count in
 * *tokens. *status gets the HTTP status (0: none) so the caller can tell
 * a refusal from a failure. */
static tc_err probe_request(const tc_calib_config *cfg, const char *text, int ignore_eos,
                            int64_t *tokens, tc_calib_result *out, long *status, char *err,
                            size_t errlen)
{
    tc_prompt p = {.text = (char *)text, .max_tokens = 1, .ignore_eos = ignore_eos};
    tc_buf body = {0};
    reply r = {0};
    tc_req_record rec;
    tc_req_record_init(&rec);
    tc_stream_parser *parser = NULL;
    const char *route = tc_body_route(cfg->api);
    tc_err rc = tc_body_build(cfg->api, cfg->model, &p, 1, &body);
    if (rc != TC_OK) {
        rc = tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory building a probe");
        goto out;
    }
    post(cfg, route, body.data, &r);
    *status = r.status;
    if (r.status == 0) {
        rc = tc_fail(err, errlen, TC_ERR_NET, "%s: %s", route, curl_easy_strerror(r.code));
        goto out;
    }
    if (r.status < 200 || r.status >= 300) {
        char why[200];
        error_text(&r, why, sizeof why);
        rc = tc_fail(err, errlen, TC_ERR_NET, "%s answered %s", route, why);
        goto out;
    }
    parser = tc_stream_new(cfg->api, 1);
    if (!parser || tc_stream_feed(parser, r.body.data ? r.body.data : "", r.body.len, 1, &rec) ||
        tc_stream_finish(parser, 1, &rec)) {
        rc = tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory reading a probe's reply");
        goto out;
    }
    if (rec.error != TC_REQ_OK) {
        rc = tc_fail(err, errlen, TC_ERR_NET, "%s: the probe's reply failed: %s", route,
                     rec.error_detail[0] ? rec.error_detail : tc_req_error_name(rec.error));
        goto out;
    }
    if (rec.prompt_source == TC_TOKENS_NONE || rec.prompt_tokens <= 0) {
        rc = tc_fail(err, errlen, TC_ERR_INVALID,
                     "%s reported no prompt token count (usage.prompt_tokens, "
                     "prompt_eval_count or tokens_evaluated) for a probe",
                     route);
        goto out;
    }
    *tokens = rec.prompt_tokens;
    snprintf(out->source, sizeof out->source, "%s", source_name(cfg->api, rec.prompt_source));
out:
    tc_stream_free(parser);
    tc_req_record_clear(&rec);
    tc_buf_free(&r.body);
    tc_buf_free(&body);
    return rc;
}

/* llama.cpp's POST /tokenize {content, add_special}: the count, or -1 when
 * the server does not answer it. */
static int64_t tokenize(const tc_calib_config *cfg, const char *text)
{
    json_t *req = json_pack("{s:s, s:b}", "content", text, "add_special", 1);
    char *json = req ? json_dumps(req, JSON_COMPACT) : NULL;
    json_decref(req);
    if (!json)
        return -1;
    reply r;
    post(cfg, "/tokenize", json, &r);
    free(json);
    json_t *doc = r.status == 200 ? json_loadb(r.body.data, r.body.len, 0, NULL) : NULL;
    json_t *toks = json_object_get(doc, "tokens");
    int64_t n = json_is_array(toks) ? (int64_t)json_array_size(toks) : -1;
    json_decref(doc);
    tc_buf_free(&r.body);
    return n > 0 ? n : -1;
}

/* Probe i's count into out->tokens[i] by a request; one with ignore_eos
 * that the server refuses (HTTP 4xx) is tried once without, and if that
 * one is answered, the refusal is noted and ignore_eos dropped. */
static tc_err count_probe(const tc_calib_config *cfg, int i, const char *text, int *ignore_eos,
                          tc_calib_result *out, char *err, size_t errlen)
{
    long status = 0;
    char first[200];
    tc_err rc =
        probe_request(cfg, text, *ignore_eos, &out->tokens[i], out, &status, first, sizeof first);
    if (rc != TC_OK && *ignore_eos && status >= 400 && status < 500) {
        rc = probe_request(cfg, text, 0, &out->tokens[i], out, &status, err, errlen);
        if (rc == TC_OK) {
            *ignore_eos = 0;
            out->eos_refused = 1;
            snprintf(out->refusal, sizeof out->refusal, "%s", first);
        }
    } else if (rc != TC_OK) {
        snprintf(err, errlen, "%s", first);
    }
    return rc;
}

/* Both probes' counts: by /tokenize when asked and it answers both, else
 * by requests (one source for both, so the fit compares like with like). */
static tc_err count_probes(const tc_calib_config *cfg, tc_buf text[2], tc_calib_result *out,
                           char *err, size_t errlen)
{
    if (cfg->tokenize && (out->tokens[0] = tokenize(cfg, text[0].data)) > 0 &&
        (out->tokens[1] = tokenize(cfg, text[1].data)) > 0) {
        snprintf(out->source, sizeof out->source, "/tokenize");
        return TC_OK;
    }
    int ignore_eos = cfg->ignore_eos;
    for (int i = 0; i < 2; i++) {
        tc_err rc = count_probe(cfg, i, text[i].data, &ignore_eos, out, err, errlen);
        if (rc != TC_OK)
            return rc;
    }
    return TC_OK;
}

void tc_calib_probe_words(int64_t isl, int64_t words[2])
{
    words[1] = isl < 32 ? 32 : isl > 4096 ? 4096 : isl;
    words[0] = words[1] / 8 < 8 ? 8 : words[1] / 8;
}

tc_err tc_calib_run(const tc_calib_config *cfg, tc_calib_result *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->words[0] = cfg->words[0];
    out->words[1] = cfg->words[1];
    if (out->words[0] < 1 || out->words[1] <= out->words[0])
        return tc_fail(err, errlen, TC_ERR_INVALID, "calibration: probe sizes out of order");
    tc_buf text[2] = {{0}, {0}};
    tc_err rc = TC_OK;
    for (int i = 0; i < 2 && rc == TC_OK; i++)
        rc = tc_synth_text(cfg->seed, -1 - i, out->words[i], &text[i]);
    char why[512];
    if (rc != TC_OK)
        snprintf(why, sizeof why, "out of memory making the probes");
    else
        rc = count_probes(cfg, text, out, why, sizeof why);
    tc_buf_free(&text[0]);
    tc_buf_free(&text[1]);
    if (rc != TC_OK)
        return tc_fail(err, errlen, rc, "cannot calibrate the prompt length: %s", why);
    double tpw =
        (double)(out->tokens[1] - out->tokens[0]) / (double)(out->words[1] - out->words[0]);
    if (!(tpw > 0) || !isfinite(tpw))
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "cannot calibrate the prompt length: the server counted %lld tokens for "
                       "%lld words and %lld for %lld words (%s); its count does not grow with "
                       "the prompt (a prompt cache?)",
                       (long long)out->tokens[0], (long long)out->words[0],
                       (long long)out->tokens[1], (long long)out->words[1], out->source);
    out->calib.tokens_per_word = tpw;
    out->calib.overhead = (double)out->tokens[0] - tpw * (double)out->words[0];
    return TC_OK;
}

int tc_calib_eos_supported(const tc_probe *p, tc_api api, char *note, size_t len)
{
    const char *why = NULL;
    if (api == TC_API_OLLAMA || api == TC_API_OLLAMA_CHAT)
        why = "Ollama: ignore_eos not supported";
    else if (p->simulated || p->kind != TC_SERVER_OLLAMA)
        why = NULL; /* vLLM, SGLang and llama.cpp read it; a refusal is caught by the probes */
    else
        why = "Ollama's OpenAI API: ignore_eos not supported";
    if (why)
        snprintf(note, len, "%s; output length is the model's choice, achieved OSL shown", why);
    else if (len)
        note[0] = '\0';
    return why == NULL;
}
