/* Unit tests of the soak: the trend fit and verdict (analysis/soak), the
 * mergeable histogram (core/tc_hist), a window summed up from records and
 * samples, the server's process found under a made-up /proc, and the
 * store's round trip of plan, windows and outages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/soak.h"
#include "core/tc_hist.h"
#include "measure/measure_soak_internal.h"
#include "views/view_soak.h"

/* ---- the fit ------------------------------------------------------------ */

static void fit_exact_line(void **state)
{
    (void)state;
    double x[5] = {0, 1, 2, 3, 4}, y[5];
    for (int i = 0; i < 5; i++)
        y[i] = 10 - 2 * x[i];
    tc_soak_fit f = tc_soak_fit_line(x, y, 5);
    assert_true(f.ok);
    assert_int_equal(f.n, 5);
    assert_true(fabs(f.slope + 2) < 1e-12);
    assert_true(fabs(f.intercept - 10) < 1e-12);
    assert_true(fabs(f.lo - f.hi) < 1e-9); /* no residual: no width */
}

static void fit_interval_and_gaps(void **state)
{
    (void)state;
    /* y = 1 + 0.5 x with alternating noise; a NaN point is skipped. */
    double x[8] = {0, 1, 2, 3, 4, 5, 6, 7}, y[8];
    for (int i = 0; i < 8; i++)
        y[i] = 1 + 0.5 * x[i] + (i % 2 ? 0.2 : -0.2);
    y[3] = NAN;
    tc_soak_fit f = tc_soak_fit_line(x, y, 8);
    assert_true(f.ok);
    assert_int_equal(f.n, 7);
    assert_true(f.lo < 0.5 && 0.5 < f.hi);
    assert_true(f.hi - f.lo < 0.3);
    double two[2] = {1, 2};
    assert_false(tc_soak_fit_line(two, two, 2).ok); /* fewer than 3 */
    double same[3] = {1, 1, 1};
    assert_false(tc_soak_fit_line(same, x, 3).ok); /* no spread in x */
}

/* ---- the histogram ------------------------------------------------------- */

static void hist_quantiles_and_merge(void **state)
{
    (void)state;
    tc_hist *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    assert_true(isnan(tc_hist_quantile(a, 0.5)));
    /* 1..1000 ms, split across two histograms. */
    for (int i = 1; i <= 1000; i++)
        tc_hist_add(i % 2 ? a : b, i * 1e6);
    tc_hist_merge(a, b);
    assert_int_equal(a->n, 1000);
    double p50 = tc_hist_quantile(a, 0.5) / 1e6, p99 = tc_hist_quantile(a, 0.99) / 1e6;
    assert_true(fabs(p50 - 500) / 500 < 0.02);
    assert_true(fabs(p99 - 990) / 990 < 0.02);
    tc_hist_add(a, -1);   /* ignored */
    tc_hist_add(a, 1e30); /* the last bin */
    assert_int_equal(a->n, 1001);
    free(a);
    free(b);
}

/* ---- the verdict --------------------------------------------------------- */

static tc_soak_plan plan_of(size_t n, double window_s)
{
    return (tc_soak_plan){.duration_s = n * window_s,
                          .window_s = window_s,
                          .max_downtime_s = 60,
                          .max_drift_pct = 5,
                          .max_error_rate = 0.01,
                          .covered_s = n * window_s};
}

/* n windows of an hour / n each: tok/s falling by `drift` % per hour of
 * 1000, RSS growing by rss_mib_h from 1 GiB, noise +-noise_pct %. */
static void make_windows(tc_soak_window *w, size_t n, double window_s, double drift,
                         double rss_mib_h, double noise_pct)
{
    for (size_t i = 0; i < n; i++) {
        memset(&w[i], 0, sizeof w[i]);
        w[i].idx = (int64_t)i;
        w[i].start_s = i * window_s;
        w[i].span_s = window_s;
        w[i].requests = 100;
        double h = (w[i].start_s + window_s / 2) / 3600;
        double noise = (i % 2 ? 1 : -1) * noise_pct / 100;
        w[i].tok_s = 1000 * (1 - drift / 100 * h) * (1 + noise);
        w[i].tpot_p50_ms = 20;
        w[i].ttft_p50_ms = w[i].ttft_p99_ms = w[i].tpot_p99_ms = 30;
        w[i].avg_power_w = w[i].energy_j = NAN;
        w[i].gpu_mem_bytes = -1;
        w[i].rss_bytes = (int64_t)((1024 + rss_mib_h * h) * 1048576.0);
    }
}

static void steady_passes(void **state)
{
    (void)state;
    tc_soak_window w[24];
    make_windows(w, 24, 3600, 0, 0, 2);
    tc_soak_plan p = plan_of(24, 3600);
    tc_soak_verdict v;
    tc_soak_judge(&p, w, 24, NULL, 0, &v);
    assert_true(v.pass);
    assert_int_equal(v.outcome, TC_SOAK_PASS);
    assert_int_equal(v.n_reasons, 0);
    assert_true(fabs(v.tput_pct_h) < 1);
    assert_false(v.rss_leak);
    assert_int_equal(v.requests, 2400);
}

/* Stopped before its plan: INCOMPLETE however clean, FAIL once a
 * threshold broke; within 1% (at most 1 s) of the plan counts as run. */
static void a_soak_short_of_its_plan_does_not_pass(void **state)
{
    (void)state;
    tc_soak_window w[24];
    make_windows(w, 24, 3600, 0, 0, 2);
    tc_soak_plan p = plan_of(24, 3600);
    p.duration_s = 48 * 3600; /* planned two days, ran one */
    tc_soak_verdict v;
    tc_soak_judge(&p, w, 24, NULL, 0, &v);
    assert_int_equal(v.outcome, TC_SOAK_INCOMPLETE);
    assert_false(v.pass);
    assert_false(v.complete);
    assert_int_equal(v.n_reasons, 0);
    assert_string_equal(tc_soak_outcome_name(v.outcome), "INCOMPLETE");
    make_windows(w, 24, 3600, 2, 0, 0.5); /* drifting: broken, however short */
    p.max_drift_pct = 1;
    tc_soak_judge(&p, w, 24, NULL, 0, &v);
    assert_int_equal(v.outcome, TC_SOAK_FAIL);
    assert_false(v.complete);
    tc_soak_plan q = {.duration_s = 40, .covered_s = 39.6};
    assert_true(tc_soak_plan_complete(&q)); /* 1% of 40 s */
    q.covered_s = 39.5;
    assert_false(tc_soak_plan_complete(&q));
    q = (tc_soak_plan){.duration_s = 86400, .covered_s = 86399.2};
    assert_true(tc_soak_plan_complete(&q)); /* 1 s of a day */
    q.covered_s = 86398.9;
    assert_false(tc_soak_plan_complete(&q));
}

static void drift_fails_with_its_reason(void **state)
{
    (void)state;
    tc_soak_window w[24];
    make_windows(w, 24, 3600, 2, 0, 0.5); /* -2 % per hour over a day */
    tc_soak_plan p = plan_of(24, 3600);
    p.max_drift_pct = 1;
    tc_soak_verdict v;
    tc_soak_judge(&p, w, 24, NULL, 0, &v);
    assert_false(v.pass);
    assert_true(fabs(v.tput_pct_h + 2) < 0.1);
    assert_non_null(strstr(v.reasons[0], "throughput drifts"));
    p.max_drift_pct = 5; /* within the limit */
    tc_soak_judge(&p, w, 24, NULL, 0, &v);
    assert_true(v.pass);
}

static void leak_flagged_warm_up_not(void **state)
{
    (void)state;
    tc_soak_window w[24];
    make_windows(w, 24, 3600, 0, 200, 0); /* 200 MiB an hour: 20% of 1 GiB */
    tc_soak_plan p = plan_of(24, 3600);
    tc_soak_verdict v;
    tc_soak_judge(&p, w, 24, NULL, 0, &v);
    assert_true(v.rss_leak);
    assert_false(v.pass);
    assert_true(fabs(v.rss_mib_h - 200) < 1);
    /* A flat server whose first window was its warm-up is no leak. */
    make_windows(w, 24, 3600, 0, 0, 0);
    w[0].rss_bytes = 100 * 1048576LL;
    tc_soak_judge(&p, w, 24, NULL, 0, &v);
    assert_false(v.rss_leak);
    /* Steep growth in a short soak, but under 16 MiB in all: not yet. */
    make_windows(w, 6, 5, 0, 0, 0);
    for (int i = 0; i < 6; i++)
        w[i].rss_bytes = (1024 + i * 2) * 1048576LL;
    p = plan_of(6, 5);
    tc_soak_judge(&p, w, 6, NULL, 0, &v);
    assert_true(v.rss_mib_h > 1000);
    assert_false(v.rss_leak);
}

static void outages_downtime_and_errors(void **state)
{
    (void)state;
    tc_soak_window w[10];
    make_windows(w, 10, 60, 0, 0, 0);
    /* Window 3 holds an outage of 90 s and all its errors; window 7 a
     * burst of errors with the server up. */
    w[3].errors = 40;
    w[3].errors_by_kind[TC_REQ_CONNECT] = 40;
    w[3].down_s = 60;
    w[4].down_s = 30;
    w[7].errors = 5;
    tc_soak_outage o[1] = {{.start_s = 180, .end_s = 270, .failed = 40, .refused = 1}};
    tc_soak_plan p = plan_of(10, 60);
    tc_soak_verdict v;
    tc_soak_judge(&p, w, 10, o, 1, &v);
    assert_int_equal(v.outages, 1);
    assert_true(fabs(v.downtime_s - 90) < 1e-9);
    assert_true(fabs(v.longest_s - 90) < 1e-9);
    assert_int_equal(v.errors, 45);
    assert_int_equal(v.requests_up, 800); /* windows 3 and 4 are the outage's */
    assert_true(fabs(v.error_rate - 5.0 / 800) < 1e-12);
    assert_int_equal(v.error_bursts, 1);
    assert_false(v.pass); /* downtime 90 s > 60 s */
    assert_non_null(strstr(v.reasons[0], "downtime 90.0 s exceeds 60.0 s"));
    assert_true(fabs(tc_soak_outages_per_day(&v) - 144) < 1e-9); /* 1 in 600 s */
    /* Still down at the end: counted to the end, and said. */
    o[0].end_s = -1;
    p.max_downtime_s = 1000;
    tc_soak_judge(&p, w, 10, o, 1, &v);
    assert_true(v.open_outage);
    assert_true(fabs(v.downtime_s - 420) < 1e-9);
    assert_non_null(strstr(v.reasons[0], "still down"));
}

/* ---- a window summed up -------------------------------------------------- */

static void window_from_records_and_samples(void **state)
{
    (void)state;
    tc_soak_acc *a = malloc(sizeof *a);
    tc_measure_soak_acc_begin(a, 3, 15, 0);
    int64_t chunks[3] = {110 * 1000000LL, 120 * 1000000LL, 130 * 1000000LL};
    tc_req_record ok = {.send_ns = 100 * 1000000LL,
                        .end_ns = 130 * 1000000LL,
                        .chunk_ns = chunks,
                        .n_chunks = 3,
                        .output_tokens = 3};
    tc_req_record bad = {.send_ns = 0, .end_ns = 1, .error = TC_REQ_HTTP};
    tc_measure_soak_acc_record(a, &ok);
    tc_measure_soak_acc_record(a, &bad);
    tc_measure_soak_acc_tokens(a, 3);
    tc_run_sample s = {.device = 0,
                       .s = {.valid = TC_TF_POWER | TC_TF_ENERGY | TC_TF_MEM_USED,
                             .power_mw = 200000,
                             .energy_uj = 1000000,
                             .mem_used_bytes = 5}};
    tc_measure_soak_acc_sample(a, &s);
    s.s.power_mw = 300000;
    s.s.energy_uj = 1500000;
    s.s.mem_used_bytes = 7;
    tc_measure_soak_acc_sample(a, &s);
    tc_measure_soak_acc_end(a, 5);
    assert_int_equal(a->w.idx, 3);
    assert_int_equal(a->w.requests, 2);
    assert_int_equal(a->w.errors, 1);
    assert_int_equal(a->w.errors_by_kind[TC_REQ_HTTP], 1);
    assert_int_equal(a->w.output_tokens, 3);
    assert_true(fabs(a->w.tok_s - 0.6) < 1e-12);
    assert_true(fabs(a->w.ttft_p50_ms - 10) / 10 < 0.02);
    assert_true(fabs(a->w.tpot_p50_ms - 10) / 10 < 0.02);
    assert_true(fabs(a->w.avg_power_w - 250) < 1e-9);
    assert_true(fabs(a->w.energy_j - 0.5) < 1e-9); /* the counter's difference */
    assert_int_equal(a->w.gpu_mem_bytes, 7);
    assert_int_equal(a->w.rss_bytes, -1);
    free(a);
}

/* ---- the server's process -------------------------------------------------- */

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void server_process_under_fake_proc(void **state)
{
    (void)state;
    char root[] = "/tmp/tc-soak-proc-XXXXXX", p[256];
    assert_non_null(mkdtemp(root));
    snprintf(p, sizeof p, "%s/net", root);
    mkdir(p, 0755);
    /* Port 0x1F90 = 8080 listening (0A) with inode 4242; another port's. */
    snprintf(p, sizeof p, "%s/net/tcp", root);
    write_file(p, "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   "
                  "uid  timeout inode\n"
                  "   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  "
                  "   0        0 4242 1 0000000000000000 100 0 0 10 0\n"
                  "   1: 0100007F:0050 00000000:0000 0A 00000000:00000000 00:00000000 00000000  "
                  "   0        0 777 1 0000000000000000 100 0 0 10 0\n");
    snprintf(p, sizeof p, "%s/321", root);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/321/fd", root);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/321/fd/5", root);
    assert_int_equal(symlink("socket:[4242]", p), 0);
    snprintf(p, sizeof p, "%s/321/statm", root);
    write_file(p, "1000 250 10 1 0 100 0\n");
    assert_int_equal(tc_measure_soak_server_pid(root, 8080), 321);
    assert_int_equal(tc_measure_soak_server_pid(root, 80), -1); /* nobody holds inode 777 */
    assert_int_equal(tc_measure_soak_server_pid(root, 9999), -1);
    assert_int_equal(tc_measure_soak_process_rss(root, 321), 250 * sysconf(_SC_PAGESIZE));
    assert_int_equal(tc_measure_soak_process_rss(root, 322), -1);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    assert_int_equal(system(cmd), 0);
}

static void endpoint_ports(void **state)
{
    (void)state;
    tc_endpoint ep = {0};
    snprintf(ep.base, sizeof ep.base, "http://127.0.0.1:11434");
    assert_int_equal(tc_measure_soak_endpoint_port(&ep), 11434);
    snprintf(ep.base, sizeof ep.base, "http://user:pw@localhost/v1");
    assert_int_equal(tc_measure_soak_endpoint_port(&ep), 80);
    snprintf(ep.base, sizeof ep.base, "https://[::1]:8443");
    assert_int_equal(tc_measure_soak_endpoint_port(&ep), 8443);
    snprintf(ep.base, sizeof ep.base, "https://example.com");
    assert_int_equal(tc_measure_soak_endpoint_port(&ep), 443);
}

/* ---- the store ------------------------------------------------------------ */

static void store_round_trip(void **state)
{
    (void)state;
    char dir[] = "/tmp/tc-soak-db-XXXXXX", path[128], err[512];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/db", dir);
    tc_store *st = NULL;
    assert_int_equal(tc_store_open(path, TC_STORE_WRITE, &st, err, sizeof err), TC_OK);
    tc_run_info run = {.status = TC_RUN_RUNNING, .created_wall_ns = 1, .concurrency = 1};
    snprintf(run.endpoint, sizeof run.endpoint, "http://x");
    snprintf(run.model, sizeof run.model, "m");
    assert_int_equal(tc_store_run_begin(st, &run, err, sizeof err), TC_OK);
    tc_soak_plan p = plan_of(2, 60);
    p.run_id = run.id;
    p.chunks = TC_SOAK_CHUNKS_NONE;
    p.restarts = 2;
    snprintf(p.command, sizeof p.command, "truecost soak http://x --label 'a b'");
    tc_soak_window w[2];
    make_windows(w, 2, 60, 0, 0, 0);
    w[1].errors_by_kind[TC_REQ_CONNECT] = 3;
    w[1].errors_by_kind[TC_REQ_TIMEOUT] = 1;
    w[1].errors = 4;
    w[1].rss_bytes = -1;
    tc_soak_outage o = {.start_s = 61, .end_s = -1, .failed = 3, .refused = 1};
    snprintf(o.first_error, sizeof o.first_error, "connect: refused");
    assert_int_equal(tc_store_soak_save(st, &p, &w[0], NULL, 0, err, sizeof err), TC_OK);
    p.command[0] = '\0'; /* the command is stored when the soak starts, then kept */
    assert_int_equal(tc_store_soak_save(st, &p, &w[1], &o, 1, err, sizeof err), TC_OK);
    o.end_s = 70; /* the same outage, ended: replaced */
    assert_int_equal(tc_store_soak_save(st, &p, NULL, &o, 1, err, sizeof err), TC_OK);
    tc_soak_stored s;
    int found = 0;
    assert_int_equal(tc_view_soak(st, run.id, &s, &found, err, sizeof err), TC_OK);
    assert_true(found);
    assert_int_equal(s.plan.chunks, TC_SOAK_CHUNKS_NONE);
    assert_int_equal(s.plan.restarts, 2);
    assert_string_equal(s.plan.command, "truecost soak http://x --label 'a b'");
    assert_int_equal(s.n_windows, 2);
    assert_int_equal(s.windows[1].errors_by_kind[TC_REQ_CONNECT], 3);
    assert_int_equal(s.windows[1].errors_by_kind[TC_REQ_TIMEOUT], 1);
    assert_int_equal(s.windows[1].rss_bytes, -1);
    assert_true(isnan(s.windows[1].avg_power_w));
    assert_true(fabs(s.windows[0].tok_s - w[0].tok_s) < 1e-9);
    assert_int_equal(s.n_outages, 1);
    assert_true(fabs(s.outages[0].end_s - 70) < 1e-9);
    assert_string_equal(s.outages[0].first_error, "connect: refused");
    assert_int_equal(s.verdict.outages, 1);
    tc_soak_stored_free(&s);
    /* Reopened for --resume: running again, numbered after its requests. */
    assert_int_equal(tc_store_run_finish(st, run.id, TC_RUN_INTERRUPTED, err, sizeof err), TC_OK);
    int64_t next = -1;
    assert_int_equal(tc_store_run_reopen(st, run.id, &next, err, sizeof err), TC_OK);
    assert_int_equal(next, 0);
    assert_int_equal(tc_store_run_finish(st, run.id, TC_RUN_COMPLETE, err, sizeof err), TC_OK);
    /* A plain run is no soak. */
    tc_run_info other = run;
    other.uuid[0] = '\0'; /* a new run: a new identity */
    assert_int_equal(tc_store_run_begin(st, &other, err, sizeof err), TC_OK);
    assert_int_equal(tc_view_soak(st, other.id, &s, &found, err, sizeof err), TC_OK);
    assert_false(found);
    tc_store_close(st);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fit_exact_line),
        cmocka_unit_test(fit_interval_and_gaps),
        cmocka_unit_test(hist_quantiles_and_merge),
        cmocka_unit_test(steady_passes),
        cmocka_unit_test(a_soak_short_of_its_plan_does_not_pass),
        cmocka_unit_test(drift_fails_with_its_reason),
        cmocka_unit_test(leak_flagged_warm_up_not),
        cmocka_unit_test(outages_downtime_and_errors),
        cmocka_unit_test(window_from_records_and_samples),
        cmocka_unit_test(server_process_under_fake_proc),
        cmocka_unit_test(endpoint_ports),
        cmocka_unit_test(store_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
