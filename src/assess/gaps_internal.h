/* Helpers shared by the gap table's files (gaps.c, gaps_csv.c,
 * gaps_ops.c); not part of the public contract. */
#ifndef TC_GAPS_INTERNAL_H
#define TC_GAPS_INTERNAL_H

#include <stddef.h>

#include "core/tc_csv.h"
#include "core/tc_number.h"
#include "gaps.h"

/* A time: a plain number with an optional unit ns, us, ms or s (spaces
 * allowed before it); no unit means microseconds, PyTorch's unit. The
 * value in microseconds; 0 or -1. */
int tc_gaps_time_us(const char *s, double *out);

/* The comparison form of a dtype: lowercased, "torch." dropped, common
 * spellings folded (float16/half -> fp16, bfloat16 -> bf16, float32/float
 * -> fp32, float8_* -> fp8, ...); "", "?", "unknown" -> "unknown". */
void tc_gaps_dtype_canon(const char *dtype, char *out, size_t outlen);

/* The header's cells joined by ", " into buf, for "columns are: ..." hints. */
void tc_gaps_header_list(const tc_csv_row *header, char *buf, size_t len);

/* The cell of `row` at column `col`, or "" when col < 0 or the row is
 * shorter. */
const char *tc_gaps_cell(const tc_csv_row *row, int col);

/* The profiler rows that are not operators (runtime API calls, profiler
 * and autograd annotations), by name. 1 when `name` is one of them. */
int tc_gaps_not_an_operator(const char *name);

/* Adds `time_us`/`calls`/`share` of (name, dtype) to the inventory,
 * merging a pair seen before. TC_OK or TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_gaps_inventory_add(tc_gap_inventory *inv, const char *name,
                                           const char *dtype, double time_us, double share,
                                           double calls, int has_calls, int line);

/* Reads CSV inventories (the profiler export and the plain CSV): csv is
 * parsed, header is its first row. */
TC_MUST_CHECK tc_err tc_gaps_inventory_csv(const char *name, const tc_csv *csv, const char *dtype,
                                           tc_gap_inventory *out, char *err, size_t errlen);

/* ---- profiler rows, shared by gaps_ops.c and gaps_table.c ---- */

/* One profiler row as read, before shares are known. */
typedef struct tc_gaps_raw_row {
    char *name, *dtype;
    double cpu, dev, cpu_total; /* microseconds */
    double calls;
    int has_calls, line;
    int negative_cpu; /* a CPU time was negative: it ran on the CPU */
} tc_gaps_raw_row;

typedef struct tc_gaps_raw_rows {
    tc_gaps_raw_row *rows;
    size_t n;
    int has_cpu, has_dev, has_cpu_total;
    double footer_cpu, footer_dev; /* 0 when absent */
    size_t n_negative_cpu;         /* negative CPU time cells, read as 0 */
} tc_gaps_raw_rows;

typedef struct tc_gaps_cols {
    int name, cpu, dev, cpu_total, calls, dtype;
} tc_gaps_cols;

/* Reads one data row of either profiler format (table or key_averages
 * CSV), with the columns c, into a new row of r: name, dtype (the row's or
 * `dtype`), CPU, device and CPU-total times, calls. Device-only and
 * non-operator rows are kept here; tc_gaps_finish_profiler leaves them
 * out. TC_ERR_PARSE ("NAME:LINE: ...") for a row without a name or a bad
 * cell, TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_gaps_profiler_row(const char *name, const tc_csv_row *h,
                                          const tc_csv_row *row, const tc_gaps_cols *c,
                                          const char *dtype, tc_gaps_raw_rows *r, char *err,
                                          size_t errlen);

/* Appends a zeroed row; NULL when memory ran out. */
tc_gaps_raw_row *tc_gaps_raw_add(tc_gaps_raw_rows *r);
/* Frees the rows and zeroes *r. */
void tc_gaps_raw_free(tc_gaps_raw_rows *r);
/* Shares from the rows into *out (the operators only: device-only rows and
 * non-operators are counted as skipped). */
TC_MUST_CHECK tc_err tc_gaps_finish_profiler(const char *name, tc_gaps_raw_rows *r,
                                             tc_gap_inventory *out, char *err, size_t errlen);
/* 1 when text holds a profiler table: its rows are read into *r and *rc
 * says how that went (err on failure); 0 when there is no table (then the
 * text is a CSV). */
int tc_gaps_read_table(const char *name, const char *text, size_t len, const char *dtype,
                       tc_gaps_raw_rows *r, tc_err *rc, char *err, size_t errlen);

/* ---- the support list's index (gaps_index.c) ---- */

/* The exact, case-blind and normalised stages are indexed. */
#define TC_GAPS_INDEXED_STAGES 3

typedef struct tc_gaps_key {
    char *key;  /* the row's operator name in that stage's form */
    size_t row; /* its index in the support list */
} tc_gaps_key;

typedef struct tc_gaps_index {
    const tc_gap_support *sup;
    char (*dtype)[64];                         /* each row's tc_gaps_dtype_canon form */
    tc_gaps_key *keys[TC_GAPS_INDEXED_STAGES]; /* [stage - TC_MATCH_EXACT], by key then row */
    size_t n[TC_GAPS_INDEXED_STAGES];
} tc_gaps_index;

/* Indexes sup (which must outlive the index). TC_OK or TC_ERR_NOMEM; free
 * with tc_gaps_index_free, which accepts an index that failed or NULL. */
TC_MUST_CHECK tc_err tc_gaps_index_build(const tc_gap_support *sup, tc_gaps_index *ix);
void tc_gaps_index_free(tc_gaps_index *ix);

/* The support rows whose name matches `name` in `stage` (exact, ignoring
 * case, normalised), in file order: *first and the count returned. */
size_t tc_gaps_index_find(const tc_gaps_index *ix, tc_gap_match stage, const char *name,
                          const tc_gaps_key **first);

#endif
