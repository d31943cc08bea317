/* The cost of a run or a group under a profile, as text and JSON. */
#include "report_cost.h"

#include "core/tc_json.h"
#include "report/report_table.h"

static json_t *term_json(const tc_cost_term *t)
{
    return tc_json_num(t->available, t->value);
}

static json_t *inputs_json(const tc_cost_result *r)
{
    json_t *inputs = json_object();
    for (int i = 0; inputs && i < r->n_inputs; i++) {
        const tc_cost_input *in = &r->inputs[i];
        json_object_set_new(inputs, in->name,
                            json_pack("{s:o,s:s,s:s}", "value",
                                      tc_json_num(in->source != TC_COST_UNAVAILABLE, in->value),
                                      "source", tc_cost_source_name(in->source), "unit", in->unit));
    }
    return inputs;
}

static json_t *terms_json(const tc_cost_result *r)
{
    json_t *terms = json_object();
    json_object_set_new(terms, "hardware_per_month", term_json(&r->hardware));
    json_object_set_new(terms, "electricity_per_month", term_json(&r->electricity));
    json_object_set_new(terms, "operations_per_month", term_json(&r->operations));
    return terms;
}

static json_t *energy_json(const tc_cost_result *r)
{
    json_t *energy = json_object();
    json_object_set_new(energy, "joules_per_output_token",
                        tc_json_num(r->has_energy, r->joules_per_output_token));
    tc_json_alias(energy, "joules_per_token", "joules_per_output_token");
    json_object_set_new(energy, "tokens_per_kwh", tc_json_num(r->has_energy, r->tokens_per_kwh));
    json_object_set_new(energy, "tokens_per_s_per_watt",
                        tc_json_num(r->has_energy, r->tokens_per_s_per_watt));
    json_object_set_new(
        energy, "source",
        tc_json_string(r->has_energy ? tc_cost_source_name(r->energy_source) : NULL));
    json_object_set_new(energy, "window", json_string(r->steady ? "steady" : "run"));
    json_object_set_new(energy, "power_scope",
                        r->power_scope ? json_string(tc_power_scope_name(r->power_scope))
                                       : json_null());
    return energy;
}

static json_t *group_json(const tc_runset *set, const tc_group_stat *spread)
{
    json_t *ids = json_array();
    for (size_t i = 0; ids && i < set->n; i++)
        json_array_append_new(ids, json_integer(set->runs[i].id));
    return json_pack("{s:o,s:o,s:f,s:f,s:b}", "name", tc_json_string(set->name), "run_ids", ids,
                     "throughput_mean", spread->mean, "throughput_cv", spread->cv, "noisy",
                     spread->noisy);
}

/* What the document adds after its main members, in this order. */
static void extras(json_t *doc, const tc_runset *set, const tc_set_summary *s,
                   const tc_cost_result *r)
{
    if (set->is_group)
        json_object_set_new(doc, "group", group_json(set, &s->tps));
    if (r->is_cloud)
        json_object_set_new(doc, "cloud_busy_cost_per_million_tokens",
                            json_real(r->cloud_busy_cost_per_million_tokens));
    if (r->has_demand)
        json_object_set_new(doc, "demand",
                            json_pack("{s:f,s:I,s:o}", "tokens_per_month",
                                      r->demand_tokens_per_month, "devices_needed",
                                      (json_int_t)r->devices_needed, "cost_per_month",
                                      tc_json_num(r->has_cost, r->fleet_per_month)));
    json_t *w = json_array();
    for (int i = 0; w && i < s->n_warnings; i++)
        json_array_append_new(w, tc_json_string(s->warnings[i]));
    json_object_set_new(doc, "warnings", w);
}

json_t *tc_report_cost_json(const tc_runset *set, const tc_cost_profile *p, const tc_set_summary *s,
                            const tc_cost_result *r)
{
    const tc_run_info *run = &set->runs[0];
    json_t *notes = json_object();
    if (notes && r->electricity.why[0])
        json_object_set_new(notes, "electricity_per_month", tc_json_string(r->electricity.why));
    /* Label, profile path and currency are the user's bytes, maybe not
     * UTF-8, which "s" refuses (no document at all): cleaned, with "o". */
    json_t *doc = json_pack(
        "{s:I,s:o,s:b,s:o,s:o,s:b,s:o,s:o,s:f,s:o,s:o,s:o,s:o}", "run_id", (json_int_t)run->id,
        "label", tc_json_string(run->label), "simulated", run->simulated, "profile",
        tc_json_string(p->name), "currency", tc_json_string(p->currency), "cloud", r->is_cloud,
        "cost_per_million_tokens", tc_json_num(r->has_cost, r->cost_per_million_tokens),
        "cost_per_month", tc_json_num(r->has_cost, r->per_month), "tokens_per_month",
        r->tokens_per_month, "terms", terms_json(r), "term_notes", notes, "inputs", inputs_json(r),
        "energy", energy_json(r));
    if (doc)
        extras(doc, set, s, r);
    return doc;
}

static void print_term(FILE *out, const char *name, const tc_cost_term *t, const char *currency)
{
    if (t->included)
        fprintf(out, "  %-22s %s\n", name, t->why);
    else if (t->available) {
        char v[32];
        fprintf(out, "  %-22s %12s %s/month\n", name, tc_report_sig(v, sizeof v, t->value),
                currency);
    } else
        fprintf(out, "  %-22s not available: %s\n", name, t->why);
}

static void print_title(FILE *out, const tc_runset *set, const tc_cost_profile *p,
                        const tc_group_stat *spread)
{
    const tc_run_info *run = &set->runs[0];
    if (set->is_group)
        fprintf(out, "%sCost of group '%s' (%zu runs, mean throughput, CV %.1f%%%s) under %s\n",
                run->simulated ? "SIMULATED " : "", set->name, set->n, spread->cv * 100,
                spread->noisy ? ": NOISY, over 3%" : "", p->name);
    else
        fprintf(out, "%sCost of run %lld (%s) under %s\n", run->simulated ? "SIMULATED " : "",
                (long long)run->id, run->label[0] ? run->label : "no label", p->name);
}

static void print_inputs(FILE *out, const tc_cost_result *r)
{
    fputs("Inputs:\n", out);
    for (int i = 0; i < r->n_inputs; i++) {
        const tc_cost_input *in = &r->inputs[i];
        if (in->source == TC_COST_UNAVAILABLE)
            fprintf(out, "  %-24s %14s  %-12s (unavailable)\n", in->name, "n/a", in->unit);
        else {
            char v[32];
            fprintf(out, "  %-24s %14s  %-12s (%s)\n", in->name,
                    tc_report_sig(v, sizeof v, in->value), in->unit,
                    tc_cost_source_name(in->source));
        }
    }
}

static void print_totals(FILE *out, const tc_cost_profile *p, const tc_cost_result *r)
{
    fprintf(out, "Per month (%.2f days):\n", TC_COST_MONTH_DAYS);
    print_term(out, r->is_cloud ? "rental" : "hardware", &r->hardware, p->currency);
    print_term(out, "electricity", &r->electricity, p->currency);
    print_term(out, "operations", &r->operations, p->currency);
    fprintf(out, "  %-22s %12.4g tokens/month (at the utilization above)\n", "output tokens",
            r->tokens_per_month);
    char v[32];
    if (r->has_cost)
        fprintf(out, "Cost per million output tokens: %s %s\n",
                tc_report_sig(v, sizeof v, r->cost_per_million_tokens), p->currency);
    else
        fputs("Cost per million output tokens: not available (a term above is missing)\n", out);
    if (r->is_cloud)
        fprintf(out, "  at full use (price per hour / tokens per hour): %s %s per million\n",
                tc_report_sig(v, sizeof v, r->cloud_busy_cost_per_million_tokens), p->currency);
    if (r->has_demand)
        fprintf(out, "Demand %.4g tokens/month: %lld device(s)\n", r->demand_tokens_per_month,
                r->devices_needed);
}

tc_err tc_report_cost_text(FILE *out, const tc_runset *set, const tc_cost_profile *p,
                           const tc_set_summary *s, const tc_cost_result *r)
{
    print_title(out, set, p, &s->tps);
    print_inputs(out, r);
    fprintf(out, "Measured over: %s\n",
            r->steady ? "the steady-state window (ramp-up and drain left out)"
                      : "the whole run (it reached no steady state)");
    if (r->power_scope != TC_SCOPE_NONE)
        fprintf(out, "Power scope: %s (%s)\n", tc_power_scope_name(r->power_scope),
                tc_cost_input_get(r, "busy_watts")->source == TC_COST_PROFILE
                    ? "the profile's [power] scope, box when not given"
                    : "the devices the run sampled");
    print_totals(out, p, r);
    if (r->has_energy)
        fprintf(out,
                "Energy (%s power, device only, no PUE): %.4g J/token, %.4g tokens/kWh, "
                "%.4g tokens/s per W\n",
                tc_cost_source_name(r->energy_source), r->joules_per_output_token,
                r->tokens_per_kwh, r->tokens_per_s_per_watt);
    else
        fputs("Energy: not available (no power measured and no [power] busy_watts)\n", out);
    for (int i = 0; i < s->n_warnings; i++)
        fprintf(out, "WARNING %s\n", s->warnings[i]);
    return ferror(out) ? TC_ERR_IO : TC_OK;
}
