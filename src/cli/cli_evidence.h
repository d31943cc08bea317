/* The evidence options of `lockin` and `decide` (--gaps FILE, --perf or
 * --runs A B, --profile-a F, --profile-b F, --soak RUN, --db PATH) and the
 * reading of what they name (assess/evidence.h), said and mapped to exit
 * statuses. */
#ifndef TC_CLI_EVIDENCE_H
#define TC_CLI_EVIDENCE_H

#include "app/app_evidence.h"

/* The two-run option (a TC_OPT_C with a value): value is the first run,
 * the next word of o->argv the second. Returns 0, or -1 after saying why. */
int tc_cli_evidence_runs(tc_app_evidence_opts *o, const char *value);

/* --train INCUMBENT ALTERNATIVE (a TC_OPT_C with a value), as above. */
int tc_cli_evidence_train(tc_app_evidence_opts *o, const char *value);

/* Settles the profiles (--profile for a side without its own) and checks
 * the combination (profiles need runs, both profiles or none). Returns 0
 * or -1 after saying why. */
int tc_cli_evidence_check(tc_app_evidence_opts *o);

#endif
