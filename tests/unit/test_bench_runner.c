/* Unit tests of the load generator's hand-over of records: against the
 * simulator run in-process, a store that refuses batches for a while, a
 * store that never takes them, and a stop that must hand over everything
 * finished before the caller marks the run (a second Ctrl-C exits then).
 * Then its open loop: requests go out on the seeded schedule, each
 * carrying its intended time, and late when --max-concurrency is full. */
#include <pthread.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <math.h>

#include <cmocka.h>

#include "bench/bench_arrival.h"
#include "bench/bench_prompts.h"
#include "bench/bench_runner.h"
#include "core/tc_time.h"
#include "sim/sim_server.h"

typedef struct fixture {
    tc_sim_server *srv;
    pthread_t th;
    tc_prompts prompts;
    tc_runner_config cfg;
} fixture;

/* What the "store" saw. */
typedef struct sink {
    int64_t refuse_until_ns; /* refuse every batch before this time */
    int refuse_always;
    int64_t taken, refused_calls;
    size_t largest;     /* the most records in one batch taken */
    int64_t max_end_ns; /* the latest end of a record taken */
    volatile sig_atomic_t stop;
    int64_t stop_at_ns; /* set stop at the first progress call after this (0: never) */
    int64_t taken_at_stop, stop_seen_ns;
    int on_stop_ms; /* on_stop takes this long (a store slow to mark the run) */
} sink;

static void *serve(void *arg)
{
    tc_sim_server_run(arg);
    return NULL;
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    tc_sim_config sc;
    tc_sim_config_defaults(&sc);
    sc.handle_signals = 0;
    sc.timing.ttft_ms = 1;
    sc.timing.decode_tps = 2000;
    char err[256];
    if (!f || tc_sim_server_new(&sc, &f->srv, err, sizeof err) != TC_OK)
        return -1;
    pthread_create(&f->th, NULL, serve, f->srv);
    if (tc_prompts_single("hello", &f->prompts) != TC_OK)
        return -1;
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%u", (unsigned)tc_sim_server_port(f->srv));
    f->cfg = (tc_runner_config){.api = TC_API_OPENAI,
                                .model = TC_SIM_DEFAULT_MODEL,
                                .prompts = &f->prompts,
                                .max_tokens = 4,
                                .requests = 400,
                                .concurrency = 4,
                                .timeout_s = 10};
    if (tc_endpoint_parse(url, &f->cfg.endpoint, NULL, 0) != TC_OK)
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    tc_sim_server_stop(f->srv);
    pthread_join(f->th, NULL);
    tc_sim_server_free(f->srv);
    tc_prompts_free(&f->prompts);
    free(f);
    return 0;
}

static int take(void *ctx, const tc_req_record *recs, size_t n)
{
    sink *k = ctx;
    if (k->refuse_always || tc_mono_ns() < k->refuse_until_ns) {
        k->refused_calls++;
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        if (recs[i].end_ns > k->max_end_ns)
            k->max_end_ns = recs[i].end_ns;
    k->taken += (int64_t)n;
    return 0;
}

static void progress(void *ctx, const tc_runner_progress *p)
{
    (void)p;
    sink *k = ctx;
    if (k->stop_at_ns && tc_mono_ns() >= k->stop_at_ns)
        k->stop = SIGINT;
}

static void on_stop(void *ctx)
{
    sink *k = ctx;
    k->taken_at_stop = k->taken;
    k->stop_seen_ns = tc_mono_ns();
    if (k->on_stop_ms)
        nanosleep(&(struct timespec){k->on_stop_ms / 1000, (k->on_stop_ms % 1000) * 1000000L},
                  NULL);
}

static void a_store_locked_for_a_while_loses_nothing(void **state)
{
    fixture *f = *state;
    sink k = {.refuse_until_ns = tc_mono_ns() + 1200 * TC_NS_PER_MS};
    f->cfg.on_batch = take;
    f->cfg.ctx = &k;
    tc_runner_result res;
    char err[512] = "";
    assert_int_equal(tc_runner_run(&f->cfg, &res, err, sizeof err), TC_ERR_IO);
    assert_non_null(strstr(err, "every finished request was saved in the end"));
    assert_true(k.refused_calls >= 2); /* refused, then offered again */
    assert_int_equal(res.unsaved, 0);
    /* every finished request reached the store, and the run stopped early */
    assert_int_equal(k.taken, res.measured + res.warmup);
    assert_true(res.measured < f->cfg.requests);
}

static void a_store_that_never_takes_counts_what_was_lost(void **state)
{
    fixture *f = *state;
    sink k = {.refuse_always = 1};
    f->cfg.on_batch = take;
    f->cfg.ctx = &k;
    f->cfg.save_patience_s = 0.6;
    tc_runner_result res;
    char err[512] = "";
    int64_t t0 = tc_mono_ns();
    assert_int_equal(tc_runner_run(&f->cfg, &res, err, sizeof err), TC_ERR_IO);
    assert_true(tc_mono_ns() - t0 < 5 * TC_NS_PER_S);
    assert_int_equal(k.taken, 0);
    assert_true(res.unsaved > 0);
    assert_int_equal(res.unsaved, res.measured + res.warmup);
    char want[128];
    snprintf(want, sizeof want, "%lld finished request(s) could not be saved",
             (long long)res.unsaved);
    assert_non_null(strstr(err, want));
}

/* A simulator streaming decode_tps tokens a second, in place of the
 * fixture's. */
static void restart_sim(fixture *f, int decode_tps)
{
    tc_sim_server_stop(f->srv);
    pthread_join(f->th, NULL);
    tc_sim_server_free(f->srv);
    tc_sim_config sc;
    tc_sim_config_defaults(&sc);
    sc.handle_signals = 0;
    sc.timing.ttft_ms = 1;
    sc.timing.decode_tps = decode_tps;
    char err[512] = "";
    assert_int_equal(tc_sim_server_new(&sc, &f->srv, err, sizeof err), TC_OK);
    pthread_create(&f->th, NULL, serve, f->srv);
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%u", (unsigned)tc_sim_server_port(f->srv));
    assert_int_equal(tc_endpoint_parse(url, &f->cfg.endpoint, NULL, 0), TC_OK);
}

/* The run stopped by k (at k->stop_at_ns), k seeing what it hands over. */
static void watch_stop(fixture *f, sink *k)
{
    f->cfg.on_batch = take;
    f->cfg.on_progress = progress;
    f->cfg.on_stop = on_stop;
    f->cfg.ctx = k;
    f->cfg.stop = &k->stop;
}

/* The second of grace for requests in flight counts from when on_stop
 * returns: a store slow to mark the run (0.8 s here) does not eat it.
 * Requests of 12 tokens at 8 a second end 1.5 s in; the stop comes 0.2 s
 * in, so a grace counted from the stop would cut them off at 1.2 s. */
static void the_grace_period_starts_once_the_run_is_marked(void **state)
{
    fixture *f = *state;
    restart_sim(f, 8);
    sink k = {.stop_at_ns = tc_mono_ns() + 200 * TC_NS_PER_MS, .on_stop_ms = 800};
    f->cfg.requests = 100;
    f->cfg.warmup = 0;
    f->cfg.max_tokens = 12;
    watch_stop(f, &k);
    tc_runner_result res;
    char err[512] = "";
    assert_int_equal(tc_runner_run(&f->cfg, &res, err, sizeof err), TC_OK);
    assert_true(res.interrupted);
    assert_int_equal(res.abandoned, 0);
    assert_int_equal(res.measured, f->cfg.concurrency);
    assert_int_equal(k.taken, res.measured);
}

static void a_stop_hands_over_what_finished_before_the_run_is_marked(void **state)
{
    fixture *f = *state;
    /* About 70 requests a second: a batch is handed over by age (every
     * half second), so at the stop, 0.3 s in, a couple of dozen finished
     * records are waiting in it. */
    sink k = {.stop_at_ns = tc_mono_ns() + 300 * TC_NS_PER_MS};
    restart_sim(f, 80);
    char err[512] = "";
    f->cfg.requests = 100000;
    watch_stop(f, &k);
    tc_runner_result res;
    assert_int_equal(tc_runner_run(&f->cfg, &res, err, sizeof err), TC_OK);
    assert_true(res.interrupted);
    assert_true(k.stop_seen_ns > 0);
    /* What had finished was handed over before on_stop marked the run... */
    assert_true(k.taken_at_stop >= 5);
    /* ...and after it only what was in flight then. */
    assert_int_equal(k.taken, res.measured + res.warmup);
    assert_true(k.taken - k.taken_at_stop <= f->cfg.concurrency);
}

/* Every record an open loop handed over, by seq. */
typedef struct keeper {
    int64_t n, warm;
    int64_t sched[512], send[512], first_chunk[512];
    int ok[512];
} keeper;

static int keep(void *ctx, const tc_req_record *recs, size_t n)
{
    keeper *k = ctx;
    for (size_t i = 0; i < n; i++) {
        const tc_req_record *r = &recs[i];
        if (r->warmup) {
            assert_int_equal(r->sched_ns, r->send_ns); /* warm-ups are a closed loop */
            k->warm++;
            continue;
        }
        int64_t j = r->seq - 1; /* after the one warm-up */
        assert_true(j >= 0 && j < 512);
        k->sched[j] = r->sched_ns;
        k->send[j] = r->send_ns;
        k->first_chunk[j] = r->n_chunks ? r->chunk_ns[0] : 0;
        k->ok[j] = r->error == TC_REQ_OK;
        k->n++;
    }
    return 0;
}

/* The intended times are the seeded schedule's, to the nanosecond of
 * rounding, from the first measured request on; each went out at or after
 * its time, and its TTFT counts from it. */
static void an_open_loop_sends_on_its_schedule(void **state)
{
    fixture *f = *state;
    keeper *k = calloc(1, sizeof *k);
    f->cfg.requests = 120;
    f->cfg.warmup = 1;
    f->cfg.rate = 400;
    f->cfg.arrival = TC_ARRIVAL_GAMMA;
    f->cfg.burstiness = 0.5;
    f->cfg.seed = 5;
    f->cfg.concurrency = 10000; /* no cap: slots are made as needed */
    f->cfg.on_batch = keep;
    f->cfg.ctx = k;
    tc_runner_result res;
    char err[512] = "";
    assert_int_equal(tc_runner_run(&f->cfg, &res, err, sizeof err), TC_OK);
    assert_int_equal(res.measured, 120);
    assert_int_equal(k->n, 120);
    assert_int_equal(k->warm, 1);
    tc_schedule s;
    tc_schedule_init(&s, TC_ARRIVAL_GAMMA, 400, 0.5, 5);
    double t = 0;
    for (int i = 0; i < 120; i++) {
        int64_t want = k->sched[0] + (int64_t)llround(t * 1e9);
        if (llabs(k->sched[i] - want) > 1)
            fail_msg("request %d: scheduled at +%lld ns, the schedule says +%lld", i,
                     (long long)(k->sched[i] - k->sched[0]), (long long)(want - k->sched[0]));
        t += tc_schedule_next_gap_s(&s);
        assert_true(k->send[i] >= k->sched[i]);
        assert_true(k->ok[i]);
    }
    free(k);
}

/* With one slot and requests due faster than the server answers, each
 * waits for the one before: sent later and later, the wait counted. */
static void a_full_max_concurrency_makes_requests_late(void **state)
{
    fixture *f = *state;
    keeper *k = calloc(1, sizeof *k);
    f->cfg.requests = 12;
    f->cfg.warmup = 1;
    f->cfg.rate = 200;      /* one every 5 ms; a request takes about 3 ms + 4 x 0.5 ms... */
    f->cfg.max_tokens = 40; /* ...times 10: about 20 ms */
    f->cfg.arrival = TC_ARRIVAL_CONSTANT;
    f->cfg.concurrency = 1;
    f->cfg.on_batch = keep;
    f->cfg.ctx = k;
    tc_runner_result res;
    char err[512] = "";
    assert_int_equal(tc_runner_run(&f->cfg, &res, err, sizeof err), TC_OK);
    assert_int_equal(k->n, 12);
    for (int i = 1; i < 12; i++) {
        assert_int_equal(k->sched[i] - k->sched[i - 1], 5 * TC_NS_PER_MS); /* the schedule holds */
        assert_true(k->send[i] >= k->send[i - 1]);
        tc_req_record r = {.send_ns = k->send[i], .sched_ns = k->sched[i], .n_chunks = 1};
        r.chunk_ns = &k->first_chunk[i];
        assert_int_equal(tc_req_ttft_ns(&r), k->first_chunk[i] - k->sched[i]);
    }
    /* the last went out long after its time: the queue built up */
    assert_true(k->send[11] - k->sched[11] > 50 * TC_NS_PER_MS);
    free(k);
}

/* --duration ends the arrivals: those scheduled within it are sent. */
static void an_open_loop_duration_ends_the_arrivals(void **state)
{
    fixture *f = *state;
    keeper *k = calloc(1, sizeof *k);
    f->cfg.duration_s = 0.25;
    f->cfg.warmup = 1;
    f->cfg.rate = 100;
    f->cfg.arrival = TC_ARRIVAL_CONSTANT;
    f->cfg.concurrency = 64;
    f->cfg.on_batch = keep;
    f->cfg.ctx = k;
    tc_runner_result res;
    char err[512] = "";
    assert_int_equal(tc_runner_run(&f->cfg, &res, err, sizeof err), TC_OK);
    assert_int_equal(k->n, 25); /* at 0, 10, ..., 240 ms */
    assert_int_equal(k->sched[24] - k->sched[0], 240 * TC_NS_PER_MS);
    free(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_store_locked_for_a_while_loses_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(a_store_that_never_takes_counts_what_was_lost, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(a_stop_hands_over_what_finished_before_the_run_is_marked,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(the_grace_period_starts_once_the_run_is_marked, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(an_open_loop_sends_on_its_schedule, setup, teardown),
        cmocka_unit_test_setup_teardown(a_full_max_concurrency_makes_requests_late, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(an_open_loop_duration_ends_the_arrivals, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
