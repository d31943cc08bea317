/* The load generator's event loop: libcurl's multi_socket interface driven
 * by our own epoll, so each wake-up touches only the connections with data
 * (curl_multi_perform would walk every handle on every chunk). */
#include "bench_runner.h"

#include <curl/curl.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "bench_arrival.h"
#include "bench_body.h"
#include "bench_stream.h"
#include "core/tc_buf.h"
#include "core/tc_time.h"

#define BATCH_AGE_NS (500 * TC_NS_PER_MS)
#define PROGRESS_NS (200 * TC_NS_PER_MS)
#define STOP_GRACE_NS TC_NS_PER_S
#define ERROR_BODY_MAX 2048
/* After a failed save (say the database stayed locked past its busy
 * timeout) the run stops sending, and the records kept so far are offered
 * again this often, for save_patience_s (default 30 s), then given up. */
#define SAVE_RETRY_NS (500 * TC_NS_PER_MS)
/* An open loop's slots made before the first send; more as needed. */
#define OPEN_SLOTS_AHEAD 64

typedef struct runner runner;

typedef struct slot {
    runner *r;
    int index; /* in runner.slots */
    CURL *easy;
    int busy;
    int connected; /* on_prereq ran: the request went out on a connection (new or reused) */
    int got_bytes; /* any response byte (header or body) arrived */
    tc_buf body;
    tc_buf error_body;
    tc_req_record rec;
    tc_stream_parser *parser;
    struct curl_slist *headers; /* the shared headers plus this slot's X-Truecost-Seq */
    char curl_error[CURL_ERROR_SIZE];
} slot;

struct runner {
    const tc_runner_config *cfg;
    tc_runner_result *res;
    CURLM *multi;
    int epfd;
    int64_t timer_due_ns; /* curl's timeout, absolute; -1 = none */
    /* When epoll_wait returned: the bytes of every socket it reported were
     * there by then, so chunks read while the batch is worked through are
     * stamped with it, not with how far the loop had got (0 = outside a
     * batch: stamp now). */
    int64_t wake_ns;
    struct curl_slist *headers;
    char url[640];
    /* Made as needed up to cap (a closed loop makes them all at once);
     * by pointer, since curl holds each slot's address. */
    slot **slots;
    int n_slots, cap, busy;
    int *free_slots; /* stack of indices of idle slots */
    int n_free;

    /* Open loop: the schedule, the intended time of the next measured
     * request (0 until the measured phase starts), and the timerfd that
     * wakes the loop then (armed for timer_at_ns; 0 = disarmed). */
    int open;
    tc_schedule sched;
    int64_t next_due_ns, sched_start_ns;
    double sched_t_s; /* the next arrival, in seconds from sched_start_ns */
    int timerfd;
    int64_t timer_at_ns;

    int64_t next_seq, sent_warmup, done_warmup, sent_measured, done_measured, failed;
    int64_t measure_start_ns; /* 0 until the first measured request is sent */
    int64_t stop_deadline_ns; /* 0 until *stop is seen */

    /* TC_RUNNER_BATCH_MAX, plus room for every request in flight when a
     * save fails: nothing more is sent then, so the batch cannot outgrow
     * it. */
    tc_req_record *batch;
    size_t n_batch;
    int64_t batch_since_ns;
    int batch_failed;
    int64_t hold_until_ns; /* closed loop: nothing is sent before (fail_pause_s) */

    int64_t chunks_measured, rate_chunks, rate_at_ns, last_progress_ns;
    double rate;

    tc_prompt synth_prompt; /* a synthetic workload's prompt, made per request */
    tc_buf synth_text;
};

/* ---- curl callbacks ------------------------------------------------------ */

static int on_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
{
    (void)easy;
    runner *r = userp;
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(r->epfd, EPOLL_CTL_DEL, fd, NULL);
        return 0;
    }
    struct epoll_event ev = {0};
    ev.data.fd = fd;
    ev.events = ((what & CURL_POLL_IN) ? EPOLLIN : 0) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0);
    int op = socketp ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    if (epoll_ctl(r->epfd, op, fd, &ev) < 0) /* out of step with curl: try the other way */
        epoll_ctl(r->epfd, errno == EEXIST ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev);
    curl_multi_assign(r->multi, fd, (void *)1);
    return 0;
}

static int on_timer(CURLM *multi, long timeout_ms, void *userp)
{
    (void)multi;
    runner *r = userp;
    r->timer_due_ns = timeout_ms < 0 ? -1 : tc_mono_ns() + (int64_t)timeout_ms * TC_NS_PER_MS;
    return 0;
}

/* The request is about to go out on a ready connection: its send time. */
static int on_prereq(void *userp, char *conn_primary_ip, char *conn_local_ip, int conn_primary_port,
                     int conn_local_port)
{
    (void)conn_primary_ip;
    (void)conn_local_ip;
    (void)conn_primary_port;
    (void)conn_local_port;
    slot *s = userp;
    s->connected = 1;
    s->rec.send_wall_ns = tc_wall_ns();
    s->rec.send_ns = tc_mono_ns();
    return CURL_PREREQFUNC_OK;
}

/* The parser could not keep a chunk time or count: the record would be
 * silently wrong, so the request fails, saying why. */
static void out_of_memory(tc_req_record *rec)
{
    rec->error = TC_REQ_DISCONNECT;
    snprintf(rec->error_detail, sizeof rec->error_detail,
             "truecost ran out of memory keeping this stream");
}

static size_t on_write(char *data, size_t size, size_t nmemb, void *userp)
{
    slot *s = userp;
    size_t n = size * nmemb;
    /* A request sent in this very batch cannot have had its bytes waiting at
     * the wake-up: those are stamped now. */
    int64_t now = s->r->wake_ns;
    if (now == 0 || now < s->rec.send_ns)
        now = tc_mono_ns();
    if (s->rec.http_status == 0) {
        long status = 0;
        curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
        s->rec.http_status = (int)status;
    }
    s->rec.end_ns = now;
    s->got_bytes = 1;
    if (s->rec.http_status < 200 || s->rec.http_status >= 300) {
        if (s->error_body.len < ERROR_BODY_MAX)
            tc_buf_append(
                &s->error_body, data,
                n < ERROR_BODY_MAX - s->error_body.len ? n : ERROR_BODY_MAX - s->error_body.len);
        return n;
    }
    size_t before = s->rec.n_chunks;
    if (tc_stream_feed(s->parser, data, n, now, &s->rec) != TC_OK) {
        out_of_memory(&s->rec);
        return 0; /* curl ends the transfer */
    }
    if (!s->rec.warmup)
        s->r->chunks_measured += (int64_t)(s->rec.n_chunks - before);
    return n;
}

/* ---- sending ------------------------------------------------------------- */

/* Open loop: whether arrivals remain on the schedule (once it started). */
static int arrivals_left(const runner *r)
{
    const tc_runner_config *c = r->cfg;
    if (c->duration_s > 0)
        return r->next_due_ns - r->sched_start_ns < (int64_t)(c->duration_s * (double)TC_NS_PER_S);
    return r->sent_measured < c->requests;
}

static int can_send(runner *r, int64_t now)
{
    const tc_runner_config *c = r->cfg;
    if (r->stop_deadline_ns || r->batch_failed || now < r->hold_until_ns)
        return 0;
    if (r->sent_warmup < c->warmup)
        return 1;
    if (r->done_warmup < c->warmup)
        return 0; /* the measured phase waits for a warm server */
    if (r->open)  /* the schedule starts with the measured phase */
        return r->next_due_ns == 0 || (arrivals_left(r) && r->next_due_ns <= now);
    if (c->duration_s > 0)
        return r->measure_start_ns == 0 ||
               now - r->measure_start_ns < (int64_t)(c->duration_s * (double)TC_NS_PER_S);
    return r->sent_measured < c->requests;
}

/* Open loop: whether more measured requests will be sent, now or later. */
static int more_to_send(const runner *r)
{
    const tc_runner_config *c = r->cfg;
    if (r->stop_deadline_ns || r->batch_failed)
        return 0;
    if (!r->open) /* a closed loop waits out a pause after a failure */
        return r->hold_until_ns > tc_mono_ns();
    if (r->sent_warmup < c->warmup || r->done_warmup < c->warmup)
        return 1;
    return r->next_due_ns == 0 || arrivals_left(r);
}

/* Open loop: the measured request about to start takes the next arrival
 * as its intended time; the schedule starts at the first one. */
static int64_t take_arrival(runner *r, int64_t now)
{
    if (r->next_due_ns == 0)
        r->sched_start_ns = r->next_due_ns = now;
    int64_t due = r->next_due_ns;
    /* Summed in seconds from the start, so rounding never drifts. */
    r->sched_t_s += tc_schedule_next_gap_s(&r->sched);
    r->next_due_ns = r->sched_start_ns + (int64_t)llround(r->sched_t_s * 1e9);
    return due;
}

static tc_err start_request(runner *r, slot *s, int64_t now, char *err, size_t errlen)
{
    const tc_runner_config *c = r->cfg;
    int64_t seq = r->next_seq++;
    int warm = r->sent_warmup < c->warmup;
    const tc_prompt *p = tc_prompts_at(c->prompts, seq, &r->synth_prompt, &r->synth_text);
    if (!p || tc_body_build(c->api, c->model, p, c->max_tokens, &s->body) != TC_OK)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory building a request");
    tc_req_record_init(&s->rec);
    tc_buf_reset(&s->error_body);
    s->curl_error[0] = '\0';
    if (tc_stream_reset(s->parser, c->api, 1) != TC_OK)
        return tc_fail(err, errlen, TC_ERR_INVALID, "unknown API");
    s->rec.seq = seq;
    s->rec.warmup = warm;
    /* Rewritten in place: the header's width is fixed, so no allocation. */
    snprintf(s->headers->data, strlen(s->headers->data) + 1, "X-Truecost-Seq: %012lld",
             (long long)seq);
    curl_easy_setopt(s->easy, CURLOPT_POSTFIELDS, s->body.data);
    curl_easy_setopt(s->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)s->body.len);
    if (warm)
        r->sent_warmup++;
    else {
        if (r->open)
            s->rec.sched_ns = take_arrival(r, now);
        r->sent_measured++;
        if (!r->measure_start_ns)
            r->measure_start_ns = r->open ? s->rec.sched_ns : now;
    }
    /* Provisional: on_prereq replaces it when the request really goes out;
     * it stays for a request that never got a connection. */
    s->rec.send_wall_ns = tc_wall_ns();
    s->rec.send_ns = tc_mono_ns();
    s->connected = 0;
    s->got_bytes = 0;
    curl_easy_setopt(s->easy, CURLOPT_FRESH_CONNECT, 0L); /* a retry's, undone */
    if (curl_multi_add_handle(r->multi, s->easy) != CURLM_OK)
        return tc_fail(err, errlen, TC_ERR_NET, "libcurl refused a request");
    s->busy = 1;
    r->busy++;
    return TC_OK;
}

static tc_err setup_slot(runner *r, slot *s);

/* One more slot, pushed on the free stack; TC_ERR_NOMEM when it could
 * not be made. */
static tc_err add_slot(runner *r)
{
    slot *s = calloc(1, sizeof *s);
    if (!s)
        return TC_ERR_NOMEM;
    s->index = r->n_slots;
    r->slots[r->n_slots++] = s; /* teardown frees it whatever setup_slot did */
    if (setup_slot(r, s) != TC_OK)
        return TC_ERR_NOMEM;
    r->free_slots[r->n_free++] = r->n_slots - 1;
    return TC_OK;
}

/* Starts requests on free slots while the workload allows. The free slots
 * are a stack, so this costs nothing when all are busy (the usual case:
 * it runs after every wake-up). An open loop makes a slot when a request
 * is due and none is free, up to the cap. */
static tc_err fill_slots(runner *r, char *err, size_t errlen)
{
    if (r->n_free == 0 && r->n_slots == r->cap)
        return TC_OK;
    int64_t now = tc_mono_ns();
    while (can_send(r, now)) {
        if (r->n_free == 0 && r->n_slots == r->cap)
            break; /* an open loop's request waits for a slot, and is late */
        if (r->n_free == 0 && add_slot(r) != TC_OK)
            return tc_fail(err, errlen, TC_ERR_NOMEM, "cannot set up the HTTP client");
        slot *s = r->slots[r->free_slots[r->n_free - 1]];
        tc_err rc = start_request(r, s, now, err, errlen);
        if (rc != TC_OK)
            return rc;
        r->n_free--;
    }
    return TC_OK;
}

/* ---- finishing ----------------------------------------------------------- */

/* Hands the batch over. A failed save keeps the records (the store rolls
 * the batch back whole), stops the sending, and the batch is offered again
 * later: what was measured is not dropped at the first lock. */
static void flush_batch(runner *r)
{
    if (r->n_batch == 0)
        return;
    if (r->cfg->on_batch && r->cfg->on_batch(r->cfg->ctx, r->batch, r->n_batch) != 0) {
        r->batch_failed = 1;
        return;
    }
    for (size_t i = 0; i < r->n_batch; i++)
        tc_req_record_clear(&r->batch[i]);
    r->n_batch = 0;
}

static double save_patience_s(const tc_runner_config *c)
{
    return c->save_patience_s > 0 ? c->save_patience_s : TC_RUNNER_SAVE_PATIENCE_S;
}

/* After the loop, when a save failed: offers the kept records again until
 * they are taken or the patience runs out. Returns how many were lost. */
static int64_t save_patiently(runner *r)
{
    int64_t give_up = tc_mono_ns() + (int64_t)(save_patience_s(r->cfg) * (double)TC_NS_PER_S);
    while (r->n_batch > 0 && tc_mono_ns() < give_up) {
        struct timespec ts = {0, SAVE_RETRY_NS};
        nanosleep(&ts, NULL);
        flush_batch(r);
    }
    return (int64_t)r->n_batch;
}

/* The server's own words from an error body, when it has the usual shape. */
static void http_error_detail(slot *s)
{
    json_t *doc =
        json_loadb(s->error_body.data ? s->error_body.data : "", s->error_body.len, 0, NULL);
    json_t *e = json_object_get(doc, "error");
    const char *msg = json_string_value(e);
    if (!msg)
        msg = json_string_value(json_object_get(e, "message"));
    if (!msg)
        msg = json_string_value(json_object_get(doc, "detail")); /* FastAPI, e.g. vLLM */
    if (msg)
        snprintf(s->rec.error_detail, sizeof s->rec.error_detail, "HTTP %d: %s", s->rec.http_status,
                 msg);
    else
        snprintf(s->rec.error_detail, sizeof s->rec.error_detail, "HTTP %d: %.120s",
                 s->rec.http_status, s->error_body.data ? s->error_body.data : "(empty body)");
    json_decref(doc);
}

static tc_req_error transport_error(CURLcode code)
{
    switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
        return TC_REQ_CONNECT;
    case CURLE_OPERATION_TIMEDOUT:
        return TC_REQ_TIMEOUT;
    default:
        return TC_REQ_DISCONNECT;
    }
}

static void classify(slot *s, CURLcode code, int64_t now)
{
    tc_req_record *rec = &s->rec;
    if (rec->end_ns == 0)
        rec->end_ns = now;
    if (rec->error != TC_REQ_OK) /* the parser saw it first */
        return;
    if (rec->http_status == 0) { /* a reply without a body never reached on_write */
        long status = 0;
        curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
        rec->http_status = (int)status;
    }
    if (code != CURLE_OK) {
        rec->error = transport_error(code);
        /* By what happened, not by the connect time, which is 0 on a reused
         * connection: a request that never went out never connected. */
        if (code == CURLE_OPERATION_TIMEDOUT && !s->connected)
            rec->error = TC_REQ_CONNECT;
        snprintf(rec->error_detail, sizeof rec->error_detail, "%.199s",
                 s->curl_error[0] ? s->curl_error : curl_easy_strerror(code));
        return;
    }
    if (rec->http_status < 200 || rec->http_status >= 300) {
        rec->error = TC_REQ_HTTP;
        http_error_detail(s);
        return;
    }
    if (tc_stream_finish(s->parser, now, rec) != TC_OK)
        out_of_memory(rec);
}

static void release(runner *r, slot *s)
{
    curl_multi_remove_handle(r->multi, s->easy);
    s->busy = 0;
    r->busy--;
    r->free_slots[r->n_free++] = s->index;
}

/* Died on a kept-alive connection before any response byte: the server
 * had closed it (libcurl's own retries took other pooled connections it
 * had closed too). Nothing reached the server's reply, so sending again
 * on a fresh connection measures the request rather than the pool. */
static int stale_connection(slot *s, CURLcode code)
{
    if (s->rec.retried || s->got_bytes || s->rec.error != TC_REQ_OK)
        return 0;
    if (code != CURLE_SEND_ERROR && code != CURLE_RECV_ERROR && code != CURLE_GOT_NOTHING)
        return 0;
    long new_connections = -1, header_bytes = -1;
    curl_easy_getinfo(s->easy, CURLINFO_NUM_CONNECTS, &new_connections);
    curl_easy_getinfo(s->easy, CURLINFO_HEADER_SIZE, &header_bytes);
    return new_connections == 0 && header_bytes == 0;
}

/* Sends the request once more on a fresh connection; its latency keeps
 * counting from the first attempt's intended send time. 0, or -1 when
 * libcurl refused it (then it fails as it was). */
static int retry_fresh(runner *r, slot *s)
{
    curl_multi_remove_handle(r->multi, s->easy);
    if (s->rec.sched_ns == 0) /* a closed loop meant to send it at the first attempt */
        s->rec.sched_ns = s->rec.send_ns;
    s->rec.retried = 1;
    s->connected = 0;
    s->curl_error[0] = '\0';
    curl_easy_setopt(s->easy, CURLOPT_FRESH_CONNECT, 1L);
    if (curl_multi_add_handle(r->multi, s->easy) != CURLM_OK)
        return -1;
    r->res->retried_stale++;
    return 0;
}

static void finish(runner *r, slot *s, CURLcode code)
{
    if (stale_connection(s, code) && retry_fresh(r, s) == 0)
        return;
    classify(s, code, tc_mono_ns());
    if (s->rec.sched_ns == 0) /* a closed loop sends each request when it means to */
        s->rec.sched_ns = s->rec.send_ns;
    if (s->rec.warmup) {
        r->done_warmup++;
        r->res->warmup++;
    } else {
        r->done_measured++;
        r->res->measured++;
        r->failed += s->rec.error != TC_REQ_OK;
    }
    if (s->rec.error != TC_REQ_OK && !r->open && r->cfg->fail_pause_s > 0)
        r->hold_until_ns = tc_mono_ns() + (int64_t)(r->cfg->fail_pause_s * (double)TC_NS_PER_S);
    r->batch[r->n_batch++] = s->rec; /* the batch owns the chunk array now */
    memset(&s->rec, 0, sizeof s->rec);
    release(r, s);
    if (r->n_batch == 1)
        r->batch_since_ns = tc_mono_ns();
    if (r->n_batch >= TC_RUNNER_BATCH_MAX && !r->batch_failed)
        flush_batch(r);
}

static void reap(runner *r)
{
    CURLMsg *msg;
    int left;
    while ((msg = curl_multi_info_read(r->multi, &left))) {
        if (msg->msg != CURLMSG_DONE)
            continue;
        slot *s = NULL;
        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&s);
        finish(r, s, msg->data.result);
    }
}

/* ---- progress, stop ------------------------------------------------------ */

static void report_progress(runner *r, int64_t now)
{
    if (now - r->last_progress_ns < PROGRESS_NS)
        return;
    r->last_progress_ns = now;
    if (now - r->rate_at_ns >= TC_NS_PER_S) {
        r->rate = (double)(r->chunks_measured - r->rate_chunks) * (double)TC_NS_PER_S /
                  (double)(now - r->rate_at_ns);
        r->rate_chunks = r->chunks_measured;
        r->rate_at_ns = now;
    }
    if (!r->cfg->on_progress)
        return;
    const tc_runner_config *c = r->cfg;
    tc_runner_progress p = {
        .done = r->done_measured,
        .planned = c->duration_s > 0 ? 0 : c->requests,
        .failed = r->failed,
        .in_flight = r->busy,
        .elapsed_s = r->measure_start_ns ? (double)(now - r->measure_start_ns) / 1e9 : 0,
        .duration_s = c->duration_s,
        .output_tokens_per_s = r->rate,
        .warming_up = r->done_warmup < c->warmup,
    };
    c->on_progress(c->ctx, &p);
}

/* On an interrupt: send nothing more, give in-flight requests a second,
 * then cut them off. Returns 1 when the loop should end. */
static int handle_stop(runner *r, int64_t now)
{
    if (!r->stop_deadline_ns) {
        if (!(r->cfg->stop && *r->cfg->stop))
            return 0;
        r->res->interrupted = 1;
        /* Saved before the run is marked: a second Ctrl-C exits at once. */
        if (!r->batch_failed)
            flush_batch(r);
        if (r->cfg->on_stop)
            r->cfg->on_stop(r->cfg->ctx);
        /* The grace counts from here: waiting on the store is not the
         * requests' time. */
        r->stop_deadline_ns = tc_mono_ns() + STOP_GRACE_NS;
    }
    if (r->busy && now < r->stop_deadline_ns)
        return 0;
    /* Cut off what is left, but keep what it measured: stored as failed
     * with kind "interrupted", so it stays out of the latency figures. */
    for (int i = 0; i < r->n_slots; i++) {
        slot *s = r->slots[i];
        if (!s->busy)
            continue;
        s->rec.error = TC_REQ_INTERRUPTED;
        snprintf(s->rec.error_detail, sizeof s->rec.error_detail,
                 "cut off by an interrupt after the one-second grace period");
        r->res->abandoned++;
        finish(r, s, CURLE_OK);
    }
    return 1;
}

/* ---- setup --------------------------------------------------------------- */

static tc_err setup_slot(runner *r, slot *s)
{
    s->r = r;
    s->easy = curl_easy_init();
    s->parser = tc_stream_new(r->cfg->api, 1); /* reset, not reallocated, per request */
    if (!s->easy || !s->parser)
        return TC_ERR_NOMEM;
    const tc_runner_config *c = r->cfg;
    long timeout_ms = (long)(c->timeout_s * 1000.0);
    curl_easy_setopt(s->easy, CURLOPT_URL, r->url);
    s->headers = curl_slist_append(NULL, "X-Truecost-Seq: 000000000000");
    for (struct curl_slist *h = r->headers; h && s->headers; h = h->next)
        if (!curl_slist_append(s->headers, h->data))
            return TC_ERR_NOMEM; /* never send a request without its Authorization line */
    if (!s->headers)
        return TC_ERR_NOMEM;
    curl_easy_setopt(s->easy, CURLOPT_HTTPHEADER, s->headers);
    curl_easy_setopt(s->easy, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(s->easy, CURLOPT_WRITEDATA, s);
    curl_easy_setopt(s->easy, CURLOPT_PRIVATE, s);
    curl_easy_setopt(s->easy, CURLOPT_ERRORBUFFER, s->curl_error);
    curl_easy_setopt(s->easy, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(s->easy, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 10000 ? timeout_ms : 10000L);
    curl_easy_setopt(s->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(s->easy, CURLOPT_TCP_NODELAY, 1L);
    curl_easy_setopt(s->easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(s->easy, CURLOPT_POST, 1L);
    curl_easy_setopt(s->easy, CURLOPT_PREREQFUNCTION, on_prereq);
    curl_easy_setopt(s->easy, CURLOPT_PREREQDATA, s);
    return TC_OK;
}

static tc_err setup(runner *r, char *err, size_t errlen)
{
    const tc_runner_config *c = r->cfg;
    r->timer_due_ns = -1;
    r->epfd = epoll_create1(EPOLL_CLOEXEC);
    r->multi = curl_multi_init();
    if (r->epfd < 0 || !r->multi)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "cannot set up the HTTP client");
    curl_multi_setopt(r->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(r->multi, CURLMOPT_SOCKETDATA, r);
    curl_multi_setopt(r->multi, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt(r->multi, CURLMOPT_TIMERDATA, r);
    curl_multi_setopt(r->multi, CURLMOPT_MAXCONNECTS, (long)c->concurrency + 4);
    if (r->open) {
        tc_schedule_init(&r->sched, c->arrival, c->rate, c->burstiness, c->seed);
        r->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        struct epoll_event ev = {.events = EPOLLIN, .data.fd = r->timerfd};
        if (r->timerfd < 0 || epoll_ctl(r->epfd, EPOLL_CTL_ADD, r->timerfd, &ev) < 0)
            return tc_fail(err, errlen, TC_ERR_IO, "cannot set up the arrival timer: %s",
                           strerror(errno));
    }
    tc_endpoint_url(&c->endpoint, tc_body_route(c->api), r->url, sizeof r->url);

    r->headers = curl_slist_append(NULL, "Content-Type: application/json");
    if (r->headers && !curl_slist_append(r->headers, "Expect:")) /* no 100-continue */
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    if (r->headers && c->api_key && *c->api_key) {
        tc_buf auth = {0};
        tc_buf_printf(&auth, "Authorization: Bearer %s", c->api_key);
        int ok = auth.data && curl_slist_append(r->headers, auth.data);
        if (auth.data) /* the key lives on only in curl's header list */
            memset(auth.data, 0, auth.len);
        tc_buf_free(&auth);
        if (!ok)
            return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    }
    r->cap = c->concurrency;
    r->batch = calloc(TC_RUNNER_BATCH_MAX + (size_t)r->cap, sizeof *r->batch);
    r->slots = calloc((size_t)r->cap, sizeof *r->slots);
    r->free_slots = calloc((size_t)r->cap, sizeof *r->free_slots);
    if (!r->headers || !r->slots || !r->free_slots || !r->batch)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    /* A closed loop fills every slot at once: made before the first send.
     * An open loop makes a few ahead, and more as the load needs them. */
    int ahead = r->open ? (r->cap < OPEN_SLOTS_AHEAD ? r->cap : OPEN_SLOTS_AHEAD) : r->cap;
    for (int i = 0; i < ahead; i++)
        if (add_slot(r) != TC_OK)
            return tc_fail(err, errlen, TC_ERR_NOMEM, "cannot set up the HTTP client");
    /* Popped from the top: slot 0 first, as before. */
    for (int i = 0; i < r->n_free / 2; i++) {
        int t = r->free_slots[i];
        r->free_slots[i] = r->free_slots[r->n_free - 1 - i];
        r->free_slots[r->n_free - 1 - i] = t;
    }
    return TC_OK;
}

static void teardown(runner *r)
{
    for (int i = 0; r->slots && i < r->n_slots; i++) {
        slot *s = r->slots[i];
        if (s->busy)
            curl_multi_remove_handle(r->multi, s->easy);
        tc_stream_free(s->parser);
        tc_req_record_clear(&s->rec);
        if (s->easy)
            curl_easy_cleanup(s->easy);
        tc_buf_free(&s->body);
        tc_buf_free(&s->error_body);
        for (struct curl_slist *h = s->headers; h; h = h->next)
            memset(h->data, 0, strlen(h->data)); /* holds a copy of the API key */
        curl_slist_free_all(s->headers);
        free(s);
    }
    for (size_t i = 0; r->batch && i < r->n_batch; i++)
        tc_req_record_clear(&r->batch[i]);
    tc_buf_free(&r->synth_text);
    free(r->batch);
    free(r->slots);
    free(r->free_slots);
    if (r->multi)
        curl_multi_cleanup(r->multi);
    if (r->headers) {
        for (struct curl_slist *h = r->headers; h; h = h->next)
            memset(h->data, 0, strlen(h->data)); /* the API key must not linger */
        curl_slist_free_all(r->headers);
    }
    if (r->epfd >= 0)
        close(r->epfd);
    if (r->timerfd >= 0)
        close(r->timerfd);
}

/* ---- the loop ------------------------------------------------------------ */

/* Open loop: the timerfd set for the next arrival when one is pending and
 * a slot could take it (else a finishing request wakes the loop); a
 * timerfd, not epoll's millisecond timeout, so the send is not up to a
 * millisecond late. */
static void arm_arrival(runner *r)
{
    int64_t at = 0;
    if (more_to_send(r) && r->next_due_ns > 0 && (r->n_free > 0 || r->n_slots < r->cap))
        at = r->next_due_ns;
    if (at == r->timer_at_ns)
        return;
    struct itimerspec its = {0};
    its.it_value.tv_sec = at / TC_NS_PER_S;
    its.it_value.tv_nsec = at % TC_NS_PER_S;
    timerfd_settime(r->timerfd, TFD_TIMER_ABSTIME, &its, NULL);
    r->timer_at_ns = at;
}

static void wait_and_dispatch(runner *r)
{
    if (r->open)
        arm_arrival(r);
    int64_t now = tc_mono_ns();
    int wait_ms = 100; /* wake regularly for progress and Ctrl-C */
    if (r->timer_due_ns >= 0) {
        int64_t left = r->timer_due_ns - now;
        int ms = left <= 0 ? 0 : (int)((left + TC_NS_PER_MS - 1) / TC_NS_PER_MS);
        if (ms < wait_ms)
            wait_ms = ms;
    }
    struct epoll_event evs[256];
    int n = epoll_wait(r->epfd, evs, 256, wait_ms);
    int running;
    r->wake_ns = n > 0 ? tc_mono_ns() : 0;
    for (int i = 0; i < n; i++) {
        if (evs[i].data.fd == r->timerfd) {
            uint64_t expirations;
            if (read(r->timerfd, &expirations, sizeof expirations) < 0) { /* EAGAIN: none */
            }
            r->timer_at_ns = 0; /* fired: disarmed */
            continue;
        }
        int flags = 0;
        if (evs[i].events & EPOLLIN)
            flags |= CURL_CSELECT_IN;
        if (evs[i].events & EPOLLOUT)
            flags |= CURL_CSELECT_OUT;
        if (evs[i].events & (EPOLLERR | EPOLLHUP))
            flags |= CURL_CSELECT_ERR;
        curl_multi_socket_action(r->multi, evs[i].data.fd, flags, &running);
    }
    r->wake_ns = 0;
    if (r->timer_due_ns >= 0 && tc_mono_ns() >= r->timer_due_ns) {
        r->timer_due_ns = -1;
        curl_multi_socket_action(r->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    }
}

tc_err tc_runner_run(const tc_runner_config *cfg, tc_runner_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    if (tc_prompts_empty(cfg->prompts) || cfg->concurrency < 1)
        return tc_fail(err, errlen, TC_ERR_INVALID, "no prompts or no concurrency");
    if (cfg->rate > 0 &&
        (cfg->arrival == TC_ARRIVAL_CLOSED || cfg->arrival >= TC_ARRIVAL_COUNT ||
         !isfinite(cfg->rate) || (cfg->arrival == TC_ARRIVAL_GAMMA && !(cfg->burstiness > 0))))
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "an open loop needs an arrival process (poisson, constant or gamma with a "
                       "burstiness above 0)");
    runner r = {.cfg = cfg, .res = res, .epfd = -1, .timerfd = -1, .open = cfg->rate > 0};
    r.rate_at_ns = tc_mono_ns();
    /* The kernel may run a timer up to the thread's slack late (50 us by
     * default) to batch wake-ups; an open loop's sends want none of it. */
    int slack = r.open ? prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0) : -1;
    if (slack > 0)
        prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
    tc_err rc = setup(&r, err, errlen);
    while (rc == TC_OK) {
        if (handle_stop(&r, tc_mono_ns()))
            break;
        rc = fill_slots(&r, err, errlen);
        if (rc != TC_OK || (r.busy == 0 && !more_to_send(&r)))
            break; /* nothing in flight and nothing more to send */
        wait_and_dispatch(&r);
        reap(&r);
        int64_t now = tc_mono_ns();
        /* Once stopping, saved at once: a second Ctrl-C loses nothing. */
        if (r.n_batch && !r.batch_failed &&
            (r.stop_deadline_ns || now - r.batch_since_ns >= BATCH_AGE_NS))
            flush_batch(&r);
        report_progress(&r, now);
    }
    flush_batch(&r);
    if (r.batch_failed) {
        res->unsaved = save_patiently(&r);
        if (rc == TC_OK && res->unsaved)
            rc = tc_fail(err, errlen, TC_ERR_IO,
                         "saving the results failed for %g s; the run was stopped and %lld "
                         "finished request(s) could not be saved",
                         save_patience_s(cfg), (long long)res->unsaved);
        else if (rc == TC_OK)
            rc = tc_fail(err, errlen, TC_ERR_IO,
                         "saving the results failed for a while, so the run was stopped early; "
                         "every finished request was saved in the end");
    }
    teardown(&r);
    if (slack > 0)
        prctl(PR_SET_TIMERSLACK, (unsigned long)slack, 0, 0, 0);
    return rc;
}
