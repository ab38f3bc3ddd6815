/* ik_bn_avx512.c - AVX-512 twins of ik_bn.c; same bytes for any input.
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
static inline __m512 products(float d)
{
    const __m512 t = _mm512_setr_ps(-1, 0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2);
    return _mm512_mul_ps(_mm512_set1_ps(d), t);
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
    const __m512 tab = products(gg_rdf16(meta));
    const __m512i pick = _mm512_loadu_si512(iq1bn_pick);
    const __m512i km = _mm512_broadcast_i32x4(_mm_maskz_loadu_epi8(0x1f, gg_iq1bn_k_mult));
    const __m512i m8 = _mm512_shuffle_epi8(km, _mm512_loadu_si512(iq1bn_msel));
    const __m512i mult[2] = {_mm512_slli_epi16(_mm512_cvtepu8_epi16(_mm512_castsi512_si256(m8)), 8),
                             _mm512_slli_epi16(_mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(m8, 1)), 8)};
    const __m512i three = _mm512_set1_epi16(3);
    for (int64_t b = 0; b < n; b++, src += 13, dst += 64) {
        const __m128i x = _mm_maskz_loadu_epi8(0x1fff, src); /* 13 bytes, no more */
        const __m512i c = _mm512_shuffle_epi8(_mm512_broadcast_i32x4(x), pick);
        for (int h = 0; h < 2; h++) {
            /* (clang wants a constant lane index, even in an unrolled loop) */
            __m256i ch = h ? _mm512_extracti64x4_epi64(c, 1) : _mm512_castsi512_si256(c);
            __m512i w = _mm512_mullo_epi16(_mm512_cvtepu8_epi16(ch), mult[h]);
            __m512i t = _mm512_mulhi_epu16(w, three);
            _mm512_storeu_ps(dst + 32 * h, _mm512_permutexvar_ps(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(t)), tab));
            _mm512_storeu_ps(dst + 32 * h + 16,
                             _mm512_permutexvar_ps(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64(t, 1)), tab));
        }
    }
}

/* IQ2_BN: value 16k + j is bits 2k of qs[j]; vpermps reads index bits 0..3
 * and the table repeats every 4, so the shifted bytes need no mask. */
static void dec_iq2_bn(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m512 tab = products(gg_rdf32(meta));
    for (int64_t b = 0; b < n; b++, src += 16, dst += 64) {
        __m512i q = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)src));
        _mm512_storeu_ps(dst, _mm512_permutexvar_ps(q, tab));
        _mm512_storeu_ps(dst + 16, _mm512_permutexvar_ps(_mm512_srli_epi32(q, 2), tab));
        _mm512_storeu_ps(dst + 32, _mm512_permutexvar_ps(_mm512_srli_epi32(q, 4), tab));
        _mm512_storeu_ps(dst + 48, _mm512_permutexvar_ps(_mm512_srli_epi32(q, 6), tab));
    }
}

const gg_kernel_entry gg_kernels_ik_bn_avx512[] = {
    {GG_T_IQ1_BN, GG_ISA_AVX512, dec_iq1_bn},
    {GG_T_IQ2_BN, GG_ISA_AVX512, dec_iq2_bn},
    {0},
};
#else
const gg_kernel_entry gg_kernels_ik_bn_avx512[] = {{0}};
#endif
