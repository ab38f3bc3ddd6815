/* fp4_avx2.c - AVX2 twins of fp4.c; the same bytes for any input.
 *
 * The 16-entry int8 value table (kvalues_fp4) is applied to the nibbles with
 * pshufb; the int8 values are widened, converted to float (exactly) and
 * multiplied by the block's scale, as the reference does per weight. */
#include "gguffs/decode.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "gguffs/fp16.h"
#include "tables.h"

/* 8 int8 values (low bytes of v) times d -> y[0..8). */
static inline void put8(float *y, __m128i v, __m256 d)
{
    _mm256_storeu_ps(y, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)), d));
}

static void dec_mxfp4(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const __m128i tbl = _mm_loadu_si128((const __m128i *)gg_kvalues_fp4);
    const __m128i m4 = _mm_set1_epi8(0x0f);
    for (int64_t i = 0; i < nb; i++, src += 17, y += 32) {
        const __m256 d = _mm256_set1_ps(gg_bits_to_f32(gg_mxfp4_e8m0_half_scale_bits[src[0]]));
        const __m128i x = _mm_loadu_si128((const __m128i *)(src + 1));
        const __m128i lo = _mm_shuffle_epi8(tbl, _mm_and_si128(x, m4));                   /* weights 0..15 */
        const __m128i hi = _mm_shuffle_epi8(tbl, _mm_and_si128(_mm_srli_epi16(x, 4), m4)); /* 16..31 */
        put8(y + 0, lo, d);
        put8(y + 8, _mm_srli_si128(lo, 8), d);
        put8(y + 16, hi, d);
        put8(y + 24, _mm_srli_si128(hi, 8), d);
    }
}

static void dec_nvfp4(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const __m128i tbl = _mm_loadu_si128((const __m128i *)gg_kvalues_fp4);
    const __m128i m4 = _mm_set1_epi8(0x0f);
    for (int64_t i = 0; i < nb; i++, src += 36, y += 64) {
        for (int h = 0; h < 2; h++) {
            /* 16 code bytes = sub-blocks 2h and 2h+1, 8 bytes each */
            const __m128i x = _mm_loadu_si128((const __m128i *)(src + 4 + 16 * h));
            const __m128i lo = _mm_shuffle_epi8(tbl, _mm_and_si128(x, m4));
            const __m128i hi = _mm_shuffle_epi8(tbl, _mm_and_si128(_mm_srli_epi16(x, 4), m4));
            const __m256 d0 = _mm256_set1_ps(gg_bits_to_f32(gg_nvfp4_ue4m3_scale_bits[src[2 * h]]));
            const __m256 d1 = _mm256_set1_ps(gg_bits_to_f32(gg_nvfp4_ue4m3_scale_bits[src[2 * h + 1]]));
            float *o = y + 32 * h;
            put8(o + 0, lo, d0);                     /* sub-block 2h: low nibbles, weights 0..7 */
            put8(o + 8, hi, d0);                     /* high nibbles, weights 8..15 */
            put8(o + 16, _mm_srli_si128(lo, 8), d1); /* sub-block 2h+1 */
            put8(o + 24, _mm_srli_si128(hi, 8), d1);
        }
    }
}

const gg_kernel_entry gg_kernels_fp4_avx2[] = {
    {"MXFP4", GG_ISA_AVX2, dec_mxfp4},
    {"NVFP4", GG_ISA_AVX2, dec_nvfp4},
    {0},
};

#else
const gg_kernel_entry gg_kernels_fp4_avx2[] = {{0}};
#endif
