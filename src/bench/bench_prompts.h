/* The workload's prompts: one fixed prompt, a file of them that requests
 * cycle through in order, or synthetic prompts of a chosen length
 * (bench_synth.h), made per request. */
#ifndef TC_BENCH_PROMPTS_H
#define TC_BENCH_PROMPTS_H

#include <stddef.h>
#include <stdint.h>

#include "bench_synth.h"
#include "core/tc_buf.h"
#include "core/tc_error.h"

typedef struct tc_prompt {
    char *text;          /* a plain prompt, or NULL */
    char *messages_json; /* a JSON array of {role, content}, or NULL */
    int64_t max_tokens;  /* 0 = the run's --max-tokens */
    int ignore_eos;      /* ask the server to ignore EOS (OpenAI and llama.cpp APIs) */
} tc_prompt;

typedef struct tc_prompts {
    tc_prompt *items;
    size_t n;
    int synthetic; /* 1: no items; each request's prompt is made from synth */
    tc_synth synth;
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

/* Synthetic prompts of s (copied). */
void tc_prompts_synthetic(const tc_synth *s, tc_prompts *out);

/* 1 when p has no prompt to send (NULL, or no items and not synthetic). */
int tc_prompts_empty(const tc_prompts *p);

/* The prompt of request seq (from 0): items[seq % n], or for synthetic
 * prompts one made in *scratch, its text in *text (reset and reused, so a
 * client allocates nothing per request once it has grown), valid until
 * the next call. NULL when out of memory. */
const tc_prompt *tc_prompts_at(const tc_prompts *p, int64_t seq, tc_prompt *scratch, tc_buf *text);

/* Keeps prompts i, i + n, i + 2n, ... (i from 0) and frees the others,
 * so n shards of one workload send the prompts between them; nothing
 * changes with fewer than n prompts (each shard sends them all) or
 * synthetic ones. */
void tc_prompts_stride(tc_prompts *p, size_t i, size_t n);

/* Frees every prompt and zeroes *p; accepts NULL. */
void tc_prompts_free(tc_prompts *p);

#endif
