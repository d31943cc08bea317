/* The operator gap table (README, "truecost gaps"): which operators of a
 * model a target backend runs natively, through a slow fallback, or not at
 * all, how much of the model's time each one carries, how risky its class
 * is (the seed's section 4.2), and T_op, the person-days of replacing and
 * verifying them, as a low/mode/high range for `truecost lockin`.
 *
 * Inputs are three user files, each read from bytes so that tests and the
 * fuzzer feed fixtures:
 *   - an operator inventory: PyTorch's profiler table
 *     (prof.key_averages().table()), a CSV export of key_averages, or a
 *     plain CSV op,dtype,count or op,dtype,share;
 *   - a support list: CSV op,dtype,status,alternative,notes;
 *   - optionally, risk patterns: CSV pattern,class[,category].
 * Every reader is strict: a bad cell, a missing column or an unknown value
 * is an error "FILE:LINE: what (expected ...)", never a silent skip. */
#ifndef TC_GAPS_H
#define TC_GAPS_H

#include <stddef.h>

#include "core/tc_error.h"

/* The largest user file the readers accept (an inventory of a big model is
 * a few hundred kilobytes). */
#define TC_GAPS_MAX_FILE_BYTES (64u << 20)

/* Reads a whole file into a new NUL-terminated buffer (*text, freed by the
 * caller; *len excludes the NUL). Returns TC_OK, TC_ERR_IO ("PATH: why") or
 * TC_ERR_PARSE when it is larger than TC_GAPS_MAX_FILE_BYTES. */
TC_MUST_CHECK tc_err tc_gaps_read_file(const char *path, char **text, size_t *len, char *err,
                                       size_t errlen);

/* ---- Operator inventory ---------------------------------------------------- */

typedef enum tc_gap_format {
    TC_GAPS_PROFILER_TABLE, /* key_averages().table() text */
    TC_GAPS_PROFILER_CSV,   /* key_averages exported to CSV (self times) */
    TC_GAPS_PLAIN_CSV       /* op,dtype,count or op,dtype,share */
} tc_gap_format;

/* What an operator's share of the model is a share of. */
typedef enum tc_gap_share_source {
    TC_SHARE_DEVICE_TIME, /* self GPU/device time: the best measure */
    TC_SHARE_CPU_TIME,    /* self CPU time, when no device time was recorded */
    TC_SHARE_COUNT,       /* call counts only: a rare but slow op weighs too little */
    TC_SHARE_GIVEN        /* the file's own share column */
} tc_gap_share_source;

typedef struct tc_gap_op {
    char *name;     /* as the file spells it; owned by the inventory */
    char *dtype;    /* from a dtype column or the default; "unknown" if none */
    double share;   /* 0..1 of the total of the source */
    double time_us; /* self time behind the share; 0 for count/given */
    double calls;   /* valid when has_calls */
    int has_calls;
    int line;  /* of its first row, for messages */
    int label; /* 1: named like a record_function label (no "::") with no self
                * device time in a profiler inventory that has device time
                * (e.g. "model_inference"): tc_gaps_build leaves it out unless
                * the support list names it. Always 0 for the plain CSV. */
} tc_gap_op;

typedef struct tc_gap_inventory {
    tc_gap_op *ops; /* one per (name, dtype); rows of the same pair are summed */
    size_t n;
    tc_gap_format format;
    tc_gap_share_source source;
    double total_us;       /* the time the shares divide (time sources only) */
    int total_from_footer; /* 1: the table's "Self ... time total" line */
    size_t n_skipped;      /* profiler rows that are not operators (see .c) */
    size_t n_negative_cpu; /* negative CPU time cells (PyTorch <= 2.4, issue
                            * pytorch/pytorch#128479) read as 0 */
    /* internal to tc_gaps_inventory_add: room in ops, and a hash index of
     * (name, dtype) to ops + 1 (0: free) */
    size_t cap, n_slots;
    size_t *slots;
} tc_gap_inventory;

/* Detects the format of `len` bytes (a dashed rule followed by a "Name"
 * header: the profiler table; else CSV whose header has a self-time column:
 * the profiler export; else the plain CSV) and reads it. Operators without
 * a dtype get `default_dtype` (NULL or "": "unknown"). In the profiler
 * formats a negative CPU time (a PyTorch <= 2.4 bug) is read as 0 and
 * counted in n_negative_cpu, while a negative device time is an error; in
 * the table, a line whose Name and time/count cells are empty (the stack
 * lines of group_by_stack_n, a blank spacer) is ignored. Returns TC_OK (free
 * *out with tc_gaps_inventory_free), TC_ERR_PARSE ("NAME:LINE: ...": no
 * operator, missing column, bad number or unit, shares over 1),
 * TC_ERR_INVALID or TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_gaps_inventory_parse(const char *name, const char *text, size_t len,
                                             const char *default_dtype, tc_gap_inventory *out,
                                             char *err, size_t errlen);

/* Frees the operators and zeroes *inv; accepts NULL. */
void tc_gaps_inventory_free(tc_gap_inventory *inv);

/* ---- Support list ---------------------------------------------------------- */

typedef enum tc_gap_status {
    TC_GAP_NATIVE,   /* a native kernel on the target */
    TC_GAP_FALLBACK, /* runs, through a slower path (CPU, decomposition, generic kernel) */
    TC_GAP_MISSING,  /* does not run: needs a replacement or a kernel */
    TC_GAP_UNKNOWN   /* the support list has no row for it */
} tc_gap_status;
#define TC_GAP_N_STATUS 4

typedef struct tc_gap_support_row {
    char *op, *dtype;          /* dtype "*" means any */
    char *alternative, *notes; /* "" when not given */
    tc_gap_status status;      /* native, fallback or missing */
    int line;
} tc_gap_support_row;

typedef struct tc_gap_support {
    tc_gap_support_row *rows;
    size_t n;
} tc_gap_support;

/* Reads a support list: CSV with a header naming at least op and status
 * (dtype, alternative and notes are optional columns; order is free), '#'
 * comment lines allowed. status is native, fallback or missing (any case).
 * Returns TC_OK (free with tc_gaps_support_free), TC_ERR_PARSE
 * ("NAME:LINE: ..." for a missing column, an empty op, a bad status, a
 * pair (op, dtype) given twice), TC_ERR_INVALID or TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_gaps_support_parse(const char *name, const char *text, size_t len,
                                           tc_gap_support *out, char *err, size_t errlen);

void tc_gaps_support_free(tc_gap_support *sup);

/* ---- Risk classes -------------------------------------------------------------- */

typedef enum tc_gap_risk {
    TC_RISK_LOW,
    TC_RISK_MEDIUM,
    TC_RISK_MEDIUM_HIGH,
    TC_RISK_HIGH
} tc_gap_risk;

typedef struct tc_gap_risk_rule {
    char *pattern;  /* a glob, see tc_gaps_glob */
    char *category; /* a label, "" when the file gives none */
    tc_gap_risk risk;
    int line;
} tc_gap_risk_rule;

typedef struct tc_gap_risks {
    tc_gap_risk_rule *rules;
    size_t n;
} tc_gap_risks;

/* Reads user risk patterns: CSV with a header pattern,class[,category];
 * class is low, medium, medium-high (or medium_high) or high. Returns TC_OK
 * (free with tc_gaps_risks_free), TC_ERR_PARSE ("NAME:LINE: ..."),
 * TC_ERR_INVALID or TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_gaps_risks_parse(const char *name, const char *text, size_t len,
                                         tc_gap_risks *out, char *err, size_t errlen);

void tc_gaps_risks_free(tc_gap_risks *risks);

/* 1 when the glob `pattern` ('*' any run, '?' one byte, everything else
 * literal, ASCII case-insensitive) matches the whole of `text`. */
int tc_gaps_glob(const char *pattern, const char *text);

/* The comparison form of a PyTorch operator name (README): lowercased;
 * "torch.ops." dropped; a leading "aten::", "aten.", "prim::", "prims::" or
 * "prims." dropped; an overload after the first '.' dropped
 * ("add.Tensor" -> "add"); one trailing '_' of an in-place variant dropped
 * ("add_" -> "add"). Truncated to outlen - 1 bytes. */
void tc_gaps_normalise_name(const char *name, char *out, size_t outlen);

/* The risk class of operator `name`: the user's rules first (in file
 * order), then the built-ins (quantised GEMM high, fused attention
 * medium-high, normalisation medium, basic GEMM low), else medium.
 * A pattern matches the lowercased name or its normalised form. `user`
 * may be NULL. *category, *pattern (static or borrowed from user; pattern
 * NULL for the default) and *from_user are set when not NULL. */
tc_gap_risk tc_gaps_classify(const tc_gap_risks *user, const char *name, const char **category,
                             const char **pattern, int *from_user);

/* ---- The gap table --------------------------------------------------------- */

typedef enum tc_gap_match {
    TC_MATCH_NONE,       /* no row: status unknown */
    TC_MATCH_EXACT,      /* same name */
    TC_MATCH_CASE,       /* same name ignoring ASCII case */
    TC_MATCH_NORMALISED, /* same tc_gaps_normalise_name form */
    TC_MATCH_PREFIX      /* a name the profiler cut to "xxx...": the one support
                          * operator whose name or normalised name starts with xxx */
} tc_gap_match;

typedef struct tc_gap_entry {
    const tc_gap_op *op;               /* borrowed from the inventory */
    const tc_gap_support_row *support; /* the row used, or NULL */
    tc_gap_status status;
    tc_gap_match match;
    tc_gap_risk risk;
    const char *risk_category; /* never NULL */
    const char *risk_pattern;  /* NULL for the default class */
    int risk_from_user;
    double t_low, t_mode, t_high; /* person-days for this operator */
    int n_candidates;             /* dtype unknown: the support rows whose worst
                                   * status it took (0 when the dtype is known) */
    int ambiguous;                /* a cut name ("xxx...") that several support
                                   * operators start with: left unknown */
    char why[320];                /* how the row was chosen, "" when plain */
} tc_gap_entry;

typedef struct tc_gap_table {
    tc_gap_entry *rows; /* sorted by share, largest first, then by name */
    size_t n;
    double share[TC_GAP_N_STATUS]; /* time share by status */
    size_t count[TC_GAP_N_STATUS];
    double share_other; /* 1 - the operators' shares: not operators, or not listed */
    double t_low, t_mode, t_high;
    size_t n_labels;    /* record_function labels left out (tc_gap_op.label) */
    size_t n_ambiguous; /* entries with .ambiguous set */
} tc_gap_table;

/* Person-days of one operator of status s (README, "T_op"): native 0,
 * fallback 0.25..0.5..1, missing 1..2..3 (the seed's 1-3 days per missing
 * operator), unknown 0..1..3 (native or missing; not yet checked). */
void tc_gaps_status_days(tc_gap_status s, double *low, double *mode, double *high);

/* Matches every operator of `inv` to `sup` (exact name, then ignoring
 * case, then normalised; per dtype: the same dtype, else a '*' row; an
 * operator of unknown dtype takes the worst status among its rows; a name
 * ending in "..." that none of these finds is matched by prefix when
 * exactly one support operator fits, else left unknown and ambiguous),
 * classifies its risk (`user` may be NULL) and sums T_op. Operators marked
 * `label` that no support row names are left out and counted in n_labels.
 * The table
 * borrows from inv, sup and user, which must outlive it. Returns TC_OK
 * (free with tc_gaps_table_free), TC_ERR_INVALID or TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_gaps_build(const tc_gap_inventory *inv, const tc_gap_support *sup,
                                   const tc_gap_risks *user, tc_gap_table *out);

void tc_gaps_table_free(tc_gap_table *t);

/* T_op of the table: the sums of the per-operator lows, modes and highs. */
void tc_gaps_t_op(const tc_gap_table *t, double *low, double *mode, double *high);

/* Reads T_op back from a saved `truecost gaps --json` document: the object
 * "t_op_days" {"low", "mode", "high"}, finite numbers with 0 <= low <= mode
 * <= high. `name` (the file) starts every message. Returns TC_OK,
 * TC_ERR_PARSE ("NAME:LINE: ..." for bad JSON; "NAME: ..." for a missing
 * or bad key) or TC_ERR_INVALID. */
TC_MUST_CHECK tc_err tc_gaps_read_t_op_json(const char *name, const char *text, size_t len,
                                            double *low, double *mode, double *high, char *err,
                                            size_t errlen);

/* ---- The files of a table (gaps_files.c) ----------------------------------- */

typedef struct tc_gap_files {
    tc_gap_inventory inv;
    tc_gap_support sup;
    tc_gap_risks risks; /* empty when no risk file was given */
} tc_gap_files;

/* Reads and parses the operator inventory at `ops` (operators without a
 * dtype get `dtype`, may be NULL), the support list at `support` and the
 * risk patterns at `risks` (may be NULL) into *out; free it with
 * tc_gaps_files_free, also after a failure. TC_OK; TC_ERR_IO (a file
 * cannot be read) or TC_ERR_NOMEM; else a file is wrong (TC_ERR_PARSE:
 * err names it and its line). */
TC_MUST_CHECK tc_err tc_gaps_files_load(const char *ops, const char *support, const char *risks,
                                        const char *dtype, tc_gap_files *out, char *err,
                                        size_t errlen);

void tc_gaps_files_free(tc_gap_files *f); /* accepts NULL */

/* Static names, for output and JSON. */
const char *tc_gaps_status_name(tc_gap_status s);       /* "native", ..., "unknown" */
const char *tc_gaps_risk_name(tc_gap_risk r);           /* "low", "medium", "medium-high", "high" */
const char *tc_gaps_match_name(tc_gap_match m);         /* "none", "exact", ..., "prefix" */
const char *tc_gaps_format_name(tc_gap_format f);       /* "profiler_table", ... */
const char *tc_gaps_source_name(tc_gap_share_source s); /* "device_time", "cpu_time", ... */

#endif
