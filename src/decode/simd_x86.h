/* simd_x86.h - the SIMD primitives (see simd.h) that AVX2 and AVX-512 share:
 * byte vectors are xmm / ymm registers on both, and scalar fp16 goes through
 * F16C. Included by simd_avx2.h and simd_avx512.h, which add the lanes. */
#ifndef GGUFFS_DECODE_SIMD_X86_H
#define GGUFFS_DECODE_SIMD_X86_H

#include <immintrin.h>
#include <stdint.h>
#include <string.h>

#define GV_INLINE static inline __attribute__((always_inline))

typedef __m128i gv_b16;
typedef __m256i gv_b32;

GV_INLINE gv_b16 gv_load16(const void *p) { return _mm_loadu_si128((const __m128i *)p); }
GV_INLINE gv_b16 gv_load8(const void *p) { return _mm_loadl_epi64((const __m128i *)p); } /* upper 8 zero */
GV_INLINE gv_b32 gv_load32(const void *p) { return _mm256_loadu_si256((const __m256i *)p); }
GV_INLINE gv_b16 gv_splat16(int v) { return _mm_set1_epi8((char)v); }
GV_INLINE gv_b32 gv_splat32(int v) { return _mm256_set1_epi8((char)v); }
GV_INLINE gv_b16 gv_lo16(gv_b32 x) { return _mm256_castsi256_si128(x); }
GV_INLINE gv_b16 gv_hi16(gv_b32 x) { return _mm256_extracti128_si256(x, 1); }
GV_INLINE gv_b32 gv_dup32(gv_b16 x) { return _mm256_broadcastsi128_si256(x); }
GV_INLINE gv_b16 gv_and16(gv_b16 a, gv_b16 b) { return _mm_and_si128(a, b); }
GV_INLINE gv_b16 gv_or16(gv_b16 a, gv_b16 b) { return _mm_or_si128(a, b); }
GV_INLINE gv_b16 gv_xor16(gv_b16 a, gv_b16 b) { return _mm_xor_si128(a, b); }
GV_INLINE gv_b16 gv_add16(gv_b16 a, gv_b16 b) { return _mm_add_epi8(a, b); }
GV_INLINE gv_b16 gv_sub16(gv_b16 a, gv_b16 b) { return _mm_sub_epi8(a, b); }
GV_INLINE gv_b32 gv_and32(gv_b32 a, gv_b32 b) { return _mm256_and_si256(a, b); }
GV_INLINE gv_b32 gv_or32(gv_b32 a, gv_b32 b) { return _mm256_or_si256(a, b); }
GV_INLINE gv_b32 gv_sub32(gv_b32 a, gv_b32 b) { return _mm256_sub_epi8(a, b); }
/* Byte-wise (x >> n) & m and (x << n) & m; m must clear the bits other
 * bytes shift in (m within 0xff >> n, resp. 0xff << n). */
GV_INLINE gv_b16 gv_shr16(gv_b16 x, int n, int m) { return _mm_and_si128(_mm_srli_epi16(x, n), _mm_set1_epi8((char)m)); }
GV_INLINE gv_b16 gv_shl16(gv_b16 x, int n, int m) { return _mm_and_si128(_mm_slli_epi16(x, n), _mm_set1_epi8((char)m)); }
GV_INLINE gv_b32 gv_shr32(gv_b32 x, int n, int m)
{
    return _mm256_and_si256(_mm256_srli_epi16(x, n), _mm256_set1_epi8((char)m));
}
GV_INLINE gv_b32 gv_shl32(gv_b32 x, int n, int m)
{
    return _mm256_and_si256(_mm256_slli_epi16(x, n), _mm256_set1_epi8((char)m));
}
/* 0xff in bytes where x has every bit of m set, else 0. */
GV_INLINE gv_b16 gv_has16(gv_b16 x, gv_b16 m) { return _mm_cmpeq_epi8(_mm_and_si128(x, m), m); }
GV_INLINE gv_b32 gv_has32(gv_b32 x, gv_b32 m) { return _mm256_cmpeq_epi8(_mm256_and_si256(x, m), m); }
/* Bytes of b where mask (0x00 / 0xff bytes) is set, else of a. */
GV_INLINE gv_b16 gv_sel16(gv_b16 mask, gv_b16 a, gv_b16 b) { return _mm_blendv_epi8(a, b, mask); }
/* t[idx] for indices 0..15: one 16-entry byte table; for gv_lut32x2 the low
 * 16 bytes of idx index the low half of t, the high 16 its high half. */
GV_INLINE gv_b16 gv_lut16b(gv_b16 t, gv_b16 idx) { return _mm_shuffle_epi8(t, idx); }
GV_INLINE gv_b32 gv_lut32x2(gv_b32 t, gv_b32 idx) { return _mm256_shuffle_epi8(t, idx); }
/* Interleave bytes: lo = a0 b0 a1 b1 .. a7 b7, hi = a8 b8 .. a15 b15. */
GV_INLINE gv_b16 gv_zip8lo(gv_b16 a, gv_b16 b) { return _mm_unpacklo_epi8(a, b); }
GV_INLINE gv_b16 gv_zip8hi(gv_b16 a, gv_b16 b) { return _mm_unpackhi_epi8(a, b); }
/* The same on 16-bit, 32-bit and 64-bit units. */
GV_INLINE gv_b16 gv_zip16lo(gv_b16 a, gv_b16 b) { return _mm_unpacklo_epi16(a, b); }
GV_INLINE gv_b16 gv_zip16hi(gv_b16 a, gv_b16 b) { return _mm_unpackhi_epi16(a, b); }
GV_INLINE gv_b16 gv_zip32lo(gv_b16 a, gv_b16 b) { return _mm_unpacklo_epi32(a, b); }
GV_INLINE gv_b16 gv_zip32hi(gv_b16 a, gv_b16 b) { return _mm_unpackhi_epi32(a, b); }
GV_INLINE gv_b16 gv_zip64lo(gv_b16 a, gv_b16 b) { return _mm_unpacklo_epi64(a, b); }
GV_INLINE gv_b16 gv_zip64hi(gv_b16 a, gv_b16 b) { return _mm_unpackhi_epi64(a, b); }
/* The 4 bytes of w repeated; x shifted down by n bytes (zeros in). */
GV_INLINE gv_b16 gv_splatw(uint32_t w) { return _mm_set1_epi32((int)w); }
/* ~a & b */
GV_INLINE gv_b32 gv_andnot32(gv_b32 a, gv_b32 b) { return _mm256_andnot_si256(a, b); }
/* Bytes from four little-endian words / two 8-byte halves. */
GV_INLINE gv_b16 gv_setw4(uint32_t a, uint32_t b, uint32_t c, uint32_t d) { return _mm_set_epi32((int)d, (int)c, (int)b, (int)a); }
GV_INLINE gv_b16 gv_setq2(uint64_t a, uint64_t b) { return _mm_set_epi64x((long long)b, (long long)a); }
/* 16 bytes from four 4-byte pieces (codebook entries); composing them in
 * general registers measured faster than vpgatherdd here (AMD Zen). */
GV_INLINE gv_b16 gv_load4x4(const void *p0, const void *p1, const void *p2, const void *p3)
{
    uint32_t a, b, c, d;
    memcpy(&a, p0, 4), memcpy(&b, p1, 4), memcpy(&c, p2, 4), memcpy(&d, p3, 4);
    return _mm_set_epi64x((long long)(c | (uint64_t)d << 32), (long long)(a | (uint64_t)b << 32));
}
/* Shift right on 16-bit units (bits cross from the high byte). */
GV_INLINE gv_b16 gv_w16shr(gv_b16 x, int n) { return _mm_srli_epi16(x, n); }
/* The zips on each 16-byte half of 32 bytes (the halves stay apart). */
GV_INLINE gv_b32 gv_zip32lo_x2(gv_b32 a, gv_b32 b) { return _mm256_unpacklo_epi32(a, b); }
GV_INLINE gv_b32 gv_zip32hi_x2(gv_b32 a, gv_b32 b) { return _mm256_unpackhi_epi32(a, b); }
GV_INLINE gv_b32 gv_zip64lo_x2(gv_b32 a, gv_b32 b) { return _mm256_unpacklo_epi64(a, b); }
GV_INLINE gv_b32 gv_zip64hi_x2(gv_b32 a, gv_b32 b) { return _mm256_unpackhi_epi64(a, b); }
GV_INLINE float gv_h2f(uint16_t h) { return _cvtsh_ss(h); } /* exact, NaN quieted like gg_fp16_to_f32 */
/* 4 IEEE halves at p to d[0..3], exactly. */
GV_INLINE void gv_halves4(float *d, const void *p) { _mm_storeu_ps(d, _mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)p))); }

#endif
