/* Helpers shared by the kernel table's readers (kernels_read.c,
 * kernels_torch.c, kernels_table.c); not part of the public contract. */
#ifndef TC_KERNELS_INTERNAL_H
#define TC_KERNELS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_csv.h"
#include "kernels.h"

/* What a time cell held. */
typedef enum tc_kernels_ns_status {
    TC_KNS_OK = 0,
    TC_KNS_EMPTY,
    TC_KNS_NEGATIVE,
    TC_KNS_UNIT, /* a number with a unit where the column gives the unit */
    TC_KNS_BAD,  /* not a number */
    TC_KNS_RANGE /* beyond 9e18 ns */
} tc_kernels_ns_status;

/* A time cell in nanoseconds. With units 0 (CSV columns whose header
 * gives the unit) it is a plain number of `scale` ns each, and a unit in
 * the cell is TC_KNS_UNIT; with units 1 (PyTorch's table) a number with
 * an optional unit ns, us, ms or s, a bare number being `scale` ns each.
 * Whole numbers are read exactly. */
tc_kernels_ns_status tc_kernels_ns(const char *s, int64_t scale, int units, int64_t *out);

/* The message of a time cell that is not TC_KNS_OK: "NAME:LINE: COLUMN of
 * KERNEL: 'CELL' ...", with `unit` the column's unit for TC_KNS_UNIT.
 * Returns TC_ERR_PARSE. */
tc_err tc_kernels_time_error(const char *name, int line, const char *column, const char *kernel,
                             const char *cell, tc_kernels_ns_status st, const char *unit, char *err,
                             size_t errlen);

/* A count cell: digits only. 0 and *out set, or -1. */
int tc_kernels_count(const char *s, uint64_t *out);

/* Drops a trailing ".kd" or " [clone .kd]" from name, in place. */
void tc_kernels_clean_name(char *name);

/* Adds `ns` and `calls` to the kernel `kname` (merging a name seen
 * before), checking the bounds (distinct kernels, sums). TC_OK,
 * TC_ERR_PARSE ("NAME:LINE: ..."), TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_kernels_add(tc_kernel_table *t, const char *name, int line,
                                    const char *kname, int64_t ns, uint64_t calls, int has_calls,
                                    char *err, size_t errlen);

/* Counts one data row against TC_KERNELS_MAX_ROWS. TC_OK or TC_ERR_PARSE. */
TC_MUST_CHECK tc_err tc_kernels_count_row(tc_kernel_table *t, const char *name, int line, char *err,
                                          size_t errlen);

/* The checks once every row is read: kernels there, time above 0, not a
 * table of runtime API calls. TC_OK or TC_ERR_PARSE. */
TC_MUST_CHECK tc_err tc_kernels_finish(const char *name, tc_kernel_table *t, char *err,
                                       size_t errlen);

/* The header's cells joined by ", " into buf, for "it has: ..." hints. */
void tc_kernels_header_list(const tc_csv_row *h, char *buf, size_t len);

/* The PyTorch text table (key_averages().table()): 1 when text holds one
 * (its kernel rows then read into t, *rc saying how), 0 when not. */
int tc_kernels_torch_table(const char *name, const char *text, size_t len, tc_kernel_table *t,
                           tc_err *rc, char *err, size_t errlen);

#endif
