/* A run's timeline (run_series.h). */
#include "analysis/run_series.h"

#include <math.h>
#include <string.h>

/* Adds `amount` spread evenly over [a, b] (seconds) into v, per second of
 * each bin. */
static void spread(const tc_run_series *s, double a, double b, double amount, double *v)
{
    if (!(b > a))
        b = a + 1e-9;
    int i0 = (int)floor(a / s->bin_s), i1 = (int)floor(b / s->bin_s);
    double rate = amount / (b - a);
    for (int i = i0 < 0 ? 0 : i0; i <= i1 && i < s->n; i++) {
        double lo = fmax(a, i * s->bin_s), hi = fmin(b, (i + 1) * s->bin_s);
        if (hi > lo)
            v[i] += rate * (hi - lo) / s->bin_s;
    }
}

void tc_series_cdf_begin(tc_series_cdf *c, double min_ms, double max_ms)
{
    memset(c, 0, sizeof *c);
    if (!(max_ms > 0) || !isfinite(max_ms))
        return; /* zeros only, or nothing */
    /* With zeros among them the smallest value above 0 is not known: a
     * thousandth of the largest, below which they share the first bin. */
    double lo = min_ms > 0 ? min_ms : max_ms / 1000, hi = max_ms;
    if (!(hi > lo)) /* one value: a bin just around it */
        lo = hi / 1.0001;
    c->n = TC_SERIES_CDF_BINS;
    for (int i = 0; i <= c->n; i++)
        c->edge_ms[i] = exp(log(lo) + (log(hi) - log(lo)) * i / c->n);
    c->edge_ms[c->n] = hi;
}

void tc_series_cdf_add(tc_series_cdf *c, double v_ms)
{
    c->total++;
    if (!(v_ms > 0)) {
        c->zero++;
        return;
    }
    if (!c->n)
        return;
    double lo = log(c->edge_ms[0]), span = log(c->edge_ms[c->n]) - lo;
    int i = (int)floor((log(v_ms) - lo) / span * c->n);
    c->count[i < 0 ? 0 : i >= c->n ? c->n - 1 : i]++;
}

/* The record's gaps into the ITL CDF. */
static void add_gaps(tc_run_series *s, const tc_req_record *r)
{
    if (r->error != TC_REQ_OK)
        return;
    for (size_t k = 1; k < r->n_chunks; k++)
        tc_series_cdf_add(&s->itl_cdf, (r->chunk_ns[k] - r->chunk_ns[k - 1]) / 1e6);
}

/* The ITL histogram from the CDF's fine bins: TC_SERIES_ITL_BINS
 * log-spaced from the first fine bin that holds a gap to the longest gap
 * (so no empty decades below it), the 0 ms gaps in the first. */
static void itl_histogram(tc_run_series *s)
{
    const tc_series_cdf *c = &s->itl_cdf;
    int first = 0;
    while (first < c->n && c->count[first] == 0)
        first++;
    if (first >= c->n || !(c->edge_ms[c->n] > c->edge_ms[first]) || c->total < 2)
        return;
    s->itl_n = TC_SERIES_ITL_BINS;
    double lo = log(c->edge_ms[first]), span = log(c->edge_ms[c->n]) - lo;
    for (int i = 0; i <= s->itl_n; i++)
        s->itl_edge_ms[i] = exp(lo + span * i / s->itl_n);
    s->itl_edge_ms[s->itl_n] = c->edge_ms[c->n];
    s->itl_count[0] = (double)c->zero;
    for (int k = first; k < c->n; k++) {
        double mid = (log(c->edge_ms[k]) + log(c->edge_ms[k + 1])) / 2;
        int i = (int)floor((mid - lo) / span * s->itl_n);
        s->itl_count[i < 0 ? 0 : i >= s->itl_n ? s->itl_n - 1 : i] += c->count[k];
    }
    s->itl_total = c->total;
}

void tc_run_series_add(tc_run_series *s, const tc_req_record *r)
{
    if (!s->n || r->warmup || r->end_ns <= 0)
        return;
    add_gaps(s, r);
    int64_t ttft = tc_req_ttft_ns(r); /* the figures' TTFT: from the intended send */
    if (ttft >= 0)
        tc_series_cdf_add(&s->ttft_cdf, ttft / 1e6);
    double send = (r->send_ns - s->t0) / 1e9, end = (r->end_ns - s->t0) / 1e9;
    spread(s, send, end, end - send, s->in_flight);
    if (r->error == TC_REQ_OK && r->n_chunks && r->output_tokens > 0)
        spread(s, (r->chunk_ns[0] - s->t0) / 1e9, end, (double)r->output_tokens, s->tokens_per_s);
}

void tc_run_series_samples(tc_run_series *s, const tc_run_sample *smp, size_t n)
{
    int64_t t0 = s->t0;
    if (!s->n)
        return;
    double sum[TC_SERIES_BINS][TC_SERIES_MAX_DEVICES];
    int cnt[TC_SERIES_BINS][TC_SERIES_MAX_DEVICES];
    memset(sum, 0, sizeof sum);
    memset(cnt, 0, sizeof cnt);
    for (size_t k = 0; k < n; k++) {
        const tc_run_sample *x = &smp[k];
        if (!(x->s.valid & TC_TF_POWER) || x->device < 0 || x->device >= TC_SERIES_MAX_DEVICES)
            continue;
        int i = (int)floor((x->s.mono_ns - t0) / 1e9 / s->bin_s);
        if (i < 0 || i >= s->n)
            continue;
        sum[i][x->device] += x->s.power_mw / 1000.0;
        cnt[i][x->device]++;
        s->has_avg_power = 1;
    }
    for (int i = 0; i < s->n; i++) {
        double w = 0;
        int any = 0;
        for (int d = 0; d < TC_SERIES_MAX_DEVICES; d++)
            if (cnt[i][d]) {
                w += sum[i][d] / cnt[i][d];
                any = 1;
            }
        s->avg_power_w[i] = any ? w : NAN;
    }
}

int tc_run_series_begin(tc_run_series *out, const tc_run_metrics *m)
{
    memset(out, 0, sizeof *out);
    if (!m->has_send || !m->has_end || m->last_end <= m->first_send)
        return 0;
    int64_t t0 = m->first_send;
    out->t0 = t0;
    out->n = TC_SERIES_BINS;
    out->bin_s = (m->last_end - t0) / 1e9 / TC_SERIES_BINS;
    for (int i = 0; i < out->n; i++)
        out->t_s[i] = (i + 0.5) * out->bin_s;
    if (m->window.has_window) {
        out->has_window = 1;
        out->window_from_s = (m->window.from - t0) / 1e9;
        out->window_to_s = (m->window.to - t0) / 1e9;
    }
    const tc_summary *itl = &m->itl_ms;
    tc_series_cdf_begin(&out->ttft_cdf, m->ttft_ms.min, m->ttft_ms.max);
    tc_series_cdf_begin(&out->itl_cdf, itl->min, itl->max);
    return 1;
}

void tc_run_series_end(tc_run_series *s)
{
    itl_histogram(s);
}
