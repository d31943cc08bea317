/* truecost fit: will this model and workload fit in this card's memory?
 * Reads the model file (modelfile/), computes the terms and judges each
 * card (analysis/fit.h), and puts what a server's log reported and what a
 * stored run measured beside the prediction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fit.h"
#include "analysis/fit_log.h"
#include "views/view_fit.h"
#include "analysis/roofline_run.h"
#include "cli.h"
#include "cli_opts.h"
#include "cli_read.h"
#include "core/tc_file.h"
#include "modelfile/modelfile.h"
#include "report/report_fit.h"

#define MAX_CARDS 16

typedef struct fit_args {
    const char *model, *vram_text, *task, *kv_dtype, *dtype, *targets, *optimizer, *ckpt;
    const char *run, *log, *specs, *db;
    const char *gpu[MAX_CARDS];
    int n_gpu, json;
    double vram, utilization, overhead;
    long long gpus, ctx, concurrency, batch, seq, rank;
} fit_args;

static int take_gpu(const char *value, void *ctx)
{
    fit_args *a = ctx;
    if (!*value) {
        tc_app_error("fit: --gpu: an empty name (see 'truecost roofline --list')");
        return -1;
    }
    if (a->n_gpu == MAX_CARDS) {
        tc_app_error("fit: --gpu: at most %d cards at once", MAX_CARDS);
        return -1;
    }
    a->gpu[a->n_gpu++] = value;
    return 0;
}

/* A word option: one of `words`, else a usage error naming them. */
static int word(const char *opt, const char *value, const char *words)
{
    char list[128];
    snprintf(list, sizeof list, "|%s|", words);
    char key[64];
    snprintf(key, sizeof key, "|%s|", value);
    if (strlen(value) < 60 && strstr(list, key))
        return 0;
    tc_app_error("fit: %s: '%s' is not one of %s", opt, value, words);
    return -1;
}

static int parse_args(int argc, char **argv, fit_args *a)
{
    memset(a, 0, sizeof *a);
    a->vram = a->utilization = a->overhead = -1;
    const tc_cli_opt opts[] = {
        TC_OPT_C("gpu", 0, take_gpu, 1),
        TC_OPT_S("gpu-specs", 0, &a->specs),
        TC_OPT_D("vram", 0, &a->vram, 0.001, 1e6),
        TC_OPT_I("gpus", 0, &a->gpus, 1, 1024),
        TC_OPT_S("task", 0, &a->task),
        TC_OPT_I("ctx", 0, &a->ctx, 1, INT64_C(1) << 34),
        TC_OPT_I("concurrency", 0, &a->concurrency, 1, 1000000),
        TC_OPT_S("kv-dtype", 0, &a->kv_dtype),
        TC_OPT_S("dtype", 0, &a->dtype),
        TC_OPT_I("batch", 0, &a->batch, 1, 1000000),
        TC_OPT_I("seq", 0, &a->seq, 1, 1 << 24),
        TC_OPT_I("lora-rank", 0, &a->rank, 1, 65536),
        TC_OPT_S("lora-targets", 0, &a->targets),
        TC_OPT_S("optimizer", 0, &a->optimizer),
        TC_OPT_S("checkpointing", 0, &a->ckpt),
        TC_OPT_D("utilization", 0, &a->utilization, 0.01, 1),
        TC_OPT_D("overhead", 0, &a->overhead, 0, 1e4),
        TC_OPT_S("run", 0, &a->run),
        TC_OPT_S("server-log", 0, &a->log),
        TC_OPT_DB(&a->db),
        TC_OPT_JSON(&a->json),
        TC_OPT_END,
    };
    if (tc_cli_parse("fit", argc, argv, opts, a, &a->model, 1, NULL) < 0)
        return -1;
    if (!a->model) {
        tc_app_error("fit: which model? give a GGUF or safetensors file, a "
                     "model.safetensors.index.json, a config.json or a folder holding one");
        return -1;
    }
    return 0;
}

/* The words of the options into o; -1 after a usage error. */
static int words_into(const fit_args *a, tc_fit_options *o)
{
    if (a->task &&
        (word("--task", a->task, "serve|lora|qlora|full") || tc_fit_task_parse(a->task, &o->task)))
        return -1;
    if (a->kv_dtype && word("--kv-dtype", a->kv_dtype, "f16|bf16|q8_0|q4_0|fp8"))
        return -1;
    if (a->kv_dtype) {
        snprintf(o->kv_dtype, sizeof o->kv_dtype, "%s", a->kv_dtype);
        o->kv_bytes = tc_fit_kv_dtype_bytes(a->kv_dtype);
    }
    if (a->dtype && word("--dtype", a->dtype, "f32|f16|bf16|int8|int4|nf4"))
        return -1;
    if (a->dtype)
        snprintf(o->dtype, sizeof o->dtype, "%s", a->dtype);
    if (a->optimizer && (word("--optimizer", a->optimizer, "adamw|adamw-8bit|adamw-bf16|sgd") ||
                         tc_fit_optimizer_parse(a->optimizer, &o->optimizer)))
        return -1;
    if (a->ckpt && (word("--checkpointing", a->ckpt, "none|selective|full") ||
                    tc_fit_ckpt_parse(a->ckpt, &o->checkpointing)))
        return -1;
    if (a->targets && tc_fit_lora_targets_parse(a->targets, &o->lora_targets)) {
        tc_app_error("fit: --lora-targets: '%s' is not a list of q,k,v,o,gate,up,down (or "
                     "q_proj, ..., all-linear)",
                     a->targets);
        return -1;
    }
    return 0;
}

/* Options that the task does not read are refused, not ignored. */
static int task_fits_options(const fit_args *a, const tc_fit_options *o)
{
    int serve = o->task == TC_FIT_SERVE, lora = o->task == TC_FIT_LORA || o->task == TC_FIT_QLORA;
    const char *bad = serve && a->batch          ? "--batch"
                      : serve && a->seq          ? "--seq"
                      : serve && a->optimizer    ? "--optimizer"
                      : serve && a->ckpt         ? "--checkpointing"
                      : !lora && a->rank         ? "--lora-rank"
                      : !lora && a->targets      ? "--lora-targets"
                      : !serve && a->ctx         ? "--ctx"
                      : !serve && a->concurrency ? "--concurrency"
                      : !serve && a->kv_dtype    ? "--kv-dtype"
                      : !serve && a->log         ? "--server-log"
                                                 : NULL;
    if (bad)
        tc_app_error("fit: %s does not apply to --task %s", bad, tc_fit_task_name(o->task));
    if (!bad && o->task == TC_FIT_QLORA && a->dtype) {
        tc_app_error("fit: --dtype does not apply to --task qlora (its base is NF4)");
        return -1;
    }
    return bad ? -1 : 0;
}

static int options(const fit_args *a, tc_fit_options *o)
{
    tc_fit_options_default(o);
    if (words_into(a, o) || task_fits_options(a, o))
        return -1;
    o->ctx = a->ctx;
    o->concurrency = a->concurrency ? a->concurrency : 1;
    o->batch = a->batch ? a->batch : o->batch;
    o->seq = a->seq ? a->seq : o->seq;
    o->lora_rank = a->rank ? a->rank : o->lora_rank;
    o->gpus = a->gpus ? a->gpus : 1;
    if (a->utilization > 0)
        o->utilization = a->utilization;
    if (a->overhead >= 0) {
        o->overhead_given = 1;
        o->overhead_bytes = a->overhead * TC_FIT_GIB;
    }
    return 0;
}

/* Prints err and maps the error to an exit status: a file, run or store
 * that cannot be had is 2, bad content 1. */
static int failed(tc_err rc, const char *err)
{
    tc_app_error("fit: %s", err);
    return rc == TC_ERR_IO || rc == TC_ERR_NOMEM || rc == TC_ERR_NOTFOUND || rc == TC_ERR_BUSY
               ? TC_EXIT_RUNTIME
               : TC_EXIT_USAGE;
}

static int load_log(const char *path, tc_fit_log *log)
{
    char err[1024], *text = NULL;
    size_t len = 0;
    tc_err rc = tc_read_file(path, TC_FIT_LOG_MAX, "a server log (give the part of the load)",
                             &text, &len, err, sizeof err);
    if (rc == TC_OK)
        rc = tc_fit_log_parse(path, text, len, log, err, sizeof err);
    free(text);
    return rc == TC_OK ? 0 : failed(rc, err);
}

/* The cards of --gpu (from the spec table) and --vram, judged. */
static int judge_cards(const fit_args *a, const tc_model_shape *m, const tc_fit_options *o,
                       const tc_fit_terms *t, tc_fit_card *cards, int *n)
{
    tc_roofline_table tab = {0};
    char err[1024];
    tc_err rc = a->n_gpu ? tc_roofline_table_load(&tab, a->specs, err, sizeof err) : TC_OK;
    int code = rc == TC_OK ? 0 : failed(rc, err);
    for (int i = 0; i < a->n_gpu && !code; i++) {
        const tc_gpu_spec *s = tc_roofline_lookup(&tab, a->gpu[i]);
        const char *near = s ? NULL : tc_roofline_closest(&tab, a->gpu[i]);
        if (!s)
            tc_app_error("fit: GPU '%s' is not in the table%s%s%s (see 'truecost roofline "
                         "--list'; --gpu-specs FILE adds rows, --vram GIB needs none)",
                         a->gpu[i], near ? "; did you mean '" : "", near ? near : "",
                         near ? "'?" : "");
        else if (tc_fit_card_from_spec(s, &cards[*n]) != 0)
            tc_app_error("fit: GPU '%s' has no memory figure in the table: give --vram GIB",
                         s->name);
        else
            tc_fit_judge(m, o, t, &cards[(*n)++]);
        code = s && *n == i + 1 ? 0 : TC_EXIT_USAGE;
    }
    if (!code && a->vram > 0) {
        tc_fit_card_vram(a->vram, &cards[*n]);
        tc_fit_judge(m, o, t, &cards[(*n)++]);
    }
    tc_roofline_table_free(&tab);
    return code;
}

static int load_run(const fit_args *a, tc_fit_measured *run)
{
    tc_store *st;
    char err[1024];
    int code = tc_app_open_store(a->db, TC_STORE_READ, &st);
    if (code)
        return code;
    tc_err rc = tc_view_fit_measured(st, a->run, run, err, sizeof err);
    tc_store_close(st);
    return rc == TC_OK ? 0 : failed(rc, err);
}

/* Options read only beside another. */
static int pairs_given(const fit_args *a)
{
    if (a->specs && !a->n_gpu)
        tc_app_error("fit: --gpu-specs is read with --gpu NAME");
    else if (a->db && !a->run)
        tc_app_error("fit: --db is read with --run RUN");
    else
        return 0;
    return -1;
}

/* Everything after the options: the model, its terms, the cards, the log
 * and the run, then the document. */
static int fit(const fit_args *a, tc_fit_options *o)
{
    static tc_model_shape m;
    static tc_fit_log log;
    static tc_fit_measured run;
    tc_fit_terms t;
    tc_fit_card cards[MAX_CARDS + 1];
    int n = 0, code;
    char err[1024];
    tc_err rc = tc_modelfile_read(a->model, &m, err, sizeof err);
    if (rc != TC_OK)
        return failed(rc, err);
    if (a->log && (code = load_log(a->log, &log)) != 0)
        return code;
    if (a->log)
        o->engine = log.engine == TC_FIT_LOG_VLLM ? TC_FIT_ENGINE_VLLM : TC_FIT_ENGINE_LLAMACPP;
    tc_fit_resolve(o, &m, a->log != NULL);
    if ((rc = tc_fit_compute(&m, o, &t, err, sizeof err)) != TC_OK) {
        tc_app_error("fit: %s: %s", a->model, err);
        return TC_EXIT_USAGE;
    }
    if ((code = judge_cards(a, &m, o, &t, cards, &n)) != 0 ||
        (a->run && (code = load_run(a, &run)) != 0))
        return code;
    tc_fit_report r = {.model_path = a->model,
                       .model = &m,
                       .opts = o,
                       .terms = &t,
                       .cards = cards,
                       .n_cards = n,
                       .log_path = a->log,
                       .log = a->log ? &log : NULL,
                       .run = a->run ? &run : NULL};
    if (a->json)
        return tc_app_emit_json("fit", tc_report_fit_json(&r));
    return tc_app_check(tc_report_fit_text(stdout, &r), "fit: cannot write the output");
}

int tc_cmd_fit(int argc, char **argv)
{
    fit_args a;
    tc_fit_options o;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("fit");
    if (options(&a, &o) < 0 || pairs_given(&a) < 0)
        return tc_cli_usage_hint("fit");
    return fit(&a, &o);
}
