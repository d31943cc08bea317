/* nvidia-smi and rocm-smi backends: run the vendor's command
 * (telem_smi_run.c), parse what it prints (telem_smi_parse.c). Used only
 * where the vendor library cannot be loaded; a command run costs tens of
 * milliseconds (nvidia-smi) to about a second (rocm-smi, a Python
 * program), so one run serves every device of a tick. */
#define _GNU_SOURCE
#include "telem_smi.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/tc_time.h"
#include "telem_sysfs.h"

#include "telem_smi_internal.h"

/* ---- the backends ---- */

typedef enum { VENDOR_NVIDIA, VENDOR_AMD } vendor;

typedef struct smi_gpu_state {
    tc_smi_gpu first; /* as init saw it: identifies the GPU in later runs */
    tc_telem_device info;
    int fresh;            /* the cached reading has not been handed out yet */
    int skip;             /* this round's run failed: answer "not available" once, unasked */
    uint64_t energy_last; /* rocm-smi: raw counter of the last sample */
    uint64_t energy_base; /* what earlier counter resets added */
} smi_gpu_state;

typedef struct smi_state {
    vendor v;
    char *cmd;
    char query[512];
    unsigned cols;
    int ngpu;
    smi_gpu_state *gpu;
    tc_smi_gpu *cur; /* the last run's reading, TC_SMI_MAX_GPUS of them */
    int ncur;
    int64_t cur_ns;
    int failures; /* rounds whose command run failed, in a row */
    char last_error[512];
} smi_state;

#define NVIDIA_DRIVER_HINT                                                                         \
    "the NVIDIA driver is not loaded: check `lsmod | grep nvidia`, Secure Boot (`mokutil "         \
    "--sb-state`), nouveau (`lsmod | grep nouveau`), or reboot after installing the driver"
#define AMD_DRIVER_HINT                                                                            \
    "the amdgpu driver is not initialised: check `lsmod | grep amdgpu` and that you are in the "   \
    "render and video groups"

static const char *tool(const smi_state *st)
{
    return st->v == VENDOR_NVIDIA ? "nvidia-smi" : "rocm-smi";
}

/* The first non-blank line of text, for an error message. */
static void first_line(const char *text, size_t len, char *out, size_t outlen)
{
    const char *s = text;
    size_t n = len;
    tc_smi_trim(&s, &n);
    const char *nl = memchr(s, '\n', n);
    if (nl)
        n = (size_t)(nl - s);
    tc_smi_trim(&s, &n);
    tc_smi_copy_clean(out, outlen, s, n);
}

/* Runs argv and turns a failure into the reason the user can act on. */
static tc_err run_checked(smi_state *st, const char *const argv[], tc_smi_output *o, char *err,
                          size_t errlen)
{
    char why[256];
    tc_err rc = tc_smi_run(argv, TC_SMI_TIMEOUT_MS, o, why, sizeof why);
    if (rc == TC_ERR_NOTFOUND) {
        if (strchr(st->cmd, '/'))
            return tc_fail(err, errlen, rc, "%s not found or not executable (%s)", st->cmd, why);
        return tc_fail(err, errlen, rc, "%s not found on PATH", st->cmd);
    }
    if (rc != TC_OK)
        return tc_fail(err, errlen, rc, "%s", why);
    if (o->status == 0)
        return TC_OK;
    if (st->v == VENDOR_NVIDIA &&
        (tc_smi_contains_ci(o->out, o->out_len, "communicate with the NVIDIA driver") ||
         tc_smi_contains_ci(o->err, o->err_len, "communicate with the NVIDIA driver")))
        rc = tc_fail(err, errlen, TC_ERR_NOTFOUND, "%s: %s", st->cmd, NVIDIA_DRIVER_HINT);
    else if (st->v == VENDOR_NVIDIA &&
             tc_smi_contains_ci(o->out, o->out_len, "No devices were found"))
        rc = tc_fail(err, errlen, TC_ERR_NOTFOUND, "%s: no NVIDIA GPU found", st->cmd);
    else if (st->v == VENDOR_AMD &&
             (tc_smi_contains_ci(o->out, o->out_len, "driver not initialized") ||
              tc_smi_contains_ci(o->err, o->err_len, "driver not initialized")))
        rc = tc_fail(err, errlen, TC_ERR_NOTFOUND, "%s: %s", st->cmd, AMD_DRIVER_HINT);
    else {
        char line[160];
        first_line(o->err_len ? o->err : o->out, o->err_len ? o->err_len : o->out_len, line,
                   sizeof line);
        rc = tc_fail(err, errlen, TC_ERR_IO, "%s exited with status %d%s%s%s", st->cmd, o->status,
                     line[0] ? ": " : "", line,
                     tc_smi_contains_ci(o->err, o->err_len, "unrecognized arguments")
                         ? " (rocm-smi too old for these options: upgrade ROCm)"
                         : "");
    }
    tc_smi_output_free(o);
    return rc;
}

/* Runs the query and parses it into st->cur. */
static tc_err refresh(smi_state *st, char *err, size_t errlen)
{
    static const char *const rocm_args[] = {
        "--showproductname", "--showpower", "--showuse",           "--showmemuse", "--showtemp",
        "--showmeminfo",     "vram",        "--showenergycounter", "--json",       NULL};
    const char *argv[16] = {st->cmd};
    if (st->v == VENDOR_NVIDIA) {
        argv[1] = st->query;
        argv[2] = "--format=csv,noheader,nounits";
    } else {
        for (int i = 0; rocm_args[i]; i++)
            argv[i + 1] = rocm_args[i];
    }
    st->ncur = 0;
    tc_smi_output o;
    tc_err rc = run_checked(st, argv, &o, err, errlen);
    if (rc != TC_OK)
        return rc;
    st->cur_ns = tc_telem_now_ns();
    if (st->v == VENDOR_NVIDIA)
        rc = tc_smi_parse_nvidia_csv(o.out, o.out_len, st->cols, st->cur, TC_SMI_MAX_GPUS,
                                     &st->ncur, err, errlen);
    else
        rc = tc_smi_parse_rocm_json(o.out, o.out_len, st->cur, TC_SMI_MAX_GPUS, &st->ncur, err,
                                    errlen);
    tc_smi_output_free(&o);
    for (int i = 0; i < st->ngpu; i++)
        st->gpu[i].fresh = rc == TC_OK;
    return rc;
}

/* Picks the columns this nvidia-smi knows and builds the query. */
static tc_err probe_nvidia(smi_state *st, char *err, size_t errlen)
{
    const char *argv[] = {st->cmd, "--help-query-gpu", NULL};
    tc_smi_output o;
    tc_err rc = run_checked(st, argv, &o, err, errlen);
    if (rc != TC_OK)
        return rc;
    st->cols = tc_smi_nvidia_columns(o.out, o.out_len);
    tc_smi_output_free(&o);
    size_t used = (size_t)snprintf(st->query, sizeof st->query, "--query-gpu=");
    for (int c = 0; c < TC_SMI_NCOL; c++)
        if (st->cols & (1u << c))
            used += (size_t)snprintf(st->query + used, sizeof st->query - used, "%s%s",
                                     c ? "," : "", tc_smi_col_name(c));
    if (st->cols != TC_SMI_ALL_COLS) {
        size_t n =
            (size_t)snprintf(st->last_error, sizeof st->last_error, "%s does not offer:", st->cmd);
        for (int c = 0; c < TC_SMI_NCOL && n < sizeof st->last_error; c++)
            if (!(st->cols & (1u << c)))
                n += (size_t)snprintf(st->last_error + n, sizeof st->last_error - n, " %s",
                                      tc_smi_col_name(c));
    }
    return TC_OK;
}

static void describe(smi_state *st, int i)
{
    const tc_smi_gpu *g = &st->gpu[i].first;
    tc_telem_device *d = &st->gpu[i].info;
    d->kind = TC_TELEM_GPU;
    if (st->v == VENDOR_NVIDIA) {
        if (g->name[0])
            tc_telem_fmt(d->name, sizeof d->name, "%s", g->name);
        else
            tc_telem_fmt(d->name, sizeof d->name, "NVIDIA GPU %d", g->index);
        if (g->bus_id[0])
            tc_telem_fmt(d->id, sizeof d->id, "%s", g->bus_id);
        else
            tc_telem_fmt(d->id, sizeof d->id, "nvidia-smi:%d", g->index);
        tc_telem_fmt(d->driver, sizeof d->driver, "%s", g->driver);
        tc_telem_fmt(d->energy_what, sizeof d->energy_what, "GPU energy integrated from power");
    } else {
        if (g->name[0])
            tc_telem_fmt(d->name, sizeof d->name, "%s", g->name);
        else
            tc_telem_fmt(d->name, sizeof d->name, "AMD GPU card%d", g->index);
        tc_telem_fmt(d->id, sizeof d->id, "card%d", g->index);
        tc_telem_fmt(d->energy_what, sizeof d->energy_what, "%s",
                     g->s.valid & TC_TF_ENERGY ? "GPU energy counter"
                                               : "GPU energy integrated from power");
    }
}

static void smi_shutdown(void *state)
{
    smi_state *st = state;
    if (!st)
        return;
    free(st->cmd);
    free(st->gpu);
    free(st->cur);
    free(st);
}

static tc_err smi_init(vendor v, const char *cmd, void **state, char *err, size_t errlen)
{
    *state = NULL;
    smi_state *st = calloc(1, sizeof *st);
    tc_err rc = TC_ERR_NOMEM;
    if (!st)
        return tc_fail(err, errlen, rc, "%s: out of memory", cmd);
    st->v = v;
    st->cmd = strdup(cmd);
    st->cur = calloc(TC_SMI_MAX_GPUS, sizeof *st->cur);
    if (!st->cmd || !st->cur) {
        rc = tc_fail(err, errlen, rc, "%s: out of memory", cmd);
        goto fail;
    }
    if (v == VENDOR_NVIDIA && (rc = probe_nvidia(st, err, errlen)) != TC_OK)
        goto fail;
    if ((rc = refresh(st, err, errlen)) != TC_OK)
        goto fail;
    if (st->ncur == 0) {
        rc = tc_fail(err, errlen, TC_ERR_NOTFOUND, "%s lists no GPU", cmd);
        goto fail;
    }
    st->gpu = calloc((size_t)st->ncur, sizeof *st->gpu);
    if (!st->gpu) {
        rc = tc_fail(err, errlen, TC_ERR_NOMEM, "%s: out of memory", cmd);
        goto fail;
    }
    st->ngpu = st->ncur;
    for (int i = 0; i < st->ngpu; i++) {
        st->gpu[i].first = st->cur[i];
        st->gpu[i].energy_last = st->cur[i].s.energy_uj;
        describe(st, i);
    }
    st->ncur = 0; /* the first sample runs the command afresh */
    *state = st;
    return TC_OK;
fail:
    smi_shutdown(st);
    return rc;
}

static tc_err nvidia_init(const tc_telem_config *cfg, void **state, char *err, size_t errlen)
{
    return smi_init(VENDOR_NVIDIA, cfg && cfg->nvidia_smi ? cfg->nvidia_smi : "nvidia-smi", state,
                    err, errlen);
}

static tc_err rocm_init(const tc_telem_config *cfg, void **state, char *err, size_t errlen)
{
    return smi_init(VENDOR_AMD, cfg && cfg->rocm_smi ? cfg->rocm_smi : "rocm-smi", state, err,
                    errlen);
}

static int smi_device_count(void *state)
{
    return state ? ((smi_state *)state)->ngpu : 0;
}

static void smi_device_info(void *state, int dev, tc_telem_device *out)
{
    smi_state *st = state;
    if (st && dev >= 0 && dev < st->ngpu)
        *out = st->gpu[dev].info;
    else
        memset(out, 0, sizeof *out);
}

/* The current reading of the GPU init saw as g: same index and, where
 * nvidia-smi gave one, same bus id. */
static const tc_smi_gpu *find_current(const smi_state *st, const tc_smi_gpu *g)
{
    for (int i = 0; i < st->ncur; i++)
        if (st->cur[i].index == g->index && strcmp(st->cur[i].bus_id, g->bus_id) == 0)
            return &st->cur[i];
    return NULL;
}

/* Folds counter resets into a monotonic count. */
static uint64_t monotonic_energy(smi_gpu_state *g, uint64_t raw)
{
    if (raw < g->energy_last)
        g->energy_base += g->energy_last;
    g->energy_last = raw;
    return g->energy_base + raw;
}

/* A failed run costs that round's samples; three rounds in a row, or a
 * driver that went away, end every device (TC_ERR_IO). */
#define MAX_FAILURES 3

/* After a failed run the other devices of the round answer "not available"
 * without running the command again: with a hung nvidia-smi each run costs
 * the whole timeout, and one bad round must not count as several. */
static void fail_round(smi_state *st, int asking)
{
    st->failures++;
    for (int i = 0; i < st->ngpu; i++)
        st->gpu[i].skip = i != asking;
}

static tc_err smi_sample(void *state, int dev, tc_telem_sample *out)
{
    smi_state *st = state;
    memset(out, 0, sizeof *out);
    out->mono_ns = tc_telem_now_ns();
    if (!st || dev < 0 || dev >= st->ngpu)
        return TC_ERR_INVALID;
    smi_gpu_state *g = &st->gpu[dev];
    if (g->skip) {
        g->skip = 0;
        return st->failures >= MAX_FAILURES ? TC_ERR_IO : TC_OK;
    }
    if (!g->fresh || st->ncur == 0 || out->mono_ns - st->cur_ns > TC_NS_PER_S) {
        char why[400];
        tc_err rc = refresh(st, why, sizeof why);
        if (rc != TC_OK) {
            fail_round(st, dev);
            snprintf(st->last_error, sizeof st->last_error, "%s", why);
            if (rc == TC_ERR_NOTFOUND) /* the driver went away: no later round can help */
                st->failures = MAX_FAILURES;
            return st->failures >= MAX_FAILURES ? TC_ERR_IO : TC_OK;
        }
        st->failures = 0;
        for (int i = 0; i < st->ngpu; i++)
            st->gpu[i].skip = 0;
    }
    const tc_smi_gpu *cur = find_current(st, &g->first);
    if (!cur) {
        snprintf(st->last_error, sizeof st->last_error, "GPU lost: %s no longer lists %s (%s)",
                 tool(st), g->info.name, g->info.id);
        return TC_ERR_IO;
    }
    *out = cur->s;
    out->mono_ns = st->cur_ns;
    if (out->valid & TC_TF_ENERGY)
        out->energy_uj = monotonic_energy(g, cur->s.energy_uj);
    g->fresh = 0;
    return TC_OK;
}

static const char *smi_last_error(void *state)
{
    return state ? ((smi_state *)state)->last_error : "";
}

const tc_telem_backend tc_telem_nvidia_smi = {
    .name = "nvidia-smi",
    .init = nvidia_init,
    .device_count = smi_device_count,
    .device_info = smi_device_info,
    .sample = smi_sample,
    .shutdown = smi_shutdown,
    .last_error = smi_last_error,
};

const tc_telem_backend tc_telem_rocm_smi = {
    .name = "rocm-smi",
    .init = rocm_init,
    .device_count = smi_device_count,
    .device_info = smi_device_info,
    .sample = smi_sample,
    .shutdown = smi_shutdown,
    .last_error = smi_last_error,
};
