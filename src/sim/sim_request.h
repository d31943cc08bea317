/* Parsing of the inference requests the simulator accepts. Takes the body
 * as bytes, so tests and the fuzzer feed it directly. */
#ifndef TC_SIM_REQUEST_H
#define TC_SIM_REQUEST_H

#include <stddef.h>
#include <stdint.h>

typedef enum tc_sim_route {
    TC_ROUTE_OLLAMA_GENERATE, /* POST /api/generate */
    TC_ROUTE_OLLAMA_CHAT,     /* POST /api/chat */
    TC_ROUTE_OAI_COMPLETIONS, /* POST /v1/completions */
    TC_ROUTE_OAI_CHAT,        /* POST /v1/chat/completions */
    TC_ROUTE_LLAMA_COMPLETION /* POST /completion (llama.cpp native) */
} tc_sim_route;

#define TC_SIM_DEFAULT_MAX_TOKENS 128
#define TC_SIM_MAX_TOKENS_LIMIT 1000000
#define TC_SIM_MODEL_NAME_MAX 256

typedef struct tc_sim_request {
    tc_sim_route route;
    int prompt_tokens; /* at one token per word (tc_sim_scale_prompt scales it) */
    int prompt_words;  /* of the prompt text, the part tokens_per_word scales */
    int max_tokens;
    int ignore_eos;    /* the body asked to ignore EOS (honoured off Ollama's routes) */
    int eos;           /* the reply ends at the model's EOS before max_tokens */
    int stream;        /* 1: streamed response */
    int include_usage; /* OpenAI stream_options.include_usage */
    int load_only;     /* Ollama: empty prompt / no messages = load the model */
    uint64_t prompt_hash;
    /* Last: every token reads the fields above, never the name. */
    char model[TC_SIM_MODEL_NAME_MAX]; /* "" when the body names none */
} tc_sim_request;

/* The route's path, e.g. "/api/generate". */
const char *tc_sim_route_path(tc_sim_route route);

/* Counts the prompt at tokens_per_word tokens per word of its text (the
 * template's tokens stay as they are), rounded to the nearest. */
void tc_sim_scale_prompt(tc_sim_request *rq, double tokens_per_word);

/* Parses `len` bytes of JSON body for `route` into out. Returns 0, or the
 * HTTP status to answer (400) with a message naming the field in err. */
int tc_sim_request_parse(tc_sim_route route, const char *body, size_t len, tc_sim_request *out,
                         char *err, size_t errlen);

#endif
