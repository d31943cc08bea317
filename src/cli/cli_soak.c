/* truecost soak: a long run at a target load, summarised per window, its
 * outages, restarts and drift judged against thresholds. Its own options
 * are taken out first; every other one is run's, parsed by run's parser. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_opts.h"
#include "cli_read.h"
#include "cli_run.h"
#include "core/tc_number.h"
#include "measure/measure_soak.h"

/* ---- options ----------------------------------------------------------------- */

static int duration(const char *opt, const char *v, double min_s, double *out)
{
    double ms;
    if (tc_parse_duration_ms(v, &ms) < 0 || ms / 1000.0 < min_s || ms / 1000.0 > 366 * 86400.0) {
        tc_app_error("soak: %s '%s': expected a duration with its unit, at least %gs, e.g. 90s, "
                     "5m or 24h",
                     opt, v, min_s);
        return -1;
    }
    *out = ms / 1000.0;
    return 0;
}

static int take_duration(const char *v, void *ctx)
{
    return duration("--duration", v, 1, &((tc_app_soak_args *)ctx)->duration_s);
}

static int take_window(const char *v, void *ctx)
{
    return duration("--window", v, 2, &((tc_app_soak_args *)ctx)->window_s);
}

static int take_max_downtime(const char *v, void *ctx)
{
    return duration("--max-downtime", v, 0, &((tc_app_soak_args *)ctx)->max_downtime_s);
}

static int take_drift(const char *v, void *ctx)
{
    return tc_cli_double("--max-drift", v, 0, 1000, &((tc_app_soak_args *)ctx)->max_drift);
}

static int take_error_rate(const char *v, void *ctx)
{
    return tc_cli_double("--max-error-rate", v, 0, 1, &((tc_app_soak_args *)ctx)->max_error_rate);
}

static int take_resume(const char *v, void *ctx)
{
    ((tc_app_soak_args *)ctx)->resume = v;
    return 0;
}

static int take_chunks(const char *v, void *ctx)
{
    tc_soak_chunks c;
    if (tc_chunks_parse(v, &c) < 0) {
        tc_app_error("soak: --chunks '%s': expected all, sample or none", v);
        return -1;
    }
    ((tc_app_soak_args *)ctx)->chunks = v;
    return 0;
}

static int take_json(const char *v, void *ctx)
{
    (void)v;
    ((tc_app_soak_args *)ctx)->json = 1;
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
static int split_args(int argc, char **argv, tc_app_soak_args *s, char **rest, int *n_rest)
{
    return tc_cli_split("soak", argc, argv, soak_opts, s, "json", rest, n_rest);
}

static int check_args(const tc_app_soak_args *s, const run_args *a)
{
    if (a->requests_given || a->repeat > 1) {
        tc_app_error("soak: -n and --repeat belong to 'truecost run'; a soak runs for --duration");
        return -1;
    }
    if (s->window_s * 3 > s->duration_s && !s->resume) {
        tc_app_error("soak: --window %gs leaves fewer than 3 windows in --duration %gs: the "
                     "trends need at least 3; shorten --window",
                     s->window_s, s->duration_s);
        return -1;
    }
    return 0;
}

/* ---- --resume RUN alone ----------------------------------------------------- */

#define MAX_WORDS 256

/* 1 when argv holds nothing but what a resume gives itself: the URL and
 * load are then the soak's own, as it started. */
static int only_resume_options(int argc, char **argv)
{
    for (int i = 1, own; i < argc; i += own)
        if (!(own = tc_measure_soak_own_word(argv[i])))
            return 0;
    return 1;
}

/* `soak --resume RUN` with no URL or load: the soak's stored command line,
 * then argv's options. The exit status. */
static int resume_as_started(const tc_app_soak_args *s, const run_args *a, int argc, char **argv)
{
    tc_store *st;
    tc_soak_stored ss;
    char err[1024];
    int code = tc_app_open_store(a->db, TC_STORE_READ, &st);
    if (code)
        return code;
    tc_err rc = tc_measure_soak_find(st, s->resume, &ss, err, sizeof err);
    tc_store_close(st);
    if (rc != TC_OK) {
        tc_app_error("soak: --resume %s: %s", s->resume, err);
        return rc == TC_ERR_INVALID ? TC_EXIT_USAGE : TC_EXIT_RUNTIME;
    }
    static char buf[4096];
    char *words[MAX_WORDS + 8];
    int n = tc_measure_soak_words(ss.plan.command, words + 1, MAX_WORDS - 1, buf, sizeof buf, err,
                                  sizeof err);
    if (n >= 0) {
        n++;
        words[0] = argv[0];
        for (int i = 1; i < argc && n < MAX_WORDS + 7; i++)
            words[n++] = argv[i];
        words[n] = NULL;
        fprintf(stderr, "truecost: soak --resume %s: as it started: %s\n", s->resume,
                ss.plan.command);
    } else
        tc_app_error("soak: --resume %s: %s", s->resume, err);
    tc_soak_stored_free(&ss);
    return n < 0 ? TC_EXIT_USAGE : tc_cmd_soak(n, words);
}

int tc_cmd_soak(int argc, char **argv)
{
    static int as_started; /* the stored command line is being run: once */
    tc_app_soak_args s = {.duration_s = 86400,
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
    return tc_app_soak(&a, &s);
}
