/* ik_k.h - block scales of the ik_llama.cpp "K" types, as the scalar kernels
 * (ik_k.c) compute them; ik_k_simd.c computes the same codes lane by lane.
 *
 * Every scale is an integer code times a float: dl = d * (float)code, one
 * rounding, the same everywhere. */
#ifndef GGUFFS_DECODE_IK_K_H
#define GGUFFS_DECODE_IK_K_H

#include <stdint.h>

#include "blocks.h"
#include "gguffs/fp16.h"

/* Nibble s (0..15) of a byte array: low nibble of p[s/2] for even s. */
static inline int ikk_nib(const uint8_t *p, int s) { return (p[s / 2] >> 4 * (s & 1)) & 15; }

/* IQ2_K: 4-bit code per 16 values (nibble s of scales), minus 8. */
static inline void ikk_scales_iq2_k(const blk_iq2_k *blk, float dl[16])
{
    const float d = gg_rdf16(blk->d);
    for (int s = 0; s < 16; s++)
        dl[s] = d * (float)(ikk_nib(blk->scales, s) - 8);
}

/* IQ3_K: odd magnitude 2*code+1 per 16 values (code: nibble s of
 * scales_l), negated when bit s of the 16-bit word scales_h is set. */
static inline void ikk_scales_iq3_k(const blk_iq3_k *blk, float dl[16])
{
    const float d = gg_rdf16(blk->d);
    const unsigned sh = gg_rd16(blk->scales_h);
    for (int s = 0; s < 16; s++) {
        int m = 2 * ikk_nib(blk->scales_l, s) + 1;
        dl[s] = d * (float)((sh >> s) & 1 ? -m : m);
    }
}

/* IQ4_K and IQ5_K: 6-bit code per 16 values, minus 32. Low 4 bits: nibble s
 * of scales_l[8]; high 2 bits: bits 2(s%4).. of scales_h[s/4]. */
static inline void ikk_scales_iq45_k(const uint8_t *dp, const uint8_t *scales_h, const uint8_t *scales_l,
                                     float dl[16])
{
    const float d = gg_rdf16(dp);
    for (int s = 0; s < 16; s++) {
        int hi = (scales_h[s / 4] >> 2 * (s % 4)) & 3;
        dl[s] = d * (float)((ikk_nib(scales_l, s) | hi << 4) - 32);
    }
}

/* IQ6_K: one signed byte per 16 values. */
static inline void ikk_scales_iq6_k(const blk_iq6_k *blk, float dl[16])
{
    const float d = gg_rdf16(blk->d);
    for (int s = 0; s < 16; s++)
        dl[s] = d * (float)(int8_t)blk->scales[s];
}

/* IQ2_KS: 5-bit code per 32 values, minus 16: nibble b of scales[4] plus
 * bit 8+b of extra as bit 4. */
static inline void ikk_scales_iq2_ks(float d, const blk_iq2_ks *blk, float dl[8])
{
    const int extra = gg_rd16(blk->extra);
    for (int b = 0; b < 8; b++)
        dl[b] = d * (float)((ikk_nib(blk->scales, b) | ((extra >> (8 + b)) & 1) << 4) - 16);
}

/* IQ3_KS: 5-bit code per 32 values, minus 16: block b takes the low nibble
 * of scales[b] for b < 4 and the high nibble of scales[b-4] otherwise, plus
 * bit b of extra as bit 4. */
static inline void ikk_scales_iq3_ks(float d, const blk_iq3_ks *blk, float dl[8])
{
    const int extra = gg_rd16(blk->extra);
    for (int b = 0; b < 8; b++) {
        int lo = (blk->scales[b % 4] >> 4 * (b / 4)) & 15;
        dl[b] = d * (float)((lo | ((extra >> b) & 1) << 4) - 16);
    }
}

/* IQ4_KS, IQ5_KS (and IQ4_KSS, whose byte is assembled from bits): a byte
 * per 32 values; (byte & 254) - 127 (odd, -127..127) scales the block, bit 0
 * picks the value table. */
static inline float ikk_scale_byte(float d, int s) { return d * (float)((s & 254) - 127); }
static inline void ikk_scales_byte(float d, const uint8_t *scales, float dl[8])
{
    for (int b = 0; b < 8; b++)
        dl[b] = ikk_scale_byte(d, scales[b]);
}

/* IQ2_KL: 6-bit code per 32 values, minus 32: low nibble from scales_l[4]
 * (byte b%4, high nibble for b >= 4), high 2 bits are bits 2b and 2b+1 of
 * the 16-bit word scales_h. */
static inline void ikk_scales_iq2_kl(float d, const blk_iq2_kl *blk, float dl[8])
{
    const int sh = gg_rd16(blk->scales_h);
    for (int b = 0; b < 8; b++) {
        int lo = (blk->scales_l[b % 4] >> 4 * (b / 4)) & 15;
        dl[b] = d * (float)((lo | ((sh >> 2 * b) & 3) << 4) - 32);
    }
}

#endif
