/* The Pareto frontier of a platform's operating points: throughput per GPU
 * against interactivity (tokens/s per user), read at a target
 * interactivity, as SemiAnalysis InferenceX reads it.
 *
 * A point is on the frontier when no other point is at least as good on
 * both (higher interactivity and higher throughput are better) and better
 * on one. Along the frontier, sorted by interactivity, throughput falls.
 * Between frontier points the reading is a monotone cubic (Fritsch and
 * Carlson, 1980), which never overshoots its neighbours; it is never
 * extrapolated: above the highest measured interactivity the target is
 * "not reached", below the lowest it is served at the lowest point (a
 * bound: more throughput may be possible there). */
#ifndef TC_FRONTIER_H
#define TC_FRONTIER_H

#include <stddef.h>

typedef struct tc_frontier_pt {
    double x;   /* interactivity, tokens/s per user */
    double y;   /* output tokens/s per GPU */
    size_t src; /* index of the operating point it came from */
} tc_frontier_pt;

/* The frontier of n points (x[i], y[i]) into out (room for n), sorted by x
 * ascending; points with a non-finite or non-positive coordinate are left
 * out. Returns how many are on it. */
size_t tc_frontier_build(const double *x, const double *y, size_t n, tc_frontier_pt *out);

typedef enum tc_frontier_reading {
    TC_AT_NOT_REACHED = 0, /* above the highest measured interactivity */
    TC_AT_MEASURED,        /* between measured points (or on one) */
    TC_AT_BOUND            /* below the lowest: the lowest point's figures */
} tc_frontier_reading;

/* Throughput at interactivity x on frontier f (n points, from
 * tc_frontier_build): *y, and in *lo and *t the frontier segment and the
 * position in it (0..1; lo = index of its left point), so that other
 * figures of the points can be read at the same place. */
tc_frontier_reading tc_frontier_at(const tc_frontier_pt *f, size_t n, double x, double *y,
                                   size_t *lo, double *t);

/* Name of a reading: "not reached", "measured", "bound". */
const char *tc_frontier_reading_name(tc_frontier_reading r);

#endif
