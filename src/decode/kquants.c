/* kquants.c - the "K" super-block types: 256 elements per block, split in
 * sub-blocks of 16 or 32 elements that each have a small integer scale (and
 * for Q2_K, Q4_K, Q5_K a min), multiplied by fp16 super-block factors.
 *
 * The arithmetic is ggml's dequantize_row_*, in its order and rounding:
 *   Q2_K  (d * sc) * q - (dmin * mn)
 *   Q3_K  (d * sc) * q            sc -32..31, q -4..3
 *   Q4_K  (d * sc) * q - (dmin * mn)
 *   Q5_K  (d * sc) * q - (dmin * mn)
 *   Q6_K  (d * sc) * q            sc int8, q -32..31
 *   Q8_K  d * q                   d float32
 * where every integer is converted to float exactly before its multiply,
 * and a multiply and a following subtract are two roundings (never fused).
 *
 * "Element e" below is the index 0..255 inside the block. */
#include "blocks.h"
#include "gguffs/decode.h"
#include "families.h"
#include "gguffs/fp16.h"
#include "kquants.h"

/* Q2_K, 84 bytes: scales[16], qs[64], fp16 d, fp16 dmin.
 * scales[k] covers elements 16k..16k+15: low nibble = scale, high = min.
 * Each 128-element half h uses 32 code bytes; element e = 128h + 32s + l
 * (s 0..3, l 0..31) is bits 2s, 2s+1 of qs[32h + l]. */
static void dec_q2_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const blk_q2_k *b = (const blk_q2_k *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 256) {
        const uint8_t *scales = b->scales, *qs = b->qs;
        const float d = gg_rdf16(b->d), dmin = gg_rdf16(b->dmin);
        for (int e = 0; e < 256; e++) {
            int h = e / 128, s = e % 128 / 32, l = e % 32;
            int q = (qs[32 * h + l] >> (2 * s)) & 3;
            float dl = d * (float)(scales[e / 16] & 15);
            float ml = dmin * (float)(scales[e / 16] >> 4);
            dst[e] = dl * (float)q - ml;
        }
    }
}

/* Q3_K, 110 bytes: hmask[32], qs[64], scales[12] (see kq_scale_q3k), fp16 d.
 * Low 2 bits of element e as in Q2_K; its third bit is bit e/32 of
 * hmask[e % 32]. A clear third bit means q = low - 4, a set one q = low.
 * Scale e/16 covers 16 elements. */
static void dec_q3_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const blk_q3_k *b = (const blk_q3_k *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 256) {
        const uint8_t *hmask = b->hmask, *qs = b->qs, *scales = b->scales;
        const float d = gg_rdf16(b->d);
        for (int e = 0; e < 256; e++) {
            int h = e / 128, s = e % 128 / 32, l = e % 32;
            int q = (qs[32 * h + l] >> (2 * s)) & 3;
            if (!((hmask[l] >> (e / 32)) & 1))
                q -= 4;
            float dl = d * (float)kq_scale_q3k(scales, e / 16);
            dst[e] = dl * (float)q;
        }
    }
}

/* Q4_K, 144 bytes: fp16 d, fp16 dmin, scales[12] (see kq_scale_min_k4),
 * qs[128]. Eight sub-blocks of 32; sub-block j uses qs[32*(j/2) ..] and
 * takes the low nibbles when j is even, the high nibbles when j is odd. */
static void dec_q4_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const blk_q4_k *b = (const blk_q4_k *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 256) {
        const float d = gg_rdf16(b->d), dmin = gg_rdf16(b->dmin);
        const uint8_t *scales = b->scales, *qs = b->qs;
        for (int j = 0; j < 8; j++) {
            int sc, mn;
            kq_scale_min_k4(scales, j, &sc, &mn);
            const float dl = d * (float)sc, ml = dmin * (float)mn;
            const uint8_t *q = qs + 32 * (j / 2);
            for (int l = 0; l < 32; l++)
                dst[32 * j + l] = dl * (float)((q[l] >> (4 * (j % 2))) & 15) - ml;
        }
    }
}

/* Q5_K, 176 bytes: fp16 d, fp16 dmin, scales[12], qh[32], qs[128].
 * Like Q4_K, plus a fifth bit (value 16): bit j of qh[l] for element 32j + l. */
static void dec_q5_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const blk_q5_k *b = (const blk_q5_k *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 256) {
        const float d = gg_rdf16(b->d), dmin = gg_rdf16(b->dmin);
        const uint8_t *scales = b->scales, *qh = b->qh, *qs = b->qs;
        for (int j = 0; j < 8; j++) {
            int sc, mn;
            kq_scale_min_k4(scales, j, &sc, &mn);
            const float dl = d * (float)sc, ml = dmin * (float)mn;
            const uint8_t *q = qs + 32 * (j / 2);
            for (int l = 0; l < 32; l++) {
                int v = ((q[l] >> (4 * (j % 2))) & 15) | ((qh[l] >> j) & 1) << 4;
                dst[32 * j + l] = dl * (float)v - ml;
            }
        }
    }
}

/* Q6_K, 210 bytes: ql[128], qh[64], int8 scales[16], fp16 d.
 * Each 128-element half h uses ql[64h ..] and qh[32h ..]. Its element
 * 128h + 32s + l (s 0..3, l 0..31) has low 4 bits from ql[64h + 32(s%2) + l]
 * (low nibble for s < 2, high for s >= 2), top 2 bits from bits 2s, 2s+1 of
 * qh[32h + l], and q = that 6-bit number - 32. Scale e/16 covers 16 elements. */
static void dec_q6_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const blk_q6_k *b = (const blk_q6_k *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 256) {
        const uint8_t *ql = b->ql, *qh = b->qh;
        const int8_t *scales = (const int8_t *)b->scales;
        const float d = gg_rdf16(b->d);
        for (int e = 0; e < 256; e++) {
            int h = e / 128, s = e % 128 / 32, l = e % 32;
            int lo = (ql[64 * h + 32 * (s % 2) + l] >> (4 * (s / 2))) & 15;
            int hi = (qh[32 * h + l] >> (2 * s)) & 3;
            dst[e] = d * (float)scales[e / 16] * (float)((lo | hi << 4) - 32);
        }
    }
}

/* Q8_K, 292 bytes: float32 d, int8 qs[256], int16 bsums[16]. bsums (sums of
 * 16 codes) only serve dot products. value = d * q. */
static void dec_q8_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const blk_q8_k *b = (const blk_q8_k *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 256) {
        const float d = gg_rdf32(b->d);
        for (int e = 0; e < 256; e++)
            dst[e] = d * (float)(int8_t)b->qs[e];
    }
}

const gg_kernel_entry gg_kernels_kquants[] = {
    {GG_T_Q2_K, GG_ISA_SCALAR, dec_q2_k}, {GG_T_Q3_K, GG_ISA_SCALAR, dec_q3_k},
    {GG_T_Q4_K, GG_ISA_SCALAR, dec_q4_k}, {GG_T_Q5_K, GG_ISA_SCALAR, dec_q5_k},
    {GG_T_Q6_K, GG_ISA_SCALAR, dec_q6_k}, {GG_T_Q8_K, GG_ISA_SCALAR, dec_q8_k},
    {0},
};
