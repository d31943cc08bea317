#include "telem_sampler.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/tc_time.h"
#include "core/tc_sort.h"

#define RING 8192       /* samples; a power of two. At 10 Hz and 8 devices: 100 s of slack */
#define MAX_LATE 100000 /* rounds whose lateness is kept for the percentiles */

struct tc_telem_sampler {
    tc_telem_set *set;
    int64_t interval_ns;
    pthread_t thread;
    int running;
    atomic_int stop;
    tc_run_sample ring[RING];
    _Atomic size_t head; /* written by the sampler */
    _Atomic size_t tail; /* written by the consumer */
    uint64_t ticks, dropped;
    int64_t cpu_ns;
    int64_t *late; /* per round, up to MAX_LATE */
    size_t n_late;
};

static void push(tc_telem_sampler *s, const tc_run_sample *x)
{
    size_t head = atomic_load_explicit(&s->head, memory_order_relaxed);
    size_t tail = atomic_load_explicit(&s->tail, memory_order_acquire);
    if (head - tail == RING) {
        s->dropped++;
        return;
    }
    s->ring[head % RING] = *x;
    atomic_store_explicit(&s->head, head + 1, memory_order_release);
}

static void sleep_until(int64_t due)
{
    struct timespec ts = {(time_t)(due / TC_NS_PER_S), (long)(due % TC_NS_PER_S)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static void *run(void *arg)
{
    tc_telem_sampler *s = arg;
    int n = tc_telem_set_count(s->set);
    int64_t due = tc_mono_ns();
    while (!atomic_load(&s->stop)) {
        int64_t late = tc_mono_ns() - due;
        if (s->n_late < MAX_LATE)
            s->late[s->n_late++] = late > 0 ? late : 0;
        for (int i = 0; i < n; i++) {
            tc_run_sample x = {.device = i};
            /* A failed read is kept as a sample with no valid field: "not
             * available" at that time; the reason stays in the set. */
            if (tc_telem_set_sample(s->set, i, &x.s) != TC_OK)
                x.s.valid = 0;
            push(s, &x);
        }
        s->ticks++;
        due += s->interval_ns;
        if (due < tc_mono_ns()) /* fell behind a whole interval: skip, don't burst */
            due = tc_mono_ns() + s->interval_ns;
        sleep_until(due);
    }
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    s->cpu_ns = (int64_t)ts.tv_sec * TC_NS_PER_S + ts.tv_nsec;
    return NULL;
}

tc_err tc_telem_sampler_start(tc_telem_set *set, int interval_ms, tc_telem_sampler **out)
{
    *out = NULL;
    tc_telem_sampler *s = calloc(1, sizeof *s);
    if (!s || !(s->late = malloc(MAX_LATE * sizeof *s->late))) {
        free(s);
        return TC_ERR_NOMEM;
    }
    s->set = set;
    s->interval_ns = (int64_t)interval_ms * TC_NS_PER_MS;
    if (pthread_create(&s->thread, NULL, run, s) != 0) {
        free(s->late);
        free(s);
        return TC_ERR_IO;
    }
    s->running = 1;
    *out = s;
    return TC_OK;
}

size_t tc_telem_sampler_drain(tc_telem_sampler *s, tc_run_sample *out, size_t max)
{
    size_t tail = atomic_load_explicit(&s->tail, memory_order_relaxed);
    size_t head = atomic_load_explicit(&s->head, memory_order_acquire);
    size_t n = 0;
    while (tail != head && n < max)
        out[n++] = s->ring[tail++ % RING];
    atomic_store_explicit(&s->tail, tail, memory_order_release);
    return n;
}

void tc_telem_sampler_stop(tc_telem_sampler *s)
{
    if (!s || !s->running)
        return;
    atomic_store(&s->stop, 1);
    pthread_join(s->thread, NULL);
    s->running = 0;
}

void tc_telem_sampler_stats(const tc_telem_sampler *s, tc_sampler_stats *out)
{
    memset(out, 0, sizeof *out);
    out->ticks = s->ticks;
    out->dropped = s->dropped;
    out->cpu_ns = s->cpu_ns;
    if (s->running || s->n_late == 0)
        return;
    tc_sort_i64(s->late, s->n_late);
    out->late_p50_ns = s->late[(s->n_late - 1) / 2];
    out->late_p99_ns = s->late[(size_t)((double)(s->n_late - 1) * 0.99)];
    out->late_max_ns = s->late[s->n_late - 1];
}

void tc_telem_sampler_free(tc_telem_sampler *s)
{
    if (!s)
        return;
    tc_telem_sampler_stop(s);
    free(s->late);
    free(s);
}
