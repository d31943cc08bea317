/* A training run's figures (train.h). */
#include "train.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run_energy.h"

const char *tc_training_source_name(tc_training_source s)
{
    static const char *const names[] = {"none", "counts", "trainer_rate", "trainer_summary"};
    return s >= 0 && s <= TC_TRAINING_SUMMARY ? names[s] : "none";
}

size_t tc_training_warmup(size_t n, int64_t given)
{
    size_t w;
    if (given >= 0) {
        w = (size_t)given;
    } else {
        w = (n + 9) / 10;
        if (w < 5)
            w = 5;
    }
    return w > n / 2 ? n / 2 : w;
}

/* The steps record i stands for: its number minus the last one's (1 when
 * the numbers do not go up). */
static double steps_between(const tc_train_step *s, size_t i)
{
    int64_t d = s[i].step - s[i - 1].step;
    return d >= 1 ? (double)d : 1.0;
}

tc_err tc_training_step_times(const tc_train_info *info, const tc_train_step *steps, size_t n,
                              double **out, size_t *n_out)
{
    *out = NULL;
    *n_out = 0;
    size_t w = tc_training_warmup(n, info->warmup_steps);
    if (n < w + 2)
        return TC_OK;
    double *v = malloc((n - w - 1) * sizeof *v);
    if (!v)
        return TC_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = w + 1; i < n; i++) {
        double gap_ms = (double)(steps[i].t_ns - steps[i - 1].t_ns) / 1e6;
        v[k++] = gap_ms / steps_between(steps, i);
    }
    *out = v;
    *n_out = k;
    return TC_OK;
}

/* Sum of a count over records (w, n) or, failing one, the mean of a rate. */
static void throughput(const tc_train_step *s, size_t w, size_t n, double window_s,
                       size_t count_off, size_t rate_off, tc_training_source *src, double *out)
{
    double sum = 0, rate = 0;
    size_t counted = 0, rated = 0;
    for (size_t i = w + 1; i < n; i++) {
        double c = *(const double *)((const char *)&s[i] + count_off);
        double r = *(const double *)((const char *)&s[i] + rate_off);
        if (isfinite(c))
            sum += c * steps_between(s, i), counted++;
        if (isfinite(r))
            rate += r, rated++;
    }
    *src = TC_TRAINING_NONE;
    *out = NAN;
    if (counted == n - w - 1 && window_s > 0) {
        *src = TC_TRAINING_COUNTS;
        *out = sum / window_s;
    } else if (rated > 0) {
        *src = TC_TRAINING_RATE;
        *out = rate / (double)rated;
    }
}

static void mfu(const tc_train_info *info, double peak_tflops, tc_training_figures *f)
{
    f->flops_per_token = NAN;
    f->mfu = NAN;
    f->peak_tflops = peak_tflops > 0 ? peak_tflops : NAN;
    if (!(info->params > 0))
        return;
    double trainable = info->trainable_params;
    f->lora = trainable > 0 && trainable < info->params;
    f->flops_per_token =
        f->lora ? 4 * (info->params - trainable) + 6 * trainable : 6 * info->params;
    if (isfinite(f->tokens_per_s) && peak_tflops > 0)
        f->mfu = f->flops_per_token * f->tokens_per_s / (peak_tflops * 1e12);
}

void tc_training_figures_compute(const tc_train_info *info, const tc_train_step *steps, size_t n,
                                 double peak_tflops, tc_training_figures *out)
{
    memset(out, 0, sizeof *out);
    out->records = n;
    out->warmup = tc_training_warmup(n, info->warmup_steps);
    out->cv = out->steps_per_s = NAN;
    out->samples_per_s = out->tokens_per_s = NAN;
    out->energy_j = out->avg_power_w = NAN;
    out->joules_per_step = out->joules_per_1k_samples = out->joules_per_mtok = NAN;
    out->peak_device_mem_bytes = -1;
    out->peak_framework_bytes = -1;
    for (size_t i = 0; i < n; i++)
        if (steps[i].peak_memory_bytes > out->peak_framework_bytes)
            out->peak_framework_bytes = steps[i].peak_memory_bytes;
    double *ms = NULL;
    size_t k = 0;
    if (tc_training_step_times(info, steps, n, &ms, &k) == TC_OK && k > 0) {
        size_t w = out->warmup;
        out->from_ns = steps[w].t_ns;
        out->to_ns = steps[n - 1].t_ns;
        double window_s = (double)(out->to_ns - out->from_ns) / 1e9;
        for (size_t i = w + 1; i < n; i++)
            out->window_steps += (size_t)steps_between(steps, i);
        for (size_t i = 0; i < k; i++)
            out->bunched += ms[i] < 0.05;
        tc_summary_compute(ms, k, &out->step_ms);
        out->cv = k >= 2 && out->step_ms.mean > 0 ? out->step_ms.stddev / out->step_ms.mean : NAN;
        out->steps_per_s = window_s > 0 ? (double)out->window_steps / window_s : NAN;
        throughput(steps, w, n, window_s, offsetof(tc_train_step, samples),
                   offsetof(tc_train_step, samples_per_s), &out->samples_source,
                   &out->samples_per_s);
        throughput(steps, w, n, window_s, offsetof(tc_train_step, tokens),
                   offsetof(tc_train_step, tokens_per_s), &out->tokens_source, &out->tokens_per_s);
    }
    free(ms);
    if (out->samples_source == TC_TRAINING_NONE && isfinite(info->train_samples_per_s)) {
        out->samples_source = TC_TRAINING_SUMMARY;
        out->samples_per_s = info->train_samples_per_s;
    }
    mfu(info, peak_tflops, out);
}

void tc_training_energy(tc_training_figures *f, const tc_run_device *devs, int n_devs,
                        const tc_run_sample *samples, size_t n_samples)
{
    if (n_devs <= 0 || f->to_ns <= f->from_ns)
        return;
    tc_run_window w = {
        .has_window = 1, .from = f->from_ns, .to = f->to_ns, .first_send = f->from_ns, .steady = 1};
    tc_run_energy e;
    if (tc_run_energy_compute_window(devs, n_devs, samples, n_samples, &w, 0, &e) != TC_OK)
        return;
    int64_t mem = -1;
    double power = 0;
    for (int i = 0; i < e.n; i++) {
        if (e.dev[i].load.has_mem && e.dev[i].dev.info.kind == TC_TELEM_GPU)
            mem = (mem < 0 ? 0 : mem) + e.dev[i].load.peak_mem_bytes;
        if (e.dev[i].load.has_power)
            power += e.dev[i].load.avg_power_w;
    }
    f->peak_device_mem_bytes = mem;
    if (e.has_total) {
        double span = (double)(f->to_ns - f->from_ns) / 1e9;
        f->energy_j = e.total_j;
        f->avg_power_w = span > 0 ? e.total_j / span : power;
        if (f->window_steps > 0)
            f->joules_per_step = e.total_j / (double)f->window_steps;
        if (isfinite(f->samples_per_s) && f->samples_per_s > 0)
            f->joules_per_1k_samples = 1000 * e.total_j / (f->samples_per_s * span);
        if (isfinite(f->tokens_per_s) && f->tokens_per_s > 0)
            f->joules_per_mtok = 1e6 * e.total_j / (f->tokens_per_s * span);
    }
    tc_run_energy_free(&e);
}

const char *tc_training_gap_reading(double slowdown)
{
    if (!isfinite(slowdown))
        return "not known";
    if (slowdown <= 1.2)
        return "within 20%: acceptable";
    if (slowdown <= 1.5)
        return "20-50% slower: needs tuning";
    return "over 50% slower: look for operator fallbacks first (truecost gaps, truecost kernels)";
}
