/* truecost report's work: its options, and the report written. */
#ifndef TC_APP_REPORT_H
#define TC_APP_REPORT_H

#include "analysis/bootstrap.h"
#include "app/app_frontier.h"
#include "page/page_doc.h"

typedef struct tc_app_report_args {
    const char *db, *profile, *profile_a, *profile_b, *assessment, *gaps, *soak, *at, *slo_text;
    const char *kernels, *fit, *train[2];
    int argc;
    char **argv;
    const char *output, *format, *pos[2];
    tc_slo slo;
    long long resamples, seed;
    double claim;  /* NaN: none */
    double demand; /* 0: the profiles' (frontier) or the assessment's (lock-in) */
    int force;
    double targets[TC_FRONTIER_MAX_TARGETS];
    size_t n_targets;
} tc_app_report_args;

/* The report a asks written; its path printed; the exit status. */
int tc_app_report(tc_app_report_args *a);

#endif
