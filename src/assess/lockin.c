/* The lock-in model (lockin.h): point estimate, Monte Carlo, sensitivity,
 * break-even and the evidence that replaces guessed ranges. */
#include "lockin.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"
#include "core/tc_rng.h"
#include "core/tc_number.h"

static const char *const item_names[TC_LOCKIN_N_ITEMS] = {"environment", "operators", "performance",
                                                          "stability", "learning"};

const char *tc_lockin_item_name(tc_lockin_item item)
{
    return (int)item >= 0 && item < TC_LOCKIN_N_ITEMS ? item_names[item] : "?";
}

const char *tc_lockin_answer_name(tc_lockin_answer a)
{
    switch (a) {
    case TC_LOCKIN_YES:
        return "yes";
    case TC_LOCKIN_NO:
        return "no";
    case TC_LOCKIN_UNKNOWN:
        return "unknown";
    default:
        return "not given";
    }
}

double tc_lockin_range_point(const tc_lockin_range *r)
{
    return r->has_mode ? r->mode : (r->low + r->high) / 2;
}

double tc_lockin_hardware_saving(const tc_lockin *a)
{
    return a->units.value * (a->price_incumbent.value - a->price_alternative.value);
}

/* ---- evidence ---------------------------------------------------------- */

tc_lockin_perf_class tc_lockin_perf_classify(double ratio)
{
    if (!(ratio > 0) || !isfinite(ratio))
        return TC_LOCKIN_PERF_NONE;
    /* Compared as ratios, not as 1 - ratio, so that 0.8 and 0.5 fall on
     * the side the seed names without rounding error. */
    if (ratio >= 0.8)
        return TC_LOCKIN_PERF_OPTIONAL;
    if (ratio >= 0.5)
        return TC_LOCKIN_PERF_NEEDED;
    return TC_LOCKIN_PERF_SUSPECT;
}

const char *tc_lockin_perf_class_name(tc_lockin_perf_class c)
{
    switch (c) {
    case TC_LOCKIN_PERF_OPTIONAL:
        return "tuning optional";
    case TC_LOCKIN_PERF_NEEDED:
        return "tuning needed";
    case TC_LOCKIN_PERF_SUSPECT:
        return "suspect operator fallback before blaming the hardware";
    default:
        return "not measured";
    }
}

static void set_source(tc_lockin_range *r, const char *source, const char *fallback)
{
    snprintf(r->source, sizeof r->source, "%s", source && source[0] ? source : fallback);
    r->line = 0;
}

static tc_err set_effort(tc_lockin *a, tc_lockin_item item, double low, double mode, double high,
                         const char *source, char *err, size_t errlen)
{
    const char *name = tc_lockin_item_name(item);
    if (!a)
        return tc_fail(err, errlen, TC_ERR_INVALID, "no assessment");
    if (!isfinite(low) || !isfinite(mode) || !isfinite(high) || low < 0 || high > 1e6)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "%s: %g..%g..%g is not a range of person-days (0 to 1e6)", name, low, mode,
                       high);
    if (low > mode || mode > high)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "%s: %g..%g..%g is not in order; expected LOW <= MODE <= HIGH", name, low,
                       mode, high);
    tc_lockin_range *r = &a->effort[item];
    *r = (tc_lockin_range){.valid = 1, .low = low, .mode = mode, .high = high, .has_mode = 1};
    set_source(r, source, "override");
    return TC_OK;
}

tc_err tc_lockin_set_operators(tc_lockin *a, double low, double mode, double high,
                               const char *source, char *err, size_t errlen)
{
    return set_effort(a, TC_LOCKIN_OPERATORS, low, mode, high, source, err, errlen);
}

tc_err tc_lockin_set_performance(tc_lockin *a, double low, double mode, double high,
                                 const char *source, char *err, size_t errlen)
{
    return set_effort(a, TC_LOCKIN_PERFORMANCE, low, mode, high, source, err, errlen);
}

tc_err tc_lockin_apply_perf_ratio(tc_lockin *a, double ratio, const char *source,
                                  tc_lockin_perf_class *out, char *err, size_t errlen)
{
    tc_lockin_perf_class c = tc_lockin_perf_classify(ratio);
    if (!a || c == TC_LOCKIN_PERF_NONE)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "performance ratio %g: expected alternative / incumbent throughput > 0",
                       ratio);
    if (c == TC_LOCKIN_PERF_OPTIONAL) {
        /* Within 20% the seed calls tuning optional: only the least effort
         * of the range is still spent (checking that it is good enough). */
        tc_lockin_range *r = &a->effort[TC_LOCKIN_PERFORMANCE];
        r->mode = r->high = r->low;
        r->has_mode = 1;
        set_source(r, source, "measured performance");
    }
    if (out)
        *out = c;
    return TC_OK;
}

static tc_err apply_overrides(tc_lockin *a, const tc_lockin_overrides *o, tc_lockin_result *r,
                              char *err, size_t errlen)
{
    tc_err rc = TC_OK;
    if (o->has_operators)
        rc = tc_lockin_set_operators(a, o->op_low, o->op_mode, o->op_high, o->op_source, err,
                                     errlen);
    /* The tuning list first: a gap within 20% then keeps only its low end. */
    if (rc == TC_OK && o->has_perf_days)
        rc = tc_lockin_set_performance(a, o->perf_low, o->perf_mode, o->perf_high,
                                       o->perf_days_source, err, errlen);
    if (rc == TC_OK && o->has_perf_ratio) {
        rc = tc_lockin_apply_perf_ratio(a, o->perf_ratio, o->perf_source, &r->perf_class, err,
                                        errlen);
        r->perf_ratio = o->perf_ratio;
    }
    if (rc == TC_OK && o->has_risk) {
        if (!(o->risk_probability >= 0 && o->risk_probability <= 1))
            return tc_fail(err, errlen, TC_ERR_INVALID,
                           "the measured risk probability must be 0..1, not %g",
                           o->risk_probability);
        a->probability.value = o->risk_probability;
    }
    if (rc == TC_OK && o->has_running_saving) {
        if (!isfinite(o->running_saving_per_month))
            return tc_fail(err, errlen, TC_ERR_INVALID, "running saving per month: not a number");
        r->has_running_saving = 1;
        r->running_saving_per_month = o->running_saving_per_month;
    }
    return rc;
}

/* ---- point estimate and sensitivity ------------------------------------ */

void tc_lockin_point(const tc_lockin *a, tc_lockin_terms *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < TC_LOCKIN_N_ITEMS; i++) {
        out->item_days[i] = tc_lockin_range_point(&a->effort[i]);
        out->effort_days += out->item_days[i];
    }
    out->effort_cost = out->effort_days * a->day_cost.value;
    out->risk_cost = a->probability.value * a->incident_cost.value;
    out->talent_cost = tc_lockin_range_point(&a->premium) * a->hire_cost.value;
    out->total = out->effort_cost + out->risk_cost + out->talent_cost;
}

/* The total with one range at `low`/`high` instead of its point value;
 * `rate` turns the range's unit into money. */
static tc_lockin_swing swing_of(const char *input, const tc_lockin_range *r, double rate,
                                double total)
{
    double point = tc_lockin_range_point(r);
    tc_lockin_swing s = {input, total + (r->low - point) * rate, total + (r->high - point) * rate,
                         0};
    s.swing = fabs(s.high_total - s.low_total);
    return s;
}

int tc_lockin_sensitivity(const tc_lockin *a, tc_lockin_swing *out)
{
    tc_lockin_terms t;
    tc_lockin_point(a, &t);
    int n = 0;
    for (int i = 0; i < TC_LOCKIN_N_ITEMS; i++)
        if (a->effort[i].high > a->effort[i].low)
            out[n++] = swing_of(item_names[i], &a->effort[i], a->day_cost.value, t.total);
    double p = a->probability.value;
    if (p > 0 && p < 1 && a->incident_cost.value > 0) {
        double base = t.total - t.risk_cost; /* no incident */
        out[n++] =
            (tc_lockin_swing){"risk", base, base + a->incident_cost.value, a->incident_cost.value};
    }
    if (a->premium.high > a->premium.low)
        out[n++] = swing_of("talent", &a->premium, a->hire_cost.value, t.total);
    /* Insertion sort: stable, so ties keep the formula's order. */
    for (int i = 1; i < n; i++) {
        tc_lockin_swing s = out[i];
        int j = i;
        for (; j > 0 && out[j - 1].swing < s.swing; j--)
            out[j] = out[j - 1];
        out[j] = s;
    }
    return n;
}

/* ---- Monte Carlo --------------------------------------------------------- */

/* Inverse CDF of the triangular distribution low..point..high at u in
 * [0, 1). */
static double triangular(const tc_lockin_range *r, double u)
{
    double a = r->low, b = r->high, c = tc_lockin_range_point(r);
    if (!(b > a))
        return a;
    if (u < (c - a) / (b - a))
        return a + sqrt(u * (b - a) * (c - a));
    return b - sqrt((1 - u) * (b - a) * (b - c));
}

/* One lock-in cost: every input drawn, in a fixed order (lockin.h). */
static double draw(const tc_lockin *a, tc_rng *rng)
{
    double days = 0;
    for (int i = 0; i < TC_LOCKIN_N_ITEMS; i++)
        days += triangular(&a->effort[i], tc_rng_unit(rng));
    double premium = triangular(&a->premium, tc_rng_unit(rng));
    double incident = tc_rng_unit(rng) < a->probability.value ? a->incident_cost.value : 0;
    return days * a->day_cost.value + incident + premium * a->hire_cost.value;
}

/* How many of sorted[0..n) are < x (or <= x when `inclusive`). */
static size_t count_below(const double *sorted, size_t n, double x, int inclusive)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] < x || (inclusive && sorted[mid] == x))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static tc_lockin_quantiles quantiles(const double *sorted, size_t n)
{
    return (tc_lockin_quantiles){tc_stats_percentile(sorted, n, 10),
                                 tc_stats_percentile(sorted, n, 50),
                                 tc_stats_percentile(sorted, n, 90)};
}

/* Break-even and net benefit are monotone in the lock-in cost, so their
 * percentiles come from the cost's percentiles (a decreasing function
 * swaps P10 and P90). */
static void weigh(tc_lockin_result *r)
{
    double s = r->running_saving_per_month, months = r->inputs.months.value;
    double c = r->hardware_saving + s * months;
    r->net_benefit = (tc_lockin_quantiles){c - r->total.p90, c - r->total.p50, c - r->total.p10};
    r->probability_net_positive =
        (double)count_below(r->sorted_totals, r->samples, c, 0) / (double)r->samples;
    if (!r->has_running_saving)
        return;
    if (!(s > 0)) {
        r->break_even_never = 1;
        return;
    }
    const tc_lockin_quantiles *t = &r->total;
    r->break_even_months = (tc_lockin_quantiles){t->p10 / s, t->p50 / s, t->p90 / s};
    double hw = r->hardware_saving;
    r->break_even_months_after_hardware = (tc_lockin_quantiles){
        fmax(0, t->p10 - hw) / s, fmax(0, t->p50 - hw) / s, fmax(0, t->p90 - hw) / s};
}

static tc_err simulate(tc_lockin_result *r, size_t n, uint64_t seed)
{
    double *x = malloc(n * sizeof *x);
    if (!x)
        return TC_ERR_NOMEM;
    tc_rng rng;
    tc_rng_seed(&rng, seed);
    for (size_t i = 0; i < n; i++)
        x[i] = draw(&r->inputs, &rng);
    tc_summary sum;
    tc_summary_compute(x, n, &sum); /* sorts x */
    r->sorted_totals = x;
    r->samples = n;
    r->seed = seed;
    r->mean = sum.mean;
    r->min = sum.min;
    r->max = sum.max;
    r->total = quantiles(x, n);
    size_t within = count_below(x, n, r->hardware_saving, 1);
    r->probability_exceeds_saving = (double)(n - within) / (double)n;
    return TC_OK;
}

tc_err tc_lockin_evaluate(const tc_lockin *a, const tc_lockin_overrides *o, size_t samples,
                          uint64_t seed, tc_lockin_result *out, char *err, size_t errlen)
{
    if (!out)
        return tc_fail(err, errlen, TC_ERR_INVALID, "no result");
    memset(out, 0, sizeof *out);
    if (!a)
        return tc_fail(err, errlen, TC_ERR_INVALID, "no assessment");
    if (samples < 1 || samples > TC_LOCKIN_MAX_SAMPLES)
        return tc_fail(err, errlen, TC_ERR_INVALID, "samples: %zu; expected 1 to %d", samples,
                       TC_LOCKIN_MAX_SAMPLES);
    out->inputs = *a;
    tc_err rc = o ? apply_overrides(&out->inputs, o, out, err, errlen) : TC_OK;
    if (rc == TC_OK) {
        tc_lockin_point(&out->inputs, &out->point);
        out->hardware_saving = tc_lockin_hardware_saving(&out->inputs);
        if (o && o->has_hardware_saving) {
            out->hardware_saving = o->hardware_saving;
            snprintf(out->hardware_source, sizeof out->hardware_source, "%s", o->hardware_source);
        }
        out->n_sensitivity = tc_lockin_sensitivity(&out->inputs, out->sensitivity);
        rc = simulate(out, samples, seed);
        if (rc == TC_ERR_NOMEM)
            tc_fail(err, errlen, rc, "out of memory for %zu samples", samples);
    }
    if (rc != TC_OK) {
        tc_lockin_result_free(out);
        return rc;
    }
    weigh(out);
    return TC_OK;
}

void tc_lockin_result_free(tc_lockin_result *r)
{
    if (!r)
        return;
    free(r->sorted_totals);
    memset(r, 0, sizeof *r);
}

/* "more likely than not" and the like, for a probability that the cost
 * exceeds the saving. */
static const char *odds_of(double p)
{
    if (p >= 0.9)
        return "the ecosystem costs more than the cards save";
    if (p >= 0.5)
        return "more likely than not, the ecosystem costs more than the cards save";
    if (p > 0.1)
        return "the saving probably covers the move, but not safely";
    return "the saving covers the move in at least 9 of 10 cases";
}

void tc_lockin_reading(const tc_lockin_result *r, char *buf, size_t len)
{
    if (!buf || !len)
        return;
    const char *cur = r->inputs.currency;
    char hw[32], p10[32], p50[32], p90[32]; /* 4 significant digits, as every figure read */
    tc_number_sig(hw, sizeof hw, r->hardware_saving, 4);
    tc_number_sig(p10, sizeof p10, r->total.p10, 4);
    tc_number_sig(p50, sizeof p50, r->total.p50, 4);
    tc_number_sig(p90, sizeof p90, r->total.p90, 4);
    int n;
    if (r->hardware_saving <= 0)
        n = snprintf(buf, len,
                     "The alternative saves nothing on hardware (%s %s), so the lock-in cost "
                     "(P50 %s %s) is not repaid by the cards",
                     hw, cur, p50, cur);
    else
        n = snprintf(buf, len,
                     "The lock-in cost (P50 %s %s, P10-P90 %s-%s) exceeds the hardware "
                     "saving (%s %s) in %.0f%% of samples: %s",
                     p50, cur, p10, p90, hw, cur, 100 * r->probability_exceeds_saving,
                     odds_of(r->probability_exceeds_saving));
    if (n < 0 || (size_t)n >= len || !r->has_running_saving)
        return;
    snprintf(buf + n, len - (size_t)n,
             "; with the running saving the move pays off within %.0f "
             "months in %.0f%% of samples",
             r->inputs.months.value, 100 * r->probability_net_positive);
}
