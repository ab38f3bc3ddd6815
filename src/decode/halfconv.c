/* halfconv.c - float32 to float16 / bfloat16 (see halfconv.h). */
#include "gguffs/halfconv.h"

#include <string.h>

#include "gguffs/decode.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

uint16_t gg_f32_to_f16_bits(uint32_t f)
{
    uint16_t sign = (uint16_t)((f >> 16) & 0x8000u);
    uint32_t exp = f & 0x7f800000u, sig = f & 0x007fffffu;
    if (exp == 0x7f800000u) {
        if (!sig)
            return sign | 0x7c00u;
        /* NaN: the payload's top bits, and never the pattern of infinity. */
        uint16_t h = (uint16_t)(0x7c00u + (sig >> 13));
        return sign | (h == 0x7c00u ? 0x7c01u : h);
    }
    if (exp >= 0x47800000u) /* 2^16 and up: too big even before rounding */
        return sign | 0x7c00u;
    if (exp <= 0x38000000u) {
        /* Below the smallest normal half: a subnormal half or zero. */
        if (exp < 0x33000000u) /* under half the smallest subnormal */
            return sign;
        uint32_t e = exp >> 23;             /* 102..112 */
        uint32_t m = 0x00800000u | sig;     /* the value is m * 2^(e-150) */
        uint32_t shift = 126 - e;           /* to units of 2^-24 */
        uint32_t q = m >> shift, rest = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rest > half || (rest == half && (q & 1)))
            q++;
        return sign | (uint16_t)q;
    }
    /* Normal: rebias the exponent, round the mantissa to 10 bits (a carry
     * into the exponent, even up to infinity, is the right answer). */
    uint32_t h = ((exp - 0x38000000u) >> 13) | (sig >> 13);
    uint32_t rest = sig & 0x1fffu;
    h += (rest > 0x1000u) | ((rest == 0x1000u) & h); /* no branch: the bits below are random in weights */
    return sign | (uint16_t)h;
}

uint16_t gg_f32_to_bf16_bits(uint32_t f)
{
    if ((f & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((f >> 16) | 0x0040u); /* NaN, made quiet */
    return (uint16_t)((f + 0x7fffu + ((f >> 16) & 1u)) >> 16);
}

static void f16_scalar(const float *src, uint16_t *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, src + i, 4);
        dst[i] = gg_f32_to_f16_bits(b);
    }
}

static void bf16_scalar(const float *src, uint16_t *dst, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t b;
        memcpy(&b, src + i, 4);
        dst[i] = gg_f32_to_bf16_bits(b);
    }
}

#if defined(__x86_64__) && defined(__GNUC__)
/* F16C rounds to nearest even like the scalar code; only its NaNs differ
 * (it sets the quiet bit), so lanes holding NaN take the scalar rule. */
__attribute__((target("avx2,f16c"))) static void f16_avx2(const float *src, uint16_t *dst, size_t n)
{
    size_t i = 0;
    const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
    for (; i + 8 <= n; i += 8) {
        __m256 v = _mm256_loadu_ps(src + i);
        __m128i h = _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        __m256i bits = _mm256_castps_si256(v);
        __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(bits, abs_mask), inf);
        _mm_storeu_si128((__m128i *)(dst + i), h);
        if (!_mm256_testz_si256(nan, nan))
            f16_scalar(src + i, dst + i, 8);
    }
    f16_scalar(src + i, dst + i, n - i);
}

__attribute__((target("avx2"))) static void bf16_avx2(const float *src, uint16_t *dst, size_t n)
{
    size_t i = 0;
    const __m256i abs_mask = _mm256_set1_epi32(0x7fffffff), inf = _mm256_set1_epi32(0x7f800000);
    const __m256i bias = _mm256_set1_epi32(0x7fff), one = _mm256_set1_epi32(1), quiet = _mm256_set1_epi32(0x40);
    for (; i + 16 <= n; i += 16) {
        __m256i r[2];
        for (int k = 0; k < 2; k++) {
            __m256i b = _mm256_loadu_si256((const __m256i *)(src + i + 8 * k));
            __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(b, abs_mask), inf);
            __m256i lsb = _mm256_and_si256(_mm256_srli_epi32(b, 16), one);
            __m256i rounded = _mm256_srli_epi32(_mm256_add_epi32(b, _mm256_add_epi32(bias, lsb)), 16);
            __m256i qnan = _mm256_or_si256(_mm256_srli_epi32(b, 16), quiet);
            r[k] = _mm256_blendv_epi8(rounded, qnan, nan);
        }
        /* 32-bit lanes to 16 bits, in order (packus works per 128-bit half). */
        __m256i packed = _mm256_packus_epi32(r[0], r[1]);
        packed = _mm256_permute4x64_epi64(packed, 0xd8);
        _mm256_storeu_si256((__m256i *)(dst + i), packed);
    }
    bf16_scalar(src + i, dst + i, n - i);
}
#endif

void gg_f32_to_f16_isa(const float *src, uint16_t *dst, size_t n, gg_isa isa)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (isa == GG_ISA_AVX2 || isa == GG_ISA_AVX512) {
        f16_avx2(src, dst, n);
        return;
    }
#endif
    (void)isa;
    f16_scalar(src, dst, n);
}

void gg_f32_to_bf16_isa(const float *src, uint16_t *dst, size_t n, gg_isa isa)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (isa == GG_ISA_AVX2 || isa == GG_ISA_AVX512) {
        bf16_avx2(src, dst, n);
        return;
    }
#endif
    (void)isa;
    bf16_scalar(src, dst, n);
}

void gg_f32_to_f16(const float *src, uint16_t *dst, size_t n) { gg_f32_to_f16_isa(src, dst, n, gg_isa_active()); }

void gg_f32_to_bf16(const float *src, uint16_t *dst, size_t n) { gg_f32_to_bf16_isa(src, dst, n, gg_isa_active()); }
