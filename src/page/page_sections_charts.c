/* The report's charts (report_doc.h), each from the figures the tables
 * beside it print, drawn by report_chart.c. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/frontier.h"
#include "page/page_chart.h"
#include "page/page_doc.h"

#define N(buf, v) tc_page_num(buf, sizeof buf, (v))

void tc_page_draw(tc_rw *w, const tc_chart *c, const char *alt)
{
    char *svg = NULL, err[512];
    if (tc_chart_svg(c, tc_rw_id(w), alt, &svg, err, sizeof err) == TC_OK)
        tc_rw_chart(w, svg, alt);
    else
        tc_rw_chart_failed(w, err);
}

void tc_page_draw_bars(tc_rw *w, const tc_chart_bars *c, const char *alt)
{
    char *svg = NULL, err[512];
    if (tc_chart_bars_svg(c, tc_rw_id(w), alt, &svg, err, sizeof err) == TC_OK)
        tc_rw_chart(w, svg, alt);
    else
        tc_rw_chart_failed(w, err);
}

static int side_colour(const tc_dossier_side *s)
{
    return strcmp(s->label, "B") == 0 ? TC_CHART_B : TC_CHART_A;
}

size_t tc_page_cdf_line(const tc_series_cdf *c, double *x, double *y)
{
    if (!c->total || !c->n)
        return 0;
    /* From the first bin that holds a value: with zeros among them the
     * bins start far below the smallest value above 0. */
    int first = 0;
    while (first < c->n - 1 && c->count[first] == 0)
        first++;
    double below = (double)c->zero;
    size_t m = 0;
    x[m] = c->edge_ms[first];
    y[m++] = 100.0 * below / (double)c->total;
    /* A point at the upper edge of each bin that holds a value: the line
     * is as fine as the values, and as short as they are few. */
    for (int i = first; i < c->n; i++) {
        if (c->count[i] == 0 && i + 1 < c->n)
            continue;
        below += c->count[i];
        x[m] = c->edge_ms[i + 1];
        y[m++] = 100.0 * below / (double)c->total;
    }
    return m;
}

void tc_page_cdf_zeros(tc_chart *c, const tc_series_cdf *const *cdfs, int n, char *alt, size_t len)
{
    double left = INFINITY, most = 0;
    for (int i = 0; i < n; i++)
        if (cdfs[i]->zero && cdfs[i]->n) {
            int first = 0; /* where its line starts (tc_page_cdf_line) */
            while (first < cdfs[i]->n - 1 && cdfs[i]->count[first] == 0)
                first++;
            left = fmin(left, cdfs[i]->edge_ms[first]);
            most = fmax(most, 100.0 * (double)cdfs[i]->zero / (double)cdfs[i]->total);
        }
    if (!isfinite(left) || c->n_vline >= 4)
        return;
    c->vline[c->n_vline] = left;
    c->vline_label[c->n_vline++] = "0 ms";
    char p[32];
    size_t l = strlen(alt);
    snprintf(alt + l, len - l,
             " Up to %s%% of the values are 0 ms (chunks read in one go): each line starts at "
             "their share, at the left edge marked 0 ms.",
             N(p, most));
}

/* Each side's charted run: the CDF of every request's TTFT, or of every
 * inter-token gap. */
static void cdf_chart(tc_rw *w, const tc_dossier *d, const char *what, int itl)
{
    tc_chart c = {.xlabel = "latency (ms)",
                  .ylabel = "requests at or below (%)",
                  .logx = 1,
                  .simulated = d->simulated};
    static double x[2][TC_SERIES_CDF_BINS + 1], y[2][TC_SERIES_CDF_BINS + 1];
    char title[96], alt[900] = "", labels[2][96];
    const tc_series_cdf *cdfs[2];
    snprintf(title, sizeof title, "%s distribution (CDF)", what);
    c.title = title;
    if (itl)
        c.ylabel = "gaps at or below (%)";
    for (int k = 0; k < 1 + d->two; k++) {
        const tc_dossier_side *s = k ? &d->b : &d->a;
        cdfs[k] = itl ? &s->series.itl_cdf : &s->series.ttft_cdf;
        const tc_summary *sum = itl ? &s->f[s->charted].m.itl_ms : &s->f[s->charted].m.ttft_ms;
        snprintf(labels[k], sizeof labels[k], "%s run %lld", s->label,
                 (long long)s->set.runs[s->charted].id);
        size_t n = tc_page_cdf_line(cdfs[k], x[k], y[k]);
        c.s[c.n++] =
            (tc_chart_series){labels[k], x[k], y[k], n, side_colour(s), TC_CHART_LINE, NULL, NULL};
        char p50[32], p99[32];
        size_t l = strlen(alt);
        snprintf(alt + l, sizeof alt - l, "%s%s: %s of %lld %s, p50 %s ms, p99 %s ms.",
                 l ? " " : "", labels[k], what, cdfs[k]->total, itl ? "gaps" : "requests",
                 N(p50, sum->p50), N(p99, sum->p99));
    }
    tc_page_cdf_zeros(&c, cdfs, 1 + d->two, alt, sizeof alt);
    tc_page_draw(w, &c, alt);
}

/* The ITL histogram of each side's charted run, from its gaps (log-spaced
 * bins), as the share of the run's gaps in each bin. */
static void itl_hist(tc_rw *w, const tc_dossier *d)
{
    tc_chart c = {.title = "Inter-token latency histogram",
                  .logx = 1,
                  .xlabel = "inter-token latency (ms)",
                  .ylabel = "% of the run's gaps in the bin",
                  .simulated = d->simulated};
    static double pct[2][TC_SERIES_ITL_BINS];
    char labels[2][96], alt[600] = "";
    size_t len = 0;
    for (int k = 0; k < 1 + d->two; k++) {
        const tc_dossier_side *s = k ? &d->b : &d->a;
        const tc_run_series *t = &s->series;
        snprintf(labels[k], sizeof labels[k], "%s run %lld", s->label,
                 (long long)s->set.runs[s->charted].id);
        if (!t->itl_n || !t->itl_total)
            continue;
        int top = 0;
        for (int i = 0; i < t->itl_n; i++) {
            pct[k][i] = 100.0 * t->itl_count[i] / (double)t->itl_total;
            top = pct[k][i] > pct[k][top] ? i : top;
        }
        c.s[c.n++] = (tc_chart_series){labels[k],      t->itl_edge_ms, pct[k], (size_t)t->itl_n,
                                       side_colour(s), TC_CHART_HIST,  NULL,   NULL};
        char lo[32], hi[32], p[32];
        if (len < sizeof alt)
            len += (size_t)snprintf(alt + len, sizeof alt - len,
                                    "%s%s: %lld gaps in %d log-spaced bins; the fullest, %s to %s "
                                    "ms, holds %s%%.",
                                    len ? " " : "", labels[k], t->itl_total, t->itl_n,
                                    N(lo, t->itl_edge_ms[top]), N(hi, t->itl_edge_ms[top + 1]),
                                    N(p, pct[k][top]));
    }
    if (!c.n) {
        tc_rw_missing(w, "No ITL histogram: the charted runs have fewer than two distinct gaps.");
        return;
    }
    tc_page_draw(w, &c, alt);
}

void tc_page_pair_charts(tc_rw *w, const tc_dossier *d)
{
    cdf_chart(w, d, "TTFT", 0);
    cdf_chart(w, d, "Inter-token latency", 1);
    itl_hist(w, d);
}

/* Run i of side s over time: tokens/s, requests in flight, watts. */
static void timeline(tc_rw *w, const tc_dossier_side *s, size_t i, const tc_run_series *t)
{
    if (!t->n) {
        tc_rw_missing(w, "No timeline: run %lld has no measured request that ended.",
                      (long long)s->set.runs[i].id);
        return;
    }
    char title[160], alt[300];
    tc_chart c = {.title = title,
                  .xlabel = "time since the first send (s)",
                  .ylabel = "output tokens/s",
                  .simulated = s->simulated,
                  .has_span = t->has_window,
                  .span_from = t->window_from_s,
                  .span_to = t->window_to_s,
                  .span_label = "steady state"};
    snprintf(title, sizeof title, "%s run %lld: output tokens/s over the run", s->label,
             (long long)s->set.runs[i].id);
    c.s[c.n++] = (tc_chart_series){
        "tokens/s", t->t_s, t->tokens_per_s, (size_t)t->n, side_colour(s), TC_CHART_LINE,
        NULL,       NULL};
    snprintf(alt, sizeof alt, "Output tokens/s in %d bins of %.3g s%s.", t->n, t->bin_s,
             t->has_window ? "; the steady-state window is shaded"
                           : "; the run reached no steady-state window");
    tc_page_draw(w, &c, alt);
    c.ylabel = "requests in flight";
    snprintf(title, sizeof title, "%s run %lld: requests in flight", s->label,
             (long long)s->set.runs[i].id);
    c.s[0] = (tc_chart_series){"in flight",    t->t_s,        t->in_flight, (size_t)t->n,
                               side_colour(s), TC_CHART_LINE, NULL,         NULL};
    const char *win = t->has_window ? "; the steady-state window is shaded"
                                    : "; the run reached no steady-state window";
    snprintf(alt, sizeof alt, "Mean measured requests between send and end, per bin%s.", win);
    tc_page_draw(w, &c, alt);
    if (!t->has_avg_power) {
        tc_rw_missing(w, "No power timeline: run %lld sampled no power (--telemetry).",
                      (long long)s->set.runs[i].id);
        return;
    }
    c.ylabel = "power (W)";
    snprintf(title, sizeof title, "%s run %lld: power", s->label, (long long)s->set.runs[i].id);
    c.s[0] = (tc_chart_series){
        "W", t->t_s, t->avg_power_w, (size_t)t->n, side_colour(s), TC_CHART_LINE, NULL, NULL};
    snprintf(alt, sizeof alt, "Sampled power summed over devices, mean per bin%s.", win);
    tc_page_draw(w, &c, alt);
}

void tc_page_side_charts(tc_rw *w, const tc_dossier *d, const tc_dossier_side *s)
{
    (void)d;
    timeline(w, s, s->charted, &s->series);
}

void tc_page_point_timelines(tc_rw *w, const tc_dossier *d, const tc_dossier_side *s)
{
    (void)d;
    for (size_t i = 0; s->point_series && i < s->set.n; i++) {
        if (i == s->charted)
            continue;
        const tc_sweep_point *p = &s->pts[i];
        char summary[160];
        if (p->open_loop)
            snprintf(summary, sizeof summary, "%s run %lld (%g requests/s): timeline and errors",
                     s->label, (long long)s->set.runs[i].id, p->rate);
        else
            snprintf(summary, sizeof summary, "%s run %lld (c=%d): timeline and errors", s->label,
                     (long long)s->set.runs[i].id, p->concurrency);
        tc_rw_details(w, summary);
        timeline(w, s, i, &s->point_series[i]);
        tc_page_errors(w, s, i);
        tc_rw_details_end(w);
    }
}

void tc_page_cost_chart(tc_rw *w, const tc_dossier *d)
{
    tc_chart_bars c = {.title = "Cost per million output tokens, by term",
                       .simulated = d->simulated,
                       .n_parts = 3,
                       .part_label = {"hardware", "electricity", "operations"}};
    char ylabel[64];
    const tc_dossier_side *s[2] = {&d->a, &d->b};
    for (int k = 0; k < 1 + d->two; k++) {
        if (!s[k]->has_cost)
            continue;
        const tc_cost_result *r = &s[k]->cost;
        double per = 1e6 / r->tokens_per_month;
        int b = c.n_bars++;
        c.bar_label[b] = s[k]->label;
        c.bar_colour[b] = side_colour(s[k]);
        c.v[b][0] = r->hardware.available ? r->hardware.value * per : NAN;
        c.v[b][1] = r->electricity.available ? r->electricity.value * per : NAN;
        c.v[b][2] = r->operations.available ? r->operations.value * per : NAN;
        snprintf(ylabel, sizeof ylabel, "%s per million output tokens", s[k]->profile->currency);
    }
    c.ylabel = ylabel;
    if (!c.n_bars) {
        tc_rw_missing(w, "No cost bars: no side has every cost term.");
        return;
    }
    tc_page_draw_bars(w, &c,
                      "Stacked bars per side: hardware, electricity and operations per million "
                      "output tokens, as the cost table gives them.");
}
