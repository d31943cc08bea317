/* A training run: stored, its telemetry started, its trainer run and
 * read, its end stored (measure_train.h). */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_time.h"
#include "envinfo/env_fingerprint.h"
#include "measure_train_internal.h"

/* The run as the runs list shows it: endpoint "train: COMMAND". */
static void run_info(const tc_measure_train_config *cfg, tc_run_info *r)
{
    memset(r, 0, sizeof *r);
    r->status = TC_RUN_RUNNING;
    r->created_wall_ns = tc_wall_ns();
    size_t n = (size_t)snprintf(r->endpoint, sizeof r->endpoint, "train:");
    for (int i = 0; cfg->argv[i] && n < sizeof r->endpoint; i++)
        n += (size_t)snprintf(r->endpoint + n, sizeof r->endpoint - n, " %s", cfg->argv[i]);
    r->api = TC_API_OPENAI; /* no API: the column needs one; group_kind says "train" */
    if (cfg->model) {
        snprintf(r->model, sizeof r->model, "%s", cfg->model);
    } else {
        char base[256];
        snprintf(base, sizeof base, "%s", cfg->argv[0]);
        snprintf(r->model, sizeof r->model, "%s", basename(base));
    }
    snprintf(r->label, sizeof r->label, "%s", cfg->label ? cfg->label : "");
    snprintf(r->group_kind, sizeof r->group_kind, "train");
    snprintf(r->command, sizeof r->command, "%s", cfg->command ? cfg->command : "");
    r->simulated = cfg->simulated;
    r->concurrency = 1;
}

static void telemetry_notice(void *ctx, tc_measure_notice what, const char *text)
{
    (void)what;
    tc_measure_train_say(ctx, "%s", text);
}

static tc_err setup(train_ctx *c, char *err, size_t errlen)
{
    const tc_measure_train_config *cfg = c->cfg;
    c->max_line = cfg->max_line ? cfg->max_line : TC_MEASURE_TRAIN_MAX_LINE;
    for (int i = 0; i < 3; i++) {
        c->src[i].fd = -1;
        c->src[i].is_metrics = i == 2;
        c->src[i].buf = malloc(c->max_line + 1);
        if (!c->src[i].buf)
            return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    }
    tc_trainer_config out_read = cfg->read;
    if (cfg->metrics) /* the output is read for warnings and checkpoints only */
        out_read.format = TC_TRAIN_AUTO, out_read.step_regex = NULL;
    tc_err e = tc_trainer_new(&out_read, &c->reader, err, errlen);
    if (e == TC_OK && cfg->metrics)
        e = tc_trainer_new(&cfg->read, &c->mreader, err, errlen);
    c->info = cfg->plan;
    c->info.format = cfg->read.step_regex ? TC_TRAIN_REGEX : cfg->read.format;
    snprintf(c->info.metrics_path, sizeof c->info.metrics_path, "%s",
             cfg->metrics ? cfg->metrics : "");
    size_t n = 0;
    c->info.command[0] = '\0';
    for (int i = 0; cfg->argv[i] && n < sizeof c->info.command; i++)
        n += (size_t)snprintf(c->info.command + n, sizeof c->info.command - n, "%s%s", i ? " " : "",
                              cfg->argv[i]);
    return e;
}

/* The host's fingerprint (OS, CPU, GPUs, drivers: what changes a result)
 * stored with the run, so env --diff and compare can say what differs
 * between two platforms; one that cannot be read is said, not fatal. */
static void store_environment(train_ctx *c)
{
    tc_env_config env = {.telemetry = c->cfg->telemetry, .telem = c->cfg->telem};
    json_t *fp = NULL;
    char err[512];
    tc_err rc = tc_env_collect(&env, &fp, err, sizeof err);
    char *text = rc == TC_OK ? json_dumps(fp, JSON_COMPACT) : NULL;
    if (rc == TC_OK && !text)
        snprintf(err, sizeof err, "out of memory");
    if (text && tc_store_set_fingerprint(c->store, c->info.run_id, text, err, sizeof err) == TC_OK)
        err[0] = '\0';
    if (err[0])
        tc_measure_train_say(c, "the environment was not recorded (the run goes on): %s", err);
    free(text);
    tc_env_free(fp);
}

static tc_err start_telemetry(train_ctx *c)
{
    const tc_measure_train_config *cfg = c->cfg;
    c->tcfg.telemetry = cfg->telemetry;
    c->tcfg.telem = cfg->telem;
    c->tcfg.sample_ms = cfg->sample_ms > 0 ? cfg->sample_ms : 100;
    c->tcfg.remote_urls = cfg->remote_urls;
    c->tcfg.n_remote_urls = cfg->n_remote_urls;
    c->tcfg.remote_ms = cfg->remote_ms > 0 ? cfg->remote_ms : 1000;
    c->tcfg.remote_token = cfg->remote_token;
    c->tcb.notice = telemetry_notice;
    c->tcb.ctx = c;
    c->tcb.stop = c->cb->stop;
    c->tctx.cfg = &c->tcfg;
    c->tctx.cb = &c->tcb;
    c->tctx.store = c->store;
    c->tctx.run_id = c->info.run_id;
    tc_measure_outcome o;
    memset(&o, 0, sizeof o);
    tc_err e = tc_measure_telem_start(&c->tctx, &o);
    if (e != TC_OK)
        snprintf(c->out->err, sizeof c->out->err, "%s", o.err);
    return e;
}

static tc_run_status final_status(const tc_train_info *t)
{
    switch (t->end) {
    case TC_TRAIN_EXITED:
        return t->exit_code == 0 && t->steps > 0 ? TC_RUN_COMPLETE : TC_RUN_FAILED;
    case TC_TRAIN_INTERRUPTED:
    case TC_TRAIN_KILLED:
        return TC_RUN_INTERRUPTED;
    default:
        return TC_RUN_FAILED;
    }
}

/* The end stored: the last steps and warnings, the status. */
static void finish(train_ctx *c)
{
    tc_measure_outcome o;
    memset(&o, 0, sizeof o);
    o.load.interrupted = c->pass_sig != 0;
    tc_measure_telem_stop(&c->tctx, &o);
    if (c->tally.beyond > 0 && !c->info.note[0])
        snprintf(c->info.note, sizeof c->info.note,
                 "%lld warning or error lines past %d distinct messages were not kept",
                 (long long)c->tally.beyond, TC_TRAINER_MAX_DISTINCT);
    tc_measure_train_save(c, 0);
    if (c->n_pending > 0) /* one more try: nothing measured is given up lightly */
        tc_measure_train_save(c, 0);
    tc_run_status st = final_status(&c->info);
    char err[512];
    if (tc_store_run_finish(c->store, c->info.run_id, st, err, sizeof err) != TC_OK)
        snprintf(c->out->err, sizeof c->out->err, "the run's end was not stored: %s", err);
    else
        c->out->run.status = st;
    if (c->save_err[0])
        snprintf(c->out->err, sizeof c->out->err, "%zu steps were not stored: %s", c->n_pending,
                 c->save_err);
}

static void cleanup(train_ctx *c)
{
    tc_measure_telem_close(&c->tctx);
    tc_trainer_free(c->reader);
    tc_trainer_free(c->mreader);
    tc_trainer_tally_free(&c->tally);
    free(c->pending);
    for (int i = 0; i < 3; i++)
        free(c->src[i].buf);
}

tc_err tc_measure_train(const tc_measure_train_config *cfg, tc_store *store,
                        const tc_measure_train_callbacks *cb, tc_measure_train_outcome *out,
                        char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (!cfg->argv || !cfg->argv[0])
        return tc_fail(err, errlen, TC_ERR_INVALID, "no command to run");
    train_ctx c = {.cfg = cfg, .cb = cb, .out = out, .store = store};
    tc_err e = setup(&c, err, errlen);
    if (e == TC_OK) {
        run_info(cfg, &out->run);
        e = tc_store_run_begin(store, &out->run, err, errlen);
    }
    if (e == TC_OK) {
        out->stored = 1;
        c.info.run_id = out->run.id;
        e = tc_store_train_save(store, &c.info, NULL, 0, 0, NULL, 0, err, errlen);
    }
    if (e == TC_OK)
        store_environment(&c);
    if (e == TC_OK && start_telemetry(&c) != TC_OK) {
        c.info.end = TC_TRAIN_NOT_STARTED;
        snprintf(c.info.note, sizeof c.info.note, "%.250s", out->err);
    } else if (e == TC_OK) {
        tc_measure_train_proc(&c);
    }
    if (out->stored)
        finish(&c);
    out->info = c.info;
    out->escalated = c.escalated;
    if (out->stored && !out->err[0] && c.info.end != TC_TRAIN_NOT_STARTED && c.info.steps == 0)
        snprintf(out->err, sizeof out->err,
                 "no step was read from the trainer's %s (format %s): check --format, or give "
                 "--step-regex with named groups",
                 cfg->metrics ? "--metrics file" : "output", tc_train_format_name(c.info.format));
    cleanup(&c);
    return e;
}
