/* Small seeded random numbers: reproducible across runs and machines, so a
 * fault plan or jitter sequence is fixed by its seed. Not for secrets. */
#ifndef TC_RNG_H
#define TC_RNG_H

#include <stddef.h>
#include <stdint.h>

typedef struct tc_rng {
    uint64_t state;
} tc_rng;

/* Mixes up to three values into one well-distributed 64-bit value
 * (splitmix64 finaliser); the same inputs always give the same output. */
uint64_t tc_hash3(uint64_t a, uint64_t b, uint64_t c);

/* FNV-1a over `len` bytes. */
uint64_t tc_hash_bytes(const void *data, size_t len, uint64_t seed);

void tc_rng_seed(tc_rng *rng, uint64_t seed);
uint64_t tc_rng_next(tc_rng *rng);

/* Uniform double in [0, 1). */
double tc_rng_unit(tc_rng *rng);

/* Uniform double in [0, 1) derived from a hash value. */
double tc_unit_from_hash(uint64_t h);

#endif
