/* Unit tests of the simulator's token timer scheduler: timers fire in due
 * order, never early, each once; cancelled ones never; and while the
 * schedule is busy the wake-ups come without a timer syscall each. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_time.h"
#include "sim/sim_sched.h"

#define N 600

typedef struct fixture {
    struct event_base *base;
    tc_sim_sched *sched;
    struct event *deadline;
    tc_sim_timer timers[N];
    int64_t fired_at[N], fired_due[N];
    int fired[N], order[N];
    int n_fired, want;
    int64_t period; /* > 0: each timer reschedules itself this much later */
    int64_t until;  /* ...as long as its next due is before this */
} fixture;

static fixture *fx; /* the callbacks' way back to the test's state */

static int index_of(tc_sim_timer *t)
{
    return (int)(t - fx->timers);
}

static void on_fire(tc_sim_timer *t, int64_t now)
{
    int i = index_of(t);
    int64_t real_now = tc_mono_ns();
    if (now < t->due || real_now < t->due)
        fail_msg("timer %d fired %lld ns early", i, (long long)(t->due - now));
    fx->fired[i]++;
    fx->fired_at[i] = now;
    fx->fired_due[i] = t->due;
    if (fx->n_fired < N)
        fx->order[fx->n_fired] = i;
    fx->n_fired++;
    if (fx->period > 0 && t->due + fx->period < fx->until) {
        assert_int_equal(tc_sim_sched_at(fx->sched, t, t->due + fx->period), TC_OK);
        return;
    }
    if (fx->n_fired >= fx->want && fx->period == 0)
        event_base_loopbreak(fx->base);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
    (void)fd;
    (void)what;
    event_base_loopbreak(arg);
}

static int setup(void **state)
{
    fx = calloc(1, sizeof *fx);
    fx->base = event_base_new();
    fx->sched = tc_sim_sched_new(fx->base);
    fx->deadline = evtimer_new(fx->base, on_deadline, fx->base);
    assert_non_null(fx->sched);
    for (int i = 0; i < N; i++)
        tc_sim_timer_init(&fx->timers[i], on_fire);
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    tc_sim_sched_free(fx->sched);
    event_free(fx->deadline);
    event_base_free(fx->base);
    free(fx);
    return 0;
}

/* Runs the loop until the callbacks break it, or `seconds` (bounded). */
static void run_for(double seconds)
{
    struct timeval tv = {(time_t)seconds, (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6)};
    evtimer_add(fx->deadline, &tv);
    event_base_dispatch(fx->base);
    evtimer_del(fx->deadline);
}

/* Scheduling, rescheduling (both ways) and cancelling in a scrambled order
 * leave a heap that serves every waiting timer once, by due time. */
static void due_order_with_reschedules_and_cancels(void **state)
{
    (void)state;
    int64_t base = tc_mono_ns() - TC_NS_PER_S; /* all due at once: one wake-up serves all */
    uint64_t x = 12345;
    int cancelled = 0;
    for (int i = 0; i < N; i++) {
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        assert_int_equal(tc_sim_sched_at(fx->sched, &fx->timers[i], base + (int64_t)(x >> 44)),
                         TC_OK);
    }
    for (int i = 0; i < N; i += 3) { /* later, earlier, or gone */
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        tc_sim_timer *t = &fx->timers[i];
        if (i % 2)
            assert_int_equal(tc_sim_sched_at(fx->sched, t, t->due + (int64_t)(x >> 50)), TC_OK);
        else if (i % 5)
            assert_int_equal(tc_sim_sched_at(fx->sched, t, t->due - (int64_t)(x >> 50)), TC_OK);
        else {
            tc_sim_sched_cancel(fx->sched, t);
            tc_sim_sched_cancel(fx->sched, t); /* twice is harmless */
            cancelled++;
        }
    }
    fx->want = N - cancelled;
    run_for(5);
    assert_int_equal(fx->n_fired, N - cancelled);
    for (int i = 0; i < N; i++) {
        int is_cancelled = i % 3 == 0 && i % 2 == 0 && i % 5 == 0;
        assert_int_equal(fx->fired[i], is_cancelled ? 0 : 1);
        assert_int_equal(fx->timers[i].idx, TC_SIM_SCHED_IDLE);
    }
    for (int k = 1; k < fx->n_fired; k++)
        assert_true(fx->fired_due[fx->order[k - 1]] <= fx->fired_due[fx->order[k]]);
}

/* 200 timers every 4 ms, 20 us apart in phase, for 0.2 s: about 50,000
 * firings. Each wake-up serves several; the timerfd ticks by itself, so
 * few wake-ups re-arm it (each used to). None fires early (on_fire), and
 * after the busy spell one far timer still fires, not early. */
static void busy_schedule_wakes_without_rearming(void **state)
{
    (void)state;
    int n = 200;
    int64_t start = tc_mono_ns() + TC_NS_PER_MS;
    fx->period = 4 * TC_NS_PER_MS;
    fx->until = start + 200 * TC_NS_PER_MS;
    for (int i = 0; i < n; i++)
        assert_int_equal(tc_sim_sched_at(fx->sched, &fx->timers[i], start + i * 20000), TC_OK);
    run_for(0.4);
    uint64_t wakeups, arms;
    tc_sim_sched_counts(fx->sched, &wakeups, &arms);
    assert_true(fx->n_fired >= n * 45);
    for (int i = 0; i < n; i++)
        assert_int_equal(fx->timers[i].idx, TC_SIM_SCHED_IDLE); /* all ran out */
    assert_true(wakeups > 100);
    if (arms * 4 > wakeups)
        fail_msg("%llu of %llu wake-ups re-armed the timer", (unsigned long long)arms,
                 (unsigned long long)wakeups);
    /* Idle again: a lone timer 30 ms ahead fires once, not early. */
    fx->period = 0;
    fx->n_fired = 0;
    fx->want = 1;
    int64_t due = tc_mono_ns() + 30 * TC_NS_PER_MS;
    assert_int_equal(tc_sim_sched_at(fx->sched, &fx->timers[N - 1], due), TC_OK);
    run_for(2);
    assert_int_equal(fx->n_fired, 1);
    assert_true(fx->fired_at[N - 1] >= due);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(due_order_with_reschedules_and_cancels, setup, teardown),
        cmocka_unit_test_setup_teardown(busy_schedule_wakes_without_rearming, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
