/* What the summary commands load from a store, through analysis/ alone:
 * a run's view (figures, fingerprint, bound), the run list, and the
 * roofline command's inputs. The store lives in a mkdtemp directory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/roofline_run.h"
#include "views/view_run.h"
#include "views/view_figures.h"
#include "views/view_roofline.h"

#define MS(x) ((int64_t)(x)*1000000LL)

typedef struct fixture {
    char dir[64], db[128];
    tc_store *st;
    tc_run_info run, bare; /* with telemetry and a fingerprint; with neither */
} fixture;

static void add_run(tc_store *st, tc_run_info *run, const char *label)
{
    char err[512] = "";
    memset(run, 0, sizeof *run);
    snprintf(run->label, sizeof run->label, "%s", label);
    snprintf(run->model, sizeof run->model, "m");
    run->api = TC_API_OLLAMA;
    run->concurrency = 1;
    if (tc_store_run_begin(st, run, err, sizeof err) != TC_OK)
        fail_msg("run_begin: %s", err);
    tc_req_record r[3];
    for (int i = 0; i < 3; i++) {
        tc_req_record_init(&r[i]);
        r[i].seq = i;
        r[i].send_ns = MS(100 * i);
        r[i].send_wall_ns = 1795966314000000000LL + MS(100 * i);
        for (int c = 0; c <= 10; c++)
            assert_int_equal(tc_req_record_add_chunk(&r[i], MS(100 * i + 10 + 5 * c)), 0);
        r[i].end_ns = MS(100 * i + 60);
        r[i].http_status = 200;
        r[i].output_tokens = 11;
        r[i].output_source = TC_TOKENS_SERVER;
    }
    r[2].error = TC_REQ_SERVER;
    assert_int_equal(tc_store_add_requests(st, run->id, r, 3, err, sizeof err), TC_OK);
    for (int i = 0; i < 3; i++)
        tc_req_record_clear(&r[i]);
    assert_int_equal(tc_store_run_finish(st, run->id, TC_RUN_COMPLETE, err, sizeof err), TC_OK);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    char err[512] = "";
    strcpy(f->dir, "/tmp/tc_view_XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->db, sizeof f->db, "%s/t.db", f->dir);
    assert_int_equal(tc_store_open(f->db, TC_STORE_WRITE, &f->st, err, sizeof err), TC_OK);
    add_run(f->st, &f->bare, "bare");
    add_run(f->st, &f->run, "full");
    tc_run_device devs[2];
    memset(devs, 0, sizeof devs);
    devs[0].info.kind = TC_TELEM_CPU;
    snprintf(devs[0].info.name, sizeof devs[0].info.name, "package-0");
    devs[1].info.kind = TC_TELEM_GPU;
    snprintf(devs[1].info.name, sizeof devs[1].info.name, "NVIDIA GeForce RTX 4090");
    assert_int_equal(tc_store_add_devices(f->st, f->run.id, devs, 2, err, sizeof err), TC_OK);
    assert_int_equal(
        tc_store_set_fingerprint(f->st, f->run.id,
                                 "{\"server\": {\"model\": {\"parameter_size\": \"7B\","
                                 " \"quantization_level\": \"Q4_K_M\"}}}",
                                 err, sizeof err),
        TC_OK);
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

static void a_run_view(void **state)
{
    fixture *f = *state;
    tc_run_view v;
    char err[512] = "";
    assert_int_equal(tc_view_run(f->st, &f->run, &v, err, sizeof err), TC_OK);
    assert_int_equal(v.n_warnings, 0);
    assert_int_equal(v.f.m.requests.failed, 1);
    assert_true(json_is_object(v.fingerprint));
    assert_string_equal(v.roof.spec.name, "RTX 4090"); /* the sampled GPU, the built-in row */
    assert_true(v.roof.has_decode && v.roof.has_measured);
    tc_view_run_free(&v);
    tc_view_run_free(NULL);

    assert_int_equal(tc_view_run(f->st, &f->bare, &v, err, sizeof err), TC_OK);
    assert_true(json_is_null(v.fingerprint));
    assert_true(v.roof.missing & TC_ROOF_NEED_GPU);
    tc_view_run_free(&v);

    tc_run_info gone = f->run;
    gone.id = 999;
    assert_int_not_equal(tc_view_run(f->st, &gone, &v, err, sizeof err), TC_OK);
}

static void the_run_list(void **state)
{
    fixture *f = *state;
    tc_figures_list l;
    char err[512] = "";
    assert_int_equal(tc_view_figures_list(f->st, &l, err, sizeof err), TC_OK);
    assert_int_equal(l.n, 2);
    assert_int_equal(l.runs[0].id, f->run.id); /* newest first */
    assert_ptr_equal(l.mp[1], &l.m[1]);
    assert_int_equal(l.m[1].requests.completed, 2);
    /* The list's figures, streamed from first chunks, are the full ones. */
    tc_figures full;
    assert_int_equal(tc_view_figures(f->st, &f->run, TC_FIGURES_CHUNKS, &full, err, sizeof err),
                     TC_OK);
    const tc_run_metrics *a = &l.m[0], *b = &full.m;
    assert_int_equal(a->requests.measured, b->requests.measured);
    assert_int_equal(a->requests.failed, b->requests.failed);
    assert_true(a->has_duration && a->output_tokens_per_s == b->output_tokens_per_s);
    assert_true(a->ttft_ms.n == b->ttft_ms.n && a->ttft_ms.p50 == b->ttft_ms.p50);
    assert_int_equal(a->itl_ms.n, 0); /* never gathered for a list */
    assert_true(b->itl_ms.n > 0);
    tc_figures_free(&full);
    tc_figures_list_free(&l);
    tc_figures_list_free(NULL);
}

static tc_err count_chunks(void *ctx, const tc_req_record *r)
{
    size_t *n = ctx;
    *n += r->n_chunks;
    return TC_OK;
}

/* The store's stream hands over every request, with all its chunks or its
 * first alone, and stops at the callback's error. */
static void requests_as_a_stream(void **state)
{
    fixture *f = *state;
    char err[512] = "";
    size_t all = 0, first = 0;
    assert_int_equal(
        tc_store_each_request(f->st, f->run.id, 0, count_chunks, &all, err, sizeof err), TC_OK);
    assert_int_equal(
        tc_store_each_request(f->st, f->run.id, 1, count_chunks, &first, err, sizeof err), TC_OK);
    assert_int_equal(all, 33);
    assert_int_equal(first, 3);
    assert_int_equal(tc_store_each_request(f->st, 999, 1, count_chunks, &first, err, sizeof err),
                     TC_ERR_NOTFOUND);
}

static void roofline_inputs(void **state)
{
    fixture *f = *state;
    tc_roofline_run rr;
    char err[512] = "";
    assert_int_equal(tc_view_roofline_run(f->st, &f->run, &rr, err, sizeof err), TC_OK);
    assert_string_equal(rr.device, "NVIDIA GeForce RTX 4090");
    assert_int_equal(rr.decode_n, 2);
    assert_true(rr.decode_p50 > 0);
    assert_non_null(strstr(rr.fingerprint, "Q4_K_M"));
    tc_view_roofline_run_free(&rr);
    assert_int_equal(tc_view_roofline_run(f->st, &f->bare, &rr, err, sizeof err), TC_OK);
    assert_string_equal(rr.device, "");
    assert_null(rr.fingerprint);
    tc_view_roofline_run_free(&rr);
    tc_view_roofline_run_free(NULL);
}

static void a_set_summary(void **state)
{
    fixture *f = *state;
    tc_runset set;
    tc_figures *figs;
    tc_set_summary s;
    char err[512] = "";
    assert_int_equal(tc_view_runset(f->st, "full", &set, err, sizeof err), TC_OK);
    assert_int_equal(
        tc_view_runset_figures(f->st, &set, TC_FIGURES_SUMMARY, &figs, err, sizeof err), TC_OK);
    tc_figures_summarise("the run", &set, figs, &s);
    assert_int_equal(s.tps.n, 1);
    assert_true(s.mean.output_tokens_per_s > 0);
    assert_int_equal(s.n_warnings, 1);
    assert_non_null(strstr(s.warnings[0], "the run: 1 of 3 measured requests failed"));
    tc_runset_figures_free(figs, set.n);
    tc_runset_free(&set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(a_run_view, setup, teardown),
        cmocka_unit_test_setup_teardown(the_run_list, setup, teardown),
        cmocka_unit_test_setup_teardown(requests_as_a_stream, setup, teardown),
        cmocka_unit_test_setup_teardown(roofline_inputs, setup, teardown),
        cmocka_unit_test_setup_teardown(a_set_summary, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
