#include "bench_probe.h"

#include <curl/curl.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/tc_buf.h"

typedef struct reply {
    long status; /* 0: no HTTP answer */
    CURLcode code;
    int simulated;
    tc_buf body;
} reply;

const char *tc_server_kind_name(tc_server_kind kind)
{
    switch (kind) {
    case TC_SERVER_OLLAMA:
        return "Ollama";
    case TC_SERVER_LLAMACPP:
        return "llama.cpp server";
    case TC_SERVER_OPENAI:
        break;
    }
    return "OpenAI-compatible server";
}

tc_api tc_server_default_api(tc_server_kind kind)
{
    switch (kind) {
    case TC_SERVER_OLLAMA:
        return TC_API_OLLAMA;
    case TC_SERVER_LLAMACPP:
        return TC_API_LLAMACPP;
    case TC_SERVER_OPENAI:
        break;
    }
    return TC_API_OPENAI_CHAT;
}

int tc_probe_speaks(const tc_probe *p, tc_api api)
{
    if (api == TC_API_OPENAI || api == TC_API_OPENAI_CHAT)
        return (p->speaks & TC_PROBE_OPENAI) != 0;
    if (api == TC_API_OLLAMA || api == TC_API_OLLAMA_CHAT)
        return (p->speaks & TC_PROBE_OLLAMA) != 0;
    return (p->speaks & TC_PROBE_LLAMACPP) != 0;
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *userp)
{
    reply *r = userp;
    size_t n = size * nmemb;
    if (r->body.len < (1u << 20))
        tc_buf_append(&r->body, data, n);
    return n;
}

static size_t on_header(char *data, size_t size, size_t nmemb, void *userp)
{
    reply *r = userp;
    size_t n = size * nmemb;
    static const char key[] = "x-truecost-simulated:";
    if (n > sizeof key && strncasecmp(data, key, sizeof key - 1) == 0 &&
        memchr(data + sizeof key - 1, '1', n - (sizeof key - 1)))
        r->simulated = 1;
    return n;
}

static void get(const tc_endpoint *ep, const char *path, const char *api_key, double timeout_s,
                reply *r)
{
    char url[640];
    memset(r, 0, sizeof *r);
    CURL *c = curl_easy_init();
    if (!c) {
        r->code = CURLE_OUT_OF_MEMORY;
        return;
    }
    struct curl_slist *h = NULL;
    if (api_key && *api_key) {
        tc_buf auth = {0};
        tc_buf_printf(&auth, "Authorization: Bearer %s", api_key);
        h = curl_slist_append(NULL, auth.data ? auth.data : "");
        if (auth.data)
            memset(auth.data, 0, auth.len);
        tc_buf_free(&auth);
    }
    curl_easy_setopt(c, CURLOPT_URL, tc_endpoint_url(ep, path, url, sizeof url));
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c, CURLOPT_HEADERDATA, r);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(timeout_s * 1000));
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    r->code = curl_easy_perform(c);
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &r->status);
    for (struct curl_slist *i = h; i; i = i->next)
        memset(i->data, 0, strlen(i->data));
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
}

static json_t *json_of(const reply *r)
{
    if (r->status != 200 || !r->body.data)
        return NULL;
    return json_loadb(r->body.data, r->body.len, 0, NULL);
}

/* Hosted APIs list hundreds of models: no cap but memory. A name that
 * cannot be kept is left out (the pick then says it is not there). */
static void add_model(tc_probe *p, const char *name)
{
    if (!name || !*name || p->n_models == INT32_MAX)
        return;
    char **grown = realloc(p->models, ((size_t)p->n_models + 1) * sizeof *grown);
    if (!grown)
        return;
    p->models = grown;
    if ((p->models[p->n_models] = strdup(name)) != NULL)
        p->n_models++;
}

void tc_probe_free(tc_probe *p)
{
    if (!p)
        return;
    for (int i = 0; i < p->n_models; i++)
        free(p->models[i]);
    free(p->models);
    memset(p, 0, sizeof *p);
}

/* Models from /api/tags (Ollama) or /v1/models (OpenAI-style). */
static void read_models(const tc_endpoint *ep, const char *api_key, double t, tc_probe *p)
{
    reply r;
    int ollama = p->kind == TC_SERVER_OLLAMA;
    get(ep, ollama ? "/api/tags" : "/v1/models", api_key, t, &r);
    json_t *doc = json_of(&r);
    json_t *list = json_object_get(doc, ollama ? "models" : "data");
    size_t i;
    json_t *m;
    json_array_foreach(list, i, m)
    {
        add_model(p, json_string_value(json_object_get(m, ollama ? "name" : "id")));
    }
    p->simulated |= r.simulated;
    json_decref(doc);
    tc_buf_free(&r.body);
}

static void copy_version(tc_probe *p, json_t *doc, const char *key)
{
    const char *v = json_string_value(json_object_get(doc, key));
    if (v)
        snprintf(p->server_version, sizeof p->server_version, "%s", v);
}

/* Asks for each API family in turn and notes which answer; the first one
 * found names the server's kind. Sets *answered when anything answered
 * HTTP at all. Returns 1 when some family was recognised. */
static int recognise(const tc_endpoint *ep, const char *key, double t, tc_probe *p, int *answered,
                     CURLcode *why, long *denied)
{
    reply r;
    get(ep, "/api/version", key, t, &r);
    *answered |= r.status != 0;
    if (r.status == 0) {
        *why = r.code;
        tc_buf_free(&r.body);
        return 0; /* nothing listens: no point asking further */
    }
    json_t *doc = json_of(&r);
    p->simulated |= r.simulated;
    tc_buf_free(&r.body);
    if (json_is_string(json_object_get(doc, "version"))) {
        p->speaks |= TC_PROBE_OLLAMA;
        copy_version(p, doc, "version");
    }
    json_decref(doc);

    reply health, props;
    get(ep, "/health", key, t, &health);
    get(ep, "/props", key, t, &props);
    doc = json_of(&props);
    if (health.status == 200 && json_is_object(doc)) {
        p->speaks |= TC_PROBE_LLAMACPP;
        if (!p->server_version[0])
            copy_version(p, doc, "build_info");
    }
    json_decref(doc);
    tc_buf_free(&health.body);
    tc_buf_free(&props.body);

    get(ep, "/v1/models", key, t, &r);
    doc = json_of(&r);
    if (json_is_array(json_object_get(doc, "data")))
        p->speaks |= TC_PROBE_OPENAI;
    if (r.status == 401 || r.status == 403)
        *denied = r.status;
    json_decref(doc);
    tc_buf_free(&r.body);

    if (p->speaks & TC_PROBE_OLLAMA)
        p->kind = TC_SERVER_OLLAMA;
    else if (p->speaks & TC_PROBE_LLAMACPP)
        p->kind = TC_SERVER_LLAMACPP;
    else if (p->speaks & TC_PROBE_OPENAI)
        p->kind = TC_SERVER_OPENAI;
    else
        return 0;
    if (p->kind == TC_SERVER_OPENAI) {
        get(ep, "/version", key, t, &r); /* vLLM says its version here */
        doc = json_of(&r);
        copy_version(p, doc, "version");
        json_decref(doc);
        tc_buf_free(&r.body);
    }
    return 1;
}

tc_err tc_probe_server(const tc_endpoint *ep, const char *api_key, double timeout_s, tc_probe *out,
                       char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int answered = 0;
    CURLcode why = CURLE_OK;
    long denied = 0;
    if (!recognise(ep, api_key, timeout_s, out, &answered, &why, &denied)) {
        if (!answered)
            return tc_fail(err, errlen, TC_ERR_NET,
                           "cannot reach %s: %s (is the server running? is the host and port "
                           "right? Ollama listens on 11434, vLLM on 8000, llama.cpp on 8080, "
                           "SGLang on 30000)",
                           ep->stored, curl_easy_strerror(why));
        if (denied)
            return tc_fail(err, errlen, TC_ERR_NET,
                           "%s answered HTTP %ld to GET /v1/models: it needs an API key; put "
                           "it in an environment variable and pass --api-key-env VAR",
                           ep->stored, denied);
        return tc_fail(err, errlen, TC_ERR_NOTFOUND,
                       "%s answers HTTP but is not an inference server: GET /api/version "
                       "(Ollama), /health + /props (llama.cpp) and /v1/models (OpenAI-style) "
                       "all failed; check the URL and port",
                       ep->stored);
    }
    read_models(ep, api_key, timeout_s, out);
    return TC_OK;
}

tc_err tc_probe_find_local(tc_endpoint *out, char *err, size_t errlen)
{
    static const struct {
        const char *url, *what;
    } candidates[] = {{"http://127.0.0.1:11434", "Ollama"},
                      {"http://127.0.0.1:8000", "vLLM"},
                      {"http://127.0.0.1:8080", "llama.cpp"},
                      {"http://127.0.0.1:30000", "SGLang"}};
    for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
        tc_endpoint ep;
        if (tc_endpoint_parse(candidates[i].url, &ep, NULL, 0) != TC_OK)
            continue; /* cannot happen: the candidates are well-formed */
        reply r;
        get(&ep, "/", NULL, 0.5, &r);
        tc_buf_free(&r.body);
        if (r.status != 0) {
            *out = ep;
            return TC_OK;
        }
    }
    return tc_fail(err, errlen, TC_ERR_NET,
                   "no URL given and no local inference server answered on 127.0.0.1 "
                   "(tried Ollama :11434, vLLM :8000, llama.cpp :8080, SGLang :30000); start "
                   "one, or give its URL: truecost run http://HOST:PORT");
}

#define LISTED_MODELS 10

/* The first few models, and how many more there are. */
static void list_models(const tc_probe *p, char *err, size_t errlen, size_t used)
{
    int shown = p->n_models < LISTED_MODELS ? p->n_models : LISTED_MODELS;
    for (int i = 0; i < shown && used < errlen; i++) {
        int n = snprintf(err + used, errlen - used, "%s%s", i ? ", " : "", p->models[i]);
        if (n < 0)
            return;
        used += (size_t)n;
    }
    if (shown < p->n_models && used < errlen)
        snprintf(err + used, errlen - used, ", ... and %d more (%d in all)", p->n_models - shown,
                 p->n_models);
}

tc_err tc_probe_pick_model(const tc_probe *p, const char *wanted, char *out, size_t outlen,
                           char *err, size_t errlen)
{
    if (wanted) {
        char latest[300];
        snprintf(latest, sizeof latest, "%s:latest", wanted);
        for (int i = 0; i < p->n_models; i++)
            if (strcmp(p->models[i], wanted) == 0 || strcmp(p->models[i], latest) == 0) {
                snprintf(out, outlen, "%s", p->models[i]);
                return TC_OK;
            }
        if (p->n_models == 0) {
            snprintf(out, outlen, "%s", wanted);
            return TC_OK;
        }
        int n = snprintf(err, errlen, "the server has no model '%s'; available: ", wanted);
        list_models(p, err, errlen, n > 0 ? (size_t)n : 0);
        return TC_ERR_NOTFOUND;
    }
    if (p->n_models == 1) {
        snprintf(out, outlen, "%s", p->models[0]);
        return TC_OK;
    }
    if (p->n_models == 0)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "the server lists no models; name one with --model");
    int n =
        snprintf(err, errlen, "the server has %d models; choose one with --model: ", p->n_models);
    list_models(p, err, errlen, n > 0 ? (size_t)n : 0);
    return TC_ERR_INVALID;
}
