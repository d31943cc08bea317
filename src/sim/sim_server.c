#include "sim_internal.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <fcntl.h>
#include <jansson.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/tc_rng.h"
#include "core/tc_time.h"
#include "sim_text.h"
#include "tc_version.h"

void tc_sim_config_defaults(tc_sim_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->host = "127.0.0.1";
    tc_sim_timing_defaults(&cfg->timing);
    cfg->seed = 1;
    cfg->tokens_per_word = 1;
    cfg->max_body_bytes = 1 << 20;
    cfg->handle_signals = 1;
}

void tc_sim_headers(struct evhttp_request *req, const char *content_type)
{
    struct evkeyvalq *h = evhttp_request_get_output_headers(req);
    evhttp_add_header(h, "Content-Type", content_type);
    evhttp_add_header(h, "x-truecost-simulated", "1");
    evhttp_add_header(h, "Server", "truecost-sim/" TC_VERSION " (SIMULATED)");
}

void tc_sim_send(struct evhttp_request *req, int status, const char *content_type, const char *body,
                 size_t len)
{
    struct evbuffer *b = evbuffer_new();
    if (b)
        evbuffer_add(b, body, len);
    tc_sim_headers(req, content_type);
    evhttp_send_reply(req, status, NULL, b);
    evbuffer_free(b);
}

void tc_sim_send_error(struct evhttp_request *req, tc_sim_route route, int status,
                       const char *message)
{
    tc_buf b = {0};
    tc_sim_wire_error(route, status, message, &b);
    tc_sim_send(req, status, "application/json", b.data ? b.data : "", b.len);
    tc_buf_free(&b);
}

static void send_json(struct evhttp_request *req, int status, json_t *doc)
{
    char *text = doc ? json_dumps(doc, JSON_COMPACT) : NULL;
    if (text)
        tc_sim_send(req, status, "application/json", text, strlen(text));
    else
        evhttp_send_error(req, 500, "out of memory");
    free(text);
    json_decref(doc);
}

/* An error for a path outside the inference routes: Ollama's shape under
 * /api/, OpenAI's elsewhere, so each client library can read it. */
static void send_path_error(struct evhttp_request *req, const char *path, int status,
                            const char *message)
{
    tc_buf b = {0};
    if (strncmp(path, "/api/", 5) == 0)
        tc_sim_wire_error(TC_ROUTE_OLLAMA_GENERATE, status, message, &b);
    else
        tc_sim_wire_error_openai(status, message, &b);
    tc_sim_send(req, status, "application/json", b.data ? b.data : "", b.len);
    tc_buf_free(&b);
}

int tc_sim_find_model(const tc_sim_server *s, const char *name)
{
    for (int i = 0; i < s->n_models; i++)
        if (strcmp(s->models[i], name) == 0)
            return i;
    return -1;
}

void tc_sim_note_lateness(tc_sim_server *s, int64_t late_ns)
{
    if (late_ns < 0)
        late_ns = 0;
    int64_t bin = late_ns / 1000;
    if (bin >= TC_SIM_LATE_BINS)
        bin = TC_SIM_LATE_BINS - 1;
    s->late_bins[bin]++;
    s->ticks++;
    if (late_ns > s->late_max_ns)
        s->late_max_ns = late_ns;
}

/* ---- model catalogue ---------------------------------------------------- */

static json_t *model_details(void)
{
    return json_pack("{s:s, s:s, s:s, s:[s], s:s, s:s}", "parent_model", "", "format", "gguf",
                     "family", "llama", "families", "llama", "parameter_size", "8.0B",
                     "quantization_level", "Q4_K_M");
}

static void model_digest(const char *name, char out[65])
{
    for (int i = 0; i < 4; i++)
        snprintf(
            out + 16 * i, 17, "%016llx",
            (unsigned long long)tc_hash3(tc_hash_bytes(name, strlen(name), 0), (uint64_t)i, 0));
}

static json_t *model_entry(const tc_sim_server *s, const char *name, int loaded)
{
    char digest[65], when[40];
    model_digest(name, digest);
    tc_rfc3339_ns(s->started_wall_ns, when, sizeof when);
    json_t *m = json_pack("{s:s, s:s, s:I, s:s, s:o}", "name", name, "model", name, "size",
                          (json_int_t)4920753328LL, "digest", digest, "details", model_details());
    if (!m)
        return NULL;
    if (loaded) {
        json_object_set_new(m, "expires_at", json_string("2318-01-01T00:00:00Z"));
        double on_card = 4920753328.0 * (1 - s->cfg.cpu_offload);
        json_object_set_new(m, "size_vram", json_integer((json_int_t)on_card));
        json_object_set_new(m, "context_length", json_integer(8192));
    } else {
        json_object_set_new(m, "modified_at", json_string(when));
    }
    return m;
}

static void route_tags(tc_sim_server *s, struct evhttp_request *req, int loaded)
{
    json_t *list = json_array();
    for (int i = 0; i < s->n_models; i++)
        json_array_append_new(list, model_entry(s, s->models[i], loaded));
    send_json(req, 200, json_pack("{s:o}", "models", list));
}

static void route_show(tc_sim_server *s, struct evhttp_request *req)
{
    struct evbuffer *in = evhttp_request_get_input_buffer(req);
    size_t len = evbuffer_get_length(in);
    json_error_t jerr;
    json_t *body = json_loadb((const char *)evbuffer_pullup(in, -1), len, 0, &jerr);
    const char *name = json_string_value(json_object_get(body, "model"));
    if (!name)
        name = json_string_value(json_object_get(body, "name")); /* older clients */
    if (!name) {
        tc_sim_send_error(req, TC_ROUTE_OLLAMA_GENERATE, 400,
                          "request body must be JSON with a string 'model'");
    } else if (tc_sim_find_model(s, name) < 0) {
        char msg[TC_SIM_MODEL_NAME_MAX + 32];
        snprintf(msg, sizeof msg, "model '%.256s' not found", name);
        tc_sim_send_error(req, TC_ROUTE_OLLAMA_GENERATE, 404, msg);
    } else {
        json_t *info = json_pack("{s:s, s:I, s:i, s:i}", "general.architecture", "llama",
                                 "general.parameter_count", (json_int_t)8030261248LL,
                                 "llama.context_length", 8192, "llama.embedding_length", 4096);
        send_json(req, 200,
                  json_pack("{s:s, s:s, s:s, s:s, s:o, s:o, s:[s]}", "license",
                            "SIMULATED model of truecost sim", "modelfile",
                            "# SIMULATED by truecost sim", "parameters", "temperature 0",
                            "template", "{{ .Prompt }}", "details", model_details(), "model_info",
                            info, "capabilities", "completion"));
    }
    json_decref(body);
}

static void route_models(tc_sim_server *s, struct evhttp_request *req)
{
    json_t *data = json_array();
    for (int i = 0; i < s->n_models; i++)
        json_array_append_new(data, json_pack("{s:s, s:s, s:I, s:s}", "id", s->models[i], "object",
                                              "model", "created",
                                              (json_int_t)(s->started_wall_ns / TC_NS_PER_S),
                                              "owned_by", "truecost-sim"));
    send_json(req, 200, json_pack("{s:s, s:o}", "object", "list", "data", data));
}

/* POST /tokenize, counted by the simulator's rule: llama.cpp's form
 * {content, add_special} -> {tokens} (the BOS only with add_special), or
 * vLLM's {prompt} -> {count, max_model_len, tokens} (with the BOS). The
 * token ids mean nothing. */
static void route_tokenize(tc_sim_server *s, struct evhttp_request *req)
{
    struct evbuffer *in = evhttp_request_get_input_buffer(req);
    size_t len = evbuffer_get_length(in);
    json_t *body = len <= s->cfg.max_body_bytes
                       ? json_loadb((const char *)evbuffer_pullup(in, -1), len, 0, NULL)
                       : NULL;
    json_t *content = json_object_get(body, "content");
    int llama = json_is_string(content);
    json_t *text = llama ? content : json_object_get(body, "prompt");
    if (!json_is_string(text)) {
        json_decref(body);
        tc_buf b = {0};
        tc_sim_wire_error_openai(400,
                                 "request body must be JSON with a string 'content' "
                                 "(llama.cpp) or 'prompt' (vLLM)",
                                 &b);
        tc_sim_send(req, 400, "application/json", b.data ? b.data : "", b.len);
        tc_buf_free(&b);
        return;
    }
    int words = tc_sim_count_words(json_string_value(text), json_string_length(text));
    int n = tc_sim_scale_words(words, s->cfg.tokens_per_word) +
            (llama ? json_is_true(json_object_get(body, "add_special")) : 1);
    json_decref(body);
    json_t *ids = json_array();
    for (int i = 0; ids && i < n; i++)
        json_array_append_new(ids, json_integer(1000 + i % 30000));
    if (llama)
        send_json(req, 200, json_pack("{s:o}", "tokens", ids));
    else
        send_json(req, 200,
                  json_pack("{s:i, s:i, s:o}", "count", n, "max_model_len", 8192, "tokens", ids));
}

static void route_props(tc_sim_server *s, struct evhttp_request *req)
{
    send_json(req, 200,
              json_pack("{s:{s:i, s:s}, s:i, s:s, s:s}", "default_generation_settings", "n_ctx",
                        8192, "model", s->models[0], "total_slots", s->cfg.timing.max_batch,
                        "model_path", s->models[0], "build_info",
                        "truecost-sim " TC_VERSION " (SIMULATED)"));
}

/* ---- routing ------------------------------------------------------------ */

typedef enum {
    R_VERSION,
    R_TAGS,
    R_PS,
    R_SHOW,
    R_MODELS,
    R_HEALTH,
    R_PROPS,
    R_TOKENIZE,
    R_ROOT,
    R_INFER
} kind;

static const struct {
    const char *path;
    enum evhttp_cmd_type method;
    kind k;
    tc_sim_route route;
} routes[] = {
    {"/api/version", EVHTTP_REQ_GET, R_VERSION, 0},
    {"/api/tags", EVHTTP_REQ_GET, R_TAGS, 0},
    {"/api/ps", EVHTTP_REQ_GET, R_PS, 0},
    {"/api/show", EVHTTP_REQ_POST, R_SHOW, 0},
    {"/v1/models", EVHTTP_REQ_GET, R_MODELS, 0},
    {"/health", EVHTTP_REQ_GET, R_HEALTH, 0},
    {"/props", EVHTTP_REQ_GET, R_PROPS, 0},
    {"/tokenize", EVHTTP_REQ_POST, R_TOKENIZE, 0},
    {"/", EVHTTP_REQ_GET, R_ROOT, 0},
    {"/api/generate", EVHTTP_REQ_POST, R_INFER, TC_ROUTE_OLLAMA_GENERATE},
    {"/api/chat", EVHTTP_REQ_POST, R_INFER, TC_ROUTE_OLLAMA_CHAT},
    {"/v1/completions", EVHTTP_REQ_POST, R_INFER, TC_ROUTE_OAI_COMPLETIONS},
    {"/v1/chat/completions", EVHTTP_REQ_POST, R_INFER, TC_ROUTE_OAI_CHAT},
    {"/completion", EVHTTP_REQ_POST, R_INFER, TC_ROUTE_LLAMA_COMPLETION},
};

/* Token chunks are small writes: without TCP_NODELAY, Nagle's algorithm
 * would hold them back and distort every inter-token gap. */
static void set_nodelay(struct evhttp_request *req)
{
    struct evhttp_connection *conn = evhttp_request_get_connection(req);
    struct bufferevent *bev = conn ? evhttp_connection_get_bufferevent(conn) : NULL;
    int fd = bev ? bufferevent_getfd(bev) : -1;
    int one = 1;
    if (fd >= 0)
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* --close-after: one connection's requests so far, by its socket. */
struct sim_conn_count {
    uint16_t peer_port; /* a new connection on this descriptor has another */
    uint64_t requests;
};

static uint16_t peer_port(int fd)
{
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    if (getpeername(fd, (struct sockaddr *)&ss, &sl) != 0)
        return 0;
    return ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                          : ((struct sockaddr_in *)&ss)->sin_port);
}

/* 1 when the request arrived on a connection that has answered
 * cfg.close_after requests: the connection is shut down, unanswered (the
 * loop then frees it as any closed connection), as a server that closes
 * its kept-alive connections while a client reuses one. */
static int close_reused(tc_sim_server *s, struct evhttp_request *req)
{
    struct evhttp_connection *conn = evhttp_request_get_connection(req);
    struct bufferevent *bev = conn ? evhttp_connection_get_bufferevent(conn) : NULL;
    int fd = bev ? bufferevent_getfd(bev) : -1;
    if (fd < 0)
        return 0;
    if ((size_t)fd >= s->n_conns) {
        size_t n = (size_t)fd * 2 + 16;
        struct sim_conn_count *p = realloc(s->conns, n * sizeof *p);
        if (!p)
            return 0; /* answered as usual: a test server under memory pressure */
        memset(p + s->n_conns, 0, (n - s->n_conns) * sizeof *p);
        s->conns = p;
        s->n_conns = n;
    }
    struct sim_conn_count *c = &s->conns[fd];
    uint16_t port = peer_port(fd);
    if (c->peer_port != port) {
        c->peer_port = port;
        c->requests = 0;
    }
    if (c->requests++ < (uint64_t)s->cfg.close_after)
        return 0;
    c->peer_port = 0;
    s->closed_reused++;
    shutdown(fd, SHUT_RDWR);
    return 1;
}

static void dispatch(tc_sim_server *s, struct evhttp_request *req, kind k, tc_sim_route route)
{
    switch (k) {
    case R_VERSION:
        send_json(req, 200, json_pack("{s:s}", "version", TC_VERSION "-truecost-sim"));
        break;
    case R_TAGS:
        route_tags(s, req, 0);
        break;
    case R_PS:
        route_tags(s, req, 1);
        break;
    case R_SHOW:
        route_show(s, req);
        break;
    case R_MODELS:
        route_models(s, req);
        break;
    case R_HEALTH:
        send_json(req, 200, json_pack("{s:s}", "status", "ok"));
        break;
    case R_PROPS:
        route_props(s, req);
        break;
    case R_TOKENIZE:
        route_tokenize(s, req);
        break;
    case R_ROOT: {
        static const char text[] = "truecost sim is running (SIMULATED)\n";
        tc_sim_send(req, 200, "text/plain; charset=utf-8", text, sizeof text - 1);
        break;
    }
    case R_INFER:
        tc_sim_stream_start(s, req, route);
        break;
    }
}

static void on_request(struct evhttp_request *req, void *arg)
{
    tc_sim_server *s = arg;
    if (s->cfg.close_after > 0 && close_reused(s, req))
        return;
    set_nodelay(req);
    const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
    const char *path = uri ? evhttp_uri_get_path(uri) : NULL;
    if (!path || !*path)
        path = "/";
    enum evhttp_cmd_type method = evhttp_request_get_command(req);
    for (size_t i = 0; i < sizeof routes / sizeof routes[0]; i++) {
        if (strcmp(routes[i].path, path) != 0)
            continue;
        if (routes[i].method == method ||
            (method == EVHTTP_REQ_HEAD && routes[i].method == EVHTTP_REQ_GET)) {
            dispatch(s, req, routes[i].k, routes[i].route);
            return;
        }
        char msg[128];
        const char *allowed = routes[i].method == EVHTTP_REQ_GET ? "GET" : "POST";
        snprintf(msg, sizeof msg, "method not allowed on %s: use %s", routes[i].path, allowed);
        evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", allowed);
        send_path_error(req, path, 405, msg);
        return;
    }
    char msg[300];
    snprintf(msg, sizeof msg,
             "no such route: %.200s (truecost sim serves /api/*, /v1/*, "
             "/completion, /tokenize, /health, /props)",
             path);
    send_path_error(req, path, 404, msg);
}

/* ---- lifecycle ---------------------------------------------------------- */

static void on_wake(evutil_socket_t fd, short what, void *arg)
{
    (void)what;
    char drain[64];
    while (read(fd, drain, sizeof drain) > 0)
        ;
    event_base_loopbreak(((tc_sim_server *)arg)->base);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
    (void)sig;
    (void)what;
    event_base_loopbreak(((tc_sim_server *)arg)->base);
}

static tc_err copy_config(tc_sim_server *s, const tc_sim_config *cfg, char *err, size_t errlen)
{
    s->cfg = *cfg;
    s->host = strdup(cfg->host ? cfg->host : "127.0.0.1");
    if (!s->host)
        return TC_ERR_NOMEM;
    if (cfg->n_models > TC_SIM_MAX_MODELS)
        return tc_fail(err, errlen, TC_ERR_INVALID, "at most %d models", TC_SIM_MAX_MODELS);
    s->n_models = cfg->n_models > 0 ? cfg->n_models : 1;
    for (int i = 0; i < s->n_models; i++) {
        const char *name = cfg->n_models > 0 ? cfg->models[i] : TC_SIM_DEFAULT_MODEL;
        if (!name || !*name || strlen(name) >= TC_SIM_MODEL_NAME_MAX)
            return tc_fail(err, errlen, TC_ERR_INVALID,
                           "--model: a model name must be 1 to 255 characters");
        if (!(s->models[i] = strdup(name)))
            return TC_ERR_NOMEM;
    }
    if (tc_sim_timing_validate(&cfg->timing, err, errlen) < 0)
        return TC_ERR_INVALID;
    if (!(cfg->tokens_per_word >= 0.01 && cfg->tokens_per_word <= 100))
        return tc_fail(err, errlen, TC_ERR_INVALID, "--tokens-per-word %g: expected 0.01 to 100",
                       cfg->tokens_per_word);
    if (cfg->eos_after < 0 || cfg->eos_after > TC_SIM_MAX_TOKENS_LIMIT)
        return tc_fail(err, errlen, TC_ERR_INVALID, "--eos-after %d: expected 0 to %d",
                       cfg->eos_after, TC_SIM_MAX_TOKENS_LIMIT);
    s->late_bins = calloc(TC_SIM_LATE_BINS, sizeof *s->late_bins);
    return s->late_bins ? TC_OK : TC_ERR_NOMEM;
}

static tc_err open_truth(tc_sim_server *s, char *err, size_t errlen)
{
    if (!s->cfg.truth_path)
        return TC_OK;
    s->truth = fopen(s->cfg.truth_path, "w");
    if (!s->truth)
        return tc_fail(err, errlen, TC_ERR_IO, "--truth %s: cannot open for writing: %s",
                       s->cfg.truth_path, strerror(errno));
    return TC_OK;
}

/* ---- listening ---------------------------------------------------------- */

/* libevent hands the listener's error callback evhttp's pointer, not ours;
 * the server's wake event (always added while the loop runs) carries it. */
static int wake_owner(const struct event_base *base, const struct event *ev, void *out)
{
    (void)base;
    if (event_get_callback(ev) != on_wake)
        return 0;
    *(tc_sim_server **)out = event_get_callback_arg(ev);
    return 1;
}

static void warn_accept(tc_sim_server *s, int e)
{
    struct rlimit rl;
    char msg[300];
    unsigned long long lim =
        getrlimit(RLIMIT_NOFILE, &rl) == 0 ? (unsigned long long)rl.rlim_cur : 0;
    snprintf(msg, sizeof msg,
             "cannot accept a connection: %s (open files limit %llu); new connections wait "
             "until others close: raise the limit (ulimit -n) or open fewer at once",
             strerror(e), lim);
    s->cfg.warn(s->cfg.warn_arg, msg);
}

/* accept() failed for a reason retrying will not cure at once (EMFILE,
 * ENFILE, ENOBUFS...). Without this callback libevent would log a warning
 * and try again on every loop turn: a busy loop that floods stderr and
 * starves the streams. Instead, stop listening for 100 ms; connections
 * wait in the kernel's queue meanwhile. */
static void on_accept_error(struct evconnlistener *lev, void *http)
{
    (void)http;
    int e = EVUTIL_SOCKET_ERROR();
    tc_sim_server *s = NULL;
    evconnlistener_disable(lev);
    event_base_foreach_event(evconnlistener_get_base(lev), wake_owner, &s);
    if (!s)
        return;
    s->accept_pauses++;
    s->accept_errno = e;
    if (s->accept_pauses == 1 && s->cfg.warn)
        warn_accept(s, e);
    struct timeval pause = {0, 100000};
    evtimer_add(s->accept_timer, &pause);
}

static void on_accept_resume(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    evconnlistener_enable(((tc_sim_server *)arg)->listener);
}

/* "[::1]" for an IPv6 address, so that "host:port" reads right. */
static const char *bracketed(const char *host, char *buf, size_t len)
{
    if (!strchr(host, ':'))
        return host;
    snprintf(buf, len, "[%s]", host);
    return buf;
}

/* Resolves and binds the listening socket as evhttp_bind_socket would, but
 * keeps the listener, so that its error callback can be set. */
static tc_err listen_socket(tc_sim_server *s, char *err, size_t errlen)
{
    struct evutil_addrinfo hints, *ai = NULL;
    char port[8], hostbuf[280], where[300];
    const char *host = bracketed(s->host, hostbuf, sizeof hostbuf);
    memset(&hints, 0, sizeof hints);
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = EVUTIL_AI_PASSIVE | EVUTIL_AI_ADDRCONFIG;
    snprintf(port, sizeof port, "%u", (unsigned)s->cfg.port);
    snprintf(where, sizeof where, "%s:%u", host, (unsigned)s->cfg.port);
    int gai = evutil_getaddrinfo(s->host, port, &hints, &ai);
    if (gai != 0)
        return tc_fail(err, errlen, TC_ERR_NET, "cannot listen on %s: %s (give an IP address)",
                       where, evutil_gai_strerror(gai));
    s->listener = evconnlistener_new_bind(
        s->base, NULL, NULL, LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE | LEV_OPT_CLOSE_ON_EXEC, -1,
        ai->ai_addr, (int)ai->ai_addrlen);
    int e = errno;
    evutil_freeaddrinfo(ai);
    if (!s->listener)
        return tc_fail(err, errlen, TC_ERR_NET,
                       "cannot listen on %s: %s (is the port in use? use --listen %s:0 for "
                       "a free one)",
                       where, strerror(e), host);
    return TC_OK;
}

static tc_err bind_http(tc_sim_server *s, char *err, size_t errlen)
{
    s->http = evhttp_new(s->base);
    if (!s->http)
        return TC_ERR_NOMEM;
    /* libevent's own limit sits well above ours so that oversized bodies
     * reach our handler and get a JSON 413 naming the limit. Bodies over
     * it get libevent's own (HTML) 413: libevent 2.1 reads a body whole
     * before any callback of ours can answer, so reading an unbounded one
     * to answer in JSON would cost unbounded memory. */
    evhttp_set_max_body_size(s->http, (ev_ssize_t)s->cfg.max_body_bytes * 8 + 4096);
    /* Unbounded, one header line without an end costs memory and a rescan
     * of all of it on every read (quadratic), stalling every stream. */
    evhttp_set_max_headers_size(s->http, 64 * 1024);
    evhttp_set_timeout(s->http, 3600);
    evhttp_set_allowed_methods(s->http, EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD |
                                            EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE |
                                            EVHTTP_REQ_OPTIONS | EVHTTP_REQ_PATCH);
    evhttp_set_gencb(s->http, on_request, s);
    tc_err rc = listen_socket(s, err, errlen);
    if (rc != TC_OK)
        return rc;
    if (!evhttp_bind_listener(s->http, s->listener)) {
        evconnlistener_free(s->listener);
        s->listener = NULL;
        return TC_ERR_NOMEM;
    }
    evconnlistener_set_error_cb(s->listener, on_accept_error);
    struct sockaddr_storage ss;
    socklen_t sl = sizeof ss;
    evutil_socket_t fd = evconnlistener_get_fd(s->listener);
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
        s->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                 : ((struct sockaddr_in *)&ss)->sin_port);
    return TC_OK;
}

static tc_err make_events(tc_sim_server *s)
{
    if (pipe(s->wake_fds) < 0)
        return TC_ERR_IO;
    for (int i = 0; i < 2; i++)
        fcntl(s->wake_fds[i], F_SETFL, O_NONBLOCK);
    s->chunk_buf = evbuffer_new();
    s->sched = tc_sim_sched_new(s->base);
    if (!s->chunk_buf || !s->sched)
        return TC_ERR_NOMEM;
    s->wake = event_new(s->base, s->wake_fds[0], EV_READ | EV_PERSIST, on_wake, s);
    if (!s->wake || event_add(s->wake, NULL) < 0)
        return TC_ERR_NOMEM;
    s->accept_timer = evtimer_new(s->base, on_accept_resume, s);
    if (!s->accept_timer)
        return TC_ERR_NOMEM;
    if (s->cfg.handle_signals) {
        s->sig_int = evsignal_new(s->base, SIGINT, on_signal, s);
        s->sig_term = evsignal_new(s->base, SIGTERM, on_signal, s);
        if (!s->sig_int || !s->sig_term || evsignal_add(s->sig_int, NULL) < 0 ||
            evsignal_add(s->sig_term, NULL) < 0)
            return TC_ERR_NOMEM;
    }
    return TC_OK;
}

tc_err tc_sim_server_new(const tc_sim_config *cfg, tc_sim_server **out, char *err, size_t errlen)
{
    *out = NULL;
    tc_sim_server *s = calloc(1, sizeof *s);
    if (!s)
        return TC_ERR_NOMEM;
    s->wake_fds[0] = s->wake_fds[1] = -1;
    s->started_wall_ns = tc_wall_ns();
    s->started_mono_ns = tc_mono_ns();
    /* A client that hangs up mid-stream must not kill the server. */
    signal(SIGPIPE, SIG_IGN);

    tc_err rc = copy_config(s, cfg, err, errlen);
    if (rc == TC_OK)
        rc = open_truth(s, err, errlen);
    if (rc == TC_OK) {
        /* libevent's default (coarse, cached) clock is enough for what it
         * times: request timeouts and the accept pause. The token timers,
         * which need the nanosecond, have their own timerfd (sim_sched.c);
         * libevent's precise timers would instead rewrite a timerfd on
         * every loop turn. */
        s->base = event_base_new();
        rc = s->base ? TC_OK : TC_ERR_NOMEM;
    }
    if (rc == TC_OK)
        rc = bind_http(s, err, errlen);
    if (rc == TC_OK)
        rc = make_events(s);
    if (rc != TC_OK) {
        if (rc == TC_ERR_NOMEM)
            tc_fail(err, errlen, rc, "out of memory starting the simulator");
        tc_sim_server_free(s);
        return rc;
    }
    *out = s;
    return TC_OK;
}

tc_sim_timing tc_sim_timing_now(const tc_sim_server *s)
{
    tc_sim_timing t = s->cfg.timing;
    if (t.drift_pct_per_min > 0)
        t.decode_tps = tc_sim_decode_tps_at(&t, tc_mono_ns() - s->started_mono_ns);
    return t;
}

void tc_sim_leak(tc_sim_server *s)
{
    size_t kb = (size_t)s->cfg.leak_kb_per_request;
    if (!kb || s->leaked_kb + kb > TC_SIM_LEAK_MAX_KB)
        return;
    if (s->n_leaks == s->cap_leaks) {
        size_t cap = s->cap_leaks ? 2 * s->cap_leaks : 256;
        void **grown = realloc(s->leaks, cap * sizeof *grown);
        if (!grown)
            return;
        s->leaks = grown;
        s->cap_leaks = cap;
    }
    void *block = malloc(kb * 1024);
    if (!block)
        return;
    memset(block, 0xa5, kb * 1024); /* touched: resident, as a real leak */
    s->leaks[s->n_leaks++] = block;
    s->leaked_kb += kb;
}

uint16_t tc_sim_server_port(const tc_sim_server *s)
{
    return s->port;
}

int tc_sim_server_run(tc_sim_server *s)
{
    if (event_base_dispatch(s->base) < 0)
        return -1;
    return s->crashed ? 1 : 0;
}

void tc_sim_server_stop(tc_sim_server *s)
{
    char one = 1;
    ssize_t n = write(s->wake_fds[1], &one, 1);
    (void)n;
}

static int64_t late_percentile(const tc_sim_server *s, double q)
{
    if (s->ticks == 0)
        return 0;
    uint64_t rank = (uint64_t)(q * (double)(s->ticks - 1)) + 1, seen = 0;
    for (int i = 0; i < TC_SIM_LATE_BINS; i++) {
        seen += s->late_bins[i];
        if (seen >= rank)
            return (int64_t)i * 1000;
    }
    return s->late_max_ns;
}

void tc_sim_server_stats(const tc_sim_server *s, tc_sim_stats *out)
{
    out->requests = s->requests;
    out->tokens = s->tokens;
    out->ticks = s->ticks;
    out->late_p50_ns = late_percentile(s, 0.50);
    out->late_p99_ns = late_percentile(s, 0.99);
    out->late_max_ns = s->late_max_ns;
    tc_sim_sched_counts(s->sched, &out->wakeups, &out->timer_arms);
    out->accept_pauses = s->accept_pauses;
    out->accept_errno = s->accept_errno;
    out->closed_reused = s->closed_reused;
}

int tc_sim_server_write_inflight_truth(tc_sim_server *s, const char *outcome)
{
    if (!s->truth)
        return 0;
    int lines = tc_sim_stream_drop_all(s, outcome);
    fflush(s->truth);
    return lines;
}

void tc_sim_server_free(tc_sim_server *s)
{
    if (!s)
        return;
    tc_sim_stream_drop_all(s, "server_stopped");
    for (size_t i = 0; i < s->n_leaks; i++)
        free(s->leaks[i]);
    free(s->leaks);
    free(s->conns);
    if (s->http)
        evhttp_free(s->http);
    if (s->wake)
        event_free(s->wake);
    if (s->accept_timer)
        event_free(s->accept_timer);
    if (s->chunk_buf)
        evbuffer_free(s->chunk_buf);
    tc_buf_free(&s->chunk_text);
    tc_sim_sched_free(s->sched);
    if (s->sig_int)
        event_free(s->sig_int);
    if (s->sig_term)
        event_free(s->sig_term);
    for (int i = 0; i < 2; i++)
        if (s->wake_fds[i] >= 0)
            close(s->wake_fds[i]);
    if (s->base)
        event_base_free(s->base);
    if (s->truth)
        fclose(s->truth);
    for (int i = 0; i < s->n_models; i++)
        free(s->models[i]);
    free(s->host);
    free(s->late_bins);
    free(s);
}
