/* Small helpers shared by the sysfs backends (rapl, amdgpu): strict
 * integer parsing, integer files, indexed directory scans and the clock
 * the backends stamp samples with. Files are read with core/tc_root.h. */
#ifndef TC_TELEM_SYSFS_H
#define TC_TELEM_SYSFS_H

#include <stddef.h>
#include <stdint.h>

#include "core/tc_error.h"

/* Parses all of text as a decimal integer (optional '-' for i64; no
 * spaces, no sign for u64, nothing after the digits). TC_ERR_PARSE when
 * text is anything else or out of range; *out is untouched then. */
TC_MUST_CHECK tc_err tc_telem_parse_i64(const char *text, int64_t *out);
TC_MUST_CHECK tc_err tc_telem_parse_u64(const char *text, uint64_t *out);

/* snprintf into out that reports truncation: TC_ERR_INVALID when the
 * text did not fit (out then holds as much as fit, NUL-terminated). Not
 * TC_MUST_CHECK: a device label cut short is still a label, and a path cut
 * short opens nothing, which reads as "not available". */
tc_err tc_telem_fmt(char *out, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Reads dir/name (tc_root_read) and parses it with tc_telem_parse_i64.
 * Any failure (missing, unreadable, not an integer) returns non-TC_OK. */
TC_MUST_CHECK tc_err tc_telem_read_i64(const char *dir, const char *name, int64_t *out);

/* Collects N for every entry of dir named exactly prefix followed by
 * decimal digits ("card0" but not "card0-DP-1"), sorted ascending, into a
 * malloc'ed array the caller frees (*idx is NULL when *n is 0).
 * TC_ERR_NOTFOUND when dir cannot be opened, TC_ERR_NOMEM. */
TC_MUST_CHECK tc_err tc_telem_scan_indexed(const char *dir, const char *prefix, int **idx, int *n);

/* CLOCK_MONOTONIC nanoseconds, or the test clock when one is set. */
int64_t tc_telem_now_ns(void);

/* The current level of a pp_dpm_* table ("0: 500Mhz\n1: 1800Mhz *"), in
 * MHz; -1 when no line is marked or the marked one is malformed. Modifies
 * text (it is split into lines). */
int tc_telem_parse_dpm(char *text);

/* Test only: makes tc_telem_now_ns() return now(); NULL restores the real
 * clock. Lets tests inject exact sample intervals. */
void tc_telem_sysfs_set_clock(int64_t (*now)(void));

#endif
