#include "bench_bare.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench_machine.h"
#include "core/tc_time.h"

#define MAX_CHUNKS 4096

typedef struct bare_conn {
    int fd;
    int64_t seq; /* -1: idle */
    size_t sent, req_len;
    char req[512];
    int match; /* how much of "data: " matched */
} bare_conn;

typedef struct bare {
    uint16_t port;
    int ep;
    int64_t next_seq, requests, max_tokens, finished;
    bench_view *v;
} bare;

int bench_view_init(bench_view *v, int64_t n)
{
    memset(v, 0, sizeof *v);
    v->n = n;
    v->send_ns = calloc((size_t)n, sizeof *v->send_ns);
    v->chunks = calloc((size_t)n, sizeof *v->chunks);
    v->n_chunks = calloc((size_t)n, sizeof *v->n_chunks);
    return v->send_ns && v->chunks && v->n_chunks ? 0 : -1;
}

void bench_view_free(bench_view *v)
{
    for (int64_t i = 0; v->chunks && i < v->n; i++)
        free(v->chunks[i]);
    free(v->chunks);
    free(v->send_ns);
    free(v->n_chunks);
    memset(v, 0, sizeof *v);
}

/* Starts the next request on k: a new connection, the request written
 * when it is writable. */
static void start(bare *b, bare_conn *k, int i)
{
    k->seq = -1;
    if (b->next_seq >= b->requests)
        return;
    k->seq = b->next_seq++;
    int blen = 0;
    char body[200];
    blen = snprintf(body, sizeof body,
                    "{\"model\":\"sim-llama-8b\",\"prompt\":\"hello from the client benchmark\","
                    "\"max_tokens\":%lld,\"stream\":true}",
                    (long long)b->max_tokens);
    k->req_len = (size_t)snprintf(
        k->req, sizeof k->req,
        "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1:%u\r\nConnection: close\r\n"
        "Content-Type: application/json\r\nX-Truecost-Seq: %012lld\r\nContent-Length: %d\r\n\r\n%s",
        (unsigned)b->port, (long long)k->seq, blen, body);
    k->sent = 0;
    k->match = 0;
    b->v->chunks[k->seq] = malloc(MAX_CHUNKS * sizeof(int64_t));
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(b->port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int one = 1;
    k->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct epoll_event ev = {.events = EPOLLOUT, .data.u32 = (uint32_t)i};
    if (k->fd < 0 || !b->v->chunks[k->seq] ||
        setsockopt(k->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0 ||
        (connect(k->fd, (struct sockaddr *)&sa, sizeof sa) < 0 && errno != EINPROGRESS) ||
        epoll_ctl(b->ep, EPOLL_CTL_ADD, k->fd, &ev) < 0) {
        b->v->failed++;
        b->finished++;
        if (k->fd >= 0)
            close(k->fd);
        k->fd = -1;
        k->seq = -1;
    }
}

static void finish(bare *b, bare_conn *k, int i, int failed)
{
    close(k->fd);
    k->fd = -1;
    b->v->failed += failed;
    b->finished++;
    start(b, k, i);
}

/* Every "data: " that is not "data: [DONE]" is an event carrying text. */
static void scan(bare *b, bare_conn *k, const char *p, size_t n, int64_t now)
{
    static const char pat[] = "data: ";
    bench_view *v = b->v;
    for (size_t i = 0; i < n; i++) {
        k->match = p[i] == pat[k->match] ? k->match + 1 : p[i] == 'd';
        if (k->match == 6) {
            k->match = 0;
            if (i + 1 < n && p[i + 1] == '[')
                continue; /* [DONE] (always in the same read as its "data: ") */
            size_t *m = &v->n_chunks[k->seq];
            if (*m < MAX_CHUNKS)
                v->chunks[k->seq][(*m)++] = now;
            v->text_chunks++;
        }
    }
}

static void on_event(bare *b, bare_conn *conns, const struct epoll_event *ev, int64_t now)
{
    int i = (int)ev->data.u32;
    bare_conn *k = &conns[i];
    if (k->sent < k->req_len) {
        ssize_t w = write(k->fd, k->req + k->sent, k->req_len - k->sent);
        if (w < 0 && errno != EAGAIN) {
            finish(b, k, i, 1);
            return;
        }
        k->sent += w > 0 ? (size_t)w : 0;
        if (k->sent == k->req_len) {
            b->v->send_ns[k->seq] = tc_mono_ns();
            struct epoll_event in = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
            epoll_ctl(b->ep, EPOLL_CTL_MOD, k->fd, &in);
        }
        return;
    }
    char buf[65536];
    for (;;) {
        ssize_t r = read(k->fd, buf, sizeof buf);
        if (r > 0) {
            scan(b, k, buf, (size_t)r, now);
            continue;
        }
        if (r < 0 && errno == EAGAIN)
            return;
        finish(b, k, i, r < 0); /* EOF: the server closes after the reply */
        return;
    }
}

int bench_bare_run(uint16_t port, int streams, int64_t requests, int64_t max_tokens, bench_view *v,
                   int64_t *cpu_ns)
{
    bare b = {.port = port, .requests = requests, .max_tokens = max_tokens, .v = v};
    bare_conn *conns = calloc((size_t)streams, sizeof *conns);
    b.ep = epoll_create1(EPOLL_CLOEXEC);
    if (!conns || b.ep < 0) {
        free(conns);
        return -1;
    }
    int64_t cpu0 = bench_thread_cpu_ns();
    for (int i = 0; i < streams; i++)
        start(&b, &conns[i], i);
    struct epoll_event evs[256];
    int64_t deadline = tc_mono_ns() + 300 * TC_NS_PER_S;
    while (b.finished < requests && tc_mono_ns() < deadline) {
        int n = epoll_wait(b.ep, evs, 256, 100);
        int64_t now = tc_mono_ns(); /* every ready socket's bytes were there by now */
        for (int i = 0; i < n; i++)
            on_event(&b, conns, &evs[i], now);
    }
    *cpu_ns = bench_thread_cpu_ns() - cpu0;
    for (int i = 0; i < streams; i++)
        if (conns[i].fd >= 0)
            close(conns[i].fd);
    close(b.ep);
    free(conns);
    return 0;
}
