/* float_avx512.c - AVX-512 twins of float.c; same bytes for any input.
 * Tails use masked loads and stores (masked-off lanes are never touched). */
#include "gguffs/decode.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

static __mmask16 tail16(int64_t k) { return (__mmask16)((1u << k) - 1); }

static void dec_f32(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    memcpy(dst, src, (size_t)n * 4);
}

/* vcvtph2ps is exact (subnormals too) and quiets NaNs like gg_fp16_to_f32. */
static void dec_f16(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 64 <= n; i += 64) {
        const uint8_t *p = src + 2 * i;
        __m512 a = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)p));
        __m512 b = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p + 32)));
        __m512 c = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p + 64)));
        __m512 e = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(p + 96)));
        _mm512_storeu_ps(dst + i, a);
        _mm512_storeu_ps(dst + i + 16, b);
        _mm512_storeu_ps(dst + i + 32, c);
        _mm512_storeu_ps(dst + i + 48, e);
    }
    for (; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? (__mmask16)0xffff : tail16(n - i);
        __m256i h = _mm256_maskz_loadu_epi16(k, src + 2 * i);
        _mm512_mask_storeu_ps(dst + i, k, _mm512_cvtph_ps(h));
    }
}

static void dec_bf16(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m512i a = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(src + 2 * i)));
        __m512i b = _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(src + 2 * i + 32)));
        _mm512_storeu_si512(dst + i, _mm512_slli_epi32(a, 16));
        _mm512_storeu_si512(dst + i + 16, _mm512_slli_epi32(b, 16));
    }
    for (; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? (__mmask16)0xffff : tail16(n - i);
        __m512i a = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(k, src + 2 * i));
        _mm512_mask_storeu_epi32(dst + i, k, _mm512_slli_epi32(a, 16));
    }
}

/* vcvtpd2ps rounds to nearest even with the default MXCSR, like the C cast. */
static void dec_f64(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256 a = _mm512_cvtpd_ps(_mm512_loadu_pd(src + 8 * i));
        __m256 b = _mm512_cvtpd_ps(_mm512_loadu_pd(src + 8 * i + 64));
        _mm512_storeu_ps(dst + i, _mm512_insertf32x8(_mm512_castps256_ps512(a), b, 1));
    }
    for (; i < n; i += 8) {
        __mmask8 k = n - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - i)) - 1);
        __m256 a = _mm512_cvtpd_ps(_mm512_maskz_loadu_pd(k, src + 8 * i));
        _mm256_mask_storeu_ps(dst + i, k, a);
    }
}

static void dec_i8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m128i a = _mm_loadu_si128((const __m128i *)(src + i));
        __m128i b = _mm_loadu_si128((const __m128i *)(src + i + 16));
        _mm512_storeu_ps(dst + i, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(a)));
        _mm512_storeu_ps(dst + i + 16, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(b)));
    }
    for (; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? (__mmask16)0xffff : tail16(n - i);
        __m128i a = _mm_maskz_loadu_epi8(k, src + i);
        _mm512_mask_storeu_ps(dst + i, k, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(a)));
    }
}

static void dec_i16(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(src + 2 * i));
        __m256i b = _mm256_loadu_si256((const __m256i *)(src + 2 * i + 32));
        _mm512_storeu_ps(dst + i, _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(a)));
        _mm512_storeu_ps(dst + i + 16, _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(b)));
    }
    for (; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? (__mmask16)0xffff : tail16(n - i);
        __m256i a = _mm256_maskz_loadu_epi16(k, src + 2 * i);
        _mm512_mask_storeu_ps(dst + i, k, _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(a)));
    }
}

/* vcvtdq2ps rounds to nearest even like the C conversion. */
static void dec_i32(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i < n; i += 16) {
        __mmask16 k = n - i >= 16 ? (__mmask16)0xffff : tail16(n - i);
        __m512i a = _mm512_maskz_loadu_epi32(k, src + 4 * i);
        _mm512_mask_storeu_ps(dst + i, k, _mm512_cvtepi32_ps(a));
    }
}

/* vcvtqq2ps (AVX-512DQ) rounds once to nearest even, like the C conversion. */
static void dec_i64(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256 a = _mm512_cvtepi64_ps(_mm512_loadu_si512(src + 8 * i));
        __m256 b = _mm512_cvtepi64_ps(_mm512_loadu_si512(src + 8 * i + 64));
        _mm512_storeu_ps(dst + i, _mm512_insertf32x8(_mm512_castps256_ps512(a), b, 1));
    }
    for (; i < n; i += 8) {
        __mmask8 k = n - i >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (n - i)) - 1);
        __m256 a = _mm512_cvtepi64_ps(_mm512_maskz_loadu_epi64(k, src + 8 * i));
        _mm256_mask_storeu_ps(dst + i, k, a);
    }
}

const gg_kernel_entry gg_kernels_float_avx512[] = {
    {GG_T_F32, GG_ISA_AVX512, dec_f32},   {GG_T_F16, GG_ISA_AVX512, dec_f16},
    {GG_T_BF16, GG_ISA_AVX512, dec_bf16}, {GG_T_F64, GG_ISA_AVX512, dec_f64},
    {GG_T_I8, GG_ISA_AVX512, dec_i8},     {GG_T_I16, GG_ISA_AVX512, dec_i16},
    {GG_T_I32, GG_ISA_AVX512, dec_i32},   {GG_T_I64, GG_ISA_AVX512, dec_i64},
    {0},
};

#else
const gg_kernel_entry gg_kernels_float_avx512[] = {{0}};
#endif
