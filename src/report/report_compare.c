/* truecost compare: the side-by-side table and the JSON document. */
#include "report/report_compare.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/figures.h"
#include "core/tc_json.h"
#include "report/report_roofline.h"

/* ---- text ---------------------------------------------------------------- */

static void side_title(FILE *out, const tc_compare_platform *s)
{
    const tc_runset *set = s->set;
    const tc_run_info *run = &set->runs[0];
    if (set->is_group)
        fprintf(out, "  %s: group '%s' (%zu runs, ids %lld..%lld)", s->label, set->name, set->n,
                (long long)run->id, (long long)set->runs[set->n - 1].id);
    else
        fprintf(out, "  %s: run %lld%s%s%s", s->label, (long long)run->id,
                run->label[0] ? " (" : "", run->label, run->label[0] ? ")" : "");
    fprintf(out, ": %s%s\n", run->model, run->simulated ? " [SIMULATED]" : "");
    if (set->n >= 2)
        fprintf(out, "     window throughput %.4g tok/s mean, CV %.1f%%%s\n", s->tps.mean,
                s->tps.cv * 100,
                s->tps.noisy ? ": over 3%, NOISY: rerun or look for noise (thermal, other load)"
                             : "");
}

static void print_value(FILE *out, double v, int valid)
{
    if (valid)
        fprintf(out, " %12.4g", v);
    else
        fprintf(out, " %12s", "n/a");
}

static void print_table(FILE *out, const tc_compare_result *r)
{
    fprintf(out, "  %-26s %-6s %12s %12s %12s\n", "figure", "unit", "A", "B", "B/A");
    for (int i = 0; i < tc_compare_n_rows; i++) {
        const tc_compare_row *row = &tc_compare_rows[i];
        int va, vb;
        double a = tc_compare_platform_mean(&r->a, row->get, &va);
        double b = tc_compare_platform_mean(&r->b, row->get, &vb);
        fprintf(out, "  %-26s %-6s", row->name, row->unit);
        print_value(out, a, va);
        print_value(out, b, vb);
        print_value(out, b / a, va && vb && a != 0);
        fputc('\n', out);
    }
    if (r->a.profile && r->b.profile) {
        fprintf(out, "  %-26s %-6s", "cost_per_million", r->a.profile->currency);
        print_value(out, r->a.cost.cost_per_million_tokens, r->a.has_cost);
        print_value(out, r->b.cost.cost_per_million_tokens, r->b.has_cost);
        print_value(out, r->b.cost.cost_per_million_tokens / r->a.cost.cost_per_million_tokens,
                    r->a.has_cost && r->b.has_cost);
        fputc('\n', out);
    }
    const tc_roofline_result *ra = &r->a.roof, *rb = &r->b.roof;
    if (ra->has_measured || rb->has_measured) {
        fprintf(out, "  %-26s %-6s", "decode_of_bound", "%");
        print_value(out, ra->percent_of_ceiling, ra->has_measured);
        print_value(out, rb->percent_of_ceiling, rb->has_measured);
        fputs("   (median decode / the GPU's bandwidth bound)\n", out);
    }
}

static void print_ci(FILE *out, const char *what, const tc_boot_ci *ci)
{
    fprintf(out, "  %-34s %.4g  [%.4g, %.4g]\n", what, ci->point, ci->lo, ci->hi);
}

static void print_confidence(FILE *out, const tc_compare_result *r)
{
    fprintf(out, "Confidence: %.0f%%, %s; %d resamples, seed %llu, resampling %s\n",
            r->tps_ratio.level * 100, r->method, r->tps_ratio.resamples,
            (unsigned long long)r->tps_ratio.seed, r->resampling);
    print_ci(out, "throughput B/A", &r->tps_ratio);
    if (r->has_cost_ratio)
        print_ci(out, "cost per token B/A", &r->cost_ratio);
    else if (r->a.profile)
        fputs("  cost per token B/A: not available (a cost term is missing; see 'truecost "
              "cost')\n",
              out);
    if (strcmp(r->resampling, "runs") != 0)
        fputs("  Note: a single run's requests were resampled: run-to-run variation is NOT "
              "covered. Use 'truecost run --repeat K' on each platform.\n",
              out);
    size_t fewest = r->a.set->n < r->b.set->n ? r->a.set->n : r->b.set->n;
    if (strcmp(r->resampling, "runs") == 0 && fewest < 5)
        fprintf(out, "  Note: %zu runs on a side give a wide interval; 5 or more make it useful.\n",
                fewest);
}

/* A claim is true or false at a service level; two runs are one each. */
#define TC_CLAIM_SCOPE                                                                             \
    "the verdict holds at the operating points measured only: sweep each platform and judge "      \
    "it across interactivity with 'truecost compare SWEEP_A SWEEP_B --claim X'"

static void print_claim(FILE *out, const tc_compare_claim *c)
{
    if (!c->given)
        return;
    fprintf(out, "Claim: \"A is %g times more %s than B\": %s\n", c->x,
            c->on_cost ? "cost-efficient" : "efficient (throughput)",
            tc_claim_verdict_name(c->verdict));
    fprintf(out, "  measured: A is %.4g times %s [%.4g, %.4g]\n", c->ci.point,
            c->on_cost ? "as cost-efficient (cost B / cost A)" : "as fast (tokens/s A / B)",
            c->ci.lo, c->ci.hi);
    if (!c->on_cost)
        fprintf(out, "  (%s)\n", c->why);
    fprintf(out, "  %s\n", TC_CLAIM_SCOPE);
}

static void print_differences(FILE *out, const json_t *differences)
{
    size_t i;
    json_t *d;
    int n = 0;
    json_array_foreach(differences, i, d)
    {
        int hw = json_is_true(json_object_get(d, "hardware"));
        char *va = json_dumps(json_object_get(d, "a"), JSON_ENCODE_ANY);
        char *vb = json_dumps(json_object_get(d, "b"), JSON_ENCODE_ANY);
        if (n++ == 0)
            fputs("Differences (warnings: the comparison changes more than the hardware):\n", out);
        fprintf(out, "  %s %s: %s vs %s: %s\n", hw ? "(compared)" : "WARNING",
                json_string_value(json_object_get(d, "field")), va ? va : "?", vb ? vb : "?",
                json_string_value(json_object_get(d, "why")));
        free(va);
        free(vb);
    }
    if (n == 0)
        fputs("Differences: none recorded besides the figures\n", out);
}

void tc_report_compare_print(FILE *out, const tc_compare_result *r)
{
    fprintf(out, "%sComparison, ratios B/A\n", r->simulated ? "SIMULATED " : "");
    side_title(out, &r->a);
    side_title(out, &r->b);
    print_table(out, r);
    print_confidence(out, r);
    print_claim(out, &r->claim);
    for (int i = 0; i < r->n_warnings; i++)
        fprintf(out, "WARNING %s\n", r->warnings[i]);
    print_differences(out, r->differences);
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *ci_json(const tc_boot_ci *ci)
{
    return json_pack("{s:f,s:f,s:f,s:f}", "point", ci->point, "low", ci->lo, "high", ci->hi,
                     "level", ci->level);
}

/* The figures' renamed keys, kept for one release (docs/json.md, Renamed). */
static json_t *renamed(json_t *o)
{
    tc_json_alias(o, "power_w", "avg_power_w");
    tc_json_alias(o, "output_tokens_per_s", "window_output_tokens_per_s");
    return tc_json_alias(o, "joules_per_token", "joules_per_output_token");
}

static json_t *side_json(const tc_compare_platform *s)
{
    const tc_runset *set = s->set;
    json_t *ids = json_array(), *fig = json_object();
    for (size_t i = 0; i < set->n; i++)
        json_array_append_new(ids, json_integer(set->runs[i].id));
    for (int i = 0; i < tc_compare_n_rows; i++) {
        int v;
        double x = tc_compare_platform_mean(s, tc_compare_rows[i].get, &v);
        json_object_set_new(fig, tc_compare_rows[i].name, tc_json_num(v, x));
    }
    json_object_set_new(fig, "cost_per_million_tokens",
                        tc_json_num(s->has_cost, s->cost.cost_per_million_tokens));
    renamed(fig);
    json_t *o =
        json_pack("{s:o,s:b,s:o,s:o,s:b,s:o}", "name", tc_json_string(set->name), "group",
                  set->is_group, "run_ids", ids, "model", tc_json_string(set->runs[0].model),
                  "simulated", set->runs[0].simulated, "figures", fig);
    if (o && s->profile) {
        json_object_set_new(o, "profile", tc_json_string(s->profile->name));
        json_object_set_new(o, "currency", tc_json_string(s->profile->currency));
        json_object_set_new(o, "power_scope",
                            s->cost.power_scope
                                ? json_string(tc_power_scope_name(s->cost.power_scope))
                                : json_null());
    }
    if (o)
        json_object_set_new(o, "roofline",
                            tc_report_roofline_brief_json(&s->roof, set->runs[0].concurrency));
    if (o && set->n >= 2)
        json_object_set_new(o, "throughput_spread",
                            json_pack("{s:I,s:f,s:f,s:f,s:b}", "runs", (json_int_t)s->tps.n, "mean",
                                      s->tps.mean, "stddev", s->tps.stddev, "cv", s->tps.cv,
                                      "noisy", s->tps.noisy));
    return o;
}

static json_t *claim_json(const tc_compare_claim *c)
{
    if (!c->given)
        return json_null();
    json_t *o =
        json_pack("{s:f,s:s,s:s,s:o}", "x", c->x, "basis", c->on_cost ? "cost" : "throughput",
                  "verdict", tc_claim_verdict_name(c->verdict), "measured", ci_json(&c->ci));
    if (o && !c->on_cost)
        json_object_set_new(o, "note", json_string(c->why));
    if (o)
        json_object_set_new(o, "scope", json_string(TC_CLAIM_SCOPE));
    return o;
}

static json_t *ratios_json(const tc_compare_result *r)
{
    json_t *o = json_object();
    for (int i = 0; i < tc_compare_n_rows; i++) {
        int va, vb;
        double a = tc_compare_platform_mean(&r->a, tc_compare_rows[i].get, &va);
        double b = tc_compare_platform_mean(&r->b, tc_compare_rows[i].get, &vb);
        json_object_set_new(o, tc_compare_rows[i].name, tc_json_num(va && vb && a != 0, b / a));
    }
    json_object_set_new(
        o, "cost_per_million_tokens",
        tc_json_num(r->a.has_cost && r->b.has_cost,
                    r->b.cost.cost_per_million_tokens / r->a.cost.cost_per_million_tokens));
    return renamed(o);
}

json_t *tc_report_compare_json(const tc_compare_result *r)
{
    json_t *warn = json_array();
    for (int i = 0; i < r->n_warnings; i++)
        json_array_append_new(warn, tc_json_string(r->warnings[i]));
    json_t *conf = json_pack("{s:o,s:o}", "throughput_ratio", ci_json(&r->tps_ratio), "cost_ratio",
                             r->has_cost_ratio ? ci_json(&r->cost_ratio) : json_null());
    json_t *diff = r->differences ? json_incref(r->differences) : json_array();
    return json_pack("{s:b,s:o,s:o,s:o,s:s,s:s,s:b,s:i,s:I,s:o,s:o,s:o,s:o}", "simulated",
                     r->simulated, "a", side_json(&r->a), "b", side_json(&r->b), "ratios_b_over_a",
                     ratios_json(r), "resampling", r->resampling, "interval_method", r->method,
                     "run_to_run_covered", strcmp(r->resampling, "runs") == 0, "resamples",
                     r->tps_ratio.resamples, "seed", (json_int_t)r->tps_ratio.seed, "confidence",
                     conf, "claim", claim_json(&r->claim), "warnings", warn, "differences", diff);
}
