/* truecost compare's result: two sides loaded and priced, ratios B/A with
 * bootstrap intervals, the verdict on a claim, the warnings and the
 * differences between the runs. */
#include "analysis/compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/env_diff.h"
#include "analysis/figures.h"
#include "analysis/roofline_run.h"

_Static_assert(TC_COMPARE_MAX_WARNINGS >= 2 * TC_FIGURES_MAX_WARNINGS + 1,
               "room for both sides' warnings and one more");

/* ---- the figures of a row ------------------------------------------------ */

/* Throughput as it is priced: over the steady-state window when the run
 * reached one (tc_figures_cost_measured), so the row, the interval and the
 * cost all read the same figure. */
static double get_tps(const tc_figures *f, int *valid)
{
    *valid = f->cost_in.output_tokens_per_s > 0;
    return f->cost_in.output_tokens_per_s;
}

static double get_rps(const tc_figures *f, int *valid)
{
    if (f->m.window.has_window) {
        *valid = 1;
        return f->m.window.requests_per_s;
    }
    *valid = f->m.has_duration;
    return f->m.requests_per_s;
}

#define SUMMARY_GETTER(name, field, pct)                                                           \
    static double name(const tc_figures *f, int *valid)                                            \
    {                                                                                              \
        *valid = f->m.field.n > 0;                                                                 \
        return f->m.field.pct;                                                                     \
    }
SUMMARY_GETTER(get_ttft50, ttft_ms, p50)
SUMMARY_GETTER(get_ttft99, ttft_ms, p99)
SUMMARY_GETTER(get_itl50, itl_ms, p50)
SUMMARY_GETTER(get_itl99, itl_ms, p99)
SUMMARY_GETTER(get_e2e50, e2e_ms, p50)
SUMMARY_GETTER(get_e2e99, e2e_ms, p99)

double tc_compare_get_decode_p50(const tc_figures *f, int *valid)
{
    *valid = f->m.decode_tps.n > 0;
    return f->m.decode_tps.p50;
}

static double get_power(const tc_figures *f, int *valid)
{
    *valid = f->cost_in.has_power;
    return f->cost_in.busy_power_w;
}

static double get_jpt(const tc_figures *f, int *valid)
{
    *valid = f->cost_in.joules_per_output_token > 0;
    return f->cost_in.joules_per_output_token;
}

const tc_compare_row tc_compare_rows[] = {
    {"window_output_tokens_per_s", "tok/s", get_tps},
    {"requests_per_s", "req/s", get_rps},
    {"ttft_p50_ms", "ms", get_ttft50},
    {"ttft_p99_ms", "ms", get_ttft99},
    {"itl_p50_ms", "ms", get_itl50},
    {"itl_p99_ms", "ms", get_itl99},
    {"e2e_p50_ms", "ms", get_e2e50},
    {"e2e_p99_ms", "ms", get_e2e99},
    {"decode_tps_p50", "tok/s", tc_compare_get_decode_p50},
    {"avg_power_w", "W", get_power},
    {"joules_per_output_token", "J/tok", get_jpt},
};
const int tc_compare_n_rows = (int)(sizeof tc_compare_rows / sizeof tc_compare_rows[0]);

double tc_compare_platform_mean(const tc_compare_platform *s, tc_compare_getter get, int *valid)
{
    size_t n = s->set ? s->set->n : 0;
    double sum = 0;
    *valid = n > 0;
    for (size_t i = 0; i < n; i++) {
        int ok;
        sum += get(&s->f[i], &ok);
        *valid = *valid && ok;
    }
    return *valid ? sum / (double)n : NAN;
}

/* ---- one side ------------------------------------------------------------ */

static void platform_free(tc_compare_platform *s)
{
    if (s->set)
        tc_runset_figures_free(s->f, s->set->n);
    tc_runset_free(s->set);
    free(s->set);
    json_decref(s->fingerprint);
    tc_compare_side_free(&s->boot);
    memset(s, 0, sizeof *s);
}

void tc_compare_result_free(tc_compare_result *r)
{
    if (!r)
        return;
    platform_free(&r->a);
    platform_free(&r->b);
    json_decref(r->differences);
    memset(r, 0, sizeof *r);
}

/* The bootstrap values: each run of a group (of 2 or more), else the
 * requests of the one run. */
static tc_err side_sample(tc_compare_platform *s, char *err, size_t errlen)
{
    tc_err e;
    const tc_runset *set = s->set;
    if (set->n >= 2) {
        double *tps = calloc(set->n, sizeof *tps);
        if (!tps)
            return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
        for (size_t i = 0; i < set->n; i++)
            tps[i] = s->f[i].cost_in.output_tokens_per_s;
        e = tc_compare_side_runs(tps, set->n, &s->boot);
        free(tps);
    } else {
        e = tc_compare_side_requests(s->f[0].recs, s->f[0].n_recs, s->cost_in.output_tokens_per_s,
                                     &s->boot);
    }
    if (e != TC_OK)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "%s '%s' has no completed request with output tokens (or a run of the "
                       "group has none), so there is no throughput to compare",
                       s->label, set->name);
    return TC_OK;
}

tc_err tc_compare_prepare(tc_compare_result *r, char *err, size_t errlen)
{
    tc_compare_platform *sides[2] = {&r->a, &r->b};
    for (int i = 0; i < 2; i++) {
        tc_compare_platform *s = sides[i];
        tc_figures_mean_cost_inputs(s->f, s->set->n, &s->cost_in, &s->tps);
        tc_err rc = side_sample(s, err, errlen);
        if (rc != TC_OK)
            return rc;
        if (s->profile)
            s->has_cost =
                tc_cost_compute(s->profile, &s->cost_in, &s->cost) == TC_OK && s->cost.has_cost;
        for (size_t k = 0; k < s->set->n; k++)
            r->simulated |= s->set->runs[k].simulated;
    }
    int ra = r->a.boot.run_level, rb = r->b.boot.run_level;
    r->resampling = ra && rb ? "runs" : !ra && !rb ? "requests" : "mixed";
    return TC_OK;
}

/* ---- the intervals --------------------------------------------------------- */

/* Widens ci to cover [lo, hi] too. */
static void widen(tc_boot_ci *ci, double lo, double hi)
{
    ci->lo = fmin(ci->lo, lo);
    ci->hi = fmax(ci->hi, hi);
}

/* Groups on both sides: the percentile bootstrap of a few runs is too
 * narrow, so every interval becomes the wider of it and the Welch t
 * interval of R = B/A on the log scale. Each figure is a monotone function
 * of R: throughput B/A is R, A/B is 1/R, and cost B / cost A is K / R
 * (per month / tokens per month, with the tokens linear in throughput). */
static void widen_run_level(tc_compare_result *r)
{
    double lo, hi;
    r->method = "percentile bootstrap";
    if (tc_compare_welch_log_ratio(&r->a.boot, &r->b.boot, &lo, &hi) < 0)
        return;
    r->method = "the wider of the percentile bootstrap and a Welch t interval on the log ratio";
    double R = r->tps_ratio.point;
    widen(&r->tps_ratio, lo, hi);
    if (r->has_cost_ratio) {
        double k = r->cost_ratio.point * R;
        widen(&r->cost_ratio, k / hi, k / lo);
    }
    if (r->claim.given && !r->claim.on_cost)
        widen(&r->claim.ci, 1 / hi, 1 / lo);
    else if (r->claim.given)
        r->claim.ci = r->cost_ratio;
}

/* The claim, judged on the cost ratio when there is one, else on the
 * throughput A/B from the same draws. */
static tc_err claim(tc_compare_result *r, const tc_compare_opts *o, const tc_boot_sample *A,
                    const tc_boot_sample *B, const double *sa, const double *sb, char *err,
                    size_t errlen)
{
    tc_compare_claim *c = &r->claim;
    char why[200];
    c->given = 1;
    c->x = o->claim;
    c->on_cost = r->has_cost_ratio;
    c->why = !r->a.profile ? "no cost profiles given: judged on throughput; add "
                             "--profile-a/--profile-b to judge cost"
                           : "a cost is not available (no power measured and no [power] "
                             "busy_watts in its profile): judged on throughput instead";
    if (c->on_cost)
        c->ci = r->cost_ratio;
    else if (tc_boot_ci_from_draws(A, B, sa, sb, o->resamples, o->seed, tc_compare_a_over_b, NULL,
                                   0.95, &c->ci, why, sizeof why) != TC_OK)
        return tc_fail(err, errlen, TC_ERR_INVALID, "claim: %s", why);
    c->verdict = tc_claim_judge(&c->ci, c->x);
    return TC_OK;
}

/* The intervals of every figure from one set of resamples: the draws are
 * the costly part (n draws a resample), the maps are cheap. */
static tc_err intervals(tc_compare_result *r, const tc_compare_opts *o, const double *sa,
                        const double *sb, char *err, size_t errlen)
{
    tc_boot_sample A = tc_compare_side_sample(&r->a.boot), B = tc_compare_side_sample(&r->b.boot);
    char why[200];
    if (tc_boot_ci_from_draws(&A, &B, sa, sb, o->resamples, o->seed, tc_boot_ratio_b_over_a, NULL,
                              0.95, &r->tps_ratio, why, sizeof why) != TC_OK)
        return tc_fail(err, errlen, TC_ERR_INVALID, "throughput ratio: %s", why);
    tc_compare_cost_ctx cc = {r->a.profile, r->b.profile, r->a.cost_in, r->b.cost_in};
    if (r->a.has_cost && r->b.has_cost) {
        if (tc_boot_ci_from_draws(&A, &B, sa, sb, o->resamples, o->seed, tc_compare_cost_ratio, &cc,
                                  0.95, &r->cost_ratio, why, sizeof why) != TC_OK)
            return tc_fail(err, errlen, TC_ERR_INVALID, "cost ratio: %s", why);
        r->has_cost_ratio = 1;
    }
    return o->has_claim ? claim(r, o, &A, &B, sa, sb, err, errlen) : TC_OK;
}

static tc_err confidence(tc_compare_result *r, const tc_compare_opts *o, char *err, size_t errlen)
{
    tc_boot_sample A = tc_compare_side_sample(&r->a.boot), B = tc_compare_side_sample(&r->b.boot);
    double *sa = malloc((size_t)o->resamples * sizeof *sa);
    double *sb = malloc((size_t)o->resamples * sizeof *sb);
    tc_err rc;
    if (!sa || !sb) {
        rc = tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory for %d resamples", o->resamples);
    } else {
        tc_boot_draw(&A, &B, o->resamples, o->seed, sa, sb);
        rc = intervals(r, o, sa, sb, err, errlen);
    }
    if (rc == TC_OK) {
        widen_run_level(r);
        if (r->claim.given)
            r->claim.verdict = tc_claim_judge(&r->claim.ci, r->claim.x);
    }
    free(sa);
    free(sb);
    return rc;
}

/* ---- warnings and differences --------------------------------------------- */

/* 1 when both sides are the very same runs. */
static int same_runs(const tc_runset *a, const tc_runset *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->runs[i].id != b->runs[i].id)
            return 0;
    return 1;
}

/* 1 when a side's stored environment is the client's own (run
 * --telemetry URL with no agent answering /env), not the server box's. */
static void quality(tc_compare_result *r)
{
    int max = TC_COMPARE_MAX_WARNINGS;
    r->n_warnings = tc_figures_quality_warnings("A", r->a.set, r->a.f, r->warnings, max);
    r->n_warnings += tc_figures_quality_warnings("B", r->b.set, r->b.f, r->warnings + r->n_warnings,
                                                 max - r->n_warnings);
    /* priced sides only: the scope of the power each one's cost used */
    tc_power_scope sa = r->a.profile ? r->a.cost.power_scope : TC_SCOPE_NONE;
    tc_power_scope sb = r->b.profile ? r->b.cost.power_scope : TC_SCOPE_NONE;
    if (sa && sb && sa != sb && r->n_warnings < max)
        snprintf(r->warnings[r->n_warnings++], sizeof r->warnings[0],
                 "A's power is the %s, B's the %s: their electricity and J/token are not like "
                 "for like (say what a profile's watts are with [power] scope)",
                 tc_power_scope_name(sa), tc_power_scope_name(sb));
    const tc_compare_platform *side[2] = {&r->a, &r->b};
    for (int k = 0; k < 2; k++)
        if (tc_fingerprint_client_host(side[k]->fingerprint) && r->n_warnings < max)
            snprintf(r->warnings[r->n_warnings++], sizeof r->warnings[0],
                     "%s's environment is the client host's, not the server's (no agent /env "
                     "answered): its GPU and driver below are not the server box's",
                     k ? "B" : "A");
    if (same_runs(r->a.set, r->b.set) && r->n_warnings < max)
        snprintf(r->warnings[r->n_warnings++], sizeof r->warnings[0],
                 "A and B are the same runs: the ratio is 1 by construction and the interval "
                 "treats them as two samples");
}

tc_err tc_compare_finish(tc_compare_result *r, const tc_compare_opts *o, char *err, size_t errlen)
{
    tc_err rc = confidence(r, o, err, errlen);
    if (rc != TC_OK)
        return rc;
    quality(r);
    r->differences = tc_compare_differences(&r->a.set->runs[0], &r->b.set->runs[0],
                                            r->a.fingerprint, r->b.fingerprint);
    if (!r->differences)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    return TC_OK;
}

void tc_compare_bound(tc_compare_result *r, const tc_roofline_table *t)
{
    tc_compare_platform *sides[2] = {&r->a, &r->b};
    for (int i = 0; i < 2; i++) {
        tc_compare_platform *s = sides[i];
        int valid;
        double decode = tc_compare_platform_mean(s, tc_compare_get_decode_p50, &valid);
        if (tc_roofline_brief(t, tc_roofline_first_gpu(&s->f[0].e), s->fingerprint,
                              valid ? decode : 0, &s->roof) != TC_OK)
            memset(&s->roof, 0, sizeof s->roof); /* only a NULL argument fails */
    }
}
