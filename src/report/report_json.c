#include "report_json.h"
#include "views/view_train.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_json.h"
#include "core/tc_time.h"
#include "report/report_table.h"

/* Builders record a failed allocation in *failed instead of checking every
 * call: json_object_set_new() already frees the value on failure and
 * refuses a NULL one, so the document is simply dropped at the end. */
static void put(json_t *obj, const char *key, json_t *v, int *failed)
{
    if (!obj || json_object_set_new(obj, key, v) != 0)
        *failed = 1;
}

static json_t *created_json(int64_t wall_ns)
{
    char buf[40];
    if (wall_ns <= 0)
        return json_null();
    return tc_json_str_or_null(tc_rfc3339_ns(wall_ns, buf, sizeof buf));
}

/* An object built with put(): itself, or NULL (freed) when a part failed. */
static json_t *finish(json_t *o, int failed)
{
    if (failed) {
        json_decref(o);
        return NULL;
    }
    return o;
}

static json_t *summary_json(const tc_summary *s)
{
    int failed = 0, ok = s->n > 0;
    json_t *o = json_object();
    put(o, "mean", tc_json_num(ok, s->mean), &failed);
    put(o, "stddev", tc_json_num(ok, s->stddev), &failed);
    put(o, "min", tc_json_num(ok, s->min), &failed);
    put(o, "p50", tc_json_num(ok, s->p50), &failed);
    put(o, "p90", tc_json_num(ok, s->p90), &failed);
    put(o, "p95", tc_json_num(ok, s->p95), &failed);
    put(o, "p99", tc_json_num(ok, s->p99), &failed);
    put(o, "max", tc_json_num(ok, s->max), &failed);
    return finish(o, failed);
}

/* An open loop's shape; a closed loop has none (its concurrency says it). */
static json_t *load_json(const tc_run_info *run)
{
    int failed = 0;
    json_t *o = json_object();
    put(o, "arrival", json_string(tc_arrival_name(run->arrival)), &failed);
    put(o, "rate", json_real(run->rate), &failed);
    put(o, "burstiness",
        run->arrival == TC_ARRIVAL_GAMMA ? json_real(run->burstiness) : json_null(), &failed);
    put(o, "seed", json_integer((json_int_t)run->seed), &failed); /* --seed: 0 to INT64_MAX */
    put(o, "max_concurrency",
        run->max_concurrency > 0 ? json_integer(run->max_concurrency) : json_null(), &failed);
    return finish(o, failed);
}

static json_t *run_json(const tc_run_info *run)
{
    int failed = 0;
    json_t *o = json_object();
    put(o, "id", json_integer(run->id), &failed);
    put(o, "label", tc_json_str_or_null(run->label), &failed);
    put(o, "status", tc_json_string(tc_status_name(run->status)), &failed);
    put(o, "created", created_json(run->created_wall_ns), &failed);
    put(o, "endpoint", tc_json_string(run->endpoint), &failed);
    put(o, "api", json_string(tc_api_name(run->api)), &failed);
    put(o, "model", tc_json_string(run->model), &failed);
    put(o, "simulated", json_boolean(run->simulated), &failed);
    put(o, "concurrency", json_integer(run->concurrency), &failed);
    put(o, "server_version", tc_json_str_or_null(run->server_version), &failed);
    if (run->rate > 0)
        put(o, "load", load_json(run), &failed);
    return finish(o, failed);
}

static json_t *requests_json(const tc_run_counts *c)
{
    return json_pack("{sIsIsIsIsI}", "measured", (json_int_t)c->measured, "completed",
                     (json_int_t)c->completed, "failed", (json_int_t)c->failed, "warmup",
                     (json_int_t)c->warmup, "retried_stale_connection", (json_int_t)c->retried);
}

static json_t *metrics_json(const tc_run_metrics *m)
{
    int failed = 0;
    json_t *o = json_object();
    put(o, "ttft_ms", summary_json(&m->ttft_ms), &failed);
    put(o, "itl_ms", summary_json(&m->itl_ms), &failed);
    put(o, "tpot_ms", summary_json(&m->tpot_ms), &failed);
    put(o, "e2e_ms", summary_json(&m->e2e_ms), &failed);
    if (m->open_loop)
        put(o, "schedule_lag_ms", summary_json(&m->schedule_lag_ms), &failed);
    return finish(o, failed);
}

static json_t *throughput_json(const tc_run_metrics *m)
{
    int failed = 0, ok = m->has_duration;
    json_t *o = json_object();
    put(o, "requests_per_s", tc_json_num(ok, m->requests_per_s), &failed);
    put(o, "output_tokens_per_s", tc_json_num(ok, m->output_tokens_per_s), &failed);
    put(o, "total_tokens_per_s", tc_json_num(ok && m->has_prompt_tokens, m->total_tokens_per_s),
        &failed);
    return finish(o, failed);
}

static json_t *tokens_json(const tc_run_metrics *m)
{
    int failed = 0;
    const char *src = tc_run_metrics_token_source(m);
    const char *psrc = tc_run_metrics_prompt_source(m);
    json_t *o = json_object();
    put(o, "output", json_integer(m->output_tokens), &failed);
    /* null, not a partial sum, when a request's server gave no count. */
    put(o, "prompt", m->has_prompt_tokens ? json_integer(m->prompt_tokens) : json_null(), &failed);
    put(o, "source", src ? json_string(src) : json_null(), &failed);
    put(o, "prompt_source", psrc ? json_string(psrc) : json_null(), &failed);
    put(o, "prompt_missing", json_integer(m->prompt_missing), &failed);
    return finish(o, failed);
}

static json_t *server_json(const tc_run_metrics *m)
{
    if (!m->has_server_decode)
        return json_null();
    const tc_summary *s = &m->server_decode_tps;
    int failed = 0;
    json_t *speed = json_object();
    put(speed, "mean", tc_json_num(1, s->mean), &failed);
    put(speed, "p50", tc_json_num(1, s->p50), &failed);
    json_t *o = json_object();
    put(o, "decode_tokens_per_s", speed, &failed);
    return finish(o, failed);
}

static json_t *errors_json(const tc_run_metrics *m)
{
    int failed = 0;
    json_t *o = json_object();
    for (int k = TC_REQ_OK + 1; k < TC_REQ_ERROR_COUNT; k++)
        if (m->errors[k] > 0)
            put(o, tc_req_error_name((tc_req_error)k), json_integer(m->errors[k]), &failed);
    return finish(o, failed);
}

/* The steady-state window (null when the run reached none); times are
 * seconds from the first measured send. */
static json_t *window_json(const tc_run_metrics *m)
{
    const tc_steady *w = &m->window;
    if (!w->has_window)
        return json_null();
    int failed = 0;
    json_t *o = json_object();
    put(o, "start_s", json_real((double)(w->from - m->first_send) / 1e9), &failed);
    put(o, "end_s", json_real((double)(w->to - m->first_send) / 1e9), &failed);
    put(o, "duration_s", json_real(w->seconds), &failed);
    put(o, "output_tokens", json_real(w->output_tokens), &failed);
    put(o, "requests", json_real(w->requests), &failed);
    put(o, "completed", json_integer(w->completed), &failed);
    put(o, "output_tokens_per_s", json_real(w->output_tokens_per_s), &failed);
    put(o, "requests_per_s", json_real(w->requests_per_s), &failed);
    return finish(o, failed);
}

/* Goodput under the run's SLO; null when it had none. */
static json_t *goodput_json(const tc_run_metrics *m)
{
    if (!m->has_slo)
        return json_null();
    char slo[TC_SLO_TEXT_MAX];
    const tc_goodput *g = &m->goodput;
    tc_slo_text(&m->slo, slo, sizeof slo);
    int failed = 0;
    json_t *o = json_object();
    put(o, "slo", json_string(slo), &failed);
    put(o, "good", json_integer(g->good), &failed);
    put(o, "measured", json_integer(g->measured), &failed);
    put(o, "attainment", json_real(g->attainment), &failed);
    put(o, "requests_per_s", tc_json_num(g->has_rates, g->requests_per_s), &failed);
    put(o, "output_tokens_per_s", tc_json_num(g->has_rates, g->output_tokens_per_s), &failed);
    json_t *win = g->has_window
                      ? json_pack("{s:f, s:f}", "requests_per_s", g->window_requests_per_s,
                                  "output_tokens_per_s", g->window_output_tokens_per_s)
                      : json_null();
    put(o, "window", win, &failed);
    return finish(o, failed);
}

json_t *tc_report_run_json(const tc_run_info *run, const tc_run_metrics *m)
{
    if (!run || !m)
        return NULL;
    int failed = 0;
    json_t *doc = json_object();
    /* First, so nobody reads the figures without seeing the label. */
    if (run->simulated || m->simulated) {
        put(doc, "simulated", json_true(), &failed);
        put(doc, "note", json_string(TC_REPORT_SIM_NOTE), &failed);
    }
    put(doc, "run", run_json(run), &failed);
    put(doc, "requests", requests_json(&m->requests), &failed);
    put(doc, "duration_s", tc_json_num(m->has_duration, m->duration_s), &failed);
    put(doc, "metrics", metrics_json(m), &failed);
    put(doc, "throughput", throughput_json(m), &failed);
    put(doc, "window", window_json(m), &failed);
    put(doc, "goodput", goodput_json(m), &failed);
    put(doc, "tokens", tokens_json(m), &failed);
    put(doc, "decode_tokens_per_s", summary_json(&m->decode_tps), &failed);
    put(doc, "server", server_json(m), &failed);
    put(doc, "errors", errors_json(m), &failed);
    if (m->open_loop) {
        char text[400];
        const char *w = tc_report_lag_warning(run, m, text, sizeof text);
        put(doc, "warnings", w ? json_pack("[s]", w) : json_array(), &failed);
    }
    if (failed) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

static json_t *run_row_json(const tc_run_info *run, const tc_run_metrics *m)
{
    int failed = 0;
    json_t *o = json_object();
    put(o, "id", json_integer(run->id), &failed);
    put(o, "label", tc_json_str_or_null(run->label), &failed);
    put(o, "status", tc_json_string(tc_status_name(run->status)), &failed);
    put(o, "created", created_json(run->created_wall_ns), &failed);
    put(o, "kind", json_string(tc_view_is_train(run) ? "train" : "serve"), &failed);
    put(o, "endpoint", tc_json_string(run->endpoint), &failed);
    put(o, "model", tc_json_string(run->model), &failed);
    put(o, "api", json_string(tc_api_name(run->api)), &failed);
    put(o, "simulated", json_boolean(run->simulated), &failed);
    put(o, "requests", m ? requests_json(&m->requests) : json_null(), &failed);
    put(o, "output_tokens_per_s", tc_json_num(m && m->has_duration, m ? m->output_tokens_per_s : 0),
        &failed);
    put(o, "ttft_p50_ms", tc_json_num(m && m->ttft_ms.n > 0, m ? m->ttft_ms.p50 : 0), &failed);
    return finish(o, failed);
}

json_t *tc_report_runs_json(const tc_run_info *runs, const tc_run_metrics *const *m, size_t n)
{
    if (!runs && n > 0)
        return NULL;
    json_t *arr = json_array();
    if (!arr)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (json_array_append_new(arr, run_row_json(&runs[i], m ? m[i] : NULL)) != 0) {
            json_decref(arr);
            return NULL;
        }
    }
    return arr;
}
