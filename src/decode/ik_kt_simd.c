/* ik_kt_simd.c - the SIMD kernels of ik_kt.c, written once over the
 * primitives of simd.h; the same bytes as the scalar kernels for any input.
 *
 * The k-th generator state of a group is its start times M^k (mod 2^32), so
 * the lanes of a vector run their steps at once: 16 lanes are two groups of 8
 * (IQ4_KT: four groups of 4), each lane multiplying its group's start by its
 * power of M. Group starts are computed 16 at a time for a whole superblock
 * first, then spread to the lanes of their groups. The four masked bytes of
 * a state are summed exactly and turned into the exact float sum - 126;
 * times the block scale: one rounding, as in the scalar kernels, whose block
 * scales are computed the same way here. */
#include "simd.h"

#if GV_BUILT
#include "blocks.h"
#include "gguffs/fp16.h"
#include "ik_kt.h"
#include "tables.h"

/* Lane l holds M^(l % period + 1). */
static inline gv_i powers(int period)
{
    uint32_t p[16], x = 1;
    for (int l = 0; l < 16; l++) {
        x = l % period == 0 ? IKT_MULT : x * IKT_MULT;
        p[l] = x;
    }
    return gv_iload(p);
}

/* ikt_value of every lane's state, as float (exact). */
static inline gv_f kt_values(gv_i x) { return gv_fbytesum(gv_iand(x, gv_isplat(0x3F3F3F3F)), 126); }

/* 32 groups of 8 values, group k starting at lane k % 16 of x0[k / 16],
 * block k/4 scaled by sl. */
static inline void kt_groups8(const gv_i x0[2], const float sl[8], gv_i pw, float *dst)
{
#pragma GCC unroll 16
    for (int p = 0; p < 16; p++) {
        const gv_i x = gv_imul(gv_ispread2(x0[p / 8], p % 8), pw);
        gv_fstore(dst + 16 * p, gv_fmul(gv_fsplat(sl[p / 2]), kt_values(x)));
    }
}

static void dec_iq1_kt(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    /* lane l of groups 16h .. 16h+15 (k = 4b + g): byte b = 4h + l/4 of sh, bit 4 + l%4 */
    static const uint8_t rep0[16] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3};
    const gv_b16 r0 = gv_load16(rep0), r1 = gv_add16(r0, gv_splat16(4));
    const gv_b16 bit = gv_splatw(0x80402010);
    const gv_i pw = powers(8);
    const float d = gg_rdf32(meta);
    const blk_iq1_kt *b = (const blk_iq1_kt *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 256) {
        float sl[8];
        gv_i x0[2];
        for (int k = 0; k < 8; k++)
            sl[k] = d * (float)gg_iq4k_values[b->sh[k] & 15];
        /* group k: ql[k] | (nibble k/16 of qh[k % 16] | bit 4+g of sh[b] << 4) << 8 */
        const gv_b16 shb = gv_load8(b->sh), qh = gv_load16(b->qh);
        for (int h = 0; h < 2; h++) {
            const gv_b16 top = gv_and16(gv_has16(gv_lut16b(shb, h ? r1 : r0), bit), gv_splat16(16));
            const gv_b16 hi = gv_or16(h ? gv_shr16(qh, 4, 15) : gv_and16(qh, gv_splat16(15)), top);
            const gv_i x = gv_ior(gv_iu8(gv_load16(b->ql + 16 * h)), gv_ishl(gv_iu8(hi), 8));
            x0[h] = gv_iadd(x, gv_isplat(4096));
        }
        kt_groups8(x0, sl, pw, dst);
    }
}

static void dec_iq2_kt(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const gv_i pw = powers(8);
    const float d = gg_rdf32(meta);
    const blk_iq2_kt *b = (const blk_iq2_kt *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 256) {
        float sl[8];
        gv_i x0[2];
        for (int k = 0; k < 8; k++)
            sl[k] = d * (float)gg_iq4k_values[(b->scales[k % 4] >> 4 * (k / 4)) & 15];
        for (int h = 0; h < 2; h++)
            x0[h] = gv_iadd(gv_iu16(b->ql + 32 * h), gv_isplat(4096));
        kt_groups8(x0, sl, pw, dst);
    }
}

static void dec_iq3_kt(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const gv_i pw = powers(8), sign = gv_isplat(INT32_MIN), absmask = gv_isplat(INT32_MAX);
    const float d = gg_rdf32(meta);
    const blk_iq3_kt *b = (const blk_iq3_kt *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 256) {
        float sl[8];
        gv_i x0[2];
        for (int k = 0; k < 8; k++)
            sl[k] = d * (float)((b->scales[k % 4] >> 4 * (k / 4)) & 15);
        for (int h = 0; h < 2; h++)
            x0[h] = gv_iadd(gv_iu16(b->ql + 32 * h), gv_isplat(4096));
        /* value 16p + l (groups 2p, 2p+1): negated by bit p/2 of qh[16(p%2) + l] */
        const gv_i qh[2] = {gv_iu8(gv_load16(b->qh)), gv_iu8(gv_load16(b->qh + 16))};
#pragma GCC unroll 16
        for (int p = 0; p < 16; p++) {
            const gv_i x = gv_imul(gv_ispread2(x0[p / 8], p % 8), pw);
            const gv_f v = gv_ffrombits(gv_iand(gv_fbits(kt_values(x)), absmask));
            const gv_f y = gv_fmul(gv_fsplat(sl[p / 2]), v);
            const gv_i neg = gv_iand(gv_ishl(qh[p % 2], 31 - p / 2), sign);
            gv_fstore(dst + 16 * p, gv_ffrombits(gv_ixor(gv_fbits(y), neg)));
        }
    }
}

static void dec_iq4_kt(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    static const int32_t wsh[16] = {8, 11, 14, 17, 20, 23, 26, 29, 8, 11, 14, 17, 20, 23, 26, 29};
    const gv_i pw = powers(4), wshift = gv_iload(wsh), m15 = gv_isplat(15), m7 = gv_isplat(7), one = gv_isplat(1);
    const float d = gg_rdf32(meta);
    const blk_iq4_kt *b = (const blk_iq4_kt *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 256) {
        float sl[8];
        gv_i x0[4];
        for (int k = 0; k < 8; k++)
            sl[k] = d * (float)((int)(b->w[4 * k] >> 1) - 64);
        /* groups 8k + g of blocks k = 2p, 2p+1: ql[8k + g], nibble k/4 of qh[8(k%4) + g] << 8,
         * bits 8+3g.. of w[k] << 12; offset 4096, + 32768 when bit 0 of w[k] is set */
        for (int p = 0; p < 4; p++) {
            const gv_i w = gv_isplat2((int32_t)gg_rd32(b->w + 8 * p), (int32_t)gg_rd32(b->w + 8 * p + 4));
            const gv_i top = gv_ishl(gv_iand(gv_ishrv(w, wshift), m7), 12);
            const gv_i hi = gv_ishl(gv_iand(gv_ishr(gv_iu8(gv_load16(b->qh + 16 * (p % 2))), 4 * (p / 2)), m15), 8);
            const gv_i x = gv_ior(gv_ior(gv_iu8(gv_load16(b->ql + 16 * p)), hi), top);
            const gv_i off = gv_iadd(gv_isplat(4096), gv_ishl(gv_iand(w, one), 15));
            x0[p] = gv_iadd(x, off);
        }
#pragma GCC unroll 16
        for (int q = 0; q < 16; q++) { /* groups 4q .. 4q+3, all in block q/2 */
            const gv_i x = gv_imul(gv_ispread4(x0[q / 4], q % 4), pw);
            gv_fstore(dst + 16 * q, gv_fmul(gv_fsplat(sl[q / 2]), kt_values(x)));
        }
    }
}

GV_KERNELS(ik_kt) = {
    {GG_T_IQ1_KT, GV_ISA, dec_iq1_kt},
    {GG_T_IQ2_KT, GV_ISA, dec_iq2_kt},
    {GG_T_IQ3_KT, GV_ISA, dec_iq3_kt},
    {GG_T_IQ4_KT, GV_ISA, dec_iq4_kt},
    {0},
};
#else
GV_KERNELS(ik_kt) = {{0}};
#endif
