#include "sim_sched.h"

#include <event2/event.h>
#include <stdlib.h>

#include "core/tc_time.h"

/* Wake-ups are at least this far apart while the server is busy, so each
 * serves a batch of tokens; it bounds the extra lateness it adds. */
#define TICK_MIN_GAP_NS (100 * 1000)

struct tc_sim_sched {
    struct event *tick;
    int64_t last_tick_ns; /* when the last wake-up began */
    int64_t tick_due;     /* when the tick is armed for; -1 when not armed */
    tc_sim_timer **heap;
    size_t n, cap;
    int serving; /* inside on_tick: it re-arms once at the end */
};

static void swap(tc_sim_sched *s, size_t a, size_t b)
{
    tc_sim_timer *t = s->heap[a];
    s->heap[a] = s->heap[b];
    s->heap[b] = t;
    s->heap[a]->idx = a;
    s->heap[b]->idx = b;
}

static void sift_up(tc_sim_sched *s, size_t i)
{
    while (i > 0 && s->heap[(i - 1) / 2]->due > s->heap[i]->due) {
        swap(s, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void sift_down(tc_sim_sched *s, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < s->n && s->heap[l]->due < s->heap[m]->due)
            m = l;
        if (r < s->n && s->heap[r]->due < s->heap[m]->due)
            m = r;
        if (m == i)
            return;
        swap(s, i, m);
        i = m;
    }
}

static void remove_at(tc_sim_sched *s, size_t i)
{
    s->heap[i]->idx = TC_SIM_SCHED_IDLE;
    s->n--;
    if (i == s->n)
        return;
    s->heap[i] = s->heap[s->n];
    s->heap[i]->idx = i;
    sift_down(s, i);
    sift_up(s, i);
}

/* Arms the tick for the earliest timer, unless it already is. */
static void rearm(tc_sim_sched *s)
{
    if (s->serving)
        return;
    if (s->n == 0) {
        if (s->tick_due >= 0)
            evtimer_del(s->tick);
        s->tick_due = -1;
        return;
    }
    int64_t due = s->heap[0]->due;
    if (s->tick_due >= 0 && s->tick_due <= due)
        return; /* it fires first anyway, and serves this one too */
    int64_t now = tc_mono_ns(), at = due;
    if (at < s->last_tick_ns + TICK_MIN_GAP_NS)
        at = s->last_tick_ns + TICK_MIN_GAP_NS;
    int64_t wait = at - now;
    if (wait < 0)
        wait = 0;
    struct timeval tv = {(time_t)(wait / TC_NS_PER_S),
                         (suseconds_t)((wait % TC_NS_PER_S + 999) / 1000)}; /* never early */
    evtimer_add(s->tick, &tv);
    s->tick_due = at;
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    tc_sim_sched *s = arg;
    s->tick_due = -1;
    s->serving = 1;
    int64_t now = tc_mono_ns();
    s->last_tick_ns = now;
    /* Serve all that are due; a timer rescheduled into the past by its own
     * callback is served in this same pass. */
    while (s->n > 0 && s->heap[0]->due <= now) {
        tc_sim_timer *t = s->heap[0];
        remove_at(s, 0);
        t->fire(t, now);
        if (s->n > 0 && s->heap[0]->due > now)
            now = tc_mono_ns(); /* time moved on while serving: others may be due */
    }
    s->serving = 0;
    rearm(s);
}

tc_sim_sched *tc_sim_sched_new(struct event_base *base)
{
    tc_sim_sched *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->tick_due = -1;
    s->tick = evtimer_new(base, on_tick, s);
    if (!s->tick) {
        free(s);
        return NULL;
    }
    return s;
}

void tc_sim_sched_free(tc_sim_sched *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        s->heap[i]->idx = TC_SIM_SCHED_IDLE;
    event_free(s->tick);
    free(s->heap);
    free(s);
}

void tc_sim_timer_init(tc_sim_timer *t, void (*fire)(tc_sim_timer *t, int64_t now))
{
    t->due = 0;
    t->idx = TC_SIM_SCHED_IDLE;
    t->fire = fire;
}

tc_err tc_sim_sched_at(tc_sim_sched *s, tc_sim_timer *t, int64_t due)
{
    if (t->idx != TC_SIM_SCHED_IDLE) {
        t->due = due;
        sift_down(s, t->idx);
        sift_up(s, t->idx);
    } else {
        if (s->n == s->cap) {
            size_t cap = s->cap ? s->cap * 2 : 256;
            tc_sim_timer **h = realloc(s->heap, cap * sizeof *h);
            if (!h)
                return TC_ERR_NOMEM;
            s->heap = h;
            s->cap = cap;
        }
        t->due = due;
        t->idx = s->n;
        s->heap[s->n++] = t;
        sift_up(s, t->idx);
    }
    rearm(s);
    return TC_OK;
}

void tc_sim_sched_cancel(tc_sim_sched *s, tc_sim_timer *t)
{
    if (t->idx == TC_SIM_SCHED_IDLE)
        return;
    remove_at(s, t->idx);
    rearm(s);
}
