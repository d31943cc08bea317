#include "telem_set.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_time.h"
#include "telem_nvml.h"
#include "telem_rocm.h"
#include "telem_remote.h"
#include "telem_smi.h"

/* Library backends before their fallbacks; in auto mode a source is
 * skipped when one named in `covered_by` already found devices (the same
 * GPUs must not be listed twice). */
static const struct {
    const tc_telem_backend *b;
    const char *covered_by[3]; /* NULL-terminated */
} order[] = {
    {&tc_telem_nvml, {NULL}},
    {&tc_telem_rocm, {NULL}},
    {&tc_telem_amdgpu, {"rocm", NULL}},
    {&tc_telem_rapl, {NULL}},
    {&tc_telem_nvidia_smi, {"nvml", NULL}},
    {&tc_telem_rocm_smi, {"rocm", "amdgpu", NULL}},
};

#define N_ORDER (sizeof order / sizeof order[0])

const char *const tc_telem_backend_names[] = {"nvml",       "rocm",     "amdgpu", "rapl",
                                              "nvidia-smi", "rocm-smi", NULL};

typedef struct opened {
    const tc_telem_backend *b;
    void *state;
} opened;

typedef struct entry {
    int src;    /* index into opened */
    int dev;    /* device index within its backend */
    int failed; /* a sample returned TC_ERR_IO: later ones are invalid */
    tc_telem_device info;
    char error[160];
} entry;

struct tc_telem_set {
    opened src[N_ORDER > TC_TELEM_MAX_URLS ? N_ORDER : TC_TELEM_MAX_URLS];
    int n_src;
    entry *dev;
    int n_dev;
};

static void note(char *notes, size_t len, const char *name, const char *why)
{
    if (!notes || !len)
        return;
    size_t used = strlen(notes);
    if (used < len)
        snprintf(notes + used, len - used, "  %s: %s\n", name, why);
}

static int find_backend(const char *name)
{
    for (size_t i = 0; i < N_ORDER; i++)
        if (strcmp(order[i].b->name, name) == 0)
            return (int)i;
    return -1;
}

static int was_opened(const tc_telem_set *s, const char *name)
{
    for (int i = 0; i < s->n_src; i++)
        if (strcmp(s->src[i].b->name, name) == 0)
            return 1;
    return 0;
}

static int covered(const tc_telem_set *s, size_t k)
{
    for (int i = 0; order[k].covered_by[i]; i++)
        if (was_opened(s, order[k].covered_by[i]))
            return 1;
    return 0;
}

static tc_err add_devices(tc_telem_set *s, const tc_telem_backend *b, void *state)
{
    int n = b->device_count(state);
    entry *d = realloc(s->dev, (size_t)(s->n_dev + n) * sizeof *d);
    if (!d && n > 0)
        return TC_ERR_NOMEM;
    s->dev = d;
    s->src[s->n_src] = (opened){b, state};
    for (int i = 0; i < n; i++) {
        entry *e = &s->dev[s->n_dev++];
        memset(e, 0, sizeof *e);
        e->src = s->n_src;
        e->dev = i;
        b->device_info(state, i, &e->info);
    }
    s->n_src++;
    return TC_OK;
}

static tc_err try_backend(tc_telem_set *s, int k, const tc_telem_config *cfg, char *why,
                          size_t whylen)
{
    void *state = NULL;
    why[0] = '\0';
    tc_err rc = order[k].b->init(cfg, &state, why, whylen);
    if (rc != TC_OK)
        return rc;
    if (order[k].b->device_count(state) <= 0) {
        order[k].b->shutdown(state);
        snprintf(why, whylen, "no devices");
        return TC_ERR_NOTFOUND;
    }
    rc = add_devices(s, order[k].b, state);
    if (rc != TC_OK)
        order[k].b->shutdown(state);
    return rc;
}

tc_err tc_telem_set_open(const char *which, const tc_telem_config *cfg, tc_telem_set **out,
                         char *notes, size_t noteslen, char *err, size_t errlen)
{
    static const tc_telem_config defaults = {0};
    *out = NULL;
    if (notes && noteslen)
        notes[0] = '\0';
    if (!cfg)
        cfg = &defaults;
    int only = -1;
    if (strcmp(which, "auto") != 0 && strcmp(which, "none") != 0 &&
        (only = find_backend(which)) < 0)
        return tc_fail(
            err, errlen, TC_ERR_INVALID,
            "--backend '%s': expected auto, none, nvml, rocm, amdgpu, rapl, nvidia-smi or "
            "rocm-smi",
            which);
    tc_telem_set *s = calloc(1, sizeof *s);
    if (!s)
        return TC_ERR_NOMEM;
    char why[512];
    for (size_t k = 0; k < N_ORDER && strcmp(which, "none") != 0; k++) {
        if (only >= 0 && (int)k != only)
            continue;
        if (only < 0 && covered(s, k))
            continue;
        tc_err rc = try_backend(s, (int)k, cfg, why, sizeof why);
        if (rc == TC_ERR_NOMEM) {
            tc_telem_set_close(s);
            return rc;
        }
        if (rc != TC_OK && only >= 0) {
            tc_telem_set_close(s);
            return tc_fail(err, errlen, rc, "%s: %s", order[k].b->name, why);
        }
        if (rc != TC_OK)
            note(notes, noteslen, order[k].b->name, why);
    }
    *out = s;
    return TC_OK;
}

tc_err tc_telem_set_open_remote(const char *const *urls, int n, const char *token, int timeout_ms,
                                tc_telem_set **out, char *notes, size_t noteslen, char *err,
                                size_t errlen)
{
    *out = NULL;
    if (notes && noteslen)
        notes[0] = '\0';
    if (n > TC_TELEM_MAX_URLS)
        return tc_fail(err, errlen, TC_ERR_INVALID, "at most %d telemetry URLs", TC_TELEM_MAX_URLS);
    tc_telem_set *s = calloc(1, sizeof *s);
    if (!s)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    char why[600];
    for (int i = 0; i < n; i++) {
        void *state = NULL;
        tc_remote_config rc = {.url = urls[i], .token = token, .timeout_ms = timeout_ms};
        tc_err e = tc_remote_open(&rc, &state, why, sizeof why);
        if (e == TC_OK && (e = add_devices(s, &tc_telem_remote, state)) != TC_OK)
            tc_telem_remote.shutdown(state);
        if (e == TC_ERR_NOMEM) {
            tc_telem_set_close(s);
            return tc_fail(err, errlen, e, "out of memory");
        }
        if (e != TC_OK)
            note(notes, noteslen, "remote", why);
    }
    *out = s;
    return TC_OK;
}

void tc_telem_set_close(tc_telem_set *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n_src; i++)
        s->src[i].b->shutdown(s->src[i].state);
    free(s->dev);
    free(s);
}

int tc_telem_set_count(const tc_telem_set *s)
{
    return s ? s->n_dev : 0;
}

const tc_telem_device *tc_telem_set_device(const tc_telem_set *s, int i)
{
    return &s->dev[i].info;
}

const char *tc_telem_set_backend(const tc_telem_set *s, int i)
{
    return s->src[s->dev[i].src].b->name;
}

tc_err tc_telem_set_sample(tc_telem_set *s, int i, tc_telem_sample *out)
{
    entry *e = &s->dev[i];
    const opened *o = &s->src[e->src];
    memset(out, 0, sizeof *out);
    out->mono_ns = tc_mono_ns();
    if (e->failed)
        return TC_ERR_IO;
    tc_err rc = o->b->sample(o->state, e->dev, out);
    if (rc == TC_ERR_IO) {
        e->failed = 1;
        out->valid = 0;
        snprintf(e->error, sizeof e->error, "%s", o->b->last_error(o->state));
    }
    return rc;
}

const char *tc_telem_set_error(const tc_telem_set *s, int i)
{
    return s->dev[i].error;
}
