/* ternary_avx2.c - AVX2 twins of ternary.c; the same bytes for any input.
 *
 * Every weight of these types is (code - 1) * d for a small code (Q1_0:
 * +-d). The few possible results are computed once per block with the very
 * multiplications the reference performs, and each weight picks its own with
 * vpermps on its code (vpermps reads index bits 0..2, so the 4-entry tables
 * are stored twice and bits above the code may be left in place). */
#include "gguffs/decode.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "gguffs/fp16.h"
#include "tables.h"

static inline float f16(const uint8_t *p) { return _cvtsh_ss(gg_rd16(p)); } /* exact, like gg_rdf16 */

/* (q - 1) * d for q = 0..3, twice. */
static inline __m256 codes_times_d(float d)
{
    return _mm256_mul_ps(_mm256_setr_ps(-1, 0, 1, 2, -1, 0, 1, 2), _mm256_set1_ps(d));
}

/* TQ1_0 digit k of 8 bytes in 32-bit lanes: ((uint8_t)(b * 3^k) * 3) >> 8.
 * The products fit in the low 16 bits of each lane, so 16-bit multiplies do. */
static inline __m256i tq1_digits(__m256i b, __m256i pow3)
{
    const __m256i q = _mm256_and_si256(_mm256_mullo_epi16(b, pow3), _mm256_set1_epi32(0xff));
    return _mm256_mulhi_epu16(q, _mm256_set1_epi32(3 << 8)); /* (q * 768) >> 16 */
}

static void dec_tq1_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    __m256i p[5];
    for (int k = 0; k < 5; k++)
        p[k] = _mm256_set1_epi32(gg_tq1_0_pow3[k]);
    const __m256i p01 = _mm256_setr_epi32(gg_tq1_0_pow3[0], gg_tq1_0_pow3[0], gg_tq1_0_pow3[0], gg_tq1_0_pow3[0],
                                          gg_tq1_0_pow3[1], gg_tq1_0_pow3[1], gg_tq1_0_pow3[1], gg_tq1_0_pow3[1]);
    const __m256i p23 = _mm256_setr_epi32(gg_tq1_0_pow3[2], gg_tq1_0_pow3[2], gg_tq1_0_pow3[2], gg_tq1_0_pow3[2],
                                          gg_tq1_0_pow3[3], gg_tq1_0_pow3[3], gg_tq1_0_pow3[3], gg_tq1_0_pow3[3]);
    for (int64_t i = 0; i < nb; i++, src += 54, y += 256) {
        const __m256 tab = codes_times_d(f16(src + 52)); /* digit 0, 1, 2 -> -d, 0*d, d */
        /* bytes 0..31: weight 32k + m is digit k of byte m */
        for (int c = 0; c < 4; c++) {
            const __m256i b = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(src + 8 * c)));
            for (int k = 0; k < 5; k++)
                _mm256_storeu_ps(y + 32 * k + 8 * c, _mm256_permutevar8x32_ps(tab, tq1_digits(b, p[k])));
        }
        /* bytes 32..47: weight 160 + 16k + m is digit k of byte 32 + m */
        for (int c = 0; c < 2; c++) {
            const __m256i b = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(src + 32 + 8 * c)));
            for (int k = 0; k < 5; k++)
                _mm256_storeu_ps(y + 160 + 16 * k + 8 * c, _mm256_permutevar8x32_ps(tab, tq1_digits(b, p[k])));
        }
        /* bytes 48..51: weight 240 + 4k + j is digit k of byte 48 + j */
        const __m256i b = _mm256_cvtepu8_epi32(_mm_set1_epi32((int)gg_rd32(src + 48)));
        _mm256_storeu_ps(y + 240, _mm256_permutevar8x32_ps(tab, tq1_digits(b, p01)));
        _mm256_storeu_ps(y + 248, _mm256_permutevar8x32_ps(tab, tq1_digits(b, p23)));
    }
}

static void dec_tq2_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    for (int64_t i = 0; i < nb; i++, src += 66, y += 256) {
        const __m256 tab = codes_times_d(f16(src + 64));
        for (int h = 0; h < 2; h++)
            for (int c = 0; c < 4; c++) {
                /* bytes m = 8c..8c+7 of this half; bits 2l..2l+1 are weight 32l + m */
                const __m256i b = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)(src + 32 * h + 8 * c)));
                float *o = y + 128 * h + 8 * c;
                _mm256_storeu_ps(o, _mm256_permutevar8x32_ps(tab, b));
                _mm256_storeu_ps(o + 32, _mm256_permutevar8x32_ps(tab, _mm256_srli_epi32(b, 2)));
                _mm256_storeu_ps(o + 64, _mm256_permutevar8x32_ps(tab, _mm256_srli_epi32(b, 4)));
                _mm256_storeu_ps(o + 96, _mm256_permutevar8x32_ps(tab, _mm256_srli_epi32(b, 6)));
            }
    }
}

static void dec_q1_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const __m256i sh = _mm256_setr_epi32(31, 30, 29, 28, 27, 26, 25, 24);
    const __m256i eight = _mm256_set1_epi32(8), smin = _mm256_set1_epi32(INT32_MIN);
    for (int64_t i = 0; i < nb; i++, src += 18) {
        /* -d, with its sign flipped back where the bit is 1 */
        const __m256i neg_d = _mm256_castps_si256(_mm256_set1_ps(-f16(src)));
        for (int w = 0; w < 4; w++, y += 32) {
            const __m256i bits = _mm256_set1_epi32((int)gg_rd32(src + 2 + 4 * w));
            __m256i s = sh;
            for (int k = 0; k < 4; k++, s = _mm256_sub_epi32(s, eight)) {
                const __m256i flip = _mm256_and_si256(_mm256_sllv_epi32(bits, s), smin);
                _mm256_storeu_si256((__m256i *)(y + 8 * k), _mm256_xor_si256(neg_d, flip));
            }
        }
    }
}

static void dec_q2_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const __m256i sh0 = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    const __m256i sh1 = _mm256_setr_epi32(16, 18, 20, 22, 24, 26, 28, 30);
    for (int64_t i = 0; i < nb; i++, src += 18) {
        const __m256 tab = codes_times_d(f16(src));
        for (int w = 0; w < 4; w++, y += 16) {
            /* 16 weights, 2 bits each, weight j at bits 2j..2j+1 */
            const __m256i bits = _mm256_set1_epi32((int)gg_rd32(src + 2 + 4 * w));
            _mm256_storeu_ps(y, _mm256_permutevar8x32_ps(tab, _mm256_srlv_epi32(bits, sh0)));
            _mm256_storeu_ps(y + 8, _mm256_permutevar8x32_ps(tab, _mm256_srlv_epi32(bits, sh1)));
        }
    }
}

const gg_kernel_entry gg_kernels_ternary_avx2[] = {
    {GG_T_TQ1_0, GG_ISA_AVX2, dec_tq1_0},
    {GG_T_TQ2_0, GG_ISA_AVX2, dec_tq2_0},
    {GG_T_Q1_0, GG_ISA_AVX2, dec_q1_0},
    {GG_T_Q2_0, GG_ISA_AVX2, dec_q2_0},
    {0},
};

#else
const gg_kernel_entry gg_kernels_ternary_avx2[] = {{0}};
#endif
