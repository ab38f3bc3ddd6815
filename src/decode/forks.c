/* forks.c - scalar kernels of ternary types that exist only in forks of
 * llama.cpp: STQ1_0 (llama.cpp PR #22836, Tencent files; two element orders),
 * PTQ1_0 and PQ2_0 (PrismML fork). Formats: tests/data/forks/README.md.
 *
 * In all of them a value is (float)level * d, one float multiplication, with
 * level in {-1, 0, +1} (PQ2_0 also +2) and d the block's fp16 scale. Signed
 * zeros follow from that product (0 * negative d = -0.0, -1 * +0.0 = -0.0). */
#include <stdint.h>

#include "blocks.h"
#include "gguffs/decode.h"
#include "families.h"
#include "gguffs/fp16.h"
#include "forks.h"
#include "tables.h"

/* STQ1_0, 256 values in 42 bytes: qs[32] (64 four-bit slots, group g in
 * byte g/2, low nibble for even g), sign[8] (group g: bit g%8 of byte g/8),
 * fp16 d at byte 40. Group g's pattern byte is gg_stq1_codebook[16 * sign +
 * slot]; its 2-bit lane p (bits 2p, 2p+1) is 0, 1, 2 for level -1, 0, +1.
 * Lane p of group g is value pos(g, p) of the block. */
static inline void stq1_0_block(const blk_stq1_0 *b, float *y, int stride16)
{
    float d = gg_rdf16(b->d);
    for (int g = 0; g < 64; g++) {
        int slot = (b->qs[g >> 1] >> (4 * (g & 1))) & 15;
        int sign = (b->sign[g >> 3] >> (g & 7)) & 1;
        uint8_t pat = gg_stq1_codebook[16 * sign + slot];
        for (int p = 0; p < 4; p++) {
            int level = ((pat >> (2 * p)) & 3) - 1;
            /* stride-16: within each 64-value chunk the 16 groups are the
             * columns and the 4 lanes are 16 apart; consecutive: 4g + p. */
            int pos = stride16 ? 64 * (g >> 4) + (g & 15) + 16 * p : 4 * g + p;
            y[pos] = (float)level * d;
        }
    }
}

static void stq1_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                   int64_t dst_stride)
{
    const blk_stq1_0 *b = (const blk_stq1_0 *)src;
    for (int64_t i = 0; i < nblocks; i++)
        stq1_0_block(b + i, dst + 256 * i, 1);
}

static void stq1_0_consecutive(const uint8_t *meta, const uint8_t *src, float *dst,
                               int64_t nblocks, int64_t dst_stride)
{
    const blk_stq1_0 *b = (const blk_stq1_0 *)src;
    for (int64_t i = 0; i < nblocks; i++)
        stq1_0_block(b + i, dst + 256 * i, 0);
}

/* PTQ1_0, 128 values in 28 bytes: qs[24], qh[2], fp16 d at byte 26. Each
 * byte holds base-3 digits (decoded by gg_ptq_value in forks.h). Positions:
 * digit n of qs[m], m < 16: value 16n + m; digit n of qs[16 + m], m < 8:
 * value 80 + 8n + m; digit n (< 4) of qh[h]: value 120 + 2n + h. */
static void ptq1_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                   int64_t dst_stride)
{
    const blk_ptq1_0 *b = (const blk_ptq1_0 *)src;
    for (int64_t i = 0; i < nblocks; i++, b++) {
        float d = gg_rdf16(b->d), *y = dst + 128 * i;
        for (int n = 0; n < 5; n++) {
            for (int m = 0; m < 16; m++)
                y[16 * n + m] = gg_ptq_value(b->qs[m], n, d);
            for (int m = 0; m < 8; m++)
                y[80 + 8 * n + m] = gg_ptq_value(b->qs[16 + m], n, d);
        }
        for (int n = 0; n < 4; n++)
            for (int h = 0; h < 2; h++)
                y[120 + 2 * n + h] = gg_ptq_value(b->qh[h], n, d);
    }
}

/* PQ2_0, 128 values in 34 bytes: fp16 d at byte 0, then qs[32]; value j has
 * the 2-bit code (qs[j/4] >> 2(j%4)) & 3 and level code - 1 (-1, 0, +1, +2). */
static void pq2_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                  int64_t dst_stride)
{
    const blk_pq2_0 *b = (const blk_pq2_0 *)src;
    for (int64_t i = 0; i < nblocks; i++, b++) {
        const uint8_t *qs = b->qs;
        float d = gg_rdf16(b->d), *y = dst + 128 * i;
        for (int j = 0; j < 128; j++)
            y[j] = (float)(((qs[j >> 2] >> (2 * (j & 3))) & 3) - 1) * d;
    }
}

const gg_kernel_entry gg_kernels_forks[] = {
    {GG_T_STQ1_0, GG_ISA_SCALAR, stq1_0},
    {GG_T_STQ1_0_CONSECUTIVE, GG_ISA_SCALAR, stq1_0_consecutive},
    {GG_T_PTQ1_0, GG_ISA_SCALAR, ptq1_0},
    {GG_T_PQ2_0, GG_ISA_SCALAR, pq2_0},
    {0},
};
