/* truecost run: find the server, run the workload, store every request as
 * it finishes, print the summary. */
#include <getopt.h>
#include <jansson.h>
#include <signal.h>
#include <sys/resource.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/run_metrics.h"
#include "bench/bench_probe.h"
#include "bench/bench_runner.h"
#include "cli.h"
#include "cli_results.h"
#include "cli_run.h"
#include "cli_runset.h"
#include "core/tc_rng.h"
#include "core/tc_time.h"
#include "report/report_json.h"
#include "report/report_table.h"
#include "store/store.h"
#include "envinfo/env_fingerprint.h"
#include "telemetry/telem_sampler.h"

/* ---- signals and progress ------------------------------------------------ */

static volatile sig_atomic_t stop_requested; /* the signal number, 0 = none */

static void on_interrupt(int sig)
{
    if (stop_requested)
        _exit(128 + sig); /* a second one: what was saved stays saved */
    stop_requested = sig;
}

static void install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

#define SAMPLE_BATCH 1024
#define FINISH_PATIENCE_NS (30 * TC_NS_PER_S)

typedef struct run_ctx {
    tc_store *store;
    int64_t run_id;
    int progress;
    tc_telem_set *telem;
    tc_telem_sampler *sampler;
    tc_run_sample samples[SAMPLE_BATCH];
    int sample_error_said;
    int marked; /* the run's final status is already stored */
    char err[512];
} run_ctx;

/* First Ctrl-C seen by the loop: mark the run at once, so that a second
 * Ctrl-C (which exits without cleanup) leaves it "interrupted". */
static void mark_interrupted(void *ctx)
{
    run_ctx *c = ctx;
    c->marked =
        tc_store_run_finish(c->store, c->run_id, "interrupted", c->err, sizeof c->err) == TC_OK;
}

/* Moves the sampler's waiting samples into the store (called from the load
 * generator's loop between wake-ups; the sampler never waits for it). */
static void drain_samples(run_ctx *c)
{
    size_t n;
    char err[512];
    while (c->sampler && (n = tc_telem_sampler_drain(c->sampler, c->samples, SAMPLE_BATCH)) > 0)
        if (tc_store_add_samples(c->store, c->run_id, c->samples, n, err, sizeof err) != TC_OK &&
            !c->sample_error_said++)
            tc_cli_error("run: telemetry samples not saved: %s", err);
}

static int store_batch(void *ctx, const tc_req_record *recs, size_t n)
{
    run_ctx *c = ctx;
    drain_samples(c);
    return tc_store_add_requests(c->store, c->run_id, recs, n, c->err, sizeof c->err) == TC_OK ? 0
                                                                                               : -1;
}

static void show_progress(void *ctx, const tc_runner_progress *p)
{
    run_ctx *c = ctx;
    drain_samples(c);
    if (!c->progress)
        return;
    if (p->warming_up) {
        fprintf(stderr, "\r\033[Kwarming up...");
    } else if (p->planned > 0) {
        fprintf(stderr,
                "\r\033[K%lld/%lld requests  %.1f output tok/s  %lld errors  %lld in flight",
                (long long)p->done, (long long)p->planned, p->output_tokens_per_s,
                (long long)p->failed, (long long)p->in_flight);
    } else {
        fprintf(stderr, "\r\033[K%.0f/%.0f s  %lld requests  %.1f output tok/s  %lld errors",
                p->elapsed_s, p->duration_s, (long long)p->done, p->output_tokens_per_s,
                (long long)p->failed);
    }
    fflush(stderr);
}

/* ---- setting up ---------------------------------------------------------- */

/* The endpoint, its server and the model; prints the error and returns the
 * exit status on failure, else 0. */
static int find_endpoint(const run_args *a, tc_endpoint *ep)
{
    char err[1024];
    if (a->url) {
        if (tc_endpoint_parse(a->url, ep, err, sizeof err) != TC_OK) {
            tc_cli_error("run: %s", err);
            return TC_EXIT_USAGE;
        }
    } else if (tc_probe_find_local(ep, err, sizeof err) != TC_OK) {
        tc_cli_error("run: %s", err);
        return TC_EXIT_RUNTIME;
    }
    return 0;
}

static int find_server(const run_args *a, const char *key, const tc_endpoint *ep, tc_probe *probe,
                       tc_api *api, char *model, size_t model_len)
{
    char err[1024];
    tc_err rc = tc_probe_server(ep, key, 5.0, probe, err, sizeof err);
    if (rc != TC_OK) {
        tc_cli_error("run: %s", err);
        return TC_EXIT_RUNTIME;
    }
    if (!a->url)
        fprintf(stderr, "truecost: no URL given; found %s at %s\n",
                tc_server_kind_name(probe->kind), ep->stored);
    if (!a->api || strcmp(a->api, "auto") == 0) {
        *api = tc_server_default_api(probe->kind);
    } else if (tc_api_parse(a->api, api) < 0) {
        tc_cli_error("run: --api '%s': expected auto, ollama, ollama-chat, openai, "
                     "openai-chat or llamacpp",
                     a->api);
        return TC_EXIT_USAGE;
    } else if (!tc_probe_speaks(probe, *api)) {
        tc_cli_error("run: --api %s: the server at %s (%s) does not serve that API; try --api "
                     "%s or --api auto",
                     a->api, ep->stored, tc_server_kind_name(probe->kind),
                     tc_api_name(tc_server_default_api(probe->kind)));
        return TC_EXIT_RUNTIME;
    }
    if (tc_probe_pick_model(probe, a->model, model, model_len, err, sizeof err) != TC_OK) {
        tc_cli_error("run: %s", err);
        return TC_EXIT_USAGE;
    }
    return 0;
}

/* The API key: from --api-key-env; else OPENAI_API_KEY, but only to an
 * https host that is not local (a key must not cross the network in clear
 * text unless the user asked for it by name), and saying so. */
static int api_key(const run_args *a, const tc_endpoint *ep, const char **key)
{
    *key = NULL;
    if (a->key_env) {
        *key = getenv(a->key_env);
        if (!*key || !**key) {
            tc_cli_error("run: --api-key-env %s: the variable is not set or empty", a->key_env);
            return -1;
        }
        return 0;
    }
    const char *k = getenv("OPENAI_API_KEY");
    if (ep->local || !k || !*k)
        return 0;
    if (strncmp(ep->base, "https://", 8) != 0) {
        fprintf(stderr,
                "truecost: not sending $OPENAI_API_KEY to %s over plain http; pass "
                "--api-key-env OPENAI_API_KEY to send it anyway\n",
                ep->stored);
        return 0;
    }
    fprintf(stderr, "truecost: sending $OPENAI_API_KEY as a Bearer token to %s\n", ep->stored);
    *key = k;
    return 0;
}

/* Every concurrent request holds a socket: make sure the process may open
 * enough, raising the soft limit when the hard one allows, rather than
 * failing later with errors that look like the server's fault. */
static int enough_files(long long concurrency)
{
    struct rlimit rl;
    rlim_t need = (rlim_t)concurrency + 64;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need)
        return 0;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
        tc_cli_error("run: -c %lld needs about %llu open files, but the limit is %llu; raise it "
                     "(ulimit -n) or lower -c",
                     concurrency, (unsigned long long)need, (unsigned long long)rl.rlim_max);
        return -1;
    }
    rl.rlim_cur = need;
    return setrlimit(RLIMIT_NOFILE, &rl) == 0 ? 0 : -1;
}

static int load_prompts(const run_args *a, tc_prompts *p)
{
    char err[512];
    tc_err rc = a->prompts_file ? tc_prompts_load(a->prompts_file, p, err, sizeof err)
                                : tc_prompts_single(a->prompt ? a->prompt : TC_DEFAULT_PROMPT, p);
    if (rc != TC_OK) {
        tc_cli_error("run: %s", rc == TC_ERR_NOMEM ? "out of memory" : err);
        return -1;
    }
    return 0;
}

/* ---- the run ------------------------------------------------------------- */

/* Which prompts a run sent, so that compare can tell two workloads apart:
 * their count and an FNV-1a hash of every prompt and its token limit. */
static void prompt_set_id(const tc_prompts *p, char *out, size_t len)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < p->n; i++) {
        const tc_prompt *q = &p->items[i];
        const char *text = q->text ? q->text : q->messages_json ? q->messages_json : "";
        h = tc_hash_bytes(text, strlen(text) + 1, h); /* the NUL separates prompts */
        h = tc_hash_bytes(&q->max_tokens, sizeof q->max_tokens, h);
    }
    snprintf(out, len, "%zu prompt%s, fnv1a %016llx", p->n, p->n == 1 ? "" : "s",
             (unsigned long long)h);
}

static void fill_info(const run_args *a, const tc_endpoint *ep, const tc_probe *probe, tc_api api,
                      const char *model, tc_run_info *info)
{
    memset(info, 0, sizeof *info);
    snprintf(info->label, sizeof info->label, "%s", a->label ? a->label : "");
    snprintf(info->status, sizeof info->status, "running");
    info->created_wall_ns = tc_wall_ns();
    snprintf(info->endpoint, sizeof info->endpoint, "%s", ep->stored);
    info->api = api;
    snprintf(info->model, sizeof info->model, "%s", model);
    info->simulated = probe->simulated;
    snprintf(info->server_version, sizeof info->server_version, "%s", probe->server_version);
    info->concurrency = (int)a->concurrency;
    info->warmup = (int)a->warmup;
    info->requests = a->duration_s > 0 ? 0 : a->requests;
    info->duration_s = a->duration_s;
    info->max_tokens = a->max_tokens;
}

/* The environment to record with the run (truecost env), as JSON text;
 * NULL when it could not be read (said: the run goes on). Collected before
 * the run is stored: its network calls and tools take seconds, and a
 * Ctrl-C then must not leave a run behind. */
static char *collect_fingerprint(const run_args *a, const tc_endpoint *ep, const char *model,
                                 const char *key)
{
    tc_env_config cfg = {.url = ep->base,
                         .model = model,
                         .api_key = key,
                         .telemetry = a->telemetry,
                         .telem = a->telem};
    json_t *fp = NULL;
    char err[512];
    tc_err rc = tc_env_collect(&cfg, &fp, err, sizeof err);
    char *text = rc == TC_OK ? json_dumps(fp, JSON_COMPACT) : NULL;
    if (!text)
        tc_cli_error("run: the environment was not recorded: %s",
                     rc != TC_OK ? err : "out of memory");
    json_decref(fp);
    return text;
}

static void store_fingerprint(run_ctx *c, const char *text)
{
    char err[512];
    if (text && tc_store_set_fingerprint(c->store, c->run_id, text, err, sizeof err) != TC_OK)
        tc_cli_error("run: the environment was not recorded: %s", err);
}

/* Ends the run with `status`. A database that stays locked past its busy
 * timeout is tried again for a while: a run must not stay "running". */
static void finish_run(tc_store *store, int64_t id, const char *status)
{
    char err[512];
    int64_t give_up = tc_mono_ns() + FINISH_PATIENCE_NS;
    tc_err rc;
    while ((rc = tc_store_run_finish(store, id, status, err, sizeof err)) != TC_OK &&
           rc == TC_ERR_BUSY && tc_mono_ns() < give_up) {
        struct timespec ts = {0, 500 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (rc != TC_OK)
        tc_cli_error("run: %s", err);
}

/* Opens the telemetry sources, stores the devices and starts sampling;
 * then samples the idle baseline. No sensor is no error: said once. */
static int start_telemetry(const run_args *a, run_ctx *c)
{
    char notes[2048], err[512];
    if (tc_telem_set_open(a->telemetry, &a->telem, &c->telem, notes, sizeof notes, err,
                          sizeof err) != TC_OK) {
        if (strncmp(err, "--backend", 9) == 0) { /* the set names the monitor's option */
            tc_cli_error("run: --telemetry '%s': expected auto, none or a source name (see "
                         "truecost monitor --help)",
                         a->telemetry);
            return TC_EXIT_USAGE;
        }
        tc_cli_error("run: --telemetry %s", err);
        return TC_EXIT_RUNTIME;
    }
    int n = tc_telem_set_count(c->telem);
    if (n == 0) {
        if (strcmp(a->telemetry, "none") != 0)
            fprintf(stderr,
                    "truecost: telemetry: no GPU or CPU energy sensor found; the run "
                    "goes on without energy figures:\n%s",
                    notes);
        return 0;
    }
    tc_run_device *devs = calloc((size_t)n, sizeof *devs);
    if (!devs) {
        tc_cli_error("run: out of memory");
        return TC_EXIT_RUNTIME;
    }
    for (int i = 0; i < n; i++) {
        devs[i].info = *tc_telem_set_device(c->telem, i);
        snprintf(devs[i].backend, sizeof devs[i].backend, "%s", tc_telem_set_backend(c->telem, i));
    }
    err[0] = '\0';
    tc_err rc = tc_store_add_devices(c->store, c->run_id, devs, n, err, sizeof err);
    free(devs);
    if (rc != TC_OK || tc_telem_sampler_start(c->telem, (int)a->sample_ms, &c->sampler) != TC_OK) {
        tc_cli_error("run: telemetry: %s", err[0] ? err : "cannot start the sampler");
        return TC_EXIT_RUNTIME;
    }
    for (int64_t end = tc_mono_ns() + (int64_t)(a->idle_s * 1e9);
         tc_mono_ns() < end && !stop_requested;) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        nanosleep(&ts, NULL);
        drain_samples(c);
    }
    return 0;
}

/* Lets the sampler take one more round after the last request ended, so
 * that the samples reach past the measured window and its energy is read,
 * not extrapolated from the part before the last sample. */
static void closing_sample(const run_args *a)
{
    int64_t wait_ms = a->sample_ms + 10 < 2000 ? a->sample_ms + 10 : 2000;
    struct timespec ts = {(time_t)(wait_ms / 1000), (long)(wait_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static int execute(const run_args *a, run_ctx *ctx, tc_runner_config *rc_cfg, tc_run_info *info)
{
    tc_runner_result res;
    char err[512];
    int tcode = start_telemetry(a, ctx);
    if (tcode) { /* the run was begun: end it, never leave it "running" */
        finish_run(ctx->store, info->id, "failed");
        return tcode;
    }
    tc_err rc = tc_runner_run(rc_cfg, &res, err, sizeof err);
    if (ctx->sampler && !res.interrupted)
        closing_sample(a);
    tc_telem_sampler_stop(ctx->sampler);
    drain_samples(ctx);
    if (ctx->sampler) {
        tc_sampler_stats ss;
        tc_telem_sampler_stats(ctx->sampler, &ss);
        if (ss.dropped) /* said, never silent: the energy figures then miss them */
            fprintf(stderr,
                    "truecost: telemetry: %llu samples were dropped (the results "
                    "database did not keep up); use a longer --sample-ms\n",
                    (unsigned long long)ss.dropped);
    }
    if (ctx->progress)
        fputs("\r\033[K", stderr);
    const char *status = res.interrupted ? "interrupted" : rc != TC_OK ? "failed" : "complete";
    if (rc != TC_OK)
        tc_cli_error("run: %s%s%s", err, ctx->err[0] ? ": " : "", ctx->err);
    if (res.abandoned)
        fprintf(stderr,
                "truecost: interrupted: %lld request(s) still in flight were cut off "
                "(stored as 'interrupted', left out of the figures)\n",
                (long long)res.abandoned);
    if (!ctx->marked)
        finish_run(ctx->store, info->id, status);
    snprintf(info->status, sizeof info->status, "%s", status);
    int exit_code = tc_cli_print_run(ctx->store, info, a->repeat > 1 ? TC_PRINT_NONE : a->json,
                                     a->max_error_rate);
    if (res.interrupted)
        return 128 + (stop_requested ? (int)stop_requested : SIGINT);
    if (rc != TC_OK)
        return TC_EXIT_RUNTIME;
    return exit_code;
}

/* The group of a --repeat run: --label, or a new name from the time; an
 * existing group is not extended (its runs could be of another workload). */
static int group_name(const run_args *a, tc_store *st, char *out, size_t len)
{
    if (a->label) {
        snprintf(out, len, "%s", a->label);
    } else {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(out, len, "repeat-%Y%m%d-%H%M%S", &tm);
    }
    tc_run_info *runs = NULL;
    size_t n = 0;
    char err[512];
    tc_err rc = tc_store_find_group(st, out, &runs, &n, err, sizeof err);
    free(runs);
    if (rc != TC_OK) {
        tc_cli_error("run: %s", err);
        return TC_EXIT_RUNTIME;
    }
    if (n > 0) {
        tc_cli_error("run: group '%s' already has %zu run(s); choose another --label", out, n);
        return TC_EXIT_USAGE;
    }
    return 0;
}

/* A plain run may not take a group's name: every command would take the
 * name for the group and never see this run. */
static int label_free_of_group(const char *label, tc_store *st)
{
    tc_run_info *runs = NULL;
    size_t n = 0;
    char err[512];
    tc_err rc = tc_store_find_group(st, label, &runs, &n, err, sizeof err);
    free(runs);
    if (rc != TC_OK) {
        tc_cli_error("run: %s", err);
        return TC_EXIT_RUNTIME;
    }
    if (n > 0) {
        tc_cli_error("run: --label '%s' names a group of %zu repeated runs; commands would take "
                     "the name for the group: choose another label",
                     label, n);
        return TC_EXIT_USAGE;
    }
    return 0;
}

/* The workload, found and loaded once for every repetition. */
typedef struct run_plan {
    tc_endpoint ep;
    tc_probe probe;
    tc_api api;
    char model[256];
    const char *key;
    tc_prompts prompts;
    char group[128];
    char prompt_set[64];
} run_plan;

/* One run of the workload: stored, measured, summarised (nothing printed
 * with --repeat: the group is, at the end). */
static int measure_once(const run_args *a, run_plan *p, tc_store *store, long long rep)
{
    run_ctx ctx = {.store = store, .progress = !a->no_progress && isatty(STDERR_FILENO)};
    tc_run_info info;
    char err[512];
    fill_info(a, &p->ep, &p->probe, p->api, p->model, &info);
    snprintf(info.group, sizeof info.group, "%s", p->group);
    snprintf(info.prompt_set, sizeof info.prompt_set, "%s", p->prompt_set);
    if (p->group[0] && !a->label)
        snprintf(info.label, sizeof info.label, "%s", p->group);
    /* From here a Ctrl-C stops the run and keeps it; before, it just exits. */
    install_signals();
    char *fingerprint = collect_fingerprint(a, &p->ep, p->model, p->key);
    if (stop_requested) {
        free(fingerprint);
        return 128 + (int)stop_requested;
    }
    if (tc_store_run_begin(store, &info, err, sizeof err) != TC_OK) {
        free(fingerprint);
        tc_cli_error("run: %s", err);
        return TC_EXIT_RUNTIME;
    }
    ctx.run_id = info.id;
    store_fingerprint(&ctx, fingerprint);
    free(fingerprint);
    if (!a->json && a->repeat > 1)
        fprintf(stderr, "truecost: run %lld (%lld of %lld in group '%s'): %s %s at %s%s\n",
                (long long)info.id, rep + 1, a->repeat, p->group, tc_api_name(p->api), p->model,
                p->ep.stored, p->probe.simulated ? " (SIMULATED)" : "");
    else if (!a->json)
        fprintf(stderr, "truecost: run %lld: %s %s at %s%s\n", (long long)info.id,
                tc_api_name(p->api), p->model, p->ep.stored,
                p->probe.simulated ? " (SIMULATED)" : "");
    tc_runner_config cfg = {
        .endpoint = p->ep,
        .api = p->api,
        .model = p->model,
        .prompts = &p->prompts,
        .max_tokens = a->max_tokens,
        .warmup = (int)a->warmup,
        .requests = a->requests,
        .duration_s = a->duration_s,
        .concurrency = (int)a->concurrency,
        .timeout_s = a->timeout_s,
        .api_key = p->key,
        .stop = &stop_requested,
        .on_batch = store_batch,
        .on_progress = show_progress,
        .on_stop = mark_interrupted,
        .ctx = &ctx,
    };
    int code = execute(a, &ctx, &cfg, &info);
    tc_telem_sampler_free(ctx.sampler);
    tc_telem_set_close(ctx.telem);
    return code;
}

/* Every repetition; the worst exit status wins, an interruption at once. */
static int measure_all(const run_args *a, run_plan *p, tc_store *store)
{
    int code = 0;
    for (long long rep = 0; rep < a->repeat; rep++) {
        int c = measure_once(a, p, store, rep);
        if (c >= 128 || c == TC_EXIT_RUNTIME)
            return c;
        if (c > code)
            code = c;
    }
    return code;
}

static int print_group(const run_args *a, const run_plan *p, tc_store *store)
{
    tc_runset set = {0};
    int code = tc_cli_runset_find(store, p->group, &set);
    if (!code)
        code = tc_cli_print_group(store, &set, a->json);
    tc_runset_free(&set);
    return code;
}

int tc_cmd_run(int argc, char **argv)
{
    run_args a;
    if (tc_run_parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("run");
    if (a.help) {
        tc_cmd_run_help(stdout);
        return TC_EXIT_OK;
    }
    run_plan p = {0};
    tc_store *store = NULL;
    int code = enough_files(a.concurrency) < 0 ? TC_EXIT_USAGE : 0;
    if (!code)
        code = find_endpoint(&a, &p.ep);
    if (!code && api_key(&a, &p.ep, &p.key) < 0)
        code = TC_EXIT_USAGE;
    if (!code && load_prompts(&a, &p.prompts) < 0)
        code = TC_EXIT_USAGE;
    if (!code)
        code = find_server(&a, p.key, &p.ep, &p.probe, &p.api, p.model, sizeof p.model);
    if (!code)
        code = tc_cli_open_store(a.db, TC_STORE_WRITE, &store);
    if (!code && a.repeat > 1)
        code = group_name(&a, store, p.group, sizeof p.group);
    else if (!code && a.label)
        code = label_free_of_group(a.label, store);
    if (!code) {
        prompt_set_id(&p.prompts, p.prompt_set, sizeof p.prompt_set);
        code = measure_all(&a, &p, store);
        if (a.repeat > 1) {
            int g = print_group(&a, &p, store);
            if (!code)
                code = g;
        }
    }
    tc_store_close(store);
    tc_prompts_free(&p.prompts);
    return code;
}
