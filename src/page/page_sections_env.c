/* The report's environment section (report_doc.h): what each side ran
 * on, the differences that make a comparison measure more than the
 * hardware, and the filled record of the cost-verification method. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "page/page_doc.h"

#define N(buf, v) tc_page_num(buf, sizeof buf, (v))

/* The value at a dotted path of a fingerprint ("gpus.0.name"), as text,
 * or "not recorded". */
static const char *fp_get(json_t *fp, const char *path, char *out, size_t len)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", path);
    json_t *o = fp;
    for (char *save = NULL, *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
        o = json_is_array(o) ? json_array_get(o, (size_t)atoi(k)) : json_object_get(o, k);
    if (json_is_string(o))
        return json_string_value(o);
    if (json_is_integer(o) || json_is_real(o) || json_is_boolean(o)) {
        char *t = json_dumps(o, JSON_ENCODE_ANY);
        snprintf(out, len, "%s", t ? t : "?");
        free(t);
        return out;
    }
    return "not recorded";
}

/* What changes a result, as `env` records it. */
static const char *const env_rows[][2] = {
    {"GPU", "gpus.0.name"},
    {"GPU driver", "gpus.0.driver"},
    {"GPU runtime", "gpus.0.runtime"},
    {"server", "server.kind"},
    {"server version", "server.version"},
    {"model", "server.model.name"},
    {"parameters", "server.model.parameter_size"},
    {"quantisation", "server.model.quantization_level"},
    {"OS", "os.name"},
    {"kernel", "os.kernel"},
    {"CPU", "cpu.model"},
};

/* A JSON value as a table shows it: a string as it is, anything else as
 * JSON. */
static const char *json_text(json_t *v, char *out, size_t len)
{
    if (json_is_string(v))
        return json_string_value(v);
    char *t = v ? json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
    snprintf(out, len, "%s", t ? t : "not recorded");
    free(t);
    return out;
}

/* The mean of a figure over a side's runs (NaN when a run lacks it). */
static double side_mean(const tc_dossier_side *s, size_t off)
{
    double sum = 0;
    for (size_t i = 0; i < s->set.n; i++) {
        const tc_summary *x = (const tc_summary *)((const char *)&s->f[i].m + off);
        if (!x->n)
            return NAN;
        sum += x->p50;
    }
    return sum / (double)s->set.n;
}

/* The cost-verification method's record, one column per side. */
static void verification(tc_rw *w, const tc_dossier *d)
{
    const tc_dossier_side *s[2] = {&d->a, &d->b};
    const char *head[] = {"record", "A", "B"};
    tc_rw_table(w, "verification", head, 2 + d->two);
    static const char *const names[] = {"GPU",
                                        "driver",
                                        "server version",
                                        "model",
                                        "output tokens/s (as priced: window)",
                                        "P50 E2E latency (ms)",
                                        "average power (W)",
                                        "adaptation (person-days)",
                                        "electricity per million tokens",
                                        "cost per million tokens"};
    for (int r = 0; r < 10; r++) {
        char v[2][96];
        const char *c[3] = {names[r], "", ""};
        for (int k = 0; k < 1 + d->two; k++) {
            const tc_dossier_side *x = s[k];
            const tc_cost_result *cr = &x->cost;
            double per = cr->tokens_per_month > 0 ? 1e6 / cr->tokens_per_month : NAN;
            if (r < 4) {
                static const char *const path[] = {"gpus.0.name", "gpus.0.driver", "server.version",
                                                   "server.model.name"};
                c[1 + k] = fp_get(x->fingerprint, path[r], v[k], sizeof v[k]);
                continue;
            }
            double val = NAN;
            if (r == 4) /* the figure the cost model takes, as priced (a sweep at its peak) */
                val = tc_dossier_priced_at_peak(x) ? x->f[x->peak].cost_in.output_tokens_per_s
                      : x->has_cost                ? x->sum.mean.output_tokens_per_s
                                                   : x->f[0].cost_in.output_tokens_per_s;
            else if (r == 5)
                val = side_mean(x, offsetof(tc_run_metrics, e2e_ms));
            else if (r == 6)
                val = x->has_cost && x->sum.mean.has_power ? x->sum.mean.busy_power_w : NAN;
            else if (r == 7 && d->has_lockin)
                val = k ? d->lockin.point.effort_days : 0; /* A is the incumbent */
            else if (r == 8 && x->has_cost && cr->electricity.available)
                val = cr->electricity.value * per;
            else if (r == 9 && x->has_cost && cr->has_cost)
                val = cr->cost_per_million_tokens;
            c[1 + k] = N(v[k], val);
            if (r == 7 && !d->has_lockin)
                c[1 + k] = "needs --assessment";
            else if ((r == 8 || r == 9) && !x->profile)
                c[1 + k] = "needs --profile";
        }
        tc_rw_row(w, c, 2 + d->two);
    }
    tc_rw_table_end(w);
}

void tc_page_sec_env(tc_rw *w, const tc_dossier *d)
{
    tc_rw_heading(w, 2, "env", "Environment");
    const char *head[] = {"", "A", "B"};
    tc_rw_table(w, "env-table", head, 2 + d->two);
    const tc_dossier_side *s[2] = {&d->a, &d->b};
    for (size_t i = 0; i < sizeof env_rows / sizeof *env_rows; i++) {
        char v[2][64];
        const char *c[3] = {env_rows[i][0], "", ""};
        for (int k = 0; k < 1 + d->two; k++)
            c[1 + k] = fp_get(s[k]->fingerprint, env_rows[i][1], v[k], sizeof v[k]);
        tc_rw_row(w, c, 2 + d->two);
    }
    tc_rw_table_end(w);
    tc_rw_para(w, "The record of the cost-verification method (power measured, else the "
                  "profile's; electricity is the cost model's, per million output tokens):");
    verification(w, d);
    if (!d->has_compare) {
        tc_rw_missing(w, "No differences: %s", d->compare_missing);
        return;
    }
    size_t n = json_array_size(d->cmp.differences);
    if (!n) {
        tc_rw_para(w, "No difference between the two sides' settings and environments.");
        return;
    }
    const char *dh[] = {"differs", "A", "B", "why it matters", "the point of the comparison"};
    tc_rw_table(w, "env-diff", dh, 5);
    for (size_t i = 0; i < n; i++) {
        json_t *x = json_array_get(d->cmp.differences, i);
        char a[200], b[200];
        const char *row[5] = {json_string_value(json_object_get(x, "field")),
                              json_text(json_object_get(x, "a"), a, sizeof a),
                              json_text(json_object_get(x, "b"), b, sizeof b),
                              json_string_value(json_object_get(x, "why")),
                              json_is_true(json_object_get(x, "hardware")) ? "yes (hardware)"
                                                                           : "NO: it muddies it"};
        tc_rw_row(w, row, 5);
    }
    tc_rw_table_end(w);
}
