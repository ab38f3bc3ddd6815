/* legacy_avx512.c - AVX-512 twins of legacy.c; same bytes for any input.
 * Sixteen codes at a time: int8 -> int32 -> float (exact), times d [+ m]. */
#include "gguffs/decode.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "gguffs/fp16.h"

static inline __m512 bcast_f16(const uint8_t *p) { return _mm512_set1_ps(_cvtsh_ss(gg_rd16(p))); }

static inline __m512 codes_ps(__m128i c) { return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(c)); }

/* Low nibbles (elements 0..15) and high nibbles (16..31) of 16 code bytes. */
static inline void nibbles(const uint8_t *qs, __m128i *lo, __m128i *hi)
{
    const __m128i m4 = _mm_set1_epi8(15);
    __m128i q = _mm_loadu_si128((const __m128i *)qs);
    *lo = _mm_and_si128(q, m4);
    *hi = _mm_and_si128(_mm_srli_epi16(q, 4), m4);
}

static void dec_q4_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m128i eight = _mm_set1_epi8(8);
    for (int64_t b = 0; b < n; b++, src += 18, dst += 32) {
        __m512 d = bcast_f16(src);
        __m128i lo, hi;
        nibbles(src + 2, &lo, &hi);
        _mm512_storeu_ps(dst, _mm512_mul_ps(codes_ps(_mm_sub_epi8(lo, eight)), d));
        _mm512_storeu_ps(dst + 16, _mm512_mul_ps(codes_ps(_mm_sub_epi8(hi, eight)), d));
    }
}

static void dec_q4_1(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    for (int64_t b = 0; b < n; b++, src += 20, dst += 32) {
        __m512 d = bcast_f16(src), m = bcast_f16(src + 2);
        __m128i lo, hi;
        nibbles(src + 4, &lo, &hi);
        _mm512_storeu_ps(dst, _mm512_add_ps(_mm512_mul_ps(codes_ps(lo), d), m));
        _mm512_storeu_ps(dst + 16, _mm512_add_ps(_mm512_mul_ps(codes_ps(hi), d), m));
    }
}

/* The fifth bits: qh bit i is element i's value 16, used as a byte mask
 * (nibble | 16 == nibble + 16; Q5_0's "- 16" leaves the set ones unchanged). */
static void dec_q5_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m128i sixteen = _mm_set1_epi8(16);
    for (int64_t b = 0; b < n; b++, src += 22, dst += 32) {
        __m512 d = bcast_f16(src);
        uint32_t qh = gg_rd32(src + 2);
        __m128i lo, hi;
        nibbles(src + 6, &lo, &hi);
        lo = _mm_mask_sub_epi8(lo, (__mmask16)~qh, lo, sixteen);
        hi = _mm_mask_sub_epi8(hi, (__mmask16)(~qh >> 16), hi, sixteen);
        _mm512_storeu_ps(dst, _mm512_mul_ps(codes_ps(lo), d));
        _mm512_storeu_ps(dst + 16, _mm512_mul_ps(codes_ps(hi), d));
    }
}

static void dec_q5_1(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m128i sixteen = _mm_set1_epi8(16);
    for (int64_t b = 0; b < n; b++, src += 24, dst += 32) {
        __m512 d = bcast_f16(src), m = bcast_f16(src + 2);
        uint32_t qh = gg_rd32(src + 4);
        __m128i lo, hi;
        nibbles(src + 8, &lo, &hi);
        lo = _mm_mask_add_epi8(lo, (__mmask16)qh, lo, sixteen);
        hi = _mm_mask_add_epi8(hi, (__mmask16)(qh >> 16), hi, sixteen);
        _mm512_storeu_ps(dst, _mm512_add_ps(_mm512_mul_ps(codes_ps(lo), d), m));
        _mm512_storeu_ps(dst + 16, _mm512_add_ps(_mm512_mul_ps(codes_ps(hi), d), m));
    }
}

static inline void put32_i8(float *dst, const uint8_t *p, __m512 d)
{
    __m128i a = _mm_loadu_si128((const __m128i *)p), b = _mm_loadu_si128((const __m128i *)(p + 16));
    _mm512_storeu_ps(dst, _mm512_mul_ps(codes_ps(a), d));
    _mm512_storeu_ps(dst + 16, _mm512_mul_ps(codes_ps(b), d));
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

const gg_kernel_entry gg_kernels_legacy_avx512[] = {
    {"Q4_0", GG_ISA_AVX512, dec_q4_0}, {"Q4_1", GG_ISA_AVX512, dec_q4_1},
    {"Q5_0", GG_ISA_AVX512, dec_q5_0}, {"Q5_1", GG_ISA_AVX512, dec_q5_1},
    {"Q8_0", GG_ISA_AVX512, dec_q8_0}, {"Q8_1", GG_ISA_AVX512, dec_q8_1},
    {0},
};

#else
const gg_kernel_entry gg_kernels_legacy_avx512[] = {{0}};
#endif
