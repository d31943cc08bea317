/* What `truecost report` shows, gathered once from the store with the
 * analysis the other commands use (so every number equals theirs): each
 * side's runs and stored figures, its sweep points, its cost as `cost`
 * prices it, the comparison of `compare`, the frontier readings of
 * `frontier`, and the timeline of the run charted per side. What cannot
 * be computed is kept as a sentence saying what is missing. */
#ifndef TC_DOSSIER_H
#define TC_DOSSIER_H

#include <stddef.h>

#include <jansson.h>

#include "analysis/compare.h"
#include "assess/decide.h"
#include "assess/evidence.h"
#include "assess/lockin.h"
#include "analysis/figures.h"
#include "analysis/frontier_cost.h"
#include "analysis/run_series.h"
#include "analysis/sweep.h"
#include "views/view_train.h"

typedef struct tc_dossier_side {
    const char *label; /* "A" or "B" */
    tc_runset set;
    tc_figures *f;       /* set.n, stored figures (no records) */
    int simulated;       /* any run */
    int is_sweep;        /* runs at more than one load */
    tc_sweep_point *pts; /* set.n */
    int knee;            /* tc_sweep_knee, -1 when none */
    const char *knee_why;
    /* A sweep's peak: its point of most output tokens/s per GPU (the top
     * of its frontier), of the complete points; -1 when none. */
    int peak;
    size_t charted;                 /* the run whose distributions and timeline are drawn */
    tc_run_series series;           /* of f[charted] */
    tc_run_series *point_series;    /* a sweep's: set.n, one per point (NULL otherwise) */
    json_t *fingerprint;            /* of the first run; JSON null when none */
    const tc_cost_profile *profile; /* borrowed; NULL: no cost */
    int has_cost;
    tc_set_summary sum;
    tc_cost_result cost;
} tc_dossier_side;

typedef struct tc_dossier_ask {
    const char *which[2];              /* the RUN|GROUP|SWEEP arguments; [1] may be NULL */
    const tc_cost_profile *profile[2]; /* may be NULL */
    const double *targets;             /* interactivities for the frontier */
    size_t n_targets;
    int at_given; /* --at: two sides are judged on their frontiers, as `compare --at` */
    int has_claim;
    double claim;
    const tc_slo *slo; /* may be NULL */
    /* Bootstrap resamples: compare's and frontier's, each command's own
     * default unless --resamples gives one for both. */
    int resamples_compare, resamples_frontier;
    uint64_t seed;
    const char *assessment, *gaps; /* paths, may be NULL */
    const char *soak;              /* a soak run (RUN argument) as evidence, may be NULL */
    const char *kernels, *fit;     /* `kernels A B --json`, `fit --json` documents, may be NULL */
    const char *train[2];          /* training runs (truecost train) A and B, may be NULL */
    double demand;                 /* > 0: output tokens per month the fleets are sized for */
    const char *profile_path[2];   /* the profiles' files, for the lock-in evidence */
    const char *command;           /* the command line, for the method section */
} tc_dossier_ask;

typedef struct tc_dossier {
    const tc_dossier_ask *ask;
    int two;
    tc_dossier_side a, b;
    int simulated; /* any side */
    int has_compare;
    tc_compare_result cmp;
    char compare_missing[1100];
    int has_frontier;
    /* Two sweeps (or --at): the verdict is judged at equal interactivity,
     * as `compare` then does, not on the pooled runs. */
    int by_frontier;
    tc_frontier_side fa, fb;
    tc_frontier_result *fr;
    char frontier_missing[1100];
    /* With an assessment: its lock-in result with the evidence of the
     * runs, profiles, gap table, soak and (--at, two sweeps) fleets, and
     * the decision, as `truecost decide FILE --runs A B --profile-a ..
     * --profile-b .. --gaps .. --soak .. --at X` reaches it (default
     * samples and seed; tc_evidence_gather, one gatherer for both). */
    int has_lockin;
    tc_evidence ev;
    tc_lockin_overrides ov;
    tc_lockin_result lockin;
    tc_decide_result decision;
    char lockin_missing[1200];
    /* ev's kernels and fit parts (has_kernels, has_fit) are read with or
     * without an assessment: the report draws them. */
    /* --train A B: each training run with its figures and its steady
     * step times (ms, ascending), for the fine-tuning section. */
    int has_train;
    tc_view_train train[2];
    double *step_ms[2];
    size_t n_step_ms[2];
} tc_dossier;

/* Lock-in as `lockin` and `decide` draw it by default. */
#define TC_DOSSIER_LOCKIN_SAMPLES TC_LOCKIN_DEFAULT_SAMPLES
#define TC_DOSSIER_LOCKIN_SEED 1

/* Gathers everything into *d (free with tc_dossier_free, also after
 * a failure). TC_OK, or a side that cannot be found or read (the store's
 * errors, with err naming it), or an assessment or gap table that does
 * not parse (TC_ERR_PARSE, TC_ERR_INVALID); sections that cannot be computed are not
 * errors: their *_missing says why. */
TC_MUST_CHECK tc_err tc_dossier_load(tc_store *st, const tc_dossier_ask *ask, tc_dossier *d,
                                     char *err, size_t errlen);
void tc_dossier_free(tc_dossier *d);

/* Whether the side's cost prices a sweep at its peak (point s->peak, not
 * the mean of loads nobody would run together); else a run's window or a
 * group's mean. */
int tc_dossier_priced_at_peak(const tc_dossier_side *s);

#endif
