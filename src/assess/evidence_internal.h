/* The gatherer's readers of stored evidence (evidence.h), one per kind,
 * and what they share. Not for other folders: they call
 * tc_evidence_gather. */
#ifndef TC_EVIDENCE_INTERNAL_H
#define TC_EVIDENCE_INTERNAL_H

#include "assess/evidence.h"

/* Adds a sentence to ev->notes (the first TC_EVIDENCE_MAX_NOTES). */
void tc_evidence_note(tc_evidence *ev, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What could not be read is never a usage error: TC_ERR_INVALID becomes
 * TC_ERR_IO, the rest is kept. */
tc_err tc_evidence_unreadable(tc_err e);

/* src->run_a and src->run_b: their throughput and ratio, the target's
 * status, and ov's perf ratio ("runs A vs B"); with the profiles, also the
 * running saving per month at a's [horizon] tokens_per_month. An
 * incumbent without throughput is an error (TC_ERR_NOTFOUND); an
 * alternative without one, or a side without a cost, is a note. */
tc_err tc_evidence_read_runs(tc_store *st, const tc_evidence_sources *src, const tc_lockin *a,
                             tc_evidence *ev, tc_lockin_overrides *ov, char *err, size_t errlen);

/* With src->at: run_a and run_b as frontiers (sweeps) priced with
 * profile_a and profile_b, the fleet each needs at interactivity src->at
 * for src->demand (else the assessment's [horizon] tokens_per_month), and
 * capex A - capex B in ov as the measured hardware saving. TC_ERR_INVALID
 * when a profile is missing or has no hardware price, there is no demand,
 * or a side does not reach the target. */
tc_err tc_evidence_read_fleet(tc_store *st, const tc_evidence_sources *src, const tc_lockin *a,
                              tc_lockin_overrides *ov, char *err, size_t errlen);

/* The longest-measured run of RUN argument `soak`: its verdict, hours,
 * requests; marks ov simulated when any evidence so far was. A run that
 * is not a `truecost soak` is TC_ERR_INVALID, named. When the soak is
 * evidence (a FAIL however short, a PASS of 24 h; tc_decide_soak_state)
 * its outages per day (at most 1) become ov's risk probability; else the
 * assessment's stands and a note says why. A FAIL with no outage (drift,
 * a leak, errors) also leaves it, saying so. */
tc_err tc_evidence_read_soak(tc_store *st, const char *soak, tc_evidence *ev,
                             tc_lockin_overrides *ov, char *err, size_t errlen);

/* src->train_a and src->train_b (truecost train runs): the training
 * rate ratio (into ov's perf ratio when it is the worse gap, or the only
 * one), the target's cleanliness, hours and checkpoints. A run that is
 * not a training run is TC_ERR_INVALID, named; an incumbent with no step
 * rate TC_ERR_NOTFOUND. */
tc_err tc_evidence_read_train(tc_store *st, const tc_evidence_sources *src, const tc_lockin *a,
                              tc_evidence *ev, tc_lockin_overrides *ov, char *err, size_t errlen);

#endif
