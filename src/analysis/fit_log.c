/* The memory lines of llama.cpp's and vLLM's logs (fit_log.h lists them). */
#define _GNU_SOURCE /* memmem */
#include "fit_log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tc_fit_log_engine_name(tc_fit_log_engine e)
{
    return e == TC_FIT_LOG_LLAMACPP ? "llama.cpp" : e == TC_FIT_LOG_VLLM ? "vllm" : "none";
}

/* ---- numbers and units ---------------------------------------------------- */

static const char *skip_spaces(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* "412,368" or "3577.56" at p: 0 and *v, *after; -1 when there is none. */
static int number_at(const char *p, const char *e, double *v, const char **after)
{
    char buf[48];
    size_t n = 0;
    int digits = 0;
    p = skip_spaces(p, e);
    for (; p < e && n + 1 < sizeof buf; p++) {
        if (*p >= '0' && *p <= '9')
            digits++;
        else if (*p == ',' && digits)
            continue; /* thousands */
        else if (*p != '.')
            break;
        buf[n++] = *p;
    }
    buf[n] = '\0';
    if (!digits)
        return -1;
    char *end;
    *v = strtod(buf, &end);
    *after = p;
    /* Beyond 10^15 (MiB, tokens) no engine printed it: not a memory line,
     * and no count to hold in 64 bits. */
    return *end || !(*v <= 1e15) ? -1 : 0;
}

/* The bytes of one unit at p (GiB, MiB, KiB, GB, MB, KB, B); 0 none.
 * `gb_binary`: vLLM divides by 2^30 even where it prints "GB". */
static double unit_at(const char *p, const char *e, int gb_binary)
{
    static const struct {
        const char *u;
        double dec, bin;
    } U[] = {
        {"GiB", 1073741824.0, 1073741824.0}, {"MiB", 1048576.0, 1048576.0}, {"KiB", 1024.0, 1024.0},
        {"GB", 1e9, 1073741824.0},           {"MB", 1e6, 1048576.0},        {"KB", 1e3, 1024.0}};
    p = skip_spaces(p, e);
    for (size_t i = 0; i < sizeof U / sizeof U[0]; i++) {
        size_t n = strlen(U[i].u);
        if ((size_t)(e - p) >= n && memcmp(p, U[i].u, n) == 0)
            return gb_binary ? U[i].bin : U[i].dec;
    }
    return 0;
}

/* The amount after `pat` in [s, e): bytes into *v. 0, or -1 when the line
 * has no such amount. */
static int amount_after(const char *s, const char *e, const char *pat, int gb_binary, double *v)
{
    size_t n = strlen(pat);
    const char *q = memmem(s, (size_t)(e - s), pat, n);
    double x, unit;
    const char *after;
    if (!q || number_at(q + n, e, &x, &after) || !(unit = unit_at(after, e, gb_binary)))
        return -1;
    *v = x * unit;
    return 0;
}

/* ---- llama.cpp ----------------------------------------------------------- */

enum { MODEL, KV, COMPUTE };

typedef struct state {
    tc_fit_log *out;
    int in_context; /* a KV or compute line since the last model line */
    int computed;   /* a compute line in this context */
    int has_kv_total;
    double kv_total;
} state;

/* The word before q in [s, q): the buffer's name; "" when none. */
static void word_before(const char *s, const char *q, char *name, size_t len)
{
    const char *e = q;
    while (e > s && (e[-1] == ' ' || e[-1] == '\t'))
        e--;
    const char *b = e;
    while (b > s && b[-1] != ' ' && b[-1] != '\t')
        b--;
    size_t n = (size_t)(e - b);
    if (n == 0 || n >= len || b[n - 1] == ':')
        n = 0;
    memcpy(name, b, n);
    name[n] = '\0';
}

static tc_fit_log_device *device(tc_fit_log *o, const char *name)
{
    for (int i = 0; i < o->n_devices; i++)
        if (strcmp(o->dev[i].name, name) == 0)
            return &o->dev[i];
    if (o->n_devices == TC_FIT_LOG_MAX_DEVICES)
        return NULL;
    tc_fit_log_device *d = &o->dev[o->n_devices++];
    memset(d, 0, sizeof *d);
    snprintf(d->name, sizeof d->name, "%s", name);
    d->host = strncmp(name, "CPU", 3) == 0 || strstr(name, "Host") != NULL || !name[0];
    d->model_bytes = d->kv_bytes = d->compute_bytes = d->repack_bytes = -1;
    return d;
}

static void add(double *slot, double v)
{
    *slot = *slot < 0 ? v : *slot + v;
}

/* Forgets the KV and compute figures of an earlier context. */
static void new_context(state *st)
{
    tc_fit_log *o = st->out;
    o->has_kv = o->has_compute = 0;
    o->kv_bytes = o->compute_bytes = o->device_kv_bytes = o->device_compute_bytes = 0;
    o->kv_cells = 0;
    st->has_kv_total = 0;
    st->computed = 0;
    for (int i = 0; i < o->n_devices; i++)
        o->dev[i].kv_bytes = o->dev[i].compute_bytes = -1;
}

/* Forgets everything of an earlier load. */
static void new_load(state *st)
{
    tc_fit_log *o = st->out;
    new_context(st);
    o->n_devices = 0;
    o->has_model = o->has_repack = 0;
    o->model_bytes = o->repack_bytes = o->device_model_bytes = 0;
    st->in_context = 0;
}

static void buffer_line(state *st, int kind, const char *name, double v)
{
    tc_fit_log *o = st->out;
    if (kind == MODEL && st->in_context)
        new_load(st);
    if (kind == KV && st->computed)
        new_context(st);
    st->in_context |= kind != MODEL;
    st->computed |= kind == COMPUTE;
    o->engine = TC_FIT_LOG_LLAMACPP;
    tc_fit_log_device *d = device(o, name);
    int host = d ? d->host : strncmp(name, "CPU", 3) == 0;
    if (kind == MODEL && (strstr(name, "REPACK") || strstr(name, "AMX"))) {
        o->has_repack = 1;
        o->repack_bytes += v;
        if (d)
            add(&d->repack_bytes, v);
    } else if (kind == MODEL) {
        o->has_model = 1;
        o->model_bytes += v;
        o->device_model_bytes += host ? 0 : v;
        if (d)
            add(&d->model_bytes, v);
    } else if (kind == KV) {
        o->has_kv = 1;
        o->kv_bytes += v;
        o->device_kv_bytes += host ? 0 : v;
        if (d)
            add(&d->kv_bytes, v);
    } else {
        o->has_compute = 1;
        o->compute_bytes += v;
        o->device_compute_bytes += host ? 0 : v;
        if (d)
            add(&d->compute_bytes, v);
    }
}

/* "llama_kv_cache: size = 256.00 MiB (  2048 cells, ..." or, older,
 * "KV self size  =  256.00 MiB": the whole cache, for logs without
 * per-buffer lines. */
static int kv_total_line(state *st, const char *s, const char *e)
{
    double v, cells;
    const char *after, *q = memmem(s, (size_t)(e - s), ": size = ", 9);
    int sized = q && memmem(s, (size_t)(q - s), "kv_cache", 8) &&
                amount_after(q, e, ": size = ", 0, &v) == 0;
    if (!sized) {
        const char *k = memmem(s, (size_t)(e - s), "KV self size", 12);
        if (!k || amount_after(k, e, "=", 0, &v) != 0)
            return 0;
    }
    if (st->computed)
        new_context(st);
    st->in_context = 1;
    st->has_kv_total = 1;
    st->kv_total = v;
    st->out->engine = TC_FIT_LOG_LLAMACPP;
    const char *paren = sized ? memchr(q, '(', (size_t)(e - q)) : NULL;
    if (paren && number_at(paren + 1, e, &cells, &after) == 0 &&
        (size_t)(e - skip_spaces(after, e)) >= 5 && memcmp(skip_spaces(after, e), "cells", 5) == 0)
        st->out->kv_cells = (int64_t)cells;
    return 1;
}

static int llama_line(state *st, const char *s, const char *e)
{
    static const struct {
        const char *pat;
        int kind;
    } P[] = {{"model buffer size =", MODEL},
             {"KV buffer size =", KV},
             {"compute buffer size =", COMPUTE}};
    for (size_t i = 0; i < sizeof P / sizeof P[0]; i++) {
        const char *q = memmem(s, (size_t)(e - s), P[i].pat, strlen(P[i].pat));
        double v;
        if (!q || amount_after(q, e, "=", 0, &v) != 0)
            continue;
        char name[32];
        word_before(s, q, name, sizeof name);
        buffer_line(st, P[i].kind, name, v);
        return 1;
    }
    /* llama.cpp before mid-2024: "llm_load_tensors: CUDA0 buffer size = ..." */
    const char *q = memmem(s, (size_t)(e - s), " buffer size =", 14);
    double v;
    if (q && memmem(s, (size_t)(q - s), "load_tensors:", 13) &&
        amount_after(q, e, "=", 0, &v) == 0) {
        char name[32];
        word_before(s, q + 1, name, sizeof name);
        buffer_line(st, MODEL, name, v);
        return 1;
    }
    return kv_total_line(st, s, e);
}

/* ---- vLLM ---------------------------------------------------------------- */

static int vllm_line(tc_fit_log *o, const char *s, const char *e)
{
    double v, x;
    const char *q, *after;
    int hit = 0;
    if (amount_after(s, e, "Model loading took", 1, &v) == 0 ||
        amount_after(s, e, "Loading model weights took", 1, &v) == 0 ||
        amount_after(s, e, "model weights take", 1, &v) == 0) {
        o->has_weights = hit = 1;
        o->weights_bytes = v;
    }
    if (amount_after(s, e, "activation peak memory takes", 1, &v) == 0) {
        o->has_activation = hit = 1;
        o->activation_bytes = v;
    }
    if (amount_after(s, e, "Available KV cache memory:", 1, &v) == 0 ||
        amount_after(s, e, "reserved for KV Cache is", 1, &v) == 0) {
        o->has_available_kv = hit = 1;
        o->available_kv_bytes = v;
    }
    if ((q = memmem(s, (size_t)(e - s), "GPU KV cache size:", 18)) &&
        number_at(q + 18, e, &x, &after) == 0) {
        o->has_kv_tokens = hit = 1;
        o->kv_tokens = (int64_t)x;
    }
    if ((q = memmem(s, (size_t)(e - s), "Maximum concurrency for", 23)) &&
        number_at(q + 23, e, &x, &after) == 0 &&
        (q = memmem(after, (size_t)(e - after), "per request:", 12)) &&
        number_at(q + 12, e, &v, &after) == 0) {
        o->has_max_concurrency = hit = 1;
        o->max_concurrency_tokens = (int64_t)x;
        o->max_concurrency = v;
    }
    if (hit)
        o->engine = TC_FIT_LOG_VLLM;
    return hit;
}

tc_err tc_fit_log_parse(const char *file, const char *text, size_t len, tc_fit_log *out, char *err,
                        size_t errlen)
{
    if (!file || (!text && len) || !out)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    state st = {.out = out};
    int lines = 0;
    for (const char *s = text, *end = text + len; s < end;) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        const char *e = nl ? nl : end;
        lines += llama_line(&st, s, e) || vllm_line(out, s, e);
        s = nl ? nl + 1 : end;
    }
    if (!out->has_kv && st.has_kv_total) {
        out->has_kv = 1;
        out->kv_bytes = st.kv_total;
    }
    if (!lines)
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: none of llama.cpp's or vLLM's memory lines ('model buffer size', "
                       "'KV buffer size', 'Available KV cache memory', ...): not the log of a "
                       "model load (docs/commands/fit.md lists the lines read)",
                       file);
    return TC_OK;
}

/* ---- beside the prediction ----------------------------------------------- */

static void check(tc_fit_check *c, const char *what, const char *unit, int has_predicted,
                  double predicted, double reported)
{
    c->what = what;
    c->unit = unit;
    c->has_predicted = has_predicted;
    c->predicted = has_predicted ? predicted : 0;
    c->reported = reported;
    c->difference = has_predicted ? reported - predicted : 0;
    c->share = has_predicted && reported != 0 ? c->difference / reported : 0;
}

/* vLLM reports per card (each tensor-parallel rank alike). */
static int vllm_checks(const tc_fit_log *l, const tc_fit_options *o, const tc_fit_terms *t,
                       const tc_fit_card *card, tc_fit_check *out)
{
    int n = 0;
    double gpus = o->gpus > 0 ? (double)o->gpus : 1, kvpt = t->kv_bytes_per_token / gpus;
    double free_kv = card ? card->budget_bytes - (t->total - t->bytes[TC_FIT_KV_CACHE]) : 0;
    double tokens = card && kvpt > 0 ? (free_kv > 0 ? free_kv / kvpt : 0) : 0;
    if (l->has_weights)
        check(&out[n++], "weights", "bytes", 1, t->bytes[TC_FIT_WEIGHTS], l->weights_bytes);
    if (l->has_activation)
        check(&out[n++], "compute_buffer", "bytes", 1, t->bytes[TC_FIT_COMPUTE],
              l->activation_bytes);
    if (l->has_available_kv && l->has_kv_tokens && l->kv_tokens > 0)
        check(&out[n++], "kv_bytes_per_token", "bytes", kvpt > 0, kvpt,
              l->available_kv_bytes / (double)l->kv_tokens);
    if (l->has_available_kv)
        check(&out[n++], "available_kv", "bytes", card != NULL, free_kv, l->available_kv_bytes);
    if (l->has_kv_tokens)
        check(&out[n++], "kv_tokens", "tokens", card != NULL, tokens, (double)l->kv_tokens);
    if (l->has_max_concurrency && l->max_concurrency_tokens > 0)
        check(&out[n++], "max_concurrency", "sequences", card != NULL,
              tokens / (double)l->max_concurrency_tokens, l->max_concurrency);
    return n;
}

int tc_fit_log_compare(const tc_fit_log *l, const tc_model_shape *m, const tc_fit_options *o,
                       const tc_fit_terms *t, const tc_fit_card *card,
                       tc_fit_check out[TC_FIT_MAX_CHECKS])
{
    (void)m;
    int n = 0;
    if (!l || !o || !t || !out)
        return 0;
    if (l->engine == TC_FIT_LOG_VLLM)
        return vllm_checks(l, o, t, card, out);
    double gpus = o->gpus > 0 ? (double)o->gpus : 1; /* llama.cpp: the whole server */
    if (l->has_model)
        check(&out[n++], "weights", "bytes", 1, t->bytes[TC_FIT_WEIGHTS] * gpus, l->model_bytes);
    if (l->has_kv)
        check(&out[n++], "kv_cache", "bytes", t->used[TC_FIT_KV_CACHE],
              t->bytes[TC_FIT_KV_CACHE] * gpus, l->kv_bytes);
    if (l->has_compute)
        check(&out[n++], "compute_buffer", "bytes", t->used[TC_FIT_COMPUTE],
              t->bytes[TC_FIT_COMPUTE],
              l->device_compute_bytes > 0 ? l->device_compute_bytes : l->compute_bytes);
    return n;
}
