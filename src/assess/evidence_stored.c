/* Evidence from stored long runs and sweeps: a soak's verdict and the
 * fleets each platform needs at one interactivity. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/cost_profile.h"
#include "analysis/frontier_cost.h"
#include "analysis/soak.h"
#include "assess/evidence_internal.h"
#include "views/view_figures.h"
#include "views/view_frontier.h"
#include "views/view_soak.h"

/* The risk's probability from a soak that is evidence: its outages per
 * day (an incident a day at most); else the assessment's stands, said. */
static void soak_risk(const tc_run_info *run, const tc_soak_stored *s, tc_evidence *ev,
                      tc_lockin_overrides *ov)
{
    const tc_soak_verdict *v = &s->verdict;
    const char *sim = run->simulated ? " (SIMULATED)" : "";
    if (ev->soak_state == TC_ITEM_MISSING) {
        tc_evidence_note(
            ev,
            "soak run %lld: %s over %.3g h is not evidence yet (a PASS of %.0f h or more, or a "
            "FAIL, is): the risk's probability stays the assessment's%s",
            (long long)run->id, tc_soak_outcome_name(v->outcome), ev->soak_hours,
            TC_DECIDE_SOAK_HOURS, v->complete ? "" : "; resume it with 'truecost soak --resume'");
        return;
    }
    if (v->outcome == TC_SOAK_FAIL && v->outages == 0) {
        tc_evidence_note(
            ev,
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
    return rc == TC_ERR_INVALID ? rc : tc_evidence_unreadable(rc);
}

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
    double demand = src->demand > 0 ? src->demand : as->tokens_per_month.value;
    if (!(src->demand > 0) && (!as->tokens_per_month.valid || !(demand > 0)))
        return tc_fail(err, errlen, TC_ERR_INVALID,
                       "--at sizes each fleet for the demand: give --demand TOKENS_PER_MONTH or "
                       "[horizon] tokens_per_month in %s",
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
        rc = fleet_capex(&a, &b, src->at, demand, r, err, errlen);
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
