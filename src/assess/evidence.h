/* Evidence that replaces the guesses of an assessment, for `lockin` and
 * `decide`: a saved gap table (T_op and the key gaps), two stored runs or
 * groups (the performance gap, and whether the target ran cleanly), a
 * cost profile for each (the running-cost saving per month: electricity,
 * operations hours and cloud rental; the purchase is the one-time hardware
 * saving of the assessment), and a soak run.
 *
 * Every reader returns TC_ERR_INVALID when the evidence given is wrong (a
 * gap table or cost profile that does not parse, a profile in another
 * currency, no tokens_per_month): the user's to fix. Any other error says
 * that something could not be read (a file, a run, the store) or holds
 * nothing to compare. The detail is in err. */
#ifndef TC_EVIDENCE_H
#define TC_EVIDENCE_H

#include <stddef.h>
#include <stdint.h>

#include "assess/decide.h"
#include "assess/gaps_doc.h"
#include "assess/lockin.h"
#include "core/tc_error.h"
#include "store/store.h"

/* What the evidence is read from; NULL = not given. run_a/profile_a are
 * the incumbent, run_b/profile_b the alternative (RUN arguments and cost
 * profile paths). */
typedef struct tc_evidence_sources {
    const char *gaps_file;
    const char *run_a, *run_b;
    const char *profile_a, *profile_b;
    const char *soak; /* a long run on the alternative */
    double at;        /* > 0: the fleets' capex at this interactivity is the hardware saving */
} tc_evidence_sources;

#define TC_EVIDENCE_MAX_NOTES 4

typedef struct tc_evidence {
    int has_gaps;
    tc_gaps_summary gaps;

    int has_runs;
    double tps_a, tps_b, ratio; /* output tokens/s (group means); ratio = b / a */
    int simulated;              /* either side ran on truecost sim */
    /* The target (alternative) side: the worst status of its runs and its
     * completed and failed measured requests. */
    tc_run_status target_status;
    int64_t target_completed, target_failed;

    /* The soak run (of the runs it names, the one measured longest), a
     * `truecost soak`: its verdict, hours, requests, outages, downtime,
     * restarts and the first reason; soak_state is what it is worth as
     * evidence (tc_decide_soak_state), for decide and lockin alike. */
    int has_soak;
    tc_soak_outcome soak_outcome;
    tc_decide_state soak_state;
    double soak_hours;
    int64_t soak_measured, soak_failed;
    int soak_outages, soak_restarts;
    double soak_downtime_s, soak_outages_per_day;
    char soak_reason[200];

    int has_costs;
    /* Running cost per million output tokens: electricity, operations
     * hours and cloud rental; not the purchase or the adaptation days,
     * which the lock-in model counts once. */
    double cost_a, cost_b;
    double running_saving_per_month;

    /* What the user should hear though nothing failed (a run that
     * completed nothing, a cost left out), one sentence each. */
    char notes[TC_EVIDENCE_MAX_NOTES][1024];
    int n_notes;
} tc_evidence;

/* Reads the saved `gaps --json` table at path into ev->gaps and its T_op
 * into ov (op_low/mode/high, labelled "gap table PATH"). */
TC_MUST_CHECK tc_err tc_evidence_read_gaps(const char *path, tc_evidence *ev,
                                           tc_lockin_overrides *ov, char *err, size_t errlen);

/* Reads src->run_a and src->run_b from st: their throughput and ratio,
 * the target's status, and ov's perf ratio ("runs A vs B"); with the
 * profiles, also the running saving per month at a's [horizon]
 * tokens_per_month into ev and ov. An incumbent without throughput is an
 * error (TC_ERR_NOTFOUND); an alternative without one, or a side without
 * a cost, is a note. */
TC_MUST_CHECK tc_err tc_evidence_read_runs(tc_store *st, const tc_evidence_sources *src,
                                           const tc_lockin *a, tc_evidence *ev,
                                           tc_lockin_overrides *ov, char *err, size_t errlen);

/* With src->at: reads run_a and run_b as frontiers (sweeps, frontier_cost.h)
 * priced with profile_a and profile_b, the fleet each needs at interactivity
 * src->at for the assessment's [horizon] tokens_per_month, and puts capex A
 * - capex B in ov as the measured hardware saving. TC_ERR_INVALID when a
 * profile is missing or has no hardware price, the assessment has no
 * tokens_per_month, or a side does not reach the target. */
TC_MUST_CHECK tc_err tc_evidence_read_fleet(tc_store *st, const tc_evidence_sources *src,
                                            const tc_lockin *a, tc_lockin_overrides *ov, char *err,
                                            size_t errlen);

/* Reads the longest-measured run of RUN argument `soak` from st into ev
 * (its verdict, hours, requests); marks ov simulated when any evidence so
 * far was. A run that is not a `truecost soak` is TC_ERR_INVALID, named.
 * When the soak is evidence (a FAIL however short, a PASS of 24 h; see
 * tc_decide_soak_state) its outages per day (at most 1) become ov's risk
 * probability; else the assessment's stands and a note says why. A FAIL
 * with no outage (drift, a leak, errors) also leaves it, saying so. */
TC_MUST_CHECK tc_err tc_evidence_read_soak(tc_store *st, const char *soak, tc_evidence *ev,
                                           tc_lockin_overrides *ov, char *err, size_t errlen);

/* The decision's inputs from the evidence and the lock-in result r (the
 * declared answers of its assessment, the economics). */
void tc_evidence_decide_input(const tc_evidence *ev, const tc_lockin_result *r,
                              tc_decide_input *out);

#endif
