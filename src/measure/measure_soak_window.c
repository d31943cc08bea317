/* A soak window summed up from its requests and telemetry samples. */
#include <math.h>
#include <string.h>

#include "measure_soak_internal.h"

void tc_measure_soak_acc_begin(tc_soak_acc *a, int64_t idx, double start_s, int64_t wall_ns)
{
    memset(a, 0, sizeof *a);
    a->w.idx = idx;
    a->w.start_s = start_s;
    a->w.wall_ns = wall_ns;
    a->w.rss_bytes = -1;
    for (int d = 0; d < TC_SOAK_MAX_DEVICES; d++)
        a->mem_max[d] = -1;
}

void tc_measure_soak_acc_record(tc_soak_acc *a, const tc_req_record *r)
{
    a->w.requests++;
    if (r->error != TC_REQ_OK) {
        a->w.errors++;
        if ((unsigned)r->error < TC_REQ_ERROR_COUNT)
            a->w.errors_by_kind[r->error]++;
        return;
    }
    int64_t ttft = tc_req_ttft_ns(r);
    if (ttft >= 0)
        tc_hist_add(&a->ttft, (double)ttft);
    double tpot = tc_req_tpot_ns(r);
    if (tpot >= 0)
        tc_hist_add(&a->tpot, tpot);
}

void tc_measure_soak_acc_tokens(tc_soak_acc *a, double n)
{
    a->tokens += n;
}

void tc_measure_soak_acc_sample(tc_soak_acc *a, const tc_run_sample *s)
{
    int d = s->device;
    if (d < 0 || d >= TC_SOAK_MAX_DEVICES)
        return;
    if (s->s.valid & TC_TF_POWER) {
        a->power_sum_w[d] += (double)s->s.power_mw / 1000.0;
        a->power_n[d]++;
    }
    if (s->s.valid & TC_TF_ENERGY) {
        if (!a->energy_n[d]++)
            a->energy_first[d] = s->s.energy_uj;
        a->energy_last[d] = s->s.energy_uj;
    }
    if ((s->s.valid & TC_TF_MEM_USED) && s->s.mem_used_bytes > a->mem_max[d])
        a->mem_max[d] = s->s.mem_used_bytes;
}

/* Power and energy summed over the devices that measured them; energy
 * from the counter where there is one, else mean power x span. */
static void sum_devices(tc_soak_acc *a, double span_s)
{
    tc_soak_window *w = &a->w;
    double power = 0, energy = 0;
    int any_power = 0, any_energy = 0;
    w->gpu_mem_bytes = -1;
    for (int d = 0; d < TC_SOAK_MAX_DEVICES; d++) {
        double mean = a->power_n[d] ? a->power_sum_w[d] / a->power_n[d] : NAN;
        if (a->power_n[d]) {
            power += mean;
            any_power = 1;
        }
        if (a->energy_n[d] >= 2 && a->energy_last[d] >= a->energy_first[d]) {
            energy += (double)(a->energy_last[d] - a->energy_first[d]) / 1e6;
            any_energy = 1;
        } else if (a->power_n[d]) {
            energy += mean * span_s;
            any_energy = 1;
        }
        if (a->mem_max[d] >= 0)
            w->gpu_mem_bytes = (w->gpu_mem_bytes < 0 ? 0 : w->gpu_mem_bytes) + a->mem_max[d];
    }
    w->avg_power_w = any_power ? power : NAN;
    w->energy_j = any_energy ? energy : NAN;
}

void tc_measure_soak_acc_end(tc_soak_acc *a, double span_s)
{
    tc_soak_window *w = &a->w;
    w->span_s = span_s;
    w->output_tokens = llround(a->tokens);
    w->tok_s = span_s > 0 ? a->tokens / span_s : NAN;
    w->ttft_p50_ms = tc_hist_quantile(&a->ttft, 0.50) / 1e6;
    w->ttft_p99_ms = tc_hist_quantile(&a->ttft, 0.99) / 1e6;
    w->tpot_p50_ms = tc_hist_quantile(&a->tpot, 0.50) / 1e6;
    w->tpot_p99_ms = tc_hist_quantile(&a->tpot, 0.99) / 1e6;
    sum_devices(a, span_s);
}
