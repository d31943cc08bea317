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
 * their ratio (target: PostgreSQL no slower than SQLite); each rate the
 * median of 5 runs after a warm-up. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/figures.h"
#include "analysis/figures_stored.h"
#include "core/tc_sort.h"
#include "core/tc_time.h"
#include "store/store.h"

#include "bench_fill.h"

#include <libpq-fe.h>

#define PER_REQUEST 128
#define BATCH 512

/* Fills a new run of `chunks` chunk times into path; *save_ns (may be
 * NULL): the time from the run's begin to its finish, without opening
 * the store (a new PostgreSQL database creates its schema then). */
static int fill_timed(const char *path, long long chunks, int64_t *save_ns)
{
    char err[512];
    tc_store *s;
    if (tc_store_open(path, TC_STORE_WRITE, &s, err, sizeof err) != TC_OK) {
        fprintf(stderr, "bench_store: %s\n", err);
        return -1;
    }
    const bench_fill f = {
        .requests = chunks / PER_REQUEST, .per_request = PER_REQUEST, .batch = BATCH};
    tc_run_info run;
    int rc = bench_fill_run(s, &f, "bench_store", &run, save_ns);
    tc_store_close(s);
    return rc;
}

static int fill(const char *path, long long chunks)
{
    return fill_timed(path, chunks, NULL);
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
            ok = tc_figures_list_load(s, &l, err, sizeof err) == TC_OK;
            if (ok)
                tc_figures_list_free(&l);
        } else if (ok && w == M_SAVE) {
            tc_run_info run;
            ok = tc_store_find_run(s, "1", &run, err, sizeof err) == TC_OK &&
                 tc_figures_save(s, &run, err, sizeof err) == TC_OK;
        } else if (ok) {
            tc_runset set;
            tc_figures *f;
            ok = tc_runset_find(s, "1", &set, err, sizeof err) == TC_OK &&
                 tc_runset_load(s, &set, TC_FIGURES_SUMMARY, &f, err, sizeof err) == TC_OK;
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

/* This process's CPU seconds so far. */
static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

/* Chunk times per second of fill() into target, the median of SAVE_RUNS
 * runs after one not timed (a new file, a new database: both engines
 * start cold, and a long-running server is warm); *cpu: this process's
 * CPU seconds for the median run (SQLite does all the work in the
 * process, PostgreSQL's server most of it elsewhere). */
#define SAVE_RUNS 5

static double save_rate(const char *target, long long chunks, double *cpu)
{
    double rate[SAVE_RUNS], cpus[SAVE_RUNS];
    if (fill(target, chunks) < 0)
        return -1;
    for (int i = 0; i < SAVE_RUNS; i++) {
        int64_t ns = 0;
        double c0 = cpu_s();
        if (fill_timed(target, chunks, &ns) < 0 || ns <= 0)
            return -1;
        cpus[i] = cpu_s() - c0;
        rate[i] = (double)(chunks / PER_REQUEST * PER_REQUEST) / ((double)ns / 1e9);
    }
    double sorted[SAVE_RUNS];
    memcpy(sorted, rate, sizeof sorted);
    tc_sort_double(sorted, SAVE_RUNS);
    for (int i = 0; i < SAVE_RUNS; i++)
        if (rate[i] == sorted[SAVE_RUNS / 2])
            *cpu = cpus[i];
    return sorted[SAVE_RUNS / 2];
}

/* The save rates of a 1M-chunk run, SQLite and PostgreSQL, and their
 * ratio; PostgreSQL is skipped, said so, without a server URL. */
static void save_rates(const char *dir)
{
    const long long chunks = 1000000;
    char path[160];
    snprintf(path, sizeof path, "%s/rate.db", dir);
    double sq_cpu = 0, pg_cpu = 0;
    double sq = save_rate(path, chunks, &sq_cpu);
    unlink(path);
    printf("  save 1M chunks        SQLite     %.2f M chunk times/s, client CPU %.3f s  (median of "
           "%d after a warm-up)\n",
           sq / 1e6, sq_cpu, SAVE_RUNS);
    const char *url = getenv("TC_TEST_PG_URL");
    if (!url || !url[0]) {
        printf("  save 1M chunks        PostgreSQL skipped: no server (set TC_TEST_PG_URL, or "
               "run `make bench`, which starts one)\n");
        return;
    }
    char name[64], sql[128], target[2048];
    snprintf(name, sizeof name, "tc_bench_%d", (int)getpid());
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
    const char *auth = strstr(url, "://");
    if (!auth || pg_admin(url, sql) < 0) {
        printf("  save 1M chunks        PostgreSQL skipped: cannot create a database there\n");
        return;
    }
    const char *p = auth + 3 + strcspn(auth + 3, "/?");
    snprintf(target, sizeof target, "%.*s/%s%s", (int)(p - url), url, name, p + strcspn(p, "?"));
    double pg = save_rate(target, chunks, &pg_cpu);
    snprintf(sql, sizeof sql, "DROP DATABASE %s WITH (FORCE)", name);
    (void)pg_admin(url, sql);
    if (pg < 0 || sq <= 0) {
        printf("  save 1M chunks        PostgreSQL failed\n");
        return;
    }
    printf("  save 1M chunks        PostgreSQL %.2f M chunk times/s, client CPU %.3f s  "
           "(PostgreSQL/SQLite %.2f, target >= 1: %s)\n",
           pg / 1e6, pg_cpu, pg / sq, pg >= sq ? "PASS" : "FAIL");
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
    unlink(path);
    char wal[160];
    snprintf(wal, sizeof wal, "%s-wal", path);
    unlink(wal);
    snprintf(wal, sizeof wal, "%s-shm", path);
    unlink(wal);
    rmdir(dir);
    return 0;
}
