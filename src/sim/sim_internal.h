/* Private to src/sim: the server and stream state shared by
 * sim_server.c (lifecycle, routing, info routes) and sim_stream.c (one
 * inference request from arrival to its last byte). */
#ifndef TC_SIM_INTERNAL_H
#define TC_SIM_INTERNAL_H

#include <event2/event.h>
#include <event2/http.h>
#include <stdio.h>

#include "core/tc_buf.h"
#include "sim_request.h"
#include "sim_sched.h"
#include "sim_server.h"
#include "sim_wire.h"

#define TC_SIM_LATE_BINS 100000 /* 1 us bins: 0 .. 100 ms */

struct sim_stream;
struct evconnlistener;

struct tc_sim_server {
    tc_sim_config cfg;
    char *host;
    char *models[TC_SIM_MAX_MODELS];
    int n_models;
    char *truth_path;
    FILE *truth;

    struct event_base *base;
    struct evhttp *http;
    struct event *sig_int, *sig_term, *wake;
    int wake_fds[2]; /* self-pipe: tc_sim_server_stop writes, the loop reads */
    uint16_t port;
    int64_t started_wall_ns;
    int64_t started_mono_ns; /* the drift counts from here */
    /* --leak-kb-per-request: blocks kept (and touched) per finished
     * request, up to TC_SIM_LEAK_MAX_KB in all. */
    void **leaks;
    size_t n_leaks, cap_leaks;
    uint64_t leaked_kb;
    int crashed;

    uint64_t requests; /* inference requests numbered so far */
    uint64_t finished;
    uint64_t tokens;
    int decoding; /* streams in the batch: from their prefill to their end */
    struct sim_stream *streams;
    struct tc_sim_pending *pending; /* truth lines of replies still being written */
    struct evbuffer *chunk_buf;     /* reused for every chunk sent through evhttp */
    tc_buf chunk_text;              /* every stream's chunks are built here (sim_stream.c) */
    tc_sim_sched *sched;            /* every stream's token timer */

    uint64_t ticks;
    int64_t late_max_ns;
    uint32_t *late_bins;

    /* --close-after: requests answered per connection, by its socket; a
     * new connection on a reused descriptor is told by its peer's port. */
    struct sim_conn_count *conns;
    size_t n_conns;
    uint64_t closed_reused;

    struct evconnlistener *listener; /* owned by http */
    struct event *accept_timer;      /* resumes accepting after a pause */
    uint64_t accept_pauses;
    int accept_errno;
};

#define TC_SIM_LEAK_MAX_KB (1024 * 1024) /* 1 GiB: a leak, not the host's end */

/* The timing now: the configured one with the drift applied. */
tc_sim_timing tc_sim_timing_now(const tc_sim_server *s);

/* One finished request's leak (--leak-kb-per-request). */
void tc_sim_leak(tc_sim_server *s);

/* Handles POST on an inference route (sim_stream.c). */
void tc_sim_stream_start(tc_sim_server *s, struct evhttp_request *req, tc_sim_route route);

/* Ends every stream without touching its request (the server frees
 * connections and requests itself afterwards), writing each one's truth
 * line with `outcome` ("server_stopped", "crashed"). Returns how many. */
int tc_sim_stream_drop_all(tc_sim_server *s, const char *outcome);

/* Sets the common headers: content type, x-truecost-simulated, server. */
void tc_sim_headers(struct evhttp_request *req, const char *content_type);

/* Sends `body` (len bytes) with `status`. */
void tc_sim_send(struct evhttp_request *req, int status, const char *content_type, const char *body,
                 size_t len);

/* Sends an error in the shape of `route`'s API. */
void tc_sim_send_error(struct evhttp_request *req, tc_sim_route route, int status,
                       const char *message);

/* Index of `name` in the server's models, or -1. */
int tc_sim_find_model(const tc_sim_server *s, const char *name);

/* Records one timer firing `late_ns` after its due time. */
void tc_sim_note_lateness(tc_sim_server *s, int64_t late_ns);

#endif
