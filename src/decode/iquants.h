/* iquants.h - pieces shared by the scalar and SIMD kernels of the IQ family
 * (iquants.c, iquants_simd.c).
 *
 * Block sizes and the per-group scale formulas, written exactly as the
 * reference evaluates them; the SIMD files use these or compute the same
 * float operations lane by lane. The block layouts are described in
 * iquants.c. */
#ifndef GGUFFS_DECODE_IQUANTS_H
#define GGUFFS_DECODE_IQUANTS_H

#include <stdint.h>

#include "blocks.h"
#include "gguffs/fp16.h"

/* IQ2_XXS / IQ2_XS / IQ2_S: a 4-bit group scale s gives d * (s + 1/2) / 4. */
static inline float iq2_group_scale(float d, uint32_t s) { return d * (0.5f + (float)s) * 0.25f; }

/* IQ3_XXS: a 4-bit group scale s gives d * (s + 1/2) / 2. */
static inline float iq3xxs_group_scale(float d, uint32_t s) { return d * (0.5f + (float)s) * 0.5f; }

/* IQ3_S, IQ1_S, IQ1_M: an odd multiplier 2s+1 of d. */
static inline float odd_scale(float d, uint32_t s) { return d * (float)(int)(2 * s + 1); }

/* IQ4_XS: the 6-bit scale of 32-weight group g, stored as a low nibble in
 * scales_l and two high bits in scales_h; the multiplier is ls - 32. */
static inline float iq4xs_group_scale(float d, const blk_iq4_xs *blk, int g)
{
    uint32_t hi = gg_rd16(blk->scales_h);
    int ls = ((blk->scales_l[g / 2] >> (4 * (g % 2))) & 0xf) | (int)(((hi >> (2 * g)) & 3) << 4);
    return d * (float)(ls - 32);
}

/* IQ1_M: the block's fp16 scale is spread over the top nibbles of the four
 * 16-bit words of its scales field. */
static inline uint16_t iq1m_block_scale_bits(const blk_iq1_m *blk)
{
    const uint8_t *sc = blk->scales;
    return (uint16_t)((gg_rd16(sc) >> 12) | ((gg_rd16(sc + 2) >> 8) & 0x00f0) |
                      ((gg_rd16(sc + 4) >> 4) & 0x0f00) | (gg_rd16(sc + 6) & 0xf000));
}

#endif
