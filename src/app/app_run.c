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
#include "app/app.h"
#include "app/app_run.h"
#include "app/app_runset.h"
#include "measure/measure_run.h"
#include "measure/measure_plan.h"
#include "store/store.h"

/* ---- setting up ---------------------------------------------------------- */

/* A setup error: the user's to fix (usage), or not. */
static int setup_failed(tc_err rc, const char *err)
{
    tc_app_error("run: %s", err);
    return rc == TC_ERR_INVALID ? TC_EXIT_USAGE : TC_EXIT_RUNTIME;
}

/* What the plan says though nothing failed; the calibration not with --json. */
static void say_plan(const run_plan *p)
{
    const tc_measure_plan *m = &p->m;
    for (int i = 0; i < m->n_notes; i++)
        fprintf(stderr, "truecost: %s\n", m->notes[i]);
    if (m->calibration[0] && !p->a->json)
        fprintf(stderr, "truecost: %s\n", m->calibration);
}

/* The group the runs join: a shard's siblings, or a --repeat group. */
static int check_group(const run_args *a, run_plan *p)
{
    char err[512];
    tc_err rc;
    if (a->shard_n) {
        snprintf(p->group, sizeof p->group, "%s", a->label);
        p->group_kind = "shard";
        rc = tc_measure_plan_shard_group(p->store, a->label, a->shard_n, err, sizeof err);
    } else
        rc = tc_measure_plan_group(p->store, a->label, (int)a->repeat, p->group, sizeof p->group,
                                   err, sizeof err);
    return rc == TC_OK ? 0 : setup_failed(rc, err);
}

/* ---- what measure/ says ---------------------------------------------------- */

static void on_started(void *ctx, const tc_run_info *run, int rep)
{
    const run_plan *p = ctx;
    const char *sim = p->m.probe.simulated ? " (SIMULATED)" : "";
    char safe[4 * sizeof p->m.model];
    const char *model = tc_text_term(p->m.model, safe, sizeof safe);
    if (!p->a->json && p->a->repeat > 1)
        fprintf(stderr, "truecost: run %lld (%d of %lld in group '%s'): %s %s at %s%s\n",
                (long long)run->id, rep + 1, p->a->repeat, p->group, tc_api_name(p->m.api), model,
                p->m.ep.stored, sim);
    else if (!p->a->json)
        fprintf(stderr, "truecost: run %lld: %s %s at %s%s\n", (long long)run->id,
                tc_api_name(p->m.api), model, p->m.ep.stored, sim);
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
        tc_app_error("run: %s", text);
    }
}

/* A run whose telemetry could not start: stored as failed, no summary. */
static int telemetry_failed(const run_plan *p, const tc_measure_outcome *o)
{
    int code = TC_EXIT_RUNTIME;
    if (o->stage != TC_MEASURE_TELEMETRY)
        tc_app_error("run: %s", o->err);
    else if (strncmp(o->err, "--backend", 9) == 0) { /* the set names the monitor's option */
        tc_app_error("run: --telemetry '%s': expected auto, none or a source name (see "
                     "truecost monitor --help)",
                     p->a->telemetry);
        code = TC_EXIT_USAGE;
    } else
        tc_app_error("run: --telemetry %s", o->err);
    if (o->finish_err[0])
        tc_app_error("run: %s", o->finish_err);
    return code;
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
        tc_app_error("run: %s", o->err);
    if (o->load.abandoned)
        fprintf(stderr,
                "truecost: interrupted: %lld request(s) still in flight were cut off "
                "(stored as 'interrupted', left out of the figures)\n",
                (long long)o->load.abandoned);
    if (o->finish_err[0])
        tc_app_error("run: %s", o->finish_err);
    if (o->figures_err[0])
        fprintf(stderr,
                "truecost: note: the run's figures were not stored (%s); show computes them from "
                "its records\n",
                o->figures_err);
    /* A stopped run's cut-off requests are no error rate: it says it was
     * interrupted, and exits as a stopped run does. */
    tc_show_form form = p->quiet || p->a->repeat > 1 ? TC_SHOW_NONE
                        : p->a->json                 ? TC_SHOW_JSON
                                                     : TC_SHOW_TABLE;
    int code = tc_app_show_run(p->store, &o->info, form,
                               o->load.interrupted ? 2.0 : p->a->max_error_rate, NULL);
    if (o->load.interrupted)
        return tc_app_signal_exit();
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

void tc_app_run_config(const run_plan *p, tc_measure_config *cfg)
{
    const run_args *a = p->a;
    *cfg = (tc_measure_config){
        .load = {.endpoint = p->m.ep,
                 .api = p->m.api,
                 .model = p->m.model,
                 .prompts = &p->m.prompts,
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
                 .api_key = p->m.key},
        .label = a->label,
        .command = tc_app_command_line(),
        .group = p->group,
        .slo = a->slo[0] ? a->slo : NULL,
        .group_kind = p->group_kind,
        .group_runs_before = p->group_runs_before,
        .gpus = p->gpus,
        .repeat = (int)a->repeat,
        .simulated = p->m.probe.simulated,
        .server_version = p->m.probe.server_version,
        .telemetry = a->telemetry,
        .telem = a->telem,
        .sample_ms = (int)a->sample_ms,
        .remote_urls = a->telemetry_urls,
        .n_remote_urls = a->n_telemetry_urls,
        .remote_ms = (int)a->telemetry_ms,
        .remote_token = a->telemetry_token,
        .idle_s = a->idle_s,
        .workload = a->isl ? &p->m.shape : NULL,
        .max_concurrency = (int)a->max_concurrency,
        .shard = a->shard_n > 0,
        .start_at_wall_ns = a->start_at_wall_ns,
    };
}

static int measure_all(run_plan *p)
{
    tc_measure_config cfg;
    tc_app_run_config(p, &cfg);
    tc_measure_callbacks cb = {.stop = &tc_app_stop_requested,
                               .started = on_started,
                               .progress = on_progress,
                               .notice = on_notice,
                               .finished = on_finished,
                               .ctx = p};
    tc_measure_result res;
    char err[1024];
    /* From here a Ctrl-C stops the run and keeps it; before, it just exits. */
    tc_app_install_stop_signals();
    tc_err rc = tc_measure_run(&cfg, p->store, &cb, &res, err, sizeof err);
    p->runs_stored = res.runs;
    if (rc != TC_OK && res.stage == TC_MEASURE_BEGIN) {
        tc_app_error("run: %s", err);
        /* the group's name taken meanwhile is the --label's fault, as before the run */
        return rc == TC_ERR_INVALID ? TC_EXIT_USAGE : TC_EXIT_RUNTIME;
    }
    return res.interrupted ? tc_app_signal_exit() : p->code;
}

static int print_group(const run_plan *p)
{
    tc_runset set = {0};
    char err[512];
    int code = tc_app_check(tc_view_runset(p->store, p->group, &set, err, sizeof err), err);
    if (!code)
        code = tc_app_show_group(p->store, &set, p->a->json);
    tc_runset_free(&set);
    return code;
}

int tc_app_run_open(run_args *a, run_plan *p)
{
    p->a = a;
    p->progress = !a->no_progress && isatty(STDERR_FILENO);
    tc_measure_ask ask = {.url = a->url,
                          .api = a->api,
                          .model = a->model,
                          .key_env = a->key_env,
                          .prompt = a->prompt,
                          .prompts_file = a->prompts_file,
                          .workload = a->workload,
                          .isl = a->isl,
                          .osl = a->osl,
                          .isl_range = a->isl_range,
                          .seed = (uint64_t)a->seed,
                          .timeout_s = a->timeout_s,
                          .concurrency = a->concurrency,
                          .max_concurrency = a->max_concurrency,
                          .rate = a->rate,
                          .shard_i = a->shard_i,
                          .shard_n = a->shard_n};
    char err[1024];
    tc_err rc = tc_measure_plan_open(&ask, &p->m, err, sizeof err);
    say_plan(p);
    a->concurrency = p->m.concurrency; /* an open loop's ceiling, as the file limit allows */
    if (rc != TC_OK)
        return setup_failed(rc, err);
    return tc_app_open_store(a->db, TC_STORE_WRITE, &p->store);
}

int tc_app_run_measure(run_plan *p)
{
    p->code = 0;
    return measure_all(p);
}

void tc_app_run_close(run_plan *p, int code)
{
    if (p->store && p->runs_stored && code < TC_EXIT_SIGINT)
        store_older_figures(p->store);
    tc_store_close(p->store);
    tc_measure_plan_close(&p->m);
}

int tc_app_run(tc_measure_args *a)
{
    run_plan p = {0};
    int code = tc_app_run_open(a, &p);
    if (!code)
        code = check_group(a, &p);
    /* A shard that comes late stretches the merged window: say so. */
    int64_t late_ns = a->start_at_wall_ns ? tc_wall_ns() - a->start_at_wall_ns : 0;
    if (!code && late_ns > 1000000000)
        tc_app_error("run: --start-at %s passed %.1f s ago: starting now, late for the other "
                     "shards",
                     a->start_text, (double)late_ns / 1e9);
    if (!code) {
        code = measure_all(&p);
        if (a->repeat > 1 && p.runs_stored) {
            int g = print_group(&p);
            if (!code)
                code = g;
        }
    }
    tc_app_run_close(&p, code);
    return code;
}
