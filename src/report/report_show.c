/* Stored results as the commands print them (report_show.h). */
#include "report/report_show.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "core/tc_json.h"
#include "report/report_export.h"
#include "report/report_group.h"
#include "report/report_run.h"
#include "report/report_soak.h"
#include "report/report_sweep.h"
#include "report/report_table.h"
#include "views/view_figures.h"
#include "views/view_run.h"
#include "views/view_shards.h"
#include "views/view_soak.h"
#include "views/view_stored.h"
#include "views/view_sweep.h"

static void note(tc_show *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(tc_show *s, const char *fmt, ...)
{
    if (s->n_notes >= TC_SHOW_MAX_NOTES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->notes[s->n_notes++], sizeof s->notes[0], fmt, ap);
    va_end(ap);
}

/* A document on s->out, JSON or flattened (it is freed here; NULL: out
 * of memory). */
static tc_err emit(tc_show *s, json_t *doc, char *err, size_t errlen)
{
    if (s->form != TC_SHOW_CSV || !doc)
        return tc_json_print(s->out, doc, err, errlen);
    tc_err rc = tc_report_export_doc(s->out, TC_EXPORT_CSV, doc, err, errlen);
    json_decref(doc);
    return rc;
}

static void view_notes(tc_show *s, const tc_run_view *v)
{
    for (int i = 0; i < v->n_warnings; i++)
        note(s, "%s", v->warnings[i]);
}

static tc_err print_view(tc_show *s, const tc_run_view *v, char *err, size_t errlen)
{
    if (s->form != TC_SHOW_TABLE)
        return emit(s, tc_report_run_doc(&v->f, v->fingerprint, &v->roof), err, errlen);
    tc_err rc = tc_report_run_text(s->out, &v->f, v->fingerprint, &v->roof, s->color);
    return rc == TC_OK ? rc : tc_fail(err, errlen, rc, "%s", tc_strerror(rc));
}

/* The counts the caller checks, and the schedule-lag warning where the
 * table that carries it is not printed. */
static void took(tc_show *s, const tc_run_info *run, const tc_run_metrics *m)
{
    s->measured = m->requests.measured;
    s->failed = m->requests.failed;
    s->error_rate = tc_run_metrics_error_rate(m);
    char text[400];
    if (s->form != TC_SHOW_TABLE && tc_report_lag_warning(run, m, text, sizeof text))
        note(s, "run %lld: %s", (long long)run->id, text);
}

tc_err tc_report_show_run(tc_store *st, const tc_run_info *run, const tc_slo *slo, tc_show *s,
                          char *err, size_t errlen)
{
    if (s->form == TC_SHOW_NONE) {
        tc_figures f;
        tc_err rc = tc_view_figures(st, run, TC_FIGURES_SUMMARY, &f, err, errlen);
        if (rc != TC_OK)
            return rc;
        took(s, run, &f.m);
        tc_figures_free(&f);
        return TC_OK;
    }
    tc_run_view v;
    tc_err rc = tc_view_run(st, run, &v, err, errlen);
    if (rc != TC_OK)
        return rc;
    view_notes(s, &v);
    if (slo)
        rc = tc_view_apply_slo(st, run, slo, &v.f.m, err, errlen);
    if (rc == TC_OK)
        rc = print_view(s, &v, err, errlen);
    if (rc == TC_OK)
        took(s, run, &v.f.m);
    tc_view_run_free(&v);
    return rc;
}

tc_err tc_report_show_group(tc_store *st, const tc_runset *set, tc_show *s, char *err,
                            size_t errlen)
{
    tc_figures *f = NULL;
    tc_set_summary sum;
    tc_err rc = tc_view_runset_figures(st, set, TC_FIGURES_SUMMARY, &f, err, errlen);
    if (rc != TC_OK)
        return rc;
    tc_figures_summarise("the group", set, f, &sum);
    if (s->form == TC_SHOW_JSON || s->form == TC_SHOW_CSV)
        rc = emit(s, tc_report_group_json(set, f, &sum), err, errlen);
    else if (s->form == TC_SHOW_TABLE && (rc = tc_report_group_text(s->out, set, f, &sum)) != TC_OK)
        tc_fail(err, errlen, rc, "%s", tc_strerror(rc));
    tc_runset_figures_free(f, set->n);
    return rc;
}

/* The merge marked: {"group", "count", "run_ids", "merged": true}. */
static json_t *shards_json(const tc_runset *set)
{
    json_t *ids = json_array();
    for (size_t i = 0; ids && i < set->n; i++)
        if (json_array_append_new(ids, json_integer(set->runs[i].id)) != 0) {
            json_decref(ids);
            return NULL;
        }
    return ids ? json_pack("{s:o, s:I, s:o, s:b}", "group", tc_json_string(set->name), "count",
                           (json_int_t)set->n, "run_ids", ids, "merged", 1)
               : NULL;
}

/* The merged run's document with `shards` after its `run` (whose id is
 * the first shard's), so that no reader takes it for one shard. doc is
 * consumed; NULL when memory ran out. */
static json_t *mark_merged(json_t *doc, const tc_runset *set)
{
    json_t *out = doc ? json_object() : NULL;
    const char *key;
    json_t *v;
    int ok = out != NULL;
    json_object_foreach(doc, key, v)
    {
        ok = ok && json_object_set(out, key, v) == 0;
        if (ok && strcmp(key, "run") == 0)
            ok = json_object_set_new(out, "shards", shards_json(set)) == 0;
    }
    json_decref(doc);
    if (!ok)
        json_decref(out);
    return ok ? out : NULL;
}

tc_err tc_report_show_shards(tc_store *st, const tc_runset *set, tc_show *s, char *err,
                             size_t errlen)
{
    tc_run_view v;
    tc_err rc = tc_view_shards(st, set, &v, err, errlen);
    if (rc != TC_OK)
        return rc;
    view_notes(s, &v);
    /* The merged energy is the server box's (remote devices) or none. */
    int remote = 0;
    for (int d = 0; d < v.f.e.n; d++)
        remote |= strcmp(v.f.e.dev[d].dev.backend, "remote") == 0;
    if (s->form == TC_SHOW_TABLE)
        fprintf(s->out, "%zu shards of one workload, merged (group '%s'; energy: %s)\n", set->n,
                set->name,
                remote ? "the server box's, from --telemetry URL"
                       : "none merged: the shards scraped no --telemetry URL");
    if (s->form == TC_SHOW_TABLE)
        rc = print_view(s, &v, err, errlen);
    else
        rc =
            emit(s, mark_merged(tc_report_run_doc(&v.f, v.fingerprint, &v.roof), set), err, errlen);
    tc_view_run_free(&v);
    return rc;
}

/* Each point's goodput judged again under slo, as `show RUN --slo` and
 * `report --slo` judge a run: its requests streamed against it. */
static tc_err judge_points(tc_store *st, const tc_runset *set, const tc_slo *slo,
                           tc_sweep_point *pts, char *err, size_t errlen)
{
    for (size_t i = 0; i < set->n; i++) {
        tc_figures f;
        tc_err rc = tc_view_figures(st, &set->runs[i], TC_FIGURES_SUMMARY, &f, err, errlen);
        if (rc == TC_OK)
            rc = tc_view_apply_slo(st, &set->runs[i], slo, &f.m, err, errlen);
        if (rc == TC_OK)
            tc_sweep_point_goodput(&f.m, &pts[i]);
        tc_figures_free(&f);
        if (rc != TC_OK)
            return rc;
    }
    return TC_OK;
}

tc_err tc_report_show_sweep(tc_store *st, const tc_runset *set, const tc_slo *slo, tc_show *s,
                            char *err, size_t errlen)
{
    tc_sweep_point *pts = NULL;
    char slo_text[TC_SLO_TEXT_MAX];
    tc_err rc = tc_view_sweep(st, set, &pts, err, errlen);
    if (rc == TC_OK && slo)
        rc = judge_points(st, set, slo, pts, err, errlen);
    if (rc != TC_OK) {
        free(pts);
        return rc;
    }
    if (slo)
        tc_slo_text(slo, slo_text, sizeof slo_text);
    tc_sweep_view v = {.name = set->name,
                       .slo = slo                   ? slo_text
                              : set->runs[0].slo[0] ? set->runs[0].slo
                                                    : NULL,
                       .points = pts,
                       .n = set->n};
    if (s->form == TC_SHOW_JSON)
        rc = emit(s, tc_report_sweep_json(&v), err, errlen);
    else if (s->form == TC_SHOW_TABLE && (rc = tc_report_sweep_text(s->out, &v)) != TC_OK)
        tc_fail(err, errlen, rc, "%s", tc_strerror(rc));
    free(pts);
    return rc;
}

tc_err tc_report_show_soak(tc_store *st, const tc_run_info *run, tc_show *s, char *err,
                           size_t errlen)
{
    tc_soak_stored ss;
    tc_err rc = tc_view_soak(st, run->id, &ss, &s->soak_found, err, errlen);
    if (rc != TC_OK || !s->soak_found)
        return rc;
    tc_soak_view v = {.run = run,
                      .plan = &ss.plan,
                      .windows = ss.windows,
                      .n_windows = ss.n_windows,
                      .outages = ss.outages,
                      .n_outages = ss.n_outages,
                      .verdict = &ss.verdict,
                      .terminal = s->terminal};
    if (s->form == TC_SHOW_JSON)
        rc = emit(s, tc_report_soak_json(&v), err, errlen);
    else if (s->form == TC_SHOW_TABLE && (rc = tc_report_soak_text(s->out, &v)) != TC_OK)
        tc_fail(err, errlen, rc, "%s", tc_strerror(rc));
    s->soak_pass = ss.verdict.pass;
    tc_soak_stored_free(&ss);
    return rc;
}
