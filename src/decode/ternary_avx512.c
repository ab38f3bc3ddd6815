/* ternary_avx512.c - AVX-512 twins of ternary.c; the same bytes for any input.
 *
 * As in ternary_avx2.c: the few possible results (code - 1) * d are computed
 * once per block with the reference's own multiplications, and each weight
 * picks its one with vpermps (index bits 0..3, so the 4-entry table is
 * repeated four times). Q1_0 picks d or -d with a mask blend on its bits. */
#include "gguffs/decode.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "gguffs/fp16.h"
#include "tables.h"

static inline float f16(const uint8_t *p) { return _cvtsh_ss(gg_rd16(p)); } /* exact, like gg_rdf16 */

/* (q - 1) * d for q = 0..3, four times. */
static inline __m512 codes_times_d(float d)
{
    return _mm512_mul_ps(_mm512_setr_ps(-1, 0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2, -1, 0, 1, 2), _mm512_set1_ps(d));
}

/* TQ1_0 digit k of 16 bytes in 32-bit lanes: ((uint8_t)(b * 3^k) * 3) >> 8
 * (products fit in 16 bits, so 16-bit multiplies do). */
static inline __m512i tq1_digits(__m512i b, __m512i pow3)
{
    const __m512i q = _mm512_and_si512(_mm512_mullo_epi16(b, pow3), _mm512_set1_epi32(0xff));
    return _mm512_mulhi_epu16(q, _mm512_set1_epi32(3 << 8)); /* (q * 768) >> 16 */
}

static void dec_tq1_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    __m512i p[5];
    for (int k = 0; k < 5; k++)
        p[k] = _mm512_set1_epi32(gg_tq1_0_pow3[k]);
    /* lanes 4k..4k+3: 3^k, for the 4 qh bytes */
    const __m512i pq = _mm512_cvtepu8_epi32(_mm_setr_epi8(
        (char)gg_tq1_0_pow3[0], (char)gg_tq1_0_pow3[0], (char)gg_tq1_0_pow3[0], (char)gg_tq1_0_pow3[0],
        (char)gg_tq1_0_pow3[1], (char)gg_tq1_0_pow3[1], (char)gg_tq1_0_pow3[1], (char)gg_tq1_0_pow3[1],
        (char)gg_tq1_0_pow3[2], (char)gg_tq1_0_pow3[2], (char)gg_tq1_0_pow3[2], (char)gg_tq1_0_pow3[2],
        (char)gg_tq1_0_pow3[3], (char)gg_tq1_0_pow3[3], (char)gg_tq1_0_pow3[3], (char)gg_tq1_0_pow3[3]));
    for (int64_t i = 0; i < nb; i++, src += 54, y += 256) {
        const __m512 tab = codes_times_d(f16(src + 52)); /* digit 0, 1, 2 -> -d, 0*d, d */
        /* bytes 0..31: weight 32k + m is digit k of byte m */
        for (int c = 0; c < 2; c++) {
            const __m512i b = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(src + 16 * c)));
            for (int k = 0; k < 5; k++)
                _mm512_storeu_ps(y + 32 * k + 16 * c, _mm512_permutexvar_ps(tq1_digits(b, p[k]), tab));
        }
        /* bytes 32..47: weight 160 + 16k + m is digit k of byte 32 + m */
        const __m512i b = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(src + 32)));
        for (int k = 0; k < 5; k++)
            _mm512_storeu_ps(y + 160 + 16 * k, _mm512_permutexvar_ps(tq1_digits(b, p[k]), tab));
        /* bytes 48..51: weight 240 + 4k + j is digit k of byte 48 + j */
        const __m512i h = _mm512_cvtepu8_epi32(_mm_set1_epi32((int)gg_rd32(src + 48)));
        _mm512_storeu_ps(y + 240, _mm512_permutexvar_ps(tq1_digits(h, pq), tab));
    }
}

static void dec_tq2_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    for (int64_t i = 0; i < nb; i++, src += 66, y += 256) {
        const __m512 tab = codes_times_d(f16(src + 64));
        for (int h = 0; h < 2; h++)
            for (int c = 0; c < 2; c++) {
                /* bytes m = 16c..16c+15 of this half; bits 2l..2l+1 are weight 32l + m */
                const __m512i b = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)(src + 32 * h + 16 * c)));
                float *o = y + 128 * h + 16 * c;
                _mm512_storeu_ps(o, _mm512_permutexvar_ps(b, tab));
                _mm512_storeu_ps(o + 32, _mm512_permutexvar_ps(_mm512_srli_epi32(b, 2), tab));
                _mm512_storeu_ps(o + 64, _mm512_permutexvar_ps(_mm512_srli_epi32(b, 4), tab));
                _mm512_storeu_ps(o + 96, _mm512_permutexvar_ps(_mm512_srli_epi32(b, 6), tab));
            }
    }
}

static void dec_q1_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    for (int64_t i = 0; i < nb; i++, src += 18) {
        const float d = f16(src);
        const __m512 pos = _mm512_set1_ps(d), neg = _mm512_set1_ps(-d);
        for (int k = 0; k < 8; k++, y += 16) /* bit j of the 16: d if set, else -d */
            _mm512_storeu_ps(y, _mm512_mask_blend_ps((__mmask16)gg_rd16(src + 2 + 2 * k), neg, pos));
    }
}

static void dec_q2_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const __m512i sh = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    for (int64_t i = 0; i < nb; i++, src += 18) {
        const __m512 tab = codes_times_d(f16(src));
        for (int w = 0; w < 4; w++, y += 16) {
            /* 16 weights, 2 bits each, weight j at bits 2j..2j+1 */
            const __m512i bits = _mm512_set1_epi32((int)gg_rd32(src + 2 + 4 * w));
            _mm512_storeu_ps(y, _mm512_permutexvar_ps(_mm512_srlv_epi32(bits, sh), tab));
        }
    }
}

const gg_kernel_entry gg_kernels_ternary_avx512[] = {
    {GG_T_TQ1_0, GG_ISA_AVX512, dec_tq1_0},
    {GG_T_TQ2_0, GG_ISA_AVX512, dec_tq2_0},
    {GG_T_Q1_0, GG_ISA_AVX512, dec_q1_0},
    {GG_T_Q2_0, GG_ISA_AVX512, dec_q2_0},
    {0},
};

#else
const gg_kernel_entry gg_kernels_ternary_avx512[] = {{0}};
#endif
