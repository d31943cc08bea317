/* Synthetic prompts of a chosen length (run --isl): words drawn from a
 * fixed vocabulary of common English words, one token each in the usual
 * tokenisers, so a server counts them stably. The text is deterministic
 * from the seed and the request's number, and each request draws from its
 * own stream, so requests differ from their first words on: a server's
 * prefix cache does not turn every request into a hit.
 *
 * How many words make N tokens is the server's business (its tokeniser,
 * its chat template): a calibration (bench_calib.h) measures the server's
 * tokens per word and the tokens it adds to every prompt, and the
 * generator sizes each prompt by it. */
#ifndef TC_BENCH_SYNTH_H
#define TC_BENCH_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_buf.h"
#include "core/tc_error.h"

/* The server's count of a prompt of W generated words is taken to be
 * overhead + tokens_per_word * W. */
typedef struct tc_synth_calib {
    double tokens_per_word; /* > 0 */
    double overhead;        /* tokens added to every prompt: BOS, the chat template */
} tc_synth_calib;

typedef struct tc_synth {
    uint64_t seed;
    int64_t isl;      /* target prompt tokens: the top of the range */
    double isl_range; /* the bottom of the range as a fraction of isl, in (0, 1] */
    int64_t osl;      /* output tokens asked for (the token limit) */
    int ignore_eos;   /* the requests ask the server to ignore EOS */
    tc_synth_calib calib;
} tc_synth;

/* The workload presets InferenceX uses: chat (1k/1k), reasoning (1k/8k),
 * summarize (8k/1k). The array ends with a NULL name. */
typedef struct tc_synth_preset {
    const char *name;
    int64_t isl, osl;
} tc_synth_preset;
extern const tc_synth_preset tc_synth_presets[];

/* The preset called name, or NULL. */
const tc_synth_preset *tc_synth_preset_find(const char *name);

/* Words in the vocabulary. */
size_t tc_synth_vocab_size(void);

/* The lowest target: ceil(isl_range * isl), at least 1. */
int64_t tc_synth_isl_min(const tc_synth *s);

/* Request seq's target prompt tokens: uniform over the integers from
 * tc_synth_isl_min to isl, fixed by (seed, seq). */
int64_t tc_synth_target(const tc_synth *s, int64_t seq);

/* The words that make `tokens` prompt tokens under c: the nearest whole
 * number, at least 1. */
int64_t tc_synth_words(const tc_synth_calib *c, int64_t tokens);

/* Writes `words` words (single spaces between them; none when words < 1)
 * of text number seq under seed into out, reset first. Any seq is valid; calibration probes
 * use negative ones, so they never repeat a request's text. TC_OK or
 * TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_synth_text(uint64_t seed, int64_t seq, int64_t words, tc_buf *out);

/* Request seq's prompt: tc_synth_text of the words for its target. */
TC_MUST_CHECK tc_err tc_synth_prompt(const tc_synth *s, int64_t seq, tc_buf *out);

#endif
