/* ik_bn.c - the ik_llama.cpp fork's ternary (BitNet) types IQ1_BN and IQ2_BN
 * (scalar).
 *
 * Both store values -1, 0, +1 (IQ2_BN's 2-bit codes also allow +2) in blocks
 * of 64, after a row scale (meta: IQ1_BN float16, IQ2_BN float32). The
 * fork's CPU to_float leaves the scale out; its CUDA dequantizer multiplies by
 * it, and so do we: value = scale * (float)t, one rounding. */
#include "blocks.h"
#include "gguffs/decode.h"
#include "families.h"
#include "gguffs/fp16.h"
#include "tables.h"

/* A trit from a base-3 code byte c and a multiplier m (81, 27, 9, 3, 1): the
 * product's low byte v, read as a fraction of 256, times 3, rounded down. */
static inline int ibn_trit(unsigned c, unsigned m)
{
    unsigned v = (c * m) & 0xff;
    return (int)((v + (v >> 1)) >> 7) - 1;
}

/* IQ1_BN, 64 values in 13 bytes: ql[12], extra at 12. Values 16q..16q+14
 * (q = 0..3) are five trits from each of ql[3q], ql[3q+1], ql[3q+2] (by the
 * multipliers iq1bn_k_mult in turn); value 16q+15 is the trit of extra with
 * multiplier iq1bn_k_mult[q]. */
static void dec_iq1_bn(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const float d = gg_rdf16(meta);
    const blk_iq1_bn *b = (const blk_iq1_bn *)src;
    for (int64_t i = 0; i < n; i++, b++) {
        for (int q = 0; q < 4; q++) {
            for (int k = 0; k < 3; k++)
                for (int j = 0; j < 5; j++)
                    *dst++ = d * (float)ibn_trit(b->ql[3 * q + k], gg_iq1bn_k_mult[j]);
            *dst++ = d * (float)ibn_trit(b->extra, gg_iq1bn_k_mult[q]);
        }
    }
}

/* IQ2_BN, 64 values in 16 bytes qs: value 16k + j is bits 2k..2k+1 of qs[j]
 * minus 1. */
static void dec_iq2_bn(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const float d = gg_rdf32(meta);
    const blk_iq2_bn *b = (const blk_iq2_bn *)src;
    for (int64_t k = 0; k < n; k++, b++, dst += 64)
        for (int i = 0; i < 64; i++)
            dst[i] = d * (float)(((b->qs[i % 16] >> 2 * (i / 16)) & 3) - 1);
}

const gg_kernel_entry gg_kernels_ik_bn[] = {
    {GG_T_IQ1_BN, GG_ISA_SCALAR, dec_iq1_bn},
    {GG_T_IQ2_BN, GG_ISA_SCALAR, dec_iq2_bn},
    {0},
};
