/* The report's sweep section (report_doc.h): latency against offered
 * load with the knee, the Pareto frontiers, and cost and energy against
 * interactivity, as `truecost sweep` and `truecost frontier` compute them. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "analysis/frontier.h"
#include "page/page_chart.h"
#include "page/page_doc.h"

#define N(buf, v) tc_page_num(buf, sizeof buf, (v))

typedef struct load_xy {
    double x[TC_FRONTIER_MAX_POINTS], p50[TC_FRONTIER_MAX_POINTS], p99[TC_FRONTIER_MAX_POINTS];
    size_t n;
} load_xy;

static void latency_chart(tc_rw *w, const tc_dossier *d)
{
    tc_chart c = {.title = "TTFT against offered load",
                  .xlabel = "offered load (concurrency, or requests/s open loop)",
                  .ylabel = "TTFT (ms)",
                  .simulated = d->simulated};
    static load_xy xy[2];
    char lab[4][48], knee[2][48];
    const tc_dossier_side *s[2] = {&d->a, &d->b};
    for (int k = 0; k < 1 + d->two; k++) {
        if (!s[k]->is_sweep)
            continue;
        load_xy *v = &xy[k];
        v->n = 0;
        for (size_t i = 0; i < s[k]->set.n && v->n < TC_FRONTIER_MAX_POINTS; i++, v->n++) {
            const tc_sweep_point *p = &s[k]->pts[i];
            v->x[v->n] = p->open_loop ? p->rate : p->concurrency;
            v->p50[v->n] = p->has_ttft ? p->ttft_p50 : NAN;
            v->p99[v->n] = p->has_ttft ? p->ttft_p99 : NAN;
        }
        snprintf(lab[2 * k], sizeof lab[0], "%s p50", s[k]->label);
        snprintf(lab[2 * k + 1], sizeof lab[0], "%s p99", s[k]->label);
        c.s[c.n++] =
            (tc_chart_series){lab[2 * k], v->x, v->p50, v->n, k, TC_CHART_LINEPOINTS, NULL, NULL};
        c.s[c.n++] =
            (tc_chart_series){lab[2 * k + 1], v->x, v->p99, v->n, k, TC_CHART_DASHED, NULL, NULL};
        if (s[k]->knee >= 0) {
            snprintf(knee[k], sizeof knee[k], "knee %s", s[k]->label);
            c.vline_label[c.n_vline] = knee[k];
            c.vline[c.n_vline++] = v->x[s[k]->knee];
        }
    }
    tc_page_draw(w, &c,
                 "TTFT p50 (solid) and p99 (dashed) at each sweep point; the knee, where "
                 "goodput falls or a p99 more than doubles, is marked.");
}

/* Requests/s served and good (meeting the SLO) at each load: where they
 * part, the load is costing latency the users see. */
static void goodput_chart(tc_rw *w, const tc_dossier *d)
{
    const tc_dossier_side *s[2] = {&d->a, &d->b};
    int any = 0;
    for (int k = 0; k < 1 + d->two; k++)
        for (size_t i = 0; s[k]->is_sweep && i < s[k]->set.n; i++)
            any |= s[k]->pts[i].has_goodput;
    if (!any) {
        tc_rw_missing(w, "No goodput chart: give --slo (e.g. --slo chat) to judge each request.");
        return;
    }
    tc_chart c = {.title = "Goodput against offered load",
                  .xlabel = "offered load (concurrency, or requests/s open loop)",
                  .ylabel = "requests/s",
                  .simulated = d->simulated};
    static double x[2][TC_FRONTIER_MAX_POINTS], all[2][TC_FRONTIER_MAX_POINTS],
        good[2][TC_FRONTIER_MAX_POINTS];
    char lab[4][48];
    for (int k = 0; k < 1 + d->two; k++) {
        size_t n = 0;
        for (size_t i = 0; s[k]->is_sweep && i < s[k]->set.n && n < TC_FRONTIER_MAX_POINTS;
             i++, n++) {
            const tc_sweep_point *p = &s[k]->pts[i];
            x[k][n] = p->open_loop ? p->rate : p->concurrency;
            all[k][n] = p->has_rates ? p->requests_per_s : NAN;
            good[k][n] = p->has_goodput ? p->good_requests_per_s : NAN;
        }
        if (!n)
            continue;
        snprintf(lab[2 * k], sizeof lab[0], "%s served", s[k]->label);
        snprintf(lab[2 * k + 1], sizeof lab[0], "%s good", s[k]->label);
        c.s[c.n++] = (tc_chart_series){lab[2 * k], x[k], all[k], n, k, TC_CHART_DASHED, NULL, NULL};
        c.s[c.n++] =
            (tc_chart_series){lab[2 * k + 1], x[k], good[k], n, k, TC_CHART_LINEPOINTS, NULL, NULL};
    }
    tc_page_draw(w, &c,
                 "Requests/s served (dashed) and good, meeting every SLO (solid), at each sweep "
                 "point.");
}

/* One side's distribution (TTFT or ITL) at every sweep point, one CDF
 * line a point, from every request (or gap) of each. */
static void point_cdfs(tc_rw *w, const tc_dossier *d, const tc_dossier_side *s, const char *what,
                       int itl)
{
    enum { MAX = TC_CHART_MAX_SERIES };
    static double x[MAX][TC_SERIES_CDF_BINS + 1], y[MAX][TC_SERIES_CDF_BINS + 1];
    static char lab[MAX][48];
    const tc_series_cdf *cdfs[MAX];
    char title[128], alt[1200];
    snprintf(title, sizeof title, "%s: %s distribution at each load (CDF)", s->label, what);
    tc_chart c = {.title = title,
                  .xlabel = "latency (ms)",
                  .ylabel = itl ? "gaps at or below (%)" : "requests at or below (%)",
                  .logx = 1,
                  .simulated = s->simulated};
    size_t step = (s->set.n + MAX - 1) / MAX; /* at most MAX lines: every step-th point */
    size_t len = (size_t)snprintf(alt, sizeof alt, "%s p50 and p99 (ms) at each load:", what);
    for (size_t i = 0; i < s->set.n && c.n < MAX; i += step) {
        const tc_summary *q = itl ? &s->f[i].m.itl_ms : &s->f[i].m.ttft_ms;
        const tc_sweep_point *p = &s->pts[i];
        const tc_run_series *t = s->point_series ? &s->point_series[i] : &s->series;
        cdfs[c.n] = itl ? &t->itl_cdf : &t->ttft_cdf;
        size_t n = tc_page_cdf_line(cdfs[c.n], x[c.n], y[c.n]);
        char a[32], b[32];
        tc_sweep_offered_text(p, a, sizeof a);
        snprintf(lab[c.n], sizeof lab[0], "%s", a);
        if (len < sizeof alt)
            len += (size_t)snprintf(alt + len, sizeof alt - len, " %s %s/%s;", lab[c.n],
                                    N(a, q->p50), N(b, q->p99));
        c.s[c.n] = (tc_chart_series){lab[c.n],
                                     x[c.n],
                                     y[c.n],
                                     n,
                                     c.n % TC_CHART_N_COLOURS,
                                     c.n < TC_CHART_N_COLOURS ? TC_CHART_LINE : TC_CHART_DASHED,
                                     NULL,
                                     NULL};
        c.n++;
    }
    (void)d;
    tc_page_cdf_zeros(&c, cdfs, c.n, alt, sizeof alt);
    tc_page_draw(w, &c, alt);
}

static void points_table(tc_rw *w, const tc_dossier_side *s)
{
    const char *head[] = {"run", "tokens/s per GPU", "interactivity", "goodput req/s",
                          "attainment"};
    char id[32];
    snprintf(id, sizeof id, "sweep-%s", s->label);
    tc_rw_table(w, id, head, 5);
    for (size_t i = 0; i < s->set.n; i++) {
        const tc_sweep_point *p = &s->pts[i];
        char c[5][48];
        snprintf(c[0], sizeof c[0], "%lld%s%s", (long long)p->run_id,
                 (int)i == s->knee ? " (knee)" : "",
                 p->complete ? "" : " (interrupted: partial, left out)");
        N(c[1], p->tokens_per_s_per_gpu);
        N(c[2], p->has_interactivity ? p->interactivity : NAN);
        N(c[3], p->has_goodput ? p->good_requests_per_s : NAN);
        N(c[4], p->has_goodput ? p->attainment : NAN);
        const char *row[5] = {c[0], c[1], c[2], c[3], c[4]};
        tc_rw_row(w, row, 5);
    }
    tc_rw_table_end(w);
}

/* One side's frontier and its points' own figures. */
typedef struct front_xy {
    double x[TC_FRONTIER_MAX_POINTS], y[TC_FRONTIER_MAX_POINTS], cost[TC_FRONTIER_MAX_POINTS];
    double jpt[TC_FRONTIER_MAX_POINTS], tpmw[TC_FRONTIER_MAX_POINTS];
    double all_x[TC_FRONTIER_MAX_POINTS];
    double all_y[TC_FRONTIER_MAX_POINTS];
    size_t n, n_all;
} front_xy;

static void front_of(const tc_frontier_side *s, const tc_frontier_pt *f, const tc_frontier_value *v,
                     size_t n, front_xy *o)
{
    o->n = n;
    for (size_t i = 0; i < n; i++) {
        o->x[i] = f[i].x;
        o->y[i] = f[i].y;
        o->cost[i] = v[i].has_cost ? v[i].cost_per_million_tokens : NAN;
        o->jpt[i] = v[i].has_energy ? v[i].joules_per_output_token : NAN;
        o->tpmw[i] = v[i].has_energy ? v[i].tokens_per_mw : NAN;
    }
    o->n_all = 0;
    for (size_t i = 0; i < s->n && i < TC_FRONTIER_MAX_POINTS; i++)
        if (s->pts[i].has_interactivity) {
            o->all_x[o->n_all] = s->pts[i].interactivity;
            o->all_y[o->n_all++] = s->pts[i].tokens_per_s_per_gpu;
        }
}

static void frontier_charts(tc_rw *w, const tc_dossier *d)
{
    const tc_frontier_result *r = d->fr;
    static front_xy f[2];
    static double tx[2][TC_FRONTIER_MAX_TARGETS], tc[2][TC_FRONTIER_MAX_TARGETS],
        lo[2][TC_FRONTIER_MAX_TARGETS], hi[2][TC_FRONTIER_MAX_TARGETS];
    front_of(&d->fa, r->fa, r->va, r->n_fa, &f[0]);
    if (r->two)
        front_of(&d->fb, r->fb, r->vb, r->n_fb, &f[1]);
    const char *names[2][3] = {{"A frontier", "A points", "A at targets"},
                               {"B frontier", "B points", "B at targets"}};
    tc_chart c = {.title = "Pareto frontier: throughput per GPU against interactivity",
                  .xlabel = "interactivity (tokens/s per user)",
                  .ylabel = "output tokens/s per GPU",
                  .simulated = d->simulated};
    for (int k = 0; k < 1 + r->two; k++) {
        c.s[c.n++] =
            (tc_chart_series){names[k][0], f[k].x, f[k].y, f[k].n, k, TC_CHART_LINE, NULL, NULL};
        c.s[c.n++] = (tc_chart_series){names[k][1], f[k].all_x,      f[k].all_y, f[k].n_all,
                                       k,           TC_CHART_POINTS, NULL,       NULL};
    }
    tc_page_draw(w, &c,
                 "Every sweep point (marks) and each platform's frontier (line): the points not "
                 "beaten on both interactivity and throughput per GPU.");
    tc_chart m = {.title = "Cost per million output tokens against interactivity",
                  .xlabel = "interactivity (tokens/s per user)",
                  .ylabel = "cost per million output tokens",
                  .simulated = d->simulated};
    for (int k = 0; k < 1 + r->two; k++) {
        for (size_t i = 0; i < r->n_targets; i++) {
            const tc_frontier_value *v = k ? &r->t[i].b : &r->t[i].a;
            tx[k][i] = r->t[i].x;
            tc[k][i] = v->has_cost ? v->cost_per_million_tokens : NAN;
            lo[k][i] = v->has_ci ? v->cost_lo : tc[k][i];
            hi[k][i] = v->has_ci ? v->cost_hi : tc[k][i];
        }
        m.s[m.n++] = (tc_chart_series){names[k][0],         f[k].x, f[k].cost, f[k].n, k,
                                       TC_CHART_LINEPOINTS, NULL,   NULL};
        m.s[m.n++] = (tc_chart_series){names[k][2], tx[k],           tc[k], r->n_targets,
                                       k,           TC_CHART_DASHED, lo[k], hi[k]};
    }
    for (size_t i = 0; i < r->n_targets && m.n_vline < 4; i++)
        m.vline[m.n_vline++] = r->t[i].x;
    tc_page_draw(w, &m,
                 "Each frontier point's own cost (solid) and the readings at the target "
                 "interactivities (dashed, dotted lines) with their 95% bands.");
    tc_chart e = {.title = "Energy per output token against interactivity",
                  .xlabel = "interactivity (tokens/s per user)",
                  .ylabel = "J per output token",
                  .simulated = d->simulated};
    for (int k = 0; k < 1 + r->two; k++)
        e.s[e.n++] = (tc_chart_series){names[k][0],         f[k].x, f[k].jpt, f[k].n, k,
                                       TC_CHART_LINEPOINTS, NULL,   NULL};
    int any = 0;
    for (int k = 0; k < 1 + r->two; k++)
        for (size_t i = 0; i < f[k].n; i++)
            any |= isfinite(f[k].jpt[i]);
    if (!any)
        tc_rw_missing(w, "No energy chart: no frontier point measured its power (--telemetry).");
    if (!any)
        return;
    tc_page_draw(w, &e,
                 "Joules per output token of each frontier point, over its steady-state window.");
    e.title = "Output tokens/s per provisioned MW against interactivity";
    e.ylabel = "output tokens/s per MW (measured W x PUE)";
    for (int k = 0; k < e.n; k++)
        e.s[k].y = f[k].tpmw;
    tc_page_draw(w, &e,
                 "Output tokens/s per megawatt provisioned (measured power x the profile's PUE) "
                 "of each frontier point.");
}

static void targets_table(tc_rw *w, const tc_dossier *d)
{
    const tc_frontier_result *r = d->fr;
    const char *head[] = {"interactivity", "A reading", "A cost/Mtok", "A 95% CI", "B reading",
                          "B cost/Mtok",   "B 95% CI",  "cost B/A",    "verdict"};
    int n = r->two ? 9 : 4;
    tc_rw_table(w, "frontier-targets", head, n);
    for (size_t i = 0; i < r->n_targets; i++) {
        const tc_frontier_target *t = &r->t[i];
        char c[9][64], a[32], b[32];
        N(c[0], t->x);
        for (int k = 0; k < 2; k++) {
            const tc_frontier_value *v = k ? &t->b : &t->a;
            snprintf(c[1 + 3 * k], sizeof c[0], "%s", tc_frontier_reading_name(v->reading));
            N(c[2 + 3 * k], v->has_cost ? v->cost_per_million_tokens : NAN);
            if (v->has_ci)
                snprintf(c[3 + 3 * k], sizeof c[0], "%s to %s", N(a, v->cost_lo), N(b, v->cost_hi));
            else
                snprintf(c[3 + 3 * k], sizeof c[0], "n/a");
        }
        N(c[7], t->has_ratio ? t->ratio : NAN);
        snprintf(c[8], sizeof c[8], "%s", t->verdict ? t->verdict : "n/a");
        const char *row[9];
        for (int k = 0; k < 9; k++)
            row[k] = c[k];
        tc_rw_row(w, row, n);
    }
    tc_rw_table_end(w);
}

void tc_page_sec_sweep(tc_rw *w, const tc_dossier *d)
{
    tc_rw_heading(w, 2, "sweep", "Sweeps: load, frontier, cost at equal interactivity");
    if (!d->a.is_sweep && !(d->two && d->b.is_sweep)) {
        tc_rw_missing(w, "No sweep: give a SWEEP (truecost sweep) for latency against load and "
                         "the frontiers.");
        return;
    }
    latency_chart(w, d);
    goodput_chart(w, d);
    const tc_dossier_side *side[2] = {&d->a, &d->b};
    for (int k = 0; k < 1 + d->two; k++) {
        if (!side[k]->is_sweep)
            continue;
        points_table(w, side[k]);
        point_cdfs(w, d, side[k], "TTFT", 0);
        point_cdfs(w, d, side[k], "inter-token latency", 1);
    }
    if (!d->has_frontier) {
        tc_rw_missing(w, "No frontier: %s", d->frontier_missing);
        return;
    }
    frontier_charts(w, d);
    targets_table(w, d);
    if (d->fr->has_claim)
        tc_rw_para(w, "The claim across the targets: %s.", d->fr->overall);
    for (int i = 0; i < d->fr->n_warnings; i++)
        tc_rw_para(w, "Warning: %s.", d->fr->warnings[i]);
}
