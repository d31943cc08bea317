/* The remote backend: one exporter URL, its devices found by a first
 * scrape, then one scrape per sampling round (at device 0) that every
 * device of the round reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_redact.h"
#include "telem_remote.h"
#include "telem_scrape.h"

typedef struct remote {
    char *url, *token;
    char shown[1024]; /* the URL as messages give it: tc_redact_url */
    int timeout_ms;
    int n;
    tc_remote_dev devs[TC_REMOTE_MAX_DEVICES]; /* as found at open */
    tc_remote_dev now[TC_REMOTE_MAX_DEVICES];  /* this round's scrape */
    int n_now;
    int ok; /* this round's scrape answered and parsed */
    char last_error[512];
} remote;

/* host:port of the URL, for the devices' ids: without any user:password@
 * before it. */
static void host_of(const char *url, char *out, size_t len)
{
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    size_t n = strcspn(p, "/?#");
    for (size_t i = n; i-- > 0;)
        if (p[i] == '@') {
            p += i + 1;
            n -= i + 1;
            break;
        }
    snprintf(out, len, "%.*s", (int)n, p);
}

/* Scrapes into r->now; TC_OK or the reason in r->last_error. */
static tc_err scrape(remote *r)
{
    char *body = NULL, err[512];
    size_t len = 0;
    r->n_now = 0;
    tc_err rc = tc_telem_http_get(r->url, r->token, r->timeout_ms, TC_EXPO_MAX_BYTES, &body, &len,
                                  err, sizeof err);
    tc_expo e;
    if (rc == TC_OK) {
        rc = tc_expo_parse(body, len, &e, err, sizeof err);
        if (rc == TC_OK)
            r->n_now = tc_remote_map(&e, r->now, TC_REMOTE_MAX_DEVICES);
        else /* a parse error names the line: say whose */
            snprintf(r->last_error, sizeof r->last_error, "%.300s: %.200s", r->shown, err);
        tc_expo_free(&e);
    }
    free(body);
    if (rc != TC_OK && rc != TC_ERR_PARSE)
        snprintf(r->last_error, sizeof r->last_error, "%s", err);
    return rc;
}

static void remote_free(void *state)
{
    remote *r = state;
    if (!r)
        return;
    free(r->url);
    if (r->token) {
        memset(r->token, 0, strlen(r->token));
        free(r->token);
    }
    free(r);
}

tc_err tc_remote_open(const tc_remote_config *cfg, void **state, char *err, size_t errlen)
{
    *state = NULL;
    remote *r = calloc(1, sizeof *r);
    if (!r || !(r->url = strdup(cfg->url)) || (cfg->token && !(r->token = strdup(cfg->token)))) {
        remote_free(r);
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    }
    tc_redact_url(cfg->url, r->shown, sizeof r->shown);
    /* The first scrape may wait longer than a round's: a box slow to
     * answer once should not lose the whole run's telemetry. */
    r->timeout_ms = 2000;
    tc_err rc = scrape(r);
    r->timeout_ms = cfg->timeout_ms > 0 ? cfg->timeout_ms : 2000;
    if (rc != TC_OK) {
        tc_fail(err, errlen, rc, "%s", r->last_error);
        remote_free(r);
        return rc;
    }
    if (r->n_now == 0) {
        remote_free(r);
        return tc_fail(err, errlen, TC_ERR_NOTFOUND,
                       "%s answers, but with no metric of truecost's agent, the DCGM exporter, "
                       "AMD's device-metrics-exporter or node_exporter's RAPL collector",
                       r->shown);
    }
    char host[64];
    host_of(cfg->url, host, sizeof host);
    r->n = r->n_now;
    for (int i = 0; i < r->n; i++) {
        r->devs[i] = r->now[i];
        tc_telem_device *d = &r->devs[i].info;
        char id[sizeof d->id];
        snprintf(id, sizeof id, "%s", d->id);
        snprintf(d->id, sizeof d->id, "%.31s/%.31s", host, id); /* which box, which device */
        char source[sizeof r->devs[i].source];                  /* a copy: the same struct as d */
        memcpy(source, r->devs[i].source, sizeof source);
        snprintf(d->driver, sizeof d->driver, "remote %s", source);
    }
    *state = r;
    return TC_OK;
}

static tc_err remote_init(const tc_telem_config *cfg, void **state, char *err, size_t errlen)
{
    (void)cfg;
    *state = NULL;
    return tc_fail(err, errlen, TC_ERR_NOTFOUND, "remote telemetry needs a URL (--telemetry URL)");
}

static int remote_count(void *state)
{
    return ((remote *)state)->n;
}

static void remote_info(void *state, int dev, tc_telem_device *out)
{
    *out = ((remote *)state)->devs[dev].info;
}

/* A device of this round's scrape, by the source and key found at open. */
static const tc_remote_dev *now_of(const remote *r, int dev)
{
    const tc_remote_dev *want = &r->devs[dev];
    for (int i = 0; i < r->n_now; i++)
        if (r->now[i].info.kind == want->info.kind && strcmp(r->now[i].source, want->source) == 0 &&
            strcmp(r->now[i].key, want->key) == 0)
            return &r->now[i];
    return NULL;
}

static tc_err remote_sample(void *state, int dev, tc_telem_sample *out)
{
    remote *r = state;
    if (dev == 0)
        r->ok = scrape(r) == TC_OK;
    const tc_remote_dev *d = r->ok ? now_of(r, dev) : NULL;
    int64_t mono = out->mono_ns;
    if (d) {
        *out = d->s;
        out->mono_ns = mono;
    } else {
        out->valid = 0; /* this round costs one sample, not the device */
    }
    return TC_OK;
}

static const char *remote_error(void *state)
{
    return state ? ((remote *)state)->last_error : "";
}

const tc_telem_backend tc_telem_remote = {
    .name = "remote",
    .init = remote_init,
    .device_count = remote_count,
    .device_info = remote_info,
    .sample = remote_sample,
    .shutdown = remote_free,
    .last_error = remote_error,
};
