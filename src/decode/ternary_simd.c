/* ternary_simd.c - the SIMD kernels of ternary.c, written once over the
 * primitives of simd.h; the same bytes as the scalar kernels for any input.
 *
 * Every weight of these types is (code - 1) * d for a small code (Q1_0:
 * +-d). The few possible results are computed once per block with the very
 * multiplications the reference performs, and each weight picks its own
 * with a float table lookup on its code. */
#include "simd.h"

#if GV_BUILT
#include "blocks.h"
#include "gguffs/fp16.h"
#include "tables.h"

/* (q - 1) * d for q = 0..3, repeated: index bits above the code's 2 may be
 * left in place. */
static inline gv_ftab codes_times_d(float d)
{
    static const float t[16] = {-1, 0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2};
    return gv_ftab8f(gv_fmul(gv_fload(t), gv_fsplat(d)));
}

static void dec_tq1_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    /* the 4 qh bytes: lane 4k + j is digit k of byte j */
    static const int32_t pq[16] = {1, 1, 1, 1, 3, 3, 3, 3, 9, 9, 9, 9, 27, 27, 27, 27};
    gv_i p[5];
    for (int k = 0; k < 5; k++)
        p[k] = gv_isplat(gg_tq1_0_pow3[k]);
    const gv_i ph = gv_iload(pq);
    const blk_tq1_0 *b = (const blk_tq1_0 *)src;
    for (int64_t i = 0; i < nb; i++, b++, y += 256) {
        const gv_ftab tab = codes_times_d(gv_h2f(gg_rd16(b->d))); /* digit 0, 1, 2 -> -d, 0*d, d */
        /* qs[0..31]: weight 32k + m is digit k of byte m */
        for (int c = 0; c < 2; c++) {
            const gv_i v = gv_iu8(gv_load16(b->qs + 16 * c));
            for (int k = 0; k < 5; k++)
                gv_fstore(y + 32 * k + 16 * c, gv_lut8(tab, gv_idigit3(v, p[k])));
        }
        /* qs[32..47]: weight 160 + 16k + m is digit k of byte 32 + m */
        const gv_i v = gv_iu8(gv_load16(b->qs + 32));
        for (int k = 0; k < 5; k++)
            gv_fstore(y + 160 + 16 * k, gv_lut8(tab, gv_idigit3(v, p[k])));
        /* qh[0..3]: weight 240 + 4k + j is digit k of byte j */
        gv_fstore(y + 240, gv_lut8(tab, gv_idigit3(gv_iu8(gv_splatw(gg_rd32(b->qh))), ph)));
    }
}

static void dec_tq2_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_tq2_0 *b = (const blk_tq2_0 *)src;
    for (int64_t i = 0; i < nb; i++, b++, y += 256) {
        const gv_ftab tab = codes_times_d(gv_h2f(gg_rd16(b->d)));
        for (int h = 0; h < 2; h++)
            for (int c = 0; c < 2; c++) {
                /* bytes m = 16c .. 16c+15 of this half; bits 2l, 2l+1 are weight 32l + m */
                const gv_i v = gv_iu8(gv_load16(b->qs + 32 * h + 16 * c));
                float *o = y + 128 * h + 16 * c;
                for (int l = 0; l < 4; l++)
                    gv_fstore(o + 32 * l, gv_lut8(tab, gv_ishr(v, 2 * l)));
            }
    }
}

static void dec_q1_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_q1_0 *b = (const blk_q1_0 *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        const float d = gv_h2f(gg_rd16(b->d));
        const gv_f pos = gv_fsplat(d), neg = gv_fsplat(-d);
        for (int k = 0; k < 8; k++, y += 16) /* bit j of the 16: d if set, else -d */
            gv_fstore(y, gv_fselbits(gg_rd16(b->qs + 2 * k), neg, pos));
    }
}

static void dec_q2_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    static const int32_t sh[16] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30};
    const gv_i shifts = gv_iload(sh);
    const blk_q2_0 *b = (const blk_q2_0 *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        const gv_ftab tab = codes_times_d(gv_h2f(gg_rd16(b->d)));
        for (int w = 0; w < 4; w++, y += 16) /* weight j of these 16: bits 2j, 2j+1 */
            gv_fstore(y, gv_lut8(tab, gv_ishrv(gv_isplat((int32_t)gg_rd32(b->qs + 4 * w)), shifts)));
    }
}

GV_KERNELS(ternary) = {
    {GG_T_TQ1_0, GV_ISA, dec_tq1_0},
    {GG_T_TQ2_0, GV_ISA, dec_tq2_0},
    {GG_T_Q1_0, GV_ISA, dec_q1_0},
    {GG_T_Q2_0, GV_ISA, dec_q2_0},
    {0},
};
#else
GV_KERNELS(ternary) = {{0}};
#endif
