/* Calibrating synthetic prompts (run --isl) against the server's own
 * count, before the run: two probe prompts of known word counts, and the
 * prompt tokens the server reports for each, give its tokens per word and
 * the tokens it adds to every prompt (BOS, a chat template), so the
 * prompts sent are sized as the server counts them. The count comes from
 * the run's own API (usage.prompt_tokens, Ollama's prompt_eval_count,
 * llama.cpp's tokens_evaluated) with a 1-token reply, or from llama.cpp's
 * POST /tokenize where it answers. Blocking; short requests only. */
#ifndef TC_BENCH_CALIB_H
#define TC_BENCH_CALIB_H

#include <stddef.h>
#include <stdint.h>

#include "bench_probe.h"
#include "bench_synth.h"
#include "bench_url.h"
#include "core/tc_error.h"
#include "record/record.h"

typedef struct tc_calib_config {
    tc_endpoint endpoint;
    tc_api api;
    const char *model;
    const char *api_key; /* Bearer token, or NULL; never kept */
    double timeout_s;    /* per probe */
    uint64_t seed;       /* the probes' texts are the generator's, under this seed */
    int64_t words[2];    /* the probes' sizes, words[0] < words[1] */
    int tokenize;        /* ask POST /tokenize (llama.cpp) first */
    int ignore_eos;      /* the probes carry ignore_eos, as the run's requests will */
} tc_calib_config;

typedef struct tc_calib_result {
    tc_synth_calib calib;
    char source[32]; /* "usage.prompt_tokens", "prompt_eval_count", "tokens_evaluated", "/tokenize"
                      */
    int64_t words[2], tokens[2]; /* each probe: its words and the server's count */
    /* The server answered a probe with ignore_eos with an HTTP error and
     * the same probe without it with a reply: the run must leave it out.
     * refusal holds what the server said. */
    int eos_refused;
    char refusal[200];
} tc_calib_result;

/* Probe sizes for a target of isl tokens: about isl words (32 to 4096)
 * and an eighth of that (at least 8). */
void tc_calib_probe_words(int64_t isl, int64_t words[2]);

/* Calibrates against the server of cfg. TC_OK with the result in *out;
 * TC_ERR_NET / TC_ERR_INVALID with the reason in err (the server is
 * unreachable, refused a probe, or reported no prompt count, or a count
 * that does not grow with the prompt). */
TC_MUST_CHECK tc_err tc_calib_run(const tc_calib_config *cfg, tc_calib_result *out, char *err,
                                  size_t errlen);

/* Whether a run's requests may ask the server p (speaking api) to ignore
 * EOS: 1 for the OpenAI and llama.cpp APIs of llama.cpp, OpenAI-style
 * servers (vLLM, SGLang; a hosted API that refuses it is found by the
 * calibration's probes) and the simulator; else 0, with what to tell the
 * user in note ("Ollama: ignore_eos not supported; ..."). */
int tc_calib_eos_supported(const tc_probe *p, tc_api api, char *note, size_t len);

#endif
