/* A sharded group read as one run: its energy is the server box's, each
 * remote device read once, from the shard whose samples cover the merged
 * window best, on the merged clock; the shards' own hosts' devices are
 * left out, and a shard without a request cannot place its samples. */
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

#include "views/view_shards.h"
#include "test_run.h"
#include "views/view_figures.h"
#include "views/view_run.h"

#define WALL 1795966314000000000LL /* the shards' common wall clock at the start */
#define N_REQ 10

/* Each shard's own monotonic clock at WALL; the box's energy counter
 * reads 300 J/s of the group's merged clock, which starts at shard A's. */
static const int64_t mono_at_wall[3] = {1000000000LL, 7000000000000LL, 42000000000LL};

static tc_store *open_store(char *dir, char *path, size_t len)
{
    assert_non_null(mkdtemp(dir));
    snprintf(path, len, "%s/t.db", dir);
    char err[512];
    tc_store *s = NULL;
    if (tc_store_open(path, TC_STORE_WRITE, &s, err, sizeof err) != TC_OK)
        fail_msg("%s", err);
    return s;
}

static int64_t begin_shard(tc_store *s)
{
    tc_run_info r;
    test_run_info(&r);
    snprintf(r.label, sizeof r.label, "fleet");
    snprintf(r.group, sizeof r.group, "fleet");
    snprintf(r.group_kind, sizeof r.group_kind, "shard");
    return test_begin_run(s, &r);
}

/* N_REQ requests 100 ms apart (shard k's 50 ms after shard A's), each
 * 50 ms long with 10 chunks, on shard k's own clock. */
static void add_requests(tc_store *s, int64_t run, int k)
{
    tc_req_record r[N_REQ];
    char err[512];
    for (int i = 0; i < N_REQ; i++) {
        int64_t after = (int64_t)i * 100000000LL + k * 50000000LL;
        tc_req_record_init(&r[i]);
        r[i].seq = i;
        r[i].send_ns = mono_at_wall[k] + after;
        r[i].send_wall_ns = WALL + after;
        for (int c = 1; c <= 10; c++)
            assert_int_equal(tc_req_record_add_chunk(&r[i], r[i].send_ns + c * 5000000LL), 0);
        r[i].end_ns = r[i].chunk_ns[9] + 1;
        r[i].http_status = 200;
        r[i].output_tokens = 10;
        r[i].output_source = TC_TOKENS_USAGE;
    }
    assert_int_equal(tc_store_add_requests(s, run, r, N_REQ, err, sizeof err), TC_OK);
    for (int i = 0; i < N_REQ; i++)
        tc_req_record_clear(&r[i]);
}

static tc_run_device device(const char *backend, const char *id)
{
    tc_run_device d;
    memset(&d, 0, sizeof d);
    d.info.kind = strcmp(backend, "remote") == 0 ? TC_TELEM_GPU : TC_TELEM_CPU;
    snprintf(d.info.name, sizeof d.info.name, "%s", backend);
    snprintf(d.info.id, sizeof d.info.id, "%s", id);
    snprintf(d.info.energy_what, sizeof d.info.energy_what, "energy");
    snprintf(d.backend, sizeof d.backend, "%s", backend);
    return d;
}

/* Device 0 local (the shard's host), device 1 the box's GPU, sampled
 * every 50 ms of the merged clock from `from_s` to `to_s` seconds, stamped
 * with shard k's clock. */
static void add_telemetry(tc_store *s, int64_t run, int k, double from_s, double to_s)
{
    char err[512];
    tc_run_device devs[2] = {device("rapl", "intel-rapl:0"), device("remote", "box:9464/GPU-1")};
    assert_int_equal(tc_store_add_devices(s, run, devs, 2, err, sizeof err), TC_OK);
    tc_run_sample smp[128];
    size_t n = 0;
    for (double t = from_s; t <= to_s + 1e-9 && n < 128; t += 0.05) {
        int64_t mono = mono_at_wall[k] + llround((t - 1.0) * 1e9); /* t: 1 s at WALL */
        for (int d = 0; d < 2; d++) {
            tc_run_sample *x = &smp[n++];
            memset(x, 0, sizeof *x);
            x->device = d;
            x->s.mono_ns = mono;
            x->s.valid = TC_TF_POWER | TC_TF_ENERGY;
            x->s.power_mw = d ? 300000 : 50000;
            x->s.energy_uj = (uint64_t)llround((d ? 300.0 : 50.0) * t * 1e6);
        }
    }
    assert_int_equal(tc_store_add_samples(s, run, smp, n, err, sizeof err), TC_OK);
}

static void merged_energy_is_the_box_once(void **state)
{
    (void)state;
    char dir[] = "/tmp/tc_shards_XXXXXX", path[128], err[512];
    tc_store *s = open_store(dir, path, sizeof path);
    int64_t a = begin_shard(s), b = begin_shard(s), c = begin_shard(s);
    add_requests(s, a, 0);
    add_requests(s, b, 1);
    /* A saw the box for the first half only; B for all of it; C sent
     * nothing, so its samples (here on an unrelated clock) have no place. */
    add_telemetry(s, a, 0, 0.9, 1.5);
    add_telemetry(s, b, 1, 0.9, 2.3);
    add_telemetry(s, c, 2, 0.9, 2.3);
    for (int64_t id = a; id <= c; id++)
        assert_int_equal(tc_store_run_finish(s, id, TC_RUN_COMPLETE, err, sizeof err), TC_OK);

    tc_runset set;
    assert_int_equal(tc_view_runset(s, "fleet", &set, err, sizeof err), TC_OK);
    assert_true(tc_view_is_sharded(&set));
    tc_run_view v;
    if (tc_view_shards(s, &set, &v, err, sizeof err) != TC_OK)
        fail_msg("%s", err);
    const tc_run_energy *e = &v.f.e;
    assert_int_equal(e->n, 1); /* the box's GPU; no host's RAPL */
    assert_string_equal(e->dev[0].dev.backend, "remote");
    tc_run_window w;
    tc_run_window_of_metrics(&v.f.m, &w);
    double window_s = (double)(w.to - w.from) / 1e9;
    assert_true(window_s > 0.5);
    /* B's samples, on the merged clock: 300 W over the whole window */
    assert_true(fabs(e->total_j - 300.0 * window_s) < 0.01 * 300.0 * window_s);
    assert_true(e->dev[0].load.coverage > 0.99);
    int said = 0; /* A and B: C, without a request, is skipped whole */
    for (int i = 0; i < v.n_warnings; i++)
        said |= strstr(v.warnings[i], "2 shards also sampled their own host's devices") != NULL;
    assert_true(said);
    tc_view_run_free(&v);
    tc_runset_free(&set);
    tc_store_close(s);
    unlink(path);
    char wal[160];
    snprintf(wal, sizeof wal, "%s-wal", path);
    unlink(wal);
    snprintf(wal, sizeof wal, "%s-shm", path);
    unlink(wal);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(merged_energy_is_the_box_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
