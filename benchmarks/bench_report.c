/* bench_report: `truecost report` of one large stored run (issue 16: a run
 * of 1M requests in under 5 s and 200 MB). Builds a database with one run
 * of --requests requests (default 1M) of PER_REQUEST chunks each, as
 * bench_store does, stores its figures (as the end of a run does), then,
 * in a child process so that its peak memory is its own, gathers and
 * writes the HTML report of it: the stored figures, the timeline streamed
 * from the records' first chunks, the charts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "views/view_stored.h"
#include "core/tc_time.h"
#include "page/page_doc.h"
#include "store/store.h"

#include "bench_fill.h"

#define PER_REQUEST 16
#define BATCH 1024

static int fill(const char *path, long long requests)
{
    char err[512];
    tc_store *s;
    if (tc_store_open(path, TC_STORE_WRITE, &s, err, sizeof err) != TC_OK) {
        fprintf(stderr, "bench_report: %s\n", err);
        return -1;
    }
    const bench_fill f = {.label = "big",
                          .requests = requests,
                          .per_request = PER_REQUEST,
                          .in_flight = 64,
                          .batch = BATCH};
    tc_run_info run;
    int ok = bench_fill_run(s, &f, "bench_report", &run, NULL) == 0;
    if (ok && tc_view_save_figures(s, &run, err, sizeof err) != TC_OK) {
        fprintf(stderr, "bench_report: %s\n", err);
        ok = 0;
    }
    tc_store_close(s);
    return ok ? 0 : -1;
}

static const char profile[] = "currency = USD\n[hardware]\nprice = 3200\namortize_months = 36\n"
                              "[power]\nprice_per_kwh = 0.30\npue = 1.1\nidle_watts = 80\n"
                              "busy_watts = 420\n[operations]\nhours_per_month = 4\n"
                              "hourly_rate = 80\n[workload]\nutilization = 0.4\n";

/* In a child: the report of run "big"; prints ok, seconds and peak RSS MB. */
static int measure(const char *db, const char *out, double *secs, double *mb)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        char err[1024] = "";
        tc_store *s = NULL;
        tc_cost_profile p;
        tc_dossier d;
        memset(&d, 0, sizeof d);
        const double at[1] = {50};
        tc_dossier_ask ask = {.which = {"big", NULL},
                              .profile = {&p, &p},
                              .targets = at,
                              .n_targets = 1,
                              .resamples_compare = 1000,
                              .resamples_frontier = 1000,
                              .seed = 1,
                              .command = "bench_report"};
        int64_t t0 = tc_mono_ns();
        int ok = tc_cost_profile_parse("p.ini", profile, strlen(profile), &p, err, sizeof err) ==
                     TC_OK &&
                 tc_store_open(db, TC_STORE_READ, &s, err, sizeof err) == TC_OK &&
                 tc_dossier_load(s, &ask, &d, err, sizeof err) == TC_OK &&
                 tc_page_write(&d, &(tc_page_out){.fmt = TC_PAGE_HTML, .path = out}, err,
                               sizeof err) == TC_OK;
        if (!ok)
            fprintf(stderr, "bench_report: %s\n", err);
        tc_dossier_free(&d);
        tc_store_close(s);
        double t = (double)(tc_mono_ns() - t0) / 1e9;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        dprintf(fd[1], "%d %f %f\n", ok, t, (double)ru.ru_maxrss / 1024.0);
        _exit(0);
    }
    close(fd[1]);
    char line[128] = "";
    ssize_t n = read(fd[0], line, sizeof line - 1);
    close(fd[0]);
    waitpid(pid, NULL, 0);
    int ok = 0;
    return n > 0 && sscanf(line, "%d %lf %lf", &ok, secs, mb) == 3 && ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    long long requests =
        argc > 2 && strcmp(argv[1], "--requests") == 0 ? atoll(argv[2]) : 1000000LL;
    char dir[] = "/tmp/truecost-bench-report-XXXXXX", db[128], out[128], cmd[200];
    if (requests < 1 || !mkdtemp(dir))
        return 1;
    snprintf(db, sizeof db, "%s/big.db", dir);
    snprintf(out, sizeof out, "%s/report.html", dir);
    int64_t t0 = tc_mono_ns();
    if (fill(db, requests) < 0)
        return 1;
    printf("report bench: one run of %lld requests x %d chunks, stored with its figures in "
           "%.1f s\n",
           requests, PER_REQUEST, (double)(tc_mono_ns() - t0) / 1e9);
    double s, mb;
    struct stat st;
    if (measure(db, out, &s, &mb) < 0 || stat(out, &st) != 0) {
        fprintf(stderr, "bench_report: the report failed\n");
        return 1;
    }
    double scale = 1e6 / (double)requests; /* the targets are for 1M requests */
    printf("  report (stored)       %.3f s, peak RSS %.1f MB, %.0f kB of HTML  (at 1M requests "
           "~%.1f s, target < 5 s and < 200 MB: %s)\n",
           s, mb, st.st_size / 1024.0, s * scale, s * scale < 5 && mb < 200 ? "PASS" : "FAIL");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : 1;
}
