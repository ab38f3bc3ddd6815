/* simd_neon.h - the SIMD primitives (see simd.h) on aarch64 Advanced SIMD:
 * 16 float or int32 lanes are four q registers, 16 bytes one, 32 bytes two.
 * Only separate vmulq / vaddq / vsubq are used (never vmla / vfma), and the
 * project builds with -ffp-contract=off, so no product is fused. */
#ifndef GGUFFS_DECODE_SIMD_NEON_H
#define GGUFFS_DECODE_SIMD_NEON_H

#include <arm_neon.h>
#include <stdint.h>
#include <string.h>

#define GV_INLINE static inline __attribute__((always_inline))

typedef uint8x16_t gv_b16;
typedef struct { uint8x16_t v[2]; } gv_b32;
typedef struct { int32x4_t v[4]; } gv_i;
typedef struct { float32x4_t v[4]; } gv_f;
typedef uint8x16x4_t gv_ftab; /* the floats' bytes, for tbl */

/* ---- bytes ---------------------------------------------------------------- */

GV_INLINE gv_b16 gv_load16(const void *p) { return vld1q_u8((const uint8_t *)p); }
GV_INLINE gv_b16 gv_load8(const void *p) { return vcombine_u8(vld1_u8((const uint8_t *)p), vdup_n_u8(0)); }
GV_INLINE gv_b32 gv_load32(const void *p)
{
    return (gv_b32){{vld1q_u8((const uint8_t *)p), vld1q_u8((const uint8_t *)p + 16)}};
}
GV_INLINE gv_b16 gv_splat16(int v) { return vdupq_n_u8((uint8_t)v); }
GV_INLINE gv_b32 gv_splat32(int v) { return (gv_b32){{vdupq_n_u8((uint8_t)v), vdupq_n_u8((uint8_t)v)}}; }
GV_INLINE gv_b16 gv_lo16(gv_b32 x) { return x.v[0]; }
GV_INLINE gv_b16 gv_hi16(gv_b32 x) { return x.v[1]; }
GV_INLINE gv_b32 gv_dup32(gv_b16 x) { return (gv_b32){{x, x}}; }

GV_INLINE gv_b16 gv_and16(gv_b16 a, gv_b16 b) { return vandq_u8(a, b); }
GV_INLINE gv_b16 gv_or16(gv_b16 a, gv_b16 b) { return vorrq_u8(a, b); }
GV_INLINE gv_b16 gv_xor16(gv_b16 a, gv_b16 b) { return veorq_u8(a, b); }
GV_INLINE gv_b16 gv_add16(gv_b16 a, gv_b16 b) { return vaddq_u8(a, b); }
GV_INLINE gv_b16 gv_sub16(gv_b16 a, gv_b16 b) { return vsubq_u8(a, b); }
#define GV_B32(name, op)                                                                      \
    GV_INLINE gv_b32 gv_##name##32(gv_b32 a, gv_b32 b)                                      \
    {                                                                                         \
        return (gv_b32){{op(a.v[0], b.v[0]), op(a.v[1], b.v[1])}};                           \
    }
GV_B32(and, vandq_u8)
GV_B32(or, vorrq_u8)
GV_B32(sub, vsubq_u8)
#undef GV_B32

/* Shifts by a register (vshlq with a negative count shifts right), so the
 * count need not be a compile-time constant. */
GV_INLINE gv_b16 gv_shr16(gv_b16 x, int n, int m) { return vandq_u8(vshlq_u8(x, vdupq_n_s8((int8_t)-n)), vdupq_n_u8((uint8_t)m)); }
GV_INLINE gv_b16 gv_shl16(gv_b16 x, int n, int m) { return vandq_u8(vshlq_u8(x, vdupq_n_s8((int8_t)n)), vdupq_n_u8((uint8_t)m)); }
GV_INLINE gv_b32 gv_shr32(gv_b32 x, int n, int m) { return (gv_b32){{gv_shr16(x.v[0], n, m), gv_shr16(x.v[1], n, m)}}; }
GV_INLINE gv_b32 gv_shl32(gv_b32 x, int n, int m) { return (gv_b32){{gv_shl16(x.v[0], n, m), gv_shl16(x.v[1], n, m)}}; }
GV_INLINE gv_b16 gv_has16(gv_b16 x, gv_b16 m) { return vceqq_u8(vandq_u8(x, m), m); }
GV_INLINE gv_b32 gv_has32(gv_b32 x, gv_b32 m) { return (gv_b32){{gv_has16(x.v[0], m.v[0]), gv_has16(x.v[1], m.v[1])}}; }
GV_INLINE gv_b16 gv_sel16(gv_b16 mask, gv_b16 a, gv_b16 b) { return vbslq_u8(mask, b, a); }
GV_INLINE gv_b16 gv_lut16b(gv_b16 t, gv_b16 idx) { return vqtbl1q_u8(t, idx); }
GV_INLINE gv_b32 gv_lut32x2(gv_b32 t, gv_b32 idx)
{
    return (gv_b32){{vqtbl1q_u8(t.v[0], idx.v[0]), vqtbl1q_u8(t.v[1], idx.v[1])}};
}
GV_INLINE gv_b16 gv_zip8lo(gv_b16 a, gv_b16 b) { return vzip1q_u8(a, b); }
GV_INLINE gv_b16 gv_zip8hi(gv_b16 a, gv_b16 b) { return vzip2q_u8(a, b); }
#define GV_ZIP(bits, t, r)                                                                              \
    GV_INLINE gv_b16 gv_zip##bits##lo(gv_b16 a, gv_b16 b)                                              \
    {                                                                                                   \
        return vreinterpretq_u8_##t(vzip1q_##t(vreinterpretq_##t##_u8(a), vreinterpretq_##t##_u8(b))); \
    }                                                                                                   \
    GV_INLINE gv_b16 gv_zip##bits##hi(gv_b16 a, gv_b16 b)                                              \
    {                                                                                                   \
        return vreinterpretq_u8_##t(vzip2q_##t(vreinterpretq_##t##_u8(a), vreinterpretq_##t##_u8(b))); \
    }
GV_ZIP(16, u16, )
GV_ZIP(32, u32, )
GV_ZIP(64, u64, )
#undef GV_ZIP

GV_INLINE gv_b16 gv_bits16(uint32_t m)
{
    static const uint8_t bit[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
    uint8x16_t b = vcombine_u8(vdup_n_u8((uint8_t)m), vdup_n_u8((uint8_t)(m >> 8)));
    return vtstq_u8(b, vld1q_u8(bit));
}

GV_INLINE gv_b16 gv_addbits16(gv_b16 x, uint32_t m, int h, int v)
{
    return vaddq_u8(x, vandq_u8(gv_bits16(m >> 16 * h), vdupq_n_u8((uint8_t)v)));
}

GV_INLINE gv_b16 gv_splatw(uint32_t w) { return vreinterpretq_u8_u32(vdupq_n_u32(w)); }

#define gv_loadn16(p, n) vcombine_u8(vld1_u8((const uint8_t *)(p)), vget_low_u8(vextq_u8(gv_load8((const uint8_t *)(p) + (n) - 8), vdupq_n_u8(0), 16 - (n))))

GV_INLINE gv_b32 gv_andnot32(gv_b32 a, gv_b32 b)
{
    return (gv_b32){{vbicq_u8(b.v[0], a.v[0]), vbicq_u8(b.v[1], a.v[1])}};
}
GV_INLINE gv_b16 gv_setw4(uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    const uint32_t w[4] = {a, b, c, d};
    return vreinterpretq_u8_u32(vld1q_u32(w));
}
GV_INLINE gv_b16 gv_setq2(uint64_t a, uint64_t b) { return vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(a), vcreate_u64(b))); }

GV_INLINE gv_b16 gv_load4x4(const void *p0, const void *p1, const void *p2, const void *p3)
{
    uint32_t a, b, c, d;
    memcpy(&a, p0, 4), memcpy(&b, p1, 4), memcpy(&c, p2, 4), memcpy(&d, p3, 4);
    return vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(a | (uint64_t)b << 32), vcreate_u64(c | (uint64_t)d << 32)));
}

GV_INLINE gv_b16 gv_w16shr(gv_b16 x, int n)
{
    return vreinterpretq_u8_u16(vshlq_u16(vreinterpretq_u16_u8(x), vdupq_n_s16((int16_t)-n)));
}

typedef uint8x16x4_t gv_wtab;
GV_INLINE gv_wtab gv_wtab32(const void *p) { return vld1q_u8_x4((const uint8_t *)p); }
GV_INLINE gv_b32 gv_lut32w(gv_wtab t, gv_b16 idx)
{
    uint8x16_t i2 = vshlq_n_u8(idx, 1), i3 = vaddq_u8(i2, vdupq_n_u8(1));
    return (gv_b32){{vqtbl4q_u8(t, vzip1q_u8(i2, i3)), vqtbl4q_u8(t, vzip2q_u8(i2, i3))}};
}

GV_INLINE uint32_t gv_wlowbits(gv_b16 x)
{
    static const uint16_t w[8] = {1, 2, 4, 8, 16, 32, 64, 128};
    uint16x8_t b = vandq_u16(vreinterpretq_u16_u8(x), vdupq_n_u16(1));
    return vaddvq_u16(vmulq_u16(b, vld1q_u16(w)));
}

#define GV_ZIPX2(name)                                                                 \
    GV_INLINE gv_b32 name##_x2(gv_b32 a, gv_b32 b)                                    \
    {                                                                                  \
        return (gv_b32){{name(a.v[0], b.v[0]), name(a.v[1], b.v[1])}};                \
    }
GV_ZIPX2(gv_zip32lo)
GV_ZIPX2(gv_zip32hi)
GV_ZIPX2(gv_zip64lo)
GV_ZIPX2(gv_zip64hi)
#undef GV_ZIPX2

/* ---- int32 lanes ---------------------------------------------------------- */

GV_INLINE gv_i gv_iu8(gv_b16 b)
{
    uint16x8_t lo = vmovl_u8(vget_low_u8(b)), hi = vmovl_high_u8(b);
    return (gv_i){{vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(lo))), vreinterpretq_s32_u32(vmovl_high_u16(lo)),
                   vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(hi))), vreinterpretq_s32_u32(vmovl_high_u16(hi))}};
}
GV_INLINE gv_i gv_is8(gv_b16 b)
{
    int8x16_t s = vreinterpretq_s8_u8(b);
    int16x8_t lo = vmovl_s8(vget_low_s8(s)), hi = vmovl_high_s8(s);
    return (gv_i){{vmovl_s16(vget_low_s16(lo)), vmovl_high_s16(lo), vmovl_s16(vget_low_s16(hi)), vmovl_high_s16(hi)}};
}
GV_INLINE gv_i gv_iu16(const void *p)
{
    uint16x8_t a = vreinterpretq_u16_u8(vld1q_u8((const uint8_t *)p));
    uint16x8_t b = vreinterpretq_u16_u8(vld1q_u8((const uint8_t *)p + 16));
    return (gv_i){{vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(a))), vreinterpretq_s32_u32(vmovl_high_u16(a)),
                   vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(b))), vreinterpretq_s32_u32(vmovl_high_u16(b))}};
}
GV_INLINE gv_i gv_iload(const void *p)
{
    const int32_t *q = (const int32_t *)p;
    return (gv_i){{vld1q_s32(q), vld1q_s32(q + 4), vld1q_s32(q + 8), vld1q_s32(q + 12)}};
}
GV_INLINE gv_i gv_isplat(int32_t v)
{
    int32x4_t x = vdupq_n_s32(v);
    return (gv_i){{x, x, x, x}};
}
GV_INLINE gv_i gv_isplat2(int32_t a, int32_t b)
{
    int32x4_t x = vdupq_n_s32(a), y = vdupq_n_s32(b);
    return (gv_i){{x, x, y, y}};
}
/* An operation on the four q registers of 16 lanes (gv_i or gv_f). */
#define GV_LANES4(type, name, op)                                                                   \
    GV_INLINE type name(type a, type b)                                                             \
    {                                                                                               \
        return (type){{op(a.v[0], b.v[0]), op(a.v[1], b.v[1]), op(a.v[2], b.v[2]), op(a.v[3], b.v[3])}}; \
    }
GV_LANES4(gv_i, gv_iand, vandq_s32)
GV_LANES4(gv_i, gv_ior, vorrq_s32)
GV_LANES4(gv_i, gv_ixor, veorq_s32)
GV_LANES4(gv_i, gv_iadd, vaddq_s32)
GV_LANES4(gv_i, gv_isub, vsubq_s32)
GV_LANES4(gv_i, gv_imul, vmulq_s32)
GV_INLINE int32x4_t gv_srl4(int32x4_t a, int32x4_t n) /* logical shift right by lanes of n */
{
    return vreinterpretq_s32_u32(vshlq_u32(vreinterpretq_u32_s32(a), vnegq_s32(n)));
}
GV_INLINE gv_i gv_ishl(gv_i a, int n)
{
    int32x4_t c = vdupq_n_s32(n);
    return (gv_i){{vshlq_s32(a.v[0], c), vshlq_s32(a.v[1], c), vshlq_s32(a.v[2], c), vshlq_s32(a.v[3], c)}};
}
GV_INLINE gv_i gv_ishr(gv_i a, int n)
{
    int32x4_t c = vdupq_n_s32(n);
    return (gv_i){{gv_srl4(a.v[0], c), gv_srl4(a.v[1], c), gv_srl4(a.v[2], c), gv_srl4(a.v[3], c)}};
}
GV_INLINE gv_i gv_ishrv(gv_i a, gv_i n)
{
    return (gv_i){{gv_srl4(a.v[0], n.v[0]), gv_srl4(a.v[1], n.v[1]), gv_srl4(a.v[2], n.v[2]), gv_srl4(a.v[3], n.v[3])}};
}
GV_INLINE gv_i gv_idigit3(gv_i b, gv_i p)
{
    gv_i r;
    for (int k = 0; k < 4; k++) {
        uint32x4_t q = vandq_u32(vreinterpretq_u32_s32(vmulq_s32(b.v[k], p.v[k])), vdupq_n_u32(0xff));
        r.v[k] = vreinterpretq_s32_u32(vshrq_n_u32(vmulq_n_u32(q, 3), 8));
    }
    return r;
}
typedef uint8x16_t gv_mul32[2];
GV_INLINE void gv_digit3_mul(gv_mul32 m, gv_b32 p) { m[0] = p.v[0], m[1] = p.v[1]; }
GV_INLINE gv_i gv_digit3_16(uint8x16_t c, uint8x16_t p)
{
    uint16x8_t lo = vshrq_n_u16(vmulq_n_u16(vandq_u16(vmull_u8(vget_low_u8(c), vget_low_u8(p)), vdupq_n_u16(0xff)), 3), 8);
    uint16x8_t hi = vshrq_n_u16(vmulq_n_u16(vandq_u16(vmull_high_u8(c, p), vdupq_n_u16(0xff)), 3), 8);
    return (gv_i){{vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(lo))), vreinterpretq_s32_u32(vmovl_high_u16(lo)),
                   vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(hi))), vreinterpretq_s32_u32(vmovl_high_u16(hi))}};
}
GV_INLINE void gv_idigit3x32(gv_b16 t, gv_b32 sel, const gv_mul32 m, gv_i *lo, gv_i *hi)
{
    *lo = gv_digit3_16(vqtbl1q_u8(t, sel.v[0]), m[0]);
    *hi = gv_digit3_16(vqtbl1q_u8(t, sel.v[1]), m[1]);
}
GV_INLINE gv_i gv_ibytesum(gv_i x)
{
    gv_i r;
    for (int k = 0; k < 4; k++)
        r.v[k] = vreinterpretq_s32_u32(vpaddlq_u16(vpaddlq_u8(vreinterpretq_u8_s32(x.v[k]))));
    return r;
}

GV_INLINE gv_i gv_iload8(const void *p)
{
    const int32_t *q = (const int32_t *)p;
    return (gv_i){{vld1q_s32(q), vld1q_s32(q + 4), vdupq_n_s32(0), vdupq_n_s32(0)}};
}
GV_INLINE gv_i gv_iu16b(gv_b16 lo, gv_b16 hi)
{
    uint16x8_t a = vreinterpretq_u16_u8(lo), b = vreinterpretq_u16_u8(hi);
    return (gv_i){{vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(a))), vreinterpretq_s32_u32(vmovl_high_u16(a)),
                   vreinterpretq_s32_u32(vmovl_u16(vget_low_u16(b))), vreinterpretq_s32_u32(vmovl_high_u16(b))}};
}

GV_INLINE gv_i gv_ispread2(gv_i v, int p)
{
    int32x4_t s = v.v[p / 2];
    int32x4_t a = p % 2 ? vdupq_laneq_s32(s, 2) : vdupq_laneq_s32(s, 0);
    int32x4_t b = p % 2 ? vdupq_laneq_s32(s, 3) : vdupq_laneq_s32(s, 1);
    return (gv_i){{a, a, b, b}};
}
GV_INLINE gv_i gv_ispread4(gv_i v, int q)
{
    int32x4_t s = v.v[q];
    return (gv_i){{vdupq_laneq_s32(s, 0), vdupq_laneq_s32(s, 1), vdupq_laneq_s32(s, 2), vdupq_laneq_s32(s, 3)}};
}

/* ---- float lanes ---------------------------------------------------------- */

GV_INLINE float gv_h2f(uint16_t h) { return vgetq_lane_f32(vcvt_f32_f16(vreinterpret_f16_u16(vdup_n_u16(h))), 0); }
GV_INLINE gv_f gv_fsplat2(float a, float b)
{
    float32x4_t x = vdupq_n_f32(a), y = vdupq_n_f32(b);
    return (gv_f){{x, x, y, y}};
}
GV_INLINE gv_f gv_fsplat(float x)
{
    float32x4_t v = vdupq_n_f32(x);
    return (gv_f){{v, v, v, v}};
}
GV_INLINE gv_f gv_fload(const float *p) { return (gv_f){{vld1q_f32(p), vld1q_f32(p + 4), vld1q_f32(p + 8), vld1q_f32(p + 12)}}; }
GV_INLINE void gv_fstore(float *p, gv_f x)
{
    vst1q_f32(p, x.v[0]);
    vst1q_f32(p + 4, x.v[1]);
    vst1q_f32(p + 8, x.v[2]);
    vst1q_f32(p + 12, x.v[3]);
}
GV_INLINE gv_f gv_fcvt(gv_i x)
{
    return (gv_f){{vcvtq_f32_s32(x.v[0]), vcvtq_f32_s32(x.v[1]), vcvtq_f32_s32(x.v[2]), vcvtq_f32_s32(x.v[3])}};
}
GV_INLINE gv_f gv_fs8(gv_b16 b) { return gv_fcvt(gv_is8(b)); }
GV_INLINE gv_f gv_fu8(gv_b16 b) { return gv_fcvt(gv_iu8(b)); }
GV_INLINE gv_f gv_fu8x2(const void *p0, const void *p1)
{
    return gv_fu8(vcombine_u8(vld1_u8((const uint8_t *)p0), vld1_u8((const uint8_t *)p1)));
}
GV_INLINE gv_f gv_fs8x2(const void *p0, const void *p1)
{
    return gv_fs8(vcombine_u8(vld1_u8((const uint8_t *)p0), vld1_u8((const uint8_t *)p1)));
}
/* vcvt from half is exact and quiets NaNs (FPCR.DN is off on Linux), like F16C. */
GV_INLINE gv_f gv_fhalf(const void *p)
{
    const uint16_t *h = (const uint16_t *)p;
    gv_f r;
    for (int k = 0; k < 4; k++)
        r.v[k] = vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16(h + 4 * k)));
    return r;
}
GV_LANES4(gv_f, gv_fmul, vmulq_f32)
GV_LANES4(gv_f, gv_fadd, vaddq_f32)
GV_LANES4(gv_f, gv_fsub, vsubq_f32)
/* vfmaq is fused: only where the reference fuses (IQ6_K). */
GV_INLINE gv_f gv_ffma(gv_f a, gv_f b, gv_f c)
{
    return (gv_f){{vfmaq_f32(c.v[0], a.v[0], b.v[0]), vfmaq_f32(c.v[1], a.v[1], b.v[1]), vfmaq_f32(c.v[2], a.v[2], b.v[2]),
                   vfmaq_f32(c.v[3], a.v[3], b.v[3])}};
}
GV_INLINE gv_i gv_fbits(gv_f a)
{
    return (gv_i){{vreinterpretq_s32_f32(a.v[0]), vreinterpretq_s32_f32(a.v[1]), vreinterpretq_s32_f32(a.v[2]),
                   vreinterpretq_s32_f32(a.v[3])}};
}
GV_INLINE gv_f gv_ffrombits(gv_i a)
{
    return (gv_f){{vreinterpretq_f32_s32(a.v[0]), vreinterpretq_f32_s32(a.v[1]), vreinterpretq_f32_s32(a.v[2]),
                   vreinterpretq_f32_s32(a.v[3])}};
}
/* Lane j of the 16 as an all-ones mask where bit j of m is set. */
GV_INLINE uint32x4_t gv_bitmask4(uint32_t m, int k)
{
    static const uint32_t bit[4] = {1, 2, 4, 8};
    return vtstq_u32(vdupq_n_u32(m >> (4 * k)), vld1q_u32(bit));
}
GV_INLINE gv_f gv_fnegbits(gv_f a, uint32_t m, int h)
{
    gv_f r;
    m >>= 16 * h;
    for (int k = 0; k < 4; k++) {
        uint32x4_t s = vandq_u32(gv_bitmask4(m, k), vdupq_n_u32(0x80000000u));
        r.v[k] = vreinterpretq_f32_u32(veorq_u32(vreinterpretq_u32_f32(a.v[k]), s));
    }
    return r;
}
GV_INLINE gv_f gv_fselbits(uint32_t m, gv_f a, gv_f b)
{
    gv_f r;
    for (int k = 0; k < 4; k++)
        r.v[k] = vbslq_f32(gv_bitmask4(m, k), b.v[k], a.v[k]);
    return r;
}

GV_INLINE gv_f gv_fbf16(const void *p) { return gv_ffrombits(gv_ishl(gv_iu16(p), 16)); }
GV_INLINE gv_f gv_fi16(const void *p)
{
    const int16_t *q = (const int16_t *)p;
    int16x8_t a = vld1q_s16(q), b = vld1q_s16(q + 8);
    return (gv_f){{vcvtq_f32_s32(vmovl_s16(vget_low_s16(a))), vcvtq_f32_s32(vmovl_high_s16(a)),
                   vcvtq_f32_s32(vmovl_s16(vget_low_s16(b))), vcvtq_f32_s32(vmovl_high_s16(b))}};
}
GV_INLINE gv_f gv_fi32(const void *p) { return gv_fcvt(gv_iload(p)); }
/* fcvtn rounds to nearest even (the default FPCR mode), like the C cast. */
GV_INLINE gv_f gv_ff64(const void *p)
{
    const double *q = (const double *)p;
    gv_f r;
    for (int k = 0; k < 4; k++)
        r.v[k] = vcvt_high_f32_f64(vcvt_f32_f64(vld1q_f64(q + 4 * k)), vld1q_f64(q + 4 * k + 2));
    return r;
}

GV_INLINE gv_f gv_fbytesum(gv_i x, int c) { return gv_fsub(gv_fcvt(gv_ibytesum(x)), gv_fsplat((float)c)); }

GV_INLINE void gv_halves4(float *d, const void *p) { vst1q_f32(d, vcvt_f32_f16(vreinterpret_f16_u16(vld1_u16((const uint16_t *)p)))); }

GV_INLINE gv_f gv_fs8pair(gv_b16 a, gv_b16 b, int h)
{
    return gv_fs8(h ? vcombine_u8(vget_high_u8(a), vget_high_u8(b)) : vcombine_u8(vget_low_u8(a), vget_low_u8(b)));
}

typedef uint8x16_t gv_vtab;
typedef uint8x16x2_t gv_vtab32;
GV_INLINE gv_vtab gv_vtab16(gv_b16 values) { return values; }
GV_INLINE gv_vtab32 gv_vtab32of(gv_b16 lo, gv_b16 hi)
{
    gv_vtab32 t = {{lo, hi}};
    return t;
}
GV_INLINE gv_f gv_vlook(gv_vtab t, gv_b16 idx) { return gv_fs8(vqtbl1q_u8(t, idx)); }
GV_INLINE gv_f gv_vlook32(gv_vtab32 t, gv_b16 idx) { return gv_fs8(vqtbl2q_u8(t, idx)); }

typedef struct { gv_vtab32 a, b; } gv_vpair32;
GV_INLINE gv_vpair32 gv_vpair32of(gv_vtab32 a, gv_vtab32 b)
{
    gv_vpair32 p = {a, b};
    return p;
}
GV_INLINE void gv_vlook32x2(gv_vpair32 p, gv_b32 idx, gv_f out[2])
{
    out[0] = gv_vlook32(p.a, idx.v[0]), out[1] = gv_vlook32(p.b, idx.v[1]);
}

/* ---- float tables --------------------------------------------------------- */

GV_INLINE gv_ftab gv_ftab8f(gv_f x)
{
    uint8x16x4_t r = {{vreinterpretq_u8_f32(x.v[0]), vreinterpretq_u8_f32(x.v[1]), vreinterpretq_u8_f32(x.v[0]),
                       vreinterpretq_u8_f32(x.v[1])}};
    return r;
}

/* Lane index i becomes the byte indices 4i .. 4i+3 of the table's bytes. */
GV_INLINE uint8x16_t gv_tabidx(int32x4_t idx, uint32_t mask)
{
    uint32x4_t i = vshlq_n_u32(vandq_u32(vreinterpretq_u32_s32(idx), vdupq_n_u32(mask)), 2);
    return vreinterpretq_u8_u32(vaddq_u32(vmulq_n_u32(i, 0x01010101u), vdupq_n_u32(0x03020100u)));
}
GV_INLINE gv_f gv_lut8(gv_ftab t, gv_i idx)
{
    uint8x16x2_t t2 = {{t.val[0], t.val[1]}};
    gv_f r;
    for (int k = 0; k < 4; k++)
        r.v[k] = vreinterpretq_f32_u8(vqtbl2q_u8(t2, gv_tabidx(idx.v[k], 7)));
    return r;
}

#endif
