/* The decision's view of a saved gap table. */
#include "assess/gaps_doc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "assess/gaps.h"
#include "core/tc_json.h"

static int is_key(const char *risk, double share)
{
    return strcmp(risk, "high") == 0 || strcmp(risk, "medium-high") == 0 ||
           share >= TC_GAPS_KEY_SHARE;
}

/* A gap (not "native") into the rows kept, largest shares first; the
 * smallest falls off when they are full. */
static void keep_row(json_t *op, const char *status, const char *risk, double share,
                     tc_gaps_summary *out)
{
    if (strcmp(status, "native") == 0)
        return;
    out->gap_rows++;
    int n = out->n_rows;
    if (n == TC_GAPS_SUMMARY_ROWS && !(share > out->rows[n - 1].share))
        return;
    if (n < TC_GAPS_SUMMARY_ROWS)
        out->n_rows = ++n;
    int i = n - 1;
    for (; i > 0 && out->rows[i - 1].share < share; i--)
        out->rows[i] = out->rows[i - 1];
    tc_gaps_summary_row *r = &out->rows[i];
    const char *name = json_string_value(json_object_get(op, "name"));
    const char *alt = json_string_value(json_object_get(op, "alternative"));
    snprintf(r->op, sizeof r->op, "%s", name ? name : "?");
    snprintf(r->status, sizeof r->status, "%s", status);
    snprintf(r->risk, sizeof r->risk, "%s", risk);
    snprintf(r->alternative, sizeof r->alternative, "%s", alt ? alt : "");
    r->share = share;
}

/* One entry of "ops": its status, risk, share and alternative. */
static tc_err count_op(const char *name, size_t i, json_t *op, tc_gaps_summary *out, char *err,
                       size_t errlen)
{
    json_t *alt = json_object_get(op, "alternative");
    const char *status = json_string_value(json_object_get(op, "status"));
    const char *risk = json_string_value(json_object_get(op, "risk"));
    json_t *share_j = json_object_get(op, "share");
    double share = json_number_value(share_j);
    if (!status || !risk || !json_is_number(share_j) || !(share >= 0 && share <= 1) ||
        (alt && !json_is_null(alt) && !json_is_string(alt)))
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: ops[%zu]: expected \"status\", \"risk\" (strings), \"share\" (0..1) "
                       "and \"alternative\" (a string or null): is it 'truecost gaps --json' "
                       "output?",
                       name, i);
    out->ops++;
    keep_row(op, status, risk, share, out);
    out->fallback += strcmp(status, "fallback") == 0;
    if (strcmp(status, "unknown") == 0) {
        out->unknown++;
        out->key_unchecked += is_key(risk, share);
        return TC_OK;
    }
    if (strcmp(status, "missing") != 0)
        return TC_OK;
    out->missing++;
    if (!is_key(risk, share))
        return TC_OK;
    out->key_gaps++;
    if (!json_is_string(alt) || !json_string_length(alt)) {
        out->key_without_alternative++;
        out->share_without_alternative += share;
    }
    return TC_OK;
}

tc_err tc_gaps_summary_parse(const char *name, const char *text, size_t len, tc_gaps_summary *out,
                             char *err, size_t errlen)
{
    if (!name || !text || !out)
        return tc_fail(err, errlen, TC_ERR_INVALID, "gaps summary: NULL argument");
    memset(out, 0, sizeof *out);
    tc_err e = tc_gaps_read_t_op_json(name, text, len, &out->t_low, &out->t_mode, &out->t_high, err,
                                      errlen);
    if (e != TC_OK)
        return e;
    json_error_t je;
    json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je); /* parsed above: valid */
    json_t *ops = json_object_get(doc, "ops");
    if (!json_is_array(ops)) {
        json_decref(doc);
        return tc_fail(err, errlen, TC_ERR_PARSE,
                       "%s: no \"ops\" array: is it 'truecost gaps --json' output?", name);
    }
    size_t i;
    json_t *op;
    json_array_foreach(ops, i, op)
    {
        if ((e = count_op(name, i, op, out, err, errlen)) != TC_OK)
            break;
    }
    json_decref(doc);
    if (e != TC_OK)
        memset(out, 0, sizeof *out);
    return e;
}

/* ---- warnings ---- */

/* 1 when inventory operator `op` has an entry in the table. */
static int in_table(const tc_gap_table *t, const tc_gap_op *op)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->rows[i].op == op)
            return 1;
    return 0;
}

int tc_gaps_warnings(const tc_gap_inventory *inv, const tc_gap_table *t,
                     char out[TC_GAPS_MAX_WARNINGS][512])
{
    int n = 0;
    size_t unknown = t->count[TC_GAP_UNKNOWN];
    if (unknown) {
        int used = snprintf(out[n], 512,
                            "%zu operator%s not covered by the support list, counted as "
                            "unknown gaps (0..1..3 days each):",
                            unknown, unknown == 1 ? " is" : "s are");
        for (size_t i = 0, shown = 0; i < t->n && used > 0 && used < 400; i++)
            if (t->rows[i].status == TC_GAP_UNKNOWN && shown++ < 8)
                used += snprintf(out[n] + used, 512 - (size_t)used, " %s", t->rows[i].op->name);
        n++;
    }
    if (inv->source == TC_SHARE_COUNT)
        snprintf(out[n++], 512,
                 "shares are call counts, not time: a rare but slow operator weighs less than "
                 "it should (export the profiler table for time shares)");
    if (inv->n_skipped)
        snprintf(out[n++], 512,
                 "%zu profiler row%s left out: kernels, runtime calls and annotations are not "
                 "operators (their time is in 'other' or already in their operator's)",
                 inv->n_skipped, inv->n_skipped == 1 ? " was" : "s were");
    if (t->n_labels) {
        int used = snprintf(out[n], 512,
                            "%zu record_function label%s left out (a name without '::' and "
                            "no self device time, not an operator; a support row naming it "
                            "keeps it):",
                            t->n_labels, t->n_labels == 1 ? " was" : "s were");
        for (size_t i = 0, shown = 0; i < inv->n && used > 0 && used < 400; i++)
            if (inv->ops[i].label && !in_table(t, &inv->ops[i]) && shown++ < 8)
                used += snprintf(out[n] + used, 512 - (size_t)used, " %s", inv->ops[i].name);
        n++;
    }
    if (inv->n_negative_cpu)
        snprintf(out[n++], 512,
                 "%zu negative CPU time%s (a PyTorch <= 2.4 profiler bug) %s taken as 0",
                 inv->n_negative_cpu, inv->n_negative_cpu == 1 ? "" : "s",
                 inv->n_negative_cpu == 1 ? "was" : "were");
    if (t->n_ambiguous)
        snprintf(out[n++], 512,
                 "%zu operator name%s cut by the profiler (\"...\") and several support "
                 "operators start with %s, so %s unknown: print the table with a wider name "
                 "column, e.g. prof.key_averages().table(..., max_name_column_width=120)",
                 t->n_ambiguous, t->n_ambiguous == 1 ? " was" : "s were",
                 t->n_ambiguous == 1 ? "it" : "each",
                 t->n_ambiguous == 1 ? "it stays" : "they stay");
    int unknown_dtype = 0;
    for (size_t i = 0; i < t->n; i++)
        unknown_dtype += t->rows[i].n_candidates > 1;
    if (unknown_dtype)
        snprintf(out[n++], 512,
                 "%d operator%s no dtype: each took the worst status of its rows (give --dtype "
                 "or a dtype column)",
                 unknown_dtype, unknown_dtype == 1 ? " has" : "s have");
    return n;
}

/* ---- JSON ---- */

static json_t *days_json(double low, double mode, double high)
{
    return json_pack("{s:f,s:f,s:f}", "low", low, "mode", mode, "high", high);
}

static json_t *entry_json(const tc_gap_entry *e, tc_gap_share_source source)
{
    const tc_gap_support_row *s = e->support;
    int timed = source == TC_SHARE_DEVICE_TIME || source == TC_SHARE_CPU_TIME;
    return json_pack(
        "{s:o,s:o,s:s,s:s,s:o,s:o,s:s,s:f,s:o,s:o,s:s,s:o,s:o,s:o,s:o,s:o,s:i,s:o}", "name",
        tc_json_string(e->op->name), "dtype", tc_json_string(e->op->dtype), "status",
        tc_gaps_status_name(e->status), "risk", tc_gaps_risk_name(e->risk), "risk_category",
        tc_json_string(e->risk_category), "risk_pattern", tc_json_str_or_null(e->risk_pattern),
        "risk_from",
        e->risk_from_user ? "user"
        : e->risk_pattern ? "builtin"
                          : "default",
        "share", e->op->share, "self_time_us", timed ? json_real(e->op->time_us) : json_null(),
        "calls", e->op->has_calls ? json_real(e->op->calls) : json_null(), "match",
        tc_gaps_match_name(e->match), "support_op", tc_json_str_or_null(s ? s->op : NULL),
        "support_line", s ? json_integer(s->line) : json_null(), "alternative",
        tc_json_str_or_null(s ? s->alternative : NULL), "notes",
        tc_json_str_or_null(s ? s->notes : NULL), "why", tc_json_str_or_null(e->why), "line",
        e->op->line, "t_op_days", days_json(e->t_low, e->t_mode, e->t_high));
}

static json_t *totals_json(const tc_gap_inventory *inv, const tc_gap_table *t)
{
    json_t *share = json_object(), *count = json_object();
    for (int s = 0; s < TC_GAP_N_STATUS; s++) {
        json_object_set_new(share, tc_gaps_status_name((tc_gap_status)s), json_real(t->share[s]));
        json_object_set_new(count, tc_gaps_status_name((tc_gap_status)s),
                            json_integer((json_int_t)t->count[s]));
    }
    json_object_set_new(share, "other", json_real(t->share_other));
    return json_pack("{s:I,s:I,s:I,s:I,s:o,s:o}", "ops", (json_int_t)t->n, "skipped_rows",
                     (json_int_t)(inv->n_skipped + t->n_labels), "skipped_labels",
                     (json_int_t)t->n_labels, "negative_cpu_times", (json_int_t)inv->n_negative_cpu,
                     "share", share, "count", count);
}

json_t *tc_gaps_json(const tc_gap_inventory *inv, const tc_gap_table *t, const char *ops_file,
                     const char *support_file, const char *risk_file)
{
    json_t *ops = json_array(), *warn = json_array();
    for (size_t i = 0; ops && i < t->n; i++)
        json_array_append_new(ops, entry_json(&t->rows[i], inv->source));
    char lines[TC_GAPS_MAX_WARNINGS][512];
    int n = tc_gaps_warnings(inv, t, lines);
    for (int i = 0; warn && i < n; i++)
        json_array_append_new(warn, tc_json_string(lines[i]));
    return json_pack("{s:o,s:o,s:o,s:s,s:s,s:o,s:o,s:o,s:s,s:o,s:s}", "ops_file",
                     tc_json_str_or_null(ops_file), "support_file",
                     tc_json_str_or_null(support_file), "risk_patterns_file",
                     tc_json_str_or_null(risk_file), "format", tc_gaps_format_name(inv->format),
                     "share_source", tc_gaps_source_name(inv->source), "ops", ops, "totals",
                     totals_json(inv, t), "t_op_days", days_json(t->t_low, t->t_mode, t->t_high),
                     "t_op_rule", TC_GAPS_T_OP_RULE, "warnings", warn, "note", TC_GAPS_NOTE);
}
