/* simd_avx2.h - the SIMD primitives (see simd.h) on AVX2 + F16C: 16 float
 * or int32 lanes are two ymm registers; the byte primitives shared with
 * AVX-512 are in simd_x86.h. */
#ifndef GGUFFS_DECODE_SIMD_AVX2_H
#define GGUFFS_DECODE_SIMD_AVX2_H

#include "simd_x86.h"

typedef struct { __m256i v[2]; } gv_i;
typedef struct { __m256 v[2]; } gv_f;
typedef struct { __m256 v[2]; } gv_ftab;

/* ---- bytes ---------------------------------------------------------------- */

/* Byte j = 0xff where bit j of m (16 bits) is set, else 0. */
GV_INLINE gv_b16 gv_bits16(uint32_t m)
{
    const __m128i sel = _mm_set_epi64x(0x0101010101010101ll, 0);
    const __m128i bit = _mm_set1_epi64x((long long)0x8040201008040201ull);
    __m128i b = _mm_shuffle_epi8(_mm_cvtsi32_si128((int)m), sel);
    return _mm_cmpeq_epi8(_mm_and_si128(b, bit), bit);
}

/* x + v in bytes j where bit 16h + j of m is set (h = 0, 1). */
GV_INLINE gv_b16 gv_addbits16(gv_b16 x, uint32_t m, int h, int v)
{
    const __m128i sel = h ? _mm_set_epi64x(0x0303030303030303ll, 0x0202020202020202ll)
                          : _mm_set_epi64x(0x0101010101010101ll, 0);
    const __m128i bit = _mm_set1_epi64x((long long)0x8040201008040201ull);
    __m128i b = _mm_shuffle_epi8(_mm_cvtsi32_si128((int)m), sel);
    return _mm_add_epi8(x, _mm_and_si128(_mm_cmpeq_epi8(_mm_and_si128(b, bit), bit), _mm_set1_epi8((char)v)));
}

/* n bytes (8 <= n <= 16, a constant) at p, zeros above; reads no byte past p + n. */
#define gv_loadn16(p, n) _mm_unpacklo_epi64(gv_load8(p), _mm_srli_si128(gv_load8((const uint8_t *)(p) + (n) - 8), 16 - (n)))

/* A table of 32 16-bit entries (64 bytes at p), and 16 of its entries
 * picked by idx (0..31) as 32 bytes (entry j at bytes 2j, 2j+1). */
typedef struct { __m256i lo, hi; } gv_wtab; /* first bytes, second bytes: entries 0..15 | 16..31 per half */
GV_INLINE gv_wtab gv_wtab32(const void *p)
{
    const __m128i even = _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    const uint8_t *b = (const uint8_t *)p;
    __m128i q[4];
    for (int k = 0; k < 4; k++)
        q[k] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(b + 16 * k)), even);
    return (gv_wtab){_mm256_set_m128i(_mm_unpackhi_epi64(q[0], q[1]), _mm_unpacklo_epi64(q[0], q[1])),
                     _mm256_set_m128i(_mm_unpackhi_epi64(q[2], q[3]), _mm_unpacklo_epi64(q[2], q[3]))};
}
GV_INLINE gv_b32 gv_lut32w(gv_wtab t, gv_b16 idx)
{
    __m256i i = _mm256_broadcastsi128_si256(idx);
    __m256i v = _mm256_blendv_epi8(_mm256_shuffle_epi8(t.lo, i), _mm256_shuffle_epi8(t.hi, i), _mm256_slli_epi16(i, 3));
    __m128i first = _mm256_castsi256_si128(v), second = _mm256_extracti128_si256(v, 1);
    return _mm256_set_m128i(_mm_unpackhi_epi8(first, second), _mm_unpacklo_epi8(first, second));
}

/* Bit k = bit 0 of 16-bit unit k (8 bits). */
GV_INLINE uint32_t gv_wlowbits(gv_b16 x) { return _pext_u32((uint32_t)_mm_movemask_epi8(_mm_slli_epi16(x, 7)), 0x5555); }

/* ---- int32 lanes ---------------------------------------------------------- */

GV_INLINE gv_i gv_iu8(gv_b16 b) /* 16 unsigned bytes */
{
    return (gv_i){{_mm256_cvtepu8_epi32(b), _mm256_cvtepu8_epi32(_mm_srli_si128(b, 8))}};
}
GV_INLINE gv_i gv_is8(gv_b16 b)
{
    return (gv_i){{_mm256_cvtepi8_epi32(b), _mm256_cvtepi8_epi32(_mm_srli_si128(b, 8))}};
}
GV_INLINE gv_i gv_iu16(const void *p) /* 16 little-endian uint16 */
{
    return (gv_i){{_mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p)),
                   _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)p + 1))}};
}
GV_INLINE gv_i gv_iload(const void *p) /* 16 int32 */
{
    return (gv_i){{_mm256_loadu_si256((const __m256i *)p), _mm256_loadu_si256((const __m256i *)p + 1)}};
}
GV_INLINE gv_i gv_isplat(int32_t v) { return (gv_i){{_mm256_set1_epi32(v), _mm256_set1_epi32(v)}}; }
/* Lanes 0..7 = a, lanes 8..15 = b. */
GV_INLINE gv_i gv_isplat2(int32_t a, int32_t b) { return (gv_i){{_mm256_set1_epi32(a), _mm256_set1_epi32(b)}}; }
#define GV_I2(op)                                                                              \
    GV_INLINE gv_i gv_i##op(gv_i a, gv_i b)                                                  \
    {                                                                                          \
        return (gv_i){{_mm256_##op##_si256(a.v[0], b.v[0]), _mm256_##op##_si256(a.v[1], b.v[1])}}; \
    }
GV_I2(and)
GV_I2(or)
GV_I2(xor)
#undef GV_I2
GV_INLINE gv_i gv_iadd(gv_i a, gv_i b)
{
    return (gv_i){{_mm256_add_epi32(a.v[0], b.v[0]), _mm256_add_epi32(a.v[1], b.v[1])}};
}
GV_INLINE gv_i gv_isub(gv_i a, gv_i b)
{
    return (gv_i){{_mm256_sub_epi32(a.v[0], b.v[0]), _mm256_sub_epi32(a.v[1], b.v[1])}};
}
GV_INLINE gv_i gv_imul(gv_i a, gv_i b) /* low 32 bits of the product */
{
    return (gv_i){{_mm256_mullo_epi32(a.v[0], b.v[0]), _mm256_mullo_epi32(a.v[1], b.v[1])}};
}
GV_INLINE gv_i gv_ishl(gv_i a, int n) { return (gv_i){{_mm256_slli_epi32(a.v[0], n), _mm256_slli_epi32(a.v[1], n)}}; }
GV_INLINE gv_i gv_ishr(gv_i a, int n) { return (gv_i){{_mm256_srli_epi32(a.v[0], n), _mm256_srli_epi32(a.v[1], n)}}; }
GV_INLINE gv_i gv_ishrv(gv_i a, gv_i n)
{
    return (gv_i){{_mm256_srlv_epi32(a.v[0], n.v[0]), _mm256_srlv_epi32(a.v[1], n.v[1])}};
}
/* Base-3 digit of a byte: ((uint8_t)(b * p) * 3) >> 8 for b, p < 256 (the
 * rule of TQ1_0, PTQ1_0, IQ1_BN). In 16-bit halves, b * (p << 8) keeps
 * exactly (uint8_t)(b * p) << 8, and the high half of that times 3 is the
 * digit; the lanes' upper halves stay 0. */
GV_INLINE __m256i gv_digit3_8(__m256i b, __m256i p)
{
    __m256i w = _mm256_mullo_epi16(b, _mm256_slli_epi32(p, 8));
    return _mm256_mulhi_epu16(w, _mm256_set1_epi32(3));
}
GV_INLINE gv_i gv_idigit3(gv_i b, gv_i p) { return (gv_i){{gv_digit3_8(b.v[0], p.v[0]), gv_digit3_8(b.v[1], p.v[1])}}; }
/* Base-3 digits of bytes with per-byte multipliers, on 16-bit lanes. */
typedef __m256i gv_mul32[2];
/* Prepares 32 byte multipliers for gv_idigit3x32. */
GV_INLINE void gv_digit3_mul(gv_mul32 m, gv_b32 p)
{
    m[0] = _mm256_slli_epi16(_mm256_cvtepu8_epi16(_mm256_castsi256_si128(p)), 8);
    m[1] = _mm256_slli_epi16(_mm256_cvtepu8_epi16(_mm256_extracti128_si256(p, 1)), 8);
}
GV_INLINE gv_i gv_digit3_16(__m128i c, __m256i p)
{
    __m256i t = _mm256_mulhi_epu16(_mm256_mullo_epi16(_mm256_cvtepu8_epi16(c), p), _mm256_set1_epi16(3));
    return (gv_i){{_mm256_cvtepu16_epi32(_mm256_castsi256_si128(t)), _mm256_cvtepu16_epi32(_mm256_extracti128_si256(t, 1))}};
}
/* The base-3 digits (as gv_idigit3) of the 32 bytes t[sel[i]] (a 16-byte
 * table, 32 indices 0..15) with multipliers m: bytes 0..15 in *lo, 16..31 in
 * *hi. */
GV_INLINE void gv_idigit3x32(gv_b16 t, gv_b32 sel, const gv_mul32 m, gv_i *lo, gv_i *hi)
{
    *lo = gv_digit3_16(_mm_shuffle_epi8(t, _mm256_castsi256_si128(sel)), m[0]);
    *hi = gv_digit3_16(_mm_shuffle_epi8(t, _mm256_extracti128_si256(sel, 1)), m[1]);
}
/* Sum of the four bytes of each lane. */
GV_INLINE __m256i gv_bsum_8(__m256i x)
{
    return _mm256_madd_epi16(_mm256_maddubs_epi16(x, _mm256_set1_epi8(1)), _mm256_set1_epi16(1));
}
GV_INLINE gv_i gv_ibytesum(gv_i x) { return (gv_i){{gv_bsum_8(x.v[0]), gv_bsum_8(x.v[1])}}; }

/* 8 int32 at p into lanes 0..7 (lanes 8..15 zero). */
GV_INLINE gv_i gv_iload8(const void *p) { return (gv_i){{_mm256_loadu_si256((const __m256i *)p), _mm256_setzero_si256()}}; }
/* 16 uint16 given as two byte vectors (8 each). */
GV_INLINE gv_i gv_iu16b(gv_b16 lo, gv_b16 hi) { return (gv_i){{_mm256_cvtepu16_epi32(lo), _mm256_cvtepu16_epi32(hi)}}; }

/* Lanes 0..7 = lane 2p of v, lanes 8..15 = lane 2p+1 (p = 0..7). */
GV_INLINE gv_i gv_ispread2(gv_i v, int p)
{
    __m256i s = v.v[p / 4];
    return (gv_i){{_mm256_permutevar8x32_epi32(s, _mm256_set1_epi32(2 * p % 8)),
                   _mm256_permutevar8x32_epi32(s, _mm256_set1_epi32(2 * p % 8 + 1))}};
}
/* Lanes 4k .. 4k+3 = lane 4q + k of v (q = 0..3). */
GV_INLINE gv_i gv_ispread4(gv_i v, int q)
{
    __m256i s = v.v[q / 2];
    const int b = 4 * q % 8;
    return (gv_i){{_mm256_permutevar8x32_epi32(s, _mm256_setr_epi32(b, b, b, b, b + 1, b + 1, b + 1, b + 1)),
                   _mm256_permutevar8x32_epi32(s, _mm256_setr_epi32(b + 2, b + 2, b + 2, b + 2, b + 3, b + 3, b + 3, b + 3))}};
}

/* ---- float lanes ---------------------------------------------------------- */

/* Lanes 0..7 = a, 8..15 = b. */
GV_INLINE gv_f gv_fsplat2(float a, float b) { return (gv_f){{_mm256_set1_ps(a), _mm256_set1_ps(b)}}; }
GV_INLINE gv_f gv_fsplat(float x) { return (gv_f){{_mm256_set1_ps(x), _mm256_set1_ps(x)}}; }
GV_INLINE gv_f gv_fload(const float *p) { return (gv_f){{_mm256_loadu_ps(p), _mm256_loadu_ps(p + 8)}}; }
GV_INLINE void gv_fstore(float *p, gv_f x)
{
    _mm256_storeu_ps(p, x.v[0]);
    _mm256_storeu_ps(p + 8, x.v[1]);
}
GV_INLINE gv_f gv_fcvt(gv_i x) { return (gv_f){{_mm256_cvtepi32_ps(x.v[0]), _mm256_cvtepi32_ps(x.v[1])}}; }
GV_INLINE gv_f gv_fs8(gv_b16 b) { return gv_fcvt(gv_is8(b)); }
GV_INLINE gv_f gv_fu8(gv_b16 b) { return gv_fcvt(gv_iu8(b)); }
/* 16 bytes from two 8-byte halves at p0 and p1 (codebook entries). */
GV_INLINE gv_f gv_fu8x2(const void *p0, const void *p1)
{
    return (gv_f){{_mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p0))),
                   _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p1)))}};
}
GV_INLINE gv_f gv_fs8x2(const void *p0, const void *p1)
{
    return (gv_f){{_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p0))),
                   _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)p1)))}};
}
/* 16 IEEE halves at p, exactly. */
GV_INLINE gv_f gv_fhalf(const void *p)
{
    return (gv_f){{_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)),
                   _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p + 1))}};
}
#define GV_F2(op)                                                                                   \
    GV_INLINE gv_f gv_f##op(gv_f a, gv_f b)                                                       \
    {                                                                                               \
        return (gv_f){{_mm256_##op##_ps(a.v[0], b.v[0]), _mm256_##op##_ps(a.v[1], b.v[1])}};      \
    }
GV_F2(mul)
GV_F2(add)
GV_F2(sub)
#undef GV_F2
/* a * b + c with ONE rounding: only where the reference fuses (IQ6_K). */
GV_INLINE gv_f gv_ffma(gv_f a, gv_f b, gv_f c)
{
    return (gv_f){{_mm256_fmadd_ps(a.v[0], b.v[0], c.v[0]), _mm256_fmadd_ps(a.v[1], b.v[1], c.v[1])}};
}
GV_INLINE gv_i gv_fbits(gv_f a) { return (gv_i){{_mm256_castps_si256(a.v[0]), _mm256_castps_si256(a.v[1])}}; }
GV_INLINE gv_f gv_ffrombits(gv_i a) { return (gv_f){{_mm256_castsi256_ps(a.v[0]), _mm256_castsi256_ps(a.v[1])}}; }
/* Flip the sign of lane j where bit 16h + j of m is set (h = 0, 1): an
 * exact negation. */
GV_INLINE gv_f gv_fnegbits(gv_f a, uint32_t m, int h)
{
    const __m256i sh = _mm256_setr_epi32(31, 30, 29, 28, 27, 26, 25, 24), smin = _mm256_set1_epi32(INT32_MIN);
    __m256i w = _mm256_set1_epi32((int)m);
    __m256i s0 = _mm256_and_si256(_mm256_sllv_epi32(w, _mm256_sub_epi32(sh, _mm256_set1_epi32(16 * h))), smin);
    __m256i s1 = _mm256_and_si256(_mm256_sllv_epi32(w, _mm256_sub_epi32(sh, _mm256_set1_epi32(16 * h + 8))), smin);
    return (gv_f){{_mm256_xor_ps(a.v[0], _mm256_castsi256_ps(s0)), _mm256_xor_ps(a.v[1], _mm256_castsi256_ps(s1))}};
}
/* Lanes of b where bit j of m is set, else of a. */
GV_INLINE gv_f gv_fselbits(uint32_t m, gv_f a, gv_f b)
{
    const __m256i sh = _mm256_setr_epi32(31, 30, 29, 28, 27, 26, 25, 24);
    __m256i w = _mm256_set1_epi32((int)m);
    __m256 k0 = _mm256_castsi256_ps(_mm256_sllv_epi32(w, sh));
    __m256 k1 = _mm256_castsi256_ps(_mm256_sllv_epi32(w, _mm256_sub_epi32(sh, _mm256_set1_epi32(8))));
    return (gv_f){{_mm256_blendv_ps(a.v[0], b.v[0], k0), _mm256_blendv_ps(a.v[1], b.v[1], k1)}};
}

/* 16 bfloat16 / int16 / int32 / double at p, converted (bf16: exactly; the
 * others the C way, round to nearest even). */
GV_INLINE gv_f gv_fbf16(const void *p) { return gv_ffrombits(gv_ishl(gv_iu16(p), 16)); }
GV_INLINE gv_f gv_fi16(const void *p)
{
    return (gv_f){{_mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)p))),
                   _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)p + 1)))}};
}
GV_INLINE gv_f gv_fi32(const void *p) { return gv_fcvt(gv_iload(p)); }
GV_INLINE gv_f gv_ff64(const void *p)
{
    const double *q = (const double *)p;
    __m256 a = _mm256_set_m128(_mm256_cvtpd_ps(_mm256_loadu_pd(q + 4)), _mm256_cvtpd_ps(_mm256_loadu_pd(q)));
    __m256 b = _mm256_set_m128(_mm256_cvtpd_ps(_mm256_loadu_pd(q + 12)), _mm256_cvtpd_ps(_mm256_loadu_pd(q + 8)));
    return (gv_f){{a, b}};
}

/* (float)(sum of the four bytes of each lane - c), exactly: the sum under
 * the exponent bits of 2^23 is the float 2^23 + sum. */
GV_INLINE gv_f gv_fbytesum(gv_i x, int c)
{
    return gv_fsub(gv_ffrombits(gv_ior(gv_ibytesum(x), gv_isplat(0x4B000000))), gv_fsplat(8388608.0f + (float)c));
}

/* 16 signed bytes from the low (h = 0) or high (h = 1) 8 bytes of a, then of b. */
GV_INLINE gv_f gv_fs8pair(gv_b16 a, gv_b16 b, int h)
{
    if (h)
        a = _mm_srli_si128(a, 8), b = _mm_srli_si128(b, 8);
    return (gv_f){{_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(a)), _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(b))}};
}

/* Value tables: t[idx] of 16 (or 32) int8 values, as floats (exact);
 * idx 0..15 (0..31). Here a byte lookup, widened and converted. */
typedef __m128i gv_vtab;
typedef struct { __m128i lo, hi; } gv_vtab32;
GV_INLINE gv_vtab gv_vtab16(gv_b16 values) { return values; }
GV_INLINE gv_vtab32 gv_vtab32of(gv_b16 lo, gv_b16 hi) { return (gv_vtab32){lo, hi}; }
GV_INLINE gv_f gv_vlook(gv_vtab t, gv_b16 idx) { return gv_fs8(_mm_shuffle_epi8(t, idx)); }

/* 32 codes against a pair of 32-entry tables (the first 16 codes use a,
 * the last 16 b), made once per combination. */
typedef struct { __m256i lo, hi; } gv_vpair32;
GV_INLINE gv_vpair32 gv_vpair32of(gv_vtab32 a, gv_vtab32 b)
{
    return (gv_vpair32){_mm256_set_m128i(b.lo, a.lo), _mm256_set_m128i(b.hi, a.hi)};
}
GV_INLINE void gv_vlook32x2(gv_vpair32 p, gv_b32 idx, gv_f out[2])
{
    __m256i v = _mm256_blendv_epi8(_mm256_shuffle_epi8(p.lo, idx), _mm256_shuffle_epi8(p.hi, idx), _mm256_slli_epi16(idx, 3));
    out[0] = gv_fs8(_mm256_castsi256_si128(v)), out[1] = gv_fs8(_mm256_extracti128_si256(v, 1));
}

/* ---- float tables --------------------------------------------------------- */

/* Lanes 0..7 of x as an 8-entry table (x's lanes 8..15 must repeat them). */
GV_INLINE gv_ftab gv_ftab8f(gv_f x) { return (gv_ftab){{x.v[0], x.v[0]}}; }

GV_INLINE gv_f gv_lut8(gv_ftab t, gv_i idx)
{
    return (gv_f){{_mm256_permutevar8x32_ps(t.v[0], idx.v[0]), _mm256_permutevar8x32_ps(t.v[0], idx.v[1])}};
}

#endif
