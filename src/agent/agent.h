/* `truecost agent`: a Prometheus exporter for one GPU box. It samples
 * every device of a telemetry set (telemetry/telem_set.h) on a libevent
 * timer and serves, on evhttp:
 *   GET /metrics  the latest readings (agent_expo.h)
 *   GET /env      the box's environment fingerprint (envinfo/), JSON
 *   GET /health   {"status":"ok","devices":N}
 * With a token, /metrics and /env answer 401 unless the request carries
 * "Authorization: Bearer TOKEN"; /health stays open for liveness probes.
 * One thread: every function but tc_agent_stop runs on the caller's. */
#ifndef TC_AGENT_H
#define TC_AGENT_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_error.h"
#include "telemetry/telem.h"

/* A token that guards an agent off loopback has at least this many
 * characters. */
#define TC_AGENT_TOKEN_MIN 16

typedef struct tc_agent_config {
    const char *host;      /* listen address; default "127.0.0.1" */
    uint16_t port;         /* 0 = pick a free port */
    int interval_ms;       /* sampling interval; default 500 */
    const char *token;     /* bearer token, or NULL; never printed */
    const char *telemetry; /* "auto" (default), "none" or a backend name */
    tc_telem_config telem; /* where the sources read from */
    int handle_signals;    /* 1: SIGINT/SIGTERM stop the loop cleanly */
} tc_agent_config;

typedef struct tc_agent tc_agent;

/* 1 when host is a loopback address (127.0.0.0/8, ::1, localhost): only
 * there may the agent serve without a token. */
int tc_agent_is_loopback(const char *host);

/* Opens the telemetry (why each source found nothing goes into notes),
 * reads the fingerprint and binds. TC_ERR_INVALID (a non-loopback host
 * without a token; an unknown source), TC_ERR_NET (cannot bind) with the
 * address, why and what to do in err. Free with tc_agent_free. */
TC_MUST_CHECK tc_err tc_agent_new(const tc_agent_config *cfg, tc_agent **out, char *notes,
                                  size_t noteslen, char *err, size_t errlen);

uint16_t tc_agent_port(const tc_agent *a);
int tc_agent_devices(const tc_agent *a);

/* Serves until tc_agent_stop or a handled signal: 0, or -1 on a loop
 * error. */
int tc_agent_run(tc_agent *a);

/* Asks the loop to stop; safe from another thread. */
void tc_agent_stop(tc_agent *a);

/* Requests answered so far (any route). */
uint64_t tc_agent_requests(const tc_agent *a);

void tc_agent_free(tc_agent *a); /* accepts NULL */

#endif
