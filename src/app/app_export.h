/* truecost export's work. */
#ifndef TC_APP_EXPORT_H
#define TC_APP_EXPORT_H

#include <stdio.h>

#include "report/report_export.h"
#include "store/store.h"

/* What is exported and where: what and fmt judged by the CLI from --what
 * and --format; the rest filled by tc_app_export. */
typedef struct tc_app_export_job {
    FILE *f;
    tc_store *st;
    const tc_runset *set;
    tc_export_what what;
    tc_export_format fmt;
    char err[512];
} tc_app_export_job;

/* Exports run (an id, label or group) of db (NULL: the default) as j asks
 * (samples: the telemetry samples, one run only) to output (NULL:
 * stdout). The exit status, said. */
int tc_app_export(const char *db, const char *run, const char *output, tc_app_export_job *j,
                  int samples);

#endif
