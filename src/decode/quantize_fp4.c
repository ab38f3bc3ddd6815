/* quantize_fp4.c - float32 to MXFP4, as ggml's quantize_row_mxfp4_ref.
 *
 * A block of 32 shares a power-of-two scale, stored as an E8M0 exponent e;
 * each value is the nearest of the 16 FP4 (E2M1) values times it. */
#include <math.h>

#include "blocks.h"
#include "quantize_kernels.h"
#include "tables.h"

/* The index of the FP4 value nearest x / d (kvalues_mxfp4, doubled E2M1:
 * 0 1 2 3 4 6 8 12, then -0 .. -12), the first of equals; 0 for a NaN. */
static int nearest_fp4(float x, float d)
{
    int best = 0;
    float best_err = fabsf((float)gg_kvalues_mxfp4[0] * d - x);
    for (int i = 1; i < 16; i++) {
        float err = fabsf((float)gg_kvalues_mxfp4[i] * d - x);
        if (err < best_err)
            best = i, best_err = err;
    }
    return best;
}

/* MXFP4, 32 values in 17 bytes:
 *
 *     byte 0   1                                       17
 *          | e | qs[16]: lo nibble = q[j], hi = q[j+16] |
 *
 * e = floor(log2(max |x|)) - 2 + 127 (so that the largest magnitude,
 * 12 * 2^(e-128), reaches max |x|), 0 for a block of zeros; ggml converts
 * that float to uint8_t as x86 does: an infinite max gives 0, a subnormal
 * one wraps (2^-149: -24 -> 232). value = kvalues_mxfp4[q] * 2^(e - 128). */
void gg_quantize_mxfp4(const float *restrict x, uint8_t *restrict y, int64_t nblocks)
{
    for (int64_t i = 0; i < nblocks; i++, x += 32) {
        blk_mxfp4 *b = (blk_mxfp4 *)(void *)(y + i * sizeof(blk_mxfp4));
        float amax = 0.0f;
        for (int j = 0; j < 32; j++)
            if (amax < fabsf(x[j]))
                amax = fabsf(x[j]);
        b->e = amax > 0.0f ? (uint8_t)gg_q_trunc(floorf(log2f(amax)) - 2 + 127) : 0;
        const float d = gg_bits_to_f32(gg_mxfp4_e8m0_half_scale_bits[b->e]);
        for (int j = 0; j < 16; j++)
            b->qs[j] = (uint8_t)(nearest_fp4(x[j], d) | nearest_fp4(x[j + 16], d) << 4);
    }
}
