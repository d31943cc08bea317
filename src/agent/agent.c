/* The agent's loop: a timer samples, evhttp answers from the latest
 * samples. Everything a scrape needs is in memory, so a scrape costs one
 * formatting pass and no sensor read. */
#include "agent.h"

#include <arpa/inet.h>
#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent_expo.h"
#include "core/tc_buf.h"
#include "envinfo/env_fingerprint.h"
#include "telemetry/telem_set.h"

struct tc_agent {
    struct event_base *base;
    struct evhttp *http;
    struct evhttp_bound_socket *sock;
    struct event *tick, *sig_int, *sig_term, *wake;
    tc_telem_set *set;
    int n;
    tc_telem_sample *latest;
    tc_agent_reading *readings;
    char *env_json;
    char *token;
    uint16_t port;
    int wake_fds[2];
    uint64_t requests;
    tc_buf out;
};

int tc_agent_is_loopback(const char *host)
{
    unsigned char a[16];
    if (strcmp(host, "localhost") == 0)
        return 1;
    if (inet_pton(AF_INET, host, a) == 1)
        return a[0] == 127;
    static const unsigned char v6_loop[16] = {[15] = 1};
    return inet_pton(AF_INET6, host, a) == 1 && memcmp(a, v6_loop, 16) == 0;
}

static void sample_all(tc_agent *a)
{
    for (int i = 0; i < a->n; i++)
        if (tc_telem_set_sample(a->set, i, &a->latest[i]) != TC_OK)
            a->latest[i].valid = 0; /* a lost device: its metrics leave the exposition */
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    sample_all(arg);
}

static void send_text(struct evhttp_request *req, int status, const char *type, const char *body,
                      size_t len)
{
    struct evkeyvalq *h = evhttp_request_get_output_headers(req);
    evhttp_add_header(h, "Content-Type", type);
    evhttp_add_header(h, "Cache-Control", "no-store");
    struct evbuffer *b = evbuffer_new();
    if (!b) {
        evhttp_send_error(req, 500, "out of memory");
        return;
    }
    if (evhttp_request_get_command(req) != EVHTTP_REQ_HEAD)
        evbuffer_add(b, body, len);
    evhttp_send_reply(req, status, NULL, b);
    evbuffer_free(b);
}

/* Compares in time that depends on the length only, not on where the
 * first difference is. */
static int same_secret(const char *given, const char *want)
{
    size_t n = strlen(want);
    if (strlen(given) != n)
        return 0;
    unsigned char d = 0;
    for (size_t i = 0; i < n; i++)
        d |= (unsigned char)(given[i] ^ want[i]);
    return d == 0;
}

static int authorised(const tc_agent *a, struct evhttp_request *req)
{
    if (!a->token)
        return 1;
    const char *h = evhttp_find_header(evhttp_request_get_input_headers(req), "Authorization");
    return h && strncmp(h, "Bearer ", 7) == 0 && same_secret(h + 7, a->token);
}

static void serve_metrics(tc_agent *a, struct evhttp_request *req)
{
    tc_buf_reset(&a->out);
    tc_agent_expo_write(&a->out, a->readings, a->n);
    if (tc_buf_status(&a->out) != TC_OK) {
        evhttp_send_error(req, 500, "out of memory");
        return;
    }
    send_text(req, 200, "text/plain; version=0.0.4; charset=utf-8", a->out.data, a->out.len);
}

static void on_request(struct evhttp_request *req, void *arg)
{
    tc_agent *a = arg;
    a->requests++;
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
    const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
    enum evhttp_cmd_type m = evhttp_request_get_command(req);
    if (m != EVHTTP_REQ_GET && m != EVHTTP_REQ_HEAD) {
        evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", "GET, HEAD");
        send_text(req, 405, "text/plain", "method not allowed\n", 19);
        return;
    }
    if (path && strcmp(path, "/health") == 0) {
        char body[64];
        int len = snprintf(body, sizeof body, "{\"status\":\"ok\",\"devices\":%d}\n", a->n);
        send_text(req, 200, "application/json", body, (size_t)len);
        return;
    }
    int metrics = path && strcmp(path, "/metrics") == 0, env = path && strcmp(path, "/env") == 0;
    if (!metrics && !env) {
        send_text(req, 404, "text/plain", "not found: try /metrics, /env or /health\n", 41);
        return;
    }
    if (!authorised(a, req)) {
        evhttp_add_header(evhttp_request_get_output_headers(req), "WWW-Authenticate",
                          "Bearer realm=\"truecost agent\"");
        send_text(req, 401, "text/plain", "unauthorised: send Authorization: Bearer TOKEN\n", 47);
        return;
    }
    if (metrics)
        serve_metrics(a, req);
    else
        send_text(req, 200, "application/json", a->env_json, strlen(a->env_json));
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    (void)sig;
    (void)what;
    event_base_loopbreak(((tc_agent *)arg)->base);
}

static void on_wake(evutil_socket_t fd, short what, void *arg)
{
    char c;
    ssize_t n = read(fd, &c, 1);
    (void)n;
    on_signal(fd, what, arg);
}

/* The host's fingerprint, as `truecost env --json --no-server` has it. */
static tc_err collect_env(tc_agent *a, const tc_agent_config *cfg, char *err, size_t errlen)
{
    tc_env_config env = {.telemetry = cfg->telemetry, .telem = cfg->telem};
    json_t *fp = NULL;
    tc_err rc = tc_env_collect(&env, &fp, err, errlen);
    if (rc != TC_OK)
        return rc;
    a->env_json = json_dumps(fp, JSON_INDENT(2));
    tc_env_free(fp);
    return a->env_json ? TC_OK : tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
}

static tc_err open_telemetry(tc_agent *a, const tc_agent_config *cfg, char *notes, size_t noteslen,
                             char *err, size_t errlen)
{
    tc_err rc = tc_telem_set_open(cfg->telemetry ? cfg->telemetry : "auto", &cfg->telem, &a->set,
                                  notes, noteslen, err, errlen);
    if (rc != TC_OK)
        return rc;
    a->n = tc_telem_set_count(a->set);
    a->latest = calloc((size_t)(a->n ? a->n : 1), sizeof *a->latest);
    a->readings = calloc((size_t)(a->n ? a->n : 1), sizeof *a->readings);
    if (!a->latest || !a->readings)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    for (int i = 0; i < a->n; i++)
        a->readings[i] = (tc_agent_reading){tc_telem_set_device(a->set, i),
                                            tc_telem_set_backend(a->set, i), &a->latest[i]};
    return TC_OK;
}

static tc_err listen_on(tc_agent *a, const char *host, uint16_t port, char *err, size_t errlen)
{
    a->http = evhttp_new(a->base);
    if (!a->http)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    evhttp_set_allowed_methods(a->http, EVHTTP_REQ_GET | EVHTTP_REQ_HEAD | EVHTTP_REQ_POST |
                                            EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE);
    evhttp_set_max_headers_size(a->http, 16 * 1024);
    evhttp_set_max_body_size(a->http, 4096);
    evhttp_set_timeout(a->http, 30);
    evhttp_set_gencb(a->http, on_request, a);
    a->sock = evhttp_bind_socket_with_handle(a->http, host, port);
    if (!a->sock)
        return tc_fail(err, errlen, TC_ERR_NET,
                       "cannot listen on %s:%u (in use, or not an address of this host): choose "
                       "another with --listen HOST:PORT",
                       host, (unsigned)port);
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    evutil_socket_t fd = evhttp_bound_socket_get_fd(a->sock);
    if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0)
        a->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                 : ((struct sockaddr_in *)&ss)->sin_port);
    return TC_OK;
}

static tc_err add_events(tc_agent *a, const tc_agent_config *cfg, char *err, size_t errlen)
{
    int ms = cfg->interval_ms > 0 ? cfg->interval_ms : 500;
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    a->tick = event_new(a->base, -1, EV_PERSIST, on_tick, a);
    if (pipe(a->wake_fds) < 0)
        return tc_fail(err, errlen, TC_ERR_IO, "cannot make the stop pipe");
    a->wake = event_new(a->base, a->wake_fds[0], EV_READ | EV_PERSIST, on_wake, a);
    if (!a->tick || !a->wake || event_add(a->tick, &tv) < 0 || event_add(a->wake, NULL) < 0)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "cannot start the sampling timer");
    if (cfg->handle_signals) {
        a->sig_int = evsignal_new(a->base, SIGINT, on_signal, a);
        a->sig_term = evsignal_new(a->base, SIGTERM, on_signal, a);
        if (!a->sig_int || !a->sig_term || evsignal_add(a->sig_int, NULL) < 0 ||
            evsignal_add(a->sig_term, NULL) < 0)
            return tc_fail(err, errlen, TC_ERR_IO, "cannot handle SIGINT/SIGTERM");
    }
    return TC_OK;
}

tc_err tc_agent_new(const tc_agent_config *cfg, tc_agent **out, char *notes, size_t noteslen,
                    char *err, size_t errlen)
{
    *out = NULL;
    const char *host = cfg->host ? cfg->host : "127.0.0.1";
    if (!tc_agent_is_loopback(host) && !(cfg->token && *cfg->token))
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "--listen %s is not a loopback address: the agent serves it only with a "
                       "bearer token (--token-env VAR, VAR holding the token)",
                       host);
    if (!tc_agent_is_loopback(host) && strlen(cfg->token) < TC_AGENT_TOKEN_MIN)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "--listen %s is not a loopback address: its token is %zu characters, under "
                       "the %d that guessing cannot reach (make one: head -c 24 /dev/urandom | "
                       "base64)",
                       host, strlen(cfg->token), TC_AGENT_TOKEN_MIN);
    tc_agent *a = calloc(1, sizeof *a);
    if (!a)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    a->wake_fds[0] = a->wake_fds[1] = -1;
    signal(SIGPIPE, SIG_IGN); /* a scraper hanging up must not end the agent */
    tc_err rc = TC_OK;
    if (cfg->token && *cfg->token && !(a->token = strdup(cfg->token)))
        rc = tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    /* The fingerprint first: it opens and closes the sensors itself, and
     * a library's shutdown must not come after the agent's own init. */
    if (rc == TC_OK)
        rc = collect_env(a, cfg, err, errlen);
    if (rc == TC_OK)
        rc = open_telemetry(a, cfg, notes, noteslen, err, errlen);
    if (rc == TC_OK && !(a->base = event_base_new()))
        rc = tc_fail(err, errlen, TC_ERR_NOMEM, "cannot start the event loop");
    if (rc == TC_OK)
        rc = listen_on(a, host, cfg->port, err, errlen);
    if (rc == TC_OK)
        rc = add_events(a, cfg, err, errlen);
    if (rc != TC_OK) {
        tc_agent_free(a);
        return rc;
    }
    sample_all(a); /* the first scrape has readings */
    *out = a;
    return TC_OK;
}

uint16_t tc_agent_port(const tc_agent *a)
{
    return a->port;
}

int tc_agent_devices(const tc_agent *a)
{
    return a->n;
}

uint64_t tc_agent_requests(const tc_agent *a)
{
    return a->requests;
}

int tc_agent_run(tc_agent *a)
{
    return event_base_dispatch(a->base) < 0 ? -1 : 0;
}

void tc_agent_stop(tc_agent *a)
{
    char one = 1; /* wakes the loop from any thread, or a signal handler */
    ssize_t n = write(a->wake_fds[1], &one, 1);
    (void)n;
}

void tc_agent_free(tc_agent *a)
{
    if (!a)
        return;
    struct event *evs[] = {a->tick, a->sig_int, a->sig_term, a->wake};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        if (evs[i])
            event_free(evs[i]);
    if (a->http)
        evhttp_free(a->http);
    if (a->base)
        event_base_free(a->base);
    for (int i = 0; i < 2; i++)
        if (a->wake_fds[i] >= 0)
            close(a->wake_fds[i]);
    tc_telem_set_close(a->set);
    free(a->latest);
    free(a->readings);
    free(a->env_json);
    if (a->token) {
        memset(a->token, 0, strlen(a->token));
        free(a->token);
    }
    tc_buf_free(&a->out);
    free(a);
}
