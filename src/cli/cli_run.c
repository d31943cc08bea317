/* truecost run: find the server, hand the workload to measure/ (which
 * stores every request as it finishes), print what happens and the
 * summary, map the outcome to the exit status. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "views/view_stored.h"
#include "bench/bench_probe.h"
#include "core/tc_text.h"
#include "core/tc_time.h"
#include "cli.h"
#include "cli_read.h"
#include "cli_run.h"
#include "cli_runset.h"
#include "measure/measure_run.h"
#include "measure/measure_setup.h"
#include "measure/measure_workload.h"
#include "store/store.h"

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
    if (!a->api || strcmp(a->api, "auto") == 0 || tc_api_parse(a->api, api) < 0) {
        *api = tc_server_default_api(probe->kind); /* a bad name was refused with the options */
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

/* The API key (measure/ decides which may be sent where), and saying so. */
static int api_key(const run_args *a, const tc_endpoint *ep, const char **key)
{
    tc_measure_key how;
    if (tc_measure_api_key(a->key_env, ep, key, &how) != TC_OK) {
        tc_cli_error("run: --api-key-env %s: the variable is not set or empty", a->key_env);
        return -1;
    }
    if (how == TC_MEASURE_KEY_WITHHELD)
        fprintf(stderr,
                "truecost: not sending $OPENAI_API_KEY to %s over plain http; pass "
                "--api-key-env OPENAI_API_KEY to send it anyway\n",
                ep->stored);
    else if (how == TC_MEASURE_KEY_DEFAULT)
        fprintf(stderr, "truecost: sending $OPENAI_API_KEY as a Bearer token to %s\n", ep->stored);
    return 0;
}

/* An open loop without --max-concurrency keeps as many requests in flight
 * as its arrivals need, up to this, or what the open-file limit allows. */
#define OPEN_LOOP_CEILING 10000

/* Room for a socket per request in flight; a usage error when the hard
 * limit does not allow it. An open loop without a cap sets its ceiling
 * (a->concurrency) to what the limit allows. */
static int enough_files(run_args *a)
{
    unsigned long long need, limit;
    long long concurrency = a->concurrency;
    if (a->rate > 0)
        a->concurrency = concurrency = a->max_concurrency ? a->max_concurrency : OPEN_LOOP_CEILING;
    tc_err rc = tc_measure_open_files(concurrency, &need, &limit);
    if (rc == TC_ERR_INVALID && a->rate > 0 && !a->max_concurrency && limit > 64 + 16) {
        a->concurrency = concurrency = (long long)limit - 64;
        rc = tc_measure_open_files(concurrency, &need, &limit);
    }
    if (rc == TC_ERR_INVALID && a->rate > 0)
        tc_cli_error("run: --max-concurrency %lld needs about %llu open files, but the limit is "
                     "%llu; raise it (ulimit -n) or lower --max-concurrency",
                     concurrency, need, limit);
    else if (rc == TC_ERR_INVALID)
        tc_cli_error("run: -c %lld needs about %llu open files, but the limit is %llu; raise it "
                     "(ulimit -n) or lower -c",
                     concurrency, need, limit);
    return rc == TC_OK ? 0 : -1;
}

static int load_prompts(const run_args *a, tc_prompts *p)
{
    char err[512];
    if (a->isl) /* synthetic: made once the server is known (prepare_workload) */
        return 0;
    tc_err rc = a->prompts_file ? tc_prompts_load(a->prompts_file, p, err, sizeof err)
                                : tc_prompts_single(a->prompt ? a->prompt : TC_DEFAULT_PROMPT, p);
    if (rc != TC_OK) {
        tc_cli_error("run: %s", rc == TC_ERR_NOMEM ? "out of memory" : err);
        return -1;
    }
    return 0;
}

/* The group of a --repeat run, new; a plain run's label, no group's. */
static int check_group(const run_args *a, tc_store *st, char *group, size_t len)
{
    size_t n;
    char err[512];
    if (tc_measure_group(st, a->label, (int)a->repeat, group, len, &n, err, sizeof err) != TC_OK) {
        tc_cli_error("run: %s", err);
        return TC_EXIT_RUNTIME;
    }
    if (n > 0 && group[0])
        tc_cli_error("run: group '%s' already has %zu run(s); choose another --label", group, n);
    else if (n > 0)
        tc_cli_error("run: --label '%s' names a group of %zu repeated runs; commands would take "
                     "the name for the group: choose another label",
                     a->label, n);
    return n > 0 ? TC_EXIT_USAGE : 0;
}

/* A shard's group: --label's, holding only shards of as many (N) and
 * fewer than N of them, so a shard joins its siblings, never a --repeat
 * group or a finished sharded run. */
static int check_shard_group(const run_args *a, run_plan *p)
{
    tc_run_info *runs = NULL;
    size_t n = 0;
    char err[512];
    snprintf(p->group, sizeof p->group, "%s", a->label);
    p->group_kind = "shard";
    if (tc_store_find_group(p->store, p->group, &runs, &n, err, sizeof err) != TC_OK) {
        tc_cli_error("run: %s", err);
        return TC_EXIT_RUNTIME;
    }
    int code = 0;
    for (size_t k = 0; k < n && !code; k++)
        if (strcmp(runs[k].group_kind, "shard") != 0) {
            tc_cli_error("run: --label '%s' names a group that is not sharded; choose another "
                         "--label for the shards",
                         a->label);
            code = TC_EXIT_USAGE;
        }
    if (!code && n >= (size_t)a->shard_n) {
        tc_cli_error("run: group '%s' already has %zu shard run(s) of %d: choose another --label "
                     "for a new sharded run",
                     a->label, n, a->shard_n);
        code = TC_EXIT_USAGE;
    }
    free(runs);
    return code;
}

/* ---- what measure/ says ---------------------------------------------------- */

/* Synthetic prompts: calibrated against the server, then made. Prints
 * the calibration and why EOS cannot be ignored, when it cannot. */
static int prepare_workload(run_plan *p)
{
    const run_args *a = p->a;
    if (!a->isl)
        return 0;
    tc_workload_ask ask = {.preset = a->workload,
                           .seed = (uint64_t)a->seed,
                           .isl = a->isl,
                           .osl = a->osl,
                           .isl_range = a->isl_range};
    tc_workload_server srv = {.endpoint = p->ep,
                              .api = p->api,
                              .model = p->model,
                              .api_key = p->key,
                              .timeout_s = a->timeout_s,
                              .probe = &p->probe};
    tc_calib_result cal;
    char err[1024];
    if (tc_measure_workload(&ask, &srv, &p->prompts, &p->shape, &cal, err, sizeof err) != TC_OK) {
        tc_cli_error("run: %s", err);
        return TC_EXIT_RUNTIME;
    }
    const tc_run_workload *w = &p->shape;
    if (!a->json)
        fprintf(stderr,
                "truecost: prompts of %lld-%lld tokens: %.3f tokens per word + %.1f per prompt "
                "(the server's %s for %lld and %lld words: %lld and %lld)\n",
                (long long)w->isl_min, (long long)w->isl, w->tokens_per_word, w->overhead_tokens,
                w->calibration, (long long)cal.words[0], (long long)cal.words[1],
                (long long)cal.tokens[0], (long long)cal.tokens[1]);
    if (w->eos_note[0])
        fprintf(stderr, "truecost: %s\n", w->eos_note);
    return 0;
}

static void on_started(void *ctx, const tc_run_info *run, int rep)
{
    const run_plan *p = ctx;
    const char *sim = p->probe.simulated ? " (SIMULATED)" : "";
    char safe[4 * sizeof p->model];
    const char *model = tc_text_term(p->model, safe, sizeof safe);
    if (!p->a->json && p->a->repeat > 1)
        fprintf(stderr, "truecost: run %lld (%d of %lld in group '%s'): %s %s at %s%s\n",
                (long long)run->id, rep + 1, p->a->repeat, p->group, tc_api_name(p->api), model,
                p->ep.stored, sim);
    else if (!p->a->json)
        fprintf(stderr, "truecost: run %lld: %s %s at %s%s\n", (long long)run->id,
                tc_api_name(p->api), model, p->ep.stored, sim);
}

static void on_progress(void *ctx, const tc_runner_progress *q)
{
    const run_plan *p = ctx;
    if (!p->progress)
        return;
    if (q->warming_up)
        fprintf(stderr, "\r\033[Kwarming up...");
    else if (q->planned > 0)
        fprintf(stderr,
                "\r\033[K%lld/%lld requests  %.1f output tok/s  %lld errors  %lld in flight",
                (long long)q->done, (long long)q->planned, q->output_tokens_per_s,
                (long long)q->failed, (long long)q->in_flight);
    else
        fprintf(stderr, "\r\033[K%.0f/%.0f s  %lld requests  %.1f output tok/s  %lld errors",
                q->elapsed_s, q->duration_s, (long long)q->done, q->output_tokens_per_s,
                (long long)q->failed);
    fflush(stderr);
}

static void on_notice(void *ctx, tc_measure_notice what, const char *text)
{
    run_plan *p = ctx;
    if (what == TC_MEASURE_NO_SENSOR || what == TC_MEASURE_NO_REMOTE) { /* its reasons follow */
        int *said = what == TC_MEASURE_NO_SENSOR ? &p->said_no_sensor : &p->said_no_remote;
        if (!(*said)++) /* once a process, not at every point of a sweep */
            fprintf(stderr, "truecost: %s", text);
    } else {
        tc_cli_error("run: %s", text);
    }
}

/* A run whose telemetry could not start: stored as failed, no summary. */
static int telemetry_failed(const run_plan *p, const tc_measure_outcome *o)
{
    int code = TC_EXIT_RUNTIME;
    if (o->stage != TC_MEASURE_TELEMETRY)
        tc_cli_error("run: %s", o->err);
    else if (strncmp(o->err, "--backend", 9) == 0) { /* the set names the monitor's option */
        tc_cli_error("run: --telemetry '%s': expected auto, none or a source name (see "
                     "truecost monitor --help)",
                     p->a->telemetry);
        code = TC_EXIT_USAGE;
    } else
        tc_cli_error("run: --telemetry %s", o->err);
    if (o->finish_err[0])
        tc_cli_error("run: %s", o->finish_err);
    return code;
}

/* Its figures, computed once now and kept beside its records, so that
 * show and runs never read every chunk again. Failing to keep them costs
 * only time later: they are computed from the records then. */
static void store_figures(tc_store *st, const tc_run_info *run)
{
    char err[512];
    if (tc_view_save_figures(st, run, err, sizeof err) != TC_OK)
        fprintf(stderr,
                "truecost: note: the run's figures were not stored (%s); show computes "
                "them from its records\n",
                err);
}

/* Runs from an older truecost get their figures once, by a writer. */
static void store_older_figures(tc_store *st)
{
    char err[512];
    size_t n = 0;
    if (tc_view_save_missing_figures(st, &n, err, sizeof err) != TC_OK)
        fprintf(stderr, "truecost: note: the figures of older runs were not stored (%s)\n", err);
}

/* A measured run: what went wrong, then its summary (nothing with
 * --repeat: the group is printed at the end). */
static int measured(run_plan *p, const tc_measure_outcome *o)
{
    p->last = o->info;
    p->has_last = 1;
    if (o->samples_dropped) /* said, never silent: the energy figures then miss them */
        fprintf(stderr,
                "truecost: telemetry: %llu samples were dropped (the results "
                "database did not keep up); use a longer --sample-ms\n",
                (unsigned long long)o->samples_dropped);
    if (p->progress)
        fputs("\r\033[K", stderr);
    if (o->rc != TC_OK)
        tc_cli_error("run: %s", o->err);
    if (o->load.abandoned)
        fprintf(stderr,
                "truecost: interrupted: %lld request(s) still in flight were cut off "
                "(stored as 'interrupted', left out of the figures)\n",
                (long long)o->load.abandoned);
    if (o->finish_err[0])
        tc_cli_error("run: %s", o->finish_err);
    store_figures(p->store, &o->info);
    /* A stopped run's cut-off requests are no error rate: it says it was
     * interrupted, and exits as a stopped run does. */
    tc_show_form form = p->quiet || p->a->repeat > 1 ? TC_SHOW_NONE
                        : p->a->json                 ? TC_SHOW_JSON
                                                     : TC_SHOW_TABLE;
    int code = tc_cli_show_run(p->store, &o->info, form,
                               o->load.interrupted ? 2.0 : p->a->max_error_rate, NULL);
    if (o->load.interrupted)
        return tc_cli_signal_exit();
    return o->rc != TC_OK ? TC_EXIT_RUNTIME : code;
}

/* The worst exit status wins; a runtime failure ends the group. */
static int on_finished(void *ctx, const tc_measure_outcome *o)
{
    run_plan *p = ctx;
    int code = o->stage == TC_MEASURE_TELEMETRY || o->stage == TC_MEASURE_SAMPLER
                   ? telemetry_failed(p, o)
                   : measured(p, o);
    if (code >= TC_EXIT_SIGINT || code == TC_EXIT_RUNTIME) {
        p->code = code;
        return 1;
    }
    if (code > p->code)
        p->code = code;
    return 0;
}

void tc_cli_run_config(const run_plan *p, tc_measure_config *cfg)
{
    const run_args *a = p->a;
    *cfg = (tc_measure_config){
        .load = {.endpoint = p->ep,
                 .api = p->api,
                 .model = p->model,
                 .prompts = &p->prompts,
                 .max_tokens = a->max_tokens,
                 .warmup = (int)a->warmup,
                 .requests = a->requests,
                 .duration_s = a->duration_s,
                 .concurrency = (int)a->concurrency,
                 .rate = a->rate,
                 .arrival = a->arrival_kind,
                 .burstiness = a->burstiness,
                 .seed = (uint64_t)a->seed,
                 .timeout_s = a->timeout_s,
                 .api_key = p->key},
        .label = a->label,
        .command = tc_cli_command_line(),
        .group = p->group,
        .slo = a->slo[0] ? a->slo : NULL,
        .group_kind = p->group_kind,
        .group_runs_before = p->group_runs_before,
        .gpus = p->gpus,
        .repeat = (int)a->repeat,
        .simulated = p->probe.simulated,
        .server_version = p->probe.server_version,
        .telemetry = a->telemetry,
        .telem = a->telem,
        .sample_ms = (int)a->sample_ms,
        .remote_urls = a->telemetry_urls,
        .n_remote_urls = a->n_telemetry_urls,
        .remote_ms = (int)a->telemetry_ms,
        .remote_token = a->telemetry_token,
        .idle_s = a->idle_s,
        .workload = a->isl ? &p->shape : NULL,
        .max_concurrency = (int)a->max_concurrency,
        .shard = a->shard_n > 0,
        .start_at_wall_ns = a->start_at_wall_ns,
    };
}

static int measure_all(run_plan *p)
{
    tc_measure_config cfg;
    tc_cli_run_config(p, &cfg);
    tc_measure_callbacks cb = {.stop = &tc_cli_stop_requested,
                               .started = on_started,
                               .progress = on_progress,
                               .notice = on_notice,
                               .finished = on_finished,
                               .ctx = p};
    tc_measure_result res;
    char err[1024];
    /* From here a Ctrl-C stops the run and keeps it; before, it just exits. */
    tc_cli_install_stop_signals();
    tc_err rc = tc_measure_run(&cfg, p->store, &cb, &res, err, sizeof err);
    p->runs_stored = res.runs;
    if (rc != TC_OK && res.stage == TC_MEASURE_BEGIN) {
        tc_cli_error("run: %s", err);
        /* the group's name taken meanwhile is the --label's fault, as before the run */
        return rc == TC_ERR_INVALID ? TC_EXIT_USAGE : TC_EXIT_RUNTIME;
    }
    return res.interrupted ? tc_cli_signal_exit() : p->code;
}

static int print_group(const run_plan *p)
{
    tc_runset set = {0};
    char err[512];
    int code = tc_cli_check(tc_view_runset(p->store, p->group, &set, err, sizeof err), err);
    if (!code)
        code = tc_cli_show_group(p->store, &set, p->a->json);
    tc_runset_free(&set);
    return code;
}

int tc_cli_run_open(run_args *a, run_plan *p)
{
    p->a = a;
    p->progress = !a->no_progress && isatty(STDERR_FILENO);
    int code = enough_files(a) < 0 ? TC_EXIT_USAGE : 0;
    if (!code)
        code = find_endpoint(a, &p->ep);
    if (!code && api_key(a, &p->ep, &p->key) < 0)
        code = TC_EXIT_USAGE;
    if (!code && load_prompts(a, &p->prompts) < 0)
        code = TC_EXIT_USAGE;
    if (!code && a->shard_n > 1)
        tc_prompts_stride(&p->prompts, (size_t)(a->shard_i - 1), (size_t)a->shard_n);
    if (!code)
        code = find_server(a, p->key, &p->ep, &p->probe, &p->api, p->model, sizeof p->model);
    if (!code)
        code = prepare_workload(p);
    if (!code)
        code = tc_cli_open_store(a->db, TC_STORE_WRITE, &p->store);
    return code;
}

int tc_cli_run_measure(run_plan *p)
{
    p->code = 0;
    return measure_all(p);
}

void tc_cli_run_close(run_plan *p, int code)
{
    if (p->store && p->runs_stored && code < TC_EXIT_SIGINT)
        store_older_figures(p->store);
    tc_store_close(p->store);
    tc_prompts_free(&p->prompts);
    tc_probe_free(&p->probe);
}

int tc_cmd_run(int argc, char **argv)
{
    run_args a;
    if (tc_cli_run_parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("run");
    run_plan p = {0};
    int code = tc_cli_run_open(&a, &p);
    if (!code && a.shard_n)
        code = check_shard_group(&a, &p);
    else if (!code)
        code = check_group(&a, p.store, p.group, sizeof p.group);
    /* A shard that comes late stretches the merged window: say so. */
    int64_t late_ns = a.start_at_wall_ns ? tc_wall_ns() - a.start_at_wall_ns : 0;
    if (!code && late_ns > 1000000000)
        tc_cli_error("run: --start-at %s passed %.1f s ago: starting now, late for the other "
                     "shards",
                     a.start_text, (double)late_ns / 1e9);
    if (!code) {
        code = measure_all(&p);
        if (a.repeat > 1 && p.runs_stored) {
            int g = print_group(&p);
            if (!code)
                code = g;
        }
    }
    tc_cli_run_close(&p, code);
    return code;
}
