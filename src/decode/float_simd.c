/* float_simd.c - the SIMD kernels of float.c, written once over the
 * primitives of simd.h; the same bytes as the scalar kernels for any input.
 * Sixteen values a step (two in the F16 loop, whose conversions pipeline
 * better in pairs), then the rest one by one with the scalar conversions. */
#include "simd.h"

#if GV_BUILT
#include <string.h>

#include "gguffs/fp16.h"

static void dec_f32(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    memcpy(dst, src, (size_t)n * 4);
}

/* The hardware conversion is exact (subnormals too) and quiets NaNs like
 * gg_fp16_to_f32. */
static void dec_f16(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        gv_f a = gv_fhalf(src + 2 * i), b = gv_fhalf(src + 2 * i + 32);
        gv_fstore(dst + i, a);
        gv_fstore(dst + i + 16, b);
    }
    for (; i + 16 <= n; i += 16)
        gv_fstore(dst + i, gv_fhalf(src + 2 * i));
    for (; i < n; i++)
        dst[i] = gv_h2f(gg_rd16(src + 2 * i));
}

static void dec_bf16(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        gv_fstore(dst + i, gv_fbf16(src + 2 * i));
    for (; i < n; i++)
        dst[i] = gg_bf16_to_f32(gg_rd16(src + 2 * i));
}

/* Rounds to nearest even like the C cast (the default rounding mode). */
static void dec_f64(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        gv_fstore(dst + i, gv_ff64(src + 8 * i));
    for (; i < n; i++) {
        double v;
        memcpy(&v, src + 8 * i, sizeof v);
        dst[i] = (float)v;
    }
}

static void dec_i8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        gv_fstore(dst + i, gv_fs8x2(src + i, src + i + 8));
    for (; i < n; i++)
        dst[i] = (float)(int8_t)src[i];
}

static void dec_i16(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        gv_fstore(dst + i, gv_fi16(src + 2 * i));
    for (; i < n; i++)
        dst[i] = (float)(int16_t)gg_rd16(src + 2 * i);
}

static void dec_i32(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        gv_fstore(dst + i, gv_fi32(src + 4 * i));
    for (; i < n; i++)
        dst[i] = (float)(int32_t)gg_rd32(src + 4 * i);
}

#ifdef GV_HAS_FI64
static void dec_i64(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        gv_fstore(dst + i, gv_fi64(src + 8 * i));
    for (; i < n; i++)
        dst[i] = (float)(int64_t)gg_rd64(src + 8 * i);
}
#endif

GV_KERNELS(float) = {
    {GG_T_F32, GV_ISA, dec_f32}, {GG_T_F16, GV_ISA, dec_f16}, {GG_T_BF16, GV_ISA, dec_bf16},
    {GG_T_F64, GV_ISA, dec_f64}, {GG_T_I8, GV_ISA, dec_i8},   {GG_T_I16, GV_ISA, dec_i16},
    {GG_T_I32, GV_ISA, dec_i32},
#ifdef GV_HAS_FI64
    {GG_T_I64, GV_ISA, dec_i64},
#endif
    /* Elsewhere I64 stays scalar: no one-rounding int64 -> float vector
     * conversion, and an exact emulation (sticky bit, then through double)
     * measured slower than the scalar kernel's one cvtsi2ss per element. */
    {0},
};
#else
GV_KERNELS(float) = {{0}};
#endif
