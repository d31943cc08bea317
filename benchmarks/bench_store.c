/* bench_store: a store that holds one very long run (a 450M-chunk run once
 * took 60 s and 10.5 GB to list, 86 s to end). Builds a database with one
 * run of --chunks chunk times (default 20M; the targets are stated for
 * 100M), then, each in a child process so that its peak memory is its own,
 * times:
 *   - show before the figures are stored (an older database): computed
 *     from the records streamed in passes, memory bounded;
 *   - the end of the run: computing and storing its figures (target < 5 s);
 *   - runs and show afterwards, from the stored figures (target < 1 s and
 *     < 50 MB each).
 * And the rate a run of 1M chunks is saved at, into SQLite and into
 * PostgreSQL (a new database on the server at $TC_TEST_PG_URL, which
 * `make bench` starts through scripts/pg-test.sh; dropped after), with
 * their ratio (target: PostgreSQL no slower than SQLite, as a run saves
 * them: the runner's batches handed to the saver thread), then stored
 * directly in batches of 64, 512 and all; each rate the median of 5 runs
 * after a warm-up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/figures.h"
#include "views/view_stored.h"
#include "bench/bench_runner.h"
#include "core/tc_sort.h"
#include "core/tc_time.h"
#include "store/store.h"

#include "bench_fill.h"
#include "views/view_figures.h"

#include <libpq-fe.h>

#define PER_REQUEST 128
#define BATCH 512

/* Fills a new run of `chunks` chunk times into path; *save_ns (may be
 * NULL): the time from the run's begin to its finish, without opening
 * the store (a new PostgreSQL database creates its schema then). */
static int fill_timed(const char *path, long long chunks, long long batch, int saver,
                      int64_t *save_ns)
{
    char err[512];
    tc_store *s;
    if (tc_store_open(path, TC_STORE_WRITE, &s, err, sizeof err) != TC_OK) {
        fprintf(stderr, "bench_store: %s\n", err);
        return -1;
    }
    const bench_fill f = {.requests = chunks / PER_REQUEST,
                          .per_request = PER_REQUEST,
                          .batch = (int)batch,
                          .saver = saver};
    tc_run_info run;
    int rc = bench_fill_run(s, &f, "bench_store", &run, save_ns);
    tc_store_close(s);
    return rc;
}

static int fill(const char *path, long long chunks)
{
    return fill_timed(path, chunks, BATCH, 0, NULL);
}

typedef enum { M_LIST, M_SHOW, M_SAVE } what;

/* In a child: one of the above; prints seconds and the child's peak RSS in
 * MB on one line of the pipe. */
static int measure(const char *path, what w, double *secs, double *mb)
{
    int fd[2];
    if (pipe(fd) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        char err[512];
        tc_store *s;
        int64_t t0 = tc_mono_ns();
        int ok = tc_store_open(path, w == M_SAVE ? TC_STORE_WRITE : TC_STORE_READ, &s, err,
                               sizeof err) == TC_OK;
        if (ok && w == M_LIST) {
            tc_figures_list l;
            ok = tc_view_figures_list(s, &l, err, sizeof err) == TC_OK;
            if (ok)
                tc_figures_list_free(&l);
        } else if (ok && w == M_SAVE) {
            tc_run_info run;
            ok = tc_store_find_run(s, "1", &run, err, sizeof err) == TC_OK &&
                 tc_view_save_figures(s, &run, err, sizeof err) == TC_OK;
        } else if (ok) {
            tc_runset set;
            tc_figures *f;
            ok = tc_view_runset(s, "1", &set, err, sizeof err) == TC_OK &&
                 tc_view_runset_figures(s, &set, TC_FIGURES_SUMMARY, &f, err, sizeof err) == TC_OK;
            if (ok)
                tc_runset_figures_free(f, set.n);
        }
        if (!ok)
            fprintf(stderr, "bench_store: %s\n", err);
        tc_store_close(ok ? s : NULL);
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

/* Runs sql on the server at url; 0 or -1 after saying why. */
static int pg_admin(const char *url, const char *sql)
{
    PGconn *c = PQconnectdb(url);
    PGresult *r = PQstatus(c) == CONNECTION_OK ? PQexec(c, sql) : NULL;
    int ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!ok)
        fprintf(stderr, "bench_store: %s: %s", sql,
                r ? PQresultErrorMessage(r) : PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
    return ok ? 0 : -1;
}

/* One way of saving a run: in batches of `batch`, handed to a saver
 * thread (as a run's are) or stored by the caller itself. */
typedef struct way {
    long long batch;
    int saver;
} way;

/* Chunk times per second of a run of `chunks` saved into target one way,
 * the median of SAVE_RUNS runs after one not timed (a new file, a new
 * database: both engines start cold, and a long-running server is warm). */
#define SAVE_RUNS 5

static double save_rate(const char *target, long long chunks, way w)
{
    double rate[SAVE_RUNS];
    if (fill_timed(target, chunks, w.batch, w.saver, NULL) < 0)
        return -1;
    for (int i = 0; i < SAVE_RUNS; i++) {
        int64_t ns = 0;
        if (fill_timed(target, chunks, w.batch, w.saver, &ns) < 0 || ns <= 0)
            return -1;
        rate[i] = (double)(chunks / PER_REQUEST * PER_REQUEST) / ((double)ns / 1e9);
    }
    tc_sort_double(rate, SAVE_RUNS);
    return rate[SAVE_RUNS / 2];
}

/* A new database on the server at url, its URL in target; 0, or -1 after
 * saying why. */
static int pg_new_db(const char *url, char *name, size_t namelen, char *target, size_t len)
{
    char sql[128];
    snprintf(name, namelen, "tc_bench_%d", (int)getpid());
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
    const char *auth = strstr(url, "://");
    if (!auth || pg_admin(url, sql) < 0)
        return -1;
    const char *p = auth + 3 + strcspn(auth + 3, "/?");
    snprintf(target, len, "%.*s/%s%s", (int)(p - url), url, name, p + strcspn(p, "?"));
    return 0;
}

/* Removes an SQLite file and its -wal and -shm companions. */
static void unlink_db(const char *path)
{
    char side[200];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
}

/* The save rates of a 1M-chunk run, SQLite's and PostgreSQL's, and their
 * ratio: first as a run is saved (the runner's batches of 64 handed to
 * the saver thread, which writes what has queued as one transaction; the
 * target), then stored directly in batches of 64, of 512 and as one
 * batch, to show where the time goes. PostgreSQL is skipped, said so,
 * without a server URL. */
static void save_rates(const char *dir)
{
    const long long chunks = 1000000, requests = chunks / PER_REQUEST;
    char path[160], name[64] = "", target[2048], sql[128];
    snprintf(path, sizeof path, "%s/rate.db", dir);
    const char *url = getenv("TC_TEST_PG_URL");
    int pg_ok = url && url[0] && pg_new_db(url, name, sizeof name, target, sizeof target) == 0;
    printf("  save 1M chunks (%d-chunk requests; M chunk times/s, median of %d after a "
           "warm-up)\n    %-30s %8s %11s\n",
           PER_REQUEST, SAVE_RUNS, "", "SQLite", "PostgreSQL");
    if (!pg_ok)
        printf("    PostgreSQL skipped: %s\n",
               url && url[0] ? "cannot create a database there"
                             : "no server (set TC_TEST_PG_URL, or run `make bench`, which "
                               "starts one)");
    const way ways[] = {
        {TC_RUNNER_BATCH_MAX, 1}, {TC_RUNNER_BATCH_MAX, 0}, {512, 0}, {requests, 0}};
    for (size_t i = 0; i < sizeof ways / sizeof ways[0]; i++) {
        char label[64];
        if (ways[i].saver)
            snprintf(label, sizeof label, "as a run: %llds to the saver", ways[i].batch);
        else
            snprintf(label, sizeof label, "directly, batches of %lld%s", ways[i].batch,
                     ways[i].batch == requests ? " (all)" : "");
        double s_rate = save_rate(path, chunks, ways[i]);
        unlink_db(path);
        if (!pg_ok) {
            printf("    %-30s %8.2f\n", label, s_rate / 1e6);
            continue;
        }
        double p_rate = save_rate(target, chunks, ways[i]);
        if (p_rate < 0 || s_rate <= 0) {
            printf("    %-30s failed\n", label);
            continue;
        }
        printf("    %-30s %8.2f %11.2f  PostgreSQL/SQLite %.2f", label, s_rate / 1e6, p_rate / 1e6,
               p_rate / s_rate);
        if (ways[i].saver)
            printf(" (target >= 1: %s)", p_rate >= s_rate ? "PASS" : "FAIL");
        printf("\n");
    }
    if (pg_ok) {
        snprintf(sql, sizeof sql, "DROP DATABASE %s WITH (FORCE)", name);
        (void)pg_admin(url, sql);
    }
}

int main(int argc, char **argv)
{
    long long chunks = argc > 2 && strcmp(argv[1], "--chunks") == 0 ? atoll(argv[2]) : 20000000LL;
    char dir[] = "/tmp/truecost-bench-store-XXXXXX", path[128];
    if (chunks < PER_REQUEST || !mkdtemp(dir))
        return 1;
    snprintf(path, sizeof path, "%s/big.db", dir);
    int64_t t0 = tc_mono_ns();
    if (fill(path, chunks) < 0)
        return 1;
    printf("store bench: one run of %lld chunk times (%lld requests x %d), stored in %.1f s\n",
           chunks, chunks / PER_REQUEST, PER_REQUEST, (double)(tc_mono_ns() - t0) / 1e9);
    double cs, cm, es, em, ls, lm, ss, sm;
    if (measure(path, M_SHOW, &cs, &cm) < 0 || measure(path, M_SAVE, &es, &em) < 0 ||
        measure(path, M_LIST, &ls, &lm) < 0 || measure(path, M_SHOW, &ss, &sm) < 0) {
        fprintf(stderr, "bench_store: a measurement failed\n");
        return 1;
    }
    double scale = 1e8 / (double)chunks; /* the targets are for 100M chunks */
    printf("  show, nothing stored  %.3f s, peak RSS %.1f MB  (older database: computed from "
           "the records in passes)\n",
           cs, cm);
    printf("  end of run            %.3f s, peak RSS %.1f MB  (computes and stores the figures; "
           "at 100M chunks ~%.1f s, target < 5 s: %s)\n",
           es, em, es * scale, es * scale < 5 ? "PASS" : "FAIL");
    printf("  runs (stored)         %.3f s, peak RSS %.1f MB  (target < 1 s, < 50 MB: %s)\n", ls,
           lm, ls < 1 && lm < 50 ? "PASS" : "FAIL");
    printf("  show (stored)         %.3f s, peak RSS %.1f MB  (target < 1 s, < 50 MB: %s)\n", ss,
           sm, ss < 1 && sm < 50 ? "PASS" : "FAIL");
    save_rates(dir);
    unlink_db(path);
    rmdir(dir);
    return 0;
}
