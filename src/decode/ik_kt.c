/* ik_kt.c - the ik_llama.cpp fork's trellis types IQ1_KT, IQ2_KT, IQ3_KT,
 * IQ4_KT (scalar).
 *
 * A row starts with a float32 scale d (meta), then superblocks of 256
 * values in blocks of 32. The values are not stored: each group of 8 (IQ4_KT:
 * 4) values is generated from one integer index by a fixed pseudo-random
 * sequence (ikt_value in ik_kt.h), and scaled by the block's scale:
 *     x = index + 4096 (IQ4_KT: + 32768 more when the block asks for it)
 *     for each value: x = x * 0xCBAC1FED (mod 2^32);
 *                     v = sum of the four bytes of x & 0x3F3F3F3F, minus 126
 *                     value = scale * (float)v          (IQ3_KT: |v|)
 * v is an exact integer in -126..126, so there is one rounding per value.
 * The block scales are d times a small integer (one more rounding, first). */
#include "blocks.h"
#include "gguffs/decode.h"
#include "families.h"
#include "gguffs/fp16.h"
#include "ik_kt.h"
#include "tables.h"

/* One group of `len` values from the start state x (index + offset). */
static void ikt_group(uint32_t x, float scale, float *out, int len)
{
    for (int k = 0; k < len; k++) {
        x *= IKT_MULT;
        out[k] = scale * (float)ikt_value(x);
    }
}

/* IQ1_KT, 56 bytes: sh[8], ql[32] at 8, qh[16] at 40. Block b (8 values a
 * group, 4 groups): scale d * iq4k_values[sh[b] & 15]; group g has the
 * 13-bit index ql[4b+g] | (nibble b/4 of qh[4(b%4)+g]) << 8 | (bit 4+g of
 * sh[b]) << 12. */
static void dec_iq1_kt(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const float d = gg_rdf32(meta);
    const blk_iq1_kt *blk = (const blk_iq1_kt *)src;
    for (int64_t i = 0; i < n; i++, blk++) {
        const uint8_t *sh = blk->sh, *ql = blk->ql, *qh = blk->qh;
        for (int b = 0; b < 8; b++) {
            const float sl = d * (float)gg_iq4k_values[sh[b] & 15];
            for (int g = 0; g < 4; g++, dst += 8) {
                uint32_t idx = ql[4 * b + g] | ((qh[4 * (b % 4) + g] >> 4 * (b / 4)) & 15) << 8 |
                               ((sh[b] >> (4 + g)) & 1u) << 12;
                ikt_group(idx + 4096, sl, dst, 8);
            }
        }
    }
}

/* IQ2_KT, 68 bytes: scales[4], then 32 little-endian 16-bit indices at 4.
 * Index k makes values 8k..8k+7 (block k/4). Block b's scale is d times
 * iq4k_values[nibble]: the low nibble of scales[b] for b < 4, the high
 * nibble of scales[b-4] for b >= 4. */
static void dec_iq2_kt(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const float d = gg_rdf32(meta);
    const blk_iq2_kt *blk = (const blk_iq2_kt *)src;
    for (int64_t i = 0; i < n; i++, blk++) {
        /* Unrolled whole (-O3: 1 000 instructions), these loops ran 2x slower. */
#pragma GCC unroll 1
        for (int b = 0; b < 8; b++) {
            const float sl = d * (float)gg_iq4k_values[(blk->scales[b % 4] >> 4 * (b / 4)) & 15];
#pragma GCC unroll 1
            for (int g = 0; g < 4; g++, dst += 8)
                ikt_group(gg_rd16(blk->ql + 2 * (4 * b + g)) + 4096u, sl, dst, 8);
        }
    }
}

/* IQ3_KT, 100 bytes: scales[4], 32 16-bit indices at 4, qh[32] at 68. As
 * IQ2_KT, but the block scale is d times the nibble itself, the generator
 * gives |v|, and value i (0..255) is negated when bit i/32 of qh[i%32] is
 * set. */
static void dec_iq3_kt(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const float d = gg_rdf32(meta);
    const blk_iq3_kt *blk = (const blk_iq3_kt *)src;
    for (int64_t i = 0; i < n; i++, blk++, dst += 256) {
        const uint8_t *qh = blk->qh;
        for (int k = 0; k < 32; k++) {
            const int b = k / 4;
            const float sl = d * (float)((blk->scales[b % 4] >> 4 * (b / 4)) & 15);
            uint32_t x = gg_rd16(blk->ql + 2 * k) + 4096u;
            for (int j = 0; j < 8; j++) {
                x *= IKT_MULT;
                int v = ikt_value(x);
                float y = sl * (float)(v < 0 ? -v : v);
                int e = 8 * k + j;
                dst[e] = (qh[e % 32] >> b) & 1 ? -y : y;
            }
        }
    }
}

/* IQ4_KT, 128 bytes: w[8] (32-bit words), ql[64] at 32, qh[32] at 96.
 * Block b has 8 groups of 4 values. Word w[b]: bit 0 adds 32768 to the
 * offset; bits 1..7 minus 64 times d is the block scale; bits 8+3g..10+3g
 * are bits 12..14 of group g's index. With n = 8b + g, bits 0..7 of the
 * index are ql[n], bits 8..11 nibble n/32 of qh[n%32]. */
static void dec_iq4_kt(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const float d = gg_rdf32(meta);
    const blk_iq4_kt *blk = (const blk_iq4_kt *)src;
    for (int64_t i = 0; i < n; i++, blk++) {
        const uint8_t *ql = blk->ql, *qh = blk->qh;
        for (int b = 0; b < 8; b++) {
            const uint32_t w = gg_rd32(blk->w + 4 * b);
            const uint32_t offset = w & 1 ? 4096 + 32768 : 4096;
            const float sl = d * (float)((int)((w & 0xff) >> 1) - 64);
            for (int g = 0; g < 8; g++, dst += 4) {
                int n8 = 8 * b + g;
                uint32_t idx = ql[n8] | ((qh[n8 % 32] >> 4 * (n8 / 32)) & 15u) << 8 |
                               ((w >> (8 + 3 * g)) & 7) << 12;
                ikt_group(idx + offset, sl, dst, 4);
            }
        }
    }
}

const gg_kernel_entry gg_kernels_ik_kt[] = {
    {GG_T_IQ1_KT, GG_ISA_SCALAR, dec_iq1_kt},
    {GG_T_IQ2_KT, GG_ISA_SCALAR, dec_iq2_kt},
    {GG_T_IQ3_KT, GG_ISA_SCALAR, dec_iq3_kt},
    {GG_T_IQ4_KT, GG_ISA_SCALAR, dec_iq4_kt},
    {0},
};
