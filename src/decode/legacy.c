/* legacy.c - the original ggml block types: 32 elements per block, one fp16
 * scale d (and for the _1 types an fp16 offset m) in front of the codes.
 *
 * The 4- and 5-bit types split a block in two halves: byte j of the 16 code
 * bytes holds element j in its low nibble and element j + 16 in its high
 * nibble. The 5-bit types add a 32-bit little-endian word qh whose bit i is
 * the fifth (value 16) bit of element i.
 *
 * Arithmetic, as ggml's dequantize_row_*: the integer code is converted to
 * float (exactly) and multiplied by d; the _1 types then add m:
 *   value = (float)code * d          Q4_0, Q5_0, Q8_0, Q8_1
 *   value = (float)code * d + m      Q4_1, Q5_1   (two roundings, never fused) */
#include "blocks.h"
#include "gguffs/decode.h"
#include "families.h"
#include "gguffs/fp16.h"

/* Q4_0, 18 bytes: d, qs[16]; code = nibble - 8 (-8..7). */
static void dec_q4_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const blk_q4_0 *b = (const blk_q4_0 *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 32) {
        const float d = gg_rdf16(b->d);
        const uint8_t *qs = b->qs;
        for (int j = 0; j < 16; j++) {
            dst[j] = (float)((qs[j] & 15) - 8) * d;
            dst[j + 16] = (float)((qs[j] >> 4) - 8) * d;
        }
    }
}

/* Q4_1, 20 bytes: d, m, qs[16]; code = nibble (0..15). */
static void dec_q4_1(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const blk_q4_1 *b = (const blk_q4_1 *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 32) {
        const float d = gg_rdf16(b->d), m = gg_rdf16(b->m);
        const uint8_t *qs = b->qs;
        for (int j = 0; j < 16; j++) {
            dst[j] = (float)(qs[j] & 15) * d + m;
            dst[j + 16] = (float)(qs[j] >> 4) * d + m;
        }
    }
}

/* Q5_0, 22 bytes: d, qh (4 bytes), qs[16]; code = (nibble | 16*bit) - 16. */
static void dec_q5_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const blk_q5_0 *b = (const blk_q5_0 *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 32) {
        const float d = gg_rdf16(b->d);
        const uint32_t qh = gg_rd32(b->qh);
        const uint8_t *qs = b->qs;
        for (int j = 0; j < 16; j++) {
            int lo = (qs[j] & 15) | (int)((qh >> j) & 1) << 4;
            int hi = (qs[j] >> 4) | (int)((qh >> (j + 16)) & 1) << 4;
            dst[j] = (float)(lo - 16) * d;
            dst[j + 16] = (float)(hi - 16) * d;
        }
    }
}

/* Q5_1, 24 bytes: d, m, qh (4 bytes), qs[16]; code = nibble | 16*bit (0..31). */
static void dec_q5_1(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const blk_q5_1 *b = (const blk_q5_1 *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 32) {
        const float d = gg_rdf16(b->d), m = gg_rdf16(b->m);
        const uint32_t qh = gg_rd32(b->qh);
        const uint8_t *qs = b->qs;
        for (int j = 0; j < 16; j++) {
            int lo = (qs[j] & 15) | (int)((qh >> j) & 1) << 4;
            int hi = (qs[j] >> 4) | (int)((qh >> (j + 16)) & 1) << 4;
            dst[j] = (float)lo * d + m;
            dst[j + 16] = (float)hi * d + m;
        }
    }
}

/* Q8_0, 34 bytes: d, int8 qs[32]. */
static void dec_q8_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const blk_q8_0 *b = (const blk_q8_0 *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 32) {
        const float d = gg_rdf16(b->d);
        for (int j = 0; j < 32; j++)
            dst[j] = (float)(int8_t)b->qs[j] * d;
    }
}

/* Q8_1, 36 bytes: d, s, int8 qs[32]. s (d times the sum of the codes) only
 * serves ggml's dot products. ggml has no dequantizer for Q8_1; we decode it
 * like Q8_0, value = code * d, ignoring s. */
static void dec_q8_1(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const blk_q8_1 *b = (const blk_q8_1 *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 32) {
        const float d = gg_rdf16(b->d);
        for (int j = 0; j < 32; j++)
            dst[j] = (float)(int8_t)b->qs[j] * d;
    }
}

const gg_kernel_entry gg_kernels_legacy[] = {
    {GG_T_Q4_0, GG_ISA_SCALAR, dec_q4_0}, {GG_T_Q4_1, GG_ISA_SCALAR, dec_q4_1},
    {GG_T_Q5_0, GG_ISA_SCALAR, dec_q5_0}, {GG_T_Q5_1, GG_ISA_SCALAR, dec_q5_1},
    {GG_T_Q8_0, GG_ISA_SCALAR, dec_q8_0}, {GG_T_Q8_1, GG_ISA_SCALAR, dec_q8_1},
    {0},
};
