/* The runs of the two platforms as evidence: their throughput ratio, the
 * target's status and, with cost profiles, the running saving. */
#include <stdio.h>
#include <string.h>

#include "analysis/cost.h"
#include "analysis/cost_profile.h"
#include "analysis/figures.h"
#include "assess/evidence_internal.h"
#include "views/view_figures.h"

/* The worst status of the target's runs: interrupted and failed are worse
 * than complete. */
static void target_of(const tc_runset *set, const tc_figures *f, tc_evidence *ev)
{
    ev->target_status = TC_RUN_COMPLETE;
    for (size_t i = 0; i < set->n; i++) {
        if (set->runs[i].status != TC_RUN_COMPLETE)
            ev->target_status = set->runs[i].status;
        ev->target_completed += f[i].m.requests.completed;
        ev->target_failed += f[i].m.requests.failed;
    }
}

/* A sweep's peak: its complete point of the most output tokens/s, or -1
 * when the set is not a sweep. Its points are loads nobody runs together,
 * so a sweep is weighed at its peak, as the report prices it, not at the
 * mean of its points. */
static int sweep_peak(const tc_runset *set, const tc_figures *f)
{
    if (!set->is_group || !set->n || strcmp(set->runs[0].group_kind, "sweep") != 0)
        return -1;
    int best = -1;
    for (size_t i = 0; i < set->n; i++)
        if (set->runs[i].status == TC_RUN_COMPLETE && f[i].cost_in.output_tokens_per_s > 0 &&
            (best < 0 || f[i].cost_in.output_tokens_per_s > f[best].cost_in.output_tokens_per_s))
            best = (int)i;
    return best;
}

/* Loads one side: its throughput and cost inputs (a sweep's at its peak),
 * and for the target its status. */
static tc_err load_side(tc_store *st, const char *which, int target, tc_evidence *ev,
                        tc_cost_measured *m, char *err, size_t errlen)
{
    tc_runset set;
    tc_figures *f = NULL;
    tc_group_stat g;
    tc_err rc = tc_view_runset(st, which, &set, err, errlen);
    if (rc == TC_OK)
        rc = tc_view_runset_figures(st, &set, TC_FIGURES_SUMMARY, &f, err, errlen);
    if (rc == TC_OK) {
        int peak = sweep_peak(&set, f);
        if (peak >= 0) {
            *m = f[peak].cost_in;
            ev->sweep_peaks++;
        } else {
            tc_figures_mean_cost_inputs(f, set.n, m, &g);
        }
        for (size_t i = 0; i < set.n; i++)
            ev->simulated |= set.runs[i].simulated;
        if (target)
            target_of(&set, f, ev);
        /* A target that completed nothing is evidence, not an error. */
        if (!target && !(m->output_tokens_per_s > 0))
            rc = tc_fail(err, errlen, TC_ERR_NOTFOUND,
                         "'%s' (the incumbent) has no output throughput (no completed request): "
                         "nothing to compare the alternative with",
                         which);
    }
    tc_runset_figures_free(f, set.n);
    tc_runset_free(&set);
    return tc_evidence_unreadable(rc);
}

static tc_err load_profile(const char *path, const tc_lockin *a, tc_cost_profile *p, char *err,
                           size_t errlen)
{
    if (tc_cost_profile_load(path, p, err, errlen) != TC_OK)
        return TC_ERR_INVALID;
    if (strcmp(p->currency, a->currency) != 0)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "%s is in %s but %s is in %s: give both in one currency", path, p->currency,
                       a->name, a->currency);
    return TC_OK;
}

/* The running cost per million tokens of a side: what goes on every month.
 * The purchase (the [hardware] term) is the lock-in model's one-time
 * hardware saving, and adaptation days are its lock-in cost, so neither
 * is counted again here; a cloud rental is running cost. -1 (a note) when
 * the cost is not available. */
static int running_cost(const char *path, const tc_cost_profile *p, const tc_cost_measured *m,
                        tc_evidence *ev, double *out)
{
    tc_cost_result r;
    if (tc_cost_compute(p, m, &r) != TC_OK || !r.has_cost || !(r.tokens_per_month > 0)) {
        tc_evidence_note(
            ev,
            "%s: no cost per token for its run (no completed request, or no power measured and "
            "no [power] busy_watts; see 'truecost cost RUN --profile %s'): no running saving",
            path, path);
        return -1;
    }
    double monthly = r.per_month - (r.is_cloud ? 0 : r.hardware.value);
    if (!p->is_cloud && p->adaptation_days.valid && p->day_rate.valid) {
        monthly -= p->adaptation_days.value * p->day_rate.value / p->amortize_months.value;
        if (p->adaptation_days.value > 0)
            tc_evidence_note(
                ev,
                "%s: its adaptation_days belong to the lock-in cost; left out of the running "
                "saving",
                path);
    }
    *out = monthly / r.tokens_per_month * 1e6;
    return 0;
}

/* The running saving per month from each side's cost profile. */
static tc_err running_saving(const tc_evidence_sources *src, const tc_lockin *a,
                             const tc_cost_measured *ma, const tc_cost_measured *mb,
                             tc_evidence *ev, tc_lockin_overrides *ov, char *err, size_t errlen)
{
    tc_cost_profile pa, pb;
    tc_err rc;
    /* --demand, when given, is the one demand: the fleets' and this. */
    double demand = src->demand > 0 ? src->demand : a->tokens_per_month.value;
    if (!(src->demand > 0) && !a->tokens_per_month.valid)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "%s: give [horizon] tokens_per_month (or --demand TOKENS), so that the "
                       "cost per token of the profiles becomes a saving per month",
                       a->name);
    if ((rc = load_profile(src->profile_a, a, &pa, err, errlen)) != TC_OK ||
        (rc = load_profile(src->profile_b, a, &pb, err, errlen)) != TC_OK)
        return rc;
    if (running_cost(src->profile_a, &pa, ma, ev, &ev->cost_a) < 0 ||
        running_cost(src->profile_b, &pb, mb, ev, &ev->cost_b) < 0)
        return TC_OK;
    ev->has_costs = 1;
    ev->running_saving_per_month = (ev->cost_a - ev->cost_b) * demand / 1e6;
    ov->has_running_saving = 1;
    ov->running_saving_per_month = ev->running_saving_per_month;
    snprintf(ov->running_source, sizeof ov->running_source, "profiles at %.3g tokens/month%s",
             demand, src->demand > 0 ? " (--demand)" : "");
    return TC_OK;
}

tc_err tc_evidence_read_runs(tc_store *st, const tc_evidence_sources *src, const tc_lockin *a,
                             tc_evidence *ev, tc_lockin_overrides *ov, char *err, size_t errlen)
{
    tc_cost_measured ma, mb;
    tc_err rc = load_side(st, src->run_a, 0, ev, &ma, err, errlen);
    if (rc == TC_OK)
        rc = load_side(st, src->run_b, 1, ev, &mb, err, errlen);
    if (rc != TC_OK)
        return rc;
    ev->has_runs = 1;
    ev->tps_a = ma.output_tokens_per_s;
    ev->tps_b = mb.output_tokens_per_s;
    ev->ratio = ev->tps_b / ev->tps_a;
    ov->simulated |= ev->simulated;
    if (!(ev->ratio > 0)) {
        tc_evidence_note(
            ev,
            "'%s' (the alternative) completed no request: no performance ratio; the target run "
            "and the gap count as not met",
            src->run_b);
        return TC_OK;
    }
    ov->has_perf_ratio = 1;
    ov->perf_ratio = ev->ratio;
    snprintf(ov->perf_source, sizeof ov->perf_source, "%s %.30s vs %.30s%s",
             ev->sweep_peaks == 2 ? "sweeps' peaks" : "runs", src->run_a, src->run_b,
             ev->simulated ? " (SIMULATED)" : "");
    return src->profile_a ? running_saving(src, a, &ma, &mb, ev, ov, err, errlen) : TC_OK;
}
