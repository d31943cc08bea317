/* bench_open_loop: how exactly the open loop keeps its schedule, and what
 * it costs.
 *
 * Runs `truecost sim` in-process on one thread and the real load generator
 * (tc_runner_run) on the main thread against it, open loop: Poisson
 * arrivals at 500 requests/s by default, each a 64-token stream. Prints the
 * send lag (sent - scheduled: the figure `run` warns about above 1 ms at
 * p99) and the client's CPU per streamed chunk, beside the machine's
 * steadiness probed on the client's CPU before and after the load: a lag
 * p99 over the target on an UNSTEADY machine is the machine's. */
#define _GNU_SOURCE
#include <curl/curl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "analysis/stats.h"
#include "bench_machine.h"
#include "bench/bench_runner.h"
#include "core/tc_time.h"
#include "sim/sim_server.h"

#define EXTRA_FDS 64

typedef struct opts {
    int pin;
    double rate, seconds, decode_tps;
    int64_t tokens;
    tc_arrival arrival;
} opts;

/* What the records said. */
typedef struct seen {
    tc_dvec lag_ms;
    int64_t chunks, failed, in_flight_max;
} seen;

static void *serve(void *arg)
{
    tc_sim_server_run(arg);
    return NULL;
}

static int keep(void *ctx, const tc_req_record *recs, size_t n)
{
    seen *s = ctx;
    for (size_t i = 0; i < n; i++) {
        const tc_req_record *r = &recs[i];
        if (r->warmup)
            continue;
        s->failed += r->error != TC_REQ_OK;
        s->chunks += (int64_t)r->n_chunks;
        if (tc_dvec_push(&s->lag_ms, (double)(r->send_ns - r->sched_ns) / 1e6) != TC_OK)
            return -1;
    }
    return 0;
}

static void progress(void *ctx, const tc_runner_progress *p)
{
    seen *s = ctx;
    if (p->in_flight > s->in_flight_max)
        s->in_flight_max = p->in_flight;
}

static int parse_opts(int argc, char **argv, opts *o)
{
    *o = (opts){.pin = 1,
                .rate = 500,
                .seconds = 4,
                .decode_tps = 200,
                .tokens = 64,
                .arrival = TC_ARRIVAL_POISSON};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--no-pin") == 0) {
            o->pin = 0;
            continue;
        }
        if (!v)
            return -1;
        if (strcmp(a, "--rate") == 0)
            o->rate = atof(v);
        else if (strcmp(a, "--seconds") == 0)
            o->seconds = atof(v);
        else if (strcmp(a, "--decode-tps") == 0)
            o->decode_tps = atof(v);
        else if (strcmp(a, "--tokens") == 0)
            o->tokens = atoll(v);
        else if (strcmp(a, "--arrival") == 0) {
            if (tc_arrival_parse(v, &o->arrival) < 0 || o->arrival == TC_ARRIVAL_CLOSED)
                return -1;
        } else
            return -1;
        i++;
    }
    return o->rate > 0 && o->seconds > 0 && o->decode_tps > 0 && o->tokens >= 1 ? 0 : -1;
}

/* Server and client share this process: every stream costs two fds. The
 * table is grown now, while there is one thread (growing it later stalls
 * the server, as bench_sim explains). */
static void room_for(int64_t streams)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    int high = (int)(streams * 2 + EXTRA_FDS);
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && (rlim_t)high >= rl.rlim_cur)
        high = (int)rl.rlim_cur - 1;
    int fd = dup2(STDERR_FILENO, high);
    if (fd >= 0)
        close(fd);
}

static int first_cpu(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) < 0)
        return -1;
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set))
            return c;
    return -1;
}

/* One load against a fresh simulator: the open loop, or (closed_c > 0) a
 * closed loop of closed_c streams sending as many requests, for the CPU
 * per chunk at the same shape. 0, or 2 after saying why. */
static int run_load(const opts *o, int64_t streams, int closed_c, int64_t requests, int *server_cpu,
                    seen *s, int64_t *cpu, int64_t *wall)
{
    static cpu_set_t start_set; /* every load pins apart from the same start */
    static int have_start;
    if (!have_start)
        have_start = sched_getaffinity(0, sizeof start_set, &start_set) == 0;
    else
        sched_setaffinity(0, sizeof start_set, &start_set);
    tc_sim_config cfg;
    tc_sim_config_defaults(&cfg);
    cfg.handle_signals = 0;
    cfg.timing.decode_tps = o->decode_tps;
    cfg.timing.max_batch = 1000000; /* no batching slowdown: the client is measured */
    char err[512] = "";
    tc_sim_server *srv;
    if (tc_sim_server_new(&cfg, &srv, err, sizeof err) != TC_OK) {
        fprintf(stderr, "bench_open_loop: %s\n", err);
        return 2;
    }
    pthread_t th;
    pthread_create(&th, NULL, serve, srv);
    pthread_setname_np(th, "sim-server");
    *server_cpu = o->pin ? bench_machine_pin_apart(th) : -1;
    char url[64];
    snprintf(url, sizeof url, "http://127.0.0.1:%u", (unsigned)tc_sim_server_port(srv));
    tc_prompts prompts = {0};
    tc_runner_config c = {.api = TC_API_OPENAI,
                          .model = TC_SIM_DEFAULT_MODEL,
                          .prompts = &prompts,
                          .max_tokens = o->tokens,
                          .warmup = 1,
                          .duration_s = closed_c ? 0 : o->seconds,
                          .requests = requests,
                          .concurrency = closed_c ? closed_c : (int)streams,
                          .rate = closed_c ? 0 : o->rate,
                          .arrival = o->arrival,
                          .burstiness = 1,
                          .seed = 1,
                          .timeout_s = 60,
                          .on_batch = keep,
                          .on_progress = progress,
                          .ctx = s};
    tc_runner_result res;
    int64_t cpu0 = bench_thread_cpu_ns(), wall0 = tc_mono_ns();
    int rc = tc_prompts_single("hello from the open-loop benchmark", &prompts) == TC_OK &&
                     tc_endpoint_parse(url, &c.endpoint, err, sizeof err) == TC_OK &&
                     tc_runner_run(&c, &res, err, sizeof err) == TC_OK
                 ? 0
                 : 2;
    *cpu = bench_thread_cpu_ns() - cpu0;
    *wall = tc_mono_ns() - wall0;
    tc_sim_server_stop(srv);
    pthread_join(th, NULL);
    tc_sim_server_free(srv);
    tc_prompts_free(&prompts);
    if (rc)
        fprintf(stderr, "bench_open_loop: %s\n", err[0] ? err : "out of memory");
    return rc;
}

int main(int argc, char **argv)
{
    opts o;
    if (parse_opts(argc, argv, &o) < 0) {
        fprintf(stderr, "usage: bench_open_loop [--rate R] [--seconds S] [--tokens N] "
                        "[--decode-tps R] [--arrival poisson|constant|gamma] [--no-pin]\n");
        return 1;
    }
    /* In flight at once, about: the rate times a stream's length, with room. */
    double stream_s = (double)o.tokens / o.decode_tps;
    int64_t streams = (int64_t)(o.rate * (stream_s + 0.05) * 2) + 16;
    room_for(streams);
    curl_global_init(CURL_GLOBAL_DEFAULT);
    int server_cpu = -1;
    seen open = {0}, closed = {0};
    int64_t cpu, wall, ccpu, cwall;
    int rc = run_load(&o, streams, 0, 0, &server_cpu, &open, &cpu, &wall);
    int client_cpu = o.pin && server_cpu >= 0 ? first_cpu() : -1;
    bench_machine machine, after;
    bench_machine_probe(client_cpu, 2.0, &machine);
    /* The same streams as a closed loop of the open loop's mean in flight. */
    int closed_c = (int)(o.rate * stream_s + 0.5);
    if (!rc)
        rc = run_load(&o, streams, closed_c < 1 ? 1 : closed_c, (int64_t)open.lag_ms.len,
                      &server_cpu, &closed, &ccpu, &cwall);
    if (rc)
        return rc;
    bench_machine_probe(client_cpu, 2.0, &after);
    bench_machine_merge(&machine, &after);

    tc_summary lag;
    tc_summary_compute(open.lag_ms.data, open.lag_ms.len, &lag);
    double us = open.chunks ? (double)cpu / 1e3 / (double)open.chunks : 0;
    double cus = closed.chunks ? (double)ccpu / 1e3 / (double)closed.chunks : 0;
    printf("open-loop bench: %s arrivals at %g requests/s for %g s, %lld-token streams at %g "
           "tok/s (SIMULATED server, in-process)\n",
           tc_arrival_name(o.arrival), o.rate, o.seconds, (long long)o.tokens, o.decode_tps);
    bench_machine_print(&machine, "before and after, client", stdout);
    printf("  requests              %zu sent in %.2f s, %lld failed, up to %lld in flight, "
           "%lld chunks\n",
           lag.n, (double)wall / 1e9, (long long)open.failed, (long long)open.in_flight_max,
           (long long)open.chunks);
    printf("  send lag              p50 %.3f ms  p99 %.3f ms  max %.3f ms  (sent - scheduled; "
           "`run` warns above 1 ms at p99)\n",
           lag.p50, lag.p99, lag.max);
    printf("  client CPU            %.2f us per chunk open loop, %.1f%% of a core; closed loop "
           "of %d streams, the same requests: %.2f us per chunk\n",
           us, wall > 0 ? 100.0 * (double)cpu / (double)wall : 0, closed_c, cus);
    printf("  ratio                 open / closed CPU per chunk %.2f (target <= 1.1: the "
           "schedule adds nothing per chunk)\n",
           cus > 0 ? us / cus : 0);
    printf("  verdict               send lag p99 %s (target < 1 ms)%s\n",
           lag.n && lag.p99 < 1.0 ? "PASS" : "FAIL",
           machine.steady ? ""
                          : "; the machine was UNSTEADY (see above): the target is for a "
                            "dedicated core");
    tc_dvec_free(&open.lag_ms);
    tc_dvec_free(&closed.lag_ms);
    curl_global_cleanup();
    return 0;
}
