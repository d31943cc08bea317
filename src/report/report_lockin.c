/* truecost lockin: the text report and the JSON document. */
#include "report/report_lockin.h"

#include "core/tc_json.h"
#include "report/report_table.h"

/* A figure for people: 4 significant digits (report_table.h). */
#define S(buf, v) tc_report_sig(buf, sizeof buf, (v))

/* ---- JSON ------------------------------------------------------------- */

static json_t *range_json(const tc_lockin_range *r)
{
    return json_pack("{s:f,s:f,s:f,s:f,s:o,s:o}", "low", r->low, "mode", tc_lockin_range_point(r),
                     "high", r->high, "point", tc_lockin_range_point(r), "source",
                     tc_json_string(r->source), "line",
                     r->line ? json_integer(r->line) : json_null());
}

static json_t *answer_json(tc_lockin_answer a)
{
    return a == TC_LOCKIN_NOT_GIVEN ? json_null() : json_string(tc_lockin_answer_name(a));
}

static json_t *inputs_json(const tc_lockin *in)
{
    json_t *effort = json_object();
    for (int i = 0; i < TC_LOCKIN_N_ITEMS; i++)
        json_object_set_new(effort, tc_lockin_item_name((tc_lockin_item)i),
                            range_json(&in->effort[i]));
    return json_pack("{s:o,s:f,s:f,s:f,s:o,s:f,s:f,s:f,s:f,s:f,s:o,s:{s:o,s:o,s:o}}", "effort",
                     effort, "day_cost", in->day_cost.value, "probability", in->probability.value,
                     "incident_cost", in->incident_cost.value, "premium", range_json(&in->premium),
                     "hire_cost", in->hire_cost.value, "units", in->units.value, "price_incumbent",
                     in->price_incumbent.value, "price_alternative", in->price_alternative.value,
                     "months", in->months.value, "tokens_per_month",
                     tc_json_num(in->tokens_per_month.valid, in->tokens_per_month.value),
                     "decision", "profiler_skill", answer_json(in->profiler_skill), "fallback_path",
                     answer_json(in->fallback_path), "soak_passed", answer_json(in->soak_passed));
}

static json_t *quantiles_json(const tc_lockin_quantiles *q)
{
    return json_pack("{s:f,s:f,s:f}", "p10", q->p10, "p50", q->p50, "p90", q->p90);
}

static json_t *break_even_json(const tc_lockin_result *r)
{
    if (!r->has_running_saving)
        return json_null();
    if (r->break_even_never)
        return json_pack("{s:b,s:f,s:n,s:n,s:n,s:n}", "never", 1, "running_saving_per_month",
                         r->running_saving_per_month, "p10", "p50", "p90", "after_hardware");
    json_t *doc = quantiles_json(&r->break_even_months);
    json_object_set_new(doc, "never", json_false());
    json_object_set_new(doc, "running_saving_per_month", json_real(r->running_saving_per_month));
    json_object_set_new(doc, "after_hardware",
                        quantiles_json(&r->break_even_months_after_hardware));
    return doc;
}

static json_t *perf_json(const tc_lockin_result *r, const tc_lockin_overrides *o)
{
    if (r->perf_class == TC_LOCKIN_PERF_NONE)
        return json_null();
    return json_pack("{s:f,s:s,s:b,s:o}", "ratio", r->perf_ratio, "class",
                     tc_lockin_perf_class_name(r->perf_class), "flagged",
                     r->perf_class == TC_LOCKIN_PERF_SUSPECT, "source",
                     tc_json_string(o && o->perf_source[0] ? o->perf_source : "measured"));
}

static json_t *terms_json(const tc_lockin_terms *t)
{
    json_t *days = json_object();
    for (int i = 0; i < TC_LOCKIN_N_ITEMS; i++)
        json_object_set_new(days, tc_lockin_item_name((tc_lockin_item)i),
                            json_real(t->item_days[i]));
    return json_pack("{s:f,s:f,s:f,s:f,s:o}", "effort_days", t->effort_days, "effort_cost",
                     t->effort_cost, "risk_cost", t->risk_cost, "talent_cost", t->talent_cost,
                     "item_days", days);
}

json_t *tc_report_lockin_json(const tc_lockin_result *r, const tc_lockin_overrides *o)
{
    json_t *sens = json_array();
    for (int i = 0; i < r->n_sensitivity; i++) {
        const tc_lockin_swing *s = &r->sensitivity[i];
        json_array_append_new(sens, json_pack("{s:s,s:f,s:f,s:f}", "input", s->input, "low_total",
                                              s->low_total, "high_total", s->high_total, "swing",
                                              s->swing));
    }
    json_t *net = quantiles_json(&r->net_benefit);
    json_object_set_new(net, "months", json_real(r->inputs.months.value));
    json_object_set_new(net, "probability_positive", json_real(r->probability_net_positive));
    json_object_set_new(net, "running_saving_included", json_boolean(r->has_running_saving));
    char reading[600];
    tc_lockin_reading(r, reading, sizeof reading);
    return json_pack(
        "{s:b,s:o,s:o,s:o,s:f,s:o,s:I,s:I,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:o,s:o,"
        "s:o,s:o,s:o,s:o,s:o,s:o}",
        "simulated", o && o->simulated, "assessment", tc_json_string(r->inputs.name), "currency",
        tc_json_string(r->inputs.currency), "inputs", inputs_json(&r->inputs), "point_estimate",
        r->point.total, "terms", terms_json(&r->point), "samples", (json_int_t)r->samples, "seed",
        (json_int_t)r->seed, "mean", r->mean, "min", r->min, "max", r->max, "p10", r->total.p10,
        "p50", r->total.p50, "p90", r->total.p90, "hardware_saving", r->hardware_saving,
        "probability_exceeds_saving", r->probability_exceeds_saving, "sensitivity", sens,
        "performance", perf_json(r, o), "running_saving_per_month",
        tc_json_num(r->has_running_saving, r->running_saving_per_month), "break_even",
        break_even_json(r), "net_benefit", net, "reading", tc_json_string(reading),
        "hardware_saving_source",
        tc_json_string(r->hardware_source[0] ? r->hardware_source : "assessment"), "risk_source",
        tc_json_string(o && o->has_risk ? o->risk_source : "assessment"));
}

/* ---- text ------------------------------------------------------------- */

static void print_range(FILE *out, const char *name, const tc_lockin_range *r, const char *unit)
{
    char where[128];
    if (r->line)
        snprintf(where, sizeof where, "line %d", r->line);
    else
        snprintf(where, sizeof where, "%s", r->source);
    fprintf(out, "  %-14s %8.4g ..%8.4g ..%8.4g  %-13s (%s)\n", name, r->low,
            tc_lockin_range_point(r), r->high, unit, where);
}

static void print_point(FILE *out, const tc_lockin_result *r)
{
    const tc_lockin *in = &r->inputs;
    const tc_lockin_terms *t = &r->point;
    const char *cur = in->currency;
    fputs("Inputs (low .. point .. high):\n", out);
    for (int i = 0; i < TC_LOCKIN_N_ITEMS; i++)
        print_range(out, tc_lockin_item_name((tc_lockin_item)i), &in->effort[i], "person-days");
    print_range(out, "talent", &in->premium, "extra hires");
    fputs("Point estimate (modes, or midpoints of LOW..HIGH):\n", out);
    char what[96], v[4][32];
    snprintf(what, sizeof what, "%.4g person-days x %.2f per day", t->effort_days,
             in->day_cost.value);
    fprintf(out, "  %-7s %-46s = %12s %s\n", "effort", what, S(v[0], t->effort_cost), cur);
    snprintf(what, sizeof what, "%.4g probability x %.2f per incident", in->probability.value,
             in->incident_cost.value);
    fprintf(out, "  %-7s %-46s = %12s %s\n", "risk", what, S(v[0], t->risk_cost), cur);
    snprintf(what, sizeof what, "%.4g extra hires x %.2f per hire",
             tc_lockin_range_point(&in->premium), in->hire_cost.value);
    fprintf(out, "  %-7s %-46s = %12s %s\n", "talent", what, S(v[0], t->talent_cost), cur);
    fprintf(out, "  %-56s %12s %s\n", "lock-in cost", S(v[0], t->total), cur);
}

static void print_distribution(FILE *out, const tc_lockin_result *r)
{
    const tc_lockin *in = &r->inputs;
    const char *cur = in->currency;
    char v[4][32];
    fprintf(out, "Monte Carlo (%zu samples, seed %llu): P10 %s, P50 %s, P90 %s, mean %s %s\n",
            r->samples, (unsigned long long)r->seed, S(v[0], r->total.p10), S(v[1], r->total.p50),
            S(v[2], r->total.p90), S(v[3], r->mean), cur);
    if (r->hardware_source[0])
        fprintf(out,
                "Hardware saving: %s %s (measured: %s; not the assessment's units x price "
                "gap)\n",
                S(v[0], r->hardware_saving), cur, r->hardware_source);
    else
        fprintf(out, "Hardware saving: %.0f units x (%.2f - %.2f) = %s %s\n", in->units.value,
                in->price_incumbent.value, in->price_alternative.value, S(v[0], r->hardware_saving),
                cur);
    fprintf(out, "P(lock-in cost > hardware saving) = %.1f%%\n",
            100 * r->probability_exceeds_saving);
    fputs("Sensitivity (each range low -> high, the others at their point values):\n", out);
    if (r->n_sensitivity == 0)
        fputs("  none: every input is a single number\n", out);
    for (int i = 0; i < r->n_sensitivity; i++) {
        const tc_lockin_swing *s = &r->sensitivity[i];
        fprintf(out, "  %-12s %12s .. %12s  swing %12s %s\n", s->input, S(v[0], s->low_total),
                S(v[1], s->high_total), S(v[2], s->swing), cur);
    }
}

static void print_weighing(FILE *out, const tc_lockin_result *r, const tc_lockin_overrides *o)
{
    const char *cur = r->inputs.currency;
    char v[6][32];
    if (o && o->has_risk)
        fprintf(out,
                "Risk: probability %.4g from %s (outages per day, at most 1), not the "
                "assessment's; x %.2f per incident = %s %s\n",
                r->inputs.probability.value, o->risk_source, r->inputs.incident_cost.value,
                S(v[0], r->point.risk_cost), cur);
    if (r->perf_class != TC_LOCKIN_PERF_NONE)
        fprintf(out, "Performance: alternative / incumbent throughput %.3g (%s): %s%s\n",
                r->perf_ratio, o && o->perf_source[0] ? o->perf_source : "measured",
                tc_lockin_perf_class_name(r->perf_class),
                r->perf_class == TC_LOCKIN_PERF_OPTIONAL ? " (T_perf at its low end)"
                                                         : " (T_perf range kept)");
    if (!r->has_running_saving)
        fputs("Break-even: not computed (give --running-saving-per-month)\n", out);
    else if (r->break_even_never)
        fprintf(out, "Break-even: never (the running saving is %s %s per month)\n",
                S(v[0], r->running_saving_per_month), cur);
    else
        fprintf(out,
                "Break-even: P10 %s, P50 %s, P90 %s months of running saving "
                "(%s, %s, %s after the hardware saving)\n",
                S(v[0], r->break_even_months.p10), S(v[1], r->break_even_months.p50),
                S(v[2], r->break_even_months.p90), S(v[3], r->break_even_months_after_hardware.p10),
                S(v[4], r->break_even_months_after_hardware.p50),
                S(v[5], r->break_even_months_after_hardware.p90));
    fprintf(out, "Net benefit over %.4g months%s: P10 %s, P50 %s, P90 %s %s; positive in %.1f%%\n",
            r->inputs.months.value, r->has_running_saving ? "" : " (hardware saving only)",
            S(v[0], r->net_benefit.p10), S(v[1], r->net_benefit.p50), S(v[2], r->net_benefit.p90),
            cur, 100 * r->probability_net_positive);
    char reading[600];
    tc_lockin_reading(r, reading, sizeof reading);
    fprintf(out, "Reading: %s.\n", reading);
}

void tc_report_lockin_print(FILE *out, const tc_lockin_result *r, const tc_lockin_overrides *o)
{
    fprintf(out, "%sLock-in cost of %s (%s)\n", o && o->simulated ? "SIMULATED evidence: " : "",
            r->inputs.name, r->inputs.currency);
    print_point(out, r);
    print_distribution(out, r);
    print_weighing(out, r, o);
}
