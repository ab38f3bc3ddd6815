/* ik_k_avx512.c - AVX-512 twins of ik_k.c; same bytes for any input.
 *
 * Block scales: the integer codes are assembled in vector lanes, converted
 * (exact) and multiplied by d, the same single rounding as the scalar helpers
 * of ik_k.h. Values: the integer codes of 16 outputs are widened to 32-bit
 * lanes and used as indices into the value table held as floats
 * (vpermps/vpermt2ps read only the low 4/5 index bits, so leftover high bits
 * need no masking), then multiplied by the broadcast block scale:
 * dl * (float)table[code], the scalar kernels' product. Tables shorter than
 * the index width are repeated so that the unused index bits do not matter. */
#include "gguffs/decode.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "ik_k.h"
#include "tables.h"

#define ALIGN64 __attribute__((aligned(64)))

/* 16 bytes at p widened to 16 lanes. */
static inline __m512i ld16u8(const uint8_t *p) { return _mm512_cvtepu8_epi32(_mm_loadu_si128((const __m128i *)p)); }
/* Bits of a where m has ones, else bits of b. */
static inline __m512i sel(__m512i m, __m512i a, __m512i b) { return _mm512_ternarylogic_epi32(a, b, m, 0xE4); }
static inline __m512i shr(__m512i x, int n) { return _mm512_srli_epi32(x, (unsigned)n); }

/* The value tables as floats, two per type (chosen by an "extra" bit),
 * repeated to 16 entries when shorter. */
static inline __m512 f16x(__m128i b) { return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(b)); }
static void tables_x2(float tab[2][16], const int8_t *table, int len)
{
    for (int e = 0; e < 2; e++) {
        __m128i b;
        if (len == 4)
            b = _mm_set1_epi32((int)gg_rd32((const uint8_t *)table + 4 * e));
        else if (len == 8)
            b = _mm_set1_epi64x((long long)gg_rd64((const uint8_t *)table + 8 * e));
        else
            b = _mm_loadu_si128((const __m128i *)(table + 16 * e));
        _mm512_store_ps(tab[e], f16x(b));
    }
}

/* Block scales, 16 lanes at a time: dl = d * (float)code, as ik_k.h. */
static inline void scales16(float *dl, float d, __m512i code)
{
    _mm512_store_ps(dl, _mm512_mul_ps(_mm512_set1_ps(d), _mm512_cvtepi32_ps(code)));
}
static inline void scales8(float *dl, float d, __m256i code)
{
    _mm256_store_ps(dl, _mm256_mul_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(code)));
}
/* Lane s: nibble s of the 8 bytes at p (low nibble of p[s/2] first). */
static inline __m512i nibbles16(const uint8_t *p)
{
    const __m128i dup = _mm_setr_epi8(0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7);
    const __m512i sh = _mm512_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4, 0, 4);
    __m512i x = _mm512_cvtepu8_epi32(_mm_shuffle_epi8(_mm_loadl_epi64((const __m128i *)p), dup));
    return _mm512_and_si512(_mm512_srlv_epi32(x, sh), _mm512_set1_epi32(15));
}
/* Lane b (0..7): nibble b/4 of p[b % 4]. */
static inline __m256i nibbles8(const uint8_t *p)
{
    const __m256i sh = _mm256_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4);
    __m256i x = _mm256_cvtepu8_epi32(_mm_set1_epi32((int)gg_rd32(p)));
    return _mm256_and_si256(_mm256_srlv_epi32(x, sh), _mm256_set1_epi32(15));
}
/* Lane b (0..7): bit 4 = bit `first + b` of the 16-bit word w. */
static inline __m256i bits8(unsigned w, int first)
{
    const __m256i sh = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    __m256i x = _mm256_srlv_epi32(_mm256_set1_epi32((int)(w >> first)), sh);
    return _mm256_slli_epi32(_mm256_and_si256(x, _mm256_set1_epi32(1)), 4);
}

static inline void scales_iq2_k(const uint8_t *blk, float *dl)
{
    scales16(dl, gg_rdf16(blk), _mm512_sub_epi32(nibbles16(blk + 4), _mm512_set1_epi32(8)));
}
static inline void scales_iq3_k(const uint8_t *blk, float *dl)
{
    __m512i m = _mm512_add_epi32(_mm512_slli_epi32(nibbles16(blk + 6), 1), _mm512_set1_epi32(1));
    m = _mm512_mask_sub_epi32(m, (__mmask16)gg_rd16(blk + 4), _mm512_setzero_si512(), m);
    scales16(dl, gg_rdf16(blk), m);
}
static inline void scales_iq45_k(const uint8_t *blk, float *dl)
{
    const __m128i rep = _mm_setr_epi8(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3);
    const __m512i sh = _mm512_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6, 0, 2, 4, 6, 0, 2, 4, 6);
    __m512i hi = _mm512_cvtepu8_epi32(_mm_shuffle_epi8(_mm_cvtsi32_si128((int)gg_rd32(blk + 4)), rep));
    hi = _mm512_slli_epi32(_mm512_and_si512(_mm512_srlv_epi32(hi, sh), _mm512_set1_epi32(3)), 4);
    __m512i code = _mm512_sub_epi32(_mm512_or_si512(nibbles16(blk + 8), hi), _mm512_set1_epi32(32));
    scales16(dl, gg_rdf16(blk), code);
}
static inline void scales_iq6_k(const uint8_t *blk, float *dl)
{
    scales16(dl, gg_rdf16(blk), _mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(blk + 4))));
}
static inline void scales_iq2_ks(float d, const uint8_t *blk, float *dl)
{
    const __m128i dup = _mm_setr_epi8(0, 0, 1, 1, 2, 2, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m256i sh = _mm256_setr_epi32(0, 4, 0, 4, 0, 4, 0, 4);
    __m256i lo = _mm256_cvtepu8_epi32(_mm_shuffle_epi8(_mm_cvtsi32_si128((int)gg_rd32(blk + 2)), dup));
    lo = _mm256_and_si256(_mm256_srlv_epi32(lo, sh), _mm256_set1_epi32(15));
    __m256i code = _mm256_or_si256(lo, bits8(gg_rd16(blk), 8));
    scales8(dl, d, _mm256_sub_epi32(code, _mm256_set1_epi32(16)));
}
static inline void scales_iq3_ks(float d, const uint8_t *blk, float *dl)
{
    __m256i code = _mm256_or_si256(nibbles8(blk + 2), bits8(gg_rd16(blk), 0));
    scales8(dl, d, _mm256_sub_epi32(code, _mm256_set1_epi32(16)));
}
static inline void scales_byte(float d, const uint8_t *scales, float *dl)
{
    __m256i s = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)scales));
    s = _mm256_sub_epi32(_mm256_and_si256(s, _mm256_set1_epi32(254)), _mm256_set1_epi32(127));
    scales8(dl, d, s);
}
static inline void scales_iq2_kl(float d, const uint8_t *blk, float *dl)
{
    const __m256i sh = _mm256_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14);
    __m256i hi = _mm256_srlv_epi32(_mm256_set1_epi32(gg_rd16(blk)), sh);
    hi = _mm256_slli_epi32(_mm256_and_si256(hi, _mm256_set1_epi32(3)), 4);
    __m256i code = _mm256_or_si256(nibbles8(blk + 2), hi);
    scales8(dl, d, _mm256_sub_epi32(code, _mm256_set1_epi32(32)));
}

/* dst[0..15] = dl * tab[idx & 15] */
static inline void put16(float *dst, float dl, const float *tab, __m512i idx)
{
    __m512 v = _mm512_permutexvar_ps(idx, _mm512_load_ps(tab));
    _mm512_storeu_ps(dst, _mm512_mul_ps(_mm512_set1_ps(dl), v));
}

/* dst[0..15] = dl * tab[idx & 31] (32-entry table) */
static inline void put16x32(float *dst, float dl, const float *tab, __m512i idx)
{
    __m512 v = _mm512_permutex2var_ps(_mm512_load_ps(tab), idx, _mm512_load_ps(tab + 16));
    _mm512_storeu_ps(dst, _mm512_mul_ps(_mm512_set1_ps(dl), v));
}

static void dec_q6_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m512i shifts = _mm512_setr_epi32(0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 4, 4, 4, 4, 4, 4);
    const __m512i m4 = _mm512_set1_epi32(15), m6 = _mm512_set1_epi32(63), k32 = _mm512_set1_epi32(32);
    for (int64_t b = 0; b < n; b++, src += 26, dst += 32) {
        const __m512 d = _mm512_set1_ps(gg_rdf16(src));
        /* lane j: qh[j % 8] >> 4(j/8), then shifted up to bits 4..5 */
        __m128i qh8 = _mm_loadl_epi64((const __m128i *)(src + 2));
        __m512i h = _mm512_srlv_epi32(_mm512_cvtepu8_epi32(_mm_unpacklo_epi64(qh8, qh8)), shifts);
        h = _mm512_slli_epi32(h, 4);
        __m512i q = ld16u8(src + 10);
        __m512i lo = _mm512_and_si512(sel(m4, q, h), m6);
        __m512i hi = _mm512_and_si512(sel(m4, shr(q, 4), shr(h, 2)), m6);
        _mm512_storeu_ps(dst, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(lo, k32)), d));
        _mm512_storeu_ps(dst + 16, _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_sub_epi32(hi, k32)), d));
    }
}

/* IQ2_K and IQ2_KS share the code layout: the 16 values of sub-block s
 * (i = 16s..) are bits 2((s/2)%4) of qs[32(s/8) + 16(s%2) + j]. */
static void dec_iq2_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    ALIGN64 float tab[2][16];
    tables_x2(tab, gg_iq2nl_values, 4);
    for (int64_t b = 0; b < n; b++, src += 76, dst += 256) {
        ALIGN64 float dl[16];
        scales_iq2_k(src, dl);
        const unsigned extra = gg_rd16(src + 2);
        #pragma GCC unroll 8
        for (int c = 0; c < 4; c++) { /* 16-byte chunk c of qs: h = c/2, c%2 */
            __m512i q = ld16u8(src + 12 + 16 * c);
            #pragma GCC unroll 8
            for (int k = 0; k < 4; k++) {
                int s = 8 * (c / 2) + 2 * k + c % 2;
                put16(dst + 16 * s, dl[s], tab[(extra >> s) & 1], shr(q, 2 * k));
            }
        }
    }
}

static void dec_iq2_ks(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    ALIGN64 float tab[2][16];
    tables_x2(tab, gg_iq2nl_values, 4);
    const float d = gg_rdf16(meta);
    for (int64_t b = 0; b < n; b++, src += 70, dst += 256) {
        ALIGN64 float dl[8];
        scales_iq2_ks(d, src, dl);
        const unsigned extra = gg_rd16(src);
        #pragma GCC unroll 8
        for (int c = 0; c < 4; c++) {
            __m512i q = ld16u8(src + 6 + 16 * c);
            #pragma GCC unroll 8
            for (int k = 0; k < 4; k++) {
                int s = 8 * (c / 2) + 2 * k + c % 2;
                put16(dst + 16 * s, dl[s / 2], tab[(extra >> (s / 2)) & 1], shr(q, 2 * k));
            }
        }
    }
}

/* IQ3_K, IQ3_KS: as IQ2_K plus bit s/2 of qh[16(s%2) + j] as bit 2. */
static void dec_iq3_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    ALIGN64 float tab[2][16];
    tables_x2(tab, gg_iq3nl_values, 8);
    const __m512i m3 = _mm512_set1_epi32(3);
    for (int64_t b = 0; b < n; b++, src += 110, dst += 256) {
        ALIGN64 float dl[16];
        scales_iq3_k(src, dl);
        const unsigned extra = gg_rd16(src + 2);
        const __m512i qh[2] = {_mm512_slli_epi32(ld16u8(src + 78), 2),
                               _mm512_slli_epi32(ld16u8(src + 94), 2)};
        #pragma GCC unroll 8
        for (int c = 0; c < 4; c++) {
            __m512i q = ld16u8(src + 14 + 16 * c);
            #pragma GCC unroll 8
            for (int k = 0; k < 4; k++) {
                int s = 8 * (c / 2) + 2 * k + c % 2;
                __m512i idx = sel(m3, shr(q, 2 * k), shr(qh[c % 2], s / 2));
                put16(dst + 16 * s, dl[s], tab[(extra >> s) & 1], idx);
            }
        }
    }
}

static void dec_iq3_ks(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    ALIGN64 float tab[2][16];
    tables_x2(tab, gg_iq3nl_values, 8);
    const __m512i m3 = _mm512_set1_epi32(3);
    const float d = gg_rdf16(meta);
    for (int64_t b = 0; b < n; b++, src += 102, dst += 256) {
        ALIGN64 float dl[8];
        scales_iq3_ks(d, src, dl);
        const unsigned extra = gg_rd16(src);
        const __m512i qh[2] = {_mm512_slli_epi32(ld16u8(src + 70), 2),
                               _mm512_slli_epi32(ld16u8(src + 86), 2)};
        #pragma GCC unroll 8
        for (int c = 0; c < 4; c++) {
            __m512i q = ld16u8(src + 6 + 16 * c);
            #pragma GCC unroll 8
            for (int k = 0; k < 4; k++) {
                int s = 8 * (c / 2) + 2 * k + c % 2;
                __m512i idx = sel(m3, shr(q, 2 * k), shr(qh[c % 2], s / 2));
                put16(dst + 16 * s, dl[s / 2], tab[(extra >> (8 + s / 2)) & 1], idx);
            }
        }
    }
}

/* IQ4_K: block k of 32 values is qs[16k..16k+15], low nibbles then high. */
static void dec_iq4_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    ALIGN64 float tab[2][16];
    tables_x2(tab, gg_iq4k_values, 16);
    for (int64_t b = 0; b < n; b++, src += 144, dst += 256) {
        ALIGN64 float dl[16];
        scales_iq45_k(src, dl);
        const unsigned extra = gg_rd16(src + 2);
        #pragma GCC unroll 8
        for (int k = 0; k < 8; k++) {
            __m512i q = ld16u8(src + 16 + 16 * k);
            put16(dst + 32 * k, dl[2 * k], tab[(extra >> 2 * k) & 1], q);
            put16(dst + 32 * k + 16, dl[2 * k + 1], tab[(extra >> (2 * k + 1)) & 1], shr(q, 4));
        }
    }
}

static void dec_iq4_ks(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    ALIGN64 float tab[2][16];
    tables_x2(tab, gg_iq4k_values, 16);
    const float d = gg_rdf32(meta);
    for (int64_t b = 0; b < n; b++, src += 136, dst += 256) {
        ALIGN64 float dl[8];
        scales_byte(d, src, dl);
        #pragma GCC unroll 8
        for (int k = 0; k < 8; k++) {
            __m512i q = ld16u8(src + 8 + 16 * k);
            const float *t = tab[src[k] & 1];
            put16(dst + 32 * k, dl[k], t, q);
            put16(dst + 32 * k + 16, dl[k], t, shr(q, 4));
        }
    }
}

static void dec_iq4_kss(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    ALIGN64 float tab[2][16];
    tables_x2(tab, gg_iq4k_values, 16);
    const float d = gg_rdf32(meta);
    const __m128i one = _mm_set1_epi16(1), notone = _mm_set1_epi16((short)0xfffe);
    for (int64_t b = 0; b < 8 * n; b++, src += 16, dst += 32) {
        __m128i w = _mm_loadu_si128((const __m128i *)src);
        unsigned ls = _mm_test_epi16_mask(w, one); /* bit k = bit 0 of word k */
        __m128i c = _mm_and_si128(w, notone);
        c = _mm_xor_si128(c, _mm_srli_epi16(c, 1));
        __m512i q = _mm512_cvtepu8_epi32(c);
        const float dl = ikk_scale_byte(d, (int)ls);
        const float *t = tab[ls & 1];
        put16(dst, dl, t, q);
        put16(dst + 16, dl, t, shr(q, 4));
    }
}

/* IQ5_K, IQ5_KS: in block k of 64, value 32h + 16c + j has nibble h of
 * qs[32k + 16c + j] and bit 2k+h of qh[16c + j] as bit 4. */
static void dec_iq5_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    ALIGN64 float tab[2][32];
    for (int i = 0; i < 4; i++)
        _mm512_store_ps(&tab[i / 2][16 * (i % 2)], f16x(_mm_loadu_si128((const __m128i *)(gg_iq5nl_values + 16 * i))));
    const __m512i m4 = _mm512_set1_epi32(15);
    for (int64_t b = 0; b < n; b++, src += 176, dst += 256) {
        ALIGN64 float dl[16];
        scales_iq45_k(src, dl);
        const unsigned extra = gg_rd16(src + 2);
        const __m512i qh[2] = {_mm512_slli_epi32(ld16u8(src + 144), 4),
                               _mm512_slli_epi32(ld16u8(src + 160), 4)};
        #pragma GCC unroll 8
        for (int k = 0; k < 4; k++) {
            #pragma GCC unroll 8
            for (int c = 0; c < 2; c++) {
                __m512i q = ld16u8(src + 16 + 32 * k + 16 * c);
                #pragma GCC unroll 8
                for (int h = 0; h < 2; h++) {
                    int s = 4 * k + 2 * h + c;
                    __m512i idx = sel(m4, shr(q, 4 * h), shr(qh[c], 2 * k + h));
                    put16x32(dst + 16 * s, dl[s], tab[(extra >> s) & 1], idx);
                }
            }
        }
    }
}

static void dec_iq5_ks(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    ALIGN64 float tab[2][32];
    for (int i = 0; i < 4; i++)
        _mm512_store_ps(&tab[i / 2][16 * (i % 2)], f16x(_mm_loadu_si128((const __m128i *)(gg_iq5nl_values + 16 * i))));
    const __m512i m4 = _mm512_set1_epi32(15);
    const float d = gg_rdf32(meta);
    for (int64_t b = 0; b < n; b++, src += 168, dst += 256) {
        ALIGN64 float dl[8];
        scales_byte(d, src, dl);
        const __m512i qh[2] = {_mm512_slli_epi32(ld16u8(src + 136), 4),
                               _mm512_slli_epi32(ld16u8(src + 152), 4)};
        #pragma GCC unroll 8
        for (int k = 0; k < 4; k++) {
            #pragma GCC unroll 8
            for (int c = 0; c < 2; c++) {
                __m512i q = ld16u8(src + 8 + 32 * k + 16 * c);
                #pragma GCC unroll 8
                for (int h = 0; h < 2; h++) {
                    int bl = 2 * k + h; /* block of 32 */
                    __m512i idx = sel(m4, shr(q, 4 * h), shr(qh[c], bl));
                    put16x32(dst + 32 * bl + 16 * c, dl[bl], tab[src[bl] & 1], idx);
                }
            }
        }
    }
}

/* IQ6_K: the cubic with fused multiply-adds, as the scalar kernel's fmaf. */
static void dec_iq6_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m512 A = _mm512_set1_ps(gg_iq6k_poly_constants[0]);
    const __m512 B = _mm512_set1_ps(gg_iq6k_poly_constants[1]);
    const __m512 nC = _mm512_set1_ps(-gg_iq6k_poly_constants[2]);
    const __m512 D = _mm512_set1_ps(gg_iq6k_poly_constants[3]);
    const float mS[2] = {0.0f, gg_iq6k_poly_constants[4]};
    const __m512i m4 = _mm512_set1_epi32(15), m6 = _mm512_set1_epi32(63);
    for (int64_t b = 0; b < n; b++, src += 212, dst += 256) {
        ALIGN64 float dl[16];
        scales_iq6_k(src, dl);
        const unsigned extra = gg_rd16(src + 2);
        #pragma GCC unroll 8
        for (int k = 0; k < 4; k++) {
            #pragma GCC unroll 8
            for (int c = 0; c < 2; c++) {
                __m512i q = ld16u8(src + 20 + 32 * k + 16 * c);
                __m512i qh = _mm512_slli_epi32(ld16u8(src + 148 + 32 * (k / 2) + 16 * c), 4);
                #pragma GCC unroll 8
                for (int h = 0; h < 2; h++) {
                    int s = 4 * k + 2 * h + c;
                    __m512i code = sel(m4, shr(q, 4 * h), shr(qh, 4 * (k % 2) + 2 * h));
                    __m512 fq = _mm512_cvtepi32_ps(_mm512_and_si512(code, m6));
                    __m512 p = _mm512_fmadd_ps(fq, D, nC);
                    p = _mm512_fmadd_ps(fq, p, B);
                    p = _mm512_fmadd_ps(fq, p, A);
                    p = _mm512_add_ps(p, _mm512_set1_ps(mS[(extra >> s) & 1]));
                    _mm512_storeu_ps(dst + 16 * s, _mm512_mul_ps(_mm512_set1_ps(dl[s]), p));
                }
            }
        }
    }
}

/* IQ2_KL: the 16 5-bit codes of a block of 32 pick 16-bit pairs of signed
 * bytes (vpermt2w over the 32 pairs); the pairs in order are the 32 values. */
static void dec_iq2_kl(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m256i pa = _mm256_loadu_si256((const __m256i *)gg_iq2kl_values_as_int8_pairs);
    const __m256i pb = _mm256_loadu_si256((const __m256i *)(gg_iq2kl_values_as_int8_pairs + 32));
    const __m256i m4 = _mm256_set1_epi16(15);
    const float d = gg_rdf16(meta);
    for (int64_t b = 0; b < n; b++, src += 86, dst += 256) {
        ALIGN64 float dl[8];
        scales_iq2_kl(d, src, dl);
        const __m256i qh = _mm256_slli_epi16(_mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(src + 70))), 4);
        #pragma GCC unroll 8
        for (int k = 0; k < 4; k++) {
            __m256i q = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(src + 6 + 16 * k)));
            #pragma GCC unroll 8
            for (int h = 0; h < 2; h++) {
                int bl = 2 * k + h;
                __m256i code = _mm256_ternarylogic_epi32(_mm256_srli_epi16(q, 4 * h),
                                                         _mm256_srli_epi16(qh, bl), m4, 0xE4);
                __m256i v = _mm256_permutex2var_epi16(pa, code, pb);
                __m512 s = _mm512_set1_ps(dl[bl]);
                __m512 v0 = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm256_castsi256_si128(v)));
                __m512 v1 = _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm256_extracti128_si256(v, 1)));
                _mm512_storeu_ps(dst + 32 * bl, _mm512_mul_ps(s, v0));
                _mm512_storeu_ps(dst + 32 * bl + 16, _mm512_mul_ps(s, v1));
            }
        }
    }
}

const gg_kernel_entry gg_kernels_ik_k_avx512[] = {
    {GG_T_Q6_0, GG_ISA_AVX512, dec_q6_0},       {GG_T_IQ2_K, GG_ISA_AVX512, dec_iq2_k},
    {GG_T_IQ3_K, GG_ISA_AVX512, dec_iq3_k},     {GG_T_IQ4_K, GG_ISA_AVX512, dec_iq4_k},
    {GG_T_IQ5_K, GG_ISA_AVX512, dec_iq5_k},     {GG_T_IQ6_K, GG_ISA_AVX512, dec_iq6_k},
    {GG_T_IQ2_KS, GG_ISA_AVX512, dec_iq2_ks},   {GG_T_IQ3_KS, GG_ISA_AVX512, dec_iq3_ks},
    {GG_T_IQ4_KS, GG_ISA_AVX512, dec_iq4_ks},   {GG_T_IQ4_KSS, GG_ISA_AVX512, dec_iq4_kss},
    {GG_T_IQ5_KS, GG_ISA_AVX512, dec_iq5_ks},   {GG_T_IQ2_KL, GG_ISA_AVX512, dec_iq2_kl},
    {0},
};
#else
const gg_kernel_entry gg_kernels_ik_k_avx512[] = {{0}};
#endif
