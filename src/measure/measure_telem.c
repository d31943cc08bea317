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

void tc_measure_drain(tc_measure_ctx *c)
{
    size_t n;
    char err[512];
    while (c->sampler &&
           (n = tc_telem_sampler_drain(c->sampler, c->samples, TC_MEASURE_SAMPLE_BATCH)) > 0) {
        if (c->cb->samples)
            c->cb->samples(c->cb->ctx, c->samples, n);
        if (tc_store_add_samples(c->store, c->run_id, c->samples, n, err, sizeof err) != TC_OK &&
            !c->samples_said++)
            tc_measure_say(c, TC_MEASURE_SAMPLES_LOST, "telemetry samples not saved: %s", err);
    }
}

static tc_err fail(tc_measure_outcome *o, tc_measure_stage stage, tc_err rc, const char *why)
{
    o->rc = rc;
    o->stage = stage;
    snprintf(o->err, sizeof o->err, "%s", why);
    return rc;
}

/* The devices (room for n in devs), numbered as the set lists them. */
static tc_err store_devices(tc_measure_ctx *c, tc_run_device *devs, int n, char *err, size_t errlen)
{
    for (int i = 0; i < n; i++) {
        devs[i].info = *tc_telem_set_device(c->telem, i);
        snprintf(devs[i].backend, sizeof devs[i].backend, "%s", tc_telem_set_backend(c->telem, i));
    }
    return tc_store_add_devices(c->store, c->run_id, devs, n, err, errlen);
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
    int n = tc_telem_set_count(c->telem);
    if (n == 0) {
        if (strcmp(which, "none") != 0)
            tc_measure_say(c, TC_MEASURE_NO_SENSOR,
                           "telemetry: no GPU or CPU energy sensor found; the run goes on "
                           "without energy figures:\n%s",
                           notes);
        return TC_OK;
    }
    tc_run_device *devs = calloc((size_t)n, sizeof *devs);
    if (!devs)
        return fail(o, TC_MEASURE_SAMPLER, TC_ERR_NOMEM, "out of memory");
    err[0] = '\0';
    rc = store_devices(c, devs, n, err, sizeof err);
    free(devs);
    if (rc == TC_OK)
        rc = tc_telem_sampler_start(c->telem, cfg->sample_ms, &c->sampler);
    if (rc != TC_OK) {
        char why[600];
        snprintf(why, sizeof why, "telemetry: %s", err[0] ? err : "cannot start the sampler");
        return fail(o, TC_MEASURE_SAMPLER, rc, why);
    }
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
    if (c->sampler && !o->load.interrupted) {
        /* One more round after the last request ended, so that the samples
         * reach past the measured window and its energy is read, not
         * extrapolated from the part before the last sample. */
        int64_t wait_ms = c->cfg->sample_ms + 10 < 2000 ? c->cfg->sample_ms + 10 : 2000;
        struct timespec ts = {(time_t)(wait_ms / 1000), (long)(wait_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    tc_telem_sampler_stop(c->sampler);
    tc_measure_drain(c);
    if (c->sampler) {
        tc_sampler_stats ss;
        tc_telem_sampler_stats(c->sampler, &ss);
        o->samples_dropped = ss.dropped;
    }
}

void tc_measure_telem_close(tc_measure_ctx *c)
{
    tc_telem_sampler_free(c->sampler);
    tc_telem_set_close(c->telem);
    c->sampler = NULL;
    c->telem = NULL;
}
