/* float_avx2.c - AVX2/F16C twins of float.c (all but I64, see the end);
 * same bytes for any input. */
#include "gguffs/decode.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

#include "gguffs/fp16.h"

static void dec_f32(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    memcpy(dst, src, (size_t)n * 4);
}

/* vcvtph2ps is exact (subnormals too) and quiets NaNs like gg_fp16_to_f32. */
static void dec_f16(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const uint8_t *p = src + 2 * i;
        __m256 a = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p));
        __m256 b = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p + 16)));
        __m256 c = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p + 32)));
        __m256 e = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(p + 48)));
        _mm256_storeu_ps(dst + i, a);
        _mm256_storeu_ps(dst + i + 8, b);
        _mm256_storeu_ps(dst + i + 16, c);
        _mm256_storeu_ps(dst + i + 24, e);
    }
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + 2 * i))));
    for (; i < n; i++)
        dst[i] = _cvtsh_ss(gg_rd16(src + 2 * i));
}

static void dec_bf16(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i h = _mm256_loadu_si256((const __m256i *)(src + 2 * i));
        __m256i z = _mm256_setzero_si256();
        /* Interleaving zero halves below each bf16 gives the float bits; the
         * in-lane unpack order is undone by the 128-bit lane permutes. */
        __m256i lo = _mm256_unpacklo_epi16(z, h), hi = _mm256_unpackhi_epi16(z, h);
        _mm256_storeu_si256((__m256i *)(dst + i), _mm256_permute2x128_si256(lo, hi, 0x20));
        _mm256_storeu_si256((__m256i *)(dst + i + 8), _mm256_permute2x128_si256(lo, hi, 0x31));
    }
    for (; i < n; i++)
        dst[i] = gg_bf16_to_f32(gg_rd16(src + 2 * i));
}

/* vcvtpd2ps rounds to nearest even with the default MXCSR, like the C cast. */
static void dec_f64(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128 a = _mm256_cvtpd_ps(_mm256_loadu_pd((const double *)(src + 8 * i)));
        __m128 b = _mm256_cvtpd_ps(_mm256_loadu_pd((const double *)(src + 8 * i + 32)));
        _mm256_storeu_ps(dst + i, _mm256_set_m128(b, a));
    }
    for (; i < n; i++) {
        double v;
        memcpy(&v, src + 8 * i, sizeof v);
        dst[i] = (float)v;
    }
}

static void dec_i8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(src + i));
        _mm256_storeu_ps(dst + i, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)));
        _mm256_storeu_ps(dst + i + 8, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(v, 8))));
    }
    for (; i < n; i++)
        dst[i] = (float)(int8_t)src[i];
}

static void dec_i16(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i v = _mm_loadu_si128((const __m128i *)(src + 2 * i));
        _mm256_storeu_ps(dst + i, _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(v)));
    }
    for (; i < n; i++)
        dst[i] = (float)(int16_t)gg_rd16(src + 2 * i);
}

/* vcvtdq2ps rounds to nearest even like the C conversion. */
static void dec_i32(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(src + 4 * i));
        _mm256_storeu_ps(dst + i, _mm256_cvtepi32_ps(v));
    }
    for (; i < n; i++)
        dst[i] = (float)(int32_t)gg_rd32(src + 4 * i);
}

const gg_kernel_entry gg_kernels_float_avx2[] = {
    {GG_T_F32, GG_ISA_AVX2, dec_f32},   {GG_T_F16, GG_ISA_AVX2, dec_f16},
    {GG_T_BF16, GG_ISA_AVX2, dec_bf16}, {GG_T_F64, GG_ISA_AVX2, dec_f64},
    {GG_T_I8, GG_ISA_AVX2, dec_i8},     {GG_T_I16, GG_ISA_AVX2, dec_i16},
    {GG_T_I32, GG_ISA_AVX2, dec_i32},
    /* No I64 here: AVX2 has no int64 -> float conversion, and an exact
     * emulation (fold the bits below the rounding point into a sticky bit,
     * then go through double) measured slower than the scalar kernel's
     * one cvtsi2ss per element, so I64 falls back to scalar. */
    {0},
};

#else
const gg_kernel_entry gg_kernels_float_avx2[] = {{0}};
#endif
