/* Strict numbers for the readers of user files (cost profiles, assessments,
 * gap tables): a typo must never become a silently different value. */
#ifndef TC_NUMBER_H
#define TC_NUMBER_H

#include <stddef.h>

/* Parses a plain decimal: digits, an optional fraction, an optional
 * exponent; no sign, no hex, no inf/nan, nothing after it ("0.3", "36",
 * "2e9"). Returns 0 and sets *out, or -1 (also for a value out of range);
 * *out is unchanged on failure. */
int tc_parse_plain_number(const char *s, double *out);

/* Parses a duration with its unit, "ms", "s", "m" or "h" ("200ms", "1.5s",
 * "5m", "24h"), into milliseconds; the number as tc_parse_plain_number
 * takes it. A bare number is refused: "200" could be any unit. Returns 0
 * and sets *ms, or -1 (*ms unchanged). */
int tc_parse_duration_ms(const char *s, double *ms);

/* v for people, to `digits` significant digits the shortest way: "2.849",
 * "0.0125", "12350" (more digits before the point are rounded), "20";
 * "n/a" when not finite; an exponent only below 1e-4 or from 1e9. The
 * one formatter of every figure printed for people (JSON keeps them
 * whole). Returns buf. */
const char *tc_number_sig(char *buf, size_t len, double v, int digits);

#endif
