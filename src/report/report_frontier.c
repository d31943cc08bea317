#include "report_frontier.h"

#include <math.h>

#include "core/tc_json.h"
#include "report_json.h"
#include "report_table.h"

static json_t *ci(int valid, double lo, double hi)
{
    if (!valid || !isfinite(lo) || !isfinite(hi))
        return json_null();
    return json_pack("[f, f]", lo, hi);
}

static json_t *value_json(const tc_frontier_value *v)
{
    int reached = v->reading != TC_AT_NOT_REACHED;
    json_t *o = json_object();
    json_object_set_new(o, "reached", json_boolean(reached));
    json_object_set_new(o, "reading", json_string(tc_frontier_reading_name(v->reading)));
    json_object_set_new(o, "tokens_per_s_per_gpu", tc_json_num(reached, v->tokens_per_s_per_gpu));
    json_object_set_new(o, "tps_ci95", ci(v->has_ci, v->tps_lo, v->tps_hi));
    json_object_set_new(o, "total_tokens_per_s_per_gpu",
                        tc_json_num(reached && v->has_total_tps, v->total_tokens_per_s_per_gpu));
    json_object_set_new(o, "total_tps_ci95",
                        ci(v->has_ci && v->has_total_tps, v->total_tps_lo, v->total_tps_hi));
    json_object_set_new(o, "cost_per_million_tokens",
                        tc_json_num(reached && v->has_cost, v->cost_per_million_tokens));
    json_object_set_new(o, "ci95", ci(v->has_ci && v->has_cost, v->cost_lo, v->cost_hi));
    json_object_set_new(
        o, "cost_per_million_total_tokens",
        tc_json_num(reached && v->has_total_cost, v->cost_per_million_total_tokens));
    json_object_set_new(o, "total_ci95",
                        ci(v->has_ci && v->has_total_cost, v->total_cost_lo, v->total_cost_hi));
    json_object_set_new(o, "cost_per_million_good_tokens",
                        tc_json_num(reached && v->has_good_cost, v->cost_per_million_good_tokens));
    json_object_set_new(o, "good_ci95",
                        ci(v->has_ci && v->has_good_cost, v->good_cost_lo, v->good_cost_hi));
    json_object_set_new(o, "joules_per_output_token",
                        tc_json_num(reached && v->has_energy, v->joules_per_output_token));
    json_object_set_new(o, "joules_ci95",
                        ci(v->has_ci && v->has_energy, v->joules_lo, v->joules_hi));
    json_object_set_new(o, "tokens_per_mw",
                        tc_json_num(reached && v->has_energy, v->tokens_per_mw));
    json_object_set_new(o, "tokens_per_mw_ci95",
                        ci(v->has_ci && v->has_energy, v->tokens_per_mw_lo, v->tokens_per_mw_hi));
    json_object_set_new(o, "fleet",
                        reached && v->has_fleet
                            ? json_pack("{s:I, s:I, s:o}", "gpus", (json_int_t)v->gpus_needed,
                                        "boxes", (json_int_t)v->boxes_needed, "capex",
                                        tc_json_num(v->has_capex, v->capex))
                            : json_null());
    return o;
}

static json_t *frontier_json(const tc_frontier_side *s, const tc_frontier_pt *f,
                             const tc_frontier_value *v, size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(
            a, json_pack("{s:I, s:f, s:f, s:o, s:o, s:o, s:o}", "run_id",
                         (json_int_t)s->pts[f[i].src].run_id, "interactivity", f[i].x,
                         "tokens_per_s_per_gpu", f[i].y, "total_tokens_per_s_per_gpu",
                         tc_json_num(v[i].has_total_tps, v[i].total_tokens_per_s_per_gpu),
                         "cost_per_million_tokens",
                         tc_json_num(v[i].has_cost, v[i].cost_per_million_tokens),
                         "cost_per_million_total_tokens",
                         tc_json_num(v[i].has_total_cost, v[i].cost_per_million_total_tokens),
                         "joules_per_output_token",
                         tc_json_num(v[i].has_energy, v[i].joules_per_output_token)));
    return a;
}

static json_t *target_json(const tc_frontier_target *t, int two)
{
    json_t *o = json_object();
    json_object_set_new(o, "interactivity", json_real(t->x));
    json_object_set_new(o, "a", value_json(&t->a));
    json_object_set_new(o, "b", two ? value_json(&t->b) : json_null());
    json_object_set_new(o, "ratio",
                        t->has_ratio ? json_pack("{s:f, s:o}", "value", t->ratio, "ci95",
                                                 ci(1, t->ratio_lo, t->ratio_hi))
                                     : json_null());
    json_object_set_new(o, "probability_b_cheaper",
                        tc_json_num(two && isfinite(t->p_b_cheaper), t->p_b_cheaper));
    json_object_set_new(o, "verdict", tc_json_str_or_null(t->verdict));
    json_object_set_new(o, "capex_difference", tc_json_num(t->has_capex_diff, t->capex_diff));
    return o;
}

/* The highest load meeting the SLO on each side. */
static json_t *slo_json(const tc_frontier_side *a, const tc_frontier_side *b,
                        const tc_frontier_result *r)
{
    if (!a->has_slo)
        return json_null();
    json_t *o = json_object();
    const tc_frontier_side *sides[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        const char *key = k ? "b" : "a";
        if (!sides[k] || r->slo_point[k] < 0) {
            json_object_set_new(o, key, json_null());
            continue;
        }
        const tc_sweep_point *p = &sides[k]->pts[r->slo_point[k]];
        json_t *v = value_json(&r->slo_value[k]);
        json_object_set_new(v, "run_id", json_integer(p->run_id));
        json_object_set_new(v, "interactivity",
                            tc_json_num(p->has_interactivity, p->interactivity));
        json_object_set_new(v, "attainment", json_real(sides[k]->attainment[r->slo_point[k]]));
        json_object_set_new(o, key, v);
    }
    json_object_set_new(o, "ratio", tc_json_num(r->has_slo_ratio, r->slo_ratio));
    return o;
}

json_t *tc_report_frontier_json(const tc_frontier_side *a, const tc_frontier_side *b,
                                const tc_frontier_result *r)
{
    int sim = a->simulated || (b && b->simulated);
    json_t *doc = json_object(), *targets = json_array();
    json_object_set_new(doc, "simulated", json_boolean(sim));
    if (sim)
        json_object_set_new(doc, "note", json_string(TC_REPORT_SIM_NOTE));
    json_object_set_new(doc, "a", tc_json_string(a->set.name));
    json_object_set_new(doc, "b", b ? tc_json_string(b->set.name) : json_null());
    json_object_set_new(doc, "resamples", json_integer(r->resamples));
    json_object_set_new(doc, "seed", json_integer((json_int_t)r->seed));
    for (size_t i = 0; i < r->n_targets; i++)
        json_array_append_new(targets, target_json(&r->t[i], r->two));
    json_object_set_new(doc, "targets", targets);
    json_object_set_new(doc, "claim",
                        r->has_claim
                            ? json_pack("{s:f, s:s}", "value", r->claim, "overall", r->overall)
                            : json_null());
    json_object_set_new(doc, "slo", slo_json(a, b, r));
    json_object_set_new(doc, "fleet",
                        r->has_demand ? json_pack("{s:f}", "demand_tokens_per_month", r->demand)
                                      : json_null());
    json_t *warn = json_array();
    for (int i = 0; i < r->n_warnings; i++)
        json_array_append_new(warn, json_string(r->warnings[i]));
    json_object_set_new(doc, "warnings", warn);
    json_object_set_new(doc, "frontier_a", frontier_json(a, r->fa, r->va, r->n_fa));
    json_object_set_new(doc, "frontier_b",
                        b ? frontier_json(b, r->fb, r->vb, r->n_fb) : json_null());
    return doc;
}

static void value_line(FILE *out, const char *side, const tc_frontier_value *v)
{
    if (v->reading == TC_AT_NOT_REACHED) {
        fprintf(out, "  %s  not reached (above its highest measured interactivity)\n", side);
        return;
    }
    char a[16], b[16], c[16], d[16], e[16], cx[32];
    fprintf(out, "  %s  %-8s %s tok/s/GPU", side, tc_frontier_reading_name(v->reading),
            tc_report_fmt(a, sizeof a, 1, v->tokens_per_s_per_gpu));
    if (v->has_ci)
        fprintf(out, " [%s, %s]", tc_report_fmt(b, sizeof b, 1, v->tps_lo),
                tc_report_fmt(c, sizeof c, 1, v->tps_hi));
    if (v->has_cost) {
        fprintf(out, "  %s /Mtok", tc_report_fmt(d, sizeof d, 1, v->cost_per_million_tokens));
        if (v->has_ci && isfinite(v->cost_lo))
            fprintf(out, " [%s, %s]", tc_report_sig(b, sizeof b, v->cost_lo),
                    tc_report_sig(c, sizeof c, v->cost_hi));
    } else {
        fprintf(out, "  cost n/a");
    }
    if (v->has_energy)
        fprintf(out, "  %s J/tok", tc_report_fmt(e, sizeof e, 1, v->joules_per_output_token));
    if (v->has_fleet) {
        fprintf(out, "  fleet %lld GPUs in %lld boxes", v->gpus_needed, v->boxes_needed);
        if (v->has_capex)
            fprintf(out, ", capex %s", tc_report_sig(cx, sizeof cx, v->capex));
    }
    fputc('\n', out);
}

static void frontier_line(FILE *out, const char *side, const tc_frontier_pt *f, size_t n)
{
    fprintf(out, "Frontier %s (tok/s per user, tok/s per GPU):", side);
    for (size_t i = 0; i < n; i++)
        fprintf(out, " (%.4g, %.4g)", f[i].x, f[i].y);
    fputc('\n', out);
}

tc_err tc_report_frontier_text(FILE *out, const tc_frontier_side *a, const tc_frontier_side *b,
                               const tc_frontier_result *r)
{
    int sim = a->simulated || (b && b->simulated);
    fprintf(out, "%sCost at equal interactivity: A = %s%s%s\n", sim ? "SIMULATED " : "",
            a->set.name, b ? ", B = " : "", b ? b->set.name : "");
    char cx[32];
    for (size_t i = 0; i < r->n_targets; i++) {
        const tc_frontier_target *t = &r->t[i];
        fprintf(out, "At %g tokens/s per user:\n", t->x);
        value_line(out, "A", &t->a);
        if (!r->two)
            continue;
        value_line(out, "B", &t->b);
        if (t->has_ratio) {
            fprintf(out, "  cost B/A %.4g", t->ratio);
            if (isfinite(t->ratio_lo))
                fprintf(out, " [%.4g, %.4g], P(B cheaper) %.3f", t->ratio_lo, t->ratio_hi,
                        t->p_b_cheaper);
            if (t->verdict)
                fprintf(out, "; claim %s", t->verdict);
            fputc('\n', out);
        }
        if (t->has_capex_diff)
            fprintf(out, "  fleet capex B - A %s\n", tc_report_sig(cx, sizeof cx, t->capex_diff));
    }
    if (r->resamples > 0)
        fprintf(out,
                "Intervals: 95%%, percentile bootstrap of the requests within each point, "
                "%d resamples, seed %llu\n",
                r->resamples, (unsigned long long)r->seed);
    if (r->has_claim)
        fprintf(out,
                "Claim \"A is %g times more cost-efficient than B\" (cost B / cost A >= %g): "
                "%s\n",
                r->claim, r->claim, r->overall);
    for (int k = 0; a->has_slo && k < (b ? 2 : 1); k++) {
        const tc_frontier_side *sd = k ? b : a;
        if (r->slo_point[k] < 0) {
            fprintf(out,
                    "Highest load meeting the SLO, %s: none of its points (%.0f%% of "
                    "requests good)\n",
                    k ? "B" : "A", TC_FRONTIER_SLO_ATTAINMENT * 100);
            continue;
        }
        const tc_frontier_value *v = &r->slo_value[k];
        fprintf(out, "Highest load meeting the SLO, %s: run %lld, %.4g tok/s/GPU, ", k ? "B" : "A",
                (long long)sd->pts[r->slo_point[k]].run_id, v->tokens_per_s_per_gpu);
        if (v->has_cost)
            fprintf(out, "%.4g /Mtok, %.4g /M good tokens\n", v->cost_per_million_tokens,
                    v->cost_per_million_good_tokens);
        else
            fprintf(out, "cost n/a\n");
    }
    if (r->has_slo_ratio)
        fprintf(out, "  cost B/A at those loads %.4g\n", r->slo_ratio);
    if (r->has_demand)
        fprintf(out, "Fleet: for %.4g output tokens a month, at the profile's utilization\n",
                r->demand);
    for (int i = 0; i < r->n_warnings; i++)
        fprintf(out, "WARNING %s\n", r->warnings[i]);
    frontier_line(out, "A", r->fa, r->n_fa);
    if (b)
        frontier_line(out, "B", r->fb, r->n_fb);
    tc_report_method_pointer(out, "The frontier");
    return ferror(out) ? TC_ERR_IO : TC_OK;
}
