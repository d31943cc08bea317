/* The evidence options of lockin and decide as parsed (cli/cli_evidence.c
 * reads them), and the reading of what they name (assess/evidence.h),
 * said and mapped to exit statuses. */
#ifndef TC_APP_EVIDENCE_H
#define TC_APP_EVIDENCE_H

#include "assess/evidence.h"

typedef struct tc_app_evidence_opts {
    tc_evidence_sources src;
    const char *profile; /* --profile: both sides' (TC_OPT_PROFILES) */
    const char *db;
    const char *runs_name; /* "--perf" or "--runs": the two-run option */
    int argc;              /* the command line, for the second run */
    char **argv;
} tc_app_evidence_opts;

/* Reads everything the options name into *ev (zeroed first) and the
 * matching overrides for *a into *ov (T_op, perf ratio, running saving),
 * saying the notes on stderr. Returns 0, or an exit status after saying
 * why (a bad file, a run not found, no tokens_per_month for a running
 * saving). */
int tc_app_evidence_gather(const tc_app_evidence_opts *o, const tc_lockin *a, tc_evidence *ev,
                           tc_lockin_overrides *ov);

/* The assessment at file loaded into *as, then the evidence o names
 * gathered for it (tc_app_evidence_gather): lockin's and decide's inputs.
 * 0, or an exit status after saying why (a bad assessment: TC_EXIT_USAGE). */
int tc_app_evidence_read(const char *file, const tc_app_evidence_opts *o, tc_lockin *as,
                         tc_evidence *ev, tc_lockin_overrides *ov);

#endif
