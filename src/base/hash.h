/* hash.h - the one hash function of the project: 64-bit FNV-1a over the
 * bytes, then a 64-bit finalizer (from MurmurHash3's fmix64) so that all
 * bits depend on all input bytes. Not keyed and not collision resistant:
 * callers that need distinct results (names, tables) still compare keys. */
#ifndef GGUFFS_HASH_H
#define GGUFFS_HASH_H

#include <stddef.h>
#include <stdint.h>

static inline uint64_t gg_hash_mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h;
}

/* Hash of n bytes at p, started from seed (0 for a plain hash). */
static inline uint64_t gg_hash64(const void *p, size_t n, uint64_t seed)
{
    const unsigned char *s = p;
    uint64_t h = 1469598103934665603ull ^ seed;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 1099511628211ull;
    return gg_hash_mix(h);
}

#endif
