/* Remote telemetry: a Prometheus exporter's /metrics on another box, read
 * as the devices it describes. Four exporters are understood, by their
 * metric names (see telem_remote_map.c): truecost's own agent, NVIDIA's
 * DCGM exporter, AMD's device-metrics-exporter and node_exporter's RAPL
 * collector. The backend scrapes once per sampling round; a scrape that
 * fails, times out or is malformed gives that round's samples no valid
 * field (not available), and the next round tries again. */
#ifndef TC_TELEM_REMOTE_H
#define TC_TELEM_REMOTE_H

#include <stddef.h>

#include "telem.h"
#include "telem_expo.h"

#define TC_REMOTE_MAX_DEVICES 64

/* One device an exposition describes. */
typedef struct tc_remote_dev {
    char source[16]; /* "truecost", "dcgm", "amd", "node" */
    char key[64];    /* the exporter's device label value (GPU index, RAPL index) */
    tc_telem_device info;
    tc_telem_sample s; /* mono_ns 0; valid bits for the fields the exposition gave */
} tc_remote_dev;

/* The devices of exposition e, in the order they first appear, at most
 * max of them (the rest are dropped). Values that are NaN, infinite,
 * negative (but temperatures) or too large are not available. When a
 * device has one field twice (e.g. DCGM's per-MIG-instance lines), the
 * first wins. Returns the count. */
int tc_remote_map(const tc_expo *e, tc_remote_dev *out, int max);

typedef struct tc_remote_config {
    const char *url;   /* http(s)://HOST:PORT/metrics */
    const char *token; /* bearer token, or NULL; never printed */
    int timeout_ms;    /* per scrape (the first, which finds the devices: 2 s) */
} tc_remote_config;

/* Scrapes cfg->url once to find its devices; the state keeps the URL and
 * token (copied). TC_ERR_NET / TC_ERR_PARSE / TC_ERR_NOTFOUND (answers,
 * but no device it knows) with the URL and why in err. Then use it with
 * tc_telem_remote's functions. */
TC_MUST_CHECK tc_err tc_remote_open(const tc_remote_config *cfg, void **state, char *err,
                                    size_t errlen);

/* The backend ("remote"): device 0's sample scrapes, the others read that
 * round's scrape; its init refuses (use tc_remote_open). */
extern const tc_telem_backend tc_telem_remote;

#endif
