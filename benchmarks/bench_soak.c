/* bench_soak: a 24-hour soak at 16 streams x 50 tokens/s (about 69M
 * chunks) must keep truecost under 100 MB RSS and its database under 1 GB
 * with the default chunk storage (--chunks sample). Time-compressed: the
 * same 16 streams against `truecost sim` at 2000 tokens/s each (40 times
 * faster), two soaks of different lengths in child processes (their peak
 * RSS and CPU their own, from wait4), each one's chunks counted from its
 * windows; RSS must not grow with the length, the database and CPU grow
 * per chunk, and are extrapolated to 69M chunks. The method is printed.
 *   bench_soak TRUECOST_BIN [SHORT_S LONG_S] */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#define STREAMS 16
#define SIM_TPS 2000
#define TARGET_CHUNKS (24.0 * 3600 * STREAMS * 50) /* 69.12M */

typedef struct outcome {
    double seconds, chunks, cpu_s, rss_mb, db_mb;
    long long requests;
} outcome;

static pid_t spawn(char *const argv[], const char *out_path)
{
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    return pid;
}

static int wait_port(const char *path)
{
    for (int i = 0; i < 500; i++) {
        FILE *f = fopen(path, "r");
        int port = 0;
        if (f) {
            if (fscanf(f, "%d", &port) != 1)
                port = 0;
            fclose(f);
        }
        if (port > 0)
            return port;
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

static double file_mb(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (double)st.st_size / 1e6 : 0;
}

/* One soak of `seconds` into a fresh database; its figures into o. */
static int soak(const char *bin, const char *dir, int port, int seconds, outcome *o)
{
    char url[64], dur[32], db[512], wal[520], out[512];
    snprintf(url, sizeof url, "http://127.0.0.1:%d", port);
    snprintf(dur, sizeof dur, "%ds", seconds);
    snprintf(db, sizeof db, "%s/soak-%d.db", dir, seconds);
    snprintf(wal, sizeof wal, "%s-wal", db);
    snprintf(out, sizeof out, "%s/soak-%d.json", dir, seconds);
    char *argv[] = {(char *)bin, "soak",
                    url,         "--duration",
                    dur,         "--window",
                    "5s",        "-c",
                    "16",        "--max-tokens",
                    "128",       "--telemetry",
                    "none",      "--no-progress",
                    "--json",    "--db",
                    db,          NULL};
    pid_t pid = spawn(argv, out);
    int status;
    struct rusage ru;
    if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) ||
        WEXITSTATUS(status) > 3) {
        fprintf(stderr, "bench_soak: the soak failed; see %s\n", out);
        return -1;
    }
    json_t *doc = json_load_file(out, JSON_DISABLE_EOF_CHECK, NULL);
    json_t *windows = json_object_get(doc, "windows"), *w;
    size_t i;
    memset(o, 0, sizeof *o);
    json_array_foreach(windows, i, w)
    {
        o->chunks += json_number_value(json_object_get(w, "output_tokens_per_s")) *
                     json_number_value(json_object_get(w, "span_s"));
        o->seconds += json_number_value(json_object_get(w, "span_s"));
    }
    o->requests = json_integer_value(json_object_get(json_object_get(doc, "verdict"), "requests"));
    json_decref(doc);
    o->cpu_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
               ru.ru_stime.tv_usec / 1e6;
    o->rss_mb = (double)ru.ru_maxrss / 1024.0;
    o->db_mb = file_mb(db) + file_mb(wal);
    return o->chunks > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_soak TRUECOST_BIN [SHORT_S LONG_S]\n");
        return 2;
    }
    int short_s = argc > 3 ? atoi(argv[2]) : 15, long_s = argc > 3 ? atoi(argv[3]) : 60;
    char dir[] = "/tmp/bench-soak-XXXXXX", port_file[600], sim_log[600];
    if (!mkdtemp(dir))
        return 2;
    snprintf(port_file, sizeof port_file, "%s/port", dir);
    snprintf(sim_log, sizeof sim_log, "%s/sim.log", dir);
    char tps[16];
    snprintf(tps, sizeof tps, "%d", SIM_TPS);
    char *sim_argv[] = {argv[1],        "sim", "--listen",  "127.0.0.1:0", "--port-file", port_file,
                        "--decode-tps", tps,   "--ttft-ms", "1",           NULL};
    pid_t sim = spawn(sim_argv, sim_log);
    int port = wait_port(port_file), rc = 1;
    outcome a, b;
    if (port > 0 && soak(argv[1], dir, port, short_s, &a) == 0 &&
        soak(argv[1], dir, port, long_s, &b) == 0) {
        printf("bench_soak: %d streams against truecost sim at %d tokens/s each (SIMULATED), "
               "--chunks sample, 5 s windows, 128 tokens a request\n",
               STREAMS, SIM_TPS);
        const outcome *o[2] = {&a, &b};
        for (int k = 0; k < 2; k++)
            printf("  %4.0f s soak: %9.0f chunks, %6lld requests: peak RSS %.1f MB, database "
                   "%.2f MB (%.2f bytes/chunk), CPU %.2f s (%.2f us/chunk)\n",
                   o[k]->seconds, o[k]->chunks, o[k]->requests, o[k]->rss_mb, o[k]->db_mb,
                   o[k]->db_mb * 1e6 / o[k]->chunks, o[k]->cpu_s, o[k]->cpu_s * 1e6 / o[k]->chunks);
        /* The growth between the two runs, per chunk, carried to 69M. */
        double dchunks = b.chunks - a.chunks;
        double db_per = dchunks > 0 ? (b.db_mb - a.db_mb) / dchunks : b.db_mb / b.chunks;
        double rss_per = dchunks > 0 ? (b.rss_mb - a.rss_mb) / dchunks : 0;
        double cpu_per = b.cpu_s / b.chunks;
        double db24 = b.db_mb + db_per * (TARGET_CHUNKS - b.chunks);
        double rss24 = b.rss_mb + (rss_per > 0 ? rss_per : 0) * (TARGET_CHUNKS - b.chunks);
        printf("  24 h at %d x 50 tokens/s = %.1fM chunks, extrapolated linearly from the "
               "growth between the two soaks:\n",
               STREAMS, TARGET_CHUNKS / 1e6);
        printf("    database %.0f MB (target < 1000 MB): %s\n", db24, db24 < 1000 ? "ok" : "OVER");
        printf("    peak RSS %.1f MB (%+.3f MB per million chunks; target < 100 MB): %s\n", rss24,
               rss_per * 1e6, rss24 < 100 ? "ok" : "OVER");
        printf("    CPU %.2f us per chunk: %.0f s over the day (%.2f%% of one core)\n",
               cpu_per * 1e6, cpu_per * TARGET_CHUNKS, 100 * cpu_per * TARGET_CHUNKS / 86400);
        rc = 0;
    }
    if (sim > 0) {
        kill(sim, SIGINT);
        waitpid(sim, NULL, 0);
    }
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd) != 0)
        rc = rc ? rc : 1;
    return rc;
}
