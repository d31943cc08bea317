/* A training run priced, two compared (train_price.h). */
#include "train_price.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

tc_err tc_training_cost_compute(const tc_cost_profile *p, const tc_training_figures *f,
                                tc_training_cost *out)
{
    memset(out, 0, sizeof *out);
    out->per_step = out->per_1k_samples = out->per_million_tokens = NAN;
    if (!p || !f || !(f->steps_per_s > 0))
        return TC_ERR_INVALID;
    tc_cost_measured m = {.output_tokens_per_s = f->steps_per_s,
                          .has_power = isfinite(f->avg_power_w),
                          .busy_power_w = isfinite(f->avg_power_w) ? f->avg_power_w : 0,
                          .joules_per_output_token =
                              isfinite(f->joules_per_step) ? f->joules_per_step : 0,
                          .power_scope = TC_SCOPE_DEVICES,
                          .steady = 1};
    tc_err rc = tc_cost_compute(p, &m, &out->base);
    if (rc != TC_OK)
        return rc;
    out->has_cost = out->base.has_cost;
    if (!out->has_cost)
        return TC_OK;
    /* cost_per_million_tokens is per million steps here */
    out->per_step = out->base.cost_per_million_tokens / 1e6;
    if (isfinite(f->samples_per_s) && f->samples_per_s > 0)
        out->per_1k_samples = out->per_step * f->steps_per_s / f->samples_per_s * 1000;
    if (isfinite(f->tokens_per_s) && f->tokens_per_s > 0)
        out->per_million_tokens = out->per_step * f->steps_per_s / f->tokens_per_s * 1e6;
    return TC_OK;
}

const char *tc_training_cmp_name(int which)
{
    static const char *const names[TC_TRAINING_CMP_COUNT] = {
        "step_time", "samples_per_s", "tokens_per_s", "joules_per_step", "cost_per_step"};
    return which >= 0 && which < TC_TRAINING_CMP_COUNT ? names[which] : "unknown";
}

/* A figure = factor x mean step time (or factor / it): B/A of it from the
 * two resampled means. */
typedef struct scaled {
    double fa, fb;
    int inverse;
} scaled;

static double map_scaled(double sa, double sb, void *ctx)
{
    const scaled *s = ctx;
    return s->inverse ? (s->fb / sb) / (s->fa / sa) : (s->fb * sb) / (s->fa * sa);
}

/* Each figure's factor on a side; NaN when the side lacks it. */
static double factor(const tc_training_side *s, int which)
{
    const tc_training_figures *f = s->fig;
    double mean = f->step_ms.mean;
    switch (which) {
    case TC_TRAINING_CMP_STEP_TIME:
        return 1;
    case TC_TRAINING_CMP_SAMPLES:
        return f->samples_per_s * mean;
    case TC_TRAINING_CMP_TOKENS:
        return f->tokens_per_s * mean;
    case TC_TRAINING_CMP_ENERGY:
        return f->joules_per_step / mean;
    default:
        return s->cost && s->cost->has_cost ? s->cost->per_step / mean : NAN;
    }
}

tc_err tc_training_compare(const tc_training_side *a, const tc_training_side *b, int resamples,
                           uint64_t seed, tc_training_comparison *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    if (a->n < 1 || b->n < 1)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "run %s has no step time after its warm-up (fewer than two steps)",
                       a->n < 1 ? "A" : "B");
    double *ones = malloc((a->n > b->n ? a->n : b->n) * sizeof *ones);
    double *sa = malloc((size_t)resamples * sizeof *sa),
           *sb = malloc((size_t)resamples * sizeof *sb);
    tc_err rc = ones && sa && sb ? TC_OK : TC_ERR_NOMEM;
    if (rc == TC_OK) {
        for (size_t i = 0; i < (a->n > b->n ? a->n : b->n); i++)
            ones[i] = 1;
        tc_boot_sample ba = {a->step_ms, ones, a->n, 1}, bb = {b->step_ms, ones, b->n, 1};
        tc_boot_draw(&ba, &bb, resamples, seed, sa, sb);
        for (int k = 0; rc == TC_OK && k < TC_TRAINING_CMP_COUNT; k++) {
            scaled s = {factor(a, k), factor(b, k),
                        k == TC_TRAINING_CMP_SAMPLES || k == TC_TRAINING_CMP_TOKENS};
            if (!(isfinite(s.fa) && isfinite(s.fb) && s.fa > 0 && s.fb > 0))
                continue;
            rc = tc_boot_ci_from_draws(&ba, &bb, sa, sb, resamples, seed, map_scaled, &s, 0.95,
                                       &out->ci[k], err, errlen);
            out->has[k] = rc == TC_OK;
        }
    }
    free(ones);
    free(sa);
    free(sb);
    if (rc == TC_ERR_NOMEM)
        return tc_fail(err, errlen, rc, "out of memory");
    if (rc != TC_OK)
        return rc;
    out->slowdown = out->ci[TC_TRAINING_CMP_STEP_TIME].point;
    out->reading =
        out->slowdown < 1 ? "B is faster than A" : tc_training_gap_reading(out->slowdown);
    return TC_OK;
}
