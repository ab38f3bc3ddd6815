/* rng.h - the tests' and benches' random numbers: xoshiro256** seeded
 * through splitmix64 (a fixed seed gives the same numbers on every run and
 * machine). One generator per program. */
#ifndef GGUFFS_TESTS_RNG_H
#define GGUFFS_TESTS_RNG_H

#include <stdint.h>

static uint64_t rng_s[4];

static inline uint64_t rng_rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static inline void rng_seed(uint64_t x)
{
    for (int i = 0; i < 4; i++) {
        uint64_t z = (x += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        rng_s[i] = z ^ (z >> 31);
    }
}

static inline uint64_t rng_next(void)
{
    uint64_t *s = rng_s, r = rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0], s[3] ^= s[1], s[1] ^= s[2], s[0] ^= s[3], s[2] ^= t, s[3] = rng_rotl(s[3], 45);
    return r;
}

#endif
