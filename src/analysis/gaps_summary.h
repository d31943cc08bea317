/* What `truecost decide` needs from a saved gap table (`truecost gaps
 * --json`): T_op, and how many operators are missing and which of them are
 * key gaps without an alternative (seed 000, section 5.6: "key gaps have
 * alternatives").
 *
 * A missing operator is a key gap when its risk class is medium-high or
 * high (fused attention, quantised GEMM), or it holds 1% or more of the
 * time: those block the workload or its speed. It is covered when its
 * support row names an alternative. */
#ifndef TC_GAPS_SUMMARY_H
#define TC_GAPS_SUMMARY_H

#include <stddef.h>

#include "core/tc_error.h"

/* The share of time from which a missing operator is a key gap. */
#define TC_GAPS_KEY_SHARE 0.01

typedef struct tc_gaps_summary {
    size_t ops;                       /* operators in the table */
    int missing, fallback, unknown;   /* operators by status */
    int key_gaps;                     /* missing and key */
    int key_without_alternative;      /* of those, with no alternative */
    int key_unchecked;                /* unknown status, and key by risk or share */
    double share_without_alternative; /* their time share, 0..1 */
    double t_low, t_mode, t_high;     /* T_op, person-days */
} tc_gaps_summary;

/* Reads a `gaps --json` document of `len` bytes (`name` starts every
 * message) into *out. Returns TC_OK, TC_ERR_PARSE ("NAME:LINE: ..." for
 * bad JSON, "NAME: ..." for a missing or bad key), TC_ERR_INVALID (NULL
 * arguments). */
tc_err tc_gaps_summary_parse(const char *name, const char *text, size_t len, tc_gaps_summary *out,
                             char *err, size_t errlen);

#endif
