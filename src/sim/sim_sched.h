/* Private to src/sim: one wake-up source for every stream. Streams wait in
 * a min-heap by due time; a single timerfd wakes the loop for the earliest,
 * and each wake-up serves every stream then due. With thousands of streams
 * this turns a loop turn (epoll_wait, timer bookkeeping) per token into one
 * per batch of tokens; while the server is that busy the timerfd ticks by
 * itself, so a wake-up costs no timer syscall either. */
#ifndef TC_SIM_SCHED_H
#define TC_SIM_SCHED_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_error.h"

struct event_base;

#define TC_SIM_SCHED_IDLE ((size_t)-1)

typedef struct tc_sim_timer {
    int64_t due; /* CLOCK_MONOTONIC ns */
    size_t idx;  /* its slot in the scheduler; TC_SIM_SCHED_IDLE when not waiting */
    void (*fire)(struct tc_sim_timer *t, int64_t now);
} tc_sim_timer;

typedef struct tc_sim_sched tc_sim_sched;

/* A scheduler on `base`; NULL when out of memory. Free with _free (NULL ok). */
tc_sim_sched *tc_sim_sched_new(struct event_base *base);
void tc_sim_sched_free(tc_sim_sched *s);

/* Initialises a timer that is not waiting. */
void tc_sim_timer_init(tc_sim_timer *t, void (*fire)(tc_sim_timer *t, int64_t now));

/* (Re)schedules `t` to fire at `due`. TC_ERR_NOMEM when the heap cannot
 * grow (the timer is then not scheduled). */
TC_MUST_CHECK tc_err tc_sim_sched_at(tc_sim_sched *s, tc_sim_timer *t, int64_t due);

/* Unschedules `t` if it is waiting. */
void tc_sim_sched_cancel(tc_sim_sched *s, tc_sim_timer *t);

/* The waiting timer due first, or NULL: a caller may prefetch its memory. */
tc_sim_timer *tc_sim_sched_peek(const tc_sim_sched *s);

/* How many times the loop woke for the timers, and how many timer syscalls
 * armed or disarmed it: while busy, far fewer than the wake-ups. */
void tc_sim_sched_counts(const tc_sim_sched *s, uint64_t *wakeups, uint64_t *arms);

#endif
