/* The workload's prompts: one fixed prompt, or a file of them that
 * requests cycle through in order. */
#ifndef TC_BENCH_PROMPTS_H
#define TC_BENCH_PROMPTS_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_error.h"

typedef struct tc_prompt {
    char *text;          /* a plain prompt, or NULL */
    char *messages_json; /* a JSON array of {role, content}, or NULL */
    int64_t max_tokens;  /* 0 = the run's --max-tokens */
} tc_prompt;

typedef struct tc_prompts {
    tc_prompt *items;
    size_t n;
} tc_prompts;

/* The seeds' default prompt, in English. */
#define TC_DEFAULT_PROMPT "Explain in one sentence what cost efficiency is."

/* One prompt from text. */
TC_MUST_CHECK tc_err tc_prompts_single(const char *text, tc_prompts *out);

/* Parses a prompts file held in memory: plain text, one prompt per
 * non-empty line; or JSONL (detected by a first non-blank character '{'),
 * one {"prompt": "..."} or {"messages": [...]} object per line, each with
 * an optional integer "max_tokens". `name` is used in errors, which read
 * "NAME:LINE: reason". */
TC_MUST_CHECK tc_err tc_prompts_parse(const char *name, const char *data, size_t len,
                                      tc_prompts *out, char *err, size_t errlen);

/* Reads and parses a prompts file. */
TC_MUST_CHECK tc_err tc_prompts_load(const char *path, tc_prompts *out, char *err, size_t errlen);

/* Frees every prompt and zeroes *p; accepts NULL. */
void tc_prompts_free(tc_prompts *p);

#endif
