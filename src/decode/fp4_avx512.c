/* fp4_avx512.c - AVX-512 twins of fp4.c; the same bytes for any input.
 *
 * NVFP4: per scale, the 16 possible results kvalues_fp4[q] * scale are
 * computed once (the same multiplications the reference does per weight) and
 * each weight picks its one with vpermps on its nibble. Its scales are never
 * float32 subnormals, so no product is. MXFP4: see below. */
#include "gguffs/decode.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "gguffs/fp16.h"
#include "tables.h"

static inline __m512 fp4_values(void)
{
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)gg_kvalues_fp4)));
}

/* MXFP4 scales reach far into the float32 subnormal range (e8m0 byte 0 is
 * 2^-128 here), where precomputing all 16 products would make the CPU take
 * slow subnormal-result assists on values no weight uses. So each weight's
 * int8 value is looked up with pshufb, converted, and multiplied, exactly as
 * in the reference. */
static inline __m512 mul16(__m128i v, __m512 d)
{
    return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(v)), d);
}

static void dec_mxfp4(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const __m128i tbl = _mm_loadu_si128((const __m128i *)gg_kvalues_fp4);
    const __m128i m4 = _mm_set1_epi8(0x0f);
    for (int64_t i = 0; i < nb; i++, src += 17, y += 32) {
        const __m512 d = _mm512_set1_ps(gg_bits_to_f32(gg_mxfp4_e8m0_half_scale_bits[src[0]]));
        const __m128i x = _mm_loadu_si128((const __m128i *)(src + 1));
        _mm512_storeu_ps(y, mul16(_mm_shuffle_epi8(tbl, _mm_and_si128(x, m4)), d)); /* weights 0..15 */
        _mm512_storeu_ps(y + 16, mul16(_mm_shuffle_epi8(tbl, _mm_and_si128(_mm_srli_epi16(x, 4), m4)), d));
    }
}

static void dec_nvfp4(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const __m512 kv = fp4_values();
    /* lanes 0..7: low nibbles of the 8 bytes, lanes 8..15: high nibbles */
    const __m512i sh = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4, 4, 4);
    for (int64_t i = 0; i < nb; i++, src += 36) {
        for (int s = 0; s < 4; s++, y += 16) {
            const __m512 tab = _mm512_mul_ps(kv, _mm512_set1_ps(gg_bits_to_f32(gg_nvfp4_ue4m3_scale_bits[src[s]])));
            const __m128i x = _mm_loadl_epi64((const __m128i *)(src + 4 + 8 * s));
            const __m512i b = _mm512_srlv_epi32(_mm512_cvtepu8_epi32(_mm_unpacklo_epi64(x, x)), sh);
            _mm512_storeu_ps(y, _mm512_permutexvar_ps(b, tab));
        }
    }
}

const gg_kernel_entry gg_kernels_fp4_avx512[] = {
    {"MXFP4", GG_ISA_AVX512, dec_mxfp4},
    {"NVFP4", GG_ISA_AVX512, dec_nvfp4},
    {0},
};

#else
const gg_kernel_entry gg_kernels_fp4_avx512[] = {{0}};
#endif
