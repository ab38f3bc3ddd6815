/* quantize_legacy.c - float32 to the original ggml block types (Q4_0, Q4_1,
 * Q5_0, Q5_1) and the sign and 2-bit types Q1_0 and Q2_0, as ggml's
 * quantize_row_*_ref.
 *
 * One pass over the block finds its scale, a second one codes each value:
 * no search. Where ggml converts a float to a small integer with a C cast
 * (undefined outside the integer's range, x86's answer in practice) we
 * write gg_q_trunc and keep the low byte; where it compares, a NaN loses
 * every comparison, so it never becomes the block's maximum or minimum. */
#include <float.h>
#include <math.h>

#include "blocks.h"
#include "quantize_kernels.h"

/* A code of 0..top from v + offset, as ggml's MIN(top, (int8_t)(v + offset)):
 * the int8 is negative (and then stored as is) only after a wrap. */
static inline uint8_t code_min(float v, float offset, int top)
{
    int8_t c = (int8_t)gg_q_trunc(v + offset);
    return (uint8_t)(c < top ? c : top);
}

/* The block's extremes for the _1 types, NaN skipped (FLT_MAX and -FLT_MAX
 * when every value is NaN): ggml's `if (v < min) min = v` over the block,
 * which keeps the first of equals (+0 or -0). Four runs of 8 in parallel,
 * each keeping its first, then joined in order keeping the earlier run's:
 * the same answer with a quarter of the dependency chain. */
static inline void min_max(const float *restrict x, float *restrict min_out, float *restrict max_out)
{
    float min[4] = {FLT_MAX, FLT_MAX, FLT_MAX, FLT_MAX}, max[4] = {-FLT_MAX, -FLT_MAX, -FLT_MAX, -FLT_MAX};
    for (int j = 0; j < 8; j++)
        for (int r = 0; r < 4; r++) {
            if (x[8 * r + j] < min[r])
                min[r] = x[8 * r + j];
            if (x[8 * r + j] > max[r])
                max[r] = x[8 * r + j];
        }
    for (int r = 1; r < 4; r++) {
        if (min[r] < min[0])
            min[0] = min[r];
        if (max[r] > max[0])
            max[0] = max[r];
    }
    *min_out = min[0], *max_out = max[0];
}

/* Q4_0, 32 values in 18 bytes:
 *
 *     byte 0      2                           18
 *          | d f16 | qs[16]: lo nibble = q[j], hi nibble = q[j+16] |
 *
 * d = max / -8 (max: the value of largest |x|, so it codes as 0, i.e. -8),
 * q = min(15, x/d + 8.5 truncated); value = (q - 8) * d. */
void gg_quantize_q4_0(const float *restrict x, uint8_t *restrict y, int64_t nblocks)
{
    for (int64_t i = 0; i < nblocks; i++, x += 32) {
        blk_q4_0 *b = (blk_q4_0 *)(void *)(y + i * sizeof(blk_q4_0));
        float amax, max = gg_q_signed_max(x, 32, &amax);
        const float d = max / -8;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        gg_q_put_f16(b->d, d);
        for (int j = 0; j < 16; j++)
            b->qs[j] = (uint8_t)(code_min(x[j] * id, 8.5f, 15) | code_min(x[j + 16] * id, 8.5f, 15) << 4);
    }
}

/* Q4_1, 32 values in 20 bytes:
 *
 *     byte 0      2      4                    20
 *          | d f16 | m f16 | qs[16] (as Q4_0) |
 *
 * m = min, d = (max - min) / 15, q = min(15, (x - m)/d + 0.5 truncated);
 * value = q * d + m. */
void gg_quantize_q4_1(const float *restrict x, uint8_t *restrict y, int64_t nblocks)
{
    for (int64_t i = 0; i < nblocks; i++, x += 32) {
        blk_q4_1 *b = (blk_q4_1 *)(void *)(y + i * sizeof(blk_q4_1));
        float min, max;
        min_max(x, &min, &max);
        const float d = (max - min) / 15;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        gg_q_put_f16(b->d, d);
        gg_q_put_f16(b->m, min);
        for (int j = 0; j < 16; j++)
            b->qs[j] = (uint8_t)(code_min((x[j] - min) * id, 0.5f, 15) |
                                 code_min((x[j + 16] - min) * id, 0.5f, 15) << 4);
    }
}

/* Q5_0, 32 values in 22 bytes:
 *
 *     byte 0      2             6                    22
 *          | d f16 | qh: bit j = bit 4 of q[j] | qs[16]: low nibbles as Q4_0 |
 *
 * d = max / -16, q = min(31, x/d + 16.5 truncated); value = (q - 16) * d. */
void gg_quantize_q5_0(const float *restrict x, uint8_t *restrict y, int64_t nblocks)
{
    for (int64_t i = 0; i < nblocks; i++, x += 32) {
        blk_q5_0 *b = (blk_q5_0 *)(void *)(y + i * sizeof(blk_q5_0));
        float amax, max = gg_q_signed_max(x, 32, &amax);
        const float d = max / -16;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        gg_q_put_f16(b->d, d);
        uint32_t qh = 0;
        for (int j = 0; j < 16; j++) {
            uint8_t lo = code_min(x[j] * id, 16.5f, 31), hi = code_min(x[j + 16] * id, 16.5f, 31);
            b->qs[j] = (uint8_t)((lo & 15) | (hi & 15) << 4);
            qh |= (uint32_t)(lo >> 4 & 1) << j | (uint32_t)(hi >> 4 & 1) << (j + 16);
        }
        for (int k = 0; k < 4; k++)
            b->qh[k] = (uint8_t)(qh >> 8 * k);
    }
}

/* Q5_1, 32 values in 24 bytes:
 *
 *     byte 0      2      4      8              24
 *          | d f16 | m f16 | qh (as Q5_0) | qs[16] |
 *
 * m = min, d = (max - min) / 31, q = (x - m)/d + 0.5 truncated to a byte
 * (no clamp in ggml: only bits 0-4 are stored); value = q * d + m. */
void gg_quantize_q5_1(const float *restrict x, uint8_t *restrict y, int64_t nblocks)
{
    for (int64_t i = 0; i < nblocks; i++, x += 32) {
        blk_q5_1 *b = (blk_q5_1 *)(void *)(y + i * sizeof(blk_q5_1));
        float min, max;
        min_max(x, &min, &max);
        const float d = (max - min) / 31;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        gg_q_put_f16(b->d, d);
        gg_q_put_f16(b->m, min);
        uint32_t qh = 0;
        for (int j = 0; j < 16; j++) {
            uint8_t lo = (uint8_t)gg_q_trunc((x[j] - min) * id + 0.5f);
            uint8_t hi = (uint8_t)gg_q_trunc((x[j + 16] - min) * id + 0.5f);
            b->qs[j] = (uint8_t)((lo & 15) | (hi & 15) << 4);
            qh |= (uint32_t)(lo >> 4 & 1) << j | (uint32_t)(hi >> 4 & 1) << (j + 16);
        }
        for (int k = 0; k < 4; k++)
            b->qh[k] = (uint8_t)(qh >> 8 * k);
    }
}

/* Q1_0, 128 values in 18 bytes:
 *
 *     byte 0      2                                18
 *          | d f16 | qs[16]: bit j%8 of byte j/8 = (x[j] >= 0) |
 *
 * d = mean |x| (summed in order); value = +d or -d. */
void gg_quantize_q1_0(const float *restrict x, uint8_t *restrict y, int64_t nblocks)
{
    for (int64_t i = 0; i < nblocks; i++, x += 128) {
        blk_q1_0 *b = (blk_q1_0 *)(void *)(y + i * sizeof(blk_q1_0));
        float sum = 0.0f;
        for (int j = 0; j < 128; j++)
            sum += fabsf(x[j]);
        gg_q_put_f16(b->d, sum / 128);
        for (int j = 0; j < 16; j++) {
            uint8_t bits = 0;
            for (int k = 0; k < 8; k++)
                bits |= (uint8_t)((x[8 * j + k] >= 0.0f) << k);
            b->qs[j] = bits;
        }
    }
}

/* Q2_0, 64 values in 18 bytes:
 *
 *     byte 0      2                                         18
 *          | d f16 | qs[16]: bits 2(j%4)..+1 of byte j/4 = q[j] |
 *
 * d = max |x|, q = clamp(round(x/d) + 1, 0, 3) (roundf: half away from
 * zero); value = (q - 1) * d. */
void gg_quantize_q2_0(const float *restrict x, uint8_t *restrict y, int64_t nblocks)
{
    for (int64_t i = 0; i < nblocks; i++, x += 64) {
        blk_q2_0 *b = (blk_q2_0 *)(void *)(y + i * sizeof(blk_q2_0));
        float amax = 0.0f;
        for (int j = 0; j < 64; j++)
            if (fabsf(x[j]) > amax)
                amax = fabsf(x[j]);
        const float id = amax > 0.0f ? 1.0f / amax : 0.0f;
        gg_q_put_f16(b->d, amax);
        memset(b->qs, 0, sizeof b->qs);
        for (int j = 0; j < 64; j++) {
            int32_t t = gg_q_round_i32(x[j] * id);
            int q = t < -1 ? 0 : t > 2 ? 3 : t + 1; /* (INT32_MIN + 1 in ggml: no overflow) */
            b->qs[j / 4] |= (uint8_t)(q << 2 * (j % 4));
        }
    }
}
