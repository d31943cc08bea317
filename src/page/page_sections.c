/* The report's sections in words and tables (report_doc.h); the charts
 * are report_sections_charts.c. Every number is the analysis layer's, as
 * `compare`, `cost`, `frontier` and `show --json` give it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/bootstrap.h"
#include "tc_version.h"
#include "page/page_doc.h"
#include "report/report_table.h"

#define N(buf, v) tc_page_num(buf, sizeof buf, (v))

static void ci_text(char *out, size_t len, const tc_boot_ci *ci)
{
    char p[32], lo[32], hi[32];
    snprintf(out, len, "%s (95%% CI %s to %s)", N(p, ci->point), N(lo, ci->lo), N(hi, ci->hi));
}

/* Two sweeps: the claim where it holds, then the cost ratio at each
 * target with its interval and verdict, as `compare`'s frontier document. */
static void frontier_rows(tc_rw *w, const tc_dossier *d)
{
    const tc_frontier_result *r = d->fr;
    const char *row[2] = {"verdict", r->has_claim ? r->overall : "no claim given"};
    tc_rw_row(w, row, 2);
    for (size_t i = 0; i < r->n_targets; i++) {
        const tc_frontier_target *t = &r->t[i];
        char k[80], v[200], x[32], p[32], lo[32], hi[32];
        snprintf(k, sizeof k, "cost B/A at %s tokens/s per user", N(x, t->x));
        if (!t->has_ratio)
            snprintf(v, sizeof v, "n/a (%s)",
                     t->a.reading == TC_AT_NOT_REACHED ? "A does not reach it"
                                                       : "B does not reach it");
        else if (isfinite(t->ratio_lo))
            snprintf(v, sizeof v, "%s (95%% CI %s to %s)%s%s", N(p, t->ratio), N(lo, t->ratio_lo),
                     N(hi, t->ratio_hi), t->verdict ? ", " : "", t->verdict ? t->verdict : "");
        else
            snprintf(v, sizeof v, "%s%s%s", N(p, t->ratio), t->verdict ? ", " : "",
                     t->verdict ? t->verdict : "");
        const char *cells[2] = {k, v};
        tc_rw_row(w, cells, 2);
    }
}

/* One platform alone: a sweep's peak and knee, or the throughput of its
 * run (or its repeats' mean), each saying which figure it is. */
static void one_side_rows(tc_rw *w, const tc_dossier_side *s)
{
    char v[300], a[32], b[32], load[32];
    if (s->is_sweep && s->peak >= 0) {
        const tc_sweep_point *p = &s->pts[s->peak];
        snprintf(v, sizeof v, "%s output tokens/s per GPU at %s tokens/s per user (run %lld, %s)",
                 N(a, p->tokens_per_s_per_gpu),
                 p->has_interactivity ? N(b, p->interactivity) : "n/a", (long long)p->run_id,
                 tc_sweep_offered_text(p, load, sizeof load));
        const char *peak[2] = {"peak of the frontier", v};
        tc_rw_row(w, peak, 2);
        if (s->knee >= 0) {
            const tc_sweep_point *k = &s->pts[s->knee];
            snprintf(v, sizeof v, "%s (run %lld): %s; %s output tokens/s per GPU there",
                     tc_sweep_offered_text(k, load, sizeof load), (long long)k->run_id, s->knee_why,
                     N(a, k->tokens_per_s_per_gpu));
        } else {
            snprintf(v, sizeof v, "none: goodput never fell and latency p99 never doubled");
        }
        const char *knee[2] = {"knee", v};
        tc_rw_row(w, knee, 2);
        return;
    }
    int group = s->set.n > 1;
    snprintf(v, sizeof v, "%s tokens/s",
             N(a, group ? s->sum.mean.output_tokens_per_s : s->f[0].cost_in.output_tokens_per_s));
    const char *row[2] = {group ? "output throughput (mean of the runs' windows)"
                                : "output throughput (steady-state window)",
                          v};
    tc_rw_row(w, row, 2);
}

void tc_page_sec_summary(tc_rw *w, const tc_dossier *d)
{
    tc_rw_heading(w, 2, "summary", "Summary");
    if (d->simulated)
        tc_rw_banner(w, "SIMULATED: this report contains runs against truecost sim, not a real "
                        "server. Its numbers show the method, not any hardware.");
    char sentence[1300];
    tc_page_verdict(d, sentence, sizeof sentence);
    if (d->has_lockin)
        tc_rw_para(w, "%s Weighed with the lock-in and the checklist, the decision is: %s.",
                   sentence, tc_decide_verdict_name(d->decision.verdict));
    else
        tc_rw_para(w, "%s", sentence);
    const char *head[] = {"figure", "value"};
    tc_rw_table(w, "summary-table", head, 2);
    char v[200];
    if (d->by_frontier && d->has_frontier) {
        frontier_rows(w, d);
    } else if (d->has_compare && !d->by_frontier) {
        const tc_compare_result *r = &d->cmp;
        const char *row[2] = {"verdict", r->claim.given ? tc_claim_verdict_name(r->claim.verdict)
                                                        : "no claim given"};
        tc_rw_row(w, row, 2);
        ci_text(v, sizeof v, &r->tps_ratio);
        const char *t[2] = {"throughput B/A", v};
        tc_rw_row(w, t, 2);
        char c[200] = "n/a (give cost profiles)";
        if (r->has_cost_ratio)
            ci_text(c, sizeof c, &r->cost_ratio);
        const char *cr[2] = {"cost per million tokens B/A", c};
        tc_rw_row(w, cr, 2);
    }
    if (!d->by_frontier && d->has_frontier && d->fr->n_targets) {
        const tc_frontier_target *t = &d->fr->t[0];
        char x[32], r[32];
        snprintf(v, sizeof v, "%s at %s tokens/s per user", t->has_ratio ? N(r, t->ratio) : "n/a",
                 N(x, t->x));
        const char *row[2] = {"cost B/A at equal interactivity", v};
        if (d->fr->two)
            tc_rw_row(w, row, 2);
    }
    if (d->has_lockin) {
        const char *row[2] = {"decision", tc_decide_verdict_name(d->decision.verdict)};
        tc_rw_row(w, row, 2);
    }
    if (!d->two)
        one_side_rows(w, &d->a);
    tc_rw_table_end(w);
}

static void load_text(const tc_sweep_point *p, char *out, size_t len)
{
    if (p->open_loop)
        snprintf(out, len, "%.6g req/s", p->rate);
    else
        snprintf(out, len, "c=%d", p->concurrency);
}

/* One row per run (a sweep's points, a group's repeats). */
static void runs_table(tc_rw *w, const tc_dossier_side *s)
{
    static const char *head[] = {"run",          "load",        "completed",     "failed",
                                 "output tok/s", "TTFT p50 ms", "TTFT p99 ms",   "ITL p50 ms",
                                 "ITL p99 ms",   "TPOT p50 ms", "interactivity", "W",
                                 "J/token"};
    char id[64];
    snprintf(id, sizeof id, "runs-%s", s->label);
    tc_rw_table(w, id, head, 13);
    for (size_t i = 0; i < s->set.n; i++) {
        const tc_run_metrics *m = &s->f[i].m;
        const tc_sweep_point *p = &s->pts[i];
        char c[13][48];
        snprintf(c[0], sizeof c[0], "%lld%s", (long long)s->set.runs[i].id,
                 s->set.runs[i].simulated ? " (SIMULATED)" : "");
        load_text(p, c[1], sizeof c[1]);
        snprintf(c[2], sizeof c[2], "%lld", (long long)m->requests.completed);
        snprintf(c[3], sizeof c[3], "%lld", (long long)m->requests.failed);
        N(c[4], m->output_tokens_per_s);
        N(c[5], m->ttft_ms.p50);
        N(c[6], m->ttft_ms.p99);
        N(c[7], m->itl_ms.p50);
        N(c[8], m->itl_ms.p99);
        N(c[9], m->tpot_ms.p50);
        N(c[10], p->has_interactivity ? p->interactivity : NAN);
        N(c[11], p->has_avg_power ? p->avg_power_w : NAN);
        N(c[12], p->has_jpt ? p->joules_per_output_token : NAN);
        const char *row[13];
        for (int k = 0; k < 13; k++)
            row[k] = c[k];
        tc_rw_row(w, row, 13);
    }
    tc_rw_table_end(w);
}

void tc_page_errors(tc_rw *w, const tc_dossier_side *s, size_t i)
{
    const tc_run_metrics *m = &s->f[i].m;
    if (!m->requests.failed) {
        tc_rw_para(w, "Errors: none of the %lld measured requests of run %lld failed.",
                   (long long)m->requests.measured, (long long)s->set.runs[i].id);
        return;
    }
    const char *head[] = {"error kind", "requests"};
    char id[48];
    snprintf(id, sizeof id, "errors-%lld", (long long)s->set.runs[i].id);
    tc_rw_table(w, id, head, 2);
    for (int e = 1; e < TC_REQ_ERROR_COUNT; e++) {
        if (!m->errors[e])
            continue;
        char n[32];
        snprintf(n, sizeof n, "%lld", (long long)m->errors[e]);
        const char *row[2] = {tc_req_error_name((tc_req_error)e), n};
        tc_rw_row(w, row, 2);
    }
    tc_rw_table_end(w);
}

void tc_page_sec_runs(tc_rw *w, const tc_dossier *d)
{
    tc_rw_heading(w, 2, "runs", "Runs and their distributions");
    tc_page_pair_charts(w, d);
    for (int k = 0; k < 1 + d->two; k++) {
        const tc_dossier_side *s = k ? &d->b : &d->a;
        char h[300];
        snprintf(h, sizeof h, "%s: %s (%zu run%s%s)", s->label, s->set.name, s->set.n,
                 s->set.n == 1 ? "" : "s", s->is_sweep ? ", a sweep" : "");
        tc_rw_heading(w, 3, k ? "runs-b" : "runs-a", h);
        runs_table(w, s);
        if (s->is_sweep)
            tc_rw_para(w, "Drawn below: run %lld, %s.", (long long)s->set.runs[s->charted].id,
                       s->knee >= 0 ? "the knee of the sweep" : "its highest load (no knee)");
        tc_page_side_charts(w, d, s);
        tc_page_errors(w, s, s->charted);
        tc_page_point_timelines(w, d, s);
    }
}

static void cost_row(tc_rw *w, const tc_dossier_side *s)
{
    char c[6][300];
    const tc_cost_result *r = &s->cost;
    double per = r->tokens_per_month > 0 ? 1e6 / r->tokens_per_month : NAN;
    snprintf(c[0], sizeof c[0], "%s (%s)", s->label, s->profile->name);
    N(c[1], r->hardware.available ? r->hardware.value * per : NAN);
    N(c[2], r->electricity.available ? r->electricity.value * per : NAN);
    N(c[3], r->operations.available ? r->operations.value * per : NAN);
    N(c[4], r->has_cost ? r->cost_per_million_tokens : NAN);
    N(c[5], r->per_month);
    const char *row[6] = {c[0], c[1], c[2], c[3], c[4], c[5]};
    tc_rw_row(w, row, 6);
}

/* What the side's cost prices, in words. */
static void priced(tc_rw *w, const tc_dossier_side *s)
{
    if (!tc_dossier_priced_at_peak(s)) {
        tc_rw_para(w, "%s is priced %s.", s->label,
                   s->set.n > 1 ? "at the mean of its runs" : "at its run's steady-state window");
        return;
    }
    const tc_sweep_point *p = &s->pts[s->peak];
    char load[32], tps[32];
    tc_rw_para(w,
               "%s is priced at its peak: run %lld, %s, %s output tokens/s per GPU (the top of "
               "its frontier; other interactivities in the frontier section).",
               s->label, (long long)p->run_id, tc_sweep_offered_text(p, load, sizeof load),
               tc_report_sig(tps, sizeof tps, p->tokens_per_s_per_gpu));
}

void tc_page_sec_cost(tc_rw *w, const tc_dossier *d)
{
    tc_rw_heading(w, 2, "cost", "Cost per million output tokens");
    if (!d->a.profile) {
        tc_rw_missing(w, "No cost: give --profile FILE (or --profile-a and --profile-b); "
                         "examples are in profiles/.");
        return;
    }
    const char *head[] = {"side",       "hardware",       "electricity",
                          "operations", "total per Mtok", "per month"};
    tc_rw_table(w, "cost-table", head, 6);
    if (d->a.has_cost)
        cost_row(w, &d->a);
    if (d->two && d->b.has_cost)
        cost_row(w, &d->b);
    tc_rw_table_end(w);
    const tc_dossier_side *side[2] = {&d->a, &d->b};
    for (int k = 0; k < 1 + d->two; k++)
        if (side[k]->has_cost)
            priced(w, side[k]);
    if (d->by_frontier) {
        tc_rw_para(w, "Two sweeps are compared at equal interactivity: the cost ratio that "
                      "counts is the one at each target, in the summary and the frontier "
                      "section.");
    } else if (d->has_compare && d->cmp.has_cost_ratio) {
        char v[200];
        ci_text(v, sizeof v, &d->cmp.cost_ratio);
        tc_rw_para(w, "Cost B/A: %s, %s.", v, d->cmp.method);
    } else if (d->two) {
        tc_rw_missing(w, "No cost ratio: %s",
                      d->has_compare ? "give each platform's profile (--profile-a, --profile-b)"
                                     : d->compare_missing);
    }
    tc_page_cost_chart(w, d);
}

/* The command lines that made each side's runs, each once (a sweep's
 * points share one), as stored with them. */
static void measured_by(tc_rw *w, const tc_dossier *d)
{
    const char *head[] = {"side", "runs", "command"};
    tc_rw_table(w, "commands", head, 3);
    for (int k = 0; k < 1 + d->two; k++) {
        const tc_dossier_side *s = k ? &d->b : &d->a;
        for (size_t i = 0; i < s->set.n; i++) {
            const char *cmd = s->set.runs[i].command;
            size_t j = 0, count = 0;
            while (j < i && strcmp(s->set.runs[j].command, cmd) != 0)
                j++;
            if (j < i)
                continue; /* said with its first run */
            for (size_t m = i; m < s->set.n; m++)
                count += strcmp(s->set.runs[m].command, cmd) == 0;
            char runs[64];
            snprintf(runs, sizeof runs, "%zu from run %lld", count, (long long)s->set.runs[i].id);
            const char *row[3] = {s->label, runs,
                                  cmd[0] ? cmd : "not recorded (an older truecost)"};
            tc_rw_row(w, row, 3);
        }
    }
    tc_rw_table_end(w);
}

void tc_page_sec_method(tc_rw *w, const tc_dossier *d)
{
    tc_rw_heading(w, 2, "method", "How it was measured");
    tc_rw_para(w, "This report: %s", d->ask->command ? d->ask->command : "truecost report");
    const char *head[] = {"side",    "runs",     "max tokens", "prompt set",
                          "arrival", "requests", "seed"};
    tc_rw_table(w, "method-table", head, 7);
    for (int k = 0; k < 1 + d->two; k++) {
        const tc_dossier_side *s = k ? &d->b : &d->a;
        const tc_run_info *r = &s->set.runs[0];
        char n[32], mt[32], rq[32], sd[32];
        snprintf(n, sizeof n, "%zu", s->set.n);
        snprintf(mt, sizeof mt, "%lld", (long long)r->max_tokens);
        snprintf(rq, sizeof rq, "%lld", (long long)r->requests);
        snprintf(sd, sizeof sd, "%llu", (unsigned long long)r->seed);
        const char *row[7] = {s->label,
                              n,
                              mt,
                              r->prompt_set[0] ? r->prompt_set : "not recorded",
                              tc_arrival_name(r->arrival),
                              rq,
                              sd};
        tc_rw_row(w, row, 7);
    }
    tc_rw_table_end(w);
    measured_by(w, d);
    tc_rw_para(w,
               "truecost %s%s%s. Latency is from the intended send time; throughput, power "
               "and cost are read over each run's steady-state window; intervals are "
               "bootstrap 95%% intervals (%d resamples for the comparison, %d for the "
               "frontier; seed %llu).",
               TC_VERSION, TC_VERSION_GIT[0] ? ", " : "", TC_VERSION_GIT, d->ask->resamples_compare,
               d->ask->resamples_frontier, (unsigned long long)d->ask->seed);
}
