/* One inference request in the simulator, from arrival to its last byte:
 *
 *   ACCEPT_WAIT --(slow-accept delay)--> begin: HTTP fault, load reply, or
 *   PREFILL --(TTFT)--> DECODE --(one token per interval)--> finish
 *
 * Every step is a firing of the stream's own timer, scheduled from the
 * previous *due* time (not the firing time), so lateness never accumulates
 * and is measured on every tick. Until its reply starts (the slow-accept
 * wait, a stream:false reply being generated) a stream watches its socket,
 * so that a client that gives up cancels it, as on a real server. */
#include "sim_internal.h"

#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "core/tc_rng.h"
#include "core/tc_time.h"
#include "sim_text.h"
#include "sim_truth.h"
#include "core/tc_grow.h"

typedef enum { ST_ACCEPT_WAIT, ST_PREFILL, ST_DECODE } stream_state;

typedef struct chunk_time {
    int64_t mono_ns; /* 0 until libevent reports it written */
    int64_t wall_ns;
    int tokens;
} chunk_time;

typedef struct sim_stream {
    /* What every token reads first, together in a few cache lines: a token
     * touches 2,000 streams' memory in turn, so each line is a miss. */
    tc_sim_server *srv;
    struct evhttp_request *req; /* NULL once the connection is gone */
    tc_sim_timer timer;         /* its token timer; on_timer finds the stream from it */
    int64_t due;
    int tokens;
    stream_state state;
    int decoding; /* counted in srv->decoding */
    int chunked;  /* the reply uses chunked transfer encoding (HTTP/1.1) */
    /* The connection's socket and output buffer, looked up once when the
     * reply starts: every token needs them (send_direct). */
    int fd;
    int queued; /* bytes may wait in `out`: look before writing past them */
    struct evbuffer *out;
    int has_tmpl;
    int fault_pos;
    int fault_done; /* the fault was applied: only then does the truth name it */
    tc_sim_fault_decision fault;
    tc_rng rng;
    tc_sim_wire_tmpl tmpl; /* its token chunks; empty until it streams */
    tc_sim_request rq;     /* its model name last */

    struct sim_stream *prev, *next;
    struct evhttp_connection *conn;
    struct event *watch; /* EOF on the socket while nothing is sent; NULL when off */
    tc_sim_wire_ctx wire;
    uint64_t no;
    long long client_seq; /* the client's X-Truecost-Seq header, -1 when absent */
    int64_t t_arrival, t_arrival_wall, t_start;
    int64_t first_due;     /* when the first token was due */
    int64_t first_step_ns; /* the first token's decode step (tc_sim_split) */
    int status;
    tc_buf text; /* whole completion, for non-streamed replies */
    tc_buf scratch;
    chunk_time *chunks;
    size_t n_chunks, cap_chunks, unwritten; /* chunks[unwritten..] not yet reported written */
    tc_sim_pending *pending; /* its truth line waits for the last bytes; NULL when not */
} sim_stream;

/* ---- bookkeeping -------------------------------------------------------- */

static void link_stream(tc_sim_server *s, sim_stream *st)
{
    st->next = s->streams;
    if (s->streams)
        s->streams->prev = st;
    s->streams = st;
}

static void unlink_stream(tc_sim_server *s, sim_stream *st)
{
    if (st->prev)
        st->prev->next = st->next;
    else
        s->streams = st->next;
    if (st->next)
        st->next->prev = st->prev;
}

/* Stops watching the socket for the client's hang-up. */
static void unwatch_client(sim_stream *st)
{
    if (st->watch) {
        event_free(st->watch);
        st->watch = NULL;
    }
}

/* Stops listening for the connection's close. The connection is known to
 * be alive only while our request is still attached to it. */
static void detach_conn(sim_stream *st)
{
    unwatch_client(st);
    if (st->conn && st->req && evhttp_request_get_connection(st->req) == st->conn)
        evhttp_connection_set_closecb(st->conn, NULL, NULL);
    st->conn = NULL;
}

static void free_stream(sim_stream *st)
{
    if (st->pending) /* never given its line: nothing will be written for it */
        tc_sim_pending_line(st->pending, &(tc_buf){0}, 0, 0);
    if (st->decoding)
        st->srv->decoding--;
    detach_conn(st);
    unlink_stream(st->srv, st);
    tc_sim_sched_cancel(st->srv->sched, &st->timer);
    tc_buf_free(&st->text);
    tc_buf_free(&st->scratch);
    tc_sim_wire_tmpl_free(&st->tmpl);
    free(st->chunks);
    free(st);
}

static void note_chunk(sim_stream *st, int tokens)
{
    if (!st->srv->truth)
        return;
    if (tc_grow(&st->chunks, &st->cap_chunks, st->n_chunks, sizeof *st->chunks, 64) < 0)
        return; /* truth is best effort under memory pressure; serving goes on */
    st->chunks[st->n_chunks++] = (chunk_time){0, 0, tokens};
}

/* Stamps every chunk not yet stamped with the current time. */
static void stamp_written(sim_stream *st)
{
    int64_t mono = tc_mono_ns(), wall = tc_wall_ns();
    for (; st->unwritten < st->n_chunks; st->unwritten++) {
        st->chunks[st->unwritten].mono_ns = mono;
        st->chunks[st->unwritten].wall_ns = wall;
    }
}

/* libevent calls this when the connection's output has drained into the
 * socket: the moment the chunks were handed to the kernel. */
static void on_written(struct evhttp_connection *conn, void *arg)
{
    (void)conn;
    stamp_written(arg);
}

/* The stream's truth line into st->scratch; *outcome_at and *outcome_end
 * get where the outcome's text sits in it. */
static tc_err format_truth(sim_stream *st, const char *outcome, size_t *outcome_at,
                           size_t *outcome_end)
{
    stamp_written(st);
    tc_buf *b = &st->scratch;
    char when[40];
    tc_buf_reset(b);
    tc_buf_printf(b, "{\"id\":%llu,\"client_seq\":%lld,\"route\":\"%s\",\"model\":",
                  (unsigned long long)st->no, st->client_seq, tc_sim_route_path(st->rq.route));
    tc_buf_json_str(b, st->wire.model, strlen(st->wire.model));
    tc_buf_printf(b,
                  ",\"arrival_mono_ns\":%lld,\"arrival_utc\":\"%s\",\"status\":%d,"
                  "\"stream\":%s,\"prompt_tokens\":%d,\"prompt_words\":%d,"
                  "\"ignore_eos\":%s,\"eos\":%s,\"tokens_sent\":%d,\"fault\":\"%s\","
                  "\"slow_accept_ms\":%lld,\"decode_tps\":%.3f,\"leaked_kb\":%llu,"
                  "\"outcome\":\"",
                  (long long)st->t_arrival, tc_rfc3339_ns(st->t_arrival_wall, when, sizeof when),
                  st->status, st->rq.stream ? "true" : "false", st->rq.prompt_tokens,
                  st->rq.prompt_words, st->rq.ignore_eos ? "true" : "false",
                  st->rq.eos ? "true" : "false", st->tokens,
                  tc_sim_fault_name(st->fault_done ? st->fault.kind : TC_FAULT_NONE),
                  (long long)st->fault.slow_accept_ms, tc_sim_timing_now(st->srv).decode_tps,
                  (unsigned long long)st->srv->leaked_kb);
    *outcome_at = b->len;
    tc_buf_puts(b, outcome);
    *outcome_end = b->len;
    tc_buf_puts(b, "\",\"chunks\":[");
    for (size_t i = 0; i < st->n_chunks; i++)
        tc_buf_printf(b, "%s{\"mono_ns\":%lld,\"utc\":\"%s\",\"tokens\":%d}", i ? "," : "",
                      (long long)st->chunks[i].mono_ns,
                      tc_rfc3339_ns(st->chunks[i].wall_ns, when, sizeof when),
                      st->chunks[i].tokens);
    tc_buf_puts(b, "]}\n");
    return tc_buf_status(b);
}

/* Writes the truth line now, or hands it to the reply's pending watch so
 * that it says "complete" only once the reply is out. */
static void write_truth(sim_stream *st, const char *outcome)
{
    FILE *f = st->srv->truth;
    if (!f)
        return;
    size_t at, end;
    tc_err rc = format_truth(st, outcome, &at, &end);
    if (st->pending) {
        if (rc == TC_OK)
            tc_sim_pending_line(st->pending, &st->scratch, at, end);
        else
            tc_sim_pending_line(st->pending, &(tc_buf){0}, 0, 0);
        st->pending = NULL;
    } else if (rc == TC_OK) {
        fwrite(st->scratch.data, 1, st->scratch.len, f);
        fflush(f); /* a crash-after exit must not lose lines */
    }
}

static void crash_now(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    tc_sim_server *s = arg;
    s->crashed = 1;
    event_base_loopbreak(s->base);
}

static void on_sent_crash(struct evhttp_request *req, void *arg)
{
    (void)req;
    crash_now(-1, 0, arg);
}

/* Ends the stream: truth line, crash-after accounting, free. The reply
 * must already be complete (or the connection gone). */
static void finish(sim_stream *st, const char *outcome)
{
    tc_sim_server *s = st->srv;
    tc_sim_leak(s);
    write_truth(st, outcome);
    s->finished++;
    free_stream(st);
    if (s->cfg.faults.crash_after && s->finished >= (uint64_t)s->cfg.faults.crash_after) {
        s->crashed = 1;
        event_base_loopbreak(s->base);
    }
}

/* Arranges for the truth line to wait until this reply is on the wire, and
 * for crash-after to strike only then. */
static void watch_last_bytes(sim_stream *st)
{
    tc_sim_server *s = st->srv;
    if (!st->req)
        return;
    int crash = s->cfg.faults.crash_after && s->finished + 1 >= (uint64_t)s->cfg.faults.crash_after;
    if (s->truth)
        st->pending = tc_sim_pending_watch(s, st->req, crash);
    if (crash && !st->pending)
        evhttp_request_set_on_complete_cb(st->req, on_sent_crash, s);
}

/* Ends a stream whose final bytes were just queued: crash-after, if due,
 * strikes from the request's on-complete callback, once they are sent. */
static void finish_reply(sim_stream *st, const char *outcome)
{
    tc_sim_server *s = st->srv;
    tc_sim_leak(s);
    write_truth(st, outcome);
    s->finished++;
    free_stream(st);
    if (s->cfg.faults.crash_after && s->finished >= (uint64_t)s->cfg.faults.crash_after) {
        /* In case the on-complete callback never comes (client gone). */
        struct timeval grace = {0, 200000};
        event_base_once(s->base, -1, EV_TIMEOUT, crash_now, s, &grace);
    }
}

/* Call before queueing a reply's last bytes. */
static void before_last_send(sim_stream *st)
{
    watch_last_bytes(st);
    detach_conn(st);
}

/* The client went away (or the server is shutting the connection). */
static void on_close(struct evhttp_connection *conn, void *arg)
{
    sim_stream *st = arg;
    /* A request still attached is freed by libevent right after this
     * callback; a detached one is ours to free. */
    if (st->req && evhttp_request_get_connection(st->req) == NULL)
        evhttp_request_free(st->req);
    (void)conn;
    st->req = NULL;
    st->conn = NULL;
    finish(st, "client_closed");
}

/* The socket of a stream that has sent nothing yet became readable. libevent
 * reads nothing once the request is in, and notices a hang-up only when it
 * writes, so a stream:false client that gave up would otherwise be served
 * (and keep its place in the batch) to the end. */
static void on_client_readable(evutil_socket_t fd, short what, void *arg)
{
    sim_stream *st = arg;
    char c;
    (void)what;
    ssize_t n = recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
        return;
    if (n > 0 || !st->conn) {
        /* Bytes of a pipelined next request: the client is there. Stop
         * watching, or the level-triggered event fires on every loop turn. */
        unwatch_client(st);
        return;
    }
    /* End of file or a reset: the client is gone (a half-close counts, as
     * on Ollama's and vLLM's servers). Closing the connection calls on_close,
     * which ends the stream with outcome client_closed and frees it. */
    evhttp_connection_free(st->conn);
}

static void watch_client(sim_stream *st)
{
    struct bufferevent *bev = st->conn ? evhttp_connection_get_bufferevent(st->conn) : NULL;
    evutil_socket_t fd = bev ? bufferevent_getfd(bev) : -1;
    if (fd < 0)
        return;
    st->watch = event_new(st->srv->base, fd, EV_READ | EV_PERSIST, on_client_readable, st);
    if (st->watch && event_add(st->watch, NULL) < 0)
        unwatch_client(st); /* best effort: the hang-up is then noticed at the reply */
}

/* ---- sending ------------------------------------------------------------ */

/* A chunk's body is built in the server's chunk_text (one buffer for all
 * streams, so it stays in cache) after room for its HTTP chunk size line
 * (at most 8 hex digits and CRLF): the whole chunk then goes out in one
 * write from one buffer. */
#define FRAME_ROOM 10

/* Empties the chunk buffer for the next chunk's body and returns it. */
static tc_buf *chunk_start(sim_stream *st)
{
    tc_buf *b = &st->srv->chunk_text;
    tc_buf_reset(b);
    tc_buf_append(b, "          ", FRAME_ROOM);
    return b;
}

/* Writes the chunk built in `b` straight to the socket when nothing is
 * queued before it: one write instead of evhttp's queue-then-poll round
 * (two epoll_ctl calls and a loop turn per token), and the truth stamp is
 * the moment the kernel took the bytes. Returns 0 when the caller must use
 * the evhttp path (something queued, socket full, or not a chunked reply). */
static int send_direct(sim_stream *st, tc_buf *b)
{
    if (!st->chunked || st->fd < 0)
        return 0;
    if (st->queued) {
        if (evbuffer_get_length(st->out) != 0)
            return 0;
        st->queued = 0; /* drained: until the next time something is queued */
    }
    size_t body_len = b->len - FRAME_ROOM;
    tc_buf_append(b, "\r\n", 2);
    if (tc_buf_status(b) != TC_OK)
        return 0; /* out of memory: the append did nothing, b holds the body alone */
    static const char hex[] = "0123456789abcdef";
    char *start = b->data + FRAME_ROOM - 2;
    memcpy(start, "\r\n", 2);
    size_t v = body_len;
    do {
        *--start = hex[v & 15];
        v >>= 4;
    } while (v && start > b->data);
    size_t total = (size_t)(b->data + b->len - start);
    ssize_t n = write(st->fd, start, total);
    b->len -= 2; /* the body alone again, should the evhttp path need it */
    if (n <= 0)
        return 0;            /* EAGAIN, or a broken connection that evhttp will notice and report */
    if ((size_t)n < total) { /* the rest goes out in order through libevent */
        evbuffer_add(st->out, start + n, total - (size_t)n); /* the bufferevent sends it */
        st->queued = 1;
    }
    return 1;
}

/* Sends the chunk built since chunk_start. */
static void send_chunk(sim_stream *st, int tokens)
{
    tc_buf *b = &st->srv->chunk_text;
    /* Out of memory: better no chunk than a cut one. */
    if (!st->req || tc_buf_status(b) != TC_OK || b->len <= FRAME_ROOM)
        return;
    note_chunk(st, tokens);
    if (send_direct(st, b)) {
        if (st->srv->truth)
            stamp_written(st);
        return;
    }
    struct evbuffer *eb = st->srv->chunk_buf;
    evbuffer_add(eb, b->data + FRAME_ROOM, b->len - FRAME_ROOM); /* evhttp drains it: reused */
    evhttp_send_reply_chunk_with_cb(st->req, eb, st->srv->truth ? on_written : NULL, st);
    st->queued = 1;
}

static void arm(sim_stream *st)
{
    /* Out of memory here leaves the stream unscheduled (its client times
     * out); it is freed with the server. Serving the others matters more. */
    tc_err rc = tc_sim_sched_at(st->srv->sched, &st->timer, st->due);
    (void)rc;
}

static void metrics_of(const sim_stream *st, int64_t now, tc_sim_metrics *m)
{
    memset(m, 0, sizeof *m);
    m->prompt_tokens = st->rq.prompt_tokens;
    m->completion_tokens = st->tokens;
    m->done_reason = st->rq.load_only ? "load" : st->rq.eos ? "stop" : "length";
    /* With tokens, the request ends when the last one was due, so that
     * load + prompt eval + eval = total exactly, as in Ollama. */
    m->total_ns = (st->tokens > 0 ? st->due : now) - st->t_arrival;
    m->load_ns = st->t_start - st->t_arrival;
    if (st->tokens > 0) {
        /* As Ollama reports it: the first token's decode step belongs to
         * eval, the rest of the TTFT to prompt eval (sim_model.h). The spans
         * come from the schedule (due times), which is what the simulated
         * model did; the timer's lateness is measured separately and kept in
         * the truth file, so it does not distort eval_count / eval_duration. */
        tc_sim_split(st->first_due - st->t_start, st->first_step_ns, st->due - st->first_due,
                     &m->prompt_eval_ns, &m->eval_ns);
    }
}

static void reply_whole(sim_stream *st, int64_t now)
{
    tc_sim_metrics m;
    metrics_of(st, now, &m);
    tc_buf *b = &st->scratch;
    tc_buf_reset(b);
    tc_sim_wire_full(&st->wire, st->text.data ? st->text.data : "", st->text.len, tc_wall_ns(), &m,
                     b);
    if (st->fault.kind == TC_FAULT_MALFORMED && !st->rq.load_only) {
        b->len /= 2; /* a truncated body: invalid JSON */
        st->fault_done = 1;
    }
    before_last_send(st);
    if (st->req) {
        note_chunk(st, st->tokens);
        tc_sim_send(st->req, 200, "application/json", b->data, b->len);
    }
    st->req = NULL;
    finish_reply(st, "complete");
}

static void end_stream(sim_stream *st, int64_t now)
{
    tc_sim_metrics m;
    metrics_of(st, now, &m);
    tc_sim_wire_stream_end(&st->wire, tc_wall_ns(), &m, chunk_start(st));
    send_chunk(st, 0);
    before_last_send(st);
    if (st->req)
        evhttp_send_reply_end(st->req);
    st->req = NULL;
    finish_reply(st, "complete");
}

/* ---- the state machine -------------------------------------------------- */

/* The reply starts streaming: looks up what every token will need. The
 * headers were just queued in the connection's output, hence `queued`. */
static void use_connection(sim_stream *st)
{
    struct evhttp_connection *conn = evhttp_request_get_connection(st->req);
    struct bufferevent *bev = conn ? evhttp_connection_get_bufferevent(conn) : NULL;
    st->fd = bev ? bufferevent_getfd(bev) : -1;
    st->out = bev ? bufferevent_get_output(bev) : NULL;
    st->queued = 1;
    /* Out of memory: the tokens are formatted the slow way. */
    st->has_tmpl = tc_sim_wire_tmpl_init(&st->wire, &st->tmpl) == TC_OK;
}

static void begin(sim_stream *st)
{
    tc_sim_server *s = st->srv;
    st->t_start = tc_mono_ns();
    int http = st->fault.kind == TC_FAULT_HTTP500   ? 500
               : st->fault.kind == TC_FAULT_HTTP503 ? 503
                                                    : 0;
    if (http) {
        st->status = http;
        st->fault_done = 1;
        before_last_send(st);
        tc_sim_send_error(st->req, st->rq.route, http,
                          http == 500 ? "simulated internal server error (fault http500)"
                                      : "simulated server overload (fault http503)");
        st->req = NULL;
        finish_reply(st, tc_sim_fault_name(st->fault.kind));
        return;
    }
    st->status = 200;
    if (st->rq.load_only) {
        /* Nothing is generated, so a mid-stream fault (disconnect,
         * malformed, stall) has nowhere to strike: fault_done stays 0 and
         * the truth says "none". */
        reply_whole(st, tc_mono_ns());
        return;
    }
    if (st->rq.stream) {
        unwatch_client(st); /* the reply starts: libevent notices a hang-up from here */
        tc_sim_headers(st->req, tc_sim_wire_stream_type(st->rq.route));
        evhttp_add_header(evhttp_request_get_output_headers(st->req), "Cache-Control", "no-cache");
        evhttp_send_reply_start(st->req, 200, "OK");
        const char *te =
            evhttp_find_header(evhttp_request_get_output_headers(st->req), "Transfer-Encoding");
        st->chunked = te && strcmp(te, "chunked") == 0;
        use_connection(st);
        tc_sim_wire_stream_start(&st->wire, tc_wall_ns(), chunk_start(st));
        send_chunk(st, 0);
    }
    st->state = ST_PREFILL;
    /* The stream holds its batch slot from its prefill on, as continuous
     * batching schedules a prefill into the batch: counted from here, its
     * first token is paid for at the batch's rate like every other one, so
     * the aggregate never passes decode_tps x max_batch (sim_model.h). */
    st->decoding = 1;
    s->decoding++;
    tc_sim_timing now_timing = tc_sim_timing_now(s);
    st->first_step_ns = tc_sim_interval_ns(&now_timing, s->decoding);
    st->due = st->t_start +
              tc_sim_first_token_ns(&s->cfg.timing, st->rq.prompt_tokens, st->first_step_ns) +
              tc_sim_jitter_ns(&s->cfg.timing, &st->rng);
    arm(st);
}

/* Applies a mid-stream fault due before token `tokens` (for a non-streamed
 * reply: partway through generating it). Returns 1 when the stream must
 * not produce the token now. */
static int mid_stream_fault(sim_stream *st)
{
    if (st->fault_done || st->tokens != st->fault_pos)
        return 0;
    switch (st->fault.kind) {
    case TC_FAULT_DISCONNECT: {
        struct evhttp_connection *conn = st->req ? evhttp_request_get_connection(st->req) : NULL;
        st->fault_done = 1;
        detach_conn(st);
        st->req = NULL; /* freed with the connection */
        if (conn)
            evhttp_connection_free(conn);
        finish(st, "disconnect");
        return 1;
    }
    case TC_FAULT_MALFORMED:
        if (!st->rq.stream)
            return 0; /* the whole reply is cut short instead (reply_whole) */
        st->fault_done = 1;
        tc_sim_wire_malformed(&st->wire, chunk_start(st));
        send_chunk(st, 0);
        return 0;
    case TC_FAULT_STALL:
        st->fault_done = 1;
        st->due += st->fault.stall_ms * TC_NS_PER_MS;
        arm(st);
        return 1;
    default:
        return 0;
    }
}

static void emit_token(sim_stream *st, int64_t now)
{
    /* `now` is the firing time; the metrics use the schedule (due times). */
    tc_sim_server *s = st->srv;
    char word[TC_SIM_TOKEN_MAX];
    size_t n = tc_sim_token_text(s->cfg.seed, st->rq.prompt_hash, st->tokens, word);
    (void)now;
    if (st->tokens == 0) {
        st->first_due = st->due;
        st->state = ST_DECODE;
    }
    int is_last = st->tokens + 1 >= st->rq.max_tokens;
    st->tokens++;
    s->tokens++;
    if (!st->rq.stream) {
        tc_buf_append(&st->text, word, n);
        return;
    }
    tc_buf *b = chunk_start(st);
    if (!is_last && st->has_tmpl) {
        int64_t wall = tc_sim_wire_tmpl_needs_time(&st->tmpl) ? tc_wall_ns() : 0;
        tc_sim_wire_token_fast(&st->tmpl, word, n, st->tokens - 1, wall, b);
    } else {
        tc_sim_metrics m;
        if (is_last)
            metrics_of(st, now, &m);
        tc_sim_wire_token(&st->wire, word, n, st->tokens - 1, tc_wall_ns(), is_last,
                          is_last ? &m : NULL, b);
    }
    send_chunk(st, 1);
}

static sim_stream *stream_of(tc_sim_timer *t)
{
    return (sim_stream *)((char *)t - offsetof(sim_stream, timer));
}

/* Starts loading what the next stream's token will read (its fields up to
 * and with its template) while this one's write is in the kernel: the
 * streams take turns, so that memory has long left the cache. */
static void prefetch_next(const tc_sim_server *s)
{
    tc_sim_timer *t = tc_sim_sched_peek(s->sched);
    if (!t)
        return;
    const char *p = (const char *)stream_of(t);
    for (size_t off = 0; off < offsetof(sim_stream, rq); off += 64)
        __builtin_prefetch(p + off, 1);
}

/* The scheduler fires it only once due: never early, which would flatter
 * the client. */
static void on_timer(tc_sim_timer *t, int64_t now)
{
    sim_stream *st = stream_of(t);
    tc_sim_server *s = st->srv;
    prefetch_next(s);
    if (st->state == ST_ACCEPT_WAIT) {
        begin(st);
        return;
    }
    tc_sim_note_lateness(s, now - st->due);
    if (mid_stream_fault(st))
        return;
    emit_token(st, now);
    if (st->tokens >= st->rq.max_tokens) {
        if (st->rq.stream)
            end_stream(st, now);
        else
            reply_whole(st, now);
        return;
    }
    tc_sim_timing now_timing = tc_sim_timing_now(s);
    st->due +=
        tc_sim_interval_ns(&now_timing, s->decoding) + tc_sim_jitter_ns(&s->cfg.timing, &st->rng);
    arm(st);
}

/* ---- entry -------------------------------------------------------------- */

static int reject(struct evhttp_request *req, tc_sim_route route, tc_sim_request *rq,
                  tc_sim_server *s, const char **model)
{
    struct evbuffer *in = evhttp_request_get_input_buffer(req);
    size_t len = evbuffer_get_length(in);
    char msg[512];
    if (len > s->cfg.max_body_bytes) {
        snprintf(msg, sizeof msg,
                 "request body is %zu bytes; the limit is %zu (start truecost sim with a "
                 "larger --max-body-bytes, or send a shorter prompt)",
                 len, s->cfg.max_body_bytes);
        tc_sim_send_error(req, route, 413, msg);
        return 1;
    }
    int status = tc_sim_request_parse(route, (const char *)evbuffer_pullup(in, -1), len, rq, msg,
                                      sizeof msg);
    if (status) {
        tc_sim_send_error(req, route, status, msg);
        return 1;
    }
    int idx = rq->model[0] ? tc_sim_find_model(s, rq->model) : 0;
    if (idx < 0) {
        if (route == TC_ROUTE_OLLAMA_GENERATE || route == TC_ROUTE_OLLAMA_CHAT)
            snprintf(msg, sizeof msg, "model \"%s\" not found, try pulling it first", rq->model);
        else
            snprintf(msg, sizeof msg, "The model `%s` does not exist.", rq->model);
        tc_sim_send_error(req, route, 404, msg);
        return 1;
    }
    *model = s->models[idx];
    return 0;
}

/* The simulated tokeniser and the model's EOS: the prompt counted at the
 * configured tokens per word; with --eos-after, the answer ends there
 * (done_reason "stop") unless the request asks to ignore EOS, which
 * vLLM, SGLang and llama.cpp honour and Ollama does not know. The truth
 * line's ignore_eos says whether it was honoured. */
static void shape(const tc_sim_server *s, tc_sim_request *rq)
{
    tc_sim_scale_prompt(rq, s->cfg.tokens_per_word);
    int ollama = rq->route == TC_ROUTE_OLLAMA_GENERATE || rq->route == TC_ROUTE_OLLAMA_CHAT;
    if (ollama)
        rq->ignore_eos = 0;
    if (s->cfg.eos_after > 0 && !rq->ignore_eos && !rq->load_only &&
        rq->max_tokens > s->cfg.eos_after) {
        rq->max_tokens = s->cfg.eos_after;
        rq->eos = 1;
    }
}

void tc_sim_stream_start(tc_sim_server *s, struct evhttp_request *req, tc_sim_route route)
{
    int64_t arrival = tc_mono_ns();
    tc_sim_request rq;
    const char *model = NULL;
    if (reject(req, route, &rq, s, &model))
        return;
    sim_stream *st = calloc(1, sizeof *st);
    if (!st) {
        evhttp_send_error(req, 500, "out of memory");
        return;
    }
    tc_sim_timer_init(&st->timer, on_timer);
    st->fd = -1;
    st->srv = s;
    st->req = req;
    st->conn = evhttp_request_get_connection(req);
    st->rq = rq;
    st->no = ++s->requests;
    /* truecost run numbers its requests, so accuracy checks can pair each
     * measured request with the simulator's truth for it. */
    const char *seq = evhttp_find_header(evhttp_request_get_input_headers(req), "X-Truecost-Seq");
    st->client_seq = seq ? strtoll(seq, NULL, 10) : -1;
    st->t_arrival = arrival;
    st->t_arrival_wall = tc_wall_ns();
    shape(s, &st->rq);
    st->wire = (tc_sim_wire_ctx){route, model, st->no, st->t_arrival_wall / TC_NS_PER_S,
                                 rq.stream && rq.include_usage};
    st->fault = tc_sim_fault_decide(&s->cfg.faults, s->cfg.seed, st->no);
    st->fault_pos = tc_sim_fault_position(st->rq.max_tokens);
    tc_rng_seed(&st->rng, tc_hash3(s->cfg.seed, st->no, 0x6a));
    st->state = ST_ACCEPT_WAIT;
    link_stream(s, st);
    if (st->conn) {
        evhttp_connection_set_closecb(st->conn, on_close, st);
        watch_client(st);
    }
    if (st->fault.slow_accept_ms > 0) {
        st->due = arrival + st->fault.slow_accept_ms * TC_NS_PER_MS;
        arm(st);
        return;
    }
    begin(st);
}

int tc_sim_stream_drop_all(tc_sim_server *s, const char *outcome)
{
    int n = 0;
    while (s->streams) {
        sim_stream *st = s->streams;
        write_truth(st, outcome);
        free_stream(st);
        n++;
    }
    return n + tc_sim_pending_drop_all(s, outcome);
}
