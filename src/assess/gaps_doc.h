/* The `gaps --json` document: its writer, and the reader of what `truecost
 * decide` and `lockin` need from a saved one (`truecost gaps
 * --json`): T_op, and how many operators are missing and which of them are
 * key gaps without an alternative (seed 000, section 5.6: "key gaps have
 * alternatives").
 *
 * A missing operator is a key gap when its risk class is medium-high or
 * high (fused attention, quantised GEMM), or it holds 1% or more of the
 * time: those block the workload or its speed. It is covered when its
 * support row names an alternative. */
#ifndef TC_GAPS_DOC_H
#define TC_GAPS_DOC_H

#include <jansson.h>
#include <stddef.h>

#include "assess/gaps.h"
#include "core/tc_error.h"

/* The share of time from which a missing operator is a key gap. */
#define TC_GAPS_KEY_SHARE 0.01

/* One operator that is not native (missing, fallback or unknown), as the
 * gap table lists it. */
#define TC_GAPS_SUMMARY_ROWS 40
typedef struct tc_gaps_summary_row {
    char op[96], status[16], risk[16], alternative[96]; /* alternative: "" none */
    double share;
} tc_gaps_summary_row;

typedef struct tc_gaps_summary {
    size_t ops;                       /* operators in the table */
    int missing, fallback, unknown;   /* operators by status */
    int key_gaps;                     /* missing and key */
    int key_without_alternative;      /* of those, with no alternative */
    int key_unchecked;                /* unknown status, and key by risk or share */
    double share_without_alternative; /* their time share, 0..1 */
    double t_low, t_mode, t_high;     /* T_op, person-days */
    /* The gaps by share of time, largest first: the first
     * TC_GAPS_SUMMARY_ROWS of them (n_rows), of `gap_rows` in all. */
    tc_gaps_summary_row rows[TC_GAPS_SUMMARY_ROWS];
    int n_rows, gap_rows;
} tc_gaps_summary;

/* Reads a `gaps --json` document of `len` bytes (`name` starts every
 * message) into *out. Returns TC_OK, TC_ERR_PARSE ("NAME:LINE: ..." for
 * bad JSON, "NAME: ..." for a missing or bad key), TC_ERR_INVALID (NULL
 * arguments). */
TC_MUST_CHECK tc_err tc_gaps_summary_parse(const char *name, const char *text, size_t len,
                                           tc_gaps_summary *out, char *err, size_t errlen);

/* ---- the writer ---- */

#define TC_GAPS_NOTE                                                                               \
    "the support list is yours to check against your versions of the driver, ROCm or CUDA, "       \
    "PyTorch and the kernel libraries; the lists shipped in examples/ are examples, not facts"

#define TC_GAPS_T_OP_RULE                                                                          \
    "person-days per operator: missing 1..2..3, fallback 0.25..0.5..1, unknown 0..1..3 (native "   \
    "or missing until checked), native 0; summed"

#define TC_GAPS_MAX_WARNINGS 8

/* The caveats of this table, as sentences, into out; returns how many. */
int tc_gaps_warnings(const tc_gap_inventory *inv, const tc_gap_table *t,
                     char out[TC_GAPS_MAX_WARNINGS][512]);

/* The `gaps --json` document (a contract: keys are only ever added):
 *   ops_file, support_file, risk_patterns_file (null when none)
 *   format         "profiler_table", "profiler_csv" or "plain_csv"
 *   share_source   "device_time", "cpu_time", "count" or "share"
 *   ops            [{name, dtype, status, risk, risk_category, risk_pattern,
 *                    risk_from ("user", "builtin", "default"), share,
 *                    self_time_us, calls, match ("exact", "case",
 *                    "normalised", "prefix" for a name the profiler cut
 *                    with "...", "none"), support_op, support_line,
 *                    alternative, notes, why, line, t_op_days {low, mode,
 *                    high}}], largest share first; absent values are null
 *   totals         {ops, skipped_rows (including skipped_labels),
 *                   skipped_labels (record_function annotations),
 *                   negative_cpu_times (taken as 0), share {native,
 *                   fallback, missing, unknown, other}, count {native,
 *                   fallback, missing, unknown}}
 *   t_op_days      {low, mode, high}: what `lockin --gaps` reads
 *   t_op_rule      the per-operator days, in words
 *   warnings       [text]
 *   note           the support list is the user's to check
 * Returns a new reference the caller decrefs, or NULL when memory ran out.
 * File names may be NULL (then null). */
json_t *tc_gaps_json(const tc_gap_inventory *inv, const tc_gap_table *t, const char *ops_file,
                     const char *support_file, const char *risk_file);

#endif
