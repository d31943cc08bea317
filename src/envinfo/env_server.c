/* The server part of the fingerprint: what answers at the URL (kind,
 * version, API, models, via bench/'s probe) and, for Ollama, the details
 * of the model (/api/show: family, parameters, quantisation, context;
 * /api/ps: size and size in VRAM while loaded). */
#include <curl/curl.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_probe.h"
#include "core/tc_buf.h"
#include "env_internal.h"

static size_t on_body(char *data, size_t size, size_t nmemb, void *userp)
{
    tc_buf *b = userp;
    size_t n = size * nmemb;
    if (b->len < (1u << 22)) /* /api/show carries the whole template: 4 MiB is plenty */
        tc_buf_append(b, data, n);
    return n;
}

/* GET (body NULL) or POST a JSON body; the reply parsed when it is 200 and
 * JSON, else NULL. */
static json_t *http_json(const tc_endpoint *ep, const char *path, const char *body,
                         const tc_env_config *cfg)
{
    char url[640];
    tc_buf reply = {0}, auth = {0};
    json_t *doc = NULL;
    long status = 0;
    struct curl_slist *h = NULL;
    CURL *c = curl_easy_init();
    if (!c)
        return NULL;
    if (cfg->api_key && *cfg->api_key) {
        tc_buf_printf(&auth, "Authorization: Bearer %s", cfg->api_key);
        h = curl_slist_append(h, auth.data ? auth.data : "");
    }
    if (body)
        h = curl_slist_append(h, "Content-Type: application/json");
    curl_easy_setopt(c, CURLOPT_URL, tc_endpoint_url(ep, path, url, sizeof url));
    curl_easy_setopt(c, CURLOPT_HTTPHEADER, h);
    if (body)
        curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, &reply);
    curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(cfg->timeout_s * 1000));
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    if (curl_easy_perform(c) == CURLE_OK)
        curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
    if (status == 200 && reply.data)
        doc = json_loadb(reply.data, reply.len, 0, NULL);
    if (auth.data)
        memset(auth.data, 0, auth.len); /* the key is never kept */
    for (struct curl_slist *i = h; i; i = i->next)
        memset(i->data, 0, strlen(i->data));
    curl_slist_free_all(h);
    curl_easy_cleanup(c);
    tc_buf_free(&auth);
    tc_buf_free(&reply);
    return doc;
}

static json_t *str_of(json_t *obj, const char *key)
{
    return tc_env_str(json_string_value(json_object_get(obj, key)));
}

static json_t *int_of(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    return json_is_integer(v) && json_integer_value(v) > 0 ? json_integer(json_integer_value(v))
                                                           : json_null();
}

/* The /api/ps entry of the model, borrowed from ps, or NULL. */
static json_t *ps_entry(json_t *ps, const char *name)
{
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(ps, "models"), i, m)
    {
        const char *n = json_string_value(json_object_get(m, "name"));
        if (n && strcmp(n, name) == 0)
            return m;
    }
    return NULL;
}

/* "<architecture>.context_length" of /api/show's model_info. */
static json_t *trained_context(json_t *show)
{
    json_t *info = json_object_get(show, "model_info");
    const char *arch = json_string_value(json_object_get(info, "general.architecture"));
    char key[128];
    if (!arch)
        return json_null();
    snprintf(key, sizeof key, "%s.context_length", arch);
    return int_of(info, key);
}

/* The context a loaded model runs with (/api/ps) is what changes results;
 * before it is loaded, the model's own (/api/show) is all there is. */
static json_t *ollama_model(const tc_endpoint *ep, const tc_env_config *cfg, const char *name,
                            json_t *ps)
{
    json_t *req = json_pack("{s:s}", "model", name);
    char *body = req ? json_dumps(req, JSON_COMPACT) : NULL;
    json_t *show = body ? http_json(ep, "/api/show", body, cfg) : NULL;
    free(body);
    json_decref(req);
    json_t *details = json_object_get(show, "details");
    json_t *loaded = ps_entry(ps, name);
    json_t *ctx = loaded ? int_of(loaded, "context_length") : json_null();
    if (json_is_null(ctx)) {
        json_decref(ctx);
        ctx = trained_context(show);
    }
    json_t *m = json_pack(
        "{s:s, s:o, s:o, s:o, s:o, s:o, s:o, s:b}", "name", name, "family",
        str_of(details, "family"), "parameter_size", str_of(details, "parameter_size"),
        "quantization_level", str_of(details, "quantization_level"), "context_length", ctx,
        "size_bytes", loaded ? int_of(loaded, "size") : json_null(), "size_vram_bytes",
        loaded ? int_of(loaded, "size_vram") : json_null(), "loaded", loaded != NULL);
    json_decref(show);
    return m;
}

static json_t *bare_model(const char *name)
{
    return json_pack("{s:s, s:n, s:n, s:n, s:n, s:n, s:n, s:n}", "name", name, "family",
                     "parameter_size", "quantization_level", "context_length", "size_bytes",
                     "size_vram_bytes", "loaded");
}

/* Which model to describe: the one asked for, else the one Ollama has
 * loaded, else the only one. NULL name with TC_OK: none can be chosen. */
static tc_err choose_model(const tc_probe *p, const tc_env_config *cfg, json_t *ps, char *out,
                           size_t len, char *err, size_t errlen)
{
    out[0] = '\0';
    if (cfg->model)
        return tc_probe_pick_model(p, cfg->model, out, len, err, errlen);
    const char *loaded = json_string_value(
        json_object_get(json_array_get(json_object_get(ps, "models"), 0), "name"));
    if (loaded) {
        snprintf(out, len, "%s", loaded);
        return TC_OK;
    }
    if (tc_probe_pick_model(p, NULL, out, len, NULL, 0) != TC_OK)
        out[0] = '\0'; /* several and none loaded: not knowing is no error */
    return TC_OK;
}

static json_t *server_object(const tc_endpoint *ep, const tc_probe *p, json_t *model)
{
    json_t *models = json_array();
    for (int i = 0; models && i < p->n_models; i++)
        json_array_append_new(models, json_string(p->models[i]));
    return json_pack("{s:s, s:s, s:o, s:s, s:b, s:o, s:o}", "url", ep->stored, "kind",
                     tc_server_kind_name(p->kind), "version", tc_env_str(p->server_version), "api",
                     tc_api_name(tc_server_default_api(p->kind)), "simulated", p->simulated,
                     "models", models, "model", model);
}

static tc_err describe(const tc_endpoint *ep, const tc_env_config *cfg, const tc_probe *p,
                       json_t **out, char *err, size_t errlen)
{
    char name[256];
    json_t *model = NULL;
    json_t *ps = p->kind == TC_SERVER_OLLAMA ? http_json(ep, "/api/ps", NULL, cfg) : NULL;
    tc_err rc = choose_model(p, cfg, ps, name, sizeof name, err, errlen);
    if (rc != TC_OK)
        goto done;
    model = !name[0]                      ? json_null()
            : p->kind == TC_SERVER_OLLAMA ? ollama_model(ep, cfg, name, ps)
                                          : bare_model(name);
    *out = model ? server_object(ep, p, model) : NULL;
    rc = *out ? TC_OK : TC_ERR_NOMEM;
done:
    json_decref(ps);
    return rc;
}

tc_err tc_env_server(const tc_env_config *cfg, json_t **out, char *err, size_t errlen)
{
    tc_endpoint ep;
    tc_probe *p = NULL;
    tc_err rc = TC_OK;
    *out = NULL;
    if (cfg->url)
        rc = tc_endpoint_parse(cfg->url, &ep, err, errlen);
    else if (!cfg->find_local || tc_probe_find_local(&ep, NULL, 0) != TC_OK)
        goto none; /* nothing asked for, or nothing local answers */
    if (rc != TC_OK)
        return rc;
    p = calloc(1, sizeof *p);
    if (!p)
        return TC_ERR_NOMEM;
    rc = tc_probe_server(&ep, cfg->api_key, cfg->timeout_s, p, err, errlen);
    if (rc == TC_OK)
        rc = describe(&ep, cfg, p, out, err, errlen);
    else if (!cfg->url)
        rc = TC_OK; /* a local port that answers but is no inference server */
    tc_probe_free(p);
    free(p);
    if (rc != TC_OK || *out)
        return rc;
none:
    *out = json_null();
    return TC_OK;
}
