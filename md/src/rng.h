/*
 * rng.h: a counter-based generator: the number for (seed, id, component) is a hash, so it
 * does not depend on the order in which atoms are visited or on how they are split over PEs.
 * SplitMix64's finalizer (Steele, Lea, Flood 2014) as the mixing function.
 */
#ifndef MD_RNG_H
#define MD_RNG_H

#include <stdint.h>

static inline uint64_t md_mix64(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A 64-bit number for (seed, a, b). */
static inline uint64_t md_hash3(uint64_t seed, uint64_t a, uint64_t b)
{
    return md_mix64(md_mix64(md_mix64(seed) ^ a) ^ b);
}

/* Uniform in [-0.5, 0.5), exactly a multiple of 2^-53. */
static inline double md_uniform_centered(uint64_t h)
{
    return (double)(h >> 11) * (1.0 / 9007199254740992.0) - 0.5;
}

#endif
