#include "tc_rng.h"

static uint64_t splitmix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

uint64_t tc_hash3(uint64_t a, uint64_t b, uint64_t c)
{
    return splitmix64(splitmix64(splitmix64(a) ^ b) ^ c);
}

uint64_t tc_hash_bytes(const void *data, size_t len, uint64_t seed)
{
    const unsigned char *p = data;
    uint64_t h = 0xcbf29ce484222325ULL ^ seed;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

void tc_rng_seed(tc_rng *rng, uint64_t seed)
{
    rng->state = seed;
}

uint64_t tc_rng_next(tc_rng *rng)
{
    rng->state += 0x9e3779b97f4a7c15ULL;
    uint64_t z = rng->state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double tc_unit_from_hash(uint64_t h)
{
    return (double)(h >> 11) * (1.0 / 9007199254740992.0);
}

double tc_rng_unit(tc_rng *rng)
{
    return tc_unit_from_hash(tc_rng_next(rng));
}
