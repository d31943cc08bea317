/* Request bodies and routes of each API, for one prompt of the workload. */
#ifndef TC_BENCH_BODY_H
#define TC_BENCH_BODY_H

#include <stdint.h>

#include "bench_prompts.h"
#include "record/record.h"
#include "core/tc_buf.h"

/* The POST path of `api` ("/api/generate", "/v1/chat/completions", ...). */
const char *tc_body_route(tc_api api);

/* 1 when the API's requests carry chat messages. */
int tc_body_is_chat(tc_api api);

/* Writes the streaming request body for `prompt` into out (reset first):
 * temperature 0, the token limit in the API's own field, and for OpenAI
 * routes stream_options.include_usage so the server reports its counts,
 * and ignore_eos: true when the prompt asks for it (not on Ollama's
 * routes, which have no such option).
 * A plain prompt becomes one user message on chat APIs; messages become
 * "role: content" lines on completion APIs. Returns TC_OK or
 * TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_body_build(tc_api api, const char *model, const tc_prompt *prompt,
                                   int64_t max_tokens, tc_buf *out);

#endif
