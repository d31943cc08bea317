#include "bench_arrival.h"

#include <math.h>

/* A uniform variate in (0, 1]: safe under log() and pow(, 1/a). */
static double unit_open(tc_rng *rng)
{
    return 1.0 - tc_rng_unit(rng);
}

/* A standard normal variate (Box-Muller; the second of the pair is
 * dropped, which keeps the generator's state a plain sequence). */
static double normal(tc_rng *rng)
{
    double u = unit_open(rng), v = tc_rng_unit(rng);
    return sqrt(-2.0 * log(u)) * cos(2.0 * M_PI * v);
}

/* Marsaglia and Tsang (2000), for shape >= 1. */
static double gamma_mt(tc_rng *rng, double shape)
{
    double d = shape - 1.0 / 3.0, c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x = normal(rng), v = 1.0 + c * x;
        if (v <= 0)
            continue;
        v = v * v * v;
        double u = unit_open(rng);
        if (u < 1.0 - 0.0331 * x * x * x * x)
            return d * v;
        if (log(u) < 0.5 * x * x + d * (1.0 - v + log(v)))
            return d * v;
    }
}

double tc_schedule_gamma_variate(tc_rng *rng, double shape)
{
    if (shape >= 1.0)
        return gamma_mt(rng, shape);
    /* Below 1: G(a) = G(a + 1) * U^(1/a) (the same paper's boost). */
    double g = gamma_mt(rng, shape + 1.0);
    return g * pow(unit_open(rng), 1.0 / shape);
}

void tc_schedule_init(tc_schedule *s, tc_arrival kind, double rate, double burstiness,
                      uint64_t seed)
{
    s->kind = kind;
    s->rate = rate;
    s->shape = kind == TC_ARRIVAL_GAMMA && burstiness > 0 ? burstiness : 1.0;
    tc_rng_seed(&s->rng, seed);
}

double tc_schedule_next_gap_s(tc_schedule *s)
{
    switch (s->kind) {
    case TC_ARRIVAL_CONSTANT:
        return 1.0 / s->rate;
    case TC_ARRIVAL_GAMMA:
        /* Scale 1 / (rate * shape): the mean gap stays 1 / rate. */
        return tc_schedule_gamma_variate(&s->rng, s->shape) / (s->rate * s->shape);
    default:
        return -log(unit_open(&s->rng)) / s->rate;
    }
}
