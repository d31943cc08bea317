/* truecost fit: will this model and workload fit in this card's memory?
 * Reads the model file (modelfile/), computes the terms and judges each
 * card (analysis/fit.h), and puts what a server's log reported and what a
 * stored run measured beside the prediction. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/fit.h"
#include "app/app_fit.h"
#include "cli.h"
#include "cli_opts.h"

static int take_gpu(const char *value, void *ctx)
{
    tc_app_fit_args *a = ctx;
    if (!*value) {
        tc_app_error("fit: --gpu: an empty name (see 'truecost roofline --list')");
        return -1;
    }
    if (a->n_gpu == TC_APP_FIT_MAX_CARDS) {
        tc_app_error("fit: --gpu: at most %d cards at once", TC_APP_FIT_MAX_CARDS);
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

static int parse_args(int argc, char **argv, tc_app_fit_args *a)
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
static int words_into(const tc_app_fit_args *a, tc_fit_options *o)
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
static int task_fits_options(const tc_app_fit_args *a, const tc_fit_options *o)
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

static int options(const tc_app_fit_args *a, tc_fit_options *o)
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

/* Options read only beside another. */
static int pairs_given(const tc_app_fit_args *a)
{
    if (a->specs && !a->n_gpu)
        tc_app_error("fit: --gpu-specs is read with --gpu NAME");
    else if (a->db && !a->run)
        tc_app_error("fit: --db is read with --run RUN");
    else
        return 0;
    return -1;
}

int tc_cmd_fit(int argc, char **argv)
{
    tc_app_fit_args a;
    tc_fit_options o;
    if (parse_args(argc, argv, &a) < 0)
        return tc_cli_usage_hint("fit");
    if (options(&a, &o) < 0 || pairs_given(&a) < 0)
        return tc_cli_usage_hint("fit");
    return tc_app_fit(&a, &o);
}
