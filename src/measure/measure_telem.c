/* A run's telemetry: sources, devices, the sampler and its samples. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/tc_time.h"
#include "measure_internal.h"
#include "telemetry/telem_set.h"

int tc_measure_stopping(const tc_measure_ctx *c)
{
    return c->cb->stop && *c->cb->stop;
}

void tc_measure_say(const tc_measure_ctx *c, tc_measure_notice what, const char *fmt, ...)
{
    char text[2600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (c->cb->notice)
        c->cb->notice(c->cb->ctx, what, text);
}

/* Moves one sampler's waiting samples into the store, device numbers
 * shifted by `first` (the remote devices follow the local ones). */
static void drain_one(tc_measure_ctx *c, tc_telem_sampler *s, int first)
{
    size_t n;
    char err[512];
    while (s && (n = tc_telem_sampler_drain(s, c->samples, TC_MEASURE_SAMPLE_BATCH)) > 0) {
        for (size_t i = 0; i < n; i++)
            c->samples[i].device += first;
        if (c->cb->samples)
            c->cb->samples(c->cb->ctx, c->samples, n);
        int lost = c->saver ? tc_saver_add_samples(c->saver, c->samples, n) != 0
                            : tc_store_add_samples(c->store, c->run_id, c->samples, n, err,
                                                   sizeof err) != TC_OK;
        if (lost && c->saver)
            snprintf(err, sizeof err, "out of memory");
        if (lost && !c->samples_said++)
            tc_measure_say(c, TC_MEASURE_SAMPLES_LOST, "telemetry samples not saved: %s", err);
    }
}

void tc_measure_samples_lost(tc_measure_ctx *c)
{
    char err[512];
    if (c->saver && tc_saver_samples_lost(c->saver, err, sizeof err) && !c->samples_said++)
        tc_measure_say(c, TC_MEASURE_SAMPLES_LOST, "telemetry samples not saved: %s", err);
}

void tc_measure_drain(tc_measure_ctx *c)
{
    drain_one(c, c->sampler, 0);
    drain_one(c, c->rsampler, c->n_local);
    tc_measure_samples_lost(c);
}

static tc_err fail(tc_measure_outcome *o, tc_measure_stage stage, tc_err rc, const char *why)
{
    o->rc = rc;
    o->stage = stage;
    snprintf(o->err, sizeof o->err, "%s", why);
    return rc;
}

/* The devices of both sets, local ones first, as the samples number them. */
static tc_err store_devices(tc_measure_ctx *c, int n, char *err, size_t errlen)
{
    tc_run_device *devs = calloc((size_t)n, sizeof *devs);
    if (!devs)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        tc_telem_set *set = i < c->n_local ? c->telem : c->remote;
        int k = i < c->n_local ? i : i - c->n_local;
        devs[i].info = *tc_telem_set_device(set, k);
        snprintf(devs[i].backend, sizeof devs[i].backend, "%s", tc_telem_set_backend(set, k));
    }
    tc_err rc = tc_store_add_devices(c->store, c->run_id, devs, n, err, errlen);
    free(devs);
    return rc;
}

/* The --telemetry URLs' devices; a URL that gives none is said, not fatal. */
static tc_err open_remote(tc_measure_ctx *c, tc_measure_outcome *o)
{
    const tc_measure_config *cfg = c->cfg;
    if (cfg->n_remote_urls <= 0)
        return TC_OK;
    char notes[4096], err[512];
    /* a round's scrape may take up to the interval (at least 250 ms, at
     * most 2 s): a late answer delays the next round, a missing one costs it */
    int timeout = cfg->remote_ms < 250 ? 250 : cfg->remote_ms > 2000 ? 2000 : cfg->remote_ms;
    tc_err rc = tc_telem_set_open_remote(cfg->remote_urls, cfg->n_remote_urls, cfg->remote_token,
                                         timeout, &c->remote, notes, sizeof notes, err, sizeof err);
    if (rc != TC_OK)
        return fail(o, TC_MEASURE_TELEMETRY, rc, err);
    if (notes[0])
        tc_measure_say(c, TC_MEASURE_NO_REMOTE,
                       "telemetry: a URL gave no device; the run goes on without it:\n%s", notes);
    return TC_OK;
}

static tc_err start_samplers(tc_measure_ctx *c, tc_measure_outcome *o)
{
    const tc_measure_config *cfg = c->cfg;
    int n = c->n_local + tc_telem_set_count(c->remote);
    char err[512] = "";
    tc_err rc = store_devices(c, n, err, sizeof err);
    if (rc == TC_OK && c->n_local > 0)
        rc = tc_telem_sampler_start(c->telem, cfg->sample_ms, &c->sampler);
    if (rc == TC_OK && tc_telem_set_count(c->remote) > 0)
        rc = tc_telem_sampler_start(c->remote, cfg->remote_ms, &c->rsampler);
    if (rc != TC_OK) {
        char why[600];
        snprintf(why, sizeof why, "telemetry: %s", err[0] ? err : "cannot start the sampler");
        return fail(o, TC_MEASURE_SAMPLER, rc, why);
    }
    return TC_OK;
}

tc_err tc_measure_telem_start(tc_measure_ctx *c, tc_measure_outcome *o)
{
    const tc_measure_config *cfg = c->cfg;
    const char *which = cfg->telemetry ? cfg->telemetry : "auto";
    char notes[2048], err[512];
    tc_err rc =
        tc_telem_set_open(which, &cfg->telem, &c->telem, notes, sizeof notes, err, sizeof err);
    if (rc != TC_OK)
        return fail(o, TC_MEASURE_TELEMETRY, rc, err);
    if ((rc = open_remote(c, o)) != TC_OK)
        return rc;
    c->n_local = tc_telem_set_count(c->telem);
    if (c->n_local + tc_telem_set_count(c->remote) == 0) {
        if (strcmp(which, "none") != 0)
            tc_measure_say(c, TC_MEASURE_NO_SENSOR,
                           "telemetry: no GPU or CPU energy sensor found; the run goes on "
                           "without energy figures:\n%s",
                           notes);
        return TC_OK;
    }
    if ((rc = start_samplers(c, o)) != TC_OK)
        return rc;
    for (int64_t end = tc_mono_ns() + (int64_t)(cfg->idle_s * 1e9);
         tc_mono_ns() < end && !tc_measure_stopping(c);) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
        tc_measure_drain(c);
    }
    return TC_OK;
}

void tc_measure_telem_stop(tc_measure_ctx *c, tc_measure_outcome *o)
{
    if ((c->sampler || c->rsampler) && !o->load.interrupted) {
        /* One more round after the last request ended, so that the samples
         * reach past the measured window and its energy is read, not
         * extrapolated from the part before the last sample. */
        int64_t every = c->rsampler && c->cfg->remote_ms > c->cfg->sample_ms ? c->cfg->remote_ms
                                                                             : c->cfg->sample_ms;
        int64_t wait_ms = every + 10 < 2000 ? every + 10 : 2000;
        struct timespec ts = {(time_t)(wait_ms / 1000), (long)(wait_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    tc_telem_sampler_stop(c->sampler);
    tc_telem_sampler_stop(c->rsampler);
    tc_measure_drain(c);
    tc_sampler_stats ss;
    if (c->sampler) {
        tc_telem_sampler_stats(c->sampler, &ss);
        o->samples_dropped = ss.dropped;
    }
    if (c->rsampler) {
        tc_telem_sampler_stats(c->rsampler, &ss);
        o->samples_dropped += ss.dropped;
    }
}

void tc_measure_telem_close(tc_measure_ctx *c)
{
    tc_telem_sampler_free(c->sampler);
    tc_telem_sampler_free(c->rsampler);
    tc_telem_set_close(c->telem);
    tc_telem_set_close(c->remote);
    c->sampler = c->rsampler = NULL;
    c->telem = c->remote = NULL;
}
