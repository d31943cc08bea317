/* truecost decide: the checklist and verdict as text and JSON. */
#include "report/report_decide.h"

#include "core/tc_json.h"

static const char *mark(tc_decide_state s)
{
    return s == TC_ITEM_TICKED ? "[x]" : s == TC_ITEM_FAILED ? "[ ]" : "[?]";
}

void tc_report_decide_print(FILE *out, const tc_lockin_result *r, const tc_decide_result *d,
                            int simulated)
{
    fprintf(out, "%sDecision for %s: %s\n", simulated ? "SIMULATED evidence: " : "", r->inputs.name,
            tc_decide_verdict_name(d->verdict));
    fputs("Checklist ([x] ticked, [ ] not met, [?] not yet measured):\n", out);
    for (int i = 0; i < TC_DECIDE_ITEMS; i++) {
        const tc_decide_item *it = &d->items[i];
        fprintf(out, "  %s %-58s %s\n      %s\n", mark(it->state), it->text,
                it->declared ? "(declared)" : "", it->evidence);
    }
    fputs("Reasons:\n", out);
    for (int i = 0; i < d->n_reasons; i++)
        fprintf(out, "  - %s\n", d->reasons[i]);
    char reading[600];
    tc_lockin_reading(r, reading, sizeof reading);
    fprintf(out, "Lock-in: %s\n", reading);
}

json_t *tc_report_decide_json(const tc_lockin_result *r, const tc_decide_result *d, int simulated)
{
    json_t *items = json_array(), *reasons = json_array(), *missing = json_array();
    for (int i = 0; i < TC_DECIDE_ITEMS; i++) {
        const tc_decide_item *it = &d->items[i];
        json_array_append_new(
            items, json_pack("{s:s,s:o,s:s,s:b,s:o}", "id", it->id, "text",
                             tc_json_string(it->text), "state", tc_decide_state_name(it->state),
                             "declared", it->declared, "evidence", tc_json_string(it->evidence)));
        if (it->state == TC_ITEM_MISSING)
            json_array_append_new(missing, json_string(it->id));
    }
    for (int i = 0; i < d->n_reasons; i++)
        json_array_append_new(reasons, tc_json_string(d->reasons[i]));
    return json_pack(
        "{s:b,s:o,s:s,s:o,s:o,s:o,s:{s:f,s:f,s:f,s:f,s:f,s:o,s:f}}", "simulated", simulated,
        "assessment", tc_json_string(r->inputs.name), "verdict", tc_decide_verdict_name(d->verdict),
        "checklist", items, "reasons", reasons, "missing", missing, "economics", "lockin_p10",
        r->total.p10, "lockin_p50", r->total.p50, "lockin_p90", r->total.p90, "hardware_saving",
        r->hardware_saving, "probability_exceeds_saving", r->probability_exceeds_saving,
        "running_saving_per_month", tc_json_num(r->has_running_saving, r->running_saving_per_month),
        "probability_net_positive", r->probability_net_positive);
}
