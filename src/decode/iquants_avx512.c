/* iquants_avx512.c - AVX-512 twins of iquants.c; the same bytes for any input.
 *
 * Grid types: two groups of 8 weights (two codebook entries, loaded with
 * scalar loads) make one vector of 16; magnitudes are widened, converted
 * exactly to float and multiplied by the group scale; the reference's
 * multiplication by -1 is an exact sign flip, done with a masked XOR of the
 * sign bit (the sign bytes are the mask). Scales come from iquants.h, shared
 * with the scalar code.
 *
 * IQ4: per group, the 16 possible results dl * kvalues[q] are computed once
 * (the same multiplications the reference does per weight), and each weight
 * picks its one with vpermps on its nibble. */
#include "gguffs/decode.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "iquants.h"
#include "tables.h"

static inline float f16(const uint8_t *p) { return _cvtsh_ss(gg_rd16(p)); } /* exact, like gg_rdf16 */

/* Bytes of g0 then g1 -> 16 floats (unsigned / signed bytes). */
static inline __m512 u8x16_ps(uint64_t g0, uint64_t g1)
{
    return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(_mm_set_epi64x((long long)g1, (long long)g0)));
}
static inline __m512 i8x16_ps(uint64_t g0, uint64_t g1)
{
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_set_epi64x((long long)g1, (long long)g0)));
}

/* y[0..16) = dl * magnitude, sign-flipped where bit j of (s0 | s1 << 8) is set. */
static inline void put16_signed(float *y, __m512 dl, uint64_t g0, uint64_t g1, uint32_t s0, uint32_t s1)
{
    __m512i v = _mm512_castps_si512(_mm512_mul_ps(dl, u8x16_ps(g0, g1)));
    v = _mm512_mask_xor_epi32(v, (__mmask16)(s0 | s1 << 8), v, _mm512_set1_epi32(INT32_MIN));
    _mm512_storeu_si512(y, v);
}

/* IQ1: y[0..16) = dl * ((float)grid + delta). */
static inline void put16_iq1(float *y, __m512 dl, uint64_t g0, uint64_t g1, __m512 delta)
{
    _mm512_storeu_ps(y, _mm512_mul_ps(dl, _mm512_add_ps(i8x16_ps(g0, g1), delta)));
}

/* The group scales of a block are computed together, lane by lane with the
 * same operations as iquants.h, and stored to a small array from which each
 * group broadcasts its own. */

/* 16 4-bit scales, low nibble of byte 0 first -> 16 int32 lanes. */
static inline __m512 nibbles16_ps(const uint8_t *p)
{
    const __m128i x = _mm_loadl_epi64((const __m128i *)p), m4 = _mm_set1_epi8(0x0f);
    const __m128i n = _mm_unpacklo_epi8(_mm_and_si128(x, m4), _mm_and_si128(_mm_srli_epi16(x, 4), m4));
    return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(n));
}

/* d * (s + 1/2) / 4 for 16 scales, as iq2_group_scale. */
static inline void iq2_scales16(float *dls, float d, __m512 s)
{
    const __m512 t = _mm512_mul_ps(_mm512_set1_ps(d), _mm512_add_ps(_mm512_set1_ps(0.5f), s));
    _mm512_store_ps(dls, _mm512_mul_ps(t, _mm512_set1_ps(0.25f)));
}

static void dec_iq2_xxs(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const uint64_t *grid = gg_iq2xxs_grid;
    const uint8_t *ks = gg_ksigns_iq2xs;
    float dls[8] __attribute__((aligned(32)));
    for (int64_t i = 0; i < nb; i++, src += IQ2_XXS_BYTES) {
        /* scale of group g: top 4 bits of its 8 bytes read as a uint64 */
        const __m256 s = _mm512_cvtepi64_ps(_mm512_srli_epi64(_mm512_loadu_si512(src + 2), 60));
        const __m256 t = _mm256_mul_ps(_mm256_set1_ps(f16(src)), _mm256_add_ps(_mm256_set1_ps(0.5f), s));
        _mm256_store_ps(dls, _mm256_mul_ps(t, _mm256_set1_ps(0.25f)));
        for (int g = 0; g < 8; g++, y += 32) {
            const uint8_t *q = src + 2 + 8 * g;
            const uint32_t w = gg_rd32(q + 4);
            const __m512 dl = _mm512_set1_ps(dls[g]);
            put16_signed(y, dl, grid[q[0]], grid[q[1]], ks[w & 127], ks[(w >> 7) & 127]);
            put16_signed(y + 16, dl, grid[q[2]], grid[q[3]], ks[(w >> 14) & 127], ks[(w >> 21) & 127]);
        }
    }
}

static void dec_iq2_xs(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const uint64_t *grid = gg_iq2xs_grid;
    const uint8_t *ks = gg_ksigns_iq2xs;
    float dls[16] __attribute__((aligned(64)));
    for (int64_t i = 0; i < nb; i++, src += IQ2_XS_BYTES) {
        iq2_scales16(dls, f16(src), nibbles16_ps(src + 66));
        for (int g = 0; g < 8; g++, y += 32) {
            const uint64_t q = gg_rd64(src + 2 + 8 * g); /* four uint16 codes */
            const uint32_t q0 = (uint32_t)q & 0xffff, q1 = (uint32_t)(q >> 16) & 0xffff;
            const uint32_t q2 = (uint32_t)(q >> 32) & 0xffff, q3 = (uint32_t)(q >> 48);
            put16_signed(y, _mm512_set1_ps(dls[2 * g]), grid[q0 & 511], grid[q1 & 511], ks[q0 >> 9], ks[q1 >> 9]);
            put16_signed(y + 16, _mm512_set1_ps(dls[2 * g + 1]), grid[q2 & 511], grid[q3 & 511], ks[q2 >> 9],
                         ks[q3 >> 9]);
        }
    }
}

static void dec_iq2_s(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const uint64_t *grid = gg_iq2s_grid;
    float dls[16] __attribute__((aligned(64)));
    for (int64_t i = 0; i < nb; i++, src += IQ2_S_BYTES) {
        const uint8_t *qs = src + 2, *signs = src + 34, *qh = src + 66;
        iq2_scales16(dls, f16(src), nibbles16_ps(src + 74));
        for (int g = 0; g < 8; g++, y += 32, qs += 4, signs += 4) {
            const uint32_t h = qh[g];
            put16_signed(y, _mm512_set1_ps(dls[2 * g]), grid[qs[0] | ((h << 8) & 0x300)],
                         grid[qs[1] | ((h << 6) & 0x300)], signs[0], signs[1]);
            put16_signed(y + 16, _mm512_set1_ps(dls[2 * g + 1]), grid[qs[2] | ((h << 4) & 0x300)],
                         grid[qs[3] | ((h << 2) & 0x300)], signs[2], signs[3]);
        }
    }
}

/* IQ3_S: 16 4-byte grid entries are gathered at once, 64 magnitude bytes =
 * two groups of 32 weights; put64_signed writes them, dl0 for the first group, dl1 for the
 * second, sign bit j of `signs` flipping weight j. */
static inline void put64_signed(float *y, __m512 dl0, __m512 dl1, __m512i mag, uint64_t signs)
{
    const __m512i sbit = _mm512_set1_epi32(INT32_MIN);
    const __m128i part[4] = {_mm512_castsi512_si128(mag), _mm512_extracti32x4_epi32(mag, 1),
                       _mm512_extracti32x4_epi32(mag, 2), _mm512_extracti32x4_epi32(mag, 3)};
    for (int k = 0; k < 4; k++) {
        __m512i v = _mm512_castps_si512(
            _mm512_mul_ps(k < 2 ? dl0 : dl1, _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(part[k]))));
        v = _mm512_mask_xor_epi32(v, (__mmask16)(signs >> (16 * k)), v, sbit);
        _mm512_storeu_si512(y + 16 * k, v);
    }
}

static inline uint64_t grid2x32(const uint32_t *grid, uint32_t a, uint32_t b)
{
    return grid[a] | (uint64_t)grid[b] << 32;
}

static void dec_iq3_xxs(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const uint32_t *grid = gg_iq3xxs_grid;
    const uint8_t *ks = gg_ksigns_iq2xs;
    float dls[8] __attribute__((aligned(32)));
    for (int64_t i = 0; i < nb; i++, src += IQ3_XXS_BYTES) {
        const uint8_t *qs = src + 2;
        /* scale of group g: top 4 bits of the uint32 at 66 + 4g */
        const __m256 s = _mm256_cvtepi32_ps(_mm256_srli_epi32(_mm256_loadu_si256((const __m256i *)(src + 66)), 28));
        const __m256 t = _mm256_mul_ps(_mm256_set1_ps(f16(src)), _mm256_add_ps(_mm256_set1_ps(0.5f), s));
        _mm256_store_ps(dls, _mm256_mul_ps(t, _mm256_set1_ps(0.5f)));
        for (int g = 0; g < 8; g++, y += 32, qs += 8) {
            const uint32_t w = gg_rd32(src + 66 + 4 * g);
            const __m512 dl = _mm512_set1_ps(dls[g]);
            put16_signed(y, dl, grid2x32(grid, qs[0], qs[1]), grid2x32(grid, qs[2], qs[3]), ks[w & 127],
                         ks[(w >> 7) & 127]);
            put16_signed(y + 16, dl, grid2x32(grid, qs[4], qs[5]), grid2x32(grid, qs[6], qs[7]),
                         ks[(w >> 14) & 127], ks[(w >> 21) & 127]);
        }
    }
}

static void dec_iq3_s(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    /* index k of a pair of groups: bit 8 is bit k%8 of qh byte k/8 */
    const __m512i hsel = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1);
    const __m512i hsh = _mm512_setr_epi32(8, 7, 6, 5, 4, 3, 2, 1, 8, 7, 6, 5, 4, 3, 2, 1);
    float dls[8] __attribute__((aligned(32)));
    for (int64_t i = 0; i < nb; i++, src += IQ3_S_BYTES) {
        const uint8_t *qs = src + 2, *qh = src + 66, *signs = src + 74;
        {   /* 8 nibble scales at 106, low nibble first: d * (2s+1) */
            const __m128i x = _mm_cvtsi32_si128((int)gg_rd32(src + 106)), m4 = _mm_set1_epi8(0x0f);
            const __m128i n = _mm_unpacklo_epi8(_mm_and_si128(x, m4), _mm_and_si128(_mm_srli_epi16(x, 4), m4));
            const __m256i s = _mm256_cvtepu8_epi32(n);
            const __m256i odd = _mm256_add_epi32(_mm256_add_epi32(s, s), _mm256_set1_epi32(1));
            _mm256_store_ps(dls, _mm256_mul_ps(_mm256_set1_ps(f16(src)), _mm256_cvtepi32_ps(odd)));
        }
        for (int g = 0; g < 8; g += 2, y += 64, qs += 16, qh += 2, signs += 8) {
            const __m512i h = _mm512_permutexvar_epi32(hsel, _mm512_cvtepu8_epi32(_mm_cvtsi32_si128(gg_rd16(qh))));
            __m512i idx = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)qs));
            idx = _mm512_or_si512(idx, _mm512_and_si512(_mm512_sllv_epi32(h, hsh), _mm512_set1_epi32(256)));
            const __m512i mag = _mm512_i32gather_epi32(idx, (const int *)gg_iq3s_grid, 4);
            put64_signed(y, _mm512_set1_ps(dls[g]), _mm512_set1_ps(dls[g + 1]), mag, gg_rd64(signs));
        }
    }
}

static void dec_iq1_s(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const uint64_t *grid = gg_iq1s_grid;
    float dls[8] __attribute__((aligned(32))), deltas[8] __attribute__((aligned(32)));
    for (int64_t i = 0; i < nb; i++, src += IQ1_S_BYTES) {
        const uint8_t *qs = src + 2;
        {   /* per group g, the uint16 h at 34 + 2g: scale d*(2s+1), s = bits 12..14;
             * delta +-1/8 negative if bit 15 is set */
            const __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(src + 34)));
            const __m256i s = _mm256_and_si256(_mm256_srli_epi32(h, 12), _mm256_set1_epi32(7));
            const __m256i odd = _mm256_add_epi32(_mm256_add_epi32(s, s), _mm256_set1_epi32(1));
            _mm256_store_ps(dls, _mm256_mul_ps(_mm256_set1_ps(f16(src)), _mm256_cvtepi32_ps(odd)));
            const __m256i sgn = _mm256_and_si256(_mm256_slli_epi32(h, 16), _mm256_set1_epi32(INT32_MIN));
            _mm256_store_ps(deltas, _mm256_xor_ps(_mm256_set1_ps(gg_iq1s_delta[0]), _mm256_castsi256_ps(sgn)));
        }
        for (int g = 0; g < 8; g++, y += 32, qs += 4) {
            const uint32_t h = gg_rd16(src + 34 + 2 * g);
            const __m512 dl = _mm512_set1_ps(dls[g]), delta = _mm512_set1_ps(deltas[g]);
            put16_iq1(y, dl, grid[qs[0] | ((h << 8) & 0x700)], grid[qs[1] | ((h << 5) & 0x700)], delta);
            put16_iq1(y + 16, dl, grid[qs[2] | ((h << 2) & 0x700)], grid[qs[3] | ((h >> 1) & 0x700)], delta);
        }
    }
}

static void dec_iq1_m(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const uint64_t *grid = gg_iq1s_grid;
    const __m512 pos = _mm512_set1_ps(gg_iq1m_delta[0]), neg = _mm512_set1_ps(-gg_iq1m_delta[0]);
    /* the 16 3-bit scales of a block: scale k is at bit 3(k%4) of word k/4 */
    const __m512i wsel = _mm512_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    const __m512i wsh = _mm512_setr_epi32(0, 3, 6, 9, 0, 3, 6, 9, 0, 3, 6, 9, 0, 3, 6, 9);
    float dls[16] __attribute__((aligned(64)));
    for (int64_t i = 0; i < nb; i++, src += IQ1_M_BYTES) {
        const uint8_t *qs = src, *qh = src + 32, *sc = src + 48;
        const float d = _cvtsh_ss(iq1m_block_scale_bits(src));
        /* dls[2g], dls[2g+1]: d*(2s+1) for the first / last 16 weights of group g */
        const __m512i w = _mm512_permutexvar_epi32(wsel, _mm512_cvtepu16_epi32(_mm256_castsi128_si256(
                                                               _mm_loadl_epi64((const __m128i *)sc))));
        const __m512i s = _mm512_and_si512(_mm512_srlv_epi32(w, wsh), _mm512_set1_epi32(7));
        const __m512i odd = _mm512_add_epi32(_mm512_add_epi32(s, s), _mm512_set1_epi32(1));
        _mm512_store_ps(dls, _mm512_mul_ps(_mm512_set1_ps(d), _mm512_cvtepi32_ps(odd)));
        for (int g = 0; g < 8; g++, y += 32, qs += 4) {
            const uint32_t h0 = qh[2 * g], h1 = qh[2 * g + 1];
            /* delta sign bits 3 and 7 of each qh byte -> lanes 0..7 / 8..15 */
            const __mmask16 n0 = (__mmask16)(((0u - ((h0 >> 3) & 1)) & 0xff) | ((0u - (h0 >> 7)) & 0xff00));
            const __mmask16 n1 = (__mmask16)(((0u - ((h1 >> 3) & 1)) & 0xff) | ((0u - (h1 >> 7)) & 0xff00));
            put16_iq1(y, _mm512_set1_ps(dls[2 * g]), grid[qs[0] | ((h0 << 8) & 0x700)],
                      grid[qs[1] | ((h0 << 4) & 0x700)], _mm512_mask_blend_ps(n0, pos, neg));
            put16_iq1(y + 16, _mm512_set1_ps(dls[2 * g + 1]), grid[qs[2] | ((h1 << 8) & 0x700)],
                      grid[qs[3] | ((h1 << 4) & 0x700)], _mm512_mask_blend_ps(n1, pos, neg));
        }
    }
}

/* 32 weights of an IQ4 group: 16 code bytes, low nibbles are weights 0..15,
 * high nibbles 16..31. tab[q] = dl * kvalues[q], exactly the product the
 * reference forms for a weight with code q. */
static inline void put32_iq4(float *y, __m512 tab, const uint8_t *qs)
{
    const __m512i b = _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)qs));
    _mm512_storeu_ps(y, _mm512_permutexvar_ps(b, tab)); /* vpermps uses index bits 0..3 */
    _mm512_storeu_ps(y + 16, _mm512_permutexvar_ps(_mm512_srli_epi32(b, 4), tab));
}

static inline __m512 iq4_values(void)
{
    return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)gg_kvalues_iq4nl)));
}

static void dec_iq4_nl(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const __m512 kv = iq4_values();
    for (int64_t i = 0; i < nb; i++, src += IQ4_NL_BYTES, y += 32)
        put32_iq4(y, _mm512_mul_ps(_mm512_set1_ps(f16(src)), kv), src + 2);
}

static void dec_iq4_xs(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const __m512 kv = iq4_values();
    for (int64_t i = 0; i < nb; i++, src += IQ4_XS_BYTES) {
        const float d = f16(src);
        for (int g = 0; g < 8; g++, y += 32)
            put32_iq4(y, _mm512_mul_ps(_mm512_set1_ps(iq4xs_group_scale(d, src, g)), kv), src + 8 + 16 * g);
    }
}

const gg_kernel_entry gg_kernels_iquants_avx512[] = {
    {GG_T_IQ2_XXS, GG_ISA_AVX512, dec_iq2_xxs},
    {GG_T_IQ2_XS, GG_ISA_AVX512, dec_iq2_xs},
    {GG_T_IQ2_S, GG_ISA_AVX512, dec_iq2_s},
    {GG_T_IQ3_XXS, GG_ISA_AVX512, dec_iq3_xxs},
    {GG_T_IQ3_S, GG_ISA_AVX512, dec_iq3_s},
    {GG_T_IQ1_S, GG_ISA_AVX512, dec_iq1_s},
    {GG_T_IQ1_M, GG_ISA_AVX512, dec_iq1_m},
    {GG_T_IQ4_NL, GG_ISA_AVX512, dec_iq4_nl},
    {GG_T_IQ4_XS, GG_ISA_AVX512, dec_iq4_xs},
    {0},
};

#else
const gg_kernel_entry gg_kernels_iquants_avx512[] = {{0}};
#endif
