/* kquants.h - the packed 6-bit sub-block scales of the K types, as the
 * scalar kernels (kquants.c) read them; kquants_simd.c unpacks the same
 * fields a word at a time. */
#ifndef GGUFFS_DECODE_KQUANTS_H
#define GGUFFS_DECODE_KQUANTS_H

#include <stdint.h>

/* Q4_K / Q5_K: 12 bytes hold eight 6-bit scales sc[j] and eight 6-bit mins
 * m[j]. For j < 4 they are the low 6 bits of bytes j and j + 4; for j >= 4
 * their low 4 bits are the two nibbles of byte j + 4 (scale low, min high)
 * and their top 2 bits are the top 2 bits of bytes j - 4 (scale) and j (min). */
static inline void kq_scale_min_k4(const uint8_t *s, int j, int *sc, int *m)
{
    if (j < 4) {
        *sc = s[j] & 63;
        *m = s[j + 4] & 63;
    } else {
        *sc = (s[j + 4] & 15) | (s[j - 4] >> 6) << 4;
        *m = (s[j + 4] >> 4) | (s[j] >> 6) << 4;
    }
}

/* Q3_K: 12 bytes hold sixteen 6-bit scales, stored with a bias of 32. Scale
 * i has its low 4 bits in nibble i / 8 of byte i % 8 and its top 2 bits in
 * bits 2*(i/4), 2*(i/4)+1 of byte 8 + i % 4. Returns -32..31. */
static inline int kq_scale_q3k(const uint8_t *s, int i)
{
    int lo = (s[i % 8] >> (4 * (i / 8))) & 15;
    int hi = (s[8 + i % 4] >> (2 * (i / 4))) & 3;
    return (lo | hi << 4) - 32;
}

#endif
