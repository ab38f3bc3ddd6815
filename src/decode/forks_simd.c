/* forks_simd.c - the SIMD kernels of forks.c (STQ1_0 in both element
 * orders, PQ2_0, PTQ1_0), written once over the primitives of simd.h; the
 * same bytes as the scalar kernels for any input.
 *
 * As in forks.c every value is (float)level * d, one multiplication; the
 * levels are computed as signed bytes and converted exactly (PTQ1_0: the
 * few products (digit - 1) * d are formed once per block and picked). */
#include "simd.h"

#if GV_BUILT
#include "blocks.h"
#include "forks.h"
#include "gguffs/fp16.h"
#include "tables.h"

/* y[0..15] = levels q (signed bytes) times d. */
static inline void put16(float *y, gv_b16 q, gv_f d) { gv_fstore(y, gv_fmul(gv_fs8(q), d)); }

/* l[s][m] (s = 0..3, m = 0..15) is the level of value 4m + s; store the 64
 * values in order. */
static inline void put64_by4(float *y, const gv_b16 l[4], gv_f d)
{
    const gv_b16 a = gv_zip8lo(l[0], l[1]), b = gv_zip8lo(l[2], l[3]);
    const gv_b16 c = gv_zip8hi(l[0], l[1]), e = gv_zip8hi(l[2], l[3]);
    put16(y, gv_zip16lo(a, b), d);
    put16(y + 16, gv_zip16hi(a, b), d);
    put16(y + 32, gv_zip16lo(c, e), d);
    put16(y + 48, gv_zip16hi(c, e), d);
}

/* The four 2-bit fields of each byte of x, as levels field - 1. */
static inline void fields2(gv_b16 x, gv_b16 l[4])
{
    for (int k = 0; k < 4; k++)
        l[k] = gv_sub16(gv_shr16(x, 2 * k, 3), gv_splat16(1));
}

/* STQ1_0: per 64-value chunk, the 16 groups' pattern bytes are looked up at
 * once (slot nibbles as the index, the sign bit choosing the table half);
 * lane p of all 16 groups is one row of 16 levels. */
static inline void stq1_blocks(const uint8_t *src, float *y, int64_t nblocks, int stride16)
{
    const gv_b16 cb0 = gv_load16(gg_stq1_codebook), cb1 = gv_load16(gg_stq1_codebook + 16);
    const blk_stq1_0 *b = (const blk_stq1_0 *)src;
    for (int64_t i = 0; i < nblocks; i++, b++, y += 256) {
        const gv_f d = gv_fsplat(gv_h2f(gg_rd16(b->d)));
        for (int ch = 0; ch < 4; ch++) {
            const gv_b16 x = gv_load8(b->qs + 8 * ch);
            const gv_b16 slot = gv_zip8lo(gv_and16(x, gv_splat16(15)), gv_shr16(x, 4, 15));
            const gv_b16 neg = gv_bits16(gg_rd16(b->sign + 2 * ch));
            gv_b16 l[4];
            fields2(gv_sel16(neg, gv_lut16b(cb0, slot), gv_lut16b(cb1, slot)), l);
            if (stride16) {
                for (int p = 0; p < 4; p++)
                    put16(y + 64 * ch + 16 * p, l[p], d);
            } else {
                put64_by4(y + 64 * ch, l, d);
            }
        }
    }
}

static void stq1_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks, int64_t dst_stride)
{
    stq1_blocks(src, dst, nblocks, 1);
}

static void stq1_0_consecutive(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                               int64_t dst_stride)
{
    stq1_blocks(src, dst, nblocks, 0);
}

/* PQ2_0: 16 code bytes give 64 consecutive values. */
static void pq2_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks, int64_t dst_stride)
{
    const blk_pq2_0 *b = (const blk_pq2_0 *)src;
    for (int64_t i = 0; i < nblocks; i++, b++) {
        const gv_f d = gv_fsplat(gv_h2f(gg_rd16(b->d)));
        for (int h = 0; h < 2; h++) {
            gv_b16 l[4];
            fields2(gv_load16(b->qs + 16 * h), l);
            put64_by4(dst + 128 * i + 64 * h, l, d);
        }
    }
}

/* PTQ1_0: value v is base-3 digit n (forks.h) of one code byte: values
 * 16n + m (n < 5) of qs[m]; 80 + 8n + m (n < 5) of qs[16 + m]; 120 + 2n + h
 * (n < 4) of qh[h]. The last 48 values, in three steps of 16, take their
 * bytes from the block's bytes 12..27 (tail index) with their own powers. */
static const uint8_t ptq_tail_byte[48] = {
    4, 5, 6, 7, 8, 9, 10, 11, 4, 5, 6, 7, 8, 9, 10, 11,       /* 80..95: digits 0, 1 of qs[16..23] */
    4, 5, 6, 7, 8, 9, 10, 11, 4, 5, 6, 7, 8, 9, 10, 11,       /* 96..111: digits 2, 3 */
    4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 12, 13, 12, 13, 12, 13, /* 112..119: digit 4; 120..127: qh */
};
static const uint8_t ptq_tail_pow[48] = {
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3,
    4, 4, 4, 4, 4, 4, 4, 4, 0, 0, 1, 1, 2, 2, 3, 3,
};

static void ptq1_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks, int64_t dst_stride)
{
    static const float lv[16] = {-1, 0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2};
    gv_i p[5], tp[3];
    gv_b16 tb[3];
    for (int n = 0; n < 5; n++)
        p[n] = gv_isplat(gg_tq1_0_pow3[n]);
    for (int s = 0; s < 3; s++) {
        int32_t w[16];
        for (int l = 0; l < 16; l++)
            w[l] = gg_tq1_0_pow3[ptq_tail_pow[16 * s + l]];
        tp[s] = gv_iload(w);
        tb[s] = gv_load16(ptq_tail_byte + 16 * s);
    }
    const blk_ptq1_0 *b = (const blk_ptq1_0 *)src;
    for (int64_t i = 0; i < nblocks; i++, b++) {
        float *y = dst + 128 * i;
        const gv_ftab tab = gv_ftab8f(gv_fmul(gv_fload(lv), gv_fsplat(gv_h2f(gg_rd16(b->d)))));
        const gv_i head = gv_iu8(gv_load16(b->qs));
        const gv_b16 tail = gv_load16(b->qs + 12); /* bytes 12..27 of the block */
        for (int n = 0; n < 5; n++)
            gv_fstore(y + 16 * n, gv_lut8(tab, gv_idigit3(head, p[n])));
        for (int s = 0; s < 3; s++)
            gv_fstore(y + 80 + 16 * s, gv_lut8(tab, gv_idigit3(gv_iu8(gv_lut16b(tail, tb[s])), tp[s])));
    }
}

GV_KERNELS(forks) = {
    {GG_T_STQ1_0, GV_ISA, stq1_0},
    {GG_T_STQ1_0_CONSECUTIVE, GV_ISA, stq1_0_consecutive},
    {GG_T_PQ2_0, GV_ISA, pq2_0},
    {GG_T_PTQ1_0, GV_ISA, ptq1_0},
    {0},
};
#else
GV_KERNELS(forks) = {{0}};
#endif
