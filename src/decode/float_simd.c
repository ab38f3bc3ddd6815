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

/* The other types: 16 values a step with the vector conversion, the rest
 * one by one with the scalar one (the C conversion, round to nearest even;
 * the vector ones round the same way). */
static inline float one_bf16(const uint8_t *p) { return gg_bf16_to_f32(gg_rd16(p)); }
static inline float one_f64(const uint8_t *p)
{
    double v;
    memcpy(&v, p, sizeof v);
    return (float)v;
}
static inline float one_i8(const uint8_t *p) { return (float)(int8_t)*p; }
static inline float one_i16(const uint8_t *p) { return (float)(int16_t)gg_rd16(p); }
static inline float one_i32(const uint8_t *p) { return (float)(int32_t)gg_rd32(p); }
static inline gv_f vec_i8(const uint8_t *p) { return gv_fs8x2(p, p + 8); }

#define PLAIN(name, size, vec, one)                                                                   \
    static void name(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride) \
    {                                                                                                 \
        int64_t i = 0;                                                                                \
        for (; i + 16 <= n; i += 16)                                                                  \
            gv_fstore(dst + i, vec(src + (size) * i));                                                \
        for (; i < n; i++)                                                                            \
            dst[i] = one(src + (size) * i);                                                           \
    }
PLAIN(dec_bf16, 2, gv_fbf16, one_bf16)
PLAIN(dec_f64, 8, gv_ff64, one_f64)
PLAIN(dec_i8, 1, vec_i8, one_i8)
PLAIN(dec_i16, 2, gv_fi16, one_i16)
PLAIN(dec_i32, 4, gv_fi32, one_i32)
#ifdef GV_HAS_FI64
static inline float one_i64(const uint8_t *p) { return (float)(int64_t)gg_rd64(p); }
PLAIN(dec_i64, 8, gv_fi64, one_i64)
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
