/* Evidence for lockin and decide from files and stored runs. */
#include "assess/evidence.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cost.h"
#include "analysis/cost_profile.h"
#include "analysis/figures.h"
#include "analysis/frontier_cost.h"
#include "analysis/soak.h"
#include "assess/gaps.h"
#include "views/view_figures.h"
#include "views/view_soak.h"
#include "views/view_frontier.h"

/* What could not be read is never a usage error (TC_ERR_INVALID). */
static tc_err unreadable(tc_err e)
{
    return e == TC_ERR_INVALID ? TC_ERR_IO : e;
}

static void note(tc_evidence *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(tc_evidence *ev, const char *fmt, ...)
{
    if (ev->n_notes >= TC_EVIDENCE_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ev->notes[ev->n_notes++], sizeof ev->notes[0], fmt, ap);
    va_end(ap);
}

tc_err tc_evidence_read_gaps(const char *path, tc_evidence *ev, tc_lockin_overrides *ov, char *err,
                             size_t errlen)
{
    char *text = NULL;
    size_t len = 0;
    tc_err rc = tc_gaps_read_file(path, &text, &len, err, errlen);
    if (rc != TC_OK)
        return unreadable(rc);
    rc = tc_gaps_summary_parse(path, text, len, &ev->gaps, err, errlen);
    free(text);
    if (rc != TC_OK)
        return TC_ERR_INVALID;
    ev->has_gaps = 1;
    ov->has_operators = 1;
    ov->op_low = ev->gaps.t_low;
    ov->op_mode = ev->gaps.t_mode;
    ov->op_high = ev->gaps.t_high;
    snprintf(ov->op_source, sizeof ov->op_source, "gap table %s", path);
    return TC_OK;
}

/* ---- the runs -------------------------------------------------------------- */

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

/* Loads one side: its throughput and cost inputs, and for the target its
 * status. */
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
        tc_figures_mean_cost_inputs(f, set.n, m, &g);
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
    return unreadable(rc);
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
        note(ev,
             "%s: no cost per token for its run (no completed request, or no power measured and "
             "no [power] busy_watts; see 'truecost cost RUN --profile %s'): no running saving",
             path, path);
        return -1;
    }
    double monthly = r.per_month - (r.is_cloud ? 0 : r.hardware.value);
    if (!p->is_cloud && p->adaptation_days.valid && p->day_rate.valid) {
        monthly -= p->adaptation_days.value * p->day_rate.value / p->amortize_months.value;
        if (p->adaptation_days.value > 0)
            note(ev,
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
    if (!a->tokens_per_month.valid)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "%s: give [horizon] tokens_per_month, so that the cost per token of the "
                       "profiles becomes a saving per month",
                       a->name);
    if ((rc = load_profile(src->profile_a, a, &pa, err, errlen)) != TC_OK ||
        (rc = load_profile(src->profile_b, a, &pb, err, errlen)) != TC_OK)
        return rc;
    if (running_cost(src->profile_a, &pa, ma, ev, &ev->cost_a) < 0 ||
        running_cost(src->profile_b, &pb, mb, ev, &ev->cost_b) < 0)
        return TC_OK;
    ev->has_costs = 1;
    ev->running_saving_per_month = (ev->cost_a - ev->cost_b) * a->tokens_per_month.value / 1e6;
    ov->has_running_saving = 1;
    ov->running_saving_per_month = ev->running_saving_per_month;
    snprintf(ov->running_source, sizeof ov->running_source, "profiles at %.3g tokens/month",
             a->tokens_per_month.value);
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
        note(ev,
             "'%s' (the alternative) completed no request: no performance ratio; the target run "
             "and the gap count as not met",
             src->run_b);
        return TC_OK;
    }
    ov->has_perf_ratio = 1;
    ov->perf_ratio = ev->ratio;
    snprintf(ov->perf_source, sizeof ov->perf_source, "runs %.35s vs %.35s%s", src->run_a,
             src->run_b, ev->simulated ? " (SIMULATED)" : "");
    return src->profile_a ? running_saving(src, a, &ma, &mb, ev, ov, err, errlen) : TC_OK;
}

/* The risk's probability from a soak that is evidence: its outages per
 * day (an incident a day at most); else the assessment's stands, said. */
static void soak_risk(const tc_run_info *run, const tc_soak_stored *s, tc_evidence *ev,
                      tc_lockin_overrides *ov)
{
    const tc_soak_verdict *v = &s->verdict;
    const char *sim = run->simulated ? " (SIMULATED)" : "";
    if (ev->soak_state == TC_ITEM_MISSING) {
        note(ev,
             "soak run %lld: %s over %.3g h is not evidence yet (a PASS of %.0f h or more, or a "
             "FAIL, is): the risk's probability stays the assessment's%s",
             (long long)run->id, tc_soak_outcome_name(v->outcome), ev->soak_hours,
             TC_DECIDE_SOAK_HOURS, v->complete ? "" : "; resume it with 'truecost soak --resume'");
        return;
    }
    if (v->outcome == TC_SOAK_FAIL && v->outages == 0) {
        note(ev,
             "soak run %lld FAILED (%s) with no outage to count: the risk's probability stays "
             "the assessment's",
             (long long)run->id, ev->soak_reason);
        return;
    }
    ov->has_risk = 1;
    ov->risk_probability = ev->soak_outages_per_day < 1 ? ev->soak_outages_per_day : 1;
    snprintf(ov->risk_source, sizeof ov->risk_source,
             "soak run %lld (%s): %d outage(s) in %.3g h = %.3g per day%s", (long long)run->id,
             tc_soak_outcome_name(v->outcome), v->outages, ev->soak_hours, ev->soak_outages_per_day,
             sim);
}

/* A `truecost soak` run: its verdict, what it is worth as evidence, and
 * the risk's probability when it is. Any other run is refused, named. */
static tc_err read_soak_verdict(tc_store *st, const char *arg, const tc_run_info *run,
                                tc_evidence *ev, tc_lockin_overrides *ov, char *err, size_t errlen)
{
    tc_soak_stored s;
    int found = 0;
    tc_err rc = tc_view_soak(st, run->id, &s, &found, err, errlen);
    if (rc != TC_OK)
        return rc;
    if (!found)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "--soak %s: run %lld is not a soak: give a run that 'truecost soak' made "
                       "(see 'truecost runs')",
                       arg, (long long)run->id);
    const tc_soak_verdict *v = &s.verdict;
    ev->has_soak = 1;
    ev->soak_outcome = v->outcome;
    ev->soak_hours = s.plan.covered_s / 3600;
    ev->soak_state = tc_decide_soak_state(v->outcome, ev->soak_hours);
    ev->soak_measured = v->requests;
    ev->soak_failed = v->errors;
    ev->soak_outages = v->outages;
    ev->soak_restarts = v->restarts;
    ev->soak_downtime_s = v->downtime_s;
    ev->soak_outages_per_day = tc_soak_outages_per_day(v);
    snprintf(ev->soak_reason, sizeof ev->soak_reason, "%s", v->n_reasons ? v->reasons[0] : "");
    soak_risk(run, &s, ev, ov);
    tc_soak_stored_free(&s);
    return TC_OK;
}

tc_err tc_evidence_read_soak(tc_store *st, const char *soak, tc_evidence *ev,
                             tc_lockin_overrides *ov, char *err, size_t errlen)
{
    tc_runset set;
    tc_figures *f = NULL;
    tc_err rc = tc_view_runset(st, soak, &set, err, errlen);
    if (rc == TC_OK)
        rc = tc_view_runset_figures(st, &set, TC_FIGURES_SUMMARY, &f, err, errlen);
    if (rc == TC_OK) {
        size_t best = 0;
        for (size_t i = 1; i < set.n; i++)
            if (f[i].m.duration_s > f[best].m.duration_s)
                best = i;
        ev->simulated |= set.runs[best].simulated;
        rc = read_soak_verdict(st, soak, &set.runs[best], ev, ov, err, errlen);
    }
    ov->simulated |= ev->simulated;
    tc_runset_figures_free(f, set.n);
    tc_runset_free(&set);
    return rc == TC_ERR_INVALID ? rc : unreadable(rc);
}

/* ---- the decision's inputs --------------------------------------------------- */

static int answer(tc_lockin_answer a)
{
    return a == TC_LOCKIN_YES ? 1 : a == TC_LOCKIN_NO ? 0 : -1;
}

void tc_evidence_decide_input(const tc_evidence *ev, const tc_lockin_result *r, tc_decide_input *in)
{
    memset(in, 0, sizeof *in);
    in->has_gaps = ev->has_gaps;
    in->gaps_missing = ev->gaps.missing;
    in->gaps_key_without_alternative = ev->gaps.key_without_alternative;
    in->gaps_key_unchecked = ev->gaps.key_unchecked;
    in->gaps_share_without_alternative = ev->gaps.share_without_alternative;
    in->has_target_run = ev->has_runs;
    in->target_completed = ev->target_completed;
    in->target_failed = ev->target_failed;
    in->target_status = ev->target_status;
    in->has_perf = ev->has_runs;
    in->perf_ratio = ev->ratio;
    in->soak_passed = answer(r->inputs.soak_passed);
    in->has_soak = ev->has_soak;
    in->soak_outcome = ev->soak_outcome;
    in->soak_hours = ev->soak_hours;
    in->soak_measured = ev->soak_measured;
    in->soak_failed = ev->soak_failed;
    in->soak_outages = ev->soak_outages;
    in->soak_restarts = ev->soak_restarts;
    in->soak_downtime_s = ev->soak_downtime_s;
    snprintf(in->soak_reason, sizeof in->soak_reason, "%s", ev->soak_reason);
    in->profiler_skill = answer(r->inputs.profiler_skill);
    in->fallback_path = answer(r->inputs.fallback_path);
    in->has_economics = 1;
    in->p_net_positive = r->probability_net_positive;
    in->lockin_p50 = r->total.p50;
    in->saving = r->hardware_saving +
                 (r->has_running_saving ? r->running_saving_per_month * r->inputs.months.value : 0);
    double alt = r->inputs.price_alternative.value;
    in->price_ratio = alt > 0 ? r->inputs.price_incumbent.value / alt : 0;
}

/* ---- the fleets at one interactivity ---------------------------------------- */

static tc_err fleet_capex(const tc_frontier_side *a, const tc_frontier_side *b, double at,
                          double demand, tc_frontier_result *r, char *err, size_t errlen)
{
    tc_frontier_ask ask = {.targets = &at, .n_targets = 1, .demand = demand};
    tc_err rc = tc_frontier_compute(a, b, &ask, r, err, errlen);
    if (rc != TC_OK)
        return rc;
    const tc_frontier_target *t = &r->t[0];
    const tc_frontier_value *v[2] = {&t->a, &t->b};
    for (int i = 0; i < 2; i++) {
        if (v[i]->reading == TC_AT_NOT_REACHED)
            return tc_fail(err, errlen, TC_ERR_INVALID,
                           "--at %g: %s does not reach it (above its highest measured "
                           "interactivity): choose a lower target",
                           at, i ? "the alternative" : "the incumbent");
        if (!v[i]->has_capex)
            return tc_fail(err, errlen, TC_ERR_INVALID,
                           "--at %g: no fleet capex for the %s: its profile needs [hardware] "
                           "price and [workload] tokens_per_month",
                           at, i ? "alternative" : "incumbent");
    }
    return TC_OK;
}

tc_err tc_evidence_read_fleet(tc_store *st, const tc_evidence_sources *src, const tc_lockin *as,
                              tc_lockin_overrides *ov, char *err, size_t errlen)
{
    if (!as->tokens_per_month.valid || !(as->tokens_per_month.value > 0))
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "--at sizes each fleet for the assessment's demand: give [horizon] "
                       "tokens_per_month in %s",
                       as->name);
    if (!src->run_a || !src->profile_a || !src->profile_b)
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "--at prices each platform's fleet: give the two sweeps and "
                       "--profile-a/--profile-b");
    tc_cost_profile pa, pb;
    tc_err rc = tc_cost_profile_load(src->profile_a, &pa, err, errlen);
    if (rc == TC_OK)
        rc = tc_cost_profile_load(src->profile_b, &pb, err, errlen);
    if (rc != TC_OK)
        return TC_ERR_INVALID;
    tc_frontier_side a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    tc_frontier_result *r = calloc(1, sizeof *r);
    rc = r ? tc_view_frontier_side(st, src->run_a, "the incumbent", &pa, NULL, &a, err, errlen)
           : tc_fail(err, errlen, TC_ERR_NOMEM, "out of memory");
    if (rc == TC_OK)
        rc = tc_view_frontier_side(st, src->run_b, "the alternative", &pb, NULL, &b, err, errlen);
    if (rc == TC_OK)
        rc = fleet_capex(&a, &b, src->at, as->tokens_per_month.value, r, err, errlen);
    if (rc == TC_OK) {
        const tc_frontier_target *t = &r->t[0];
        ov->has_hardware_saving = 1;
        ov->hardware_saving = t->a.capex - t->b.capex;
        snprintf(ov->hardware_source, sizeof ov->hardware_source,
                 "fleet capex at %g tokens/s per user for %.4g tokens/month, %lld vs %lld boxes",
                 src->at, r->demand, t->a.boxes_needed, t->b.boxes_needed);
        ov->simulated |= a.simulated || b.simulated;
    }
    free(r);
    tc_frontier_side_free(&a);
    tc_frontier_side_free(&b);
    return rc;
}
