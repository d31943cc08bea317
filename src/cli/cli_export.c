/* truecost export: a stored run's (or group's) requests, chunks,
 * telemetry samples or summary as CSV or JSON, for tools of the user's. */
#include <string.h>

#include "cli.h"
#include "app/app_export.h"
#include "cli_read.h"

/* Checks the --what and --format names; 0 or a usage error (said). */
static int export_kind(const read_args *a, tc_app_export_job *j, int *samples)
{
    j->what = TC_EXPORT_REQUESTS;
    j->fmt = TC_EXPORT_CSV;
    *samples = a->what && strcmp(a->what, "samples") == 0;
    if (a->what && !*samples && tc_report_export_what_parse(a->what, &j->what) < 0) {
        tc_app_error("export: --what '%s': expected requests, chunks, summary or samples", a->what);
        return TC_EXIT_USAGE;
    }
    if (a->format && tc_report_export_format_parse(a->format, &j->fmt) < 0) {
        tc_app_error("export: --format '%s': expected csv or json", a->format);
        return TC_EXIT_USAGE;
    }
    return 0;
}

int tc_cmd_export(int argc, char **argv)
{
    read_args a;
    tc_app_export_job j = {0};
    int samples;
    if (tc_cli_read_args("export", argc, argv, 1, &a) < 0)
        return tc_cli_usage_hint("export");
    if (export_kind(&a, &j, &samples))
        return tc_cli_usage_hint("export");
    return tc_app_export(a.db, a.run, a.output, &j, samples);
}
