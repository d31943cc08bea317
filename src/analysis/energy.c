#include "energy.h"

#include <string.h>

const char *tc_energy_method_name(tc_energy_method m)
{
    switch (m) {
    case TC_ENERGY_COUNTER:
        return "counter";
    case TC_ENERGY_INTEGRATED:
        return "integrated power";
    case TC_ENERGY_NONE:
        break;
    }
    return "not available";
}

/* The part of segment [ta, tb] inside [from, to]: 0 when none. */
static int clip(int64_t ta, int64_t tb, int64_t from, int64_t to, int64_t *lo, int64_t *hi)
{
    *lo = ta > from ? ta : from;
    *hi = tb < to ? tb : to;
    return tb > ta && *hi > *lo;
}

/* The counter's increase over [from, to], interpolated linearly between
 * the samples around each end, so the energy covers the same window as
 * the tokens it is divided by. A counter that goes down (a driver reload)
 * contributes nothing for that segment. */
static int counter_delta(const tc_telem_sample *s, size_t n, int64_t from, int64_t to,
                         double *joules, double *secs)
{
    const tc_telem_sample *prev = NULL;
    double j = 0, t = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(s[i].valid & TC_TF_ENERGY))
            continue;
        int64_t lo, hi;
        if (prev && s[i].energy_uj >= prev->energy_uj &&
            clip(prev->mono_ns, s[i].mono_ns, from, to, &lo, &hi)) {
            double share = (double)(hi - lo) / (double)(s[i].mono_ns - prev->mono_ns);
            j += (double)(s[i].energy_uj - prev->energy_uj) / 1e6 * share;
            t += (double)(hi - lo) / 1e9;
        }
        prev = &s[i];
    }
    if (t <= 0)
        return 0;
    *joules = j;
    *secs = t;
    return 1;
}

/* Power integrated over [from, to]: trapezoids between consecutive samples
 * that have power, cut at the window's ends by linear interpolation. */
static int integrate(const tc_telem_sample *s, size_t n, int64_t from, int64_t to, double *joules,
                     double *secs)
{
    const tc_telem_sample *prev = NULL;
    double j = 0, t = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(s[i].valid & TC_TF_POWER))
            continue;
        int64_t lo, hi;
        if (prev && clip(prev->mono_ns, s[i].mono_ns, from, to, &lo, &hi)) {
            double span = (double)(s[i].mono_ns - prev->mono_ns);
            double slope = (double)(s[i].power_mw - prev->power_mw) / span;
            double p_lo = (double)prev->power_mw + slope * (double)(lo - prev->mono_ns);
            double p_hi = (double)prev->power_mw + slope * (double)(hi - prev->mono_ns);
            j += (p_lo + p_hi) / 2000.0 * (double)(hi - lo) / 1e9;
            t += (double)(hi - lo) / 1e9;
        }
        prev = &s[i];
    }
    if (t <= 0)
        return 0;
    *joules = j;
    *secs = t;
    return 1;
}

static void other_fields(const tc_telem_sample *s, size_t n, int64_t from, int64_t to,
                         tc_energy_summary *o)
{
    double power_sum = 0, util_sum = 0;
    size_t power_n = 0, util_n = 0;
    for (size_t i = 0; i < n; i++) {
        const tc_telem_sample *x = &s[i];
        if (x->mono_ns < from || x->mono_ns > to)
            continue;
        o->samples++;
        if (x->valid & TC_TF_POWER) {
            double w = (double)x->power_mw / 1000.0;
            power_sum += w;
            if (!power_n++ || w > o->peak_power_w)
                o->peak_power_w = w;
        }
        if (x->valid & TC_TF_MEM_USED) {
            if (!o->has_mem || x->mem_used_bytes > o->peak_mem_bytes)
                o->peak_mem_bytes = x->mem_used_bytes;
            o->has_mem = 1;
        }
        if (x->valid & TC_TF_UTIL_GPU) {
            util_sum += x->util_pct;
            util_n++;
        }
        if (x->valid & TC_TF_TEMP) {
            double c = x->temp_mc / 1000.0;
            if (!o->has_temp || c > o->max_temp_c)
                o->max_temp_c = c;
            o->has_temp = 1;
        }
    }
    o->has_power = power_n > 0;
    if (power_n)
        o->avg_power_w = power_sum / (double)power_n;
    o->has_util = util_n > 0;
    if (util_n)
        o->mean_util_pct = util_sum / (double)util_n;
}

void tc_energy_summarise(const tc_telem_sample *s, size_t n, int64_t from_ns, int64_t to_ns,
                         tc_energy_summary *out)
{
    memset(out, 0, sizeof *out);
    other_fields(s, n, from_ns, to_ns, out);
    /* A counter that stands still over a measured window is not a device
     * drawing 0 W: a powered device's counter always moves. */
    if (counter_delta(s, n, from_ns, to_ns, &out->energy_j, &out->seconds)) {
        if (out->energy_j > 0)
            out->method = TC_ENERGY_COUNTER;
        else
            out->counter_frozen = 1;
    }
    if (out->method == TC_ENERGY_NONE &&
        integrate(s, n, from_ns, to_ns, &out->energy_j, &out->seconds))
        out->method = TC_ENERGY_INTEGRATED;
    if (out->method == TC_ENERGY_NONE)
        out->energy_j = out->seconds = 0;
    if (out->method != TC_ENERGY_NONE && to_ns > from_ns)
        out->coverage = out->seconds / ((double)(to_ns - from_ns) / 1e9);
    if (out->method != TC_ENERGY_NONE && out->seconds > 0) {
        /* The energy's own average beats the mean of (possibly averaged)
         * power readings. */
        double sampled_peak = out->has_power ? out->peak_power_w : 0;
        out->avg_power_w = out->energy_j / out->seconds;
        /* Averaged readings may lag, so a little below is no disagreement. */
        out->peak_below_avg = out->has_power && out->method == TC_ENERGY_COUNTER &&
                              sampled_peak < 0.9 * out->avg_power_w;
        out->has_power = 1;
        /* The tokens are the whole window's: so must the energy be. Where
         * the samples miss part of it (the tail after the last sample, a
         * sensor lost mid-run), the covered part's average power stands for
         * the rest, and the coverage says how much that was. */
        if (out->coverage > 0 && out->coverage < 1)
            out->energy_j /= out->coverage;
    }
}

double tc_energy_joules_per_token(const tc_energy_summary *e, int64_t output_tokens)
{
    if (e->method == TC_ENERGY_NONE || output_tokens <= 0)
        return 0;
    return e->energy_j / (double)output_tokens;
}

double tc_energy_tokens_per_joule(const tc_energy_summary *e, int64_t output_tokens)
{
    if (e->method == TC_ENERGY_NONE || e->energy_j <= 0)
        return 0;
    return (double)output_tokens / e->energy_j;
}
