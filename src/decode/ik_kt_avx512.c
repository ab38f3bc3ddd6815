/* ik_kt_avx512.c - AVX-512 twins of ik_kt.c; same bytes for any input.
 *
 * The generator's k-th state is (index + offset) * M^k mod 2^32 (M = the
 * multiplier), so every value of a group is computed at once: the group's
 * start is broadcast to its lanes and multiplied by the lane's power of M.
 * The four masked bytes are summed exactly (vdbpsadbw, AVX512BW), turned
 * into the exact float sum - 126 and multiplied by the block scale: one
 * rounding, as in the scalar kernels. Block scales are computed as there. */
#include "gguffs/decode.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "gguffs/fp16.h"
#include "ik_kt.h"
#include "tables.h"

/* Lane l holds M^(l % period + 1). */
static __m512i powers(int period)
{
    uint32_t p[16], x = 1;
    for (int l = 0; l < 16; l++) {
        x = l % period == 0 ? IKT_MULT : x * IKT_MULT;
        p[l] = x;
    }
    return _mm512_loadu_si512(p);
}

/* ikt_value of every lane's state, as float. vdbpsadbw against zero puts
 * the sum of a lane's four bytes in both of its 16-bit halves; with the
 * exponent bits of 2^23 on top that is the float 2^23 + sum, and subtracting
 * 2^23 + 126 leaves sum - 126 exactly. */
static inline __m512 kt_values(__m512i x)
{
    const __m512i s = _mm512_and_si512(x, _mm512_set1_epi32(0x3F3F3F3F));
    const __m512i sum = _mm512_dbsad_epu8(s, _mm512_setzero_si512(), 0);
    const __m512i f = _mm512_ternarylogic_epi32(sum, _mm512_set1_epi32(0x4B000000), _mm512_set1_epi32(0xFFFF), 0xE4);
    return _mm512_sub_ps(_mm512_castsi512_ps(f), _mm512_set1_ps(8388608.0f + 126.0f));
}

/* Lanes 0..7 = lane 2p of v, lanes 8..15 = lane 2p+1. */
static inline __m512i spread8(__m512i v, int p)
{
    const __m512i pat = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
    return _mm512_permutexvar_epi32(_mm512_add_epi32(pat, _mm512_set1_epi32(2 * p)), v);
}

/* 32 group starts (8 values each) in idx[0], idx[1]; block b = groups 4b..4b+3. */
static inline void kt_groups8(const __m512i idx[2], const float sl[8], __m512i pw, float *dst)
{
#pragma GCC unroll 16
    for (int p = 0; p < 16; p++) {
        __m512i x = _mm512_mullo_epi32(spread8(idx[p / 8], p % 8), pw);
        _mm512_storeu_ps(dst + 16 * p, _mm512_mul_ps(_mm512_set1_ps(sl[p / 2]), kt_values(x)));
    }
}

static void dec_iq1_kt(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m512i pw = powers(8), m15 = _mm512_set1_epi32(15), one = _mm512_set1_epi32(1);
    const __m512i off = _mm512_set1_epi32(4096);
    const __m512i shs = _mm512_setr_epi32(4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7, 4, 5, 6, 7);
    const __m128i rep0 = _mm_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    const __m128i rep1 = _mm_setr_epi8(4, 4, 4, 4, 5, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 7);
    const float d = gg_rdf32(meta);
    for (int64_t i = 0; i < n; i++, src += 56, dst += 256) {
        float sl[8];
        for (int b = 0; b < 8; b++)
            sl[b] = d * (float)gg_iq4k_values[src[b] & 15];
        /* group k = 4b + g: ql[k] | nibble (k/16) of qh[k%16] << 8 | bit 4+g of sh[b] << 12 */
        __m128i sh = _mm_loadl_epi64((const __m128i *)src);
        __m512i qh = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(src + 40)));
        __m512i idx[2];
        for (int h = 0; h < 2; h++) {
            __m512i s = _mm512_cvtepu8_epi32(_mm_shuffle_epi8(sh, h ? rep1 : rep0));
            s = _mm512_slli_epi32(_mm512_and_si512(_mm512_srlv_epi32(s, shs), one), 12);
            __m512i hi = _mm512_slli_epi32(_mm512_and_si512(_mm512_srli_epi32(qh, 4 * h), m15), 8);
            __m512i lo = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(src + 8 + 16 * h)));
            idx[h] = _mm512_add_epi32(_mm512_or_si512(_mm512_or_si512(lo, hi), s), off);
        }
        kt_groups8(idx, sl, pw, dst);
    }
}

static void dec_iq2_kt(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m512i pw = powers(8), off = _mm512_set1_epi32(4096);
    const float d = gg_rdf32(meta);
    for (int64_t i = 0; i < n; i++, src += 68, dst += 256) {
        float sl[8];
        for (int b = 0; b < 8; b++)
            sl[b] = d * (float)gg_iq4k_values[(src[b % 4] >> 4 * (b / 4)) & 15];
        __m512i idx[2];
        for (int h = 0; h < 2; h++)
            idx[h] = _mm512_add_epi32(
                _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(src + 4 + 32 * h))), off);
        kt_groups8(idx, sl, pw, dst);
    }
}

static void dec_iq3_kt(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m512i pw = powers(8), off = _mm512_set1_epi32(4096);
    const __m512i sign = _mm512_set1_epi32((int)0x80000000u);
    const float d = gg_rdf32(meta);
    for (int64_t i = 0; i < n; i++, src += 100, dst += 256) {
        float sl[8];
        for (int b = 0; b < 8; b++)
            sl[b] = d * (float)((src[b % 4] >> 4 * (b / 4)) & 15);
        __m512i idx[2];
        for (int h = 0; h < 2; h++)
            idx[h] = _mm512_add_epi32(
                _mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(src + 4 + 32 * h))), off);
        /* sign of value 16p + l: bit p/2 of qh[(16p + l) % 32], moved to bit 31 */
        const __m512i qh[2] = {_mm512_slli_epi32(_mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(src + 68))), 24),
                               _mm512_slli_epi32(_mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(src + 84))), 24)};
        const __m512i absmask = _mm512_set1_epi32(0x7FFFFFFF);
#pragma GCC unroll 16
        for (int p = 0; p < 16; p++) {
            __m512i x = _mm512_mullo_epi32(spread8(idx[p / 8], p % 8), pw);
            __m512 v = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(kt_values(x)), absmask));
            __m512 y = _mm512_mul_ps(_mm512_set1_ps(sl[p / 2]), v);
            __m512i neg = _mm512_and_si512(_mm512_slli_epi32(qh[p % 2], 7 - p / 2), sign);
            _mm512_storeu_ps(dst + 16 * p, _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(y), neg)));
        }
    }
}

static void dec_iq4_kt(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m512i pw = powers(4), m15 = _mm512_set1_epi32(15), m7 = _mm512_set1_epi32(7);
    const __m512i one = _mm512_set1_epi32(1), base = _mm512_set1_epi32(4096);
    const __m512i wshift = _mm512_setr_epi32(8, 11, 14, 17, 20, 23, 26, 29, 8, 11, 14, 17, 20, 23, 26, 29);
    const __m512i wpat = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
    const __m512i qpat = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    const float d = gg_rdf32(meta);
    for (int64_t i = 0; i < n; i++, src += 128, dst += 256) {
        float sl[8];
        for (int b = 0; b < 8; b++)
            sl[b] = d * (float)((int)(src[4 * b] >> 1) - 64);
        const __m512i w = _mm512_castsi256_si512(_mm256_loadu_si256((const __m256i *)src));
        const __m512i qh[2] = {_mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(src + 96))),
                               _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(src + 112)))};
#pragma GCC unroll 4
        for (int p = 0; p < 4; p++) { /* groups 16p .. 16p+15 = blocks 2p, 2p+1 */
            __m512i wb = _mm512_permutexvar_epi32(_mm512_add_epi32(wpat, _mm512_set1_epi32(2 * p)), w);
            __m512i idx = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(src + 32 + 16 * p)));
            __m512i hi = _mm512_and_si512(_mm512_srli_epi32(qh[p % 2], 4 * (p / 2)), m15);
            __m512i top = _mm512_and_si512(_mm512_srlv_epi32(wb, wshift), m7);
            idx = _mm512_or_si512(idx, _mm512_or_si512(_mm512_slli_epi32(hi, 8), _mm512_slli_epi32(top, 12)));
            idx = _mm512_add_epi32(idx, _mm512_add_epi32(base, _mm512_slli_epi32(_mm512_and_si512(wb, one), 15)));
#pragma GCC unroll 4
            for (int q = 0; q < 4; q++) { /* 4 groups of 4 values, all in block 2p + q/2 */
                __m512i x = _mm512_permutexvar_epi32(_mm512_add_epi32(qpat, _mm512_set1_epi32(4 * q)), idx);
                x = _mm512_mullo_epi32(x, pw);
                float *o = dst + 64 * p + 16 * q;
                _mm512_storeu_ps(o, _mm512_mul_ps(_mm512_set1_ps(sl[2 * p + q / 2]), kt_values(x)));
            }
        }
    }
}

const gg_kernel_entry gg_kernels_ik_kt_avx512[] = {
    {GG_T_IQ1_KT, GG_ISA_AVX512, dec_iq1_kt},
    {GG_T_IQ2_KT, GG_ISA_AVX512, dec_iq2_kt},
    {GG_T_IQ3_KT, GG_ISA_AVX512, dec_iq3_kt},
    {GG_T_IQ4_KT, GG_ISA_AVX512, dec_iq4_kt},
    {0},
};
#else
const gg_kernel_entry gg_kernels_ik_kt_avx512[] = {{0}};
#endif
