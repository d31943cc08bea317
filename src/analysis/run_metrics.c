#include "run_metrics.h"

#include <math.h>
#include <string.h>

static double ns_to_ms(double ns)
{
    return ns / 1e6;
}

/* Client-measured decode speed: the tokens after the first over the time
 * after the first; undefined below two tokens or with no time between. */
static tc_err add_decode(tc_run_samples *s, const tc_req_record *r, int64_t ttft, int64_t e2e)
{
    if (ttft < 0 || e2e <= ttft || r->output_tokens < 2)
        return TC_OK;
    double secs = (double)(e2e - ttft) / 1e9;
    return tc_dvec_push(&s->decode_tps, (double)(r->output_tokens - 1) / secs);
}

/* Ollama first, as the seeds' script reads it; a zero duration is skipped
 * there too (the script divides only when eval_duration > 0). */
static tc_err add_server_decode(tc_run_samples *s, const tc_server_report *sr)
{
    if (sr->has_ollama && sr->eval_ns > 0)
        return tc_dvec_push(&s->server_decode_tps,
                            (double)sr->eval_count / (double)sr->eval_ns * 1e9);
    if (sr->has_timings && sr->predicted_ms > 0)
        return tc_dvec_push(&s->server_decode_tps, sr->predicted_per_second);
    return TC_OK;
}

/* Every per-request sample of one completed request. */
static tc_err add_samples(tc_run_samples *s, const tc_req_record *r, int list_only)
{
    int64_t ttft = tc_req_ttft_ns(r), e2e = tc_req_e2e_ns(r);
    double tpot = tc_req_tpot_ns(r);
    tc_err e = TC_OK;
    if (ttft >= 0)
        e = tc_dvec_push(&s->ttft_ms, ns_to_ms((double)ttft));
    if (list_only)
        return e;
    if (!e && e2e >= 0)
        e = tc_dvec_push(&s->e2e_ms, ns_to_ms((double)e2e));
    if (!e && tpot >= 0)
        e = tc_dvec_push(&s->tpot_ms, ns_to_ms(tpot));
    if (!e)
        e = add_decode(s, r, ttft, e2e);
    if (!e)
        e = add_server_decode(s, &r->server);
    return e;
}

/* Called after the request is counted: the first completed one sets it. */
static void note_source(const tc_run_metrics *m, tc_token_source src, tc_token_source *agreed,
                        int *mixed)
{
    if (m->requests.completed == 1)
        *agreed = src;
    else if (src != *agreed)
        *mixed = 1;
}

/* Duration spans every measured request, failed ones included: they held
 * the server's time too (vLLM's client times the whole benchmark). */
static void note_span(tc_run_metrics *m, const tc_req_record *r)
{
    int64_t start = tc_req_start_ns(r); /* an open loop's starts on its schedule */
    if (!m->has_send || start < m->first_send)
        m->first_send = start;
    m->has_send = 1;
    if (r->end_ns > 0 && (!m->has_end || r->end_ns > m->last_end)) {
        m->last_end = r->end_ns;
        m->has_end = 1;
    }
}

static void set_rates(tc_run_metrics *m)
{
    if (!m->has_send || !m->has_end || m->last_end <= m->first_send)
        return;
    m->has_duration = 1;
    m->duration_s = (double)(m->last_end - m->first_send) / 1e9;
    m->requests_per_s = (double)m->requests.completed / m->duration_s;
    m->output_tokens_per_s = (double)m->output_tokens / m->duration_s;
    m->total_tokens_per_s =
        m->has_prompt_tokens ? (double)(m->output_tokens + m->prompt_tokens) / m->duration_s : NAN;
}

/* An unknown prompt count is not 0: without every count there is no total. */
static void settle_prompt(tc_run_metrics *m)
{
    m->has_prompt_tokens = m->prompt_missing == 0;
    if (!m->has_prompt_tokens)
        m->prompt_tokens = 0;
}

static void summarise(tc_run_metrics *m)
{
    tc_run_samples *s = &m->samples;
    tc_summary_compute(s->ttft_ms.data, s->ttft_ms.len, &m->ttft_ms);
    tc_pooled_summary_ms(&m->itl, &m->itl_ms);
    tc_summary_compute(s->tpot_ms.data, s->tpot_ms.len, &m->tpot_ms);
    tc_summary_compute(s->e2e_ms.data, s->e2e_ms.len, &m->e2e_ms);
    tc_summary_compute(s->decode_tps.data, s->decode_tps.len, &m->decode_tps);
    tc_summary_compute(s->server_decode_tps.data, s->server_decode_tps.len, &m->server_decode_tps);
    m->has_server_decode = m->server_decode_tps.n > 0;
    tc_summary_compute(s->schedule_lag_ms.data, s->schedule_lag_ms.len, &m->schedule_lag_ms);
}

/* The inter-token gaps of a completed request, pooled over the run. */
static void add_gaps(tc_run_metrics *m, const tc_req_record *r)
{
    for (size_t i = 1; i < r->n_chunks; i++)
        tc_pooled_add(&m->itl, r->chunk_ns[i] - r->chunk_ns[i - 1]);
}

/* Counts one measured request and, when it completed, its samples. */
static tc_err add_measured(tc_run_metrics *m, const tc_req_record *r)
{
    m->requests.measured++;
    m->requests.retried += r->retried != 0;
    if (m->open_loop && !m->list_only &&
        tc_dvec_push(&m->samples.schedule_lag_ms,
                     ns_to_ms((double)(r->send_ns - tc_req_start_ns(r)))) != TC_OK)
        return TC_ERR_NOMEM;
    if (r->error != TC_REQ_OK) {
        m->requests.failed++;
        if ((unsigned)r->error < TC_REQ_ERROR_COUNT)
            m->errors[r->error]++;
        return TC_OK;
    }
    m->requests.completed++;
    m->output_tokens += r->output_tokens;
    if (r->prompt_source == TC_TOKENS_NONE)
        m->prompt_missing++;
    else
        m->prompt_tokens += r->prompt_tokens;
    note_source(m, r->output_source, &m->token_source, &m->token_source_mixed);
    note_source(m, r->prompt_source, &m->prompt_source, &m->prompt_source_mixed);
    if (!m->list_only)
        add_gaps(m, r);
    return add_samples(&m->samples, r, m->list_only);
}

/* A pass after the first: what is still being counted, of the same
 * measured requests. */
static void add_again(tc_run_metrics *m, const tc_req_record *r)
{
    if (r->warmup)
        return;
    if (m->window_more) {
        tc_steady_count(&m->window, r);
        if (m->has_slo)
            tc_goodput_add_share(&m->goodput, &m->slo, r, &m->window);
    }
    if (m->itl_more && r->error == TC_REQ_OK)
        add_gaps(m, r);
}

void tc_run_metrics_begin(tc_run_metrics *out, const tc_run_info *run, int list_only, size_t keep)
{
    memset(out, 0, sizeof *out);
    out->simulated = run ? run->simulated != 0 : 0;
    out->list_only = list_only;
    out->pass = 1;
    tc_pooled_init(&out->itl, keep);
    tc_steady_begin(&out->window, run ? run->concurrency : 1, run && run->rate > 0);
    char ignored[256];
    out->has_slo =
        run && run->slo[0] && tc_slo_parse(run->slo, &out->slo, ignored, sizeof ignored) == TC_OK;
    out->open_loop = run ? run->rate > 0 : 0;
}

tc_err tc_run_metrics_add(tc_run_metrics *m, const tc_req_record *r)
{
    if (m->pass > 1) {
        add_again(m, r);
        return TC_OK;
    }
    if (!m->has_any_send || r->send_ns < m->first_send_any)
        m->first_send_any = r->send_ns;
    m->has_any_send = 1;
    if (r->warmup) {
        m->requests.warmup++;
        return TC_OK;
    }
    note_span(m, r);
    if (!m->list_only)
        tc_steady_note(&m->window, r);
    if (m->has_slo)
        tc_goodput_add(&m->goodput, &m->slo, r);
    return add_measured(m, r);
}

/* The end of a pass of a full computation: the pooled gaps and the window
 * say whether they need the records once more. */
static tc_err end_pass(tc_run_metrics *m)
{
    if (m->pass == 1 || m->itl_more) {
        int rc = tc_pooled_end_pass(&m->itl);
        if (rc < 0)
            return TC_ERR_NOMEM;
        m->itl_more = rc == 1;
    }
    if (m->pass == 1) {
        int rc = tc_steady_settle(&m->window);
        if (rc < 0)
            return TC_ERR_NOMEM;
        m->window_more = rc == 1;
    } else if (m->window_more) {
        tc_steady_end(&m->window);
        m->window_more = 0;
    }
    return TC_OK;
}

tc_err tc_run_metrics_end(tc_run_metrics *m, int *again)
{
    *again = 0;
    if (!m->list_only) {
        tc_err e = end_pass(m);
        if (e != TC_OK)
            return e;
        if (m->itl_more || m->window_more) {
            m->pass++;
            *again = 1;
            return TC_OK;
        }
    }
    summarise(m);
    settle_prompt(m);
    set_rates(m);
    if (m->has_slo)
        tc_goodput_end(&m->goodput, m->has_duration ? m->duration_s : 0, &m->window);
    return TC_OK;
}

tc_err tc_run_metrics_compute(const tc_run_info *run, const tc_req_record *recs, size_t n,
                              tc_run_metrics *out)
{
    if (!out)
        return TC_ERR_INVALID;
    memset(out, 0, sizeof *out);
    if (!recs && n > 0)
        return TC_ERR_INVALID;
    tc_run_metrics_begin(out, run, 0, 0);
    int again = 1;
    tc_err e = TC_OK;
    while (!e && again) {
        for (size_t i = 0; !e && i < n; i++)
            e = tc_run_metrics_add(out, &recs[i]);
        if (!e)
            e = tc_run_metrics_end(out, &again);
    }
    if (e)
        tc_run_metrics_free(out);
    return e;
}

void tc_run_metrics_free(tc_run_metrics *m)
{
    if (!m)
        return;
    tc_dvec_free(&m->samples.ttft_ms);
    tc_pooled_free(&m->itl);
    tc_steady_free(&m->window);
    tc_dvec_free(&m->samples.tpot_ms);
    tc_dvec_free(&m->samples.e2e_ms);
    tc_dvec_free(&m->samples.decode_tps);
    tc_dvec_free(&m->samples.server_decode_tps);
    tc_dvec_free(&m->samples.schedule_lag_ms);
    memset(m, 0, sizeof *m);
}

int tc_run_metrics_lagging(const tc_run_metrics *m)
{
    return m->open_loop && m->schedule_lag_ms.n > 0 &&
           m->schedule_lag_ms.p99 > TC_SCHEDULE_LAG_LIMIT_MS;
}

double tc_run_metrics_error_rate(const tc_run_metrics *m)
{
    return m->requests.measured ? (double)m->requests.failed / (double)m->requests.measured : 0;
}

const char *tc_run_metrics_token_source(const tc_run_metrics *m)
{
    if (m->requests.completed == 0)
        return NULL;
    return m->token_source_mixed ? "mixed" : tc_token_source_name(m->token_source);
}

const char *tc_run_metrics_prompt_source(const tc_run_metrics *m)
{
    if (m->requests.completed == 0)
        return NULL;
    return m->prompt_source_mixed ? "mixed" : tc_token_source_name(m->prompt_source);
}

const char *tc_run_metrics_token_source_text(const tc_run_metrics *m)
{
    if (m->requests.completed == 0)
        return "unknown";
    if (m->token_source_mixed)
        return "mixed";
    switch (m->token_source) {
    case TC_TOKENS_USAGE:
        return "server usage";
    case TC_TOKENS_SERVER:
        return "server count";
    case TC_TOKENS_CHUNKS:
        return "chunk count";
    default:
        return "unknown";
    }
}
