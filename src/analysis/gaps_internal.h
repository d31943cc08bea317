/* Helpers shared by the gap table's files (gaps.c, gaps_csv.c,
 * gaps_ops.c); not part of the public contract. */
#ifndef TC_GAPS_INTERNAL_H
#include "core/tc_number.h"
#define TC_GAPS_INTERNAL_H

#include <stddef.h>

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
tc_err tc_gaps_inventory_add(tc_gap_inventory *inv, const char *name, const char *dtype,
                             double time_us, double share, double calls, int has_calls, int line);

/* Reads CSV inventories (the profiler export and the plain CSV): csv is
 * parsed, header is its first row. */
tc_err tc_gaps_inventory_csv(const char *name, const tc_csv *csv, const char *dtype,
                             tc_gap_inventory *out, char *err, size_t errlen);

#endif
