#define _GNU_SOURCE /* pthread_setaffinity_np */
#include "bench_loopback.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench_machine.h"
#include "core/tc_time.h"

/* Paced like the simulator's target, 100,000 chunks a second: a writer
 * flat out would fill the socket buffers and time its own back-pressure. */
#define WRITE_GAP_NS 10000
#define SAMPLES_MAX 1000000

typedef struct pair_set {
    int n;
    int *wr, *rd;
    int writer_cpu;
    volatile int stop;
} pair_set;

static void close_all(pair_set *p)
{
    for (int i = 0; p->wr && p->rd && i < p->n; i++) {
        if (p->wr[i] >= 0)
            close(p->wr[i]);
        if (p->rd[i] >= 0)
            close(p->rd[i]);
    }
    free(p->wr);
    free(p->rd);
}

/* Connects p->n client sockets (the read ends) to one listener and keeps
 * the accepted ones (the write ends, as a server holds them). */
static int connect_pairs(pair_set *p)
{
    p->wr = malloc((size_t)p->n * sizeof *p->wr);
    p->rd = malloc((size_t)p->n * sizeof *p->rd);
    if (!p->wr || !p->rd)
        return -1;
    for (int i = 0; i < p->n; i++)
        p->wr[i] = p->rd[i] = -1;
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof sa;
    int one = 1, lst = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int rc = lst < 0 || bind(lst, (struct sockaddr *)&sa, sizeof sa) < 0 ||
                     getsockname(lst, (struct sockaddr *)&sa, &len) < 0 || listen(lst, 128) < 0
                 ? -1
                 : 0;
    for (int i = 0; rc == 0 && i < p->n; i++) {
        p->rd[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (p->rd[i] < 0 || connect(p->rd[i], (struct sockaddr *)&sa, sizeof sa) < 0 ||
            (p->wr[i] = accept4(lst, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) < 0)
            rc = -1;
        else
            setsockopt(p->wr[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    if (lst >= 0)
        close(lst);
    return rc;
}

static void pin(int cpu, int others)
{
    cpu_set_t set;
    if (cpu < 0 || sched_getaffinity(0, sizeof set, &set) < 0 || CPU_COUNT(&set) < 2)
        return;
    if (others)
        CPU_CLR(cpu, &set);
    else {
        CPU_ZERO(&set);
        CPU_SET(cpu, &set);
    }
    pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

static void *reader(void *arg)
{
    pair_set *p = arg;
    pin(p->writer_cpu, 1);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    if (ep < 0)
        return NULL;
    for (int i = 0; i < p->n; i++) {
        struct epoll_event ev = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        epoll_ctl(ep, EPOLL_CTL_ADD, p->rd[i], &ev);
    }
    char buf[16384];
    struct epoll_event evs[256];
    while (!p->stop) {
        int n = epoll_wait(ep, evs, 256, 50);
        for (int k = 0; k < n; k++)
            if (read(p->rd[evs[k].data.u32], buf, sizeof buf) < 0 && errno != EINTR)
                p->stop = 1;
    }
    close(ep);
    return NULL;
}

/* Writes on the calling thread; returns the number of timed writes. */
static long write_paced(pair_set *p, int chunk_bytes, int64_t ns, int64_t *took)
{
    char chunk[4096];
    memset(chunk, 'x', sizeof chunk);
    size_t len = chunk_bytes < (int)sizeof chunk ? (size_t)chunk_bytes : sizeof chunk;
    long n = 0;
    int64_t due = tc_mono_ns(), end = due + ns;
    while (n < SAMPLES_MAX && due < end) {
        while (tc_mono_ns() < due) {
        }
        int64_t t0 = tc_mono_ns();
        /* one write() per chunk, as the simulator sends a token */
        ssize_t w = write(p->wr[n % p->n], chunk, len);
        int64_t t1 = tc_mono_ns();
        if (w == (ssize_t)len)
            took[n++] = t1 - t0;
        else if (w < 0 && errno != EAGAIN && errno != EINTR)
            break;
        due += WRITE_GAP_NS;
    }
    return n;
}

int bench_loopback_measure(int writer_cpu, int conns, int chunk_bytes, double seconds,
                           bench_loopback *out)
{
    memset(out, 0, sizeof *out);
    pair_set p = {.n = conns < 1 ? 1 : conns, .writer_cpu = writer_cpu};
    int64_t *took = malloc(SAMPLES_MAX * sizeof *took);
    pthread_t th;
    int rc = !took || connect_pairs(&p) < 0 || pthread_create(&th, NULL, reader, &p) != 0 ? -1 : 0;
    if (rc == 0) {
        cpu_set_t saved;
        int restore = sched_getaffinity(0, sizeof saved, &saved) == 0;
        pin(writer_cpu, 0);
        double s = seconds < 0.1 ? 0.1 : seconds > 10 ? 10 : seconds;
        long n = write_paced(&p, chunk_bytes, (int64_t)(s * (double)TC_NS_PER_S), took);
        if (restore)
            sched_setaffinity(0, sizeof saved, &saved);
        p.stop = 1;
        pthread_join(th, NULL);
        if (n > 0) {
            double sum = 0;
            for (long i = 0; i < n; i++)
                sum += (double)took[i];
            qsort(took, (size_t)n, sizeof *took, bench_cmp_i64);
            out->writes = n;
            out->write_us = sum / (double)n / 1e3;
            out->write_p50_us = (double)took[n / 2] / 1e3;
        } else
            rc = -1;
    }
    close_all(&p);
    free(took);
    return rc;
}
