/* The report's lock-in section (report_doc.h): the Monte Carlo
 * distribution with the hardware saving and P10/P50/P90 marked, the
 * sensitivity (tornado), break-even and net benefit, the operator gap
 * summary and the decision's checklist, as `lockin` and `decide` give
 * them. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "page/page_chart.h"
#include "page/page_doc.h"

#define N(buf, v) tc_page_num(buf, sizeof buf, (v))
#define BINS 40

static void row2(tc_rw *w, const char *name, const char *value)
{
    const char *row[2] = {name, value};
    tc_rw_row(w, row, 2);
}

static void q_text(char *out, size_t len, const tc_lockin_quantiles *q)
{
    char a[32], b[32], c[32];
    snprintf(out, len, "%s / %s / %s", N(a, q->p10), N(b, q->p50), N(c, q->p90));
}

static void figures(tc_rw *w, const tc_lockin_result *r)
{
    char v[200];
    const char *cur = r->inputs.currency;
    const char *head[] = {"figure", "value"};
    tc_rw_table(w, "lockin-table", head, 2);
    snprintf(v, sizeof v, "%.6g %s", r->point.total, cur);
    row2(w, "lock-in cost, point estimate", v);
    q_text(v, sizeof v, &r->total);
    row2(w, "lock-in cost P10 / P50 / P90", v);
    snprintf(v, sizeof v, "%.6g %s%s%s", r->hardware_saving, cur,
             r->hardware_source[0] ? ", from " : "", r->hardware_source);
    row2(w, "hardware saving", v);
    snprintf(v, sizeof v, "%.4g%%", 100 * r->probability_exceeds_saving);
    row2(w, "P(lock-in cost > hardware saving)", v);
    if (!r->has_running_saving)
        snprintf(v, sizeof v, "not known: give both profiles (the running-cost saving)");
    else if (r->break_even_never)
        snprintf(v, sizeof v, "never: the running cost does not fall");
    else
        q_text(v, sizeof v, &r->break_even_months);
    row2(w, "break-even months P10 / P50 / P90", v);
    q_text(v, sizeof v, &r->net_benefit);
    row2(w, "net benefit over the horizon P10 / P50 / P90", v);
    snprintf(v, sizeof v, "%.4g%%", 100 * r->probability_net_positive);
    row2(w, "P(net benefit > 0)", v);
    tc_rw_table_end(w);
}

static void histogram(tc_rw *w, const tc_dossier *d)
{
    const tc_lockin_result *r = &d->lockin;
    if (r->samples < 2 || !(r->max > r->min)) {
        tc_rw_missing(w, "No distribution chart: every sample gives %.6g (no range given).",
                      r->min);
        return;
    }
    double edge[BINS + 1], pct[BINS] = {0}, width = (r->max - r->min) / BINS;
    for (int i = 0; i <= BINS; i++)
        edge[i] = r->min + i * width;
    for (size_t k = 0; k < r->samples; k++) {
        int i = (int)((r->sorted_totals[k] - r->min) / width);
        pct[i < 0 ? 0 : i >= BINS ? BINS - 1 : i] += 100.0 / (double)r->samples;
    }
    char xl[96], alt[400], p50[32], sav[32];
    snprintf(xl, sizeof xl, "lock-in cost (%s)", r->inputs.currency);
    tc_chart c = {.title = "Lock-in cost: Monte Carlo distribution",
                  .xlabel = xl,
                  .ylabel = "share of samples (%)",
                  .simulated = d->simulated,
                  .n_vline = 4,
                  .vline = {r->hardware_saving, r->total.p10, r->total.p50, r->total.p90},
                  .vline_label = {"hardware saving", "P10", "P50", "P90"}};
    c.s[c.n++] =
        (tc_chart_series){"lock-in cost", edge, pct, BINS, TC_CHART_C3, TC_CHART_HIST, NULL, NULL};
    snprintf(alt, sizeof alt,
             "%zu samples of the lock-in cost in %d bins; median %s against a hardware saving of "
             "%s.",
             r->samples, BINS, N(p50, r->total.p50), N(sav, r->hardware_saving));
    tc_page_draw(w, &c, alt);
}

static void tornado(tc_rw *w, const tc_dossier *d)
{
    const tc_lockin_result *r = &d->lockin;
    if (!r->n_sensitivity) {
        tc_rw_missing(w, "No sensitivity chart: no input is given as a range.");
        return;
    }
    char xl[96];
    snprintf(xl, sizeof xl, "lock-in cost (%s), one input from its low to its high end",
             r->inputs.currency);
    tc_chart_tornado c = {.title = "Sensitivity of the lock-in cost",
                          .xlabel = xl,
                          .simulated = d->simulated,
                          .colour = TC_CHART_C3,
                          .centre = r->point.total};
    for (int i = 0; i < r->n_sensitivity && c.n < TC_CHART_MAX_ROWS; i++, c.n++) {
        c.label[c.n] = r->sensitivity[i].input;
        c.low[c.n] = r->sensitivity[i].low_total;
        c.high[c.n] = r->sensitivity[i].high_total;
    }
    const char *alt = "Each input swept from its low to its high end with the others at their "
                      "point values, largest swing on top; the dashed line is the point estimate.";
    char *svg = NULL, err[512];
    if (tc_chart_tornado_svg(&c, tc_rw_id(w), alt, &svg, err, sizeof err) == TC_OK)
        tc_rw_chart(w, svg, alt);
    else
        tc_rw_chart_failed(w, err);
}

/* The operators that are not native, largest share first. */
static void gap_rows(tc_rw *w, const tc_gaps_summary *g)
{
    if (!g->n_rows) {
        tc_rw_para(w, "Every operator of the table is native.");
        return;
    }
    const char *head[] = {"operator", "status", "risk", "share of time", "alternative"};
    tc_rw_table(w, "gap-rows", head, 5);
    for (int i = 0; i < g->n_rows; i++) {
        const tc_gaps_summary_row *r = &g->rows[i];
        char share[32];
        snprintf(share, sizeof share, "%.2f%%", r->share * 100);
        const char *row[5] = {r->op, r->status, r->risk, share,
                              r->alternative[0] ? r->alternative : "none"};
        tc_rw_row(w, row, 5);
    }
    tc_rw_table_end(w);
    if (g->gap_rows > g->n_rows)
        tc_rw_para(w, "The %d largest of %d gaps; the gap table (--gaps) has them all.", g->n_rows,
                   g->gap_rows);
}

static void gaps(tc_rw *w, const tc_dossier *d)
{
    if (!d->ev.has_gaps) {
        tc_rw_missing(w, "No operator gap table: give --gaps FILE (a saved 'truecost gaps "
                         "--json').");
        return;
    }
    const tc_gaps_summary *g = &d->ev.gaps;
    const char *head[] = {"operators",
                          "missing",
                          "fallback",
                          "unknown",
                          "key gaps",
                          "key, no alternative",
                          "T_op person-days (low / mode / high)"};
    tc_rw_table(w, "gaps-table", head, 7);
    char c[7][64];
    snprintf(c[0], sizeof c[0], "%zu", g->ops);
    snprintf(c[1], sizeof c[1], "%d", g->missing);
    snprintf(c[2], sizeof c[2], "%d", g->fallback);
    snprintf(c[3], sizeof c[3], "%d", g->unknown);
    snprintf(c[4], sizeof c[4], "%d", g->key_gaps);
    snprintf(c[5], sizeof c[5], "%d", g->key_without_alternative);
    snprintf(c[6], sizeof c[6], "%.4g / %.4g / %.4g", g->t_low, g->t_mode, g->t_high);
    const char *row[7] = {c[0], c[1], c[2], c[3], c[4], c[5], c[6]};
    tc_rw_row(w, row, 7);
    tc_rw_table_end(w);
    gap_rows(w, g);
}

static void checklist(tc_rw *w, const tc_dossier *d)
{
    const tc_decide_result *x = &d->decision;
    tc_rw_para(w, "Decision: %s.", tc_decide_verdict_name(x->verdict));
    const char *head[] = {"", "checklist item", "state", "evidence"};
    tc_rw_table(w, "checklist", head, 4);
    for (int i = 0; i < TC_DECIDE_ITEMS; i++) {
        const tc_decide_item *it = &x->items[i];
        const char *tick = it->state == TC_ITEM_TICKED   ? "\xE2\x9C\x93"
                           : it->state == TC_ITEM_FAILED ? "\xE2\x9C\x97"
                                                         : "?";
        char ev[sizeof it->evidence + 16];
        snprintf(ev, sizeof ev, "%s%s", it->evidence, it->declared ? " (declared)" : "");
        const char *row[4] = {tick, it->text, tc_decide_state_name(it->state), ev};
        tc_rw_row(w, row, 4);
    }
    tc_rw_table_end(w);
    for (int i = 0; i < x->n_reasons; i++)
        tc_rw_para(w, "%s", x->reasons[i]);
}

void tc_page_sec_lockin(tc_rw *w, const tc_dossier *d)
{
    tc_rw_heading(w, 2, "lockin", "Lock-in and the decision");
    if (!d->ask->assessment) {
        tc_rw_missing(w, "No lock-in: give --assessment FILE (see 'truecost lockin --help' and "
                         "examples/assessment-*.ini).");
        return;
    }
    if (!d->has_lockin) {
        tc_rw_missing(w, "No lock-in: %s.", d->lockin_missing);
        return;
    }
    char reading[600];
    tc_lockin_reading(&d->lockin, reading, sizeof reading);
    tc_rw_para(w, "%s", reading);
    for (int i = 0; i < d->ev.n_notes; i++)
        tc_rw_missing(w, "Evidence note: %s", d->ev.notes[i]);
    figures(w, &d->lockin);
    histogram(w, d);
    tornado(w, d);
    gaps(w, d);
    checklist(w, d);
}
