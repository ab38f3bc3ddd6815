/* legacy_avx2.c - AVX2/F16C twins of legacy.c; same bytes for any input.
 * Codes are turned into int8 vectors, widened to int32, converted to float
 * (exact) and multiplied by d (then m added) exactly as the scalar code. */
#include "gguffs/decode.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "gguffs/fp16.h"

static inline __m256 bcast_f16(const uint8_t *p) { return _mm256_set1_ps(_cvtsh_ss(gg_rd16(p))); }

/* Sixteen int8 codes -> 16 floats (float)code * d [+ m]. */
static inline void put16(float *dst, __m128i c, __m256 d)
{
    __m256 a = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(c));
    __m256 b = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_unpackhi_epi64(c, c)));
    _mm256_storeu_ps(dst, _mm256_mul_ps(a, d));
    _mm256_storeu_ps(dst + 8, _mm256_mul_ps(b, d));
}

static inline void put16_m(float *dst, __m128i c, __m256 d, __m256 m)
{
    __m256 a = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(c));
    __m256 b = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_unpackhi_epi64(c, c)));
    _mm256_storeu_ps(dst, _mm256_add_ps(_mm256_mul_ps(a, d), m));
    _mm256_storeu_ps(dst + 8, _mm256_add_ps(_mm256_mul_ps(b, d), m));
}

/* 32 int8 codes stored at p -> 32 floats code * d (Q8_0, Q8_1). */
static inline void put32_i8(float *dst, const uint8_t *p, __m256 d)
{
    for (int k = 0; k < 4; k++) {
        __m128i c = _mm_loadl_epi64((const __m128i *)(p + 8 * k));
        _mm256_storeu_ps(dst + 8 * k, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(c)), d));
    }
}

/* The 16 code bytes split into low nibbles (elements 0..15) and high nibbles
 * (elements 16..31). */
static inline void nibbles(const uint8_t *qs, __m128i *lo, __m128i *hi)
{
    const __m128i m4 = _mm_set1_epi8(15);
    __m128i q = _mm_loadu_si128((const __m128i *)qs);
    *lo = _mm_and_si128(q, m4);
    *hi = _mm_and_si128(_mm_srli_epi16(q, 4), m4);
}

/* Bits 0..15 (half 0) or 16..31 (half 1) of qh as 16 bytes: 16 where the
 * bit is set, 0 where it is clear. */
static inline __m128i fifth_bits(uint32_t qh, int half)
{
    const __m128i sel = half ? _mm_set_epi64x(0x0303030303030303ll, 0x0202020202020202ll)
                             : _mm_set_epi64x(0x0101010101010101ll, 0x0000000000000000ll);
    const __m128i bit = _mm_set1_epi64x((long long)0x8040201008040201ull);
    __m128i b = _mm_shuffle_epi8(_mm_cvtsi32_si128((int)qh), sel);
    return _mm_and_si128(_mm_cmpeq_epi8(_mm_and_si128(b, bit), bit), _mm_set1_epi8(16));
}

static void dec_q4_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m128i eight = _mm_set1_epi8(8);
    for (int64_t b = 0; b < n; b++, src += 18, dst += 32) {
        __m256 d = bcast_f16(src);
        __m128i lo, hi;
        nibbles(src + 2, &lo, &hi);
        put16(dst, _mm_sub_epi8(lo, eight), d);
        put16(dst + 16, _mm_sub_epi8(hi, eight), d);
    }
}

static void dec_q4_1(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    for (int64_t b = 0; b < n; b++, src += 20, dst += 32) {
        __m256 d = bcast_f16(src), m = bcast_f16(src + 2);
        __m128i lo, hi;
        nibbles(src + 4, &lo, &hi);
        put16_m(dst, lo, d, m);
        put16_m(dst + 16, hi, d, m);
    }
}

static void dec_q5_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m128i sixteen = _mm_set1_epi8(16);
    for (int64_t b = 0; b < n; b++, src += 22, dst += 32) {
        __m256 d = bcast_f16(src);
        uint32_t qh = gg_rd32(src + 2);
        __m128i lo, hi;
        nibbles(src + 6, &lo, &hi);
        put16(dst, _mm_sub_epi8(_mm_or_si128(lo, fifth_bits(qh, 0)), sixteen), d);
        put16(dst + 16, _mm_sub_epi8(_mm_or_si128(hi, fifth_bits(qh, 1)), sixteen), d);
    }
}

static void dec_q5_1(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    for (int64_t b = 0; b < n; b++, src += 24, dst += 32) {
        __m256 d = bcast_f16(src), m = bcast_f16(src + 2);
        uint32_t qh = gg_rd32(src + 4);
        __m128i lo, hi;
        nibbles(src + 8, &lo, &hi);
        put16_m(dst, _mm_or_si128(lo, fifth_bits(qh, 0)), d, m);
        put16_m(dst + 16, _mm_or_si128(hi, fifth_bits(qh, 1)), d, m);
    }
}

static void dec_q8_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    for (int64_t b = 0; b < n; b++, src += 34, dst += 32)
        put32_i8(dst, src + 2, bcast_f16(src));
}

/* Q8_1: d * code like Q8_0; s is ignored (see legacy.c). */
static void dec_q8_1(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    for (int64_t b = 0; b < n; b++, src += 36, dst += 32)
        put32_i8(dst, src + 4, bcast_f16(src));
}

const gg_kernel_entry gg_kernels_legacy_avx2[] = {
    {"Q4_0", GG_ISA_AVX2, dec_q4_0}, {"Q4_1", GG_ISA_AVX2, dec_q4_1},
    {"Q5_0", GG_ISA_AVX2, dec_q5_0}, {"Q5_1", GG_ISA_AVX2, dec_q5_1},
    {"Q8_0", GG_ISA_AVX2, dec_q8_0}, {"Q8_1", GG_ISA_AVX2, dec_q8_1},
    {0},
};

#else
const gg_kernel_entry gg_kernels_legacy_avx2[] = {{0}};
#endif
