/* bench_bare: the floor under bench_client's figures. A bare reader of the
 * same simulated streams: plain sockets, epoll, read(), and a byte scan for
 * SSE events, nothing else; each event stamped with the time epoll_wait
 * returned, as the real client stamps its chunks. Its CPU per chunk is what
 * the kernel and the loop charge any client; its ITL error is what the
 * machine's wake-ups cost any client. */
#ifndef TC_BENCH_BARE_H
#define TC_BENCH_BARE_H

#include <stddef.h>
#include <stdint.h>

/* What a client saw, by request number (the X-Truecost-Seq it sent). */
typedef struct bench_view {
    int64_t n;
    int64_t *send_ns; /* by seq */
    int64_t **chunks; /* by seq, the arrival of every event carrying text */
    size_t *n_chunks;
    int64_t text_chunks, failed;
} bench_view;

/* Allocates a view of n requests; 0 or -1. Free with bench_view_free. */
int bench_view_init(bench_view *v, int64_t n);
void bench_view_free(bench_view *v);

/* Sends `requests` streamed /v1/completions requests of `max_tokens` to
 * 127.0.0.1:port, `streams` at a time, one connection each, and fills v.
 * *cpu_ns gets the reader thread's CPU time. 0, or -1 when sockets could
 * not be made. */
int bench_bare_run(uint16_t port, int streams, int64_t requests, int64_t max_tokens, bench_view *v,
                   int64_t *cpu_ns);

#endif
