#include "sweep.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* GPUs given with the sweep, else those its telemetry sampled, else 1. */
static int gpus_of(const tc_figures *f)
{
    if (f->run.gpus > 0)
        return f->run.gpus;
    int n = 0;
    for (int d = 0; d < f->e.n; d++)
        n += f->e.dev[d].dev.info.kind == TC_TELEM_GPU;
    return n > 0 ? n : 1;
}

static void throughput(const tc_figures *f, tc_sweep_point *p)
{
    const tc_run_metrics *m = &f->m;
    p->steady = m->window.has_window;
    p->arrivals_per_s = m->window.arrivals_per_s;
    p->has_rates = p->steady || m->has_duration;
    p->requests_per_s = p->steady ? m->window.requests_per_s : m->requests_per_s;
    p->output_tokens_per_s = f->cost_in.output_tokens_per_s;
    /* Total at the window's output rate, in the run's prompt/output mix. */
    p->has_total = p->has_rates && m->has_prompt_tokens && m->output_tokens > 0;
    if (p->has_total)
        p->total_tokens_per_s = p->output_tokens_per_s *
                                (double)(m->output_tokens + m->prompt_tokens) /
                                (double)m->output_tokens;
    p->gpus = gpus_of(f);
    p->tokens_per_s_per_gpu = p->output_tokens_per_s / p->gpus;
}

static void latency(const tc_run_metrics *m, tc_sweep_point *p)
{
    p->has_ttft = m->ttft_ms.n > 0;
    p->ttft_p50 = m->ttft_ms.p50;
    p->ttft_p99 = m->ttft_ms.p99;
    p->has_tpot = m->tpot_ms.n > 0;
    p->tpot_p50 = m->tpot_ms.p50;
    p->tpot_p99 = m->tpot_ms.p99;
    p->has_interactivity = p->has_tpot && m->tpot_ms.p50 > 0;
    p->interactivity = p->has_interactivity ? 1000.0 / m->tpot_ms.p50 : 0;
}

static void energy(const tc_figures *f, tc_sweep_point *p)
{
    p->has_avg_power = f->cost_in.has_power && f->e.n > 0;
    p->avg_power_w = f->cost_in.busy_power_w;
    p->has_jpt = f->e.has_total && f->e.joules_per_output_token > 0;
    p->joules_per_output_token = f->e.joules_per_output_token;
}

void tc_sweep_point_goodput(const tc_run_metrics *m, tc_sweep_point *p)
{
    p->has_goodput = m->has_slo;
    /* Over the span requests/s is read over, the window when there is one. */
    int in_window = p->steady && m->goodput.has_window;
    p->good_requests_per_s =
        in_window ? m->goodput.window_requests_per_s : m->goodput.requests_per_s;
    p->good_output_tokens_per_s =
        in_window ? m->goodput.window_output_tokens_per_s : m->goodput.output_tokens_per_s;
    p->attainment = m->goodput.attainment;
    assert(!p->has_goodput || !p->has_rates ||
           p->good_requests_per_s <= p->requests_per_s * (1 + 1e-9) + 1e-9);
}

void tc_sweep_point_of(const tc_figures *f, tc_sweep_point *out)
{
    const tc_run_metrics *m = &f->m;
    memset(out, 0, sizeof *out);
    out->run_id = f->run.id;
    out->status = f->run.status;
    out->complete = f->run.status == TC_RUN_COMPLETE;
    out->simulated = f->run.simulated || m->simulated;
    out->open_loop = f->run.rate > 0;
    out->concurrency = f->run.concurrency;
    out->rate = f->run.rate;
    throughput(f, out);
    latency(m, out);
    energy(f, out);
    tc_sweep_point_goodput(m, out);
    out->measured = m->requests.measured;
    out->failed = m->requests.failed;
    out->retried = m->requests.retried;
    out->error_rate = tc_run_metrics_error_rate(m);
}

int tc_sweep_knee(const tc_sweep_point *p, size_t n, const char **why)
{
    for (size_t i = 1; i < n; i++) {
        const tc_sweep_point *a = &p[i - 1], *b = &p[i];
        if (!a->complete || !b->complete)
            continue;
        const char *reason = NULL;
        if (a->has_goodput && b->has_goodput && b->good_requests_per_s < a->good_requests_per_s)
            reason = "goodput falls after it";
        else if (a->has_ttft && b->has_ttft && b->ttft_p99 > 2 * a->ttft_p99)
            reason = "TTFT p99 more than doubles after it";
        else if (a->has_tpot && b->has_tpot && b->tpot_p99 > 2 * a->tpot_p99)
            reason = "TPOT p99 more than doubles after it";
        if (reason) {
            if (why)
                *why = reason;
            return (int)i - 1;
        }
    }
    if (why)
        *why = NULL;
    return -1;
}

static int short_of_rate(const tc_sweep_point *p)
{
    double offered = p->arrivals_per_s > 0 ? p->arrivals_per_s : p->rate;
    return p->open_loop && p->has_rates && p->requests_per_s < TC_SWEEP_SATURATED * offered;
}

tc_sweep_stop tc_sweep_should_stop(const tc_sweep_point *p, size_t n)
{
    if (n == 0)
        return TC_SWEEP_GO;
    if (p[n - 1].error_rate > TC_SWEEP_MAX_ERROR_RATE)
        return TC_SWEEP_STOP_ERRORS;
    if (n >= 2 && short_of_rate(&p[n - 1]) && short_of_rate(&p[n - 2]))
        return TC_SWEEP_STOP_SATURATED;
    return TC_SWEEP_GO;
}

const char *tc_sweep_stop_text(tc_sweep_stop why)
{
    switch (why) {
    case TC_SWEEP_STOP_ERRORS:
        return "the last point's error rate is over 5%";
    case TC_SWEEP_STOP_SATURATED:
        return "the last two points achieved under 90% of their offered rate (saturated)";
    default:
        return NULL;
    }
}

const char *tc_sweep_offered_text(const tc_sweep_point *p, char *buf, size_t len)
{
    if (p->open_loop)
        snprintf(buf, len, "%.4g/s", p->rate);
    else
        snprintf(buf, len, "c=%d", p->concurrency);
    return buf;
}

const char *tc_sweep_incomplete_text(const tc_sweep_point *p, size_t n, char *buf, size_t len)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i].complete)
            continue;
        char o[32];
        snprintf(buf, len, "%s (run %lld, %s)", tc_sweep_offered_text(&p[i], o, sizeof o),
                 (long long)p[i].run_id, tc_status_name(p[i].status));
        return buf;
    }
    return NULL;
}

int tc_sweep_rates_between(double lo, double hi, int n, double *out)
{
    if (n < 2 || !isfinite(lo) || !isfinite(hi) || !(lo > 0) || !(hi > lo))
        return 0;
    for (int i = 0; i < n; i++)
        out[i] = lo + (hi - lo) * (double)i / (double)(n - 1);
    return n;
}
