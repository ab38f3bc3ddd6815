/* ternary.c - mainline ggml's ternary and 1-/2-bit types, portable C.
 *
 * The readable references; each evaluates the float operations of ggml's
 * dequantize_row_* for the type in the same order. fp16 fields are
 * little-endian and convert exactly.
 *
 *  TQ1_0  256 weights in 54 bytes: 48 bytes qs, 4 bytes qh, fp16 d (at 52).
 *         Each byte packs base-3 digits as a fixed-point fraction: the k-th
 *         digit (k = 0, 1, ...) of byte b is ((uint8_t)(b * 3^k) * 3) >> 8,
 *         a value 0..2 meaning -1, 0, +1. Weight order: qs bytes 0..31
 *         give 5 digits each, digit-major (digit 0 of bytes 0..31, then
 *         digit 1 of bytes 0..31, ...: 160 weights); qs bytes 32..47 the same
 *         way (80 weights); then the 4 qh bytes give 4 digits each, also
 *         digit-major (16 weights). value = (digit - 1) * d.
 *  TQ2_0  256 weights in 66 bytes: 64 bytes qs, fp16 d (at 64). Two halves of
 *         32 bytes; in each, bits 2l..2l+1 of byte m are weight 32l + m of
 *         that half's 128. value = (q - 1) * d, q = 0..3.
 *  Q1_0   128 weights in 18 bytes: fp16 d, then 16 bytes of sign bits, bit j%8
 *         of byte j/8 for weight j: 1 gives +d, 0 gives -d.
 *  Q2_0   64 weights in 18 bytes: fp16 d, then 16 bytes, 2 bits per weight,
 *         bits 2(j%4)..2(j%4)+1 of byte j/4 for weight j:
 *         value = (q - 1) * d, so codes 0..3 mean -1, 0, +1, +2.
 */
#include "blocks.h"
#include "gguffs/decode.h"
#include "families.h"
#include "gguffs/fp16.h"
#include "tables.h"

/* The k-th base-3 digit of a TQ1_0 byte, 0..2. */
static inline int tq1_digit(uint8_t b, int k)
{
    uint8_t q = (uint8_t)(b * gg_tq1_0_pow3[k]);
    return (q * 3) >> 8;
}

static void dec_tq1_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_tq1_0 *b = (const blk_tq1_0 *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        const float d = gg_rdf16(b->d);
        for (int k = 0; k < 5; k++)
            for (int m = 0; m < 32; m++)
                *y++ = (float)(tq1_digit(b->qs[m], k) - 1) * d;
        for (int k = 0; k < 5; k++)
            for (int m = 32; m < 48; m++)
                *y++ = (float)(tq1_digit(b->qs[m], k) - 1) * d;
        for (int k = 0; k < 4; k++)
            for (int m = 0; m < 4; m++)
                *y++ = (float)(tq1_digit(b->qh[m], k) - 1) * d;
    }
}

static void dec_tq2_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_tq2_0 *b = (const blk_tq2_0 *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        const float d = gg_rdf16(b->d);
        for (int h = 0; h < 64; h += 32)
            for (int l = 0; l < 4; l++)
                for (int m = 0; m < 32; m++)
                    *y++ = (float)(((b->qs[h + m] >> (2 * l)) & 3) - 1) * d;
    }
}

static void dec_q1_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_q1_0 *b = (const blk_q1_0 *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        const float d = gg_rdf16(b->d), neg_d = -d;
        for (int j = 0; j < 128; j++)
            *y++ = (b->qs[j / 8] >> (j % 8)) & 1 ? d : neg_d;
    }
}

static void dec_q2_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_q2_0 *b = (const blk_q2_0 *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        const float d = gg_rdf16(b->d);
        for (int j = 0; j < 64; j++)
            *y++ = (float)(((b->qs[j / 4] >> (2 * (j % 4))) & 3) - 1) * d;
    }
}

const gg_kernel_entry gg_kernels_ternary[] = {
    {GG_T_TQ1_0, GG_ISA_SCALAR, dec_tq1_0},
    {GG_T_TQ2_0, GG_ISA_SCALAR, dec_tq2_0},
    {GG_T_Q1_0, GG_ISA_SCALAR, dec_q1_0},
    {GG_T_Q2_0, GG_ISA_SCALAR, dec_q2_0},
    {0},
};
