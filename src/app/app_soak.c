/* truecost soak's work: a long run at a target load, summarised per
 * window, its outages, restarts and drift judged against thresholds. */
#include <stdio.h>
#include <string.h>

#include "analysis/soak.h"
#include "app/app.h"
#include "app/app_run.h"
#include "measure/measure_soak.h"
#include "report/report_soak.h"
#include "views/view_soak.h"

typedef struct soak_ctx {
    run_plan *p;
    const tc_app_soak_args *s;
    int progress;
    int code;
    tc_run_info run;
    int has_run;
} soak_ctx;

static void on_started(void *ctx, const tc_run_info *run, int rep)
{
    soak_ctx *c = ctx;
    (void)rep;
    if (!c->s->json)
        fprintf(stderr, "truecost: soak run %lld%s: %s at %s%s\n", (long long)run->id,
                c->s->resume ? " (resumed)" : "", tc_api_name(c->p->m.api), c->p->m.ep.stored,
                c->p->m.probe.simulated ? " (SIMULATED)" : "");
}

static void on_progress(void *ctx, const tc_soak_status *st)
{
    soak_ctx *c = ctx;
    if (!c->progress)
        return;
    char line[400];
    tc_report_soak_progress(line, sizeof line, st->elapsed_s, st->total_s, st->last, st->outages,
                            st->downtime_s, st->restarts, st->down);
    fprintf(stderr, "\r\033[K%s", line);
    fflush(stderr);
}

static void on_notice(void *ctx, tc_measure_notice what, const char *text)
{
    (void)ctx;
    if (what == TC_MEASURE_NO_SENSOR)
        fprintf(stderr, "truecost: %s", text);
    else
        tc_app_error("soak: %s", text);
}

static void on_store_failed(void *ctx, const char *why)
{
    (void)ctx;
    tc_app_error("soak: a window was not stored (%s); the soak goes on", why);
}

static int on_finished(void *ctx, const tc_measure_outcome *o)
{
    soak_ctx *c = ctx;
    if (c->progress)
        fputs("\r\033[K", stderr);
    if (o->rc != TC_OK)
        tc_app_error("soak: %s", o->err);
    if (o->finish_err[0])
        tc_app_error("soak: %s", o->finish_err);
    c->run = o->info;
    c->has_run = 1;
    if (o->figures_err[0])
        fprintf(stderr, "truecost: note: the run's figures were not stored (%s)\n", o->figures_err);
    if (o->rc != TC_OK)
        c->code = TC_EXIT_RUNTIME;
    return 0;
}

/* The soak's verdict, windows and outages, as show prints them; a FAIL
 * exits TC_EXIT_CHECK. */
static int print_soak(tc_store *st, const tc_run_info *run, int json)
{
    char err[512];
    tc_show s = tc_app_show_on(json ? TC_SHOW_JSON : TC_SHOW_TABLE);
    int code = tc_app_shown(tc_report_show_soak(st, run, &s, err, sizeof err), &s, err);
    return code ? code : s.soak_found && !s.soak_pass ? TC_EXIT_CHECK : 0;
}

static int soak(run_plan *p, const tc_app_soak_args *s)
{
    tc_soak_config cfg = {0};
    tc_app_run_config(p, &cfg.run);
    cfg.plan = (tc_soak_plan){.duration_s = s->duration_s,
                              .window_s = s->window_s,
                              .max_downtime_s = s->max_downtime_s,
                              .max_drift_pct = s->max_drift,
                              .max_error_rate = s->max_error_rate};
    if (tc_app_command_line_whole()) /* a resume keeps the stored one */
        snprintf(cfg.plan.command, sizeof cfg.plan.command, "%s", tc_app_command_line());
    if (s->chunks && tc_chunks_parse(s->chunks, &cfg.plan.chunks) < 0)
        return TC_EXIT_USAGE;
    char err[1024];
    tc_err rc =
        s->resume ? tc_measure_soak_resume(p->store, s->resume, &cfg, err, sizeof err) : TC_OK;
    if (rc != TC_OK) {
        tc_app_error("soak: --resume %s: %s", s->resume, err);
        return rc == TC_ERR_INVALID ? TC_EXIT_USAGE : TC_EXIT_RUNTIME;
    }
    soak_ctx c = {.p = p, .s = s, .progress = p->progress && !s->json};
    tc_soak_callbacks cb = {.run = {.stop = &tc_app_stop_requested,
                                    .started = on_started,
                                    .notice = on_notice,
                                    .finished = on_finished,
                                    .ctx = &c},
                            .progress = on_progress,
                            .store_failed = on_store_failed};
    tc_measure_result res;
    tc_app_install_stop_signals();
    rc = tc_measure_soak(&cfg, p->store, &cb, &res, err, sizeof err);
    if (rc != TC_OK && res.stage == TC_MEASURE_BEGIN) {
        tc_app_error("soak: %s", err);
        return TC_EXIT_RUNTIME;
    }
    p->runs_stored = res.runs;
    int code = c.has_run ? print_soak(p->store, &c.run, s->json) : 0;
    if (res.interrupted)
        return tc_app_signal_exit();
    return c.code ? c.code : code;
}

int tc_app_soak(tc_measure_args *a, const tc_app_soak_args *s)
{
    run_plan p = {0};
    int code = tc_app_run_open(a, &p);
    if (!code)
        code = soak(&p, s);
    tc_app_run_close(&p, TC_EXIT_SIGINT); /* no figures of older runs: a soak has many requests */
    return code;
}
