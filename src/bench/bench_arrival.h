/* An open loop's arrival schedule: the gaps between intended send times,
 * drawn from a seeded generator, so that the same --seed gives the same
 * schedule on any machine.
 *
 *   poisson   exponential gaps of mean 1/rate
 *   constant  every gap 1/rate
 *   gamma     gamma gaps of shape `burstiness` and mean 1/rate (vLLM's
 *             --burstiness: 1 is Poisson, below 1 burstier, above 1 more
 *             even), drawn by Marsaglia and Tsang's method */
#ifndef TC_BENCH_ARRIVAL_H
#define TC_BENCH_ARRIVAL_H

#include <stdint.h>

#include "core/tc_rng.h"
#include "record/record.h"

typedef struct tc_schedule {
    tc_arrival kind;
    double rate;  /* requests/s, > 0 */
    double shape; /* gamma shape, > 0 (1 for the other kinds) */
    tc_rng rng;
} tc_schedule;

/* Sets up the schedule. kind is POISSON, CONSTANT or GAMMA; rate > 0;
 * burstiness > 0 is read for GAMMA only. */
void tc_schedule_init(tc_schedule *s, tc_arrival kind, double rate, double burstiness,
                      uint64_t seed);

/* The next gap between two arrivals, in seconds (>= 0). */
double tc_schedule_next_gap_s(tc_schedule *s);

/* A standard gamma variate of shape `shape` > 0 (scale 1), from rng. */
double tc_schedule_gamma_variate(tc_rng *rng, double shape);

#endif
