/* The key/value scanner the text formats share, and the Hugging Face,
 * torchtune and Lightning line readers. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trainer.h"

static int key_char(int c)
{
    return isalnum(c) || c == '_' || c == '/' || c == '|' || c == '.' || c == '-';
}

/* Reads a number at p (an optional quote around it); end past it or NULL. */
static const char *number_at(const char *p, double *v)
{
    if (*p == '"' || *p == '\'')
        p++;
    if (!(isdigit((unsigned char)*p) || *p == '-' || *p == '+' || *p == '.' || *p == 'n' ||
          *p == 'i' || *p == 'N' || *p == 'I'))
        return NULL;
    char *end;
    *v = strtod(p, &end);
    return end == p ? NULL : end;
}

void tc_trainer_kv_scan(const char *line, void (*fn)(void *, const char *, size_t, double),
                        void *ctx)
{
    const char *p = line;
    while (*p) {
        if (!key_char((unsigned char)*p) || (p > line && key_char((unsigned char)p[-1]))) {
            p++;
            continue;
        }
        const char *key = p;
        while (key_char((unsigned char)*p))
            p++;
        size_t klen = (size_t)(p - key);
        const char *q = p;
        if (*q == '\'' || *q == '"')
            q++;
        while (*q == ' ')
            q++;
        if (*q != ':' && *q != '=')
            continue;
        q++;
        while (*q == ' ')
            q++;
        double v;
        const char *end = number_at(q, &v);
        if (!end)
            continue;
        /* "a|b" keys end at a '|' that is a separator: "Step 3 | loss:1" */
        fn(ctx, key, klen, v);
        p = end;
    }
}

static int key_is(const char *key, size_t len, const char *want)
{
    return strlen(want) == len && memcmp(key, want, len) == 0;
}

/* ---- Hugging Face Trainer ------------------------------------------------- */

typedef struct hf_ctx {
    tc_train_step *s;
    tc_train_info *info;
    int loss, eval, final;
    double seen;
} hf_ctx;

static void hf_key(void *vctx, const char *k, size_t n, double v)
{
    hf_ctx *c = vctx;
    if (key_is(k, n, "loss")) {
        c->s->loss = v;
        c->loss = 1;
    } else if (key_is(k, n, "learning_rate")) {
        c->s->lr = v;
    } else if (key_is(k, n, "num_input_tokens_seen")) {
        c->seen = v;
    } else if (n > 5 && memcmp(k, "eval_", 5) == 0) {
        c->eval = 1;
    } else if (key_is(k, n, "train_runtime")) {
        c->final = 1;
        c->info->train_runtime_s = v;
    } else if (key_is(k, n, "train_samples_per_second")) {
        c->info->train_samples_per_s = v;
    } else if (key_is(k, n, "train_steps_per_second")) {
        c->info->train_steps_per_s = v;
    } else if (key_is(k, n, "train_loss")) {
        c->info->train_loss = v;
    } else if (key_is(k, n, "total_flos")) {
        c->info->total_flos = v;
    }
}

int tc_trainer_hf(const char *line, tc_train_step *s, int *is_final, tc_train_info *info,
                  double *tokens_seen)
{
    const char *dict = strstr(line, "{'");
    *is_final = 0;
    if (!dict)
        return 0;
    tc_train_info scratch;
    tc_train_info_init(&scratch);
    hf_ctx c = {.s = s, .info = &scratch, .seen = NAN};
    tc_trainer_kv_scan(dict, hf_key, &c);
    if (c.final) {
        *is_final = 1;
        info->train_runtime_s = scratch.train_runtime_s;
        info->train_samples_per_s = scratch.train_samples_per_s;
        info->train_steps_per_s = scratch.train_steps_per_s;
        info->train_loss = scratch.train_loss;
        info->total_flos = scratch.total_flos;
        return 1;
    }
    if (!c.loss || c.eval)
        return 0;
    if (isfinite(c.seen)) {
        if (isfinite(*tokens_seen) && c.seen >= *tokens_seen)
            s->tokens = c.seen - *tokens_seen;
        *tokens_seen = c.seen;
    }
    return 1;
}

/* ---- torchtune ------------------------------------------------------------ */

typedef struct tt_ctx {
    tc_train_step *s;
} tt_ctx;

static void tt_key(void *vctx, const char *k, size_t n, double v)
{
    tc_train_step *s = ((tt_ctx *)vctx)->s;
    if (key_is(k, n, "loss"))
        s->loss = v;
    else if (key_is(k, n, "lr"))
        s->lr = v;
    else if (key_is(k, n, "tokens_per_second_per_gpu"))
        s->tokens_per_s = v;
    else if (key_is(k, n, "peak_memory_alloc") && v >= 0 && v < 1e9)
        s->peak_memory_bytes = (int64_t)(v * 1073741824.0); /* torchtune logs GiB */
}

int tc_trainer_torchtune(const char *line, tc_train_step *s)
{
    const char *p = strstr(line, "Step ");
    if (!p || !isdigit((unsigned char)p[5]))
        return 0;
    char *end;
    long long step = strtoll(p + 5, &end, 10);
    while (*end == ' ')
        end++;
    if (*end != '|' || step < 0)
        return 0;
    s->step = step;
    tt_ctx c = {s};
    tc_trainer_kv_scan(end + 1, tt_key, &c);
    return 1;
}

/* ---- PyTorch Lightning's ThroughputMonitor -------------------------------- */

typedef struct pl_ctx {
    tc_train_step *s;
    int rate;
} pl_ctx;

/* The key's last part ("train/device/samples_per_sec" -> "samples_per_sec")
 * and whether it is a per-device figure. */
static const char *last_part(const char *k, size_t n, size_t *len, int *device)
{
    size_t i = n;
    while (i > 0 && k[i - 1] != '/' && k[i - 1] != '|')
        i--;
    *len = n - i;
    *device = 0;
    for (size_t j = 0; j + 6 <= i; j++)
        if (memcmp(k + j, "device", 6) == 0)
            *device = 1;
    return k + i;
}

static void pl_key(void *vctx, const char *k, size_t n, double v)
{
    pl_ctx *c = vctx;
    size_t len;
    int device;
    const char *name = last_part(k, n, &len, &device);
    if (device)
        return;
    if (key_is(name, len, "samples_per_sec")) {
        c->s->samples_per_s = v;
        c->rate = 1;
    } else if (key_is(name, len, "batches_per_sec")) {
        c->rate = 1;
    } else if (key_is(name, len, "items_per_sec")) {
        c->s->tokens_per_s = v;
    } else if ((key_is(name, len, "batches") || key_is(name, len, "step")) && v >= 0 && v < 9e18) {
        c->s->step = (int64_t)v;
    } else if (key_is(name, len, "loss") || key_is(name, len, "train_loss")) {
        c->s->loss = v;
    }
}

int tc_trainer_lightning(const char *line, tc_train_step *s)
{
    if (!strstr(line, "_per_sec"))
        return 0;
    pl_ctx c = {s, 0};
    tc_trainer_kv_scan(line, pl_key, &c);
    return c.rate;
}

void tc_trainer_csv_free(tc_trainer_csv *h)
{
    free(h->names);
    memset(h, 0, sizeof *h);
}

/* A header: names separated by commas, one of them a throughput column. */
static int csv_header(tc_trainer_csv *h, const char *line)
{
    if (!strchr(line, ',') || !strstr(line, "_per_sec") || strchr(line, ':') || strchr(line, '='))
        return 0;
    for (const char *p = line; *p; p++)
        if (!key_char((unsigned char)*p) && *p != ',')
            return 0;
    char *copy = strdup(line);
    if (!copy)
        return 0;
    tc_trainer_csv_free(h);
    h->names = copy;
    for (char *p = copy; h->n < TC_TRAINER_CSV_MAX_COLS;) {
        h->col[h->n++] = p;
        char *comma = strchr(p, ',');
        if (!comma)
            break;
        *comma = '\0';
        p = comma + 1;
    }
    return 1;
}

int tc_trainer_lightning_csv(tc_trainer_csv *h, const char *line, tc_train_step *s)
{
    if (csv_header(h, line) || !h->names)
        return 0;
    pl_ctx c = {s, 0};
    size_t i = 0;
    for (const char *p = line; i < h->n; i++) {
        const char *comma = strchr(p, ',');
        char *end;
        double v = strtod(p, &end);
        if (end != p && (end == comma || *end == '\0'))
            pl_key(&c, h->col[i], strlen(h->col[i]), v);
        else if (end != p || (*p != ',' && *p != '\0'))
            return 0; /* a cell that is not a number: not a row of this header */
        if (!comma)
            break;
        p = comma + 1;
    }
    return c.rate && i + 1 >= h->n;
}
