#include "run_energy.h"

#include <stdlib.h>
#include <string.h>

void tc_run_window_of_records(const tc_req_record *recs, size_t n, tc_run_window *out)
{
    int found = 0;
    memset(out, 0, sizeof *out);
    out->first_send = INT64_MAX;
    for (size_t i = 0; i < n; i++) {
        if (recs[i].send_ns < out->first_send)
            out->first_send = recs[i].send_ns;
        if (recs[i].warmup)
            continue;
        if (!found || recs[i].send_ns < out->from)
            out->from = recs[i].send_ns;
        if (!found || recs[i].end_ns > out->to)
            out->to = recs[i].end_ns;
        found = 1;
    }
    out->has_window = found && out->to > out->from;
}

void tc_run_window_of_metrics(const tc_run_metrics *m, tc_run_window *out)
{
    memset(out, 0, sizeof *out);
    out->first_send = m->has_any_send ? m->first_send_any : INT64_MAX;
    if (m->window.has_window) {
        out->from = m->window.from;
        out->to = m->window.to;
        out->has_window = out->steady = 1;
        return;
    }
    out->from = m->first_send;
    out->to = m->last_end;
    out->has_window = m->has_send && m->has_end && m->last_end > m->first_send;
}

/* Samples of device d, in time order (the store gives them by device). */
static size_t device_samples(const tc_run_sample *all, size_t n, int d, tc_telem_sample *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (all[i].device == d)
            out[k++] = all[i].s;
    return k;
}

/* Power before the first request: only from sample intervals that end by
 * then. The interval that straddles the first send is mostly load (with
 * the default --idle-s 0 it is almost all of it), and spreading its energy
 * evenly would pass load power off as idle. With one sample before the
 * load, its own power reading; with none, not available. */
static void idle_power(const tc_telem_sample *s, size_t k, int64_t first_send, tc_run_energy_dev *e)
{
    size_t before = 0;
    while (before < k && s[before].mono_ns <= first_send)
        before++;
    if (before >= 2) {
        tc_energy_summary idle;
        tc_energy_summarise(s, before, s[0].mono_ns, s[before - 1].mono_ns, &idle);
        e->has_idle = idle.has_power;
        e->idle_power_w = idle.avg_power_w;
    } else if (before == 1 && (s[0].valid & TC_TF_POWER)) {
        e->has_idle = 1;
        e->idle_power_w = (double)s[0].power_mw / 1000.0;
    }
}

tc_err tc_run_energy_compute(const tc_run_device *devs, int n_devs, const tc_run_sample *samples,
                             size_t n_samples, const tc_req_record *recs, size_t n_recs,
                             int64_t output_tokens, tc_run_energy *out)
{
    tc_run_window w;
    tc_run_window_of_records(recs, n_recs, &w);
    return tc_run_energy_compute_window(devs, n_devs, samples, n_samples, &w, output_tokens, out);
}

tc_err tc_run_energy_compute_window(const tc_run_device *devs, int n_devs,
                                    const tc_run_sample *samples, size_t n_samples,
                                    const tc_run_window *w, int64_t output_tokens,
                                    tc_run_energy *out)
{
    memset(out, 0, sizeof *out);
    out->output_tokens = output_tokens;
    out->steady = w->steady;
    if (n_devs <= 0)
        return TC_OK;
    out->dev = calloc((size_t)n_devs, sizeof *out->dev);
    tc_telem_sample *buf = malloc((n_samples ? n_samples : 1) * sizeof *buf);
    if (!out->dev || !buf) {
        free(buf);
        tc_run_energy_free(out);
        return TC_ERR_NOMEM;
    }
    out->n = n_devs;
    for (int d = 0; d < n_devs; d++) {
        tc_run_energy_dev *e = &out->dev[d];
        e->dev = devs[d];
        size_t k = device_samples(samples, n_samples, d, buf);
        if (w->has_window)
            tc_energy_summarise(buf, k, w->from, w->to, &e->load);
        idle_power(buf, k, w->first_send, e);
        e->joules_per_output_token = tc_energy_joules_per_token(&e->load, output_tokens);
        e->tokens_per_joule = tc_energy_tokens_per_joule(&e->load, output_tokens);
        if (e->load.method != TC_ENERGY_NONE) {
            out->n_with_energy++;
            out->total_j += e->load.energy_j;
        }
    }
    out->has_total = out->n_with_energy == n_devs;
    if (out->has_total && output_tokens > 0) {
        out->joules_per_output_token = out->total_j / (double)output_tokens;
        out->tokens_per_joule = out->total_j > 0 ? (double)output_tokens / out->total_j : 0;
    }
    free(buf);
    return TC_OK;
}

void tc_run_energy_free(tc_run_energy *e)
{
    if (!e)
        return;
    free(e->dev);
    e->dev = NULL;
    e->n = 0;
}
