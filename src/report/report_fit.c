/* truecost fit: the JSON document, and the formulas both documents print. */
#include "report/report_fit.h"

#include <math.h>
#include <string.h>

#include "core/tc_json.h"

/* ---- formulas ------------------------------------------------------------ */

static const char *weights_formula(const tc_fit_options *o, const tc_fit_terms *t)
{
    (void)o;
    if (strcmp(t->weights_from, "tensors") == 0)
        return "the file's tensor bytes / gpus";
    if (tc_fit_dtype_quantised(t->weights_dtype))
        return "((parameters - embeddings) x dtype bytes + embeddings x 2) / gpus";
    return "parameters x dtype bytes / gpus";
}

static const char *optimizer_formula(const tc_fit_options *o, const tc_fit_terms *t)
{
    int master = t->gradient_bytes_per_param < 4;
    switch (o->optimizer) {
    case TC_FIT_ADAMW_8BIT:
        return master ? "trainable x (4 fp32 master + 1 + 1 8-bit moments) / gpus"
                      : "trainable x (1 + 1 8-bit moments) / gpus";
    case TC_FIT_ADAMW_BF16:
        return "trainable x (2 + 2 16-bit moments, no master copy) / gpus";
    case TC_FIT_SGD:
        return master ? "trainable x (4 fp32 master + 4 momentum) / gpus"
                      : "trainable x 4 momentum / gpus";
    default:
        return master ? "trainable x (4 fp32 master + 4 + 4 fp32 moments) / gpus"
                      : "trainable x (4 + 4 fp32 moments) / gpus";
    }
}

static const char *activations_formula(const tc_fit_options *o)
{
    if (o->checkpointing == TC_FIT_CKPT_SELECTIVE)
        return "layers x 34*s*b*h + 4*s*b*vocab";
    if (o->checkpointing == TC_FIT_CKPT_FULL)
        return "layers x 2*s*b*h + s*b*h*(34 + 5*a*s/h) + 4*s*b*vocab";
    return "layers x s*b*h*(34 + 5*a*s/h) + 4*s*b*vocab";
}

const char *tc_report_fit_formula(const tc_fit_options *o, const tc_fit_terms *t, tc_fit_term_id id)
{
    switch (id) {
    case TC_FIT_WEIGHTS:
        return weights_formula(o, t);
    case TC_FIT_KV_CACHE:
        return "kv_bytes_per_token x ctx x concurrency / gpus";
    case TC_FIT_COMPUTE:
        return o->engine == TC_FIT_ENGINE_LLAMACPP
                   ? "4 x u x (vocab + 3 x ffn + 3 x hidden) + 2 x u x ctx x concurrency, "
                     "u = min(512, ctx x concurrency)"
               : o->engine == TC_FIT_ENGINE_VLLM
                   ? "8192 x (2 x ffn + 2 x hidden) x 2 + 4 x 256 x vocab x 4"
                   : "0 (in the activations)";
    case TC_FIT_OVERHEAD:
        return o->overhead_given ? "--overhead" : "the engine's default";
    case TC_FIT_ADAPTERS:
        return "trainable x 2 / gpus, trainable = rank x (d_in + d_out) x adapted matrices x "
               "layers";
    case TC_FIT_GRADIENTS:
        return "trainable x gradient bytes / gpus";
    case TC_FIT_OPTIMIZER:
        return optimizer_formula(o, t);
    case TC_FIT_ACTIVATIONS:
        return activations_formula(o);
    default:
        return "";
    }
}

const char *tc_report_fit_overall(const tc_fit_report *r)
{
    if (r->n_cards == 0)
        return NULL;
    tc_fit_verdict worst = TC_FIT_FITS;
    for (int i = 0; i < r->n_cards; i++)
        if (r->cards[i].verdict > worst)
            worst = r->cards[i].verdict;
    return tc_fit_verdict_name(worst);
}

/* ---- JSON ---------------------------------------------------------------- */

/* A count or a byte figure: an integer when whole, else every digit. */
static json_t *num(double v)
{
    if (!isfinite(v))
        return json_null();
    if (v == floor(v) && fabs(v) < 9e15)
        return json_integer((json_int_t)v);
    return json_real(v);
}

/* n, or null when it is 0 (unknown in the shape). */
static json_t *known(int64_t n)
{
    return n > 0 ? json_integer((json_int_t)n) : json_null();
}

/* -1: not applicable (null). */
static json_t *setting(int64_t n)
{
    return n >= 0 ? json_integer((json_int_t)n) : json_null();
}

static json_t *model_json(const tc_fit_report *r)
{
    const tc_model_shape *m = r->model;
    json_t *types = json_array();
    for (int i = 0; i < m->n_types; i++)
        json_array_append_new(types, json_pack("{s:o,s:I,s:I,s:I}", "type",
                                               tc_json_string(m->types[i].name), "tensors",
                                               (json_int_t)m->types[i].tensors, "elements",
                                               (json_int_t)m->types[i].elements, "bytes",
                                               (json_int_t)m->types[i].bytes));
    json_t *o = json_object();
    json_object_set_new(o, "file", tc_json_string(r->model_path));
    json_object_set_new(o, "format", json_string(tc_model_format_name(m->format)));
    json_object_set_new(o, "files", json_integer(m->files));
    json_object_set_new(o, "config", json_boolean(m->has_config));
    json_object_set_new(o, "name", tc_json_str_or_null(m->name));
    json_object_set_new(o, "architecture", tc_json_str_or_null(m->arch));
    json_object_set_new(o, "parameters", json_integer((json_int_t)m->params));
    json_object_set_new(o, "parameters_from",
                        json_string(tc_model_count_from_name(m->params_from)));
    json_object_set_new(o, "layers", known(m->layers));
    json_object_set_new(o, "hidden_size", known(m->hidden));
    json_object_set_new(o, "heads", known(m->heads));
    json_object_set_new(o, "kv_heads", known(m->kv_heads));
    json_object_set_new(o, "kv_heads_total", known(m->kv_heads_sum));
    json_object_set_new(o, "key_length", known(m->key_length));
    json_object_set_new(o, "value_length", known(m->value_length));
    json_object_set_new(o, "ffn_size", known(m->ffn));
    json_object_set_new(o, "gated_ffn", json_boolean(m->gated_ffn));
    json_object_set_new(o, "vocab_size", known(m->vocab));
    json_object_set_new(o, "context_length", known(m->context_length));
    json_object_set_new(o, "experts", json_integer(m->experts));
    json_object_set_new(o, "experts_used", json_integer(m->experts_used));
    json_object_set_new(o, "tied_embeddings",
                        m->tied_embeddings < 0 ? json_null() : json_boolean(m->tied_embeddings));
    json_object_set_new(o, "dtype", tc_json_str_or_null(m->dtype));
    json_object_set_new(o, "weight_bytes",
                        m->weight_bytes ? json_integer((json_int_t)m->weight_bytes) : json_null());
    json_object_set_new(o, "tensors", json_integer((json_int_t)m->tensors));
    json_object_set_new(o, "tensor_types", types);
    return o;
}

static json_t *workload_json(const tc_fit_report *r)
{
    const tc_fit_options *o = r->opts;
    int serve = o->task == TC_FIT_SERVE;
    char targets[64];
    json_t *w = json_object();
    json_object_set_new(w, "task", json_string(tc_fit_task_name(o->task)));
    json_object_set_new(w, "engine", json_string(tc_fit_engine_name(o->engine)));
    json_object_set_new(w, "gpus", json_integer(o->gpus));
    json_object_set_new(w, "utilization", json_real(o->utilization));
    json_object_set_new(w, "overhead_bytes", num(o->overhead_bytes));
    json_object_set_new(w, "overhead_from",
                        json_string(o->overhead_given ? "--overhead" : "default"));
    json_object_set_new(w, "dtype", o->dtype[0] ? json_string(o->dtype) : json_null());
    json_object_set_new(w, "ctx", serve ? json_integer(o->ctx) : json_null());
    json_object_set_new(w, "concurrency", serve ? json_integer(o->concurrency) : json_null());
    json_object_set_new(w, "kv_dtype", serve ? json_string(o->kv_dtype) : json_null());
    json_object_set_new(w, "kv_bytes_per_value", serve ? json_real(o->kv_bytes) : json_null());
    json_object_set_new(w, "batch", serve ? json_null() : json_integer(o->batch));
    json_object_set_new(w, "seq", serve ? json_null() : json_integer(o->seq));
    int lora = o->task == TC_FIT_LORA || o->task == TC_FIT_QLORA;
    json_object_set_new(w, "lora_rank", lora ? json_integer(o->lora_rank) : json_null());
    json_object_set_new(
        w, "lora_targets",
        lora ? json_string(tc_fit_lora_targets_text(o->lora_targets, targets, sizeof targets))
             : json_null());
    json_object_set_new(w, "optimizer",
                        serve ? json_null() : json_string(tc_fit_optimizer_name(o->optimizer)));
    json_object_set_new(w, "checkpointing",
                        serve ? json_null() : json_string(tc_fit_ckpt_name(o->checkpointing)));
    return w;
}

static json_t *terms_json(const tc_fit_report *r)
{
    json_t *a = json_array();
    for (int i = 0; i < TC_FIT_N_TERMS; i++) {
        if (!r->terms->used[i])
            continue;
        json_t *t = json_object();
        json_object_set_new(t, "name", json_string(tc_fit_term_name((tc_fit_term_id)i)));
        json_object_set_new(t, "bytes", num(r->terms->bytes[i]));
        json_object_set_new(t, "split_across_gpus", json_boolean(tc_fit_term_split(i)));
        json_object_set_new(t, "formula", json_string(tc_report_fit_formula(r->opts, r->terms, i)));
        json_array_append_new(a, t);
    }
    return a;
}

static json_t *card_json(const tc_fit_card *c)
{
    json_t *o = json_object();
    json_object_set_new(o, "name", tc_json_string(c->name));
    json_object_set_new(o, "capacity_bytes", num(c->capacity_bytes));
    json_object_set_new(o, "capacity_from", json_string(c->capacity_from));
    json_object_set_new(o, "budget_bytes", num(c->budget_bytes));
    json_object_set_new(o, "need_bytes", num(c->need_bytes));
    json_object_set_new(o, "spare_bytes", num(c->spare_bytes));
    json_object_set_new(o, "spare_share", json_real(c->spare_share));
    json_object_set_new(o, "verdict", json_string(tc_fit_verdict_name(c->verdict)));
    json_object_set_new(o, "largest",
                        json_pack("{s:o,s:o,s:o,s:o}", "concurrency", setting(c->max_concurrency),
                                  "ctx", setting(c->max_ctx), "micro_batch", setting(c->max_batch),
                                  "gpus_needed",
                                  c->min_gpus > 0 ? json_integer(c->min_gpus) : json_null()));
    return o;
}

static json_t *device_json(const tc_fit_log_device *d)
{
    return json_pack("{s:o,s:b,s:o,s:o,s:o,s:o}", "name", tc_json_string(d->name), "host", d->host,
                     "model_bytes", tc_json_num(d->model_bytes >= 0, d->model_bytes), "kv_bytes",
                     tc_json_num(d->kv_bytes >= 0, d->kv_bytes), "compute_bytes",
                     tc_json_num(d->compute_bytes >= 0, d->compute_bytes), "repack_bytes",
                     tc_json_num(d->repack_bytes >= 0, d->repack_bytes));
}

static json_t *checks_json(const tc_fit_report *r)
{
    tc_fit_check c[TC_FIT_MAX_CHECKS];
    int n = tc_fit_log_compare(r->log, r->model, r->opts, r->terms,
                               r->n_cards ? &r->cards[0] : NULL, c);
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(
            a, json_pack("{s:s,s:s,s:o,s:o,s:o,s:o}", "what", c[i].what, "unit", c[i].unit,
                         "predicted", tc_json_num(c[i].has_predicted, c[i].predicted), "reported",
                         num(c[i].reported), "difference",
                         tc_json_num(c[i].has_predicted, c[i].difference), "difference_share",
                         tc_json_num(c[i].has_predicted && c[i].reported != 0, c[i].share)));
    return a;
}

static json_t *log_json(const tc_fit_report *r)
{
    const tc_fit_log *l = r->log;
    json_t *devs = json_array();
    for (int i = 0; i < l->n_devices; i++)
        json_array_append_new(devs, device_json(&l->dev[i]));
    json_t *o = json_object();
    json_object_set_new(o, "file", tc_json_string(r->log_path));
    json_object_set_new(o, "engine", json_string(tc_fit_log_engine_name(l->engine)));
    json_object_set_new(o, "buffers", devs);
    json_object_set_new(o, "model_bytes", tc_json_num(l->has_model, l->model_bytes));
    json_object_set_new(o, "kv_bytes", tc_json_num(l->has_kv, l->kv_bytes));
    json_object_set_new(o, "compute_bytes", tc_json_num(l->has_compute, l->compute_bytes));
    json_object_set_new(o, "repack_bytes", tc_json_num(l->has_repack, l->repack_bytes));
    json_object_set_new(o, "kv_cells", l->kv_cells ? json_integer(l->kv_cells) : json_null());
    json_object_set_new(o, "weights_bytes", tc_json_num(l->has_weights, l->weights_bytes));
    json_object_set_new(o, "activation_bytes", tc_json_num(l->has_activation, l->activation_bytes));
    json_object_set_new(o, "available_kv_bytes",
                        tc_json_num(l->has_available_kv, l->available_kv_bytes));
    json_object_set_new(o, "kv_tokens",
                        l->has_kv_tokens ? json_integer(l->kv_tokens) : json_null());
    json_object_set_new(o, "max_concurrency",
                        tc_json_num(l->has_max_concurrency, l->max_concurrency));
    json_object_set_new(o, "max_concurrency_tokens",
                        l->has_max_concurrency ? json_integer(l->max_concurrency_tokens)
                                               : json_null());
    json_object_set_new(o, "compare", checks_json(r));
    return o;
}

static json_t *run_json(const tc_fit_report *r)
{
    const tc_fit_measured *m = r->run;
    json_t *devs = json_array();
    for (int i = 0; i < m->n; i++) {
        const tc_fit_measured_dev *d = &m->dev[i];
        double peak = (double)d->peak_mem_bytes;
        json_array_append_new(
            devs, json_pack("{s:o,s:b,s:o,s:o}", "name", tc_json_string(d->name), "gpu", d->gpu,
                            "peak_mem_bytes", tc_json_num(d->has_peak, peak), "difference_bytes",
                            tc_json_num(d->has_peak && d->gpu, peak - r->terms->total)));
    }
    return json_pack("{s:I,s:o,s:o,s:b,s:o,s:o}", "id", (json_int_t)m->run_id, "label",
                     tc_json_str_or_null(m->label), "model", tc_json_str_or_null(m->model),
                     "simulated", m->simulated, "predicted_bytes", num(r->terms->total), "devices",
                     devs);
}

json_t *tc_report_fit_json(const tc_fit_report *r)
{
    json_t *cards = json_array();
    for (int i = 0; i < r->n_cards; i++)
        json_array_append_new(cards, card_json(&r->cards[i]));
    const char *overall = tc_report_fit_overall(r);
    json_t *doc = json_object();
    if (!doc || !cards) {
        json_decref(doc);
        json_decref(cards);
        return NULL;
    }
    const tc_fit_terms *t = r->terms;
    json_object_set_new(doc, "model", model_json(r));
    json_object_set_new(doc, "workload", workload_json(r));
    json_object_set_new(doc, "weights_from", json_string(t->weights_from));
    json_object_set_new(doc, "weight_bytes", num(t->weight_bytes));
    json_object_set_new(doc, "kv_bytes_per_token",
                        tc_json_num(t->kv_bytes_per_token > 0, t->kv_bytes_per_token));
    json_object_set_new(doc, "trainable_parameters",
                        r->opts->task == TC_FIT_SERVE ? json_null() : num(t->trainable));
    json_object_set_new(doc, "terms", terms_json(r));
    json_object_set_new(doc, "need_bytes", num(t->total));
    json_object_set_new(doc, "cards", cards);
    json_object_set_new(doc, "verdict", overall ? json_string(overall) : json_null());
    json_object_set_new(doc, "server_log", r->log ? log_json(r) : json_null());
    json_object_set_new(doc, "run", r->run ? run_json(r) : json_null());
    return doc;
}
