/* simd_avx512.h - the SIMD primitives (see simd.h) on AVX-512 F/BW/VL/DQ:
 * 16 float or int32 lanes are one zmm register; byte vectors stay xmm/ymm
 * (with the BW/VL mask forms where they save work). */
#ifndef GGUFFS_DECODE_SIMD_AVX512_H
#define GGUFFS_DECODE_SIMD_AVX512_H

#include "simd_x86.h"

typedef __m512i gv_i;
typedef __m512 gv_f;
typedef __m512 gv_ftab;

/* ---- bytes ---------------------------------------------------------------- */

GV_INLINE gv_b16 gv_bits16(uint32_t m) { return _mm_movm_epi8((__mmask16)m); }

GV_INLINE gv_b16 gv_addbits16(gv_b16 x, uint32_t m, int h, int v)
{
    return _mm_mask_add_epi8(x, (__mmask16)(m >> 16 * h), x, _mm_set1_epi8((char)v));
}

GV_INLINE gv_b16 gv_loadn16(const void *p, int n) { return _mm_maskz_loadu_epi8((__mmask16)((1u << n) - 1), p); }

typedef struct { __m256i lo, hi; } gv_wtab;
GV_INLINE gv_wtab gv_wtab32(const void *p)
{
    return (gv_wtab){_mm256_loadu_si256((const __m256i *)p), _mm256_loadu_si256((const __m256i *)p + 1)};
}
GV_INLINE gv_b32 gv_lut32w(gv_wtab t, gv_b16 idx) /* vpermt2w */
{
    return _mm256_permutex2var_epi16(t.lo, _mm256_cvtepu8_epi16(idx), t.hi);
}

GV_INLINE uint32_t gv_wlowbits(gv_b16 x) { return _mm_test_epi16_mask(x, _mm_set1_epi16(1)); }

/* ---- int32 lanes ---------------------------------------------------------- */

GV_INLINE gv_i gv_iu8(gv_b16 b) { return _mm512_cvtepu8_epi32(b); }
GV_INLINE gv_i gv_is8(gv_b16 b) { return _mm512_cvtepi8_epi32(b); }
GV_INLINE gv_i gv_iu16(const void *p) { return _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)p)); }
GV_INLINE gv_i gv_iload(const void *p) { return _mm512_loadu_si512(p); }
GV_INLINE gv_i gv_isplat(int32_t v) { return _mm512_set1_epi32(v); }
GV_INLINE gv_i gv_isplat2(int32_t a, int32_t b)
{
    return _mm512_inserti64x4(_mm512_set1_epi32(a), _mm256_set1_epi32(b), 1);
}
GV_INLINE gv_i gv_iand(gv_i a, gv_i b) { return _mm512_and_si512(a, b); }
GV_INLINE gv_i gv_ior(gv_i a, gv_i b) { return _mm512_or_si512(a, b); }
GV_INLINE gv_i gv_ixor(gv_i a, gv_i b) { return _mm512_xor_si512(a, b); }
GV_INLINE gv_i gv_iadd(gv_i a, gv_i b) { return _mm512_add_epi32(a, b); }
GV_INLINE gv_i gv_isub(gv_i a, gv_i b) { return _mm512_sub_epi32(a, b); }
GV_INLINE gv_i gv_imul(gv_i a, gv_i b) { return _mm512_mullo_epi32(a, b); }
GV_INLINE gv_i gv_ishl(gv_i a, int n) { return _mm512_slli_epi32(a, (unsigned)n); }
GV_INLINE gv_i gv_ishr(gv_i a, int n) { return _mm512_srli_epi32(a, (unsigned)n); }
GV_INLINE gv_i gv_ishrv(gv_i a, gv_i n) { return _mm512_srlv_epi32(a, n); }
GV_INLINE gv_i gv_idigit3(gv_i b, gv_i p) /* as in simd_avx2.h */
{
    return _mm512_mulhi_epu16(_mm512_mullo_epi16(b, _mm512_slli_epi32(p, 8)), _mm512_set1_epi32(3));
}
typedef __m512i gv_mul32[1];
GV_INLINE void gv_digit3_mul(gv_mul32 m, gv_b32 p) { m[0] = _mm512_slli_epi16(_mm512_cvtepu8_epi16(p), 8); }
GV_INLINE void gv_idigit3x32(gv_b16 tab, gv_b32 sel, const gv_mul32 m, gv_i *lo, gv_i *hi)
{
    __m256i c = _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(tab), sel);
    __m512i t = _mm512_mulhi_epu16(_mm512_mullo_epi16(_mm512_cvtepu8_epi16(c), m[0]), _mm512_set1_epi16(3));
    *lo = _mm512_cvtepu16_epi32(_mm512_castsi512_si256(t));
    *hi = _mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(t, 1));
}
/* vdbpsadbw against zero sums each lane's four bytes into both its halves. */
GV_INLINE gv_i gv_ibytesum(gv_i x)
{
    return _mm512_and_si512(_mm512_dbsad_epu8(x, _mm512_setzero_si512(), 0), _mm512_set1_epi32(0xffff));
}

GV_INLINE gv_i gv_iload8(const void *p) { return _mm512_zextsi256_si512(_mm256_loadu_si256((const __m256i *)p)); }
GV_INLINE gv_i gv_iu16b(gv_b16 lo, gv_b16 hi) { return _mm512_cvtepu16_epi32(_mm256_set_m128i(hi, lo)); }

GV_INLINE gv_i gv_ispread2(gv_i v, int p)
{
    const __m512i pat = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
    return _mm512_permutexvar_epi32(_mm512_add_epi32(pat, _mm512_set1_epi32(2 * p)), v);
}
GV_INLINE gv_i gv_ispread4(gv_i v, int q)
{
    const __m512i pat = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    return _mm512_permutexvar_epi32(_mm512_add_epi32(pat, _mm512_set1_epi32(4 * q)), v);
}

/* ---- float lanes ---------------------------------------------------------- */

GV_INLINE gv_f gv_fsplat2(float a, float b)
{
    return _mm512_insertf32x8(_mm512_set1_ps(a), _mm256_set1_ps(b), 1);
}
GV_INLINE gv_f gv_fsplat(float x) { return _mm512_set1_ps(x); }
GV_INLINE gv_f gv_fload(const float *p) { return _mm512_loadu_ps(p); }
GV_INLINE void gv_fstore(float *p, gv_f x) { _mm512_storeu_ps(p, x); }
GV_INLINE gv_f gv_fcvt(gv_i x) { return _mm512_cvtepi32_ps(x); }
GV_INLINE gv_f gv_fs8(gv_b16 b) { return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(b)); }
GV_INLINE gv_f gv_fu8(gv_b16 b) { return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(b)); }
GV_INLINE gv_b16 gv_load8x2(const void *p0, const void *p1)
{
    uint64_t a, b;
    memcpy(&a, p0, 8);
    memcpy(&b, p1, 8);
    return _mm_set_epi64x((long long)b, (long long)a);
}
GV_INLINE gv_f gv_fu8x2(const void *p0, const void *p1) { return gv_fu8(gv_load8x2(p0, p1)); }
GV_INLINE gv_f gv_fs8x2(const void *p0, const void *p1) { return gv_fs8(gv_load8x2(p0, p1)); }
GV_INLINE gv_f gv_fhalf(const void *p) { return _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p)); }
GV_INLINE gv_f gv_fmul(gv_f a, gv_f b) { return _mm512_mul_ps(a, b); }
GV_INLINE gv_f gv_fadd(gv_f a, gv_f b) { return _mm512_add_ps(a, b); }
GV_INLINE gv_f gv_fsub(gv_f a, gv_f b) { return _mm512_sub_ps(a, b); }
GV_INLINE gv_f gv_ffma(gv_f a, gv_f b, gv_f c) { return _mm512_fmadd_ps(a, b, c); }
GV_INLINE gv_i gv_fbits(gv_f a) { return _mm512_castps_si512(a); }
GV_INLINE gv_f gv_ffrombits(gv_i a) { return _mm512_castsi512_ps(a); }
GV_INLINE gv_f gv_fnegbits(gv_f a, uint32_t m, int h)
{
    __m512i v = _mm512_castps_si512(a);
    return _mm512_castsi512_ps(_mm512_mask_xor_epi32(v, (__mmask16)(m >> 16 * h), v, _mm512_set1_epi32(INT32_MIN)));
}
GV_INLINE gv_f gv_fselbits(uint32_t m, gv_f a, gv_f b) { return _mm512_mask_blend_ps((__mmask16)m, a, b); }

GV_INLINE gv_f gv_fbf16(const void *p) { return _mm512_castsi512_ps(_mm512_slli_epi32(gv_iu16(p), 16)); }
GV_INLINE gv_f gv_fi16(const void *p) { return _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(_mm256_loadu_si256((const __m256i *)p))); }
GV_INLINE gv_f gv_fi32(const void *p) { return _mm512_cvtepi32_ps(_mm512_loadu_si512(p)); }
GV_INLINE gv_f gv_ff64(const void *p)
{
    const double *q = (const double *)p;
    __m256 a = _mm512_cvtpd_ps(_mm512_loadu_pd(q)), b = _mm512_cvtpd_ps(_mm512_loadu_pd(q + 8));
    return _mm512_insertf32x8(_mm512_castps256_ps512(a), b, 1);
}
/* Only here: int64 -> float in one rounding (vcvtqq2ps, AVX-512DQ). AVX2
 * and NEON have no such conversion (going through double rounds twice). */
#define GV_HAS_FI64 1
GV_INLINE gv_f gv_fi64(const void *p)
{
    const int64_t *q = (const int64_t *)p;
    __m256 a = _mm512_cvtepi64_ps(_mm512_loadu_si512(q)), b = _mm512_cvtepi64_ps(_mm512_loadu_si512(q + 8));
    return _mm512_insertf32x8(_mm512_castps256_ps512(a), b, 1);
}

/* vdbpsadbw puts the sum in both halves; the low one goes under 2^23's exponent. */
GV_INLINE gv_f gv_fbytesum(gv_i x, int c)
{
    const __m512i sum = _mm512_dbsad_epu8(x, _mm512_setzero_si512(), 0);
    const __m512i f = _mm512_ternarylogic_epi32(sum, _mm512_set1_epi32(0x4B000000), _mm512_set1_epi32(0xFFFF), 0xE4);
    return _mm512_sub_ps(_mm512_castsi512_ps(f), _mm512_set1_ps(8388608.0f + (float)c));
}

GV_INLINE gv_f gv_fs8pair(gv_b16 a, gv_b16 b, int h)
{
    return gv_fs8(h ? _mm_unpackhi_epi64(a, b) : _mm_unpacklo_epi64(a, b));
}

/* Value tables held as floats; each value is picked with vpermps (32
 * entries: vpermt2ps), which reads only the low index bits. */
typedef __m512 gv_vtab;
typedef struct { __m512 lo, hi; } gv_vtab32;
GV_INLINE gv_vtab gv_vtab16(gv_b16 values) { return gv_fs8(values); }
GV_INLINE gv_vtab32 gv_vtab32of(gv_b16 lo, gv_b16 hi) { return (gv_vtab32){gv_fs8(lo), gv_fs8(hi)}; }
GV_INLINE gv_f gv_vlook(gv_vtab t, gv_b16 idx) { return _mm512_permutexvar_ps(_mm512_cvtepu8_epi32(idx), t); }
GV_INLINE gv_f gv_vlook32(gv_vtab32 t, gv_b16 idx)
{
    return _mm512_permutex2var_ps(t.lo, _mm512_cvtepu8_epi32(idx), t.hi);
}

typedef struct { gv_vtab32 a, b; } gv_vpair32;
GV_INLINE gv_vpair32 gv_vpair32of(gv_vtab32 a, gv_vtab32 b) { return (gv_vpair32){a, b}; }
GV_INLINE void gv_vlook32x2(gv_vpair32 p, gv_b32 idx, gv_f out[2])
{
    out[0] = gv_vlook32(p.a, _mm256_castsi256_si128(idx)), out[1] = gv_vlook32(p.b, _mm256_extracti128_si256(idx, 1));
}

/* ---- float tables --------------------------------------------------------- */

GV_INLINE gv_ftab gv_ftab8f(gv_f x) { return x; }

GV_INLINE gv_f gv_lut8(gv_ftab t, gv_i idx) { return _mm512_permutexvar_ps(idx, t); }

#endif
