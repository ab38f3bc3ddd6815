/* ik_kt_avx2.c - AVX2 twins of ik_kt.c; same bytes for any input.
 *
 * As in ik_kt_avx512.c: the k-th generator state of a group is its start
 * times M^k (mod 2^32), so the 8 lanes of a vector run 8 steps at once (IQ4_KT:
 * two groups of 4). Group starts are computed for a whole superblock first,
 * then broadcast. Byte sums via vpmaddubsw + vpmaddwd are exact. */
#include "gguffs/decode.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "gguffs/fp16.h"
#include "ik_kt.h"
#include "tables.h"

/* Lane l holds M^(l % period + 1). */
static __m256i powers(int period)
{
    uint32_t p[8], x = 1;
    for (int l = 0; l < 8; l++) {
        x = l % period == 0 ? IKT_MULT : x * IKT_MULT;
        p[l] = x;
    }
    return _mm256_loadu_si256((const __m256i *)p);
}

/* ikt_value of every lane's state, as float: the byte sum (exact, by
 * vpmaddubsw + vpmaddwd) under the exponent bits of 2^23 is the float
 * 2^23 + sum; subtracting 2^23 + 126 leaves sum - 126 exactly. */
static inline __m256 kt_values(__m256i x)
{
    const __m256i s = _mm256_and_si256(x, _mm256_set1_epi32(0x3F3F3F3F));
    __m256i sum = _mm256_madd_epi16(_mm256_maddubs_epi16(s, _mm256_set1_epi8(1)), _mm256_set1_epi16(1));
    __m256 f = _mm256_castsi256_ps(_mm256_or_si256(sum, _mm256_set1_epi32(0x4B000000)));
    return _mm256_sub_ps(f, _mm256_set1_ps(8388608.0f + 126.0f));
}

/* 32 groups of 8 values, group k starting at x0[k], block k/4 scaled by sl. */
static inline void kt_groups8(const uint32_t x0[32], const float sl[8], __m256i pw, float *dst)
{
#pragma GCC unroll 8
    for (int k = 0; k < 32; k++) {
        __m256i x = _mm256_mullo_epi32(_mm256_set1_epi32((int)x0[k]), pw);
        __m256 v = kt_values(x);
        _mm256_storeu_ps(dst + 8 * k, _mm256_mul_ps(_mm256_set1_ps(sl[k / 4]), v));
    }
}

static inline __m256i ld8u8(const uint8_t *p) { return _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)p)); }

static void dec_iq1_kt(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m256i pw = powers(8), m15 = _mm256_set1_epi32(15), one = _mm256_set1_epi32(1);
    const __m256i shs = _mm256_setr_epi32(4, 5, 6, 7, 4, 5, 6, 7);
    const __m256i rep = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
    const float d = gg_rdf32(meta);
    for (int64_t i = 0; i < n; i++, src += 56, dst += 256) {
        float sl[8];
        uint32_t x0[32];
        for (int b = 0; b < 8; b++)
            sl[b] = d * (float)gg_iq4k_values[src[b] & 15];
        /* groups 8p..8p+7 (blocks 2p, 2p+1): ql, nibble p/2 of qh[8(p%2)..], bits of sh */
        for (int p = 0; p < 4; p++) {
            __m256i sh = _mm256_permutevar8x32_epi32(ld8u8(src), _mm256_add_epi32(rep, _mm256_set1_epi32(2 * p)));
            sh = _mm256_slli_epi32(_mm256_and_si256(_mm256_srlv_epi32(sh, shs), one), 12);
            __m256i hi = _mm256_and_si256(_mm256_srli_epi32(ld8u8(src + 40 + 8 * (p % 2)), 4 * (p / 2)), m15);
            __m256i x = _mm256_or_si256(_mm256_or_si256(ld8u8(src + 8 + 8 * p), _mm256_slli_epi32(hi, 8)), sh);
            _mm256_storeu_si256((__m256i *)(x0 + 8 * p), _mm256_add_epi32(x, _mm256_set1_epi32(4096)));
        }
        kt_groups8(x0, sl, pw, dst);
    }
}

static void dec_iq2_kt(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m256i pw = powers(8);
    const float d = gg_rdf32(meta);
    for (int64_t i = 0; i < n; i++, src += 68, dst += 256) {
        float sl[8];
        uint32_t x0[32];
        for (int b = 0; b < 8; b++)
            sl[b] = d * (float)gg_iq4k_values[(src[b % 4] >> 4 * (b / 4)) & 15];
        for (int p = 0; p < 4; p++) {
            __m256i x = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(src + 4 + 16 * p)));
            _mm256_storeu_si256((__m256i *)(x0 + 8 * p), _mm256_add_epi32(x, _mm256_set1_epi32(4096)));
        }
        kt_groups8(x0, sl, pw, dst);
    }
}

static void dec_iq3_kt(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m256i pw = powers(8), sign = _mm256_set1_epi32((int)0x80000000u);
    const float d = gg_rdf32(meta);
    for (int64_t i = 0; i < n; i++, src += 100, dst += 256) {
        float sl[8];
        uint32_t x0[32];
        for (int b = 0; b < 8; b++)
            sl[b] = d * (float)((src[b % 4] >> 4 * (b / 4)) & 15);
        for (int p = 0; p < 4; p++) {
            __m256i x = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(src + 4 + 16 * p)));
            _mm256_storeu_si256((__m256i *)(x0 + 8 * p), _mm256_add_epi32(x, _mm256_set1_epi32(4096)));
        }
        /* value j of group k is negated by bit k/4 of qh[8(k%4) + j] */
        const __m256i qh[4] = {ld8u8(src + 68), ld8u8(src + 76), ld8u8(src + 84), ld8u8(src + 92)};
        const __m256 absmask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFFFFFF));
#pragma GCC unroll 8
        for (int k = 0; k < 32; k++) {
            __m256i x = _mm256_mullo_epi32(_mm256_set1_epi32((int)x0[k]), pw);
            __m256 y = _mm256_mul_ps(_mm256_set1_ps(sl[k / 4]), _mm256_and_ps(kt_values(x), absmask));
            __m256i neg = _mm256_and_si256(_mm256_slli_epi32(qh[k % 4], 31 - k / 4), sign);
            _mm256_storeu_ps(dst + 8 * k, _mm256_xor_ps(y, _mm256_castsi256_ps(neg)));
        }
    }
}

static void dec_iq4_kt(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m256i pw = powers(4), m15 = _mm256_set1_epi32(15), m7 = _mm256_set1_epi32(7);
    const __m256i one = _mm256_set1_epi32(1);
    const __m256i wshift = _mm256_setr_epi32(8, 11, 14, 17, 20, 23, 26, 29);
    const __m256i pair = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
    const float d = gg_rdf32(meta);
    for (int64_t i = 0; i < n; i++, src += 128, dst += 256) {
        float sl[8];
        uint32_t x0[64];
        for (int b = 0; b < 8; b++)
            sl[b] = d * (float)((int)(src[4 * b] >> 1) - 64);
        /* groups 8b..8b+7 of block b: ql, nibble b/4 of qh[8(b%4)..], bits of w[b] */
        for (int b = 0; b < 8; b++) {
            __m256i w = _mm256_set1_epi32((int)gg_rd32(src + 4 * b));
            __m256i top = _mm256_slli_epi32(_mm256_and_si256(_mm256_srlv_epi32(w, wshift), m7), 12);
            __m256i hi = _mm256_and_si256(_mm256_srli_epi32(ld8u8(src + 96 + 8 * (b % 4)), 4 * (b / 4)), m15);
            __m256i x = _mm256_or_si256(_mm256_or_si256(ld8u8(src + 32 + 8 * b), _mm256_slli_epi32(hi, 8)), top);
            __m256i off = _mm256_add_epi32(_mm256_set1_epi32(4096), _mm256_slli_epi32(_mm256_and_si256(w, one), 15));
            _mm256_storeu_si256((__m256i *)(x0 + 8 * b), _mm256_add_epi32(x, off));
        }
#pragma GCC unroll 8
        for (int k = 0; k < 32; k++) { /* groups 2k, 2k+1 */
            __m256i x = _mm256_castsi128_si256(_mm_loadl_epi64((const __m128i *)(x0 + 2 * k)));
            x = _mm256_mullo_epi32(_mm256_permutevar8x32_epi32(x, pair), pw);
            __m256 v = kt_values(x);
            _mm256_storeu_ps(dst + 8 * k, _mm256_mul_ps(_mm256_set1_ps(sl[k / 4]), v));
        }
    }
}

const gg_kernel_entry gg_kernels_ik_kt_avx2[] = {
    {GG_T_IQ1_KT, GG_ISA_AVX2, dec_iq1_kt},
    {GG_T_IQ2_KT, GG_ISA_AVX2, dec_iq2_kt},
    {GG_T_IQ3_KT, GG_ISA_AVX2, dec_iq3_kt},
    {GG_T_IQ4_KT, GG_ISA_AVX2, dec_iq4_kt},
    {0},
};
#else
const gg_kernel_entry gg_kernels_ik_kt_avx2[] = {{0}};
#endif
