/* truecost compare: the side-by-side table and the JSON document. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report_json.h"
#include "cli_compare.h"
#include "cli_roofline.h"

/* ---- the figures of a row ------------------------------------------------ */

static double get_tps(const tc_figures *f, int *valid)
{
    *valid = f->m.has_duration;
    return f->m.output_tokens_per_s;
}

static double get_rps(const tc_figures *f, int *valid)
{
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
    return f->cost_in.busy_watts;
}

static double get_jpt(const tc_figures *f, int *valid)
{
    *valid = f->cost_in.j_per_token > 0;
    return f->cost_in.j_per_token;
}

const compare_row tc_compare_rows[] = {
    {"output_tokens_per_s", "tok/s", get_tps},
    {"requests_per_s", "req/s", get_rps},
    {"ttft_p50_ms", "ms", get_ttft50},
    {"ttft_p99_ms", "ms", get_ttft99},
    {"itl_p50_ms", "ms", get_itl50},
    {"itl_p99_ms", "ms", get_itl99},
    {"e2e_p50_ms", "ms", get_e2e50},
    {"e2e_p99_ms", "ms", get_e2e99},
    {"decode_tps_p50", "tok/s", tc_compare_get_decode_p50},
    {"power_w", "W", get_power},
    {"joules_per_token", "J/tok", get_jpt},
};
const int tc_compare_n_rows = (int)(sizeof tc_compare_rows / sizeof tc_compare_rows[0]);

double tc_compare_side_mean(const compare_side *s, compare_getter get, int *valid)
{
    double sum = 0;
    *valid = s->set.n > 0;
    for (size_t i = 0; i < s->set.n; i++) {
        int ok;
        sum += get(&s->f[i], &ok);
        *valid = *valid && ok;
    }
    return *valid ? sum / (double)s->set.n : NAN;
}

/* ---- text ---------------------------------------------------------------- */

static void side_title(const compare_side *s)
{
    if (s->set.is_group)
        printf("  %s: group '%s' (%zu runs, ids %lld..%lld)", s->label, s->set.name, s->set.n,
               (long long)s->set.runs[0].id, (long long)s->set.runs[s->set.n - 1].id);
    else
        printf("  %s: run %lld%s%s%s", s->label, (long long)s->set.runs[0].id,
               s->set.runs[0].label[0] ? " (" : "", s->set.runs[0].label,
               s->set.runs[0].label[0] ? ")" : "");
    printf(": %s%s\n", s->set.runs[0].model, s->set.runs[0].simulated ? " [SIMULATED]" : "");
    if (s->set.n >= 2)
        printf("     throughput %.4g tok/s mean, CV %.1f%%%s\n", s->tps.mean, s->tps.cv * 100,
               s->tps.noisy ? ": over 3%, NOISY: rerun or look for noise (thermal, other load)"
                            : "");
}

static void print_value(double v, int valid)
{
    if (valid)
        printf(" %12.4g", v);
    else
        printf(" %12s", "n/a");
}

static void print_table(const compare_result *r)
{
    printf("  %-22s %-6s %12s %12s %12s\n", "figure", "unit", "A", "B", "B/A");
    for (int i = 0; i < tc_compare_n_rows; i++) {
        const compare_row *row = &tc_compare_rows[i];
        int va, vb;
        double a = tc_compare_side_mean(&r->a, row->get, &va);
        double b = tc_compare_side_mean(&r->b, row->get, &vb);
        printf("  %-22s %-6s", row->name, row->unit);
        print_value(a, va);
        print_value(b, vb);
        print_value(b / a, va && vb && a != 0);
        putchar('\n');
    }
    if (r->a.profile && r->b.profile) {
        printf("  %-22s %-6s", "cost_per_million", r->a.profile->currency);
        print_value(r->a.cost.cost_per_million_tokens, r->a.has_cost);
        print_value(r->b.cost.cost_per_million_tokens, r->b.has_cost);
        print_value(r->b.cost.cost_per_million_tokens / r->a.cost.cost_per_million_tokens,
                    r->a.has_cost && r->b.has_cost);
        putchar('\n');
    }
    const tc_roofline_result *ra = &r->a.roof, *rb = &r->b.roof;
    if (ra->has_measured || rb->has_measured) {
        printf("  %-22s %-6s", "decode_of_bound", "%");
        print_value(ra->percent_of_ceiling, ra->has_measured);
        print_value(rb->percent_of_ceiling, rb->has_measured);
        printf("   (median decode / the GPU's bandwidth bound)\n");
    }
}

static void print_ci(const char *what, const tc_boot_ci *ci)
{
    printf("  %-34s %.4g  [%.4g, %.4g]\n", what, ci->point, ci->lo, ci->hi);
}

static void print_confidence(const compare_result *r)
{
    printf("Confidence: %.0f%%, %s; %d resamples, seed %llu, resampling %s\n",
           r->tps_ratio.level * 100, r->method, r->tps_ratio.resamples,
           (unsigned long long)r->tps_ratio.seed, r->resampling);
    print_ci("throughput B/A", &r->tps_ratio);
    if (r->has_cost_ratio)
        print_ci("cost per token B/A", &r->cost_ratio);
    else if (r->a.profile)
        puts("  cost per token B/A: not available (a cost term is missing; see 'truecost cost')");
    if (strcmp(r->resampling, "runs") != 0)
        puts("  Note: a single run's requests were resampled: run-to-run variation is NOT "
             "covered. Use 'truecost run --repeat K' on each platform.");
    size_t fewest = r->a.set.n < r->b.set.n ? r->a.set.n : r->b.set.n;
    if (strcmp(r->resampling, "runs") == 0 && fewest < 5)
        printf("  Note: %zu runs on a side give a wide interval; 5 or more make it useful.\n",
               fewest);
}

static void print_claim(const compare_result *r)
{
    const compare_claim *c = &r->claim;
    if (!c->given)
        return;
    printf("Claim: \"A is %g times more %s than B\": %s\n", c->x,
           c->on_cost ? "cost-efficient" : "efficient (throughput)",
           tc_claim_verdict_name(c->verdict));
    printf("  measured: A is %.4g times %s [%.4g, %.4g]\n", c->ci.point,
           c->on_cost ? "as cost-efficient (cost B / cost A)" : "as fast (tokens/s A / B)",
           c->ci.lo, c->ci.hi);
    if (!c->on_cost)
        printf("  (%s)\n", c->why);
}

static void print_warnings(const compare_result *r)
{
    for (int i = 0; i < r->n_warnings; i++)
        printf("WARNING %s\n", r->warnings[i]);
}

static void print_differences(const compare_result *r)
{
    size_t i;
    json_t *d;
    int n = 0;
    json_array_foreach(r->differences, i, d)
    {
        int hw = json_is_true(json_object_get(d, "hardware"));
        char *va = json_dumps(json_object_get(d, "a"), JSON_ENCODE_ANY);
        char *vb = json_dumps(json_object_get(d, "b"), JSON_ENCODE_ANY);
        if (n++ == 0)
            puts("Differences (warnings: the comparison changes more than the hardware):");
        printf("  %s %s: %s vs %s: %s\n", hw ? "(compared)" : "WARNING",
               json_string_value(json_object_get(d, "field")), va ? va : "?", vb ? vb : "?",
               json_string_value(json_object_get(d, "why")));
        free(va);
        free(vb);
    }
    if (n == 0)
        puts("Differences: none recorded besides the figures");
}

void tc_compare_print(const compare_result *r)
{
    printf("%sComparison, ratios B/A\n", r->simulated ? "SIMULATED " : "");
    side_title(&r->a);
    side_title(&r->b);
    print_table(r);
    print_confidence(r);
    print_claim(r);
    print_warnings(r);
    print_differences(r);
}

/* ---- JSON ---------------------------------------------------------------- */

static json_t *num(double v, int valid)
{
    return valid && isfinite(v) ? json_real(v) : json_null();
}

static json_t *ci_json(const tc_boot_ci *ci)
{
    return json_pack("{s:f,s:f,s:f,s:f}", "point", ci->point, "low", ci->lo, "high", ci->hi,
                     "level", ci->level);
}

static json_t *side_json(const compare_side *s)
{
    json_t *ids = json_array(), *fig = json_object();
    for (size_t i = 0; i < s->set.n; i++)
        json_array_append_new(ids, json_integer(s->set.runs[i].id));
    for (int i = 0; i < tc_compare_n_rows; i++) {
        int v;
        double x = tc_compare_side_mean(s, tc_compare_rows[i].get, &v);
        json_object_set_new(fig, tc_compare_rows[i].name, num(x, v));
    }
    json_object_set_new(fig, "cost_per_million_tokens",
                        num(s->cost.cost_per_million_tokens, s->has_cost));
    json_t *o =
        json_pack("{s:o,s:b,s:o,s:o,s:b,s:o}", "name", tc_json_string(s->set.name), "group",
                  s->set.is_group, "run_ids", ids, "model", tc_json_string(s->set.runs[0].model),
                  "simulated", s->set.runs[0].simulated, "figures", fig);
    if (o && s->profile) {
        json_object_set_new(o, "profile", tc_json_string(s->profile->name));
        json_object_set_new(o, "currency", tc_json_string(s->profile->currency));
    }
    if (o)
        json_object_set_new(o, "roofline",
                            tc_cli_roofline_brief_json(&s->roof, s->set.runs[0].concurrency));
    if (o && s->set.n >= 2)
        json_object_set_new(o, "throughput_spread",
                            json_pack("{s:I,s:f,s:f,s:f,s:b}", "runs", (json_int_t)s->tps.n, "mean",
                                      s->tps.mean, "stddev", s->tps.stddev, "cv", s->tps.cv,
                                      "noisy", s->tps.noisy));
    return o;
}

static json_t *claim_json(const compare_claim *c)
{
    if (!c->given)
        return json_null();
    json_t *o =
        json_pack("{s:f,s:s,s:s,s:o}", "x", c->x, "basis", c->on_cost ? "cost" : "throughput",
                  "verdict", tc_claim_verdict_name(c->verdict), "measured", ci_json(&c->ci));
    if (o && !c->on_cost)
        json_object_set_new(o, "note", json_string(c->why));
    return o;
}

static json_t *ratios_json(const compare_result *r)
{
    json_t *o = json_object();
    for (int i = 0; i < tc_compare_n_rows; i++) {
        int va, vb;
        double a = tc_compare_side_mean(&r->a, tc_compare_rows[i].get, &va);
        double b = tc_compare_side_mean(&r->b, tc_compare_rows[i].get, &vb);
        json_object_set_new(o, tc_compare_rows[i].name, num(b / a, va && vb && a != 0));
    }
    json_object_set_new(o, "cost_per_million_tokens",
                        num(r->b.cost.cost_per_million_tokens / r->a.cost.cost_per_million_tokens,
                            r->a.has_cost && r->b.has_cost));
    return o;
}

json_t *tc_compare_json(const compare_result *r)
{
    json_t *warn = json_array();
    for (int i = 0; i < r->n_warnings; i++)
        json_array_append_new(warn, json_string(r->warnings[i]));
    json_t *conf = json_pack("{s:o,s:o}", "throughput_ratio", ci_json(&r->tps_ratio), "cost_ratio",
                             r->has_cost_ratio ? ci_json(&r->cost_ratio) : json_null());
    return json_pack("{s:b,s:o,s:o,s:o,s:s,s:s,s:b,s:i,s:I,s:o,s:o,s:o,s:O}", "simulated",
                     r->simulated, "a", side_json(&r->a), "b", side_json(&r->b), "ratios_b_over_a",
                     ratios_json(r), "resampling", r->resampling, "interval_method", r->method,
                     "run_to_run_covered", strcmp(r->resampling, "runs") == 0, "resamples",
                     r->tps_ratio.resamples, "seed", (json_int_t)r->tps_ratio.seed, "confidence",
                     conf, "claim", claim_json(&r->claim), "warnings", warn, "differences",
                     r->differences);
}
