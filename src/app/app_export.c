/* truecost export's work: a stored run's (or group's) requests, chunks,
 * telemetry samples or summary as CSV or JSON, to stdout or a file
 * written whole or not at all. */
#include <errno.h>
#include <stdlib.h>

#include "app/app.h"
#include "app/app_export.h"
#include "core/tc_outfile.h"
#include "report/report_energy.h"
#include "views/view_figures.h"

/* 0, or TC_EXIT_RUNTIME after saying "export: <why>". */
static int export_said(tc_err rc, const char *err)
{
    if (rc == TC_OK)
        return 0;
    tc_app_error("export: %s", err);
    return TC_EXIT_RUNTIME;
}

static int export_samples(tc_app_export_job *j)
{
    const tc_run_info *run = &j->set->runs[0];
    tc_run_device *devs = NULL;
    tc_run_sample *samples = NULL;
    int n_devs = 0;
    size_t n = 0;
    tc_err rc = tc_store_load_telemetry(j->st, run->id, &devs, &n_devs, &samples, &n, j->err,
                                        sizeof j->err);
    if (rc == TC_OK)
        rc = tc_report_export_samples(j->f, j->fmt == TC_EXPORT_JSON, run->simulated, devs, n_devs,
                                      samples, n, j->err, sizeof j->err);
    free(devs);
    free(samples);
    return export_said(rc, j->err);
}

/* The summary: the very document `run --json` (or `show GROUP --json`)
 * printed, or flattened to CSV. */
static int export_summary(tc_app_export_job *j)
{
    tc_show s = tc_app_show_on(j->fmt == TC_EXPORT_JSON ? TC_SHOW_JSON : TC_SHOW_CSV);
    s.out = j->f;
    tc_err rc = j->set->is_group
                    ? tc_report_show_group(j->st, j->set, &s, j->err, sizeof j->err)
                    : tc_report_show_run(j->st, &j->set->runs[0], NULL, &s, j->err, sizeof j->err);
    for (int i = 0; i < s.n_notes; i++)
        tc_app_error("%s", s.notes[i]);
    return export_said(rc, j->err);
}

/* Requests or chunks: one run's rows, or a group's runs' rows one after
 * the other under one header, with a run_id column. */
static int export_rows(tc_app_export_job *j)
{
    size_t rows = 0;
    for (size_t i = 0; i < j->set->n; i++) {
        const tc_run_info *run = &j->set->runs[i];
        tc_req_record *recs;
        size_t n;
        if (tc_app_check(tc_store_load_requests(j->st, run->id, &recs, &n, j->err, sizeof j->err),
                         j->err))
            return TC_EXIT_RUNTIME;
        tc_err rc =
            j->set->is_group
                ? tc_report_export_part(j->f, j->what, j->fmt, run, recs, n, i == 0,
                                        i + 1 == j->set->n, &rows, j->err, sizeof j->err)
                : tc_report_export(j->f, j->what, j->fmt, run, recs, n, j->err, sizeof j->err);
        tc_store_free_requests(recs, n);
        if (export_said(rc, j->err))
            return TC_EXIT_RUNTIME;
    }
    return 0;
}

int tc_app_export(const char *db, const char *run, const char *output, tc_app_export_job *j,
                  int samples)
{
    tc_runset set = {0};
    int code = tc_app_open_store(db, TC_STORE_READ, &j->st);
    if (!code)
        code = tc_app_check(tc_view_runset(j->st, run, &set, j->err, sizeof j->err), j->err);
    if (!code && set.is_group && samples) {
        tc_app_error("export: --what samples takes one run; group '%s' has runs %lld to %lld",
                     set.name, (long long)set.runs[0].id, (long long)set.runs[set.n - 1].id);
        code = TC_EXIT_USAGE;
    }
    j->f = stdout;
    j->set = &set;
    tc_outfile out = {0};
    tc_inputs in = {0};
    tc_inputs_add(&in, "--db", j->st ? tc_store_path(j->st) : NULL);
    if (!code && tc_output_check("-o", output, &in, j->err, sizeof j->err) != TC_OK) {
        tc_app_error("export: %s", j->err);
        code = TC_EXIT_USAGE;
    }
    if (!code && output) { /* a temporary file, renamed over the target when all is written */
        if (tc_outfile_open(output, &out, j->err, sizeof j->err) == TC_OK)
            j->f = out.f;
        else {
            tc_app_error("export: -o %s", j->err);
            code = TC_EXIT_RUNTIME;
        }
        errno = 0; /* a failed write says why */
    }
    if (!code)
        code = samples                        ? export_samples(j)
               : j->what == TC_EXPORT_SUMMARY ? export_summary(j)
                                              : export_rows(j);
    if (out.f && code)
        tc_outfile_abort(&out);
    else if (out.f)
        code = export_said(tc_outfile_commit(&out, j->err, sizeof j->err), j->err);
    tc_runset_free(&set);
    tc_store_close(j->st);
    return code;
}
