/* The migration decision: the seed's checklist (000, section 5.6), each
 * item ticked from evidence where truecost has it, plus the selection rules
 * of 003, section 6.3, folded into a verdict — stay, pilot, hybrid or
 * migrate — with its reasons and the evidence still missing.
 *
 * The checklist:
 *   gaps        the operator gap table is done (no key operator left
 *               unchecked) and the key gaps (missing, high-risk or 1%+ of
 *               time) have alternatives                     (gaps --json)
 *   target_run  a minimal run on the target platform completed without
 *               errors                                       (a stored run)
 *   perf_gap    the performance gap is measured and within 20%, or 20-50%
 *               with tuning budgeted                         (two runs)
 *   soak        a long (24 h) stability run passed           (--soak RUN, else
 *                                                            declared)
 *   profiler    someone on the team reads a profiler and changes kernels
 *                                                            (declared)
 *   fallback    a hybrid deployment and fallback path is designed
 *                                                            (declared)
 *   fit         the model and workload fit the target card with margin
 *               (10% of the budget to spare)                 (fit --json)
 *
 * The verdict (first rule that applies):
 *   stay     the alternative completed no request on the target; or the
 *            lock-in cost beats the saving in most outcomes (P(net
 *            benefit > 0) < 0.2), or the performance gap is over 50%
 *            (suspect operator fallback: find it first), or key gaps have
 *            no alternative and no fallback path is designed;
 *   migrate  every item ticked, key gaps covered, gap within 20% and
 *            P(net benefit > 0) >= 0.8;
 *   hybrid   a fallback path is designed and the economics favour the move
 *            (P >= 0.5), but something keeps part of the work on the
 *            incumbent: a gap of 20-50%, key gaps without alternative, or
 *            P < 0.8;
 *   pilot    otherwise: the evidence is incomplete; a small pilot collects
 *            the missing items before money is committed.
 * Without economics (no lock-in distribution), migrate and hybrid need it:
 * the verdict is at most pilot. */
#ifndef TC_DECIDE_H
#define TC_DECIDE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/soak.h"
#include "record/record.h"

typedef enum tc_decide_verdict {
    TC_DECIDE_STAY = 0,
    TC_DECIDE_PILOT,
    TC_DECIDE_HYBRID,
    TC_DECIDE_MIGRATE
} tc_decide_verdict;

/* "stay", "pilot", "hybrid", "migrate". */
const char *tc_decide_verdict_name(tc_decide_verdict v);

/* Declared or measured facts; -1 = not known. */
typedef struct tc_decide_input {
    /* Gap table: has_gaps, then counts of missing operators and of missing
     * high-risk ones without an alternative, and the time share they hold. */
    int has_gaps;
    int gaps_missing, gaps_key_without_alternative;
    int gaps_key_unchecked; /* key operators the support list does not cover */
    double gaps_share_without_alternative;
    /* A run on the target: completed and failed measured requests, and
     * its status ("complete", ...). */
    int has_target_run;
    int64_t target_completed, target_failed;
    tc_run_status target_status;
    /* Throughput alternative / incumbent, measured (serving, or the
     * worse of serving and training: perf_basis says, "" serving). */
    int has_perf;
    double perf_ratio;
    char perf_basis[64];
    /* Training runs (truecost train): the target's completed with no
     * error line; its hours and checkpoints (24 h with checkpoints is
     * stability evidence when no soak is given); what it did, in words. */
    int has_train, train_clean;
    double train_hours;
    int64_t train_checkpoints;
    char train_target[300];
    /* Declared in the assessment: 1 yes, 0 no, -1 not given/unknown. */
    int soak_passed, profiler_skill, fallback_path;
    /* A `truecost soak` run on the target, which wins over the
     * declaration: its verdict, measured hours, measured/failed requests,
     * outages, downtime, restarts and the first reason it failed. */
    int has_soak;
    tc_soak_outcome soak_outcome;
    double soak_hours;
    int64_t soak_measured, soak_failed;
    int soak_outages, soak_restarts;
    double soak_downtime_s;
    char soak_reason[200];
    /* A memory fit: the worst card's verdict (tc_evidence_fit_verdict:
     * -1 no card, 0 fits, 1 tight, 2 does not fit), its need and budget
     * per card, its spare share and the largest setting that fits. */
    int has_fit, fit_verdict;
    char fit_card[64];
    double fit_need_bytes, fit_budget_bytes, fit_spare_share;
    char fit_largest[160];
    /* A profiler's tuning list: its first entries in words, and whether
     * the alternative's attention fell back to GEMM + softmax. */
    int has_kernels, attention_fell_back;
    char suspects[400];
    /* The lock-in economics: P(net benefit over the horizon > 0) and the
     * medians behind it. */
    int has_economics;
    double p_net_positive, lockin_p50, saving;
    /* For the 003 6.3 rule: price of one incumbent unit / alternative unit
     * (0 = unknown). */
    double price_ratio;
} tc_decide_input;

/* "ticked", "not met", "not yet measured". */
typedef enum tc_decide_state {
    TC_ITEM_MISSING = 0,
    TC_ITEM_TICKED,
    TC_ITEM_FAILED
} tc_decide_state;
const char *tc_decide_state_name(tc_decide_state s);

#define TC_DECIDE_ITEMS 7
/* A soak run passes when it is complete, measured this long, with no
 * failed request (seed 000, 5.4: "no less than 24 hours"). */
#define TC_DECIDE_SOAK_HOURS 24.0

/* The one rule by which a soak's verdict is evidence, for decide's
 * checklist and lockin's risk alike: a FAIL, however short, is "not met"
 * (a threshold broke); a PASS (it ran its whole plan) of
 * TC_DECIDE_SOAK_HOURS or more is "ticked"; anything else (a PASS too
 * short, a soak stopped before its planned end) is not evidence yet. */
tc_decide_state tc_decide_soak_state(tc_soak_outcome outcome, double hours);
#define TC_DECIDE_MAX_REASONS 10

typedef struct tc_decide_item {
    const char *id;   /* "gaps", "target_run", ... (static) */
    const char *text; /* the checklist line (static) */
    tc_decide_state state;
    int declared;       /* 1: from the assessment file, not measured */
    char evidence[400]; /* what it is based on, or what would tick it */
} tc_decide_item;

typedef struct tc_decide_result {
    tc_decide_item items[TC_DECIDE_ITEMS];
    tc_decide_verdict verdict;
    char reasons[TC_DECIDE_MAX_REASONS][480];
    int n_reasons;
} tc_decide_result;

/* Ticks the checklist and decides. Never fails; in may not be NULL. */
void tc_decide(const tc_decide_input *in, tc_decide_result *out);

#endif
