/* float.c - the plain number types: every "block" is one stored number,
 * little-endian, and decodes to one float32.
 *
 *   F32   4 bytes, IEEE single: copied unchanged (NaN payloads included).
 *   F16   2 bytes, IEEE half: exact; a NaN becomes a quiet NaN (as F16C does).
 *   BF16  2 bytes, the top half of an IEEE single: exact.
 *   F64   8 bytes, IEEE double: converted the C way (round to nearest even,
 *         too large -> infinity, too small -> float subnormal or zero).
 *   I8, I16, I32, I64   two's complement integers: converted the C way
 *         (exact up to 2^24, then round to nearest even).
 *
 * ggml has no to_float for F32, F64 and the integer types; the reference
 * data defines them as above. */
#include <string.h>

#include "gguffs/decode.h"
#include "families.h"
#include "gguffs/fp16.h"

static void dec_f32(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    for (int64_t i = 0; i < n; i++)
        dst[i] = gg_rdf32(src + 4 * i);
}

static void dec_f16(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    for (int64_t i = 0; i < n; i++)
        dst[i] = gg_rdf16(src + 2 * i);
}

static void dec_bf16(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    for (int64_t i = 0; i < n; i++)
        dst[i] = gg_bf16_to_f32(gg_rd16(src + 2 * i));
}

static void dec_f64(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    for (int64_t i = 0; i < n; i++) {
        uint64_t bits = gg_rd64(src + 8 * i);
        double v;
        memcpy(&v, &bits, sizeof v);
        dst[i] = (float)v;
    }
}

static void dec_i8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    for (int64_t i = 0; i < n; i++)
        dst[i] = (float)(int8_t)src[i];
}

static void dec_i16(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    for (int64_t i = 0; i < n; i++)
        dst[i] = (float)(int16_t)gg_rd16(src + 2 * i);
}

static void dec_i32(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    for (int64_t i = 0; i < n; i++)
        dst[i] = (float)(int32_t)gg_rd32(src + 4 * i);
}

static void dec_i64(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    for (int64_t i = 0; i < n; i++)
        dst[i] = (float)(int64_t)gg_rd64(src + 8 * i);
}

const gg_kernel_entry gg_kernels_float[] = {
    {GG_T_F32, GG_ISA_SCALAR, dec_f32},   {GG_T_F16, GG_ISA_SCALAR, dec_f16},
    {GG_T_BF16, GG_ISA_SCALAR, dec_bf16}, {GG_T_F64, GG_ISA_SCALAR, dec_f64},
    {GG_T_I8, GG_ISA_SCALAR, dec_i8},     {GG_T_I16, GG_ISA_SCALAR, dec_i16},
    {GG_T_I32, GG_ISA_SCALAR, dec_i32},   {GG_T_I64, GG_ISA_SCALAR, dec_i64},
    {0},
};
