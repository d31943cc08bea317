/* One run, or a group of them: the environment, the run stored, the load
 * and its records, the end status. */
#include "measure_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "core/tc_redact.h"
#include "core/tc_rng.h"
#include "core/tc_time.h"
#include "envinfo/env_fingerprint.h"
#include "telemetry/telem_scrape.h"
#include "measure_internal.h"
#include "views/view_stored.h"

/* How long the end status is tried again while the database stays locked
 * past its busy timeout: a run must not stay "running". */
#define FINISH_PATIENCE_NS (30 * TC_NS_PER_S)

void tc_measure_prompt_set(const tc_prompts *p, char *out, size_t len)
{
    if (p->synthetic) { /* the generator's inputs name its prompts */
        const tc_synth *s = &p->synth;
        snprintf(out, len, "synthetic isl %lld-%lld osl %lld seed %llu",
                 (long long)tc_synth_isl_min(s), (long long)s->isl, (long long)s->osl,
                 (unsigned long long)s->seed);
        return;
    }
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

static void fill_info(const tc_measure_config *cfg, const char *prompt_set, tc_run_info *info)
{
    const tc_runner_config *w = &cfg->load;
    memset(info, 0, sizeof *info);
    const char *label = cfg->label ? cfg->label : cfg->group ? cfg->group : "";
    snprintf(info->label, sizeof info->label, "%s", label);
    info->status = TC_RUN_RUNNING;
    info->created_wall_ns = tc_wall_ns();
    snprintf(info->endpoint, sizeof info->endpoint, "%s", w->endpoint.stored);
    info->api = w->api;
    snprintf(info->model, sizeof info->model, "%s", w->model ? w->model : "");
    info->simulated = cfg->simulated;
    snprintf(info->server_version, sizeof info->server_version, "%s",
             cfg->server_version ? cfg->server_version : "");
    info->concurrency = w->concurrency;
    info->warmup = w->warmup;
    info->requests = w->duration_s > 0 ? 0 : w->requests;
    info->duration_s = w->duration_s;
    info->max_tokens = w->max_tokens;
    snprintf(info->group, sizeof info->group, "%s", cfg->group ? cfg->group : "");
    snprintf(info->prompt_set, sizeof info->prompt_set, "%s", prompt_set);
    snprintf(info->slo, sizeof info->slo, "%s", cfg->slo ? cfg->slo : "");
    snprintf(info->group_kind, sizeof info->group_kind, "%s",
             cfg->group_kind ? cfg->group_kind : "");
    info->gpus = cfg->gpus;
    snprintf(info->command, sizeof info->command, "%s", cfg->command ? cfg->command : "");
    if (w->rate > 0) { /* an open loop; a closed one stays all zero */
        info->arrival = w->arrival;
        info->rate = w->rate;
        info->burstiness = w->arrival == TC_ARRIVAL_GAMMA ? w->burstiness : 0;
        info->seed = w->seed;
        info->max_concurrency = cfg->max_concurrency;
    }
}

/* The /env beside an exporter URL: its path replaced. */
static void env_url(const char *metrics_url, char *out, size_t len)
{
    const char *p = strstr(metrics_url, "://");
    p = p ? p + 3 : metrics_url;
    size_t host = (size_t)(p - metrics_url) + strcspn(p, "/?#");
    snprintf(out, len, "%.*s/env", (int)host, metrics_url);
}

/* The server box's fingerprint from the first telemetry URL's agent that
 * answers /env, NULL when none does. */
static json_t *remote_environment(const tc_measure_config *cfg)
{
    for (int i = 0; i < cfg->n_remote_urls; i++) {
        char url[1100], err[512], *body = NULL;
        size_t len = 0;
        env_url(cfg->remote_urls[i], url, sizeof url);
        if (tc_telem_http_get(url, cfg->remote_token, 2000, 1u << 20, &body, &len, err,
                              sizeof err) != TC_OK)
            continue;
        json_t *fp = json_loadb(body, len, 0, NULL);
        free(body);
        if (json_is_object(fp)) {
            char shown[1100]; /* stored: no password, no token */
            tc_redact_url(url, shown, sizeof shown);
            json_object_set_new(fp, "host",
                                json_pack("{s:s, s:s}", "role", "server", "source", shown));
            return fp;
        }
        json_decref(fp);
    }
    return NULL;
}

/* With telemetry URLs, the fingerprint describes the server box: its
 * agent's, with the server and model as this client measured them; when
 * no agent answers, this host's, marked as the client. */
static json_t *place_host(const tc_measure_ctx *c, json_t *local)
{
    if (c->cfg->n_remote_urls <= 0)
        return local;
    json_t *remote = remote_environment(c->cfg);
    if (!remote) {
        tc_measure_say(c, TC_MEASURE_CLIENT_HOST,
                       "no truecost agent answered /env at the --telemetry URLs: the environment "
                       "stored is this client host's, not the server's");
        json_object_set_new(
            local, "host",
            json_pack("{s:s, s:s}", "role", "client", "note", "client host, not the server"));
        return local;
    }
    json_t *server = json_object_get(local, "server");
    json_object_set(remote, "server", server ? server : json_null());
    json_decref(local);
    return remote;
}

/* The environment as JSON text; NULL when it could not be read (said: the
 * run goes on). Read before the run is stored: its network calls and tools
 * take seconds, and a stop then must not leave a run behind. */
static char *collect_environment(const tc_measure_ctx *c)
{
    const tc_measure_config *cfg = c->cfg;
    tc_env_config env = {.url = cfg->load.endpoint.base,
                         .model = cfg->load.model,
                         .api_key = cfg->load.api_key,
                         .telemetry = cfg->telemetry,
                         .telem = cfg->telem};
    json_t *fp = NULL;
    char err[512];
    tc_err rc = tc_env_collect(&env, &fp, err, sizeof err);
    if (rc == TC_OK)
        fp = place_host(c, fp);
    char *text = rc == TC_OK && fp ? json_dumps(fp, JSON_COMPACT) : NULL;
    if (!text)
        tc_measure_say(c, TC_MEASURE_NO_ENVIRONMENT, "the environment was not recorded: %s",
                       rc != TC_OK ? err : "out of memory");
    json_decref(fp);
    return text;
}

/* Ends the run with `status`, trying again while the database is locked. */
static tc_err finish_run(tc_store *store, int64_t id, tc_run_status status, char *err, size_t len)
{
    int64_t give_up = tc_mono_ns() + FINISH_PATIENCE_NS;
    tc_err rc;
    while ((rc = tc_store_run_finish(store, id, status, err, len)) == TC_ERR_BUSY &&
           tc_mono_ns() < give_up) {
        struct timespec ts = {0, 500 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (rc == TC_OK)
        err[0] = '\0';
    return rc;
}

/* ---- the load generator's callbacks --------------------------------------- */

/* The batch as it is stored: shallow copies that keep fewer chunk times
 * (the arrays stay the runner's) and take a resumed run's numbers. NULL
 * when it is stored as it came, or memory ran out (stored as it came). */
static const tc_req_record *trim_batch(tc_measure_ctx *c, const tc_req_record *recs, size_t n)
{
    int every = c->cfg->chunk_sample;
    if (!every && !c->seq_base)
        return NULL;
    if (n > c->trimmed_cap) {
        tc_req_record *grown = realloc(c->trimmed, n * sizeof *grown);
        if (!grown)
            return NULL;
        c->trimmed = grown;
        c->trimmed_cap = n;
    }
    for (size_t i = 0; i < n; i++) {
        tc_req_record *t = &c->trimmed[i];
        *t = recs[i];
        t->seq += c->seq_base;
        int keep_all = every == 0 || (every > 0 && recs[i].seq % every == 0);
        if (!keep_all && t->n_chunks > 1)
            t->n_chunks = 1;
    }
    return c->trimmed;
}

/* Hands a batch to the saver (or, without one, the store): the thread
 * that reads the streams does not wait on the database. */
static int store_batch(void *ctx, const tc_req_record *recs, size_t n)
{
    tc_measure_ctx *c = ctx;
    tc_measure_drain(c);
    const tc_req_record *as_stored = trim_batch(c, recs, n);
    const tc_req_record *batch = as_stored ? as_stored : recs;
    int taken;
    if (c->saver)
        taken = tc_saver_add_requests(c->saver, batch, n, c->store_err, sizeof c->store_err) == 0;
    else
        taken = tc_store_add_requests(c->store, c->run_id, batch, n, c->store_err,
                                      sizeof c->store_err) == TC_OK;
    if (!taken)
        return -1; /* refused: the runner keeps them and offers them again */
    if (c->cb->records)
        c->cb->records(c->cb->ctx, recs, n);
    return 0;
}

static void progress(void *ctx, const tc_runner_progress *p)
{
    tc_measure_ctx *c = ctx;
    tc_measure_drain(c);
    if (c->cb->progress)
        c->cb->progress(c->cb->ctx, p);
}

static tc_err mark_on(tc_store *store, void *ctx)
{
    tc_measure_ctx *c = ctx;
    return tc_store_run_finish(store, c->run_id, TC_RUN_INTERRUPTED, c->store_err,
                               sizeof c->store_err);
}

/* The stop, as soon as the runner sees it (after handing over what had
 * finished): marked at once, so that a second signal that exits without
 * cleaning up leaves the run "interrupted". */
static void mark_interrupted(void *ctx)
{
    tc_measure_ctx *c = ctx;
    /* After what was handed over is saved (unless the store refuses it):
     * a second Ctrl-C then loses nothing that finished before the first. */
    c->marked = tc_saver_with_store(c->saver, c->store, mark_on, c) == TC_OK;
}

/* Starts the saver for the load (without one, batches are saved on this
 * thread, as they were before it). */
static void start_saver(tc_measure_ctx *c, double patience_s)
{
    char err[512];
    if (tc_saver_start(c->store, c->run_id, patience_s, &c->saver, err, sizeof err) != TC_OK)
        tc_measure_say(c, TC_MEASURE_SAVED_INLINE,
                       "%s: requests are saved as they are timed, and a slow database can "
                       "delay the timing of chunks",
                       err);
    if (c->saver && c->cb->saver)
        c->cb->saver(c->cb->ctx, c->saver);
}

/* Stops the saver once everything is saved, or its patience is out;
 * what it could not save joins the load's unsaved, and makes the load's
 * error say so. */
static void stop_saver(tc_measure_ctx *c, tc_measure_outcome *o, double patience_s, tc_err *rc,
                       char *err, size_t errlen)
{
    if (!c->saver)
        return;
    char why[512] = "";
    (void)tc_saver_flush(c->saver, 1, why, sizeof why);
    tc_measure_samples_lost(c);
    int64_t lost = tc_saver_stop(c->saver, why, sizeof why);
    c->saver = NULL;
    if (c->cb->saver)
        c->cb->saver(c->cb->ctx, NULL);
    if (lost <= 0)
        return;
    o->load.unsaved += lost;
    snprintf(c->store_err, sizeof c->store_err, "%s", why);
    if (*rc != TC_OK && *rc != TC_ERR_IO) /* the load's own failure says more */
        return;
    *rc = tc_fail(err, errlen, TC_ERR_IO,
                  "saving the results failed for %g s; %lld finished request(s) could not be "
                  "saved",
                  patience_s, (long long)o->load.unsaved);
}

/* ---- one run ---------------------------------------------------------------- */

/* The load, from the first request to the status stored. */
static void measure_load(tc_measure_ctx *c, tc_measure_outcome *o)
{
    tc_runner_config load = c->cfg->load;
    load.stop = c->cb->stop;
    load.on_batch = store_batch;
    load.on_progress = progress;
    load.on_stop = mark_interrupted;
    load.ctx = c;
    double patience = load.save_patience_s > 0 ? load.save_patience_s : TC_RUNNER_SAVE_PATIENCE_S;
    start_saver(c, patience);
    char err[512];
    tc_err rc = tc_runner_run(&load, &o->load, err, sizeof err);
    tc_measure_telem_stop(c, o);
    stop_saver(c, o, patience, &rc, err, sizeof err);
    if (rc != TC_OK) {
        o->rc = rc;
        o->stage = TC_MEASURE_LOAD;
        snprintf(o->err, sizeof o->err, "%s%s%s", err, c->store_err[0] ? ": " : "", c->store_err);
    }
    tc_run_status status = o->load.interrupted ? TC_RUN_INTERRUPTED
                           : rc != TC_OK       ? TC_RUN_FAILED
                                               : TC_RUN_COMPLETE;
    if (!c->marked)
        finish_run(c->store, o->info.id, status, o->finish_err, sizeof o->finish_err);
    o->info.status = status;
}

/* Sleeps until cfg->start_at_wall_ns (shards started together), in short
 * steps so a Ctrl-C still ends the wait at once. */
static void wait_for_start(tc_measure_ctx *c)
{
    int64_t at = c->cfg->start_at_wall_ns;
    while (at > 0 && !tc_measure_stopping(c)) {
        int64_t left = at - tc_wall_ns();
        if (left <= 0)
            break;
        int64_t step = left < 20000000 ? left : 20000000;
        struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)step};
        nanosleep(&ts, NULL);
    }
}

/* Stores and measures run `rep`. Returns 0 when the run was stored (its
 * outcome in o), 1 when a stop came before it was, -1 when it could not be
 * stored (o->rc, o->err). */
/* A stopped run measured again (soak --resume): found, reopened, its
 * requests numbered after the stored ones. As one_run returns. */
static int reopen_run(tc_measure_ctx *c, const char *prompt_set, tc_measure_outcome *o)
{
    char id[24], what[1400];
    snprintf(id, sizeof id, "%lld", (long long)c->cfg->resume_run_id);
    o->rc = tc_store_find_run(c->store, id, &o->info, o->err, sizeof o->err);
    tc_run_info now;
    fill_info(c->cfg, prompt_set, &now);
    /* One run, one load: windows of another would read as drift. */
    if (o->rc == TC_OK && tc_measure_load_differs(&o->info, &now, what, sizeof what))
        o->rc = tc_fail(o->err, sizeof o->err, TC_ERR_INVALID,
                        "--resume %s: not the load it started with (%s): give the same URL and "
                        "load options%s%s",
                        id, what, o->info.command[0] ? "; it started as: " : "", o->info.command);
    if (o->rc == TC_OK)
        o->rc = tc_store_run_reopen(c->store, o->info.id, &c->seq_base, o->err, sizeof o->err);
    if (o->rc != TC_OK) {
        o->stage = TC_MEASURE_BEGIN;
        return -1;
    }
    o->info.status = TC_RUN_RUNNING;
    c->run_id = o->info.id;
    if (c->cb->started)
        c->cb->started(c->cb->ctx, &o->info, 0);
    if (tc_measure_telem_start(c, o) == TC_OK) {
        measure_load(c, o);
    } else {
        finish_run(c->store, o->info.id, TC_RUN_FAILED, o->finish_err, sizeof o->finish_err);
        o->info.status = TC_RUN_FAILED;
    }
    tc_measure_telem_close(c);
    return 0;
}

static int one_run(tc_measure_ctx *c, int rep, const char *prompt_set, tc_measure_outcome *o)
{
    memset(o, 0, sizeof *o);
    o->rep = rep;
    if (c->cfg->resume_run_id)
        return reopen_run(c, prompt_set, o);
    fill_info(c->cfg, prompt_set, &o->info);
    char *environment = collect_environment(c);
    if (tc_measure_stopping(c)) {
        free(environment);
        return 1;
    }
    /* A group's runs are counted and stored in one transaction: two runs
     * given the same --label at once cannot merge into one group. */
    o->rc = o->info.group[0] && !c->cfg->shard
                ? tc_store_run_begin_group(c->store, &o->info,
                                           (size_t)(c->cfg->group_runs_before + rep), o->err,
                                           sizeof o->err)
                : tc_store_run_begin(c->store, &o->info, o->err, sizeof o->err);
    if (o->rc != TC_OK) {
        free(environment);
        o->stage = TC_MEASURE_BEGIN;
        return -1;
    }
    c->run_id = o->info.id;
    char err[512];
    if (environment &&
        tc_store_set_fingerprint(c->store, c->run_id, environment, err, sizeof err) != TC_OK)
        tc_measure_say(c, TC_MEASURE_NO_ENVIRONMENT, "the environment was not recorded: %s", err);
    free(environment);
    if (c->cfg->workload &&
        tc_store_set_workload(c->store, c->run_id, c->cfg->workload, err, sizeof err) != TC_OK)
        tc_measure_say(c, TC_MEASURE_NO_WORKLOAD, "the workload shape was not recorded: %s", err);
    if (c->cb->started)
        c->cb->started(c->cb->ctx, &o->info, rep);
    if (tc_measure_telem_start(c, o) == TC_OK) {
        wait_for_start(c);
        measure_load(c, o);
    } else { /* the run was begun: end it, never leave it "running" */
        finish_run(c->store, o->info.id, TC_RUN_FAILED, o->finish_err, sizeof o->finish_err);
        o->info.status = TC_RUN_FAILED;
    }
    tc_measure_telem_close(c);
    return 0;
}

tc_err tc_measure_run(const tc_measure_config *cfg, tc_store *store, const tc_measure_callbacks *cb,
                      tc_measure_result *out, char *err, size_t errlen)
{
    static const tc_measure_callbacks none;
    memset(out, 0, sizeof *out);
    out->stage = TC_MEASURE_BEGIN; /* until a run is stored */
    if (tc_prompts_empty(cfg->load.prompts))
        return tc_fail(err, errlen, TC_ERR_INVALID, "no prompts to send");
    tc_measure_ctx *c = calloc(1, sizeof *c);
    tc_measure_outcome *o = malloc(sizeof *o);
    if (!c || !o) {
        free(c);
        free(o);
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    }
    char prompt_set[64];
    tc_measure_prompt_set(cfg->load.prompts, prompt_set, sizeof prompt_set);
    tc_err last = TC_OK;
    out->stage = TC_MEASURE_OK;
    for (int rep = 0; rep < (cfg->repeat > 1 ? cfg->repeat : 1); rep++) {
        free(c->trimmed);
        *c = (tc_measure_ctx){.cfg = cfg, .cb = cb ? cb : &none, .store = store};
        int stored = one_run(c, rep, prompt_set, o);
        if (stored != 0) {
            out->interrupted = stored > 0;
            if (stored < 0) {
                last = tc_fail(err, errlen, o->rc, "%s", o->err);
                out->stage = o->stage;
            }
            break;
        }
        out->runs++;
        out->last_run_id = o->info.id;
        if (o->rc != TC_OK) {
            out->failed++;
            out->stage = o->stage;
            last = tc_fail(err, errlen, o->rc, "%s", o->err);
        }
        out->interrupted = o->load.interrupted;
        /* Its figures, computed once now and kept beside its records, so
         * that show and runs never read every chunk again. */
        o->figures_err[0] = '\0';
        if (tc_view_save_figures(store, &o->info, o->figures_err, sizeof o->figures_err) != TC_OK &&
            !o->figures_err[0])
            snprintf(o->figures_err, sizeof o->figures_err, "not stored");
        if ((c->cb->finished && c->cb->finished(c->cb->ctx, o) != 0) || out->interrupted)
            break;
    }
    free(c->trimmed);
    free(c);
    free(o);
    return last;
}
