/* quantize_ternary.c - float32 to the ternary types TQ1_0 and TQ2_0, as
 * ggml's quantize_row_tq*_0_ref: d = max |x| (ggml's running max, where a
 * NaN takes the max's place and the next value replaces it), each value
 * rounded to -1, 0 or +1 of d and stored as 0, 1, 2.
 *
 * ggml rounds with lroundf and adds 1 in int. On ordinary input that is
 * 0..2; after a NaN restarted the max a value can be past d (a code of 3
 * or more), and NaN and infinities come out of glibc's lroundf as LONG_MIN,
 * whose +1 keeps 1 in an int. The codes are then packed in uint8_t
 * arithmetic, wrapping as ggml's do. */
#include <math.h>

#include "blocks.h"
#include "quantize_kernels.h"

/* lroundf(v) + 1 as ggml stores it in an int. */
static inline int trit(float v) { return (int)(uint32_t)(uint64_t)(gg_q_lroundf(v) + 1); }

/* A block's d = max |x| into d (float16), and 1 / d to code with. */
static float ternary_scale(const float *restrict x, uint8_t *restrict d)
{
    float amax = 0.0f;
    for (int j = 0; j < 256; j++)
        amax = amax > fabsf(x[j]) ? amax : fabsf(x[j]);
    gg_q_put_f16(d, amax);
    return amax != 0.0f ? 1.0f / amax : 0.0f;
}

/* n trits (x[0], x[stride], ...) as one base-3 number, first most
 * significant, in a byte's arithmetic. */
static inline uint8_t base3(const float *x, int n, int stride, float id)
{
    uint8_t q = 0;
    for (int k = 0; k < n; k++)
        q = (uint8_t)(q * 3 + trit(x[k * stride] * id));
    return q;
}

/* q / 243 as a fraction of 256, rounded up, so that digit k comes back as
 * the top trit of (q * 3^k) * 3 >> 8. */
static inline uint8_t fixed_point(uint8_t q) { return (uint8_t)(((uint16_t)q * 256 + 242) / 243); }

/* TQ1_0, 256 values in 54 bytes:
 *
 *     byte 0                                   32                  48     52      54
 *          | qs[32]: x[m + 32n], n = 0..4 (160) | qs[16]: x[160 + m + 16n] | qh[4] | d f16 |
 *
 * five trits a qs byte, four a qh byte (x[240 + j + 4n], shifted up one
 * trit), each byte q -> ceil(q * 256 / 243); value = (t - 1) * d. */
void gg_quantize_tq1_0(const float *restrict x, uint8_t *restrict y, int64_t nblocks)
{
    for (int64_t i = 0; i < nblocks; i++, x += 256) {
        blk_tq1_0 *b = (blk_tq1_0 *)(void *)(y + i * sizeof(blk_tq1_0));
        const float id = ternary_scale(x, b->d);
        for (int m = 0; m < 32; m++)
            b->qs[m] = fixed_point(base3(x + m, 5, 32, id));
        for (int m = 0; m < 16; m++)
            b->qs[32 + m] = fixed_point(base3(x + 160 + m, 5, 16, id));
        for (int j = 0; j < 4; j++)
            b->qh[j] = fixed_point((uint8_t)(base3(x + 240 + j, 4, 4, id) * 3));
    }
}

/* TQ2_0, 256 values in 66 bytes:
 *
 *     byte 0                                              64      66
 *          | qs[64]: 2 bits each, bits 2n of qs[32h + m] = x[128h + m + 32n] | d f16 |
 *
 * value = (t - 1) * d, t 0..2 (only its low 2 bits are kept). */
void gg_quantize_tq2_0(const float *restrict x, uint8_t *restrict y, int64_t nblocks)
{
    for (int64_t i = 0; i < nblocks; i++, x += 256) {
        blk_tq2_0 *b = (blk_tq2_0 *)(void *)(y + i * sizeof(blk_tq2_0));
        const float id = ternary_scale(x, b->d);
        for (int h = 0; h < 2; h++)
            for (int m = 0; m < 32; m++) {
                uint8_t q = 0;
                for (int n = 0; n < 4; n++)
                    q = (uint8_t)(q + ((trit(x[128 * h + m + 32 * n] * id) & 3) << 2 * n));
                b->qs[32 * h + m] = q;
            }
    }
}
