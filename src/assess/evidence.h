/* Evidence that replaces the guesses of an assessment, gathered in one
 * place for `lockin`, `decide` and `report` (so the three reach the same
 * decision): a saved gap table (T_op and the key gaps), two stored runs or
 * groups (the performance gap, and whether the target ran cleanly), a
 * cost profile for each (the running-cost saving per month: electricity,
 * operations hours and cloud rental; the purchase is the one-time hardware
 * saving of the assessment), the fleets of two sweeps at one
 * interactivity (the measured hardware saving), a soak run, a profiler's
 * tuning list (`kernels --json`: T_perf and the suspects) and a memory fit
 * (`fit --json`: the checklist's memory item).
 *
 * A new kind of evidence is one more source field, one more tc_evidence
 * block, one reader in the gatherer's table (evidence.c) and its inputs
 * in tc_evidence_decide_input.
 *
 * Errors: TC_ERR_INVALID when the evidence given is wrong (a gap table or
 * cost profile that does not parse, a profile in another currency, no
 * tokens_per_month, a run that is not a soak): the user's to fix. Any
 * other error says that something could not be read (a file, a run, the
 * store) or holds nothing to compare. The detail is in err. */
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
    const char *kernels_file; /* `truecost kernels A B --json` */
    const char *fit_file;     /* `truecost fit MODEL --gpu CARD --json` */
    const char *run_a, *run_b;
    const char *profile_a, *profile_b;
    const char *soak;              /* a long run on the alternative */
    const char *train_a, *train_b; /* training runs (truecost train) on each platform */
    double at;     /* > 0: the fleets' capex at this interactivity is the hardware saving */
    double demand; /* > 0: the fleets' output tokens per month, else the assessment's */
} tc_evidence_sources;

/* The kinds of evidence, in the order they are read. */
typedef enum tc_evidence_kind {
    TC_EVIDENCE_GAPS,    /* gaps_file */
    TC_EVIDENCE_KERNELS, /* kernels_file */
    TC_EVIDENCE_FIT,     /* fit_file */
    TC_EVIDENCE_RUNS,    /* run_a, run_b, with profile_a/profile_b */
    TC_EVIDENCE_TRAIN,   /* train_a, train_b */
    TC_EVIDENCE_FLEET,   /* at, on the runs as sweeps */
    TC_EVIDENCE_SOAK,    /* soak */
    TC_EVIDENCE_KINDS
} tc_evidence_kind;

#define TC_EVIDENCE_MAX_NOTES 4
#define TC_EVIDENCE_SUSPECTS 3

/* One entry of a profiler's tuning list: a class of kernels and what a
 * fix would save, as a share of the alternative's kernel time. */
typedef struct tc_evidence_suspect {
    char kernel_class[24];
    char kernel[64]; /* its largest kernel, shortened */
    int kernels;     /* kernels in the entry */
    double saving_share;
} tc_evidence_suspect;

/* What the report draws of the documents: a fit's terms (bytes per
 * card) and cards, a kernels pair's class shares. */
#define TC_EVIDENCE_FIT_TERMS 8
#define TC_EVIDENCE_FIT_CARDS 4
#define TC_EVIDENCE_KERNEL_CLASSES 10
typedef struct tc_evidence_fit_term {
    char name[24];
    double bytes;
} tc_evidence_fit_term;
typedef struct tc_evidence_fit_card {
    char name[64], verdict[16];
    double capacity_bytes, budget_bytes, need_bytes;
} tc_evidence_fit_card;
typedef struct tc_evidence_kernel_class {
    char name[24];
    double share_a, share_b; /* of each platform's kernel time */
} tc_evidence_kernel_class;

/* The worst card of a fit document, by verdict. */
typedef enum tc_evidence_fit_verdict {
    TC_FIT_NO_CARD = -1, /* the document names no card */
    TC_FIT_FITS = 0,     /* 10% of the budget or more to spare */
    TC_FIT_TIGHT,
    TC_FIT_DOES_NOT_FIT
} tc_evidence_fit_verdict;

typedef struct tc_evidence {
    int has_gaps;
    tc_gaps_summary gaps;

    int has_runs;
    double tps_a, tps_b, ratio; /* output tokens/s (group means); ratio = b / a */
    int sweep_peaks;            /* sides that are sweeps, weighed at their peak point */
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

    /* Two training runs: the alternative's training rate / the
     * incumbent's (train_basis: the rate both know), whether the target's
     * completed with no error line, its hours and checkpoints, and what
     * it did in words. */
    int has_train;
    double train_ratio;
    char train_basis[16];
    int train_clean;
    double train_hours;
    int64_t train_checkpoints;
    char train_target[300];

    /* A profiler's tuning list (kernels --json of two files): T_perf in
     * person-days, its first entries, and whether the alternative's
     * attention fell back to GEMM + softmax. */
    int has_kernels;
    double kernel_days_low, kernel_days_mode, kernel_days_high;
    int kernel_count; /* kernels in the whole list */
    tc_evidence_suspect suspects[TC_EVIDENCE_SUSPECTS];
    int n_suspects;
    int attention_fell_back;
    tc_evidence_kernel_class kernel_classes[TC_EVIDENCE_KERNEL_CLASSES];
    int n_kernel_classes;

    /* A memory fit (fit --json): the worst card, its need and budget per
     * card, and the largest setting that fits it, in words. */
    int has_fit;
    tc_evidence_fit_verdict fit_verdict;
    char fit_card[64];
    double fit_need_bytes, fit_budget_bytes, fit_spare_share;
    char fit_largest[160];
    tc_evidence_fit_term fit_terms[TC_EVIDENCE_FIT_TERMS];
    int n_fit_terms;
    tc_evidence_fit_card fit_cards[TC_EVIDENCE_FIT_CARDS];
    int n_fit_cards;

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

/* Whether src names evidence that lives in the store (runs, a soak), so
 * that a caller opens it only then. */
int tc_evidence_needs_store(const tc_evidence_sources *src);

/* Reads everything src names, in tc_evidence_kind order, into *ev (zeroed
 * first) and the overrides it replaces in *ov (T_op, perf ratio, running
 * saving, hardware saving, the risk's probability; ov's other fields are
 * kept, so a caller's own overrides stand). st may be NULL when
 * tc_evidence_needs_store(src) is 0. Stops at the first error, with
 * *failed (may be NULL) the kind that failed and err its detail; what the
 * user should hear though nothing failed is in ev->notes. TC_OK or the
 * errors above. */
TC_MUST_CHECK tc_err tc_evidence_gather(tc_store *st, const tc_evidence_sources *src,
                                        const tc_lockin *a, tc_evidence *ev,
                                        tc_lockin_overrides *ov, tc_evidence_kind *failed,
                                        char *err, size_t errlen);

/* Reads the saved `gaps --json` table at path into ev->gaps and its T_op
 * into ov (op_low/mode/high, labelled "gap table PATH"): the gatherer's
 * first reader, also for a caller that reads a gap table alone. */
TC_MUST_CHECK tc_err tc_evidence_read_gaps(const char *path, tc_evidence *ev,
                                           tc_lockin_overrides *ov, char *err, size_t errlen);

/* A `truecost kernels INCUMBENT ALTERNATIVE --json` document at path:
 * its tuning list's person-days into ov's T_perf (each entry's kernels x
 * the assessment's [effort] performance_per_kernel when a gives one, else the list's
 * own effort), its first entries into ev->suspects. TC_ERR_INVALID when
 * it is not such a document or has one profile only. */
TC_MUST_CHECK tc_err tc_evidence_read_kernels(const char *path, const tc_lockin *a, tc_evidence *ev,
                                              tc_lockin_overrides *ov, char *err, size_t errlen);

/* A `truecost fit --json` document at path: its worst card into ev's fit
 * fields. TC_ERR_INVALID when it is not such a document. */
TC_MUST_CHECK tc_err tc_evidence_read_fit(const char *path, tc_evidence *ev, char *err,
                                          size_t errlen);

/* The same two from a document in memory (text, len; name for the
 * messages): for the fuzzer and for callers that hold the text. */
TC_MUST_CHECK tc_err tc_evidence_parse_kernels(const char *name, const char *text, size_t len,
                                               const tc_lockin *a, tc_evidence *ev,
                                               tc_lockin_overrides *ov, char *err, size_t errlen);
TC_MUST_CHECK tc_err tc_evidence_parse_fit(const char *name, const char *text, size_t len,
                                           tc_evidence *ev, char *err, size_t errlen);

/* Whether a kind is read from a file the user names (a gap table, a
 * kernels or fit document), whose errors are the user's to fix. */
int tc_evidence_kind_is_file(tc_evidence_kind kind);

/* The lock-in distribution of a with the overrides ov (samples draws from
 * seed) into *r, and the decision on it and ev into *d: what `decide`
 * prints and the report shows. Free *r with tc_lockin_result_free (nothing
 * to free on failure). TC_OK, TC_ERR_INVALID (the assessment and
 * overrides do not evaluate, said in err) or TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_evidence_decide(const tc_lockin *a, const tc_evidence *ev,
                                        const tc_lockin_overrides *ov, size_t samples,
                                        uint64_t seed, tc_lockin_result *r, tc_decide_result *d,
                                        char *err, size_t errlen);

/* The decision's inputs from the evidence and the lock-in result r (the
 * declared answers of its assessment, the economics). */
void tc_evidence_decide_input(const tc_evidence *ev, const tc_lockin_result *r,
                              tc_decide_input *out);

#endif
