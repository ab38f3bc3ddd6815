/* forks_x86.h - x86 SIMD kernels of STQ1_0 (both element orders), PQ2_0 and
 * PTQ1_0. Included by forks_avx2.c and forks_avx512.c; with __AVX512F__ the
 * 16-value steps use one zmm register instead of two ymm ones.
 *
 * As in forks.c every value is (float)level * d, one multiplication; the
 * levels are computed as signed bytes and converted exactly. */
#ifndef GGUFFS_DECODE_FORKS_X86_H
#define GGUFFS_DECODE_FORKS_X86_H

#include <immintrin.h>
#include <stdint.h>

#include "gguffs/decode.h"
#include "gguffs/fp16.h"
#include "forks.h"
#include "tables.h"

/* y[0..15] = levels q (signed bytes) times d. */
static inline void ggf_put16(float *y, __m128i q, float d)
{
#if defined(__AVX512F__)
    _mm512_storeu_ps(y, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q)), _mm512_set1_ps(d)));
#else
    __m256 vd = _mm256_set1_ps(d);
    _mm256_storeu_ps(y, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q)), vd));
    _mm256_storeu_ps(y + 8, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(q, 8))), vd));
#endif
}

/* l[s][m] (s = 0..3, m = 0..15) is the level of value 4m + s; store the 64
 * values in order. */
static inline void ggf_put64_by4(float *y, const __m128i l[4], float d)
{
    __m128i a = _mm_unpacklo_epi8(l[0], l[1]), b = _mm_unpacklo_epi8(l[2], l[3]);
    __m128i c = _mm_unpackhi_epi8(l[0], l[1]), e = _mm_unpackhi_epi8(l[2], l[3]);
    ggf_put16(y, _mm_unpacklo_epi16(a, b), d);
    ggf_put16(y + 16, _mm_unpackhi_epi16(a, b), d);
    ggf_put16(y + 32, _mm_unpacklo_epi16(c, e), d);
    ggf_put16(y + 48, _mm_unpackhi_epi16(c, e), d);
}

/* The four 2-bit fields of each byte of x, as levels field - 1. */
static inline void ggf_fields2(__m128i x, __m128i l[4])
{
    const __m128i m3 = _mm_set1_epi8(3), one = _mm_set1_epi8(1);
    l[0] = _mm_sub_epi8(_mm_and_si128(x, m3), one);
    l[1] = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(x, 2), m3), one);
    l[2] = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(x, 4), m3), one);
    l[3] = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(x, 6), m3), one);
}

/* STQ1_0: per 64-value chunk, the 16 groups' pattern bytes are looked up at
 * once (slot nibbles as the index, the sign bit choosing the table half);
 * lane p of all 16 groups is one row of 16 levels. */
static inline void ggf_stq1_block(const uint8_t *b, float *y, int stride16)
{
    const __m128i cb0 = _mm_loadu_si128((const __m128i *)gg_stq1_codebook);
    const __m128i cb1 = _mm_loadu_si128((const __m128i *)(gg_stq1_codebook + 16));
    const __m128i m4 = _mm_set1_epi8(15);
    const __m128i which = _mm_setr_epi8(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
    const __m128i bit = _mm_setr_epi8(1, 2, 4, 8, 16, 32, 64, -128, 1, 2, 4, 8, 16, 32, 64, -128);
    float d = gg_rdf16(b + 40);
    for (int ch = 0; ch < 4; ch++) {
        __m128i x = _mm_loadl_epi64((const __m128i *)(b + 8 * ch));
        __m128i slot = _mm_unpacklo_epi8(_mm_and_si128(x, m4), _mm_and_si128(_mm_srli_epi16(x, 4), m4));
        __m128i sb = _mm_shuffle_epi8(_mm_set1_epi16((short)gg_rd16(b + 32 + 2 * ch)), which);
        __m128i neg = _mm_cmpeq_epi8(_mm_and_si128(sb, bit), bit);
        __m128i pat = _mm_blendv_epi8(_mm_shuffle_epi8(cb0, slot), _mm_shuffle_epi8(cb1, slot), neg);
        __m128i l[4];
        ggf_fields2(pat, l);
        if (stride16) {
            for (int p = 0; p < 4; p++)
                ggf_put16(y + 64 * ch + 16 * p, l[p], d);
        } else {
            ggf_put64_by4(y + 64 * ch, l, d);
        }
    }
}

static void ggf_stq1_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                       int64_t dst_stride)
{
    for (int64_t i = 0; i < nblocks; i++)
        ggf_stq1_block(src + 42 * i, dst + 256 * i, 1);
}

static void ggf_stq1_0_consecutive(const uint8_t *meta, const uint8_t *src, float *dst,
                                   int64_t nblocks, int64_t dst_stride)
{
    for (int64_t i = 0; i < nblocks; i++)
        ggf_stq1_block(src + 42 * i, dst + 256 * i, 0);
}

/* PQ2_0: 16 code bytes give 64 consecutive values. */
static void ggf_pq2_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                      int64_t dst_stride)
{
    for (int64_t i = 0; i < nblocks; i++) {
        const uint8_t *b = src + 34 * i;
        float d = gg_rdf16(b), *y = dst + 128 * i;
        for (int h = 0; h < 2; h++) {
            __m128i l[4];
            ggf_fields2(_mm_loadu_si128((const __m128i *)(b + 2 + 16 * h)), l);
            ggf_put64_by4(y + 64 * h, l, d);
        }
    }
}

/* PTQ1_0: the digit rule on 16-bit lanes; digit n of qs[0..15] is values
 * 16n .. 16n+15, digit n of qs[16..23] values 80 + 8n .. 80 + 8n + 7 (two
 * digits per 16-value step); the 8 values of qh are done one by one. */
static inline __m256i ggf_ptq_levels(__m256i v, int n)
{
    __m256i x = _mm256_and_si256(_mm256_mullo_epi16(v, _mm256_set1_epi16(gg_tq1_0_pow3[n])),
                                 _mm256_set1_epi16(255));
    return _mm256_sub_epi16(_mm256_srli_epi16(_mm256_mullo_epi16(x, _mm256_set1_epi16(3)), 8),
                            _mm256_set1_epi16(1));
}

static inline __m128i ggf_pack16(__m256i v)
{
    return _mm_packs_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
}

static void ggf_ptq1_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                       int64_t dst_stride)
{
    for (int64_t i = 0; i < nblocks; i++) {
        const uint8_t *b = src + 28 * i;
        float d = gg_rdf16(b + 26), *y = dst + 128 * i;
        __m256i a = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)b));
        /* qs[16..23] twice: lanes 0-7 for digit n, lanes 8-15 for digit n+1 */
        __m128i t = _mm_loadl_epi64((const __m128i *)(b + 16));
        __m256i c = _mm256_cvtepu8_epi16(_mm_unpacklo_epi64(t, t));
        for (int n = 0; n < 5; n++)
            ggf_put16(y + 16 * n, ggf_pack16(ggf_ptq_levels(a, n)), d);
        for (int n = 0; n < 4; n += 2) {
            __m256i lo = ggf_ptq_levels(c, n), hi = ggf_ptq_levels(c, n + 1);
            __m256i both = _mm256_blend_epi32(lo, hi, 0xF0);
            ggf_put16(y + 80 + 8 * n, ggf_pack16(both), d);
        }
        for (int m = 0; m < 8; m++)
            y[112 + m] = gg_ptq_value(b[16 + m], 4, d);
        for (int n = 0; n < 4; n++)
            for (int h = 0; h < 2; h++)
                y[120 + 2 * n + h] = gg_ptq_value(b[24 + h], n, d);
    }
}

#define GGF_FORKS_ENTRIES(isa)                                                                     \
    {GG_T_STQ1_0, isa, ggf_stq1_0}, {GG_T_STQ1_0_CONSECUTIVE, isa, ggf_stq1_0_consecutive},             \
        {GG_T_PQ2_0, isa, ggf_pq2_0}, {GG_T_PTQ1_0, isa, ggf_ptq1_0},

#endif
