#include "frontier_cost.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bootstrap.h"
#include "analysis/stats.h"
#include "core/tc_rng.h"

/* ---- loading ------------------------------------------------------------- */

void tc_frontier_side_free(tc_frontier_side *s)
{
    if (!s)
        return;
    for (size_t i = 0; s->reqs && i < s->n; i++)
        free(s->reqs[i]);
    free(s->reqs);
    free(s->n_reqs);
    free(s->pts);
    free(s->good_share);
    free(s->attainment);
    tc_runset_free(&s->set);
    memset(s, 0, sizeof *s);
}

/* ---- one reading ------------------------------------------------------- */

/* The figures of a side's points: x interactivity, y tokens/s per GPU, w
 * watts (NAN unknown). */
typedef struct side_figs {
    double x[TC_FRONTIER_MAX_POINTS], y[TC_FRONTIER_MAX_POINTS], w[TC_FRONTIER_MAX_POINTS];
} side_figs;

static void nominal(const tc_frontier_side *s, side_figs *fg)
{
    for (size_t i = 0; i < s->n; i++) {
        const tc_sweep_point *p = &s->pts[i];
        fg->x[i] = p->has_interactivity ? p->interactivity : NAN;
        fg->y[i] = p->tokens_per_s_per_gpu;
        fg->w[i] = p->has_avg_power ? p->avg_power_w : NAN;
    }
}

static void price(const tc_frontier_side *s, double tps_gpu, double watts, int gpus,
                  tc_frontier_value *v)
{
    tc_cost_measured m = {.output_tokens_per_s = tps_gpu * gpus,
                          .has_power = !isnan(watts),
                          .busy_power_w = isnan(watts) ? 0 : watts,
                          .joules_per_output_token = isnan(watts) ? 0 : watts / (tps_gpu * gpus),
                          .power_scope = isnan(watts) ? TC_SCOPE_NONE : TC_SCOPE_BOARD,
                          .steady = 1};
    tc_cost_result r;
    v->has_cost = s->profile && tc_cost_compute(s->profile, &m, &r) == TC_OK && r.has_cost;
    v->cost_per_million_tokens = v->has_cost ? r.cost_per_million_tokens : 0;
    v->has_energy = !isnan(watts) && watts > 0;
    if (v->has_energy) {
        double pue = s->profile && s->profile->pue.valid ? s->profile->pue.value : 1;
        v->avg_power_w = watts;
        v->joules_per_output_token = watts / (tps_gpu * gpus);
        v->tokens_per_mw = tps_gpu * gpus / (watts * pue) * 1e6;
    }
}

/* The fleet one side needs for `demand` output tokens a month. */
static void fleet(const tc_frontier_side *s, double demand, int gpus, tc_frontier_value *v)
{
    const tc_cost_profile *p = s->profile;
    if (!(demand > 0) || !p || !(v->tokens_per_s_per_gpu > 0))
        return;
    double u = p->utilization.valid ? p->utilization.value : 1;
    double per_gpu = v->tokens_per_s_per_gpu * u * TC_COST_MONTH_S;
    v->has_fleet = 1;
    v->gpus_needed = (long long)ceil(demand / per_gpu);
    v->boxes_needed = (v->gpus_needed + gpus - 1) / (gpus > 0 ? gpus : 1);
    v->has_capex = !p->is_cloud && p->hw_price.valid;
    v->capex = v->has_capex ? (double)v->boxes_needed * p->hw_price.value : 0;
}

/* The frontier of a side's point figures into fr; how many are on it. */
static size_t build(const tc_frontier_side *s, const side_figs *fg, tc_frontier_pt *fr)
{
    return tc_frontier_build(fg->x, fg->y, s->n, fr);
}

/* The side read at target x on its frontier fr (n_fr points, built from
 * fg). */
static void read_at(const tc_frontier_side *s, const side_figs *fg, const tc_frontier_pt *fr,
                    size_t n_fr, double x, double demand, tc_frontier_value *v)
{
    memset(v, 0, sizeof *v);
    size_t lo;
    double t, y;
    v->reading = tc_frontier_at(fr, n_fr, x, &y, &lo, &t);
    if (v->reading == TC_AT_NOT_REACHED)
        return;
    v->tokens_per_s_per_gpu = y;
    /* Power between the two points as a straight line: it moves slowly. */
    double w0 = fg->w[fr[lo].src];
    double w = v->reading == TC_AT_MEASURED && t > 0 && lo + 1 < n_fr
                   ? w0 + (fg->w[fr[lo + 1].src] - w0) * t
                   : w0;
    const tc_sweep_point *p = &s->pts[fr[lo].src];
    price(s, y, w, p->gpus, v);
    /* Good tokens: the share of the point's output from good requests,
     * straight-line between the two points, as the power. */
    if (s->has_slo && v->has_cost) {
        double g0 = s->good_share[fr[lo].src];
        double g = v->reading == TC_AT_MEASURED && t > 0 && lo + 1 < n_fr
                       ? g0 + (s->good_share[fr[lo + 1].src] - g0) * t
                       : g0;
        v->has_good_cost = g > 0;
        v->good_share = g;
        v->cost_per_million_good_tokens = g > 0 ? v->cost_per_million_tokens / g : 0;
    }
    /* Total tokens in the point's own prompt/output mix. */
    v->has_total_tps = p->has_total && p->total_tokens_per_s > 0 && p->output_tokens_per_s > 0;
    if (v->has_total_tps) {
        v->total_per_output = p->total_tokens_per_s / p->output_tokens_per_s;
        v->total_tokens_per_s_per_gpu = y * v->total_per_output;
    }
    v->has_total_cost = v->has_cost && v->has_total_tps;
    if (v->has_total_cost)
        v->cost_per_million_total_tokens = v->cost_per_million_tokens / v->total_per_output;
    fleet(s, demand, p->gpus, v);
}

/* ---- the bootstrap -------------------------------------------------------- */

static double select_kth(double *v, size_t n, size_t k)
{
    size_t lo = 0, hi = n - 1;
    while (lo < hi) {
        double pivot = v[(lo + hi) / 2];
        size_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                double t = v[i];
                v[i++] = v[j];
                v[j] = t;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            return v[k];
    }
    return v[k];
}

/* numpy's median of the n values (sorted order not needed). */
static double median(double *v, size_t n)
{
    double a = select_kth(v, n, (n - 1) / 2);
    if (n % 2)
        return a;
    return (a + select_kth(v, n, n / 2)) / 2;
}

/* One resample of every point of a side into fg (w kept). */
static void resample(const tc_frontier_side *s, const side_figs *nom, tc_rng *rng, double *scratch,
                     side_figs *fg)
{
    for (size_t i = 0; i < s->n; i++) {
        const tc_frontier_req *q = s->reqs[i];
        size_t n = s->n_reqs[i], k = 0;
        double tok = 0, sec = 0, tok0 = 0, sec0 = 0;
        for (size_t j = 0; j < n; j++) {
            tok0 += q[j].tokens;
            sec0 += q[j].seconds;
            const tc_frontier_req *r = &q[tc_rng_next(rng) % n];
            tok += r->tokens;
            sec += r->seconds;
            if (r->tpot_ms > 0)
                scratch[k++] = r->tpot_ms;
        }
        fg->w[i] = nom->w[i];
        fg->x[i] = k && n ? 1000.0 / median(scratch, k) : NAN;
        fg->y[i] = n && sec > 0 && sec0 > 0 ? nom->y[i] * (tok / sec) / (tok0 / sec0) : NAN;
    }
}

/* Per target and side, the resampled throughput and cost. */
typedef struct draws {
    double *tps[2][TC_FRONTIER_MAX_TARGETS], *cost[2][TC_FRONTIER_MAX_TARGETS];
    double *ratio[TC_FRONTIER_MAX_TARGETS];
} draws;

static void draws_free(draws *d)
{
    for (int t = 0; t < TC_FRONTIER_MAX_TARGETS; t++) {
        free(d->tps[0][t]);
        free(d->tps[1][t]);
        free(d->cost[0][t]);
        free(d->cost[1][t]);
        free(d->ratio[t]);
    }
}

static int draws_alloc(draws *d, size_t nt, int b)
{
    memset(d, 0, sizeof *d);
    for (size_t t = 0; t < nt; t++) {
        for (int s = 0; s < 2; s++) {
            d->tps[s][t] = malloc((size_t)b * sizeof(double));
            d->cost[s][t] = malloc((size_t)b * sizeof(double));
            if (!d->tps[s][t] || !d->cost[s][t])
                return -1;
        }
        if (!(d->ratio[t] = malloc((size_t)b * sizeof(double))))
            return -1;
    }
    return 0;
}

static size_t most_requests(const tc_frontier_side *s)
{
    size_t m = 1;
    for (size_t i = 0; s && i < s->n; i++)
        if (s->n_reqs[i] > m)
            m = s->n_reqs[i];
    return m;
}

/* One value's resampled figure: NAN where the resample did not reach it. */
static void note(const tc_frontier_value *v, double *tps, double *cost)
{
    *tps = v->reading == TC_AT_NOT_REACHED ? NAN : v->tokens_per_s_per_gpu;
    *cost = v->reading != TC_AT_NOT_REACHED && v->has_cost ? v->cost_per_million_tokens : NAN;
}

static void interval(double *tps, double *cost, int b, tc_frontier_value *v)
{
    if (v->reading == TC_AT_NOT_REACHED) { /* no reading, no interval around it */
        v->has_ci = 0;
        v->tps_lo = v->tps_hi = v->cost_lo = v->cost_hi = NAN;
        return;
    }
    v->tps_lo = tc_boot_percentile(tps, (size_t)b, 2.5);
    v->tps_hi = tc_boot_percentile(tps, (size_t)b, 97.5);
    v->cost_lo = tc_boot_percentile(cost, (size_t)b, 2.5);
    v->cost_hi = tc_boot_percentile(cost, (size_t)b, 97.5);
    v->has_ci = isfinite(v->tps_lo) && v->tps_lo > 0;
    if (!v->has_ci)
        return;
    /* The rest follow the throughput: a point's power is its window mean
     * and its token mix and good share are its own, not resampled. */
    double k = v->total_per_output;
    v->total_tps_lo = v->tps_lo * k;
    v->total_tps_hi = v->tps_hi * k;
    v->total_cost_lo = k > 0 ? v->cost_lo / k : NAN;
    v->total_cost_hi = k > 0 ? v->cost_hi / k : NAN;
    v->good_cost_lo = v->good_share > 0 ? v->cost_lo / v->good_share : NAN;
    v->good_cost_hi = v->good_share > 0 ? v->cost_hi / v->good_share : NAN;
    double y = v->tokens_per_s_per_gpu;
    v->joules_lo = v->joules_per_output_token * y / v->tps_hi;
    v->joules_hi = v->joules_per_output_token * y / v->tps_lo;
    v->tokens_per_mw_lo = v->tokens_per_mw * v->tps_lo / y;
    v->tokens_per_mw_hi = v->tokens_per_mw * v->tps_hi / y;
}

static tc_err bootstrap(const tc_frontier_side *sides[2], const side_figs nom[2],
                        const tc_frontier_ask *ask, tc_frontier_result *out)
{
    int b = ask->resamples;
    draws d;
    size_t most = most_requests(sides[0]);
    if (sides[1] && most_requests(sides[1]) > most)
        most = most_requests(sides[1]);
    double *scratch = malloc(most * sizeof *scratch);
    if (!scratch || draws_alloc(&d, out->n_targets, b) < 0) {
        free(scratch);
        draws_free(&d);
        return TC_ERR_NOMEM;
    }
    tc_rng rng;
    tc_rng_seed(&rng, ask->seed);
    tc_frontier_pt fr[TC_FRONTIER_MAX_POINTS];
    for (int k = 0; k < b; k++) {
        tc_frontier_value v[2][TC_FRONTIER_MAX_TARGETS];
        for (int s = 0; s < 2 && sides[s]; s++) {
            side_figs fg;
            resample(sides[s], &nom[s], &rng, scratch, &fg);
            size_t nfr = build(sides[s], &fg, fr);
            for (size_t t = 0; t < out->n_targets; t++) {
                read_at(sides[s], &fg, fr, nfr, out->t[t].x, 0, &v[s][t]);
                note(&v[s][t], &d.tps[s][t][k], &d.cost[s][t][k]);
            }
        }
        for (size_t t = 0; sides[1] && t < out->n_targets; t++)
            d.ratio[t][k] = d.cost[1][t][k] / d.cost[0][t][k];
    }
    for (size_t t = 0; t < out->n_targets; t++) {
        tc_frontier_target *tg = &out->t[t];
        interval(d.tps[0][t], d.cost[0][t], b, &tg->a);
        if (!sides[1])
            continue;
        interval(d.tps[1][t], d.cost[1][t], b, &tg->b);
        size_t cheaper = 0, valid = 0;
        for (int k = 0; k < b; k++)
            if (isfinite(d.ratio[t][k])) {
                valid++;
                cheaper += d.ratio[t][k] < 1;
            }
        if (!tg->has_ratio) /* a ratio the nominal readings do not have */
            continue;
        tg->p_b_cheaper = valid ? (double)cheaper / (double)valid : NAN;
        tg->ratio_lo = tc_boot_percentile(d.ratio[t], (size_t)b, 2.5);
        tg->ratio_hi = tc_boot_percentile(d.ratio[t], (size_t)b, 97.5);
    }
    free(scratch);
    draws_free(&d);
    return TC_OK;
}

/* ---- the claim ------------------------------------------------------------- */

/* "A is X times more cost-efficient than B": cost B / cost A >= X. */
static const char *verdict(const tc_frontier_target *t, double claim)
{
    if (!t->has_ratio)
        return NULL;
    /* Without an interval, the point decides. */
    double r_lo = isfinite(t->ratio_lo) ? t->ratio_lo : t->ratio;
    double r_hi = isfinite(t->ratio_hi) ? t->ratio_hi : t->ratio;
    if (r_lo >= claim)
        return "supported";
    if (r_hi < claim)
        return "refuted";
    return "inconclusive";
}

/* Where the claim holds, in words: everywhere, nowhere, at the low or the
 * high interactivity end (targets are in rising order), or scattered.
 * Inconclusive targets count as not holding. */
static void by_interactivity(const tc_frontier_result *out, size_t *order)
{
    for (size_t i = 0; i < out->n_targets; i++) {
        size_t j = i;
        for (; j > 0 && out->t[order[j - 1]].x > out->t[i].x; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
}

const char *tc_frontier_unjudged(const tc_frontier_target *t, char *buf, size_t len)
{
    int a_out = t->a.reading == TC_AT_NOT_REACHED, b_out = t->b.reading == TC_AT_NOT_REACHED;
    if (t->has_ratio)
        snprintf(buf, len, "judged");
    else if (a_out && b_out)
        snprintf(buf, len, "neither side reaches it");
    else if (a_out || b_out)
        snprintf(buf, len, "%s does not reach it", a_out ? "A" : "B");
    else
        snprintf(buf, len, "no cost for %s (a profile is missing)",
                 !t->a.has_cost && !t->b.has_cost ? "either side"
                 : !t->a.has_cost                 ? "A"
                                                  : "B");
    return buf;
}

/* "; not judged at 60 (B does not reach it), 100 (neither side reaches
 * it)", or "" when every target was judged. */
static void unjudged_list(const tc_frontier_result *out, const size_t *order, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < out->n_targets && n < len; k++) {
        const tc_frontier_target *t = &out->t[order[k]];
        if (t->verdict)
            continue;
        char why[64];
        n += (size_t)snprintf(buf + n, len - n, "%s%g (%s)", n ? ", " : "; not judged at ", t->x,
                              tc_frontier_unjudged(t, why, sizeof why));
    }
}

static void overall(tc_frontier_result *out)
{
    size_t n = 0, sup = 0, runs = 0;
    size_t first_sup = 0, last_sup = 0, first_judged = 0, last_judged = 0;
    int prev = -1;
    size_t order[TC_FRONTIER_MAX_TARGETS];
    by_interactivity(out, order);
    for (size_t k = 0; k < out->n_targets; k++) {
        size_t i = order[k];
        const char *v = out->t[i].verdict;
        if (!v)
            continue;
        int holds = strcmp(v, "supported") == 0;
        if (n++ == 0)
            first_judged = k;
        last_judged = k;
        if (holds) {
            if (sup++ == 0)
                first_sup = k;
            last_sup = k;
        }
        runs += holds != prev;
        prev = holds;
    }
    char rest[sizeof out->overall / 2];
    unjudged_list(out, order, rest, sizeof rest);
    const char *every = n < out->n_targets ? "every judged target" : "every target";
    char *o = out->overall;
    size_t len = sizeof out->overall;
    if (n == 0)
        snprintf(o, len, "not judged at any target%s", rest);
    else if (sup == n)
        snprintf(o, len, "holds at %s%s", every, rest);
    else if (sup == 0)
        snprintf(o, len, "fails at %s%s", every, rest);
    else if (runs == 2 && first_sup == first_judged)
        snprintf(o, len, "holds at interactivity <= %g tokens/s per user, fails above%s",
                 out->t[order[last_sup]].x, rest);
    else if (runs == 2 && last_sup == last_judged)
        snprintf(o, len, "holds at interactivity >= %g tokens/s per user, fails below%s",
                 out->t[order[first_sup]].x, rest);
    else
        snprintf(o, len, "holds at %zu of %zu judged targets, not in one stretch: see each%s", sup,
                 n, rest);
}

/* ---- the highest load meeting an SLO -------------------------------------- */

static void slo_points(const tc_frontier_side *sides[2], tc_frontier_result *out)
{
    for (int k = 0; k < 2; k++) {
        const tc_frontier_side *s = sides[k];
        out->slo_point[k] = -1;
        if (!s || !s->has_slo)
            continue;
        for (size_t i = 0; i < s->n; i++)
            if (s->attainment[i] >= TC_FRONTIER_SLO_ATTAINMENT &&
                s->pts[i].tokens_per_s_per_gpu > 0 &&
                (out->slo_point[k] < 0 ||
                 s->pts[i].tokens_per_s_per_gpu > s->pts[out->slo_point[k]].tokens_per_s_per_gpu))
                out->slo_point[k] = (int)i;
        if (out->slo_point[k] < 0)
            continue;
        const tc_sweep_point *p = &s->pts[out->slo_point[k]];
        tc_frontier_value *v = &out->slo_value[k];
        memset(v, 0, sizeof *v);
        v->reading = TC_AT_MEASURED;
        v->tokens_per_s_per_gpu = p->tokens_per_s_per_gpu;
        price(s, p->tokens_per_s_per_gpu, p->has_avg_power ? p->avg_power_w : NAN, p->gpus, v);
        v->has_good_cost = v->has_cost && s->good_share[out->slo_point[k]] > 0;
        v->cost_per_million_good_tokens =
            v->has_good_cost ? v->cost_per_million_tokens / s->good_share[out->slo_point[k]] : 0;
    }
    out->has_slo_ratio = sides[1] && out->slo_point[0] >= 0 && out->slo_point[1] >= 0 &&
                         out->slo_value[0].has_cost && out->slo_value[1].has_cost;
    out->slo_ratio = out->has_slo_ratio ? out->slo_value[1].cost_per_million_tokens /
                                              out->slo_value[0].cost_per_million_tokens
                                        : NAN;
}

/* ---- the whole ------------------------------------------------------------- */

/* --demand, else the side's profile's tokens_per_month; 0 for none. */
static double demand_of(const tc_frontier_side *s, const tc_frontier_ask *ask)
{
    if (ask->demand > 0)
        return ask->demand;
    return s->profile && s->profile->tokens_per_month.valid ? s->profile->tokens_per_month.value
                                                            : 0;
}

static void warn(tc_frontier_result *out, const char *fmt, const char *a, const char *b)
{
    if (out->n_warnings < (int)(sizeof out->warnings / sizeof out->warnings[0]))
        snprintf(out->warnings[out->n_warnings++], sizeof out->warnings[0], fmt, a, b);
}

/* What differs between the sides besides the hardware. */
/* 1 when both sides are the very same runs. */
static int same_runs(const tc_frontier_side *a, const tc_frontier_side *b)
{
    if (a->set.n != b->set.n)
        return 0;
    for (size_t i = 0; i < a->set.n; i++)
        if (a->set.runs[i].id != b->set.runs[i].id)
            return 0;
    return 1;
}

static void mixed_inputs(const tc_frontier_side *a, const tc_frontier_side *b,
                         tc_frontier_result *out)
{
    if (same_runs(a, b))
        warn(out, "A and B are the same runs ('%s' twice%s): the cost ratio is 1 by construction",
             a->set.name[0] ? a->set.name : "one run", "");
    const tc_run_info *ra = &a->set.runs[0], *rb = &b->set.runs[0];
    if (strcmp(ra->prompt_set, rb->prompt_set) != 0 || ra->max_tokens != rb->max_tokens)
        warn(out,
             "the workloads differ (prompts '%s' vs '%s', or the token limit): the frontiers "
             "measure different work",
             ra->prompt_set[0] ? ra->prompt_set : "not recorded",
             rb->prompt_set[0] ? rb->prompt_set : "not recorded");
    char ga[16], gb[16];
    snprintf(ga, sizeof ga, "%d", a->pts[0].gpus);
    snprintf(gb, sizeof gb, "%d", b->pts[0].gpus);
    if (a->pts[0].gpus != b->pts[0].gpus)
        warn(out, "GPUs per point differ (%s vs %s): throughput is per GPU, but the boxes differ",
             ga, gb);
    int wa = a->pts[0].has_avg_power, wb = b->pts[0].has_avg_power;
    if (wa != wb)
        warn(out,
             "power was measured on %s only; the other side is priced with its profile's "
             "busy_watts%s",
             wa ? "A" : "B", "");
}

static int usable(const tc_frontier_side *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->pts[i].has_interactivity && s->pts[i].tokens_per_s_per_gpu > 0)
            return 1;
    return 0;
}

tc_err tc_frontier_compute(const tc_frontier_side *a, const tc_frontier_side *b,
                           const tc_frontier_ask *ask, tc_frontier_result *out, char *err,
                           size_t errlen)
{
    memset(out, 0, sizeof *out);
    const tc_frontier_side *sides[2] = {a, b};
    if (ask->n_targets == 0 || ask->n_targets > TC_FRONTIER_MAX_TARGETS)
        return tc_fail(err, errlen, TC_ERR_INVALID, "--at: give 1 to %d target interactivities",
                       TC_FRONTIER_MAX_TARGETS);
    for (int s = 0; s < 2 && sides[s]; s++)
        if (!usable(sides[s]))
            return tc_fail(err, errlen, TC_ERR_INVALID,
                           "%s: no point has both a throughput and an interactivity (completed "
                           "requests of two tokens or more)",
                           sides[s]->label);
    out->two = b != NULL;
    out->n_targets = ask->n_targets;
    out->resamples = ask->resamples;
    out->seed = ask->seed;
    out->has_claim = ask->has_claim;
    out->claim = ask->claim;
    side_figs nom[2];
    nominal(a, &nom[0]);
    out->n_fa = build(a, &nom[0], out->fa);
    if (b) {
        nominal(b, &nom[1]);
        out->n_fb = build(b, &nom[1], out->fb);
    }
    for (size_t t = 0; t < ask->n_targets; t++) {
        tc_frontier_target *tg = &out->t[t];
        tg->x = ask->targets[t];
        tg->ratio_lo = tg->ratio_hi = tg->p_b_cheaper = NAN;
        read_at(a, &nom[0], out->fa, out->n_fa, tg->x, demand_of(a, ask), &tg->a);
        if (!b)
            continue;
        read_at(b, &nom[1], out->fb, out->n_fb, tg->x, demand_of(b, ask), &tg->b);
        tg->has_capex_diff = tg->a.has_capex && tg->b.has_capex;
        tg->capex_diff = tg->has_capex_diff ? tg->b.capex - tg->a.capex : 0;
        tg->has_ratio = tg->a.reading != TC_AT_NOT_REACHED && tg->b.reading != TC_AT_NOT_REACHED &&
                        tg->a.has_cost && tg->b.has_cost;
        tg->ratio =
            tg->has_ratio ? tg->b.cost_per_million_tokens / tg->a.cost_per_million_tokens : NAN;
    }
    out->has_demand = demand_of(a, ask) > 0;
    out->demand = demand_of(a, ask);
    if (b && a->set.n && b->set.n)
        mixed_inputs(a, b, out);
    for (int s = 0; s < 2 && sides[s]; s++)
        if (sides[s]->n_left_out)
            warn(out, "%s: left out %s, which did not finish: its figures are partial",
                 s ? "B" : "A", sides[s]->left_out);
    slo_points(sides, out);
    /* Each frontier point read on itself: its own cost and energy. */
    for (size_t i = 0; i < out->n_fa; i++)
        read_at(a, &nom[0], out->fa, out->n_fa, out->fa[i].x, demand_of(a, ask), &out->va[i]);
    for (size_t i = 0; b && i < out->n_fb; i++)
        read_at(b, &nom[1], out->fb, out->n_fb, out->fb[i].x, demand_of(b, ask), &out->vb[i]);
    if (ask->resamples > 0 && bootstrap(sides, nom, ask, out) != TC_OK)
        return tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory resampling");
    for (size_t t = 0; out->has_claim && t < out->n_targets; t++)
        out->t[t].verdict = verdict(&out->t[t], ask->claim);
    if (out->has_claim)
        overall(out);
    return TC_OK;
}
