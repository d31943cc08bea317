/* The report's charts (report_doc.h), each from the figures the tables
 * beside it print, drawn by report_chart.c. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/frontier.h"
#include "report/report_chart.h"
#include "report/report_doc.h"

#define N(buf, v) tc_report_num(buf, sizeof buf, (v))

void tc_report_draw(tc_rw *w, const tc_chart *c, const char *alt)
{
    char *svg = NULL, err[512];
    if (tc_chart_svg(c, tc_rw_id(w), alt, &svg, err, sizeof err) == TC_OK)
        tc_rw_chart(w, svg, alt);
    else
        tc_rw_chart_failed(w, err);
}

static int side_colour(const tc_report_side *s)
{
    return strcmp(s->label, "B") == 0 ? TC_CHART_B : TC_CHART_A;
}

/* A distribution as the stored figures keep it: its quantiles. */
typedef struct quantiles {
    double x[6], y[6];
} quantiles;

static void quantiles_of(const tc_summary *s, quantiles *q)
{
    static const double pct[6] = {0, 50, 90, 95, 99, 100};
    double v[6] = {s->min, s->p50, s->p90, s->p95, s->p99, s->max};
    for (int i = 0; i < 6; i++) {
        q->x[i] = s->n ? v[i] : NAN;
        q->y[i] = pct[i];
    }
}

static void cdf_chart(tc_rw *w, const tc_report_data *d, const char *what, size_t off)
{
    tc_chart c = {.xlabel = "latency (ms, log scale)",
                  .ylabel = "requests at or below (%)",
                  .logx = 1,
                  .simulated = d->simulated};
    char title[96], alt[600] = "", labels[2][96];
    quantiles q[2];
    snprintf(title, sizeof title, "%s distribution (CDF)", what);
    c.title = title;
    for (int k = 0; k < 1 + d->two; k++) {
        const tc_report_side *s = k ? &d->b : &d->a;
        const tc_summary *sum = (const tc_summary *)((const char *)&s->f[s->charted].m + off);
        quantiles_of(sum, &q[k]);
        snprintf(labels[k], sizeof labels[k], "%s run %lld", s->label,
                 (long long)s->set.runs[s->charted].id);
        c.s[c.n++] = (tc_chart_series){labels[k],           q[k].x, q[k].y, 6, side_colour(s),
                                       TC_CHART_LINEPOINTS, NULL,   NULL};
        char p50[32], p99[32];
        size_t l = strlen(alt);
        snprintf(alt + l, sizeof alt - l, "%s%s: %s p50 %s ms, p99 %s ms.", l ? " " : "", labels[k],
                 what, N(p50, sum->p50), N(p99, sum->p99));
    }
    tc_report_draw(w, &c, alt);
}

/* The ITL histogram of each side's charted run, from its gaps (log-spaced
 * bins), as the share of the run's gaps in each bin. */
static void itl_hist(tc_rw *w, const tc_report_data *d)
{
    tc_chart c = {.title = "Inter-token latency histogram",
                  .logx = 1,
                  .xlabel = "inter-token latency (ms, log scale)",
                  .ylabel = "% of the run's gaps in the bin",
                  .simulated = d->simulated};
    static double pct[2][TC_SERIES_ITL_BINS];
    char labels[2][96], alt[600] = "";
    size_t len = 0;
    for (int k = 0; k < 1 + d->two; k++) {
        const tc_report_side *s = k ? &d->b : &d->a;
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
    tc_report_draw(w, &c, alt);
}

void tc_report_pair_charts(tc_rw *w, const tc_report_data *d)
{
    cdf_chart(w, d, "TTFT", offsetof(tc_run_metrics, ttft_ms));
    cdf_chart(w, d, "Inter-token latency", offsetof(tc_run_metrics, itl_ms));
    itl_hist(w, d);
}

/* Run i of side s over time: tokens/s, requests in flight, watts. */
static void timeline(tc_rw *w, const tc_report_side *s, size_t i, const tc_run_series *t)
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
    tc_report_draw(w, &c, alt);
    c.ylabel = "requests in flight";
    snprintf(title, sizeof title, "%s run %lld: requests in flight", s->label,
             (long long)s->set.runs[i].id);
    c.s[0] = (tc_chart_series){"in flight",    t->t_s,        t->in_flight, (size_t)t->n,
                               side_colour(s), TC_CHART_LINE, NULL,         NULL};
    const char *win = t->has_window ? "; the steady-state window is shaded"
                                    : "; the run reached no steady-state window";
    snprintf(alt, sizeof alt, "Mean measured requests between send and end, per bin%s.", win);
    tc_report_draw(w, &c, alt);
    if (!t->has_watts) {
        tc_rw_missing(w, "No power timeline: run %lld sampled no power (--telemetry).",
                      (long long)s->set.runs[i].id);
        return;
    }
    c.ylabel = "power (W)";
    snprintf(title, sizeof title, "%s run %lld: power", s->label, (long long)s->set.runs[i].id);
    c.s[0] = (tc_chart_series){"W",           t->t_s, t->watts, (size_t)t->n, side_colour(s),
                               TC_CHART_LINE, NULL,   NULL};
    snprintf(alt, sizeof alt, "Sampled power summed over devices, mean per bin%s.", win);
    tc_report_draw(w, &c, alt);
}

void tc_report_side_charts(tc_rw *w, const tc_report_data *d, const tc_report_side *s)
{
    (void)d;
    timeline(w, s, s->charted, &s->series);
}

void tc_report_point_timelines(tc_rw *w, const tc_report_data *d, const tc_report_side *s)
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
        tc_report_errors(w, s, i);
        tc_rw_details_end(w);
    }
}

void tc_report_cost_chart(tc_rw *w, const tc_report_data *d)
{
    tc_chart_bars c = {.title = "Cost per million output tokens, by term",
                       .simulated = d->simulated,
                       .n_parts = 3,
                       .part_label = {"hardware", "electricity", "operations"}};
    char ylabel[64];
    const tc_report_side *s[2] = {&d->a, &d->b};
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
    char *svg = NULL, err[512];
    const char *alt = "Stacked bars per side: hardware, electricity and operations per million "
                      "output tokens, as the cost table gives them.";
    if (tc_chart_bars_svg(&c, tc_rw_id(w), alt, &svg, err, sizeof err) == TC_OK)
        tc_rw_chart(w, svg, alt);
    else
        tc_rw_chart_failed(w, err);
}
