#define _GNU_SOURCE /* pthread_setaffinity_np */
#include "bench_machine.h"

#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "core/tc_time.h"

#define WAKE_SLEEP_NS (200 * 1000)
#define WAKE_SAMPLES_MAX 20000

typedef struct probe {
    int cpu;
    double seconds;
    bench_machine *out;
    int rc;
} probe;

int bench_cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* About 1.3 us of dependent arithmetic: between two clock reads. */
#define STEP_ITERATIONS 1000
/* Steps per piece of work: about 0.5 ms, long enough that an interrupt is
 * a few per cent of it, so a slow piece means a slow CPU. */
#define PIECE_STEPS 400
#define PIECES_MAX 200000

static volatile uint64_t sink; /* keeps the work from being optimised away */

static uint64_t step(uint64_t x)
{
    for (int k = 0; k < STEP_ITERATIONS; k++)
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return x;
}

/* Does fixed pieces of work for `ns`, reading the clock between steps: a
 * gap over the limit between two steps is a stretch in which this thread,
 * with nothing to wait for, did not run. */
static int watch_work(bench_machine *m, int64_t ns)
{
    const int64_t limit = (int64_t)(BENCH_MACHINE_STALL_LIMIT_MS * TC_NS_PER_MS);
    int64_t *piece = malloc(PIECES_MAX * sizeof *piece);
    if (!piece)
        return -1;
    int64_t start = tc_mono_ns(), last = start, end = start + ns, longest = 0, lost = 0;
    uint64_t x = (uint64_t)start;
    size_t n = 0;
    while (n < PIECES_MAX && (n < 20 || last < end)) {
        int64_t begun = last;
        for (int k = 0; k < PIECE_STEPS; k++) {
            x = step(x);
            int64_t now = tc_mono_ns(), gap = now - last;
            last = now;
            longest = gap > longest ? gap : longest;
            if (gap > limit) {
                m->stalls++;
                lost += gap;
            }
        }
        piece[n++] = last - begun;
    }
    sink = x;
    qsort(piece, n, sizeof *piece, bench_cmp_i64);
    m->spun_s = (double)(last - start) / (double)TC_NS_PER_S;
    m->longest_ms = (double)longest / (double)TC_NS_PER_MS;
    m->stalled_ms = (double)lost / (double)TC_NS_PER_MS;
    m->work_p50_us = (double)piece[n / 2] / 1e3;
    m->work_p99_us = (double)piece[n * 99 / 100] / 1e3;
    m->work_max_us = (double)piece[n - 1] / 1e3;
    m->slowdown = m->work_p50_us > 0 ? m->work_p99_us / m->work_p50_us : 0;
    free(piece);
    return 0;
}

static int64_t one_wake(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t due = (int64_t)ts.tv_sec * TC_NS_PER_S + ts.tv_nsec + WAKE_SLEEP_NS;
    ts.tv_sec = (time_t)(due / TC_NS_PER_S);
    ts.tv_nsec = (long)(due % TC_NS_PER_S);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) != 0) {
    }
    return tc_mono_ns() - due;
}

static int time_wakes(bench_machine *m, int64_t ns)
{
    int64_t *v = malloc(WAKE_SAMPLES_MAX * sizeof *v);
    if (!v)
        return -1;
    size_t n = 0;
    int64_t end = tc_mono_ns() + ns;
    while (n < WAKE_SAMPLES_MAX && (n < 100 || tc_mono_ns() < end))
        v[n++] = one_wake();
    qsort(v, n, sizeof *v, bench_cmp_i64);
    m->wake_p99_ms = (double)v[n * 99 / 100] / (double)TC_NS_PER_MS;
    free(v);
    return 0;
}

static void *run_probe(void *arg)
{
    probe *p = arg;
    bench_machine *m = p->out;
    if (p->cpu >= 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(p->cpu, &one);
        if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0)
            m->cpu = p->cpu;
    }
    int64_t budget = (int64_t)(p->seconds * (double)TC_NS_PER_S);
    if (watch_work(m, budget * 4 / 5) < 0 || time_wakes(m, budget / 5) < 0)
        return NULL;
    m->steady = m->stalls == 0 && m->slowdown <= BENCH_MACHINE_SPEED_LIMIT &&
                m->wake_p99_ms <= BENCH_MACHINE_WAKE_LIMIT_MS;
    p->rc = 0;
    return NULL;
}

int bench_machine_probe(int cpu, double seconds, bench_machine *out)
{
    memset(out, 0, sizeof *out);
    out->cpu = -1;
    probe p = {cpu, seconds < 0.2 ? 0.2 : seconds > 60 ? 60 : seconds, out, -1};
    pthread_t th;
    if (pthread_create(&th, NULL, run_probe, &p) != 0)
        return -1;
    pthread_join(th, NULL);
    return p.rc;
}

static double max_of(double a, double b)
{
    return a > b ? a : b;
}

void bench_machine_merge(bench_machine *a, const bench_machine *b)
{
    a->spun_s += b->spun_s;
    a->stalls += b->stalls;
    a->stalled_ms += b->stalled_ms;
    a->longest_ms = max_of(a->longest_ms, b->longest_ms);
    a->work_p50_us = max_of(a->work_p50_us, b->work_p50_us);
    a->work_p99_us = max_of(a->work_p99_us, b->work_p99_us);
    a->work_max_us = max_of(a->work_max_us, b->work_max_us);
    a->slowdown = max_of(a->slowdown, b->slowdown);
    a->wake_p99_ms = max_of(a->wake_p99_ms, b->wake_p99_ms);
    a->steady = a->steady && b->steady;
}

void bench_machine_print(const bench_machine *m, const char *when, FILE *out)
{
    char where[32];
    if (m->cpu >= 0)
        snprintf(where, sizeof where, "CPU %d", m->cpu);
    else
        snprintf(where, sizeof where, "unpinned");
    fprintf(out,
            "%-19s %s, %s: %s; a fixed 0.5 ms of work took p50 %.0f us p99 %.0f us max %.0f "
            "us (p99 x%.2f; steady <= x%.1f); over %.1f s the CPU vanished %ld times for over "
            "%.0f ms (%.1f ms lost, longest gap %.3f ms); a 200 us sleep woke late p99 %.3f ms "
            "(steady <= %.1f ms)\n",
            "machine", when, where, m->steady ? "STEADY" : "UNSTEADY", m->work_p50_us,
            m->work_p99_us, m->work_max_us, m->slowdown, BENCH_MACHINE_SPEED_LIMIT, m->spun_s,
            m->stalls, BENCH_MACHINE_STALL_LIMIT_MS, m->stalled_ms, m->longest_ms, m->wake_p99_ms,
            BENCH_MACHINE_WAKE_LIMIT_MS);
}

int bench_machine_pin_apart(pthread_t server)
{
    cpu_set_t all, one;
    if (sched_getaffinity(0, sizeof all, &all) < 0 || CPU_COUNT(&all) < 2)
        return -1;
    int first = 0;
    while (!CPU_ISSET(first, &all))
        first++;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    CPU_CLR(first, &all);
    if (pthread_setaffinity_np(server, sizeof one, &one) != 0 ||
        pthread_setaffinity_np(pthread_self(), sizeof all, &all) != 0)
        return -1;
    return first;
}

/* ---- cross-CPU wake-up -------------------------------------------------- */

#define ACROSS_GAP_NS (500 * 1000)
#define ACROSS_MAX 20000

typedef struct across {
    int efd, to_cpu;
    volatile int64_t sent_ns; /* written before the eventfd write */
    volatile int done;        /* set before the last write */
    int64_t *delay;
    size_t n;
} across;

static void pin_self(int cpu)
{
    if (cpu < 0)
        return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pthread_setaffinity_np(pthread_self(), sizeof one, &one);
}

static void *wake_reader(void *arg)
{
    across *a = arg;
    pin_self(a->to_cpu);
    uint64_t v;
    while (read(a->efd, &v, sizeof v) == sizeof v) {
        int64_t now = tc_mono_ns();
        if (a->done)
            break;
        if (a->n < ACROSS_MAX)
            a->delay[a->n++] = now - a->sent_ns;
    }
    return NULL;
}

int bench_machine_wake_across(int from_cpu, int to_cpu, double seconds, double *p50_ms,
                              double *p99_ms)
{
    *p50_ms = *p99_ms = 0;
    across a = {.efd = eventfd(0, EFD_CLOEXEC), .to_cpu = to_cpu};
    a.delay = malloc(ACROSS_MAX * sizeof *a.delay);
    pthread_t th;
    if (a.efd < 0 || !a.delay || pthread_create(&th, NULL, wake_reader, &a) != 0) {
        if (a.efd >= 0)
            close(a.efd);
        free(a.delay);
        return -1;
    }
    cpu_set_t saved;
    int restore = sched_getaffinity(0, sizeof saved, &saved) == 0;
    pin_self(from_cpu);
    double s = seconds < 0.1 ? 0.1 : seconds > 10 ? 10 : seconds;
    int64_t end = tc_mono_ns() + (int64_t)(s * (double)TC_NS_PER_S);
    uint64_t one = 1;
    struct timespec gap = {0, ACROSS_GAP_NS};
    while (tc_mono_ns() < end) {
        nanosleep(&gap, NULL); /* the reader is asleep again by now */
        a.sent_ns = tc_mono_ns();
        if (write(a.efd, &one, sizeof one) != sizeof one)
            break;
    }
    a.done = 1;
    if (write(a.efd, &one, sizeof one) != sizeof one)
        pthread_cancel(th); /* cannot happen on an eventfd below its maximum */
    pthread_join(th, NULL);
    if (restore)
        sched_setaffinity(0, sizeof saved, &saved);
    close(a.efd);
    int rc = a.n > 0 ? 0 : -1;
    if (a.n > 0) {
        qsort(a.delay, a.n, sizeof *a.delay, bench_cmp_i64);
        *p50_ms = (double)a.delay[a.n / 2] / (double)TC_NS_PER_MS;
        *p99_ms = (double)a.delay[a.n * 99 / 100] / (double)TC_NS_PER_MS;
    }
    free(a.delay);
    return rc;
}

int64_t bench_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * TC_NS_PER_S + ts.tv_nsec;
}
