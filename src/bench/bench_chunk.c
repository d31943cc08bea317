#include "bench_chunk.h"

#include <math.h>
#include <string.h>

/* Every key is looked up in a small table per object kind. */
typedef struct key {
    const char *name;
    size_t len;
    int id;
} key;

/* clang-format off */
#define KEY(s, id) {s, sizeof s - 1, id}
/* clang-format on */
#define N_KEYS(k) (sizeof k / sizeof k[0])

/* Lengths first: most keys are rejected without touching their bytes. */
static int key_id(const tc_jstr *k, const key *keys, size_t n)
{
    if (k->escaped)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (keys[i].len == k->n && memcmp(keys[i].name, k->s, k->n) == 0)
            return keys[i].id;
    return -1;
}

/* A string sets *flag when non-empty; any other value is skipped. */
static int read_text(tc_jscan *c, int *flag)
{
    tc_jstr s;
    if (!tc_jscan_peek(c, '"'))
        return tc_jscan_value(c);
    if (tc_jscan_string(c, &s) < 0)
        return -1;
    *flag |= s.n > 0;
    return 0;
}

static int read_str(tc_jscan *c, tc_jstr *out)
{
    return tc_jscan_peek(c, '"') ? tc_jscan_string(c, out) : tc_jscan_value(c);
}

/* A count is a non-negative whole number; anything else is ignored. */
static int read_count(tc_jscan *c, tc_chunk *f, int slot)
{
    tc_jnum n;
    if (!tc_jscan_is_number(c))
        return tc_jscan_value(c);
    if (tc_jscan_number(c, &n) < 0)
        return -1;
    if (n.is_count) {
        f->num[slot] = n.i;
        f->has_num |= 1u << slot;
    }
    return 0;
}

static int read_bool(tc_jscan *c, int *out)
{
    *out = tc_jscan_peek(c, 't');
    return tc_jscan_value(c);
}

/* Ollama chat's message, OpenAI's delta and message. */
static int on_message(tc_jscan *c, const tc_jstr *k, void *flag)
{
    static const key keys[] = {KEY("content", 0), KEY("thinking", 0), KEY("reasoning_content", 0),
                               KEY("reasoning", 0)};
    return key_id(k, keys, N_KEYS(keys)) == 0 ? read_text(c, flag) : tc_jscan_value(c);
}

static int on_choice_member(tc_jscan *c, const tc_jstr *k, void *ctx)
{
    static const key keys[] = {KEY("text", 0), KEY("delta", 1), KEY("message", 1)};
    int *flag = &((tc_chunk *)ctx)->text_oai;
    switch (key_id(k, keys, N_KEYS(keys))) {
    case 0:
        return read_text(c, flag);
    case 1:
        return tc_jscan_peek(c, '{') ? tc_jscan_object(c, on_message, flag) : tc_jscan_value(c);
    default:
        return tc_jscan_value(c);
    }
}

static int on_choice(tc_jscan *c, void *ctx)
{
    return tc_jscan_peek(c, '{') ? tc_jscan_object(c, on_choice_member, ctx) : tc_jscan_value(c);
}

static int on_usage(tc_jscan *c, const tc_jstr *k, void *ctx)
{
    static const key keys[] = {KEY("prompt_tokens", TC_CHUNK_USAGE_PROMPT),
                               KEY("completion_tokens", TC_CHUNK_USAGE_COMPLETION)};
    int id = key_id(k, keys, N_KEYS(keys));
    return id < 0 ? tc_jscan_value(c) : read_count(c, ctx, id);
}

enum { DBL = 100 }; /* key ids from DBL on name dbl[] slots */

static int on_timings(tc_jscan *c, const tc_jstr *k, void *ctx)
{
    static const key keys[] = {KEY("prompt_n", TC_CHUNK_PROMPT_N),
                               KEY("predicted_n", TC_CHUNK_PREDICTED_N),
                               KEY("prompt_ms", DBL + TC_CHUNK_PROMPT_MS),
                               KEY("predicted_ms", DBL + TC_CHUNK_PREDICTED_MS),
                               KEY("predicted_per_second", DBL + TC_CHUNK_PREDICTED_PER_SECOND)};
    tc_chunk *f = ctx;
    tc_jnum n;
    int id = key_id(k, keys, N_KEYS(keys));
    if (id < DBL)
        return id < 0 ? tc_jscan_value(c) : read_count(c, f, id);
    if (!tc_jscan_is_number(c))
        return tc_jscan_value(c);
    if (tc_jscan_number(c, &n) < 0)
        return -1;
    f->dbl[id - DBL] = isfinite(n.d) ? n.d : 0;
    return 0;
}

static int on_error_member(tc_jscan *c, const tc_jstr *k, void *ctx)
{
    static const key keys[] = {KEY("message", 0), KEY("type", 1)};
    tc_chunk *f = ctx;
    switch (key_id(k, keys, N_KEYS(keys))) {
    case 0:
        return read_str(c, &f->error_msg);
    case 1:
        return read_str(c, &f->error_type);
    default:
        return tc_jscan_value(c);
    }
}

/* "error": "text" (Ollama, TGI) or {message, type, ...} (OpenAI). */
static int read_error(tc_jscan *c, tc_chunk *f)
{
    f->error = !tc_jscan_peek(c, 'n') && !tc_jscan_peek(c, 'f');
    if (tc_jscan_peek(c, '{'))
        return tc_jscan_object(c, on_error_member, f);
    return read_str(c, &f->error_msg);
}

enum {
    K_OLLAMA_TEXT = DBL,
    K_MESSAGE,
    K_CONTENT,
    K_DONE,
    K_STOP,
    K_CHOICES,
    K_USAGE,
    K_TIMINGS,
    K_ERROR,
    K_OBJECT
};

static const key top_keys[] = {KEY("response", K_OLLAMA_TEXT),
                               KEY("thinking", K_OLLAMA_TEXT),
                               KEY("message", K_MESSAGE),
                               KEY("content", K_CONTENT),
                               KEY("done", K_DONE),
                               KEY("stop", K_STOP),
                               KEY("choices", K_CHOICES),
                               KEY("usage", K_USAGE),
                               KEY("timings", K_TIMINGS),
                               KEY("error", K_ERROR),
                               KEY("object", K_OBJECT),
                               KEY("total_duration", TC_CHUNK_TOTAL_NS),
                               KEY("load_duration", TC_CHUNK_LOAD_NS),
                               KEY("prompt_eval_duration", TC_CHUNK_PROMPT_EVAL_NS),
                               KEY("eval_duration", TC_CHUNK_EVAL_NS),
                               KEY("prompt_eval_count", TC_CHUNK_PROMPT_EVAL_COUNT),
                               KEY("eval_count", TC_CHUNK_EVAL_COUNT),
                               KEY("tokens_predicted", TC_CHUNK_TOKENS_PREDICTED),
                               KEY("tokens_evaluated", TC_CHUNK_TOKENS_EVALUATED)};

static int on_top_nested(tc_jscan *c, int id, tc_chunk *f)
{
    tc_jstr s = {0};
    switch (id) {
    case K_MESSAGE: /* Ollama chat's message, or an error's text (older vLLM) */
        if (tc_jscan_peek(c, '{'))
            return tc_jscan_object(c, on_message, &f->text_ollama);
        return read_str(c, &f->top_msg);
    case K_CHOICES:
        return tc_jscan_peek(c, '[') ? tc_jscan_array(c, on_choice, f) : tc_jscan_value(c);
    case K_USAGE: /* null in every chunk but the usage chunk, as OpenAI sends it */
        return tc_jscan_peek(c, '{') ? tc_jscan_object(c, on_usage, f) : tc_jscan_value(c);
    case K_TIMINGS:
        f->has_timings |= tc_jscan_peek(c, '{');
        return tc_jscan_peek(c, '{') ? tc_jscan_object(c, on_timings, f) : tc_jscan_value(c);
    case K_ERROR:
        return read_error(c, f);
    default: /* K_OBJECT */
        if (read_str(c, &s) < 0)
            return -1;
        f->error_object |= tc_jscan_key_is(&s, "error", 5);
        return 0;
    }
}

static int on_top(tc_jscan *c, const tc_jstr *k, void *ctx)
{
    tc_chunk *f = ctx;
    int id = key_id(k, top_keys, N_KEYS(top_keys));
    if (id < 0)
        return tc_jscan_value(c);
    if (id < TC_CHUNK_NUM_COUNT)
        return read_count(c, f, id);
    switch (id) {
    case K_OLLAMA_TEXT:
        return read_text(c, &f->text_ollama);
    case K_CONTENT:
        return read_text(c, &f->text_llama);
    case K_DONE:
        return read_bool(c, &f->done);
    case K_STOP:
        return read_bool(c, &f->stop);
    default:
        return on_top_nested(c, id, f);
    }
}

int tc_chunk_scan(const char *doc, size_t len, tc_chunk *out, tc_jscan *c)
{
    memset(out, 0, sizeof *out);
    tc_jscan_init(c, doc, len);
    return tc_jscan_doc(c, on_top, out, &out->is_object);
}

int64_t tc_chunk_num(const tc_chunk *k, enum tc_chunk_num slot)
{
    return tc_chunk_has(k, slot) ? k->num[slot] : 0;
}

int tc_chunk_has(const tc_chunk *k, enum tc_chunk_num slot)
{
    return (k->has_num >> slot & 1u) != 0;
}
