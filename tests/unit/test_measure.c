/* Unit tests of measure/, the run's "nothing measured is lost" guarantees,
 * called directly (not through the CLI) against the simulator run
 * in-process and a store in a mkdtemp directory: a run stores every request
 * and ends complete; a stop hands over the waiting records and marks the
 * run interrupted at once; a save refused by a locked database keeps its
 * records until the database takes them, or, past the patience, keeps what
 * was saved and says what was not; the environment is stored before
 * measuring, and a stop before the run is stored leaves none; telemetry
 * samples cover the idle baseline and reach past the last request. And
 * what is settled before a run: its group, and which API key may go where. */
#define _GNU_SOURCE /* nftw */
#include <ftw.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "bench/bench_prompts.h"
#include "core/tc_time.h"
#include "measure/measure_run.h"
#include "measure/measure_setup.h"
#include "sim/sim_server.h"
#include "store/store.h"

typedef struct fixture {
    tc_sim_server *srv;
    pthread_t th;
    tc_prompts prompts;
    char dir[64], db[128];
    tc_store *store;
    tc_measure_config cfg;
} fixture;

/* What the callbacks saw, and what they do. */
typedef struct watch {
    fixture *f;
    volatile sig_atomic_t stop;
    int started, finished, notices;
    tc_measure_outcome outcome; /* the last one finished */
    /* at `started`: the run's environment and requests stored by then */
    int environment_at_start;
    size_t requests_at_start;
    char status_at_start[16];
    /* stop at the first progress call with this many done (0: never) */
    int64_t stop_when_done, done_at_stop;
    /* the first progress call after the stop: the run's status and requests */
    char status_after_stop[16];
    size_t stored_after_stop;
    int checked_after_stop;
    /* take the write lock at the first progress call with this many done,
     * hold it lock_ms from another connection */
    int64_t lock_when_done;
    int lock_ms, locked;
    size_t stored_at_lock;
    sqlite3 *locker;
    pthread_t unlocker;
    tc_saver *saver; /* while the load runs: the store is used through it */
} watch;

static void *serve(void *arg)
{
    tc_sim_server_run(arg);
    return NULL;
}

/* A simulator streaming decode_tps tokens a second per request. */
static void start_sim(fixture *f, int decode_tps)
{
    tc_sim_config sc;
    tc_sim_config_defaults(&sc);
    sc.handle_signals = 0;
    sc.timing.ttft_ms = 1;
    sc.timing.decode_tps = decode_tps;
    char err[256], url[64];
    assert_int_equal(tc_sim_server_new(&sc, &f->srv, err, sizeof err), TC_OK);
    pthread_create(&f->th, NULL, serve, f->srv);
    snprintf(url, sizeof url, "http://127.0.0.1:%u", (unsigned)tc_sim_server_port(f->srv));
    assert_int_equal(tc_endpoint_parse(url, &f->cfg.load.endpoint, NULL, 0), TC_OK);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    strcpy(f->dir, "/tmp/tc_measure_XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->db, sizeof f->db, "%s/t.db", f->dir);
    char err[512];
    assert_int_equal(tc_store_open(f->db, TC_STORE_WRITE, &f->store, err, sizeof err), TC_OK);
    assert_int_equal(tc_prompts_single("hello", &f->prompts), TC_OK);
    f->cfg = (tc_measure_config){.load = {.api = TC_API_OPENAI,
                                          .model = TC_SIM_DEFAULT_MODEL,
                                          .prompts = &f->prompts,
                                          .max_tokens = 4,
                                          .warmup = 1,
                                          .requests = 30,
                                          .concurrency = 4,
                                          .timeout_s = 10},
                                 .repeat = 1,
                                 .simulated = 1,
                                 .telemetry = "none",
                                 .sample_ms = 100};
    *state = f;
    return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static int teardown(void **state)
{
    fixture *f = *state;
    if (f->srv) {
        tc_sim_server_stop(f->srv);
        pthread_join(f->th, NULL);
        tc_sim_server_free(f->srv);
    }
    tc_store_close(f->store);
    tc_prompts_free(&f->prompts);
    nftw(f->dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

/* ---- reading the store back ---- */

static size_t stored_requests(tc_store *s, int64_t run, size_t *interrupted)
{
    tc_req_record *recs = NULL;
    size_t n = 0;
    char err[512];
    assert_int_equal(tc_store_load_requests(s, run, &recs, &n, err, sizeof err), TC_OK);
    for (size_t i = 0; interrupted && i < n; i++)
        *interrupted += recs[i].error == TC_REQ_INTERRUPTED;
    tc_store_free_requests(recs, n);
    return n;
}

static void run_status(tc_store *s, int64_t run, char *out, size_t len)
{
    char id[32], err[512];
    tc_run_info info;
    snprintf(id, sizeof id, "%lld", (long long)run);
    assert_int_equal(tc_store_find_run(s, id, &info, err, sizeof err), TC_OK);
    snprintf(out, len, "%s", tc_status_name(info.status));
}

/* ---- the callbacks ---- */

static void on_started(void *ctx, const tc_run_info *run, int rep)
{
    watch *w = ctx;
    (void)rep;
    w->started++;
    w->outcome.info.id = run->id; /* for the progress callback */
    char *fp = NULL, err[512];
    assert_int_equal(tc_store_get_fingerprint(w->f->store, run->id, &fp, err, sizeof err), TC_OK);
    w->environment_at_start = fp != NULL;
    free(fp);
    w->requests_at_start = stored_requests(w->f->store, run->id, NULL);
    run_status(w->f->store, run->id, w->status_at_start, sizeof w->status_at_start);
}

static void *unlock_later(void *arg)
{
    watch *w = arg;
    struct timespec ts = {w->lock_ms / 1000, (long)(w->lock_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    sqlite3_exec(w->locker, "ROLLBACK", NULL, NULL, NULL);
    return NULL;
}

/* fn on the store from a callback during the load: through the saver,
 * whose the store is then. */
static void use_store(watch *w, tc_err (*fn)(tc_store *store, void *w))
{
    assert_int_equal(tc_saver_with_store(w->saver, w->f->store, fn, w), TC_OK);
}

/* Through the saver: what was handed over by now is stored first. */
static tc_err count_at_lock(tc_store *s, void *arg)
{
    watch *w = arg;
    w->stored_at_lock = stored_requests(s, w->outcome.info.id, NULL);
    return TC_OK;
}

static tc_err read_after_stop(tc_store *s, void *arg)
{
    watch *w = arg;
    int64_t id = w->outcome.info.id;
    run_status(s, id, w->status_after_stop, sizeof w->status_after_stop);
    w->stored_after_stop = stored_requests(s, id, NULL);
    return TC_OK;
}

/* Another connection takes the write lock, so the next saves are refused
 * (TC_ERR_BUSY after the store's busy timeout); a thread lets it go. */
static void lock_database(watch *w)
{
    use_store(w, count_at_lock);
    assert_int_equal(sqlite3_open(w->f->db, &w->locker), SQLITE_OK);
    /* The saver may be writing: the lock waits its turn. */
    sqlite3_busy_timeout(w->locker, 10000);
    assert_int_equal(sqlite3_exec(w->locker, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    w->locked = 1;
    pthread_create(&w->unlocker, NULL, unlock_later, w);
}

static void on_progress(void *ctx, const tc_runner_progress *p)
{
    watch *w = ctx;
    if (w->stop && !w->checked_after_stop) {
        w->checked_after_stop = 1;
        use_store(w, read_after_stop);
    }
    if (w->stop_when_done && !w->stop && p->done >= w->stop_when_done) {
        w->done_at_stop = p->done;
        w->stop = SIGINT;
    }
    if (w->lock_when_done && !w->locked && p->done >= w->lock_when_done)
        lock_database(w);
}

static void on_notice(void *ctx, tc_measure_notice what, const char *text)
{
    watch *w = ctx;
    (void)what, (void)text;
    w->notices++;
}

static void on_saver(void *ctx, tc_saver *saver)
{
    ((watch *)ctx)->saver = saver;
}

static int on_finished(void *ctx, const tc_measure_outcome *o)
{
    watch *w = ctx;
    w->finished++;
    w->outcome = *o;
    return 0;
}

static tc_err measure(fixture *f, watch *w, tc_measure_result *res, char *err, size_t len)
{
    w->f = f;
    tc_measure_callbacks cb = {.stop = &w->stop,
                               .started = on_started,
                               .progress = on_progress,
                               .notice = on_notice,
                               .finished = on_finished,
                               .saver = on_saver,
                               .ctx = w};
    return tc_measure_run(&f->cfg, f->store, &cb, res, err, len);
}

/* ---- the tests ---- */

static void a_run_stores_every_request_and_ends_complete(void **state)
{
    fixture *f = *state;
    start_sim(f, 2000);
    watch w = {0};
    tc_measure_result res;
    char err[1024] = "", status[16];
    assert_int_equal(measure(f, &w, &res, err, sizeof err), TC_OK);
    assert_int_equal(res.runs, 1);
    assert_int_equal(res.failed, 0);
    assert_false(res.interrupted);
    assert_int_equal(w.started, 1);
    assert_int_equal(w.finished, 1);
    assert_int_equal(w.outcome.rc, TC_OK);
    assert_int_equal(w.outcome.info.status, TC_RUN_COMPLETE);
    assert_int_equal(w.outcome.load.measured, 30);
    assert_int_equal(w.outcome.load.warmup, 1);
    assert_int_equal(res.last_run_id, w.outcome.info.id);
    /* every request reached the store, and the run is marked complete */
    assert_int_equal(stored_requests(f->store, res.last_run_id, NULL), 31);
    run_status(f->store, res.last_run_id, status, sizeof status);
    assert_string_equal(status, "complete");
    char want[64];
    tc_measure_prompt_set(&f->prompts, want, sizeof want);
    assert_non_null(strstr(want, "1 prompt, fnv1a "));
    tc_run_info info;
    assert_int_equal(tc_store_find_run(f->store, "1", &info, err, sizeof err), TC_OK);
    assert_string_equal(info.prompt_set, want);
}

static void a_group_is_measured_run_after_run(void **state)
{
    fixture *f = *state;
    start_sim(f, 2000);
    f->cfg.repeat = 3;
    f->cfg.group = "g1";
    f->cfg.load.requests = 5;
    watch w = {0};
    tc_measure_result res;
    char err[1024] = "";
    assert_int_equal(measure(f, &w, &res, err, sizeof err), TC_OK);
    assert_int_equal(res.runs, 3);
    assert_int_equal(w.finished, 3);
    tc_run_info *runs = NULL;
    size_t n = 0;
    assert_int_equal(tc_store_find_group(f->store, "g1", &runs, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 3);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(runs[i].status, TC_RUN_COMPLETE);
        assert_string_equal(runs[i].label, "g1"); /* no label: the group's name */
        assert_int_equal(stored_requests(f->store, runs[i].id, NULL), 6);
    }
    free(runs);
}

static void a_stop_keeps_what_was_measured_and_marks_the_run_at_once(void **state)
{
    fixture *f = *state;
    /* 150 tokens at 100 a second: eight requests finish together after
     * 1.5 s and wait in the batch (handed over every half second) when the
     * stop comes; the next eight are still in flight after the second of
     * grace and are cut off. */
    start_sim(f, 100);
    f->cfg.load.max_tokens = 150;
    f->cfg.load.warmup = 0;
    f->cfg.load.requests = 100000;
    f->cfg.load.concurrency = 8;
    watch w = {.stop_when_done = 8};
    tc_measure_result res;
    char err[1024] = "", status[16];
    assert_int_equal(measure(f, &w, &res, err, sizeof err), TC_OK);
    assert_true(res.interrupted);
    assert_int_equal(res.runs, 1);
    assert_true(w.outcome.load.interrupted);
    assert_int_equal(w.outcome.info.status, TC_RUN_INTERRUPTED);
    /* Right after the stop, during the grace period: everything finished
     * was already stored and the run already marked (a second Ctrl-C that
     * exits at once leaves it so). */
    assert_true(w.checked_after_stop);
    assert_string_equal(w.status_after_stop, "interrupted");
    assert_true(w.stored_after_stop >= (size_t)w.done_at_stop);
    /* In the end every request is stored, the cut-off ones as interrupted. */
    size_t cut = 0;
    size_t n = stored_requests(f->store, res.last_run_id, &cut);
    assert_int_equal(n, w.outcome.load.measured + w.outcome.load.warmup);
    assert_true(w.outcome.load.abandoned > 0);
    assert_int_equal(cut, w.outcome.load.abandoned);
    run_status(f->store, res.last_run_id, status, sizeof status);
    assert_string_equal(status, "interrupted");
}

static void a_stop_before_the_run_is_stored_leaves_no_run(void **state)
{
    fixture *f = *state;
    start_sim(f, 2000);
    watch w = {.stop = SIGTERM}; /* as if it came while the environment was read */
    tc_measure_result res;
    char err[1024] = "";
    assert_int_equal(measure(f, &w, &res, err, sizeof err), TC_OK);
    assert_true(res.interrupted);
    assert_int_equal(res.runs, 0);
    assert_int_equal(w.started, 0);
    tc_run_info *runs = NULL;
    size_t n = 0;
    assert_int_equal(tc_store_list_runs(f->store, &runs, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 0);
    free(runs);
}

static void the_environment_is_stored_before_measuring(void **state)
{
    fixture *f = *state;
    start_sim(f, 2000);
    watch w = {0};
    tc_measure_result res;
    char err[1024] = "";
    assert_int_equal(measure(f, &w, &res, err, sizeof err), TC_OK);
    assert_int_equal(w.started, 1);
    assert_true(w.environment_at_start);
    assert_int_equal(w.requests_at_start, 0);
    assert_string_equal(w.status_at_start, "running");
    assert_int_equal(w.notices, 0);
}

static void a_save_refused_for_a_while_loses_nothing(void **state)
{
    fixture *f = *state;
    start_sim(f, 2000);
    tc_store_set_busy_timeout(f->store, 100);
    f->cfg.load.requests = 5000;
    watch w = {.lock_when_done = 1, .lock_ms = 1500};
    tc_measure_result res;
    char err[1024] = "", status[16];
    tc_err rc = measure(f, &w, &res, err, sizeof err);
    pthread_join(w.unlocker, NULL);
    sqlite3_close(w.locker);
    assert_true(w.locked);
    /* The run stopped sending at the refusal and is failed... */
    assert_int_equal(rc, TC_ERR_IO);
    assert_int_equal(res.stage, TC_MEASURE_LOAD);
    assert_int_equal(res.failed, 1);
    assert_non_null(strstr(err, "every finished request was saved in the end"));
    assert_true(w.outcome.load.measured < 5000);
    /* ...but every request it finished was offered again and stored once
     * the lock was gone, and the end status was stored too. */
    assert_int_equal(w.outcome.load.unsaved, 0);
    assert_int_equal(stored_requests(f->store, res.last_run_id, NULL),
                     w.outcome.load.measured + w.outcome.load.warmup);
    assert_true(w.outcome.load.measured + w.outcome.load.warmup > (int64_t)w.stored_at_lock);
    run_status(f->store, res.last_run_id, status, sizeof status);
    assert_string_equal(status, "failed");
    assert_string_equal(w.outcome.finish_err, "");
}

/* The longest gap between two chunks of one stored request, in ms. */
static double longest_itl_ms(tc_store *s, int64_t run)
{
    tc_req_record *recs = NULL;
    size_t n = 0;
    char err[512];
    assert_int_equal(tc_store_load_requests(s, run, &recs, &n, err, sizeof err), TC_OK);
    int64_t most = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t k = 1; k < recs[i].n_chunks; k++)
            if (recs[i].chunk_ns[k] - recs[i].chunk_ns[k - 1] > most)
                most = recs[i].chunk_ns[k] - recs[i].chunk_ns[k - 1];
    tc_store_free_requests(recs, n);
    return (double)most / 1e6;
}

/* A database that makes a save wait (locked for a second, within the busy
 * timeout) holds up the saver, not the thread that times the chunks: no
 * chunk is timed late. (Saved on that thread, chunks that arrived during
 * the wait were timed when it ended: an ITL of about a second.) */
static void a_slow_save_does_not_delay_the_chunks(void **state)
{
    fixture *f = *state;
    start_sim(f, 200); /* a chunk every 5 ms */
    tc_store_set_busy_timeout(f->store, 5000);
    f->cfg.load.requests = 100;
    f->cfg.load.max_tokens = 20;
    watch w = {.lock_when_done = 4, .lock_ms = 1000};
    tc_measure_result res;
    char err[1024] = "";
    assert_int_equal(measure(f, &w, &res, err, sizeof err), TC_OK);
    pthread_join(w.unlocker, NULL);
    sqlite3_close(w.locker);
    assert_true(w.locked);
    assert_int_equal(stored_requests(f->store, res.last_run_id, NULL), 101);
    double itl = longest_itl_ms(f->store, res.last_run_id);
    if (itl >= 300)
        fail_msg("a chunk was timed %.0f ms after the one before it (the sim sends one every 5 "
                 "ms)",
                 itl);
}

static void a_save_refused_past_the_patience_keeps_what_was_saved(void **state)
{
    fixture *f = *state;
    start_sim(f, 2000);
    tc_store_set_busy_timeout(f->store, 100);
    f->cfg.load.requests = 5000;
    f->cfg.load.save_patience_s = 0.5;
    watch w = {.lock_when_done = 1, .lock_ms = 2500};
    tc_measure_result res;
    char err[1024] = "", status[16];
    tc_err rc = measure(f, &w, &res, err, sizeof err);
    pthread_join(w.unlocker, NULL);
    sqlite3_close(w.locker);
    assert_int_equal(rc, TC_ERR_IO);
    assert_non_null(strstr(err, "could not be saved"));
    /* What was refused to the end is counted; the batches saved before the
     * lock stay; the run does not stay "running" (its end status waits for
     * the lock). */
    int64_t handed = w.outcome.load.measured + w.outcome.load.warmup;
    assert_true(w.outcome.load.unsaved > 0);
    assert_true(w.stored_at_lock > 0);
    assert_int_equal(stored_requests(f->store, res.last_run_id, NULL),
                     handed - w.outcome.load.unsaved);
    assert_true(stored_requests(f->store, res.last_run_id, NULL) >= w.stored_at_lock);
    run_status(f->store, res.last_run_id, status, sizeof status);
    assert_string_equal(status, "failed");
}

static void a_named_telemetry_source_missing_ends_the_begun_run_failed(void **state)
{
    fixture *f = *state;
    start_sim(f, 2000);
    f->cfg.telemetry = "nvml";
    f->cfg.telem.nvml_lib = "/nonexistent/libnvidia-ml.so.1";
    watch w = {0};
    tc_measure_result res;
    char err[1024] = "", status[16];
    assert_int_not_equal(measure(f, &w, &res, err, sizeof err), TC_OK);
    assert_int_equal(res.stage, TC_MEASURE_TELEMETRY);
    assert_int_equal(w.started, 1);
    assert_int_equal(w.finished, 1);
    assert_int_equal(w.outcome.stage, TC_MEASURE_TELEMETRY);
    run_status(f->store, res.last_run_id, status, sizeof status);
    assert_string_equal(status, "failed");
    assert_int_equal(stored_requests(f->store, res.last_run_id, NULL), 0);
}

static void samples_cover_the_idle_baseline_and_reach_past_the_last_request(void **state)
{
    fixture *f = *state;
    start_sim(f, 400);
    f->cfg.telemetry = "rapl";
    f->cfg.telem.sysfs_root = TC_FIXTURES_DIR "/sysfs/rapl-two-packages";
    f->cfg.sample_ms = 20;
    f->cfg.idle_s = 0.2;
    f->cfg.load.requests = 8;
    watch w = {0};
    tc_measure_result res;
    char err[1024] = "";
    assert_int_equal(measure(f, &w, &res, err, sizeof err), TC_OK);
    tc_run_device *devs = NULL;
    tc_run_sample *samples = NULL;
    int n_devs = 0;
    size_t n = 0;
    assert_int_equal(tc_store_load_telemetry(f->store, res.last_run_id, &devs, &n_devs, &samples,
                                             &n, err, sizeof err),
                     TC_OK);
    assert_int_equal(n_devs, 2);
    assert_true(n > 0);
    tc_req_record *recs = NULL;
    size_t n_recs = 0;
    assert_int_equal(
        tc_store_load_requests(f->store, res.last_run_id, &recs, &n_recs, err, sizeof err), TC_OK);
    int64_t first_send = INT64_MAX, last_end = 0, first_sample = INT64_MAX, last_sample = 0;
    for (size_t i = 0; i < n_recs; i++) {
        first_send = recs[i].send_ns < first_send ? recs[i].send_ns : first_send;
        last_end = recs[i].end_ns > last_end ? recs[i].end_ns : last_end;
    }
    for (size_t i = 0; i < n; i++) {
        first_sample = samples[i].s.mono_ns < first_sample ? samples[i].s.mono_ns : first_sample;
        last_sample = samples[i].s.mono_ns > last_sample ? samples[i].s.mono_ns : last_sample;
    }
    assert_true(first_sample < first_send - 100 * TC_NS_PER_MS); /* the idle baseline */
    assert_true(last_sample > last_end);                         /* the closing round */
    tc_store_free_requests(recs, n_recs);
    free(devs);
    free(samples);
}

static void a_group_is_new_and_a_label_names_none(void **state)
{
    fixture *f = *state;
    start_sim(f, 2000);
    f->cfg.repeat = 2;
    f->cfg.group = "g2";
    f->cfg.load.requests = 2;
    watch w = {0};
    tc_measure_result res;
    char err[1024] = "", group[128];
    assert_int_equal(measure(f, &w, &res, err, sizeof err), TC_OK);
    size_t n = 99;
    /* --repeat with a label: the group takes it, and says it exists */
    assert_int_equal(tc_measure_group(f->store, "g2", 3, group, sizeof group, &n, err, sizeof err),
                     TC_OK);
    assert_string_equal(group, "g2");
    assert_int_equal(n, 2);
    /* a plain run: no group, but its label must not name one */
    assert_int_equal(tc_measure_group(f->store, "g2", 1, group, sizeof group, &n, err, sizeof err),
                     TC_OK);
    assert_string_equal(group, "");
    assert_int_equal(n, 2);
    assert_int_equal(
        tc_measure_group(f->store, "other", 1, group, sizeof group, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 0);
    /* --repeat without a label: a new name from the time */
    assert_int_equal(tc_measure_group(f->store, NULL, 2, group, sizeof group, &n, err, sizeof err),
                     TC_OK);
    assert_int_equal(strlen(group), strlen("repeat-20250101-000000"));
    assert_memory_equal(group, "repeat-", 7);
    assert_int_equal(n, 0);
}

static void an_api_key_crosses_the_network_only_encrypted_or_by_name(void **state)
{
    (void)state;
    tc_endpoint local, plain, tls;
    assert_int_equal(tc_endpoint_parse("http://127.0.0.1:1", &local, NULL, 0), TC_OK);
    assert_int_equal(tc_endpoint_parse("http://example.com", &plain, NULL, 0), TC_OK);
    assert_int_equal(tc_endpoint_parse("https://example.com", &tls, NULL, 0), TC_OK);
    const char *key;
    tc_measure_key how;
    setenv("OPENAI_API_KEY", "sk-default", 1);
    setenv("TC_TEST_KEY", "sk-named", 1);
    assert_int_equal(tc_measure_api_key(NULL, &local, &key, &how), TC_OK);
    assert_null(key);
    assert_int_equal(how, TC_MEASURE_KEY_NONE);
    assert_int_equal(tc_measure_api_key(NULL, &plain, &key, &how), TC_OK);
    assert_null(key);
    assert_int_equal(how, TC_MEASURE_KEY_WITHHELD);
    assert_int_equal(tc_measure_api_key(NULL, &tls, &key, &how), TC_OK);
    assert_string_equal(key, "sk-default");
    assert_int_equal(how, TC_MEASURE_KEY_DEFAULT);
    /* named: sent wherever the user pointed it */
    assert_int_equal(tc_measure_api_key("TC_TEST_KEY", &plain, &key, &how), TC_OK);
    assert_string_equal(key, "sk-named");
    assert_int_equal(how, TC_MEASURE_KEY_NAMED);
    setenv("TC_TEST_KEY", "", 1);
    assert_int_equal(tc_measure_api_key("TC_TEST_KEY", &plain, &key, &how), TC_ERR_NOTFOUND);
    assert_null(key);
    unsetenv("OPENAI_API_KEY");
    unsetenv("TC_TEST_KEY");
    assert_int_equal(tc_measure_api_key(NULL, &tls, &key, &how), TC_OK);
    assert_null(key);
    assert_int_equal(how, TC_MEASURE_KEY_NONE);
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(a_run_stores_every_request_and_ends_complete),
        T(a_group_is_measured_run_after_run),
        T(a_stop_keeps_what_was_measured_and_marks_the_run_at_once),
        T(a_stop_before_the_run_is_stored_leaves_no_run),
        T(the_environment_is_stored_before_measuring),
        T(a_save_refused_for_a_while_loses_nothing),
        T(a_slow_save_does_not_delay_the_chunks),
        T(a_save_refused_past_the_patience_keeps_what_was_saved),
        T(a_named_telemetry_source_missing_ends_the_begun_run_failed),
        T(samples_cover_the_idle_baseline_and_reach_past_the_last_request),
        T(a_group_is_new_and_a_label_names_none),
        T(an_api_key_crosses_the_network_only_encrypted_or_by_name),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
