/* ik_misc.c - two simple types the ik_llama.cpp fork reads: I2_S (Microsoft
 * BitNet's 2-bit ternary codes) and Q8_KV (int8 with a row scale). Scalar. */
#include "blocks.h"
#include "gguffs/decode.h"
#include "families.h"
#include "gguffs/fp16.h"

/* I2_S: 128 values in 32 bytes; value 32g + j (g = 0..3) is bits 6-2g..7-2g
 * of byte j, code c meaning c - 1. One float32 scale for the whole tensor,
 * stored after all codes (meta points at it): value = scale * (float)(c-1). */
static void dec_i2_s(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const float d = gg_rdf32(meta);
    const blk_i2_s *b = (const blk_i2_s *)src;
    for (int64_t i = 0; i < n; i++, b++, dst += 128)
        for (int g = 0; g < 4; g++)
            for (int j = 0; j < 32; j++)
                dst[32 * g + j] = d * (float)(((b->qs[j] >> (6 - 2 * g)) & 3) - 1);
}

/* Q8_KV: each row starts with 8 bytes (float32 scale d, then the int32 sum of
 * the row's codes, unused here), then one signed byte per value; blocks of 32
 * values. value = d * (float)code. */
static void dec_q8_kv(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const float d = gg_rdf32(meta);
    for (int64_t i = 0; i < 32 * n; i++)
        dst[i] = d * (float)(int8_t)src[i];
}

const gg_kernel_entry gg_kernels_ik_misc[] = {
    {GG_T_I2_S, GG_ISA_SCALAR, dec_i2_s},
    {GG_T_Q8_KV, GG_ISA_SCALAR, dec_q8_kv},
    {0},
};
