/* Deterministic text for the simulator: the pseudo-words it "generates" and
 * the rule by which it counts prompt tokens. */
#ifndef TC_SIM_TEXT_H
#define TC_SIM_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* Longest token text tc_sim_token_text writes, including the NUL. */
#define TC_SIM_TOKEN_MAX 16

/* Writes token `index` of the completion for a prompt with hash
 * `prompt_hash` under `seed` into buf (>= TC_SIM_TOKEN_MAX bytes): a
 * pseudo-word of 1-3 syllables, with a leading space on every token but the
 * first. The same (seed, prompt, index) always gives the same text, so the
 * same prompt at temperature 0 gives the same completion, as on a real
 * server. Returns the length written. */
size_t tc_sim_token_text(uint64_t seed, uint64_t prompt_hash, int index, char *buf);

/* Prompt tokens of a plain prompt: whitespace-separated words + 1 (BOS). */
int tc_sim_count_prompt_tokens(const char *text, size_t len);

/* Tokens of `words` words at tokens_per_word each, rounded to the
 * nearest: the simulator's tokeniser, a fixed rule (--tokens-per-word). */
int tc_sim_scale_words(int words, double tokens_per_word);

/* Extra tokens per chat message (role and template markers). A chat prompt
 * counts 1 + sum over messages of (words of content + this). */
#define TC_SIM_CHAT_MESSAGE_OVERHEAD 4

/* Whitespace-separated words in text. */
int tc_sim_count_words(const char *text, size_t len);

#endif
