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
#include "app/app_train.h"
#include "measure/measure_train.h"
#include "modelfile/modelfile.h"
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
    return tc_cli_take_telemetry("train", val, &a->telemetry, &a->telemetry_named, a->urls,
                                 &a->n_urls);
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
    return tc_app_train(&cfg, a.db, a.json, a.quiet);
}
