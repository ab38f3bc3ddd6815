/* fp4.c - mainline ggml's 4-bit float types, portable C.
 *
 * Both store E2M1 codes: 1 sign bit, 2 exponent bits, 1 mantissa bit. ggml
 * maps a code through kvalues_fp4, which holds TWICE the E2M1 value as an
 * int8 (0, 1, 2, 3, 4, 6, 8, 12 and their negatives), and compensates with
 * a scale that includes a factor 1/2. The exact float32 bits of that scale
 * for each of the 256 scale bytes are tables (tables.h), taken from ggml's
 * own dequantizers. value = (float)kvalues_fp4[code] * scale.
 *
 *  MXFP4  32 weights in 17 bytes: one E8M0 scale byte (a power of two; ggml
 *         reads 255 as 2^127, not NaN, so large codes can overflow to
 *         infinity), then 16 bytes: byte j holds weight j in its low nibble
 *         and weight j+16 in its high nibble.
 *  NVFP4  64 weights in 36 bytes: four UE4M3 scale bytes, one per 16 weights
 *         (ggml ignores the top bit and reads 0x7F as zero), then 32 bytes:
 *         8 per 16 weights, byte j of sub-block s holding weight 16s+j in its
 *         low nibble and weight 16s+j+8 in its high nibble.
 */
#include "blocks.h"
#include "gguffs/decode.h"
#include "families.h"
#include "gguffs/fp16.h"
#include "tables.h"

static void dec_mxfp4(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_mxfp4 *b = (const blk_mxfp4 *)src;
    for (int64_t i = 0; i < nb; i++, b++, y += 32) {
        const float d = gg_bits_to_f32(gg_mxfp4_e8m0_half_scale_bits[b->e]);
        for (int j = 0; j < 16; j++) {
            y[j] = (float)gg_kvalues_fp4[b->qs[j] & 0xf] * d;
            y[j + 16] = (float)gg_kvalues_fp4[b->qs[j] >> 4] * d;
        }
    }
}

static void dec_nvfp4(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_nvfp4 *b = (const blk_nvfp4 *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        for (int s = 0; s < 4; s++, y += 16) {
            const float d = gg_bits_to_f32(gg_nvfp4_ue4m3_scale_bits[b->d[s]]);
            const uint8_t *qs = b->qs + 8 * s;
            for (int j = 0; j < 8; j++) {
                y[j] = (float)gg_kvalues_fp4[qs[j] & 0xf] * d;
                y[j + 8] = (float)gg_kvalues_fp4[qs[j] >> 4] * d;
            }
        }
    }
}

const gg_kernel_entry gg_kernels_fp4[] = {
    {GG_T_MXFP4, GG_ISA_SCALAR, dec_mxfp4},
    {GG_T_NVFP4, GG_ISA_SCALAR, dec_nvfp4},
    {0},
};
