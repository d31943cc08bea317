#include "figures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void tc_figures_cost_measured(const tc_run_metrics *m, const tc_run_energy *e,
                              tc_cost_measured *out)
{
    memset(out, 0, sizeof *out);
    /* Priced at the steady state when the run reached one (run_window.h). */
    out->output_tokens_per_s = m->window.has_window ? m->window.output_tokens_per_s
                               : m->has_duration    ? m->output_tokens_per_s
                                                    : 0;
    out->has_power = e->n > 0;
    out->has_idle = e->n > 0;
    int gpus = 0, cpus = 0;
    for (int i = 0; i < e->n; i++) {
        gpus += e->dev[i].dev.info.kind == TC_TELEM_GPU;
        cpus += e->dev[i].dev.info.kind == TC_TELEM_CPU;
        out->has_power = out->has_power && e->dev[i].load.has_power;
        out->has_idle = out->has_idle && e->dev[i].has_idle;
        out->busy_power_w += e->dev[i].load.avg_power_w;
        out->idle_power_w += e->dev[i].idle_power_w;
    }
    out->joules_per_output_token = e->has_total ? e->joules_per_output_token : 0;
    out->steady = m->window.has_window;
    out->power_scope = gpus && cpus ? TC_SCOPE_DEVICES
                       : gpus       ? TC_SCOPE_BOARD
                       : cpus       ? TC_SCOPE_PACKAGE
                                    : TC_SCOPE_NONE;
}

void tc_figures_free(tc_figures *f)
{
    if (!f)
        return;
    tc_run_energy_free(&f->e);
    tc_run_metrics_free(&f->m);
    tc_req_records_free(f->recs, f->n_recs);
    memset(f, 0, sizeof *f);
}

void tc_runset_free(tc_runset *s)
{
    if (!s)
        return;
    free(s->runs);
    memset(s, 0, sizeof *s);
}

void tc_runset_figures_free(tc_figures *f, size_t n)
{
    for (size_t i = 0; f && i < n; i++)
        tc_figures_free(&f[i]);
    free(f);
}

void tc_figures_mean_cost_inputs(const tc_figures *f, size_t n, tc_cost_measured *out,
                                 tc_group_stat *tps)
{
    memset(out, 0, sizeof *out);
    out->has_power = out->has_idle = n > 0;
    size_t with_j = 0;
    double *v = calloc(n ? n : 1, sizeof *v);
    for (size_t i = 0; i < n; i++) {
        const tc_cost_measured *r = &f[i].cost_in;
        out->has_power = out->has_power && r->has_power;
        out->has_idle = out->has_idle && r->has_idle;
        out->busy_power_w += r->busy_power_w / (double)n;
        out->idle_power_w += r->idle_power_w / (double)n;
        out->joules_per_output_token += r->joules_per_output_token / (double)n;
        with_j += r->joules_per_output_token > 0;
        if (v)
            v[i] = r->output_tokens_per_s;
    }
    if (with_j != n)
        out->joules_per_output_token = 0;
    out->power_scope = n ? f[0].cost_in.power_scope : TC_SCOPE_NONE; /* one platform's runs */
    out->steady = n > 0;
    for (size_t i = 0; i < n; i++)
        out->steady = out->steady && f[i].cost_in.steady;
    tc_group_stat_compute(v, v ? n : 0, tps);
    out->output_tokens_per_s = tps->mean;
    free(v);
}

int tc_figures_quality_warnings(const char *who, const tc_runset *set, const tc_figures *f,
                                char lines[][200], int max)
{
    int n = 0;
    int64_t measured = 0, failed = 0;
    for (size_t i = 0; i < set->n; i++) {
        if (set->runs[i].status != TC_RUN_COMPLETE && n < max)
            snprintf(lines[n++], 200, "%s: run %lld is %s: its figures are partial", who,
                     (long long)set->runs[i].id, tc_status_name(set->runs[i].status));
        measured += f[i].m.requests.measured;
        failed += f[i].m.requests.failed;
    }
    if (failed > 0 && n < max)
        snprintf(lines[n++], 200,
                 "%s: %lld of %lld measured requests failed (%.1f%%): the figures are of the "
                 "completed ones",
                 who, (long long)failed, (long long)measured,
                 100.0 * (double)failed / (double)measured);
    return n;
}

void tc_figures_summarise(const char *who, const tc_runset *set, const tc_figures *f,
                          tc_set_summary *out)
{
    memset(out, 0, sizeof *out);
    tc_figures_mean_cost_inputs(f, set->n, &out->mean, &out->tps);
    out->n_warnings =
        tc_figures_quality_warnings(who, set, f, out->warnings, TC_FIGURES_MAX_WARNINGS);
}

void tc_figures_list_free(tc_figures_list *l)
{
    if (!l)
        return;
    for (size_t i = 0; l->m && l->mp && i < l->n; i++)
        if (l->mp[i])
            tc_run_metrics_free(&l->m[i]);
    free(l->m);
    free(l->mp);
    free(l->runs);
    memset(l, 0, sizeof *l);
}
