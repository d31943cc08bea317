/* Finding and recognising an inference server before a run: which local
 * server answers, which API it speaks, its models and version, and whether
 * it is truecost's simulator. Short timeouts; nothing here streams. */
#ifndef TC_BENCH_PROBE_H
#define TC_BENCH_PROBE_H

#include <stddef.h>

#include "record/record.h"
#include "bench_url.h"
#include "core/tc_error.h"

typedef enum tc_server_kind {
    TC_SERVER_OLLAMA,   /* speaks ollama, ollama-chat, openai, openai-chat */
    TC_SERVER_LLAMACPP, /* speaks llamacpp, openai, openai-chat */
    TC_SERVER_OPENAI    /* vLLM, SGLang, TGI, hosted: openai, openai-chat */
} tc_server_kind;

/* The APIs a server answered for, as bits (1 << tc_api of the family). */
#define TC_PROBE_OLLAMA 1u   /* GET /api/version answered */
#define TC_PROBE_LLAMACPP 2u /* GET /health and /props answered */
#define TC_PROBE_OPENAI 4u   /* GET /v1/models answered */

typedef struct tc_probe {
    tc_server_kind kind;     /* the first family recognised, in the order above */
    unsigned speaks;         /* TC_PROBE_* bits */
    int simulated;           /* answered with x-truecost-simulated: 1 */
    char server_version[64]; /* "" when the server does not say */
    char **models;           /* every model the server lists, as it spells them; owned */
    int n_models;
} tc_probe;

/* Frees the model list and zeroes *p; accepts NULL. */
void tc_probe_free(tc_probe *p);

/* "Ollama", "llama.cpp server", "OpenAI-compatible server". */
const char *tc_server_kind_name(tc_server_kind kind);

/* The API a run uses on such a server when --api is auto. */
tc_api tc_server_default_api(tc_server_kind kind);

/* 1 when the probed server answered for the family of `api`. */
int tc_probe_speaks(const tc_probe *p, tc_api api);

/* Tries the usual local servers on 127.0.0.1 (Ollama 11434, vLLM 8000,
 * llama.cpp 8080, SGLang 30000) and fills *out with the first that answers
 * HTTP. TC_ERR_NET when none does, with what was tried in err. */
TC_MUST_CHECK tc_err tc_probe_find_local(tc_endpoint *out, char *err, size_t errlen);

/* Recognises the server at `ep`: GET /api/version (Ollama), GET /health +
 * /props (llama.cpp), GET /v1/models (OpenAI-style), in that order.
 * TC_ERR_NET: nothing answers (err says what to check); TC_ERR_NOTFOUND:
 * it answers HTTP but is not an inference server. `api_key` (may be NULL)
 * is sent as a Bearer token and never kept. Free *out with tc_probe_free
 * (also after an error). */
TC_MUST_CHECK tc_err tc_probe_server(const tc_endpoint *ep, const char *api_key, double timeout_s,
                                     tc_probe *out, char *err, size_t errlen);

/* Picks the model: `wanted` when the server has it (Ollama's ":latest" tag
 * may be left off), the only one when wanted is NULL and there is one.
 * Writes the chosen name into out. TC_ERR_NOTFOUND / TC_ERR_INVALID with
 * the list of available models in err. A server that lists no models
 * accepts `wanted` as it is. */
TC_MUST_CHECK tc_err tc_probe_pick_model(const tc_probe *p, const char *wanted, char *out,
                                         size_t outlen, char *err, size_t errlen);

#endif
