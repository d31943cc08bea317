/* truecost soak: a long run at a target load, summarised per window, its
 * outages, restarts and drift judged against thresholds. Its own options
 * are taken out first; every other one is run's, parsed by run's parser. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "views/view_stored.h"
#include "analysis/soak.h"
#include "cli.h"
#include "cli_opts.h"
#include "cli_read.h"
#include "cli_run.h"
#include "core/tc_number.h"
#include "measure/measure_soak.h"
#include "report/report_soak.h"
#include "views/view_soak.h"

typedef struct soak_args {
    double duration_s, window_s, max_downtime_s, max_drift, max_error_rate;
    const char *resume, *chunks;
    int json;
} soak_args;

/* ---- options ----------------------------------------------------------------- */

static int duration(const char *opt, const char *v, double min_s, double *out)
{
    double ms;
    if (tc_parse_duration_ms(v, &ms) < 0 || ms / 1000.0 < min_s || ms / 1000.0 > 366 * 86400.0) {
        tc_cli_error("soak: %s '%s': expected a duration with its unit, at least %gs, e.g. 90s, "
                     "5m or 24h",
                     opt, v, min_s);
        return -1;
    }
    *out = ms / 1000.0;
    return 0;
}

static int take_duration(const char *v, void *ctx)
{
    return duration("--duration", v, 1, &((soak_args *)ctx)->duration_s);
}

static int take_window(const char *v, void *ctx)
{
    return duration("--window", v, 2, &((soak_args *)ctx)->window_s);
}

static int take_max_downtime(const char *v, void *ctx)
{
    return duration("--max-downtime", v, 0, &((soak_args *)ctx)->max_downtime_s);
}

static int take_drift(const char *v, void *ctx)
{
    return tc_cli_double("--max-drift", v, 0, 1000, &((soak_args *)ctx)->max_drift);
}

static int take_error_rate(const char *v, void *ctx)
{
    return tc_cli_double("--max-error-rate", v, 0, 1, &((soak_args *)ctx)->max_error_rate);
}

static int take_resume(const char *v, void *ctx)
{
    ((soak_args *)ctx)->resume = v;
    return 0;
}

static int take_chunks(const char *v, void *ctx)
{
    tc_soak_chunks c;
    if (tc_chunks_parse(v, &c) < 0) {
        tc_cli_error("soak: --chunks '%s': expected all, sample or none", v);
        return -1;
    }
    ((soak_args *)ctx)->chunks = v;
    return 0;
}

static int take_json(const char *v, void *ctx)
{
    (void)v;
    ((soak_args *)ctx)->json = 1;
    return 0;
}

static const tc_cli_opt soak_opts[] = {
    TC_OPT_C("duration", 0, take_duration, 1),
    TC_OPT_C("window", 0, take_window, 1),
    TC_OPT_C("max-downtime", 0, take_max_downtime, 1),
    TC_OPT_C("max-drift", 0, take_drift, 1),
    TC_OPT_C("max-error-rate", 0, take_error_rate, 1),
    TC_OPT_C("resume", 0, take_resume, 1),
    TC_OPT_C("chunks", 0, take_chunks, 1),
    TC_OPT_C("json", 0, take_json, 0),
    TC_OPT_END,
};

/* Takes out soak's own options (--json too, seen by both); the rest goes
 * to run's parser. 0, or -1 after saying why. */
static int split_args(int argc, char **argv, soak_args *s, char **rest, int *n_rest)
{
    return tc_cli_split("soak", argc, argv, soak_opts, s, "json", rest, n_rest);
}

static int check_args(const soak_args *s, const run_args *a)
{
    if (a->requests_given || a->repeat > 1) {
        tc_cli_error("soak: -n and --repeat belong to 'truecost run'; a soak runs for --duration");
        return -1;
    }
    if (s->window_s * 3 > s->duration_s && !s->resume) {
        tc_cli_error("soak: --window %gs leaves fewer than 3 windows in --duration %gs: the "
                     "trends need at least 3; shorten --window",
                     s->window_s, s->duration_s);
        return -1;
    }
    return 0;
}

typedef struct soak_ctx {
    run_plan *p;
    const soak_args *s;
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
        tc_cli_error("soak: %s", text);
}

static void on_store_failed(void *ctx, const char *why)
{
    (void)ctx;
    tc_cli_error("soak: a window was not stored (%s); the soak goes on", why);
}

static int on_finished(void *ctx, const tc_measure_outcome *o)
{
    soak_ctx *c = ctx;
    if (c->progress)
        fputs("\r\033[K", stderr);
    if (o->rc != TC_OK)
        tc_cli_error("soak: %s", o->err);
    if (o->finish_err[0])
        tc_cli_error("soak: %s", o->finish_err);
    c->run = o->info;
    c->has_run = 1;
    /* The run's figures kept beside its records, so that runs and show
     * never read a day of requests again; failing costs only time later. */
    char err[512];
    if (tc_view_save_figures(c->p->store, &o->info, err, sizeof err) != TC_OK)
        fprintf(stderr, "truecost: note: the run's figures were not stored (%s)\n", err);
    if (o->rc != TC_OK)
        c->code = TC_EXIT_RUNTIME;
    return 0;
}

/* ---- the soak ---------------------------------------------------------------- */

/* The soak's verdict, windows and outages, as show prints them; a FAIL
 * exits TC_EXIT_CHECK. */
static int print_soak(tc_store *st, const tc_run_info *run, int json)
{
    char err[512];
    tc_show s = tc_cli_show_on(json ? TC_SHOW_JSON : TC_SHOW_TABLE);
    int code = tc_cli_shown(tc_report_show_soak(st, run, &s, err, sizeof err), &s, err);
    return code ? code : s.soak_found && !s.soak_pass ? TC_EXIT_CHECK : 0;
}

/* A resumed soak: its stored plan (the thresholds stay as stored) and
 * the next window. 0, or the exit status after saying why. */
static int find_resumed(tc_store *st, const char *which, tc_soak_config *cfg)
{
    tc_run_info run;
    char err[512];
    if (tc_store_find_run(st, which, &run, err, sizeof err) != TC_OK) {
        tc_cli_error("soak: --resume: %s", err);
        return TC_EXIT_RUNTIME;
    }
    tc_soak_stored s;
    int found;
    if (tc_view_soak(st, run.id, &s, &found, err, sizeof err) != TC_OK) {
        tc_cli_error("soak: --resume %s: %s", which, err);
        return TC_EXIT_RUNTIME;
    }
    if (!found) {
        tc_cli_error("soak: --resume %s: run %lld is no soak; give a run that `truecost soak` "
                     "made (see 'truecost runs')",
                     which, (long long)run.id);
        return TC_EXIT_USAGE;
    }
    cfg->plan = s.plan;
    cfg->plan.resumes++;
    cfg->next_window = s.n_windows ? s.windows[s.n_windows - 1].idx + 1 : 0;
    if (s.n_windows) /* the time after the last stored window was lost with it */
        cfg->plan.covered_s =
            s.windows[s.n_windows - 1].start_s + s.windows[s.n_windows - 1].span_s;
    tc_soak_stored_free(&s);
    if (cfg->plan.covered_s >= cfg->plan.duration_s) {
        tc_cli_error("soak: --resume %s: the soak already covered its %g s", which,
                     cfg->plan.duration_s);
        return TC_EXIT_USAGE;
    }
    return 0;
}

static int soak(run_plan *p, const soak_args *s)
{
    tc_soak_config cfg = {0};
    tc_cli_run_config(p, &cfg.run);
    cfg.plan = (tc_soak_plan){.duration_s = s->duration_s,
                              .window_s = s->window_s,
                              .max_downtime_s = s->max_downtime_s,
                              .max_drift_pct = s->max_drift,
                              .max_error_rate = s->max_error_rate};
    if (tc_cli_command_line_whole()) /* a resume keeps the stored one */
        snprintf(cfg.plan.command, sizeof cfg.plan.command, "%s", tc_cli_command_line());
    if (s->chunks && tc_chunks_parse(s->chunks, &cfg.plan.chunks) < 0)
        return TC_EXIT_USAGE;
    if (s->resume) {
        int code = find_resumed(p->store, s->resume, &cfg);
        if (code)
            return code;
    }
    soak_ctx c = {.p = p, .s = s, .progress = p->progress && !s->json};
    tc_soak_callbacks cb = {.run = {.stop = &tc_cli_stop_requested,
                                    .started = on_started,
                                    .notice = on_notice,
                                    .finished = on_finished,
                                    .ctx = &c},
                            .progress = on_progress,
                            .store_failed = on_store_failed};
    tc_measure_result res;
    char err[1024];
    tc_cli_install_stop_signals();
    tc_err rc = tc_measure_soak(&cfg, p->store, &cb, &res, err, sizeof err);
    if (rc != TC_OK && res.stage == TC_MEASURE_BEGIN) {
        tc_cli_error("soak: %s", err);
        return TC_EXIT_RUNTIME;
    }
    p->runs_stored = res.runs;
    int code = c.has_run ? print_soak(p->store, &c.run, s->json) : 0;
    if (res.interrupted)
        return tc_cli_signal_exit();
    return c.code ? c.code : code;
}

/* ---- --resume RUN alone ----------------------------------------------------- */

#define MAX_WORDS 256

/* The words a resume gives itself (--resume, --db, --json,
 * --no-progress): how many word w starts (2: an option and its value), 0
 * for any other word. */
static int resume_own(const char *w)
{
    if (strcmp(w, "--resume") == 0 || strcmp(w, "--db") == 0)
        return 2;
    return strncmp(w, "--resume=", 9) == 0 || strncmp(w, "--db=", 5) == 0 ||
           strcmp(w, "--json") == 0 || strcmp(w, "--no-progress") == 0;
}

/* 1 when argv holds nothing but what a resume gives itself: the URL and
 * load are then the soak's own, as it started. */
static int only_resume_options(int argc, char **argv)
{
    for (int i = 1, own; i < argc; i += own)
        if (!(own = resume_own(argv[i])))
            return 0;
    return 1;
}

/* The stored command line's words after "truecost soak", less what the
 * resume gives itself, into out after out[0]; the count, or -1 after
 * saying why. */
static int stored_words(const char *which, const char *command, char **out, int max, char *buf,
                        size_t len)
{
    char *w[MAX_WORDS];
    int n = command[0] ? tc_cli_command_words(command, w, MAX_WORDS, buf, len) : -1;
    const char *why = !command[0] ? "its command line was not stored (an older truecost, or too "
                                    "long to keep)"
                      : n < 2 || strcmp(w[0], "truecost") != 0 || strcmp(w[1], "soak") != 0
                          ? "its stored command line does not read back"
                          : NULL;
    int k = 1;
    for (int i = 2, own; !why && i < n && k < max; i += own ? own : 1) {
        if ((own = resume_own(w[i])))
            continue;
        if (strstr(w[i], ":***@") || strstr(w[i], "password=***"))
            why = "its URL held a password, which is not stored";
        out[k++] = w[i];
    }
    if (why) {
        tc_cli_error("soak: --resume %s: %s: give the URL and load options again", which, why);
        return -1;
    }
    return k;
}

/* The stored soak that `--resume RUN` names, into *ss; 0, or the exit
 * status after saying why (a run that is not there, or not a soak). */
static int read_resumed(const char *which, const char *db_arg, tc_soak_stored *ss)
{
    tc_store *st = NULL;
    tc_run_info run;
    int found = 0;
    char err[512], path[TC_STORE_PATH_MAX];
    const char *db = db_arg;
    if (!db && tc_store_default_path(path, sizeof path, err, sizeof err) != TC_OK) {
        tc_cli_error("soak: %s", err);
        return TC_EXIT_RUNTIME;
    }
    if (!db)
        db = path;
    int code = 0;
    if (tc_store_open(db, TC_STORE_READ, &st, err, sizeof err) != TC_OK ||
        tc_store_find_run(st, which, &run, err, sizeof err) != TC_OK ||
        tc_view_soak(st, run.id, ss, &found, err, sizeof err) != TC_OK) {
        tc_cli_error("soak: --resume %s: %s", which, err);
        code = TC_EXIT_RUNTIME;
    } else if (!found) {
        tc_cli_error("soak: --resume %s: run %lld is no soak; give a run that `truecost soak` "
                     "made (see 'truecost runs')",
                     which, (long long)run.id);
        code = TC_EXIT_USAGE;
    }
    tc_store_close(st);
    return code;
}

/* `soak --resume RUN` with no URL or load: the soak's stored command line,
 * then argv's options. The exit status. */
static int resume_as_started(const soak_args *s, const run_args *a, int argc, char **argv)
{
    tc_soak_stored ss;
    int code = read_resumed(s->resume, a->db, &ss);
    if (code)
        return code;
    static char buf[4096];
    char *words[MAX_WORDS + 8];
    int n = stored_words(s->resume, ss.plan.command, words, MAX_WORDS, buf, sizeof buf);
    if (n >= 0) {
        words[0] = argv[0];
        for (int i = 1; i < argc && n < MAX_WORDS + 7; i++)
            words[n++] = argv[i];
        words[n] = NULL;
        fprintf(stderr, "truecost: soak --resume %s: as it started: %s\n", s->resume,
                ss.plan.command);
    }
    tc_soak_stored_free(&ss);
    return n < 0 ? TC_EXIT_USAGE : tc_cmd_soak(n, words);
}

int tc_cmd_soak(int argc, char **argv)
{
    static int as_started; /* the stored command line is being run: once */
    soak_args s = {.duration_s = 86400,
                   .window_s = 60,
                   .max_downtime_s = 300,
                   .max_drift = 5,
                   .max_error_rate = 0.01};
    char **rest = calloc((size_t)argc + 1, sizeof *rest);
    int n_rest = 0;
    if (!rest)
        return TC_EXIT_RUNTIME;
    run_args a;
    int bad = split_args(argc, argv, &s, rest, &n_rest) < 0 ||
              tc_cli_run_parse_args(n_rest, rest, &a) < 0;
    free(rest);
    if (bad)
        return tc_cli_usage_hint("soak");
    if (check_args(&s, &a) < 0)
        return tc_cli_usage_hint("soak");
    if (s.resume && !a.url && !as_started && only_resume_options(argc, argv)) {
        as_started = 1;
        int code = resume_as_started(&s, &a, argc, argv);
        as_started = 0;
        return code;
    }
    run_plan p = {0};
    int code = tc_cli_run_open(&a, &p);
    if (!code)
        code = soak(&p, &s);
    tc_cli_run_close(&p, TC_EXIT_SIGINT); /* no figures of older runs: a soak has many requests */
    return code;
}
