/* The evidence options of `lockin` and `decide` (--gaps FILE, --perf or
 * --runs A B, --profile-a F, --profile-b F, --soak RUN, --db PATH) and the
 * reading of what they name (assess/evidence.h), said and mapped to exit
 * statuses. */
#ifndef TC_CLI_EVIDENCE_H
#define TC_CLI_EVIDENCE_H

#include "assess/evidence.h"

typedef struct tc_cli_evidence_opts {
    tc_evidence_sources src;
    const char *profile; /* --profile: both sides' (TC_OPT_PROFILES) */
    const char *db;
    const char *runs_name; /* "--perf" or "--runs": the two-run option */
    int argc;              /* the command line, for the second run */
    char **argv;
} tc_cli_evidence_opts;

/* The two-run option (a TC_OPT_C with a value): value is the first run,
 * the next word of o->argv the second. Returns 0, or -1 after saying why. */
int tc_cli_evidence_runs(tc_cli_evidence_opts *o, const char *value);

/* --train INCUMBENT ALTERNATIVE (a TC_OPT_C with a value), as above. */
int tc_cli_evidence_train(tc_cli_evidence_opts *o, const char *value);

/* Settles the profiles (--profile for a side without its own) and checks
 * the combination (profiles need runs, both profiles or none). Returns 0
 * or -1 after saying why. */
int tc_cli_evidence_check(tc_cli_evidence_opts *o);

/* Reads everything the options name into *ev (zeroed first) and the
 * matching overrides for *a into *ov (T_op, perf ratio, running saving),
 * saying the notes on stderr. Returns 0, or an exit status after saying
 * why (a bad file, a run not found, no tokens_per_month for a running
 * saving). */
int tc_cli_evidence_gather(const tc_cli_evidence_opts *o, const tc_lockin *a, tc_evidence *ev,
                           tc_lockin_overrides *ov);

#endif
