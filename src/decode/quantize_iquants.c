/* quantize_iquants.c - float32 to the non-linear types IQ4_NL and IQ4_XS,
 * as ggml_quantize_chunk makes them without an importance matrix
 * (quantize_iq4_nl / quantize_iq4_xs, both over quantize_row_iq4_nl_impl
 * with 7 tries each side; note that ggml's quantize_row_iq4_nl_ref tries
 * none, and is not what llama-quantize runs).
 *
 * The codes index 16 fixed levels (kvalues_iq4nl, -127 .. 113); a block of
 * 32 gets the scale whose x^2-weighted least-squares fit is best among 15
 * tried around max / -127. */
#include <math.h>

#include "blocks.h"
#include "quantize_kernels.h"
#include "tables.h"

#define GROUP_EPS 1e-15f /* ggml's GROUP_MAX_EPS */
#define NTRY 7

/* The level of the 16 nearest to x (ggml's best_index_int8: the lower one
 * on a tie; a NaN goes to the top). */
static int nearest_level(const int8_t *v, float x)
{
    if (x <= v[0])
        return 0;
    if (x >= v[15])
        return 15;
    int lo = 0, hi = 15;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (x < v[mid])
            hi = mid;
        else
            lo = mid;
    }
    return x - v[hi - 1] < v[hi] - x ? hi - 1 : hi;
}

/* The best scale of one block of 32 (0 for a block of zeros): the x^2
 * weighted fit of the levels x * id picks, for id = -127 / max and
 * (t - 127) / max, t = -7..7, the one that fits best kept. */
static float iq4_block_scale(const float *x)
{
    const int8_t *v = gg_kvalues_iq4nl;
    float amax = 0.0f, max = 0.0f;
    for (int j = 0; j < 32; j++)
        if (fabsf(x[j]) > amax)
            amax = fabsf(x[j]), max = x[j];
    if (amax < GROUP_EPS)
        return 0.0f;
    float id = 1.0f / (-max / (float)v[0]), sumqx = 0.0f, sumq2 = 0.0f;
    for (int j = 0; j < 32; j++) {
        float q = (float)v[nearest_level(v, id * x[j])], w = x[j] * x[j];
        sumqx += w * q * x[j];
        sumq2 += w * q * q;
    }
    float d = sumq2 > 0.0f ? sumqx / sumq2 : 0.0f, best = d * sumqx;
    for (int t = -NTRY; t <= NTRY; t++) {
        id = (float)(t + v[0]) / max;
        sumqx = sumq2 = 0.0f;
        for (int j = 0; j < 32; j++) {
            float q = (float)v[nearest_level(v, id * x[j])], w = x[j] * x[j];
            sumqx += w * q * x[j];
            sumq2 += w * q * q;
        }
        if (sumq2 > 0.0f && sumqx * sumqx > best * sumq2)
            d = sumqx / sumq2, best = d * sumqx;
    }
    return d;
}

/* 32 codes, two to a byte: byte j holds value j (lo nibble) and j + 16. */
static void iq4_codes(const float *x, float id, uint8_t *qs)
{
    for (int j = 0; j < 16; j++)
        qs[j] = (uint8_t)(nearest_level(gg_kvalues_iq4nl, id * x[j]) |
                          nearest_level(gg_kvalues_iq4nl, id * x[j + 16]) << 4);
}

/* IQ4_NL, 32 values in 18 bytes:
 *
 *     byte 0      2                                   18
 *          | d f16 | qs[16]: lo nibble = q[j], hi = q[j+16] |
 *
 * value = d * kvalues_iq4nl[q]; the codes are picked with the unrounded d. */
void gg_quantize_iq4_nl(const float *x, uint8_t *y, int64_t nblocks)
{
    for (int64_t i = 0; i < nblocks; i++, x += 32) {
        blk_iq4_nl *b = (blk_iq4_nl *)(void *)(y + i * sizeof(blk_iq4_nl));
        const float d = iq4_block_scale(x);
        gg_q_put_f16(b->d, d);
        iq4_codes(x, d != 0.0f ? 1.0f / d : 0.0f, b->qs);
    }
}

/* IQ4_XS, 256 values in 136 bytes, 8 blocks of 32:
 *
 *     byte 0      2            4                8                        136
 *          | d f16 | scales_h u16 | scales_l[4] | qs[128]: 16 bytes a block (as IQ4_NL) |
 *
 * value = d * (s - 32) * kvalues_iq4nl[q]; block b's 6-bit s has its low
 * nibble in scales_l[b/2] (hi nibble for odd b), its top 2 bits at bit 2b
 * of scales_h. d = -(scale of largest |scale|) / 32; as in ggml the codes
 * are picked against d * (s - 32) with d before its float16 rounding. */
void gg_quantize_iq4_xs(const float *x, uint8_t *y, int64_t nblocks)
{
    for (int64_t i = 0; i < nblocks; i++, x += 256) {
        blk_iq4_xs *b = (blk_iq4_xs *)(void *)(y + i * sizeof(blk_iq4_xs));
        float scales[8], amax = 0.0f, max_scale = 0.0f;
        for (int k = 0; k < 8; k++) {
            scales[k] = iq4_block_scale(x + 32 * k);
            if (fabsf(scales[k]) > amax)
                amax = fabsf(scales[k]), max_scale = scales[k];
        }
        const float d = -max_scale / 32;
        gg_q_put_f16(b->d, d);
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        uint16_t sh = 0;
        memset(b->scales_l, 0, sizeof b->scales_l);
        for (int k = 0; k < 8; k++) {
            int l = gg_q_nearest(id * scales[k]);
            l = l < -32 ? -32 : l > 31 ? 31 : l;
            const float dl = d * (float)l;
            iq4_codes(x + 32 * k, dl != 0.0f ? 1.0f / dl : 0.0f, b->qs + 16 * k);
            l += 32;
            b->scales_l[k / 2] |= (uint8_t)((l & 15) << 4 * (k % 2));
            sh |= (uint16_t)((l >> 4) << 2 * k);
        }
        b->scales_h[0] = (uint8_t)sh;
        b->scales_h[1] = (uint8_t)(sh >> 8);
    }
}
