/* A training run's JSON document, and `show` of a training run. */
#include <math.h>
#include <string.h>

#include "core/tc_json.h"
#include "report_train.h"

static void put(json_t *o, const char *k, json_t *v, int *failed)
{
    if (!v || json_object_set_new(o, k, v) != 0)
        *failed = 1;
}

static json_t *num(double v)
{
    return tc_json_num(isfinite(v), v);
}

static json_t *bytes(int64_t v)
{
    return v >= 0 ? json_integer(v) : json_null();
}

static json_t *done(json_t *o, int failed)
{
    if (failed) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *end_json(const tc_train_info *t)
{
    json_t *o = json_object();
    int failed = !o;
    if (failed)
        return NULL;
    put(o, "state", json_string(tc_train_end_name(t->end)), &failed);
    put(o, "exit_code", t->end == TC_TRAIN_EXITED ? json_integer(t->exit_code) : json_null(),
        &failed);
    put(o, "signal", t->signal > 0 ? json_integer(t->signal) : json_null(), &failed);
    return done(o, failed);
}

static json_t *step_ms_json(const tc_summary *s)
{
    if (s->n == 0)
        return json_null();
    json_t *o = json_object();
    int failed = !o;
    if (failed)
        return NULL;
    put(o, "n", json_integer((json_int_t)s->n), &failed);
    put(o, "mean", num(s->mean), &failed);
    put(o, "p50", num(s->p50), &failed);
    put(o, "p99", num(s->p99), &failed);
    put(o, "min", num(s->min), &failed);
    put(o, "max", num(s->max), &failed);
    return done(o, failed);
}

static json_t *summary_json(const tc_train_info *t)
{
    if (!isfinite(t->train_runtime_s))
        return json_null();
    json_t *o = json_object();
    int failed = !o;
    if (failed)
        return NULL;
    put(o, "train_runtime_s", num(t->train_runtime_s), &failed);
    put(o, "train_samples_per_s", num(t->train_samples_per_s), &failed);
    put(o, "train_steps_per_s", num(t->train_steps_per_s), &failed);
    put(o, "train_loss", num(t->train_loss), &failed);
    put(o, "total_flos", num(t->total_flos), &failed);
    return done(o, failed);
}

static json_t *warnings_json(const tc_view_train *v)
{
    json_t *a = json_array();
    for (size_t i = 0; a && i < v->n_warnings; i++) {
        const tc_train_warning *w = &v->warnings[i];
        json_t *o = json_object();
        int failed = !o;
        if (failed)
            break;
        put(o, "class", json_string(tc_train_class_name(w->cls)), &failed);
        put(o, "error", json_boolean(tc_train_class_is_error(w->cls)), &failed);
        put(o, "category", tc_json_str_or_null(w->category), &failed);
        put(o, "message", tc_json_string(w->message), &failed);
        put(o, "count", json_integer(w->count), &failed);
        put(o, "first_step", json_integer(w->first_step), &failed);
        if (failed || json_array_append_new(a, o) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

static void put_run(json_t *o, const tc_view_train *v, int *failed)
{
    const tc_train_info *t = &v->info;
    put(o, "kind", json_string("train"), failed);
    put(o, "id", json_integer(v->run.id), failed);
    put(o, "label", tc_json_str_or_null(v->run.label), failed);
    put(o, "status", json_string(tc_status_name(v->run.status)), failed);
    put(o, "simulated", json_boolean(v->run.simulated), failed);
    put(o, "command", tc_json_string(t->command), failed);
    put(o, "format", json_string(tc_train_format_name(t->format)), failed);
    put(o, "metrics_path", tc_json_str_or_null(t->metrics_path), failed);
    put(o, "end", end_json(t), failed);
    put(o, "steps", json_integer(t->steps), failed);
    put(o, "checkpoints", json_integer(t->checkpoints), failed);
    put(o, "lines", json_integer(t->lines), failed);
    put(o, "long_lines", json_integer(t->long_lines), failed);
    put(o, "binary_lines", json_integer(t->binary_lines), failed);
    put(o, "note", tc_json_str_or_null(t->note), failed);
    put(o, "trainer_summary", summary_json(t), failed);
}

static void put_figures(json_t *o, const tc_view_train *v, int *failed)
{
    const tc_training_figures *f = &v->fig;
    put(o, "warmup_records", json_integer((json_int_t)f->warmup), failed);
    put(o, "window_steps", json_integer((json_int_t)f->window_steps), failed);
    put(o, "step_ms", step_ms_json(&f->step_ms), failed);
    put(o, "step_time_cv", num(f->cv), failed);
    put(o, "bunched_steps", json_integer((json_int_t)f->bunched), failed);
    put(o, "steps_per_s", num(f->steps_per_s), failed);
    put(o, "samples_per_s", num(f->samples_per_s), failed);
    put(o, "samples_source", json_string(tc_training_source_name(f->samples_source)), failed);
    put(o, "tokens_per_s", num(f->tokens_per_s), failed);
    put(o, "tokens_source", json_string(tc_training_source_name(f->tokens_source)), failed);
    put(o, "flops_per_token", num(f->flops_per_token), failed);
    put(o, "lora_estimate", json_boolean(f->lora), failed);
    put(o, "mfu", num(f->mfu), failed);
    put(o, "mfu_card", tc_json_str_or_null(v->card), failed);
    put(o, "peak_tflops", num(f->peak_tflops), failed);
    put(o, "peak_framework_bytes", bytes(f->peak_framework_bytes), failed);
    put(o, "peak_device_mem_bytes", bytes(f->peak_device_mem_bytes), failed);
    put(o, "energy_j", num(f->energy_j), failed);
    put(o, "avg_power_w", num(f->avg_power_w), failed);
    put(o, "joules_per_step", num(f->joules_per_step), failed);
    put(o, "joules_per_1k_samples", num(f->joules_per_1k_samples), failed);
    put(o, "joules_per_million_tokens", num(f->joules_per_mtok), failed);
}

json_t *tc_report_train_json(const tc_view_train *v)
{
    json_t *o = json_object();
    int failed = !o;
    if (failed)
        return NULL;
    put_run(o, v, &failed);
    put_figures(o, v, &failed);
    put(o, "warning_lines", json_integer(v->warning_lines), &failed);
    put(o, "error_lines", json_integer(v->error_lines), &failed);
    put(o, "completed_without_error", json_boolean(tc_view_train_clean(v)), &failed);
    put(o, "warnings", warnings_json(v), &failed);
    return done(o, failed);
}

tc_err tc_report_show_train(tc_store *st, const tc_run_info *run, tc_show *s, int *found, char *err,
                            size_t errlen)
{
    *found = 0;
    if (!tc_view_is_train(run))
        return TC_OK;
    tc_view_train v;
    tc_err rc = tc_view_train_load(st, run, &v, found, err, errlen);
    if (rc != TC_OK || !*found)
        return rc;
    if (s->form == TC_SHOW_JSON)
        rc = tc_json_print(s->out, tc_report_train_json(&v), err, errlen);
    else if (s->form == TC_SHOW_TABLE && (rc = tc_report_train_text(s->out, &v)) != TC_OK)
        tc_fail(err, errlen, rc, "writing the document: %s", tc_strerror(rc));
    tc_view_train_free(&v);
    return rc;
}
