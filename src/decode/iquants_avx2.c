/* iquants_avx2.c - AVX2 twins of iquants.c; the same bytes for any input.
 *
 * Grid types: the group scales of a block are computed together, one lane
 * per scale, with exactly the float operations of iquants.h, and stored to a
 * small array from which each group broadcasts its own. Each group of 8
 * weights is one 8-byte codebook entry (IQ3: two 4-byte ones, fetched with a
 * gather), widened to 8 int32 lanes and converted (exactly) to float, then
 * multiplied by the scale. The reference then multiplies by +-1: an exact
 * sign flip, done here by XOR of the sign bit, which gives identical bytes
 * for every non-NaN value (-0.0 included). Nothing branches on the data.
 *
 * IQ4: the 16-entry int8 codebook is applied with pshufb on the nibbles, the
 * int8 values widened and converted to float, then multiplied by the scale. */
#include "gguffs/decode.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "iquants.h"
#include "tables.h"

static inline float f16(const uint8_t *p) { return _cvtsh_ss(gg_rd16(p)); } /* exact, like gg_rdf16 */

/* ---- block-wide scales (lane k = scale k) ---- */

/* n 4-bit scales (n = 8 or 16), low nibble of byte 0 first, as int32 lanes:
 * *lo gets scales 0..7, *hi 8..15. */
static inline void nibbles_epi32(const uint8_t *p, int n, __m256i *lo, __m256i *hi)
{
    const __m128i x = n == 16 ? _mm_loadl_epi64((const __m128i *)p) : _mm_cvtsi32_si128((int)gg_rd32(p));
    const __m128i m4 = _mm_set1_epi8(0x0f);
    const __m128i b = _mm_unpacklo_epi8(_mm_and_si128(x, m4), _mm_and_si128(_mm_srli_epi16(x, 4), m4));
    *lo = _mm256_cvtepu8_epi32(b);
    *hi = _mm256_cvtepu8_epi32(_mm_srli_si128(b, 8));
}

/* d * (s + 1/2) * f, lane by lane (iq2_group_scale: f = 1/4; iq3xxs: f = 1/2). */
static inline __m256 half_scales(float d, __m256i s, float f)
{
    const __m256 t = _mm256_mul_ps(_mm256_set1_ps(d), _mm256_add_ps(_mm256_set1_ps(0.5f), _mm256_cvtepi32_ps(s)));
    return _mm256_mul_ps(t, _mm256_set1_ps(f));
}

/* d * (2s + 1), lane by lane (odd_scale). */
static inline __m256 odd_scales(float d, __m256i s)
{
    const __m256i odd = _mm256_add_epi32(_mm256_add_epi32(s, s), _mm256_set1_epi32(1));
    return _mm256_mul_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(odd));
}

/* ---- signed magnitudes ---- */

/* Weights 8k..8k+7 of a group of 32 whose 32 sign bits are in every lane of
 * sw: lane j gets bit 8k+j of the word as its sign bit (bit 31), rest 0. */
static inline __m256i sign_lanes(__m256i sw, int k)
{
    const __m256i sh = _mm256_sub_epi32(_mm256_setr_epi32(31, 30, 29, 28, 27, 26, 25, 24),
                                        _mm256_set1_epi32(8 * k));
    return _mm256_and_si256(_mm256_sllv_epi32(sw, sh), _mm256_set1_epi32(INT32_MIN));
}

/* y[0..8) = dl * the 8 magnitudes in the low bytes of mag8, sign-flipped
 * where sgn has its sign bit. */
static inline void put8_mag(float *y, __m256 dl, __m128i mag8, __m256i sgn)
{
    __m256 v = _mm256_mul_ps(dl, _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(mag8)));
    _mm256_storeu_ps(y, _mm256_xor_ps(v, _mm256_castsi256_ps(sgn)));
}

/* 8 magnitudes of one 8-byte codebook entry, loaded straight from the table. */
static inline __m128i entry8(const uint64_t *e) { return _mm_loadl_epi64((const __m128i *)e); }

/* 32 weights of one group from four 8-byte codebook entries; weights 0..15
 * scaled by dl0, 16..31 by dl1; bit j of signs flips weight j. */
static inline void put32_entries(float *y, __m256 dl0, __m256 dl1, const uint64_t *e0, const uint64_t *e1,
                                 const uint64_t *e2, const uint64_t *e3, uint32_t signs)
{
    const __m256i sw = _mm256_set1_epi32((int)signs);
    put8_mag(y + 0, dl0, entry8(e0), sign_lanes(sw, 0));
    put8_mag(y + 8, dl0, entry8(e1), sign_lanes(sw, 1));
    put8_mag(y + 16, dl1, entry8(e2), sign_lanes(sw, 2));
    put8_mag(y + 24, dl1, entry8(e3), sign_lanes(sw, 3));
}

/* 32 weights of one group from 32 gathered magnitude bytes. */
static inline void put32_gathered(float *y, __m256 dl, __m256i mag, uint32_t signs)
{
    const __m128i m0 = _mm256_castsi256_si128(mag), m1 = _mm256_extracti128_si256(mag, 1);
    const __m256i sw = _mm256_set1_epi32((int)signs);
    put8_mag(y + 0, dl, m0, sign_lanes(sw, 0));
    put8_mag(y + 8, dl, _mm_srli_si128(m0, 8), sign_lanes(sw, 1));
    put8_mag(y + 16, dl, m1, sign_lanes(sw, 2));
    put8_mag(y + 24, dl, _mm_srli_si128(m1, 8), sign_lanes(sw, 3));
}

/* Four 7-bit sign indices (bits 0..27 of w) -> 32 sign bits. */
static inline uint32_t ksigns4(uint32_t w)
{
    const uint8_t *ks = gg_ksigns_iq2xs;
    return ks[w & 127] | (uint32_t)ks[(w >> 7) & 127] << 8 | (uint32_t)ks[(w >> 14) & 127] << 16 |
           (uint32_t)ks[(w >> 21) & 127] << 24;
}

static void dec_iq2_xxs(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const uint64_t *grid = gg_iq2xxs_grid;
    float dls[8] __attribute__((aligned(32)));
    for (int64_t i = 0; i < nb; i++, src += IQ2_XXS_BYTES) {
        {   /* scale of group g: top 4 bits of the uint32 at 6 + 8g */
            const __m256i a = _mm256_srli_epi32(_mm256_loadu_si256((const __m256i *)(src + 2)), 28);
            const __m256i b = _mm256_srli_epi32(_mm256_loadu_si256((const __m256i *)(src + 34)), 28);
            const __m256 odd = _mm256_shuffle_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(b), 0xdd);
            const __m256i s = _mm256_permutevar8x32_epi32(_mm256_castps_si256(odd),
                                                          _mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7));
            _mm256_store_ps(dls, half_scales(f16(src), s, 0.25f));
        }
        for (int g = 0; g < 8; g++, y += 32) {
            const uint8_t *q = src + 2 + 8 * g;
            const __m256 dl = _mm256_set1_ps(dls[g]);
            put32_entries(y, dl, dl, &grid[q[0]], &grid[q[1]], &grid[q[2]], &grid[q[3]], ksigns4(gg_rd32(q + 4)));
        }
    }
}

static void dec_iq2_xs(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const uint64_t *grid = gg_iq2xs_grid;
    const uint8_t *ks = gg_ksigns_iq2xs;
    float dls[16] __attribute__((aligned(32)));
    for (int64_t i = 0; i < nb; i++, src += IQ2_XS_BYTES) {
        {   /* dls[2g], dls[2g+1]: the two halves of group g */
            const float d = f16(src);
            __m256i lo, hi;
            nibbles_epi32(src + 66, 16, &lo, &hi);
            _mm256_store_ps(dls, half_scales(d, lo, 0.25f));
            _mm256_store_ps(dls + 8, half_scales(d, hi, 0.25f));
        }
        for (int g = 0; g < 8; g++, y += 32) {
            const uint64_t q = gg_rd64(src + 2 + 8 * g); /* four uint16 codes: 9-bit index, 7-bit sign index */
            const uint32_t sg = ks[(q >> 9) & 127] | (uint32_t)ks[(q >> 25) & 127] << 8 |
                                (uint32_t)ks[(q >> 41) & 127] << 16 | (uint32_t)ks[(q >> 57) & 127] << 24;
            put32_entries(y, _mm256_set1_ps(dls[2 * g]), _mm256_set1_ps(dls[2 * g + 1]), &grid[q & 511],
                          &grid[(q >> 16) & 511], &grid[(q >> 32) & 511], &grid[(q >> 48) & 511], sg);
        }
    }
}

static void dec_iq2_s(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const uint64_t *grid = gg_iq2s_grid;
    float dls[16] __attribute__((aligned(32)));
    for (int64_t i = 0; i < nb; i++, src += IQ2_S_BYTES) {
        const uint8_t *qs = src + 2, *signs = src + 34, *qh = src + 66;
        {
            const float d = f16(src);
            __m256i lo, hi;
            nibbles_epi32(src + 74, 16, &lo, &hi);
            _mm256_store_ps(dls, half_scales(d, lo, 0.25f));
            _mm256_store_ps(dls + 8, half_scales(d, hi, 0.25f));
        }
        for (int g = 0; g < 8; g++, y += 32, qs += 4, signs += 4) {
            /* index l: low byte qs[l], bits 8..9 from bits 2l..2l+1 of qh[g] */
            const uint32_t h = qh[g];
            put32_entries(y, _mm256_set1_ps(dls[2 * g]), _mm256_set1_ps(dls[2 * g + 1]),
                          &grid[qs[0] | ((h << 8) & 0x300)], &grid[qs[1] | ((h << 6) & 0x300)],
                          &grid[qs[2] | ((h << 4) & 0x300)], &grid[qs[3] | ((h << 2) & 0x300)], gg_rd32(signs));
        }
    }
}

static void dec_iq3_xxs(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    float dls[8] __attribute__((aligned(32)));
    for (int64_t i = 0; i < nb; i++, src += IQ3_XXS_BYTES) {
        const uint8_t *qs = src + 2;
        /* scale of group g: top 4 bits of the uint32 at 66 + 4g */
        const __m256i s = _mm256_srli_epi32(_mm256_loadu_si256((const __m256i *)(src + 66)), 28);
        _mm256_store_ps(dls, half_scales(f16(src), s, 0.5f));
        for (int g = 0; g < 8; g++, y += 32, qs += 8) {
            const __m256i idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)qs));
            put32_gathered(y, _mm256_set1_ps(dls[g]), _mm256_i32gather_epi32((const int *)gg_iq3xxs_grid, idx, 4),
                           ksigns4(gg_rd32(src + 66 + 4 * g)));
        }
    }
}

static void dec_iq3_s(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const __m256i hsh = _mm256_setr_epi32(8, 7, 6, 5, 4, 3, 2, 1);
    const __m256i bit8 = _mm256_set1_epi32(256);
    float dls[8] __attribute__((aligned(32)));
    for (int64_t i = 0; i < nb; i++, src += IQ3_S_BYTES) {
        const uint8_t *qs = src + 2, *qh = src + 66, *signs = src + 74;
        {   /* 8 nibble scales at 106, low nibble first */
            __m256i lo, hi;
            nibbles_epi32(src + 106, 8, &lo, &hi);
            _mm256_store_ps(dls, odd_scales(f16(src), lo));
        }
        for (int g = 0; g < 8; g++, y += 32, qs += 8, signs += 4) {
            /* the 8 grid indices: low bytes, bit k of qh[g] is bit 8 of index k */
            __m256i idx = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)qs));
            idx = _mm256_or_si256(idx, _mm256_and_si256(_mm256_sllv_epi32(_mm256_set1_epi32(qh[g]), hsh), bit8));
            put32_gathered(y, _mm256_set1_ps(dls[g]), _mm256_i32gather_epi32((const int *)gg_iq3s_grid, idx, 4),
                           gg_rd32(signs));
        }
    }
}

/* IQ1: y[0..8) = dl * ((float)grid + delta) from 8 int8 grid values. */
static inline void put8_iq1(float *y, __m256 dl, const uint64_t *e, __m256 delta)
{
    __m256 q = _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(entry8(e)));
    _mm256_storeu_ps(y, _mm256_mul_ps(dl, _mm256_add_ps(q, delta)));
}

/* +-delta (both IQ1 types use 1/8) with the sign bit taken from bit 31 of
 * each lane of b. */
static inline __m256 signed_delta(float delta, __m256i b)
{
    return _mm256_xor_ps(_mm256_set1_ps(delta), _mm256_castsi256_ps(_mm256_and_si256(b, _mm256_set1_epi32(INT32_MIN))));
}

static void dec_iq1_s(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const uint64_t *grid = gg_iq1s_grid;
    float dls[8] __attribute__((aligned(32))), deltas[8] __attribute__((aligned(32)));
    for (int64_t i = 0; i < nb; i++, src += IQ1_S_BYTES) {
        const uint8_t *qs = src + 2;
        {   /* group g's uint16 h at 34 + 2g: scale s = bits 12..14, delta sign = bit 15 */
            const __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(src + 34)));
            const __m256i s = _mm256_and_si256(_mm256_srli_epi32(h, 12), _mm256_set1_epi32(7));
            _mm256_store_ps(dls, odd_scales(f16(src), s));
            _mm256_store_ps(deltas, signed_delta(gg_iq1s_delta[0], _mm256_slli_epi32(h, 16)));
        }
        for (int g = 0; g < 8; g++, y += 32, qs += 4) {
            const uint32_t h = gg_rd16(src + 34 + 2 * g);
            const __m256 dl = _mm256_set1_ps(dls[g]), delta = _mm256_set1_ps(deltas[g]);
            /* index l: low byte qs[l], bits 8..10 from bits 3l..3l+2 of h */
            put8_iq1(y + 0, dl, &grid[qs[0] | ((h << 8) & 0x700)], delta);
            put8_iq1(y + 8, dl, &grid[qs[1] | ((h << 5) & 0x700)], delta);
            put8_iq1(y + 16, dl, &grid[qs[2] | ((h << 2) & 0x700)], delta);
            put8_iq1(y + 24, dl, &grid[qs[3] | ((h >> 1) & 0x700)], delta);
        }
    }
}

static void dec_iq1_m(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const uint64_t *grid = gg_iq1s_grid;
    /* scale k of the block (k = 2g + half): bits 3(k%4).. of uint16 word k/4 */
    const __m256i wsh = _mm256_setr_epi32(0, 3, 6, 9, 0, 3, 6, 9);
    const __m256i sel01 = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1), sel23 = _mm256_setr_epi32(2, 2, 2, 2, 3, 3, 3, 3);
    /* delta k of the block (k = 4g + l): bit 3 + 4(k%4) of the uint16 at 32 + 2g */
    const __m256i dsh = _mm256_setr_epi32(28, 24, 20, 16, 28, 24, 20, 16);
    float dls[16] __attribute__((aligned(32))), deltas[32] __attribute__((aligned(32)));
    for (int64_t i = 0; i < nb; i++, src += IQ1_M_BYTES) {
        const uint8_t *qs = src, *qh = src + 32;
        {
            const float d = _cvtsh_ss(iq1m_block_scale_bits(src));
            const __m256i w = _mm256_cvtepu16_epi32(_mm_loadl_epi64((const __m128i *)(src + 48)));
            const __m256i m7 = _mm256_set1_epi32(7);
            const __m256i s0 = _mm256_and_si256(_mm256_srlv_epi32(_mm256_permutevar8x32_epi32(w, sel01), wsh), m7);
            const __m256i s1 = _mm256_and_si256(_mm256_srlv_epi32(_mm256_permutevar8x32_epi32(w, sel23), wsh), m7);
            _mm256_store_ps(dls, odd_scales(d, s0));
            _mm256_store_ps(dls + 8, odd_scales(d, s1));
            const __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)qh)); /* lane g: 4 nibbles */
            const __m256i pairs = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
            for (int k = 0; k < 4; k++) { /* groups 2k, 2k+1 */
                const __m256i hk = _mm256_permutevar8x32_epi32(h, _mm256_add_epi32(pairs, _mm256_set1_epi32(2 * k)));
                _mm256_store_ps(deltas + 8 * k, signed_delta(gg_iq1m_delta[0], _mm256_sllv_epi32(hk, dsh)));
            }
        }
        for (int g = 0; g < 8; g++, y += 32, qs += 4) {
            /* nibble l of h: bits 0..2 = index bits 8..10 of entry l */
            const uint32_t h = gg_rd16(qh + 2 * g);
            const __m256 dl1 = _mm256_set1_ps(dls[2 * g]), dl2 = _mm256_set1_ps(dls[2 * g + 1]);
            const float *dt = deltas + 4 * g;
            put8_iq1(y + 0, dl1, &grid[qs[0] | ((h << 8) & 0x700)], _mm256_set1_ps(dt[0]));
            put8_iq1(y + 8, dl1, &grid[qs[1] | ((h << 4) & 0x700)], _mm256_set1_ps(dt[1]));
            put8_iq1(y + 16, dl2, &grid[qs[2] | (h & 0x700)], _mm256_set1_ps(dt[2]));
            put8_iq1(y + 24, dl2, &grid[qs[3] | ((h >> 4) & 0x700)], _mm256_set1_ps(dt[3]));
        }
    }
}

/* 32 weights of an IQ4 group: 16 code bytes (low nibbles first) times dl. */
static inline void put32_iq4(float *y, __m256 dl, const uint8_t *qs)
{
    const __m128i tbl = _mm_loadu_si128((const __m128i *)gg_kvalues_iq4nl);
    const __m128i m4 = _mm_set1_epi8(0x0f);
    const __m128i x = _mm_loadu_si128((const __m128i *)qs);
    const __m128i lo = _mm_shuffle_epi8(tbl, _mm_and_si128(x, m4));
    const __m128i hi = _mm_shuffle_epi8(tbl, _mm_and_si128(_mm_srli_epi16(x, 4), m4));
    _mm256_storeu_ps(y + 0, _mm256_mul_ps(dl, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(lo))));
    _mm256_storeu_ps(y + 8, _mm256_mul_ps(dl, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(lo, 8)))));
    _mm256_storeu_ps(y + 16, _mm256_mul_ps(dl, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(hi))));
    _mm256_storeu_ps(y + 24, _mm256_mul_ps(dl, _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(hi, 8)))));
}

static void dec_iq4_nl(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    for (int64_t i = 0; i < nb; i++, src += IQ4_NL_BYTES, y += 32)
        put32_iq4(y, _mm256_set1_ps(f16(src)), src + 2);
}

static void dec_iq4_xs(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const __m256i hsh = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    float dls[8] __attribute__((aligned(32)));
    for (int64_t i = 0; i < nb; i++, src += IQ4_XS_BYTES) {
        {   /* 6-bit scale of group g: nibble g of scales_l (at 4), bits 2g..2g+1
             * of scales_h (at 2) on top; dl = d * (ls - 32) as iq4xs_group_scale */
            __m256i lo, unused;
            nibbles_epi32(src + 4, 8, &lo, &unused);
            const __m256i hi = _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32(gg_rd16(src + 2)), hsh),
                                                _mm256_set1_epi32(3));
            const __m256i ls = _mm256_or_si256(lo, _mm256_slli_epi32(hi, 4));
            const __m256 m = _mm256_cvtepi32_ps(_mm256_sub_epi32(ls, _mm256_set1_epi32(32)));
            _mm256_store_ps(dls, _mm256_mul_ps(_mm256_set1_ps(f16(src)), m));
        }
        for (int g = 0; g < 8; g++, y += 32)
            put32_iq4(y, _mm256_set1_ps(dls[g]), src + 8 + 16 * g);
    }
}

const gg_kernel_entry gg_kernels_iquants_avx2[] = {
    {GG_T_IQ2_XXS, GG_ISA_AVX2, dec_iq2_xxs},
    {GG_T_IQ2_XS, GG_ISA_AVX2, dec_iq2_xs},
    {GG_T_IQ2_S, GG_ISA_AVX2, dec_iq2_s},
    {GG_T_IQ3_XXS, GG_ISA_AVX2, dec_iq3_xxs},
    {GG_T_IQ3_S, GG_ISA_AVX2, dec_iq3_s},
    {GG_T_IQ1_S, GG_ISA_AVX2, dec_iq1_s},
    {GG_T_IQ1_M, GG_ISA_AVX2, dec_iq1_m},
    {GG_T_IQ4_NL, GG_ISA_AVX2, dec_iq4_nl},
    {GG_T_IQ4_XS, GG_ISA_AVX2, dec_iq4_xs},
    {0},
};

#else
const gg_kernel_entry gg_kernels_iquants_avx2[] = {{0}};
#endif
