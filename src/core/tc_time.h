/* Clocks: CLOCK_MONOTONIC nanoseconds for intervals, CLOCK_REALTIME
 * nanoseconds and UTC RFC 3339 text for dates. */
#ifndef TC_TIME_H
#define TC_TIME_H

#include <stddef.h>
#include <stdint.h>

#define TC_NS_PER_MS 1000000LL
#define TC_NS_PER_S 1000000000LL

/* Nanoseconds on CLOCK_MONOTONIC. */
int64_t tc_mono_ns(void);

/* Nanoseconds since the Unix epoch on CLOCK_REALTIME. */
int64_t tc_wall_ns(void);

/* Formats `wall_ns` as "2026-11-29T15:24:12.123456789Z" into buf (needs at
 * least 31 bytes). Returns buf, or "" written into buf when it is too small. */
char *tc_rfc3339_ns(int64_t wall_ns, char *buf, size_t len);

#endif
