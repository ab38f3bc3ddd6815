/* ik_bn_simd.c - the SIMD kernels of ik_bn.c, written once over the
 * primitives of simd.h; the same bytes as the scalar kernels for any input.
 *
 * Every value is scale * t for a small integer t, so the products scale * t
 * for all possible t are computed once per call (the same single roundings
 * as the scalar kernels) and the codes only pick among them. */
#include "simd.h"

#if GV_BUILT
#include "blocks.h"
#include "gguffs/fp16.h"
#include "tables.h"

/* Lane t (0..3, repeated): scale * (t - 1). */
static inline gv_ftab products(float d)
{
    static const float t[16] = {-1, 0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2};
    return gv_ftab8f(gv_fmul(gv_fsplat(d), gv_fload(t)));
}

/* IQ1_BN layout: value i of group q (16 values) comes from code byte
 * pick[16q + i] with multiplier number msel[16q + i] (of iq1bn_k_mult):
 * bytes 3q..3q+2 give five values each, byte 12 (extra) the last one. */
static const uint8_t pick[64] = {
    0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 12,
    3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 12,
    6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 12,
    9, 9, 9, 9, 9, 10, 10, 10, 10, 10, 11, 11, 11, 11, 11, 12};
static const uint8_t msel[64] = {
    0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0,
    0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 1,
    0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 2,
    0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 3};

/* IQ1_BN: each code byte c with its multiplier m gives the trit
 * ((v + (v >> 1)) >> 7) - 1 of v = (c * m) & 255; (v + (v >> 1)) >> 7 equals
 * the base-3 digit (3v) >> 8 for every byte v. */
static void dec_iq1_bn(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const gv_ftab tab = products(gg_rdf16(meta));
    /* the 5 multipliers as a byte table (entries 0..4) */
    const gv_b16 k = gv_zip32lo(gv_splatw(gg_rd32(gg_iq1bn_k_mult)), gv_splat16(gg_iq1bn_k_mult[4]));
    gv_b32 sel[2];
    gv_mul32 mult[2];
    for (int h = 0; h < 2; h++) { /* per call: kept short, rows may be short */
        sel[h] = gv_load32(pick + 32 * h);
        gv_digit3_mul(mult[h], gv_lut32x2(gv_dup32(k), gv_load32(msel + 32 * h)));
    }
    const blk_iq1_bn *b = (const blk_iq1_bn *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 64) {
        const gv_b16 x = gv_loadn16(b, 13); /* the 13 bytes, no more */
#pragma GCC unroll 2
        for (int h = 0; h < 2; h++) { /* groups 2h, 2h + 1 */
            gv_i lo, hi;
            gv_idigit3x32(x, sel[h], mult[h], &lo, &hi);
            gv_fstore(dst + 32 * h, gv_lut8(tab, lo));
            gv_fstore(dst + 32 * h + 16, gv_lut8(tab, hi));
        }
    }
}

/* IQ2_BN: value 16k + j is bits 2k, 2k+1 of qs[j]; the table repeats every
 * 4 entries, so the shifted bytes need no mask. */
static void dec_iq2_bn(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const gv_ftab tab = products(gg_rdf32(meta));
    const blk_iq2_bn *b = (const blk_iq2_bn *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 64) {
        const gv_i q = gv_iu8(gv_load16(b->qs));
        for (int k = 0; k < 4; k++)
            gv_fstore(dst + 16 * k, gv_lut8(tab, gv_ishr(q, 2 * k)));
    }
}

GV_KERNELS(ik_bn) = {
    {GG_T_IQ1_BN, GV_ISA, dec_iq1_bn},
    {GG_T_IQ2_BN, GV_ISA, dec_iq2_bn},
    {0},
};
#else
GV_KERNELS(ik_bn) = {{0}};
#endif
