/* `cost` and `compare` of training runs: their documents. */
#include "report_train_price.h"

#include <math.h>
#include <string.h>

#include "core/tc_json.h"
#include "core/tc_text.h"
#include "report_table.h"

static const char *sig(char *buf, size_t len, double v)
{
    return isfinite(v) ? tc_report_sig(buf, len, v) : (snprintf(buf, len, "n/a"), buf);
}

static void term(FILE *out, const char *name, const tc_cost_term *t, const char *currency)
{
    char v[48];
    if (t->included)
        fprintf(out, "  %-12s included (%s)\n", name, t->why);
    else if (!t->available)
        fprintf(out, "  %-12s n/a (%s)\n", name, t->why);
    else
        fprintf(out, "  %-12s %s %s/month\n", name, tc_report_sig(v, sizeof v, t->value), currency);
}

tc_err tc_report_train_cost_text(FILE *out, const tc_view_train *v, const tc_cost_profile *p,
                                 const tc_training_cost *c)
{
    char a[48], b[48], d[48], name[4 * 256];
    tc_text_term(p->name, name, sizeof name);
    fprintf(out, "Cost of training run %lld%s%s%s under %s%s\n", (long long)v->run.id,
            v->run.label[0] ? " (" : "", v->run.label, v->run.label[0] ? ")" : "", name,
            v->run.simulated ? "  SIMULATED" : "");
    fprintf(out, "  steps/s %s, samples/s %s, tokens/s %s (steady window)\n",
            sig(a, sizeof a, v->fig.steps_per_s), sig(b, sizeof b, v->fig.samples_per_s),
            sig(d, sizeof d, v->fig.tokens_per_s));
    term(out, c->base.is_cloud ? "rental" : "hardware", &c->base.hardware, p->currency);
    term(out, "electricity", &c->base.electricity, p->currency);
    term(out, "operations", &c->base.operations, p->currency);
    if (!c->has_cost) {
        fprintf(out, "  no cost: a term above is not available\n");
    } else {
        fprintf(out, "  per step               %s %s\n", sig(a, sizeof a, c->per_step),
                p->currency);
        fprintf(out, "  per 1,000 samples      %s %s\n", sig(a, sizeof a, c->per_1k_samples),
                p->currency);
        fprintf(out, "  per million tokens     %s %s\n", sig(a, sizeof a, c->per_million_tokens),
                p->currency);
    }
    fprintf(out,
            "  energy (measured)      %s J/step, %s J per 1,000 samples, %s J per million "
            "tokens\n",
            sig(a, sizeof a, v->fig.joules_per_step),
            sig(b, sizeof b, v->fig.joules_per_1k_samples),
            sig(d, sizeof d, v->fig.joules_per_mtok));
    fflush(out);
    return ferror(out) ? TC_ERR_IO : TC_OK;
}

static json_t *num(double v)
{
    return tc_json_num(isfinite(v), v);
}

json_t *tc_report_train_cost_json(const tc_view_train *v, const tc_cost_profile *p,
                                  const tc_training_cost *c)
{
    return json_pack(
        "{s:s, s:I, s:o, s:b, s:o, s:o, s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, "
        "s:o, s:o}",
        "kind", "train_cost", "run_id", (json_int_t)v->run.id, "label",
        tc_json_str_or_null(v->run.label), "simulated", v->run.simulated, "profile",
        tc_json_string(p->name), "currency", tc_json_string(p->currency), "cloud", c->base.is_cloud,
        "cost_per_month", num(c->has_cost ? c->base.per_month : NAN), "cost_per_step",
        num(c->per_step), "cost_per_1k_samples", num(c->per_1k_samples), "cost_per_million_tokens",
        num(c->per_million_tokens), "steps_per_s", num(v->fig.steps_per_s), "samples_per_s",
        num(v->fig.samples_per_s), "tokens_per_s", num(v->fig.tokens_per_s), "joules_per_step",
        num(v->fig.joules_per_step), "joules_per_1k_samples", num(v->fig.joules_per_1k_samples),
        "joules_per_million_tokens", num(v->fig.joules_per_mtok));
}

static const char *const LABELS[TC_TRAINING_CMP_COUNT] = {"step time", "samples/s", "tokens/s",
                                                          "energy per step", "cost per step"};

static void side_line(FILE *out, const char *which, const tc_view_train *v,
                      const tc_training_cost *c, const char *currency)
{
    char a[48], b[48], d[48], e[48], f[48], label[4 * 128];
    tc_text_term(v->run.label[0] ? v->run.label : "-", label, sizeof label);
    fprintf(out,
            "  %s  run %lld (%s)%s: step %s ms, %s samples/s, %s tokens/s, %s J/step, %s %s/step\n",
            which, (long long)v->run.id, label, v->run.simulated ? " SIMULATED" : "",
            sig(a, sizeof a, v->fig.step_ms.mean), sig(b, sizeof b, v->fig.samples_per_s),
            sig(d, sizeof d, v->fig.tokens_per_s), sig(e, sizeof e, v->fig.joules_per_step),
            sig(f, sizeof f, c ? c->per_step : NAN), currency ? currency : "");
}

tc_err tc_report_train_compare_text(FILE *out, const tc_view_train *a, const tc_view_train *b,
                                    const tc_training_cost *ca, const tc_training_cost *cb,
                                    const char *currency, const tc_training_comparison *r)
{
    fprintf(out, "Training runs compared, B against A\n");
    side_line(out, "A", a, ca, currency);
    side_line(out, "B", b, cb, currency);
    fprintf(out, "\n  %-16s %10s  %s\n", "FIGURE", "B/A", "95% INTERVAL (bootstrap over steps)");
    for (int k = 0; k < TC_TRAINING_CMP_COUNT; k++) {
        char p[48], lo[48], hi[48];
        if (!r->has[k]) {
            fprintf(out, "  %-16s %10s  (not known on both sides)\n", LABELS[k], "n/a");
            continue;
        }
        fprintf(out, "  %-16s %10s  %s to %s\n", LABELS[k], sig(p, sizeof p, r->ci[k].point),
                sig(lo, sizeof lo, r->ci[k].lo), sig(hi, sizeof hi, r->ci[k].hi));
    }
    fprintf(out, "\nThe gap: B's step takes %.2fx A's: %s\n", r->slowdown, r->reading);
    fflush(out);
    return ferror(out) ? TC_ERR_IO : TC_OK;
}

static json_t *side_json(const tc_view_train *v, const tc_training_cost *c)
{
    return json_pack("{s:I, s:o, s:b, s:o, s:o, s:o, s:o, s:o}", "run_id", (json_int_t)v->run.id,
                     "label", tc_json_str_or_null(v->run.label), "simulated", v->run.simulated,
                     "step_ms_mean", num(v->fig.step_ms.mean), "samples_per_s",
                     num(v->fig.samples_per_s), "tokens_per_s", num(v->fig.tokens_per_s),
                     "joules_per_step", num(v->fig.joules_per_step), "cost_per_step",
                     num(c ? c->per_step : NAN));
}

json_t *tc_report_train_compare_json(const tc_view_train *a, const tc_view_train *b,
                                     const tc_training_cost *ca, const tc_training_cost *cb,
                                     const char *currency, const tc_training_comparison *r)
{
    json_t *ratios = json_object();
    for (int k = 0; ratios && k < TC_TRAINING_CMP_COUNT; k++) {
        json_t *o = r->has[k] ? json_pack("{s:o, s:o, s:o, s:f}", "point", num(r->ci[k].point),
                                          "low", num(r->ci[k].lo), "high", num(r->ci[k].hi),
                                          "level", r->ci[k].level)
                              : json_null();
        json_object_set_new(ratios, tc_training_cmp_name(k), o);
    }
    return json_pack(
        "{s:s, s:o, s:o, s:o, s:o, s:o, s:s}", "kind", "train_compare", "a", side_json(a, ca), "b",
        side_json(b, cb), "currency", tc_json_str_or_null(currency), "ratios_b_over_a",
        ratios ? ratios : json_null(), "slowdown", num(r->slowdown), "reading", r->reading);
}
