/* Stored figures (analysis/figures_stored): computed once from a run's
 * records, streamed in passes when its chunks are many, kept in the store
 * and read back instead of the chunks. Each must equal the figures computed
 * from every record in memory. The store lives in a mkdtemp directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/figures_codec.h"
#include "analysis/figures.h"
#include "views/view_stored.h"
#include "core/tc_rng.h"
#include "views/view_figures.h"

#define N_REQ 40
#define N_CHUNKS 50

typedef struct fixture {
    char dir[64], db[128];
    tc_store *st;
    tc_run_info run, other, running;
} fixture;

/* Requests with random gaps; a warm-up one, two failed, one without a
 * prompt count (no total tokens/s: a NaN to round-trip). */
static void add_run(tc_store *st, tc_run_info *run, uint64_t seed, int finish)
{
    char err[512] = "";
    memset(run, 0, sizeof *run);
    snprintf(run->model, sizeof run->model, "m");
    run->api = TC_API_OPENAI;
    run->concurrency = 4;
    run->simulated = 1;
    snprintf(run->slo, sizeof run->slo, "ttft=40ms,tpot=25ms");
    assert_int_equal(tc_store_run_begin(st, run, err, sizeof err), TC_OK);
    tc_rng rng;
    tc_rng_seed(&rng, seed);
    tc_req_record r[N_REQ];
    for (int i = 0; i < N_REQ; i++) {
        tc_req_record_init(&r[i]);
        r[i].seq = i;
        r[i].warmup = i == 0;
        r[i].send_ns = 1000000000LL + i * 7000000LL;
        int64_t t = r[i].send_ns + 20000000 + (int64_t)(tc_rng_unit(&rng) * 3e7);
        for (int c = 0; c < N_CHUNKS; c++) {
            t += 1000000 + (int64_t)(tc_rng_unit(&rng) * 4e7);
            assert_int_equal(tc_req_record_add_chunk(&r[i], t), 0);
        }
        r[i].end_ns = t + 1000;
        r[i].http_status = 200;
        r[i].output_tokens = N_CHUNKS;
        r[i].output_source = TC_TOKENS_USAGE;
        r[i].prompt_tokens = 12;
        r[i].prompt_source = i == 5 ? TC_TOKENS_NONE : TC_TOKENS_USAGE;
    }
    r[7].error = TC_REQ_TIMEOUT;
    r[9].error = TC_REQ_SERVER;
    assert_int_equal(tc_store_add_requests(st, run->id, r, N_REQ, err, sizeof err), TC_OK);
    for (int i = 0; i < N_REQ; i++)
        tc_req_record_clear(&r[i]);
    if (finish) {
        assert_int_equal(tc_store_run_finish(st, run->id, TC_RUN_COMPLETE, err, sizeof err), TC_OK);
        run->status = TC_RUN_COMPLETE;
    }
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    char err[512] = "";
    strcpy(f->dir, "/tmp/tc_figstore_XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->db, sizeof f->db, "%s/t.db", f->dir);
    assert_int_equal(tc_store_open(f->db, TC_STORE_WRITE, &f->st, err, sizeof err), TC_OK);
    add_run(f->st, &f->run, 11, 1);
    add_run(f->st, &f->other, 12, 1);
    add_run(f->st, &f->running, 13, 0);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    tc_store_close(f->st);
    char path[160];
    const char *ext[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s%s", f->db, ext[i]);
        unlink(path);
    }
    rmdir(f->dir);
    free(f);
    return 0;
}

/* The figures from every record in memory: the truth here. */
static void in_memory(fixture *f, const tc_run_info *run, tc_run_metrics *m)
{
    char err[512];
    tc_req_record *recs;
    size_t n;
    assert_int_equal(tc_store_load_requests(f->st, run->id, &recs, &n, err, sizeof err), TC_OK);
    assert_int_equal(tc_run_metrics_compute(run, recs, n, m), TC_OK);
    tc_store_free_requests(recs, n);
}

static void same_summary(const char *what, const tc_summary *a, const tc_summary *b)
{
    if (a->n != b->n || a->min != b->min || a->max != b->max || a->p50 != b->p50 ||
        a->p90 != b->p90 || a->p95 != b->p95 || a->p99 != b->p99 ||
        fabs(a->mean - b->mean) > 1e-12 * fabs(b->mean) ||
        fabs(a->stddev - b->stddev) > 1e-9 * fabs(b->stddev))
        fail_msg("%s differs: n %zu/%zu p50 %.17g/%.17g p99 %.17g/%.17g mean %.17g/%.17g", what,
                 a->n, b->n, a->p50, b->p50, a->p99, b->p99, a->mean, b->mean);
}

static void same_figures(const tc_run_metrics *a, const tc_run_metrics *b)
{
    assert_memory_equal(&a->requests, &b->requests, sizeof a->requests);
    assert_memory_equal(a->errors, b->errors, sizeof a->errors);
    same_summary("ttft", &a->ttft_ms, &b->ttft_ms);
    same_summary("itl", &a->itl_ms, &b->itl_ms);
    same_summary("tpot", &a->tpot_ms, &b->tpot_ms);
    same_summary("e2e", &a->e2e_ms, &b->e2e_ms);
    same_summary("decode", &a->decode_tps, &b->decode_tps);
    assert_int_equal(a->has_duration, b->has_duration);
    assert_true(a->duration_s == b->duration_s);
    assert_true(a->output_tokens_per_s == b->output_tokens_per_s);
    assert_int_equal(isnan(a->total_tokens_per_s), isnan(b->total_tokens_per_s));
    assert_int_equal(a->output_tokens, b->output_tokens);
    assert_int_equal(a->has_prompt_tokens, b->has_prompt_tokens);
    assert_int_equal(a->prompt_missing, b->prompt_missing);
    assert_int_equal(a->token_source, b->token_source);
    assert_int_equal(a->simulated, b->simulated);
    assert_int_equal(a->first_send, b->first_send);
    assert_int_equal(a->last_end, b->last_end);
    assert_int_equal(a->first_send_any, b->first_send_any);
    assert_int_equal(a->window.has_window, b->window.has_window);
    assert_int_equal(a->window.from, b->window.from);
    assert_int_equal(a->window.to, b->window.to);
    assert_true(a->window.output_tokens == b->window.output_tokens);
    assert_int_equal(a->window.completed, b->window.completed);
    assert_int_equal(a->has_slo, b->has_slo);
    assert_int_equal(a->goodput.good, b->goodput.good);
    assert_true(a->goodput.attainment == b->goodput.attainment);
}

static void streamed_in_passes_equals_in_memory(void **state)
{
    fixture *f = *state;
    char err[512];
    tc_run_metrics want, got;
    in_memory(f, &f->run, &want);
    assert_true(want.itl_ms.n > 1000);
    assert_true(want.window.has_window); /* the passes count its chunks too */
    assert_true(want.goodput.good > 0 && want.goodput.good < want.goodput.measured);
    /* keep 64: the gaps go to the histogram, the percentiles to more passes */
    assert_int_equal(tc_view_computed_figures(f->st, &f->run, 64, &got, err, sizeof err), TC_OK);
    same_figures(&got, &want);
    assert_int_equal(got.requests.failed, 2);
    assert_int_equal(got.errors[TC_REQ_TIMEOUT], 1);
    tc_run_metrics_free(&got);
    tc_run_metrics_free(&want);
}

static void codec_round_trips_to_the_bit(void **state)
{
    fixture *f = *state;
    char err[512];
    tc_run_metrics want, got;
    in_memory(f, &f->run, &want);
    assert_true(isnan(want.total_tokens_per_s)); /* one request had no prompt count */
    char *text = tc_figures_encode(&want);
    assert_non_null(text);
    assert_int_equal(tc_figures_decode(text, &got, err, sizeof err), TC_OK);
    free(text);
    same_figures(&got, &want);
    /* Not merely close: every double comes back as it was. */
    assert_memory_equal(&got.itl_ms, &want.itl_ms, sizeof want.itl_ms);
    assert_memory_equal(&got.ttft_ms, &want.ttft_ms, sizeof want.ttft_ms);
    tc_run_metrics_free(&got);
    tc_run_metrics_free(&want);
}

static void a_damaged_document_is_named(void **state)
{
    (void)state;
    char err[512] = "";
    tc_run_metrics m;
    assert_int_equal(tc_figures_decode("{\"simulated\": 1}", &m, err, sizeof err), TC_ERR_INVALID);
    assert_non_null(strstr(err, "open_loop")); /* the first field missing */
    assert_int_equal(tc_figures_decode("not json", &m, err, sizeof err), TC_ERR_INVALID);
    assert_non_null(strstr(err, "the document"));
}

static void saved_figures_are_read_back(void **state)
{
    fixture *f = *state;
    char err[512];
    tc_run_metrics want, got;
    int from_store = -1;
    in_memory(f, &f->run, &want);
    assert_int_equal(tc_view_summary(f->st, &f->run, &got, &from_store, err, sizeof err), TC_OK);
    assert_int_equal(from_store, 0); /* nothing stored yet: computed */
    tc_run_metrics_free(&got);
    assert_int_equal(tc_view_save_figures(f->st, &f->run, err, sizeof err), TC_OK);
    assert_int_equal(tc_view_summary(f->st, &f->run, &got, &from_store, err, sizeof err), TC_OK);
    assert_int_equal(from_store, 1);
    same_figures(&got, &want);
    tc_run_metrics_free(&got);
    /* The run list reads them too: full figures, where a streamed list
     * gathers no ITL at all. */
    tc_figures_list l;
    assert_int_equal(tc_view_figures_list(f->st, &l, err, sizeof err), TC_OK);
    for (size_t i = 0; i < l.n; i++)
        if (l.runs[i].id == f->run.id)
            same_summary("listed itl", &l.m[i].itl_ms, &want.itl_ms);
        else
            assert_int_equal(l.m[i].itl_ms.n, 0);
    tc_figures_list_free(&l);
    tc_run_metrics_free(&want);
}

static void other_versions_and_damage_are_recomputed(void **state)
{
    fixture *f = *state;
    char err[512];
    tc_run_metrics want, got;
    int from_store = -1;
    in_memory(f, &f->other, &want);
    /* Figures of another definition are not these figures. */
    assert_int_equal(tc_store_set_figures(f->st, f->other.id, TC_FIGURES_VERSION + 1,
                                          "{\"simulated\": 0}", err, sizeof err),
                     TC_OK);
    assert_int_equal(tc_view_summary(f->st, &f->other, &got, &from_store, err, sizeof err), TC_OK);
    assert_int_equal(from_store, 0);
    same_figures(&got, &want);
    tc_run_metrics_free(&got);
    /* A damaged row of this version: the records are the truth. */
    assert_int_equal(
        tc_store_set_figures(f->st, f->other.id, TC_FIGURES_VERSION, "{}", err, sizeof err), TC_OK);
    assert_int_equal(tc_view_summary(f->st, &f->other, &got, &from_store, err, sizeof err), TC_OK);
    assert_int_equal(from_store, 0);
    same_figures(&got, &want);
    tc_run_metrics_free(&got);
    tc_run_metrics_free(&want);
}

static void older_runs_get_their_figures_once(void **state)
{
    fixture *f = *state;
    char err[512];
    size_t n = 99;
    /* Both finished runs; never the one still running. */
    assert_int_equal(tc_view_save_missing_figures(f->st, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 2);
    assert_int_equal(tc_view_save_missing_figures(f->st, &n, err, sizeof err), TC_OK);
    assert_int_equal(n, 0);
    int from_store = 0;
    tc_run_metrics got;
    assert_int_equal(tc_view_summary(f->st, &f->other, &got, &from_store, err, sizeof err), TC_OK);
    assert_int_equal(from_store, 1);
    tc_run_metrics_free(&got);
    assert_int_equal(tc_view_summary(f->st, &f->running, &got, &from_store, err, sizeof err),
                     TC_OK);
    assert_int_equal(from_store, 0);
    tc_run_metrics_free(&got);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(streamed_in_passes_equals_in_memory, setup, teardown),
        cmocka_unit_test_setup_teardown(codec_round_trips_to_the_bit, setup, teardown),
        cmocka_unit_test(a_damaged_document_is_named),
        cmocka_unit_test_setup_teardown(saved_figures_are_read_back, setup, teardown),
        cmocka_unit_test_setup_teardown(other_versions_and_damage_are_recomputed, setup, teardown),
        cmocka_unit_test_setup_teardown(older_runs_get_their_figures_once, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
