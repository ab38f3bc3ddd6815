/* ik_bn_avx2.c - AVX2 twins of ik_bn.c; same bytes for any input.
 *
 * Every value is scale * t for a small integer t, so the products scale * t
 * for all possible t are computed once per call (the same single roundings
 * as the scalar kernels) and the codes only pick among them (vpermps). */
#include "gguffs/decode.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "gguffs/fp16.h"
#include "tables.h"

/* Lane t (0..3, repeated): scale * (t - 1). */
static inline __m256 products(float d)
{
    return _mm256_mul_ps(_mm256_set1_ps(d), _mm256_setr_ps(-1, 0, 1, 2, -1, 0, 1, 2));
}

/* IQ1_BN layout: value i of group q (16 values) comes from code byte
 * iq1bn_pick[16q + i] with multiplier number iq1bn_msel[16q + i] (of
 * iq1bn_k_mult): bytes 3q..3q+2 give five values each, byte 12 (extra) the
 * last one. */
static const uint8_t iq1bn_pick[64] = {
    0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 12,
    3, 3, 3, 3, 3, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 12,
    6, 6, 6, 6, 6, 7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 12,
    9, 9, 9, 9, 9, 10, 10, 10, 10, 10, 11, 11, 11, 11, 11, 12};
static const uint8_t iq1bn_msel[64] = {
    0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0,
    0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 1,
    0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 2,
    0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 0, 1, 2, 3, 4, 3};

/* IQ1_BN: each code byte c with its multiplier m gives the trit
 * ((v + (v >> 1)) >> 7) - 1 of v = (c * m) & 255. In 16-bit lanes,
 * c * (m << 8) keeps exactly v << 8, and the high half of (v << 8) * 3 is
 * 3v >> 8, equal to (v + (v >> 1)) >> 7 for every byte v. */
static void dec_iq1_bn(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m256 tab = products(gg_rdf16(meta));
    const __m128i k5 = _mm_insert_epi8(_mm_cvtsi32_si128((int)gg_rd32(gg_iq1bn_k_mult)), gg_iq1bn_k_mult[4], 4);
    __m128i pick[4];
    __m256i mult[4];
    for (int q = 0; q < 4; q++) {
        pick[q] = _mm_loadu_si128((const __m128i *)(iq1bn_pick + 16 * q));
        __m128i m8 = _mm_shuffle_epi8(k5, _mm_loadu_si128((const __m128i *)(iq1bn_msel + 16 * q)));
        mult[q] = _mm256_slli_epi16(_mm256_cvtepu8_epi16(m8), 8);
    }
    const __m256i three = _mm256_set1_epi16(3);
    for (int64_t b = 0; b < n; b++, src += 13, dst += 64) {
        /* bytes 0..7, then 5..12 moved to 8..12: the 13 bytes, no more */
        const __m128i hi = _mm_srli_si128(_mm_loadl_epi64((const __m128i *)(src + 5)), 3);
        const __m128i x = _mm_unpacklo_epi64(_mm_loadl_epi64((const __m128i *)src), hi);
        for (int q = 0; q < 4; q++) {
            __m256i w = _mm256_mullo_epi16(_mm256_cvtepu8_epi16(_mm_shuffle_epi8(x, pick[q])), mult[q]);
            __m256i t = _mm256_mulhi_epu16(w, three);
            __m256i lo = _mm256_cvtepu16_epi32(_mm256_castsi256_si128(t));
            __m256i up = _mm256_cvtepu16_epi32(_mm256_extracti128_si256(t, 1));
            _mm256_storeu_ps(dst + 16 * q, _mm256_permutevar8x32_ps(tab, lo));
            _mm256_storeu_ps(dst + 16 * q + 8, _mm256_permutevar8x32_ps(tab, up));
        }
    }
}

/* IQ2_BN: value 16k + j is bits 2k of qs[j]; vpermps reads index bits 0..2
 * and the table repeats every 4, so the shifted bytes need no mask. */
static void dec_iq2_bn(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m256 tab = products(gg_rdf32(meta));
    for (int64_t b = 0; b < n; b++, src += 16, dst += 64) {
        for (int h = 0; h < 2; h++) {
            __m256i q = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(src + 8 * h)));
            for (int k = 0; k < 4; k++)
                _mm256_storeu_ps(dst + 16 * k + 8 * h,
                                 _mm256_permutevar8x32_ps(tab, _mm256_srli_epi32(q, 2 * k)));
        }
    }
}

const gg_kernel_entry gg_kernels_ik_bn_avx2[] = {
    {GG_T_IQ1_BN, GG_ISA_AVX2, dec_iq1_bn},
    {GG_T_IQ2_BN, GG_ISA_AVX2, dec_iq2_bn},
    {0},
};
#else
const gg_kernel_entry gg_kernels_ik_bn_avx2[] = {{0}};
#endif
