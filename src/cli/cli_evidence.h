/* Evidence that replaces the guesses of an assessment, for `lockin` and
 * `decide`: a saved gap table (T_op and the key gaps), two stored runs or
 * groups (the performance gap, and whether the target ran cleanly), and a
 * cost profile for each (the running-cost saving per month: electricity,
 * operations hours and cloud rental; the purchase is the one-time hardware
 * saving of the assessment). */
#ifndef TC_CLI_EVIDENCE_H
#define TC_CLI_EVIDENCE_H

#include <stdint.h>

#include "assess/gaps_doc.h"
#include "assess/lockin.h"

/* What the options name; NULL = not given. run_a/profile_a are the
 * incumbent, run_b/profile_b the alternative. */
typedef struct tc_cli_evidence_opts {
    const char *gaps_file;
    const char *run_a, *run_b;
    const char *profile_a, *profile_b;
    const char *soak; /* a long run on the alternative (decide --soak) */
    const char *db;
} tc_cli_evidence_opts;

typedef struct tc_cli_evidence {
    int has_gaps;
    tc_gaps_summary gaps;

    int has_runs;
    double tps_a, tps_b, ratio; /* output tokens/s (group means); ratio = b / a */
    int simulated;              /* either side ran on truecost sim */
    /* The target (alternative) side: the worst status of its runs and its
     * completed and failed measured requests. */
    char target_status[16];
    int64_t target_completed, target_failed;

    /* The soak run: of the runs --soak names, the one measured longest. */
    int has_soak;
    char soak_status[16];
    double soak_hours;
    int64_t soak_measured, soak_failed;

    int has_costs;
    /* Running cost per million output tokens: electricity, operations
     * hours and cloud rental; not the purchase or the adaptation days,
     * which the lock-in model counts once. */
    double cost_a, cost_b;
    double running_saving_per_month;
} tc_cli_evidence;

/* Takes the options of the evidence (--gaps FILE, RUNS_OPT A B,
 * --profile-a F, --profile-b F, --db PATH) during getopt_long: opt is the
 * option's code as returned; runs_opt is the code of the two-run option
 * (--perf or --runs), whose second run is taken from argv[optind].
 * Returns 1 when opt was one of them, 0 when not, -1 after a usage error. */
enum {
    TC_EV_OPT_GAPS = 700,
    TC_EV_OPT_RUNS,
    TC_EV_OPT_PROFILE_A,
    TC_EV_OPT_PROFILE_B,
    TC_EV_OPT_DB,
    TC_EV_OPT_SOAK
};
int tc_cli_evidence_option(int opt, int argc, char **argv, const char *runs_name,
                           tc_cli_evidence_opts *o);

/* Checks the combination (profiles need runs, both profiles or none).
 * Returns 0 or -1 after saying why. */
int tc_cli_evidence_check(const tc_cli_evidence_opts *o, const char *runs_name);

/* Reads everything the options name into *ev and the matching overrides
 * for *a into *ov (T_op, perf ratio, running saving). Returns 0, or an
 * exit status after saying why (a bad file, a run not found, no
 * tokens_per_month for a running saving). */
int tc_cli_evidence_gather(const tc_cli_evidence_opts *o, const tc_lockin *a, tc_cli_evidence *ev,
                           tc_lockin_overrides *ov);

#endif
