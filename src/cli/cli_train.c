/* truecost train: run a trainer's command, measure it, store it, print
 * its document. */
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_opts.h"
#include "cli_read.h"
#include "measure/measure_train.h"
#include "modelfile/modelfile.h"
#include "report/report_train.h"
#include "telemetry/telem_set.h"

typedef struct train_args {
    const char *label, *format, *metrics, *step_regex, *checkpoint_regex, *model, *gpu, *db;
    const char *telemetry, *token_env;
    const char *urls[TC_TELEM_MAX_URLS];
    int n_urls, telemetry_named, json, quiet;
    double samples_per_step, tokens_per_step, params, trainable, grace_s;
    long long warmup, sample_ms, telemetry_ms;
    tc_telem_config telem;
} train_args;

static int take_telemetry(const char *val, void *ctx)
{
    train_args *a = ctx;
    if (strncmp(val, "http://", 7) != 0 && strncmp(val, "https://", 8) != 0) {
        a->telemetry = val;
        a->telemetry_named = 1;
        return 0;
    }
    if (a->n_urls >= TC_TELEM_MAX_URLS) {
        tc_app_error("train: --telemetry: at most %d URLs", TC_TELEM_MAX_URLS);
        return -1;
    }
    a->urls[a->n_urls++] = val;
    return 0;
}

static int check_args(train_args *a, tc_measure_train_config *cfg)
{
    if (a->format && tc_train_format_parse(a->format, &cfg->read.format) < 0) {
        tc_app_error("train: --format '%s': expected auto, hf, torchtune, lightning, jsonl or "
                     "regex",
                     a->format);
        return -1;
    }
    if (cfg->read.format == TC_TRAIN_REGEX && !a->step_regex) {
        tc_app_error("train: --format regex needs --step-regex RE, e.g. --step-regex 'it "
                     "(?<step>[0-9]+) loss=(?<loss>[0-9.]+)'");
        return -1;
    }
    if (a->step_regex && a->format && cfg->read.format != TC_TRAIN_REGEX) {
        tc_app_error("train: --step-regex goes with --format regex (or no --format)");
        return -1;
    }
    tc_trainer *probe = NULL; /* a regex that cannot work is a usage error, said now */
    char err[512];
    cfg->read.step_regex = a->step_regex;
    cfg->read.checkpoint_regex = a->checkpoint_regex;
    if (tc_trainer_new(&cfg->read, &probe, err, sizeof err) != TC_OK) {
        tc_app_error("train: %s", err);
        return -1;
    }
    tc_trainer_free(probe);
    if (a->trainable > 0 && !(a->params > 0) && !a->model) {
        tc_app_error("train: --trainable-params needs --params or --model (the total)");
        return -1;
    }
    if (a->params > 0 && a->model) {
        tc_app_error("train: give --params or --model, not both");
        return -1;
    }
    if (a->n_urls > 0 && !a->telemetry_named)
        a->telemetry = "none";
    if (a->token_env && !getenv(a->token_env)) {
        tc_app_error("train: --telemetry-token-env %s: the variable is not set", a->token_env);
        return -1;
    }
    return 0;
}

/* The total parameters from a model file, as `truecost fit` reads it. */
static int model_params(const char *path, double *params)
{
    tc_model_shape m;
    char err[512];
    if (tc_modelfile_read(path, &m, err, sizeof err) != TC_OK) {
        tc_app_error("train: --model %s", err);
        return -1;
    }
    *params = (double)m.params;
    return 0;
}

static int parse(int argc, char **argv, train_args *a, tc_measure_train_config *cfg)
{
    *a = (train_args){
        .telemetry = "auto", .sample_ms = 100, .telemetry_ms = 1000, .warmup = -1, .grace_s = 10};
    const tc_cli_opt opts[] = {
        TC_OPT_S("label", 0, &a->label),
        TC_OPT_S("format", 0, &a->format),
        TC_OPT_S("metrics", 0, &a->metrics),
        TC_OPT_S("step-regex", 0, &a->step_regex),
        TC_OPT_S("checkpoint-regex", 0, &a->checkpoint_regex),
        TC_OPT_D("samples-per-step", 0, &a->samples_per_step, 1e-9, 1e12),
        TC_OPT_D("tokens-per-step", 0, &a->tokens_per_step, 1e-9, 1e15),
        TC_OPT_I("warmup-steps", 0, &a->warmup, 0, 100000000),
        TC_OPT_D("params", 0, &a->params, 1, 1e15),
        TC_OPT_D("trainable-params", 0, &a->trainable, 1, 1e15),
        TC_OPT_S("model", 0, &a->model),
        TC_OPT_S("gpu", 0, &a->gpu),
        TC_OPT_D("grace", 0, &a->grace_s, 0.1, 3600),
        TC_OPT_F("quiet", 'q', &a->quiet),
        TC_OPT_C("telemetry", 0, take_telemetry, 1),
        TC_OPT_I("telemetry-interval", 0, &a->telemetry_ms, 100, 60000),
        TC_OPT_S("telemetry-token-env", 0, &a->token_env),
        TC_OPT_I("sample-ms", 0, &a->sample_ms, 10, 60000),
        TC_OPT_TELEM_SOURCES(&a->telem),
        TC_OPT_DB(&a->db),
        TC_OPT_JSON(&a->json),
        TC_OPT_END,
    };
    if (tc_cli_parse("train", argc, argv, opts, a, NULL, 0,
                     " (the trainer's command goes after --)") < 0 ||
        check_args(a, cfg) < 0)
        return -1;
    if (a->model && model_params(a->model, &a->params) < 0)
        return -1;
    return 0;
}

static void fill_config(const train_args *a, tc_measure_train_config *cfg)
{
    cfg->label = a->label;
    cfg->metrics = a->metrics;
    cfg->read.step_regex = a->step_regex;
    cfg->read.checkpoint_regex = a->checkpoint_regex;
    tc_train_info_init(&cfg->plan);
    cfg->plan.samples_per_step = a->samples_per_step;
    cfg->plan.tokens_per_step = a->tokens_per_step;
    cfg->plan.warmup_steps = a->warmup;
    cfg->plan.params = a->params;
    cfg->plan.trainable_params = a->trainable;
    snprintf(cfg->plan.gpu, sizeof cfg->plan.gpu, "%s", a->gpu ? a->gpu : "");
    cfg->command = tc_app_command_line();
    cfg->telemetry = a->telemetry;
    cfg->telem = a->telem;
    cfg->sample_ms = (int)a->sample_ms;
    cfg->remote_urls = a->urls;
    cfg->n_remote_urls = a->n_urls;
    cfg->remote_ms = (int)a->telemetry_ms;
    cfg->remote_token = a->token_env ? getenv(a->token_env) : NULL;
    cfg->grace_s = a->grace_s;
}

static volatile sig_atomic_t hurry;

typedef struct echo_ctx {
    int json, quiet;
} echo_ctx;

/* The trainer's output as it comes: its stdout on ours (on stderr with
 * --json, so stdout holds the document alone), its stderr on ours. */
static void echo(void *vctx, int fd, const char *buf, size_t len)
{
    echo_ctx *e = vctx;
    if (e->quiet)
        return;
    int to = fd == 1 && !e->json ? STDOUT_FILENO : STDERR_FILENO;
    while (len > 0) {
        ssize_t n = write(to, buf, len);
        if (n <= 0)
            return;
        buf += n;
        len -= (size_t)n;
    }
}

static void notice(void *vctx, const char *text)
{
    (void)vctx;
    tc_app_error("train: %s", text);
}

/* The sim's own trainer is labelled SIMULATED wherever shown. */
static int is_sim(char *const *cmd)
{
    const char *base = strrchr(cmd[0], '/');
    base = base ? base + 1 : cmd[0];
    return strcmp(base, "truecost") == 0 && cmd[1] && strcmp(cmd[1], "sim") == 0 && cmd[2] &&
           strcmp(cmd[2], "train") == 0;
}

/* The exit status for how the run ended (train's help lists them). */
static int exit_status(const tc_measure_train_outcome *o)
{
    const tc_train_info *t = &o->info;
    switch (t->end) {
    case TC_TRAIN_NOT_STARTED:
        return TC_EXIT_RUNTIME;
    case TC_TRAIN_INTERRUPTED:
    case TC_TRAIN_KILLED:
        return tc_app_signal_exit();
    case TC_TRAIN_EXITED:
        return t->exit_code == 0 && t->steps > 0 ? TC_EXIT_OK : TC_EXIT_CHECK;
    default:
        return TC_EXIT_CHECK;
    }
}

static int report(tc_store *st, const tc_measure_train_outcome *o, int json)
{
    tc_show s = {.out = stdout, .form = json ? TC_SHOW_JSON : TC_SHOW_TABLE};
    int found = 0;
    char err[512];
    if (!json)
        fputc('\n', stdout);
    tc_err rc = tc_report_show_train(st, &o->run, &s, &found, err, sizeof err);
    if (rc != TC_OK) {
        tc_app_error("train: %s", err);
        return TC_EXIT_RUNTIME;
    }
    return TC_EXIT_OK;
}

/* What the end means, said on stderr. */
static void say_end(const tc_measure_train_outcome *o)
{
    const tc_train_info *t = &o->info;
    if (t->end == TC_TRAIN_NOT_STARTED)
        tc_app_error("train: %s (run %lld stored as failed)", t->note, (long long)o->run.id);
    else if (o->err[0])
        tc_app_error("train: %s", o->err);
    if (t->end == TC_TRAIN_EXITED && t->exit_code != 0)
        tc_app_error("train: the trainer exited with status %d after %lld steps (run %lld, kept "
                     "with every step)",
                     t->exit_code, (long long)t->steps, (long long)o->run.id);
    else if (t->end == TC_TRAIN_SIGNALED)
        tc_app_error("train: the trainer was killed by signal %d (%s) after %lld steps (run %lld, "
                     "kept with every step)",
                     t->signal, strsignal(t->signal), (long long)t->steps, (long long)o->run.id);
    else if (t->end == TC_TRAIN_INTERRUPTED || t->end == TC_TRAIN_KILLED)
        tc_app_error("train: interrupted after %lld steps; run %lld kept as interrupted%s",
                     (long long)t->steps, (long long)o->run.id,
                     o->escalated ? " (the trainer was killed with SIGKILL)" : "");
}

/* argv split at "--": the options before, the command after. */
static int split(int argc, char **argv, int *n_opts, char ***cmd)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) {
            *n_opts = i;
            *cmd = argv + i + 1;
            if (i + 1 < argc)
                return 0;
            break;
        }
    tc_app_error("train: give the trainer's command after --, e.g. truecost train --label a100 "
                 "-- python3 train.py");
    return -1;
}

int tc_cmd_train(int argc, char **argv)
{
    int n_opts;
    char **cmd;
    train_args a;
    tc_measure_train_config cfg;
    memset(&cfg, 0, sizeof cfg);
    if (split(argc, argv, &n_opts, &cmd) < 0 || parse(n_opts, argv, &a, &cfg) < 0)
        return tc_cli_usage_hint("train");
    fill_config(&a, &cfg);
    cfg.argv = cmd;
    cfg.simulated = is_sim(cmd);
    tc_store *st;
    int code = tc_app_open_store(a.db, TC_STORE_WRITE, &st);
    if (code)
        return code;
    tc_app_install_stop_signals_then(&hurry);
    signal(SIGPIPE, SIG_IGN);
    echo_ctx e = {.json = a.json, .quiet = a.quiet};
    tc_measure_train_callbacks cb = {.stop = &tc_app_stop_requested,
                                     .hurry = &hurry,
                                     .output = echo,
                                     .notice = notice,
                                     .ctx = &e};
    tc_measure_train_outcome o;
    char err[1100];
    if (tc_measure_train(&cfg, st, &cb, &o, err, sizeof err) != TC_OK) {
        tc_app_error("train: %s", err);
        tc_store_close(st);
        return TC_EXIT_RUNTIME;
    }
    code = exit_status(&o);
    if (o.info.steps == 0 && code == TC_EXIT_OK)
        code = TC_EXIT_CHECK;
    int rcode = o.info.end == TC_TRAIN_NOT_STARTED ? TC_EXIT_OK : report(st, &o, a.json);
    say_end(&o);
    tc_store_close(st);
    return rcode ? rcode : code;
}
