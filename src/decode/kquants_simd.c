/* kquants_simd.c - the SIMD kernels of kquants.c, written once over the
 * primitives of simd.h; the same bytes as the scalar kernels for any input.
 *
 * Per block, the sub-block factors (d * sc, dmin * mn) are computed 16 at a
 * time with the same single roundings as the scalar code and kept in a small
 * float array; the codes are built as 32 bytes (one sub-block of 32, or two
 * of 16), widened 16 at a time and converted to float (exact), then
 * multiplied (and the min subtracted) in the scalar order. */
#include "simd.h"

#if GV_BUILT
#include "blocks.h"
#include "gguffs/fp16.h"

static inline float f16(const uint8_t *p) { return gv_h2f(gg_rd16(p)); }

/* 16 unsigned codes -> dl * q - ml;  16 signed codes -> dl * q. */
static inline void put16_dm(float *y, gv_b16 c, float dl, float ml)
{
    gv_fstore(y, gv_fsub(gv_fmul(gv_fsplat(dl), gv_fu8(c)), gv_fsplat(ml)));
}
static inline void put16_d(float *y, gv_b16 c, float dl) { gv_fstore(y, gv_fmul(gv_fsplat(dl), gv_fs8(c))); }

/* Bit `from` of every byte of x moved to bit `to`, others cleared. */
static inline gv_b32 bit_to(gv_b32 x, int from, int to)
{
    return from >= to ? gv_shr32(x, from - to, 1 << to) : gv_shl32(x, to - from, 1 << to);
}

static void dec_q2_k(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    const blk_q2_k *b = (const blk_q2_k *)src;
    for (int64_t i = 0; i < n; i++, b++, y += 256) {
        float dl[16], ml[16];
        const gv_b16 sc = gv_load16(b->scales);
        gv_fstore(dl, gv_fmul(gv_fsplat(f16(b->d)), gv_fu8(gv_and16(sc, gv_splat16(15)))));
        gv_fstore(ml, gv_fmul(gv_fsplat(f16(b->dmin)), gv_fu8(gv_shr16(sc, 4, 15))));
        for (int h = 0; h < 2; h++) {
            const gv_b32 q = gv_load32(b->qs + 32 * h);
            for (int s = 0; s < 4; s++) {
                const gv_b32 c = gv_shr32(q, 2 * s, 3);
                const int k = 8 * h + 2 * s;
                float *o = y + 128 * h + 32 * s;
                put16_dm(o, gv_lo16(c), dl[k], ml[k]);
                put16_dm(o + 16, gv_hi16(c), dl[k + 1], ml[k + 1]);
            }
        }
    }
}

/* The 16 Q3_K scales (see kq_scale_q3k in kquants.h) as bytes 0..63. */
static inline gv_b16 q3k_scales(const uint8_t *s)
{
    uint32_t w0 = gg_rd32(s), w1 = gg_rd32(s + 4), w2 = gg_rd32(s + 8);
    const uint32_t lo4 = 0x0f0f0f0f, lo2 = 0x03030303;
    return gv_setw4((w0 & lo4) | (w2 & lo2) << 4,       /* scales 0..3 */
                    (w1 & lo4) | (w2 >> 2 & lo2) << 4,  /* 4..7 */
                    (w0 >> 4 & lo4) | (w2 >> 4 & lo2) << 4, /* 8..11 */
                    (w1 >> 4 & lo4) | (w2 >> 6 & lo2) << 4); /* 12..15 */
}

static void dec_q3_k(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    const gv_b32 four = gv_splat32(4);
    const blk_q3_k *b = (const blk_q3_k *)src;
    for (int64_t i = 0; i < n; i++, b++, y += 256) {
        float dl[16];
        gv_fstore(dl, gv_fmul(gv_fsplat(f16(b->d)), gv_fs8(gv_sub16(q3k_scales(b->scales), gv_splat16(32)))));
        const gv_b32 hm = gv_load32(b->hmask);
        for (int h = 0; h < 2; h++) {
            const gv_b32 q = gv_load32(b->qs + 32 * h);
            for (int s = 0; s < 4; s++) {
                /* minus 4 where the third bit is clear */
                const gv_b32 set = gv_has32(hm, gv_splat32(1 << (4 * h + s)));
                const gv_b32 c = gv_sub32(gv_shr32(q, 2 * s, 3), gv_andnot32(set, four));
                const int k = 8 * h + 2 * s;
                float *o = y + 128 * h + 32 * s;
                put16_d(o, gv_lo16(c), dl[k]);
                put16_d(o + 16, gv_hi16(c), dl[k + 1]);
            }
        }
    }
}

/* Q4_K / Q5_K (see kq_scale_min_k4): f[j] = d * sc[j], f[8 + j] = dmin * mn[j]. */
static inline void k4_factors(const uint8_t *dp, const uint8_t *dminp, const uint8_t *s, float f[16])
{
    uint32_t w0 = gg_rd32(s), w1 = gg_rd32(s + 4), w2 = gg_rd32(s + 8);
    const uint32_t lo6 = 0x3f3f3f3f, lo4 = 0x0f0f0f0f, lo2 = 0x03030303;
    uint64_t sc = (w0 & lo6) | (uint64_t)((w2 & lo4) | (w0 >> 6 & lo2) << 4) << 32;
    uint64_t mn = (w1 & lo6) | (uint64_t)((w2 >> 4 & lo4) | (w1 >> 6 & lo2) << 4) << 32;
    gv_fstore(f, gv_fmul(gv_fsplat2(f16(dp), f16(dminp)), gv_fu8(gv_setq2(sc, mn))));
}

/* 32 unsigned codes of one sub-block -> dl * q - ml. */
static inline void put32_dm(float *y, gv_b32 c, float dl, float ml)
{
    put16_dm(y, gv_lo16(c), dl, ml);
    put16_dm(y + 16, gv_hi16(c), dl, ml);
}

static void dec_q4_k(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    const blk_q4_k *b = (const blk_q4_k *)src;
    for (int64_t i = 0; i < n; i++, b++, y += 256) {
        float f[16];
        k4_factors(b->d, b->dmin, b->scales, f);
        for (int j = 0; j < 8; j += 2) {
            const gv_b32 q = gv_load32(b->qs + 16 * j);
            put32_dm(y + 32 * j, gv_and32(q, gv_splat32(15)), f[j], f[8 + j]);
            put32_dm(y + 32 * j + 32, gv_shr32(q, 4, 15), f[j + 1], f[9 + j]);
        }
    }
}

static void dec_q5_k(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    const blk_q5_k *b = (const blk_q5_k *)src;
    for (int64_t i = 0; i < n; i++, b++, y += 256) {
        float f[16];
        k4_factors(b->d, b->dmin, b->scales, f);
        const gv_b32 qh = gv_load32(b->qh);
        for (int j = 0; j < 8; j += 2) {
            /* bit j of qh[l] is the fifth bit (value 16) of element 32j + l */
            const gv_b32 q = gv_load32(b->qs + 16 * j);
            const gv_b32 lo = gv_or32(gv_and32(q, gv_splat32(15)), bit_to(qh, j, 4));
            const gv_b32 hi = gv_or32(gv_shr32(q, 4, 15), bit_to(qh, j + 1, 4));
            put32_dm(y + 32 * j, lo, f[j], f[8 + j]);
            put32_dm(y + 32 * j + 32, hi, f[j + 1], f[9 + j]);
        }
    }
}

static void dec_q6_k(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    const gv_b32 m4 = gv_splat32(15), m32 = gv_splat32(32);
    const blk_q6_k *b = (const blk_q6_k *)src;
    for (int64_t i = 0; i < n; i++, b++, y += 256) {
        float ds[16];
        gv_fstore(ds, gv_fmul(gv_fsplat(f16(b->d)), gv_fs8(gv_load16(b->scales))));
        for (int h = 0; h < 2; h++) {
            const gv_b32 a = gv_load32(b->ql + 64 * h), a2 = gv_load32(b->ql + 64 * h + 32);
            const gv_b32 qh = gv_load32(b->qh + 32 * h);
            gv_b32 c[4];
            c[0] = gv_or32(gv_and32(a, m4), gv_shl32(qh, 4, 0x30));
            c[1] = gv_or32(gv_and32(a2, m4), gv_shl32(qh, 2, 0x30));
            c[2] = gv_or32(gv_shr32(a, 4, 15), gv_and32(qh, gv_splat32(0x30)));
            c[3] = gv_or32(gv_shr32(a2, 4, 15), gv_shr32(qh, 2, 0x30));
            for (int s = 0; s < 4; s++) {
                const gv_b32 v = gv_sub32(c[s], m32);
                const int k = 8 * h + 2 * s;
                float *o = y + 128 * h + 32 * s;
                put16_d(o, gv_lo16(v), ds[k]);
                put16_d(o + 16, gv_hi16(v), ds[k + 1]);
            }
        }
    }
}

static void dec_q8_k(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    const blk_q8_k *b = (const blk_q8_k *)src;
    for (int64_t i = 0; i < n; i++, b++, y += 256) {
        const gv_f d = gv_fsplat(gg_rdf32(b->d));
        for (int e = 0; e < 256; e += 16)
            gv_fstore(y + e, gv_fmul(d, gv_fs8x2(b->qs + e, b->qs + e + 8)));
    }
}

GV_KERNELS(kquants) = {
    {GG_T_Q2_K, GV_ISA, dec_q2_k}, {GG_T_Q3_K, GV_ISA, dec_q3_k}, {GG_T_Q4_K, GV_ISA, dec_q4_k},
    {GG_T_Q5_K, GV_ISA, dec_q5_k}, {GG_T_Q6_K, GV_ISA, dec_q6_k}, {GG_T_Q8_K, GV_ISA, dec_q8_k},
    {0},
};
#else
GV_KERNELS(kquants) = {{0}};
#endif
