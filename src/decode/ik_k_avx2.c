/* ik_k_avx2.c - AVX2 twins of ik_k.c; same bytes for any input.
 *
 * Block scales: the integer codes are assembled in vector lanes, converted
 * (exact) and multiplied by d, the same single rounding as the scalar helpers
 * of ik_k.h. Values: the codes of 32 outputs are assembled as bytes,
 * looked up in the signed-byte value tables with vpshufb (each 128-bit lane
 * has its own table, so the two 16-value halves can use different tables),
 * widened to 32-bit, converted (exact) and multiplied by the broadcast block
 * scale: dl * (float)table[code], the scalar kernels' product. */
#include "gguffs/decode.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include "ik_k.h"
#include "tables.h"

#define ALIGN32 __attribute__((aligned(32)))

static inline __m256i ld32(const uint8_t *p) { return _mm256_loadu_si256((const __m256i *)p); }
static inline __m128i ld16(const uint8_t *p) { return _mm_loadu_si128((const __m128i *)p); }
static inline __m256i bc16(const uint8_t *p) { return _mm256_broadcastsi128_si256(ld16(p)); }
static inline __m256i bytes(int v) { return _mm256_set1_epi8((char)v); }
static inline __m256i and8(__m256i x, int m) { return _mm256_and_si256(x, bytes(m)); }

/* Moves bit m of every byte to bit t (other bits: garbage to be masked). */
static inline __m256i bit_to(__m256i x, int m, int t)
{
    return m >= t ? _mm256_srli_epi16(x, m - t) : _mm256_slli_epi16(x, t - m);
}

/* Value tables for vpshufb, 16 bytes each (shorter tables repeated). */
static inline __m128i table16(const int8_t *values, int len)
{
    if (len == 4)
        return _mm_set1_epi32((int)gg_rd32((const uint8_t *)values));
    if (len == 8)
        return _mm_set1_epi64x((long long)gg_rd64((const uint8_t *)values));
    return _mm_loadu_si128((const __m128i *)values);
}
/* t[c] has table (c & 1) in its low lane and table (c >> 1) in its high
 * lane; table e starts at values + step*e. */
static inline void lane_tables(__m256i t[4], const int8_t *values, int len, int step)
{
    const __m128i a = table16(values, len), b = table16(values + step, len);
    t[0] = _mm256_set_m128i(a, a), t[1] = _mm256_set_m128i(a, b);
    t[2] = _mm256_set_m128i(b, a), t[3] = _mm256_set_m128i(b, b);
}

/* Block scales, 8 lanes at a time: dl = d * (float)code, as ik_k.h. */
static inline void scales8(float *dl, float d, __m256i code)
{
    _mm256_store_ps(dl, _mm256_mul_ps(_mm256_set1_ps(d), _mm256_cvtepi32_ps(code)));
}
/* Lane l: bits sh[l] .. sh[l]+width-1 of w. */
static inline __m256i field8(uint32_t w, __m256i sh, int mask)
{
    return _mm256_and_si256(_mm256_srlv_epi32(_mm256_set1_epi32((int)w), sh), _mm256_set1_epi32(mask));
}
static inline __m256i lanes(int a, int b, int c, int d, int e, int f, int g, int h)
{
    return _mm256_setr_epi32(a, b, c, d, e, f, g, h);
}
#define NIB8 lanes(0, 4, 8, 12, 16, 20, 24, 28)     /* nibble l of a word */
#define NIBT8 lanes(0, 8, 16, 24, 4, 12, 20, 28)    /* nibble l/4 of byte l%4 */
#define BIT8 lanes(0, 1, 2, 3, 4, 5, 6, 7)
#define PAIR8 lanes(0, 2, 4, 6, 8, 10, 12, 14)
static inline __m256i k8(int v) { return _mm256_set1_epi32(v); }

static inline void scales_iq2_k(const uint8_t *blk, float *dl)
{
    const float d = gg_rdf16(blk);
    for (int h = 0; h < 2; h++)
        scales8(dl + 8 * h, d, _mm256_sub_epi32(field8(gg_rd32(blk + 4 + 4 * h), NIB8, 15), k8(8)));
}
static inline void scales_iq3_k(const uint8_t *blk, float *dl)
{
    const float d = gg_rdf16(blk);
    const unsigned sh = gg_rd16(blk + 4);
    for (int h = 0; h < 2; h++) {
        __m256i m = _mm256_add_epi32(_mm256_slli_epi32(field8(gg_rd32(blk + 6 + 4 * h), NIB8, 15), 1), k8(1));
        __m256i sign = _mm256_or_si256(_mm256_slli_epi32(field8(sh >> 8 * h, BIT8, 1), 31), k8(1));
        scales8(dl + 8 * h, d, _mm256_sign_epi32(m, sign));
    }
}
static inline void scales_iq45_k(const uint8_t *blk, float *dl)
{
    const float d = gg_rdf16(blk);
    const uint32_t sh = gg_rd32(blk + 4);
    for (int h = 0; h < 2; h++) {
        __m256i hi = _mm256_slli_epi32(field8(sh >> 16 * h, PAIR8, 3), 4);
        __m256i code = _mm256_or_si256(field8(gg_rd32(blk + 8 + 4 * h), NIB8, 15), hi);
        scales8(dl + 8 * h, d, _mm256_sub_epi32(code, k8(32)));
    }
}
static inline void scales_iq6_k(const uint8_t *blk, float *dl)
{
    const float d = gg_rdf16(blk);
    for (int h = 0; h < 2; h++)
        scales8(dl + 8 * h, d, _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i *)(blk + 4 + 8 * h))));
}
static inline void scales_iq2_ks(float d, const uint8_t *blk, float *dl)
{
    __m256i hi = _mm256_slli_epi32(field8(gg_rd16(blk) >> 8, BIT8, 1), 4);
    __m256i code = _mm256_or_si256(field8(gg_rd32(blk + 2), NIB8, 15), hi);
    scales8(dl, d, _mm256_sub_epi32(code, k8(16)));
}
static inline void scales_iq3_ks(float d, const uint8_t *blk, float *dl)
{
    __m256i hi = _mm256_slli_epi32(field8(gg_rd16(blk), BIT8, 1), 4);
    __m256i code = _mm256_or_si256(field8(gg_rd32(blk + 2), NIBT8, 15), hi);
    scales8(dl, d, _mm256_sub_epi32(code, k8(16)));
}
static inline void scales_byte(float d, const uint8_t *scales, float *dl)
{
    __m256i s = _mm256_cvtepu8_epi32(_mm_loadl_epi64((const __m128i *)scales));
    scales8(dl, d, _mm256_sub_epi32(_mm256_and_si256(s, k8(254)), k8(127)));
}
static inline void scales_iq2_kl(float d, const uint8_t *blk, float *dl)
{
    __m256i hi = _mm256_slli_epi32(field8(gg_rd16(blk), PAIR8, 3), 4);
    __m256i code = _mm256_or_si256(field8(gg_rd32(blk + 2), NIBT8, 15), hi);
    scales8(dl, d, _mm256_sub_epi32(code, k8(32)));
}

static inline __m256i lookup(__m256i t, __m256i idx) { return _mm256_shuffle_epi8(t, idx); }

static inline __m256 mulw(float s, __m128i v8) /* s * (float) of 8 signed bytes */
{
    return _mm256_mul_ps(_mm256_set1_ps(s), _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v8)));
}

/* 32 signed bytes to floats: bytes 0..15 times s0, bytes 16..31 times s1. */
static inline void put32(float *dst, __m256i v, float s0, float s1)
{
    __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
    _mm256_storeu_ps(dst, mulw(s0, lo));
    _mm256_storeu_ps(dst + 8, mulw(s0, _mm_srli_si128(lo, 8)));
    _mm256_storeu_ps(dst + 16, mulw(s1, hi));
    _mm256_storeu_ps(dst + 24, mulw(s1, _mm_srli_si128(hi, 8)));
}

static void dec_q6_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m256i nib = _mm256_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4);
    for (int64_t b = 0; b < n; b++, src += 26, dst += 32) {
        const float d = gg_rdf16(src);
        /* low lane: values 0..15 (low nibbles, qh bits 0-1 / 4-5),
         * high lane: values 16..31 (high nibbles, qh bits 2-3 / 6-7) */
        __m256i q = and8(_mm256_srlv_epi32(bc16(src + 10), nib), 15);
        __m128i x = _mm_loadl_epi64((const __m128i *)(src + 2));
        __m128i h0 = _mm_unpacklo_epi64(x, _mm_srli_epi64(x, 4));
        __m256i h = _mm256_set_m128i(_mm_srli_epi64(h0, 2), h0);
        h = and8(_mm256_slli_epi16(h, 4), 0x30);
        __m256i v = _mm256_sub_epi8(_mm256_or_si256(q, h), bytes(32));
        __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
        const __m256 dv = _mm256_set1_ps(d);
        _mm256_storeu_ps(dst, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(lo)), dv));
        _mm256_storeu_ps(dst + 8, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(lo, 8))), dv));
        _mm256_storeu_ps(dst + 16, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(hi)), dv));
        _mm256_storeu_ps(dst + 24, _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(_mm_srli_si128(hi, 8))), dv));
    }
}

/* IQ2_K: the 32 values 128h + 32k + (0..31) are bits 2k of qs[32h + 0..31];
 * the low lane is sub-block s = 8h + 2k, the high lane s + 1. */
static void dec_iq2_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    __m256i t[4];
    lane_tables(t, gg_iq2nl_values, 4, 4);
    for (int64_t b = 0; b < n; b++, src += 76, dst += 256) {
        ALIGN32 float dl[16];
        scales_iq2_k(src, dl);
        const unsigned extra = gg_rd16(src + 2);
        #pragma GCC unroll 8
        for (int h = 0; h < 2; h++) {
            __m256i q = ld32(src + 12 + 32 * h);
            #pragma GCC unroll 8
            for (int k = 0; k < 4; k++) {
                int s = 8 * h + 2 * k;
                __m256i v = lookup(t[(extra >> s) & 3], and8(_mm256_srli_epi16(q, 2 * k), 3));
                put32(dst + 16 * s, v, dl[s], dl[s + 1]);
            }
        }
    }
}

static void dec_iq2_ks(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    __m256i t[4];
    lane_tables(t, gg_iq2nl_values, 4, 4);
    const float d = gg_rdf16(meta);
    for (int64_t b = 0; b < n; b++, src += 70, dst += 256) {
        ALIGN32 float dl[8];
        scales_iq2_ks(d, src, dl);
        const unsigned extra = gg_rd16(src);
        #pragma GCC unroll 8
        for (int h = 0; h < 2; h++) {
            __m256i q = ld32(src + 6 + 32 * h);
            #pragma GCC unroll 8
            for (int k = 0; k < 4; k++) {
                int bl = 4 * h + k;
                __m256i v = lookup(t[3 * ((extra >> bl) & 1)], and8(_mm256_srli_epi16(q, 2 * k), 3));
                put32(dst + 32 * bl, v, dl[bl], dl[bl]);
            }
        }
    }
}

/* IQ3_K, IQ3_KS: as IQ2_K, plus bit 4h + k of qh[0..31] as bit 2. */
static void dec_iq3_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    __m256i t[4];
    lane_tables(t, gg_iq3nl_values, 8, 8);
    for (int64_t b = 0; b < n; b++, src += 110, dst += 256) {
        ALIGN32 float dl[16];
        scales_iq3_k(src, dl);
        const unsigned extra = gg_rd16(src + 2);
        const __m256i qh = ld32(src + 78);
        #pragma GCC unroll 8
        for (int h = 0; h < 2; h++) {
            __m256i q = ld32(src + 14 + 32 * h);
            #pragma GCC unroll 8
            for (int k = 0; k < 4; k++) {
                int s = 8 * h + 2 * k;
                __m256i idx = _mm256_or_si256(and8(_mm256_srli_epi16(q, 2 * k), 3),
                                              and8(bit_to(qh, 4 * h + k, 2), 4));
                put32(dst + 16 * s, lookup(t[(extra >> s) & 3], idx), dl[s], dl[s + 1]);
            }
        }
    }
}

static void dec_iq3_ks(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    __m256i t[4];
    lane_tables(t, gg_iq3nl_values, 8, 8);
    const float d = gg_rdf16(meta);
    for (int64_t b = 0; b < n; b++, src += 102, dst += 256) {
        ALIGN32 float dl[8];
        scales_iq3_ks(d, src, dl);
        const unsigned extra = gg_rd16(src);
        const __m256i qh = ld32(src + 70);
        #pragma GCC unroll 8
        for (int h = 0; h < 2; h++) {
            __m256i q = ld32(src + 6 + 32 * h);
            #pragma GCC unroll 8
            for (int k = 0; k < 4; k++) {
                int bl = 4 * h + k;
                __m256i idx = _mm256_or_si256(and8(_mm256_srli_epi16(q, 2 * k), 3), and8(bit_to(qh, bl, 2), 4));
                put32(dst + 32 * bl, lookup(t[3 * ((extra >> (8 + bl)) & 1)], idx), dl[bl], dl[bl]);
            }
        }
    }
}

/* IQ4_K and friends: the 16 bytes of a block of 32 in both lanes, low
 * nibbles in the low lane, high nibbles in the high lane. */
static inline __m256i nibbles(__m128i q)
{
    const __m256i sh = _mm256_setr_epi32(0, 0, 0, 0, 4, 4, 4, 4);
    return and8(_mm256_srlv_epi32(_mm256_broadcastsi128_si256(q), sh), 15);
}

static void dec_iq4_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    __m256i t[4];
    lane_tables(t, gg_iq4k_values, 16, 16);
    for (int64_t b = 0; b < n; b++, src += 144, dst += 256) {
        ALIGN32 float dl[16];
        scales_iq45_k(src, dl);
        const unsigned extra = gg_rd16(src + 2);
        #pragma GCC unroll 8
        for (int k = 0; k < 8; k++) {
            __m256i v = lookup(t[(extra >> 2 * k) & 3], nibbles(ld16(src + 16 + 16 * k)));
            put32(dst + 32 * k, v, dl[2 * k], dl[2 * k + 1]);
        }
    }
}

static void dec_iq4_ks(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    __m256i t[4];
    lane_tables(t, gg_iq4k_values, 16, 16);
    const float d = gg_rdf32(meta);
    for (int64_t b = 0; b < n; b++, src += 136, dst += 256) {
        ALIGN32 float dl[8];
        scales_byte(d, src, dl);
        #pragma GCC unroll 8
        for (int k = 0; k < 8; k++) {
            __m256i v = lookup(t[3 * (src[k] & 1)], nibbles(ld16(src + 8 + 16 * k)));
            put32(dst + 32 * k, v, dl[k], dl[k]);
        }
    }
}

static void dec_iq4_kss(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    __m256i t[4];
    lane_tables(t, gg_iq4k_values, 16, 16);
    const float d = gg_rdf32(meta);
    const __m128i notone = _mm_set1_epi16((short)0xfffe);
    for (int64_t b = 0; b < 8 * n; b++, src += 16, dst += 32) {
        __m128i w = ld16(src);
        /* bit 0 of word k -> bit 7 of byte 2k -> bit k of ls */
        unsigned ls = _pext_u32((unsigned)_mm_movemask_epi8(_mm_slli_epi16(w, 7)), 0x5555);
        __m128i c = _mm_and_si128(w, notone);
        c = _mm_xor_si128(c, _mm_srli_epi16(c, 1));
        const float dl = ikk_scale_byte(d, (int)ls);
        put32(dst, lookup(t[3 * (ls & 1)], nibbles(c)), dl, dl);
    }
}

/* IQ5_K, IQ5_KS: values 64k + 32h + (0..31): nibble h of qs[32k + 0..31]
 * and bit 2k + h of qh[0..31] as bit 4; 32-entry tables as two vpshufb
 * halves, chosen by bit 4. */
static inline __m256i lookup32(__m256i ta, __m256i tb, __m256i idx)
{
    return _mm256_blendv_epi8(lookup(ta, idx), lookup(tb, idx), _mm256_slli_epi16(idx, 3));
}

static void dec_iq5_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    __m256i ta[4], tb[4];
    lane_tables(ta, gg_iq5nl_values, 16, 32);
    lane_tables(tb, gg_iq5nl_values + 16, 16, 32);
    for (int64_t b = 0; b < n; b++, src += 176, dst += 256) {
        ALIGN32 float dl[16];
        scales_iq45_k(src, dl);
        const unsigned extra = gg_rd16(src + 2);
        const __m256i qh = ld32(src + 144);
        #pragma GCC unroll 8
        for (int k = 0; k < 4; k++) {
            __m256i q = ld32(src + 16 + 32 * k);
            #pragma GCC unroll 8
            for (int h = 0; h < 2; h++) {
                int s = 4 * k + 2 * h;
                __m256i idx = _mm256_or_si256(and8(_mm256_srli_epi16(q, 4 * h), 15),
                                              and8(bit_to(qh, 2 * k + h, 4), 16));
                put32(dst + 16 * s, lookup32(ta[(extra >> s) & 3], tb[(extra >> s) & 3], idx), dl[s], dl[s + 1]);
            }
        }
    }
}

static void dec_iq5_ks(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    __m256i ta[4], tb[4];
    lane_tables(ta, gg_iq5nl_values, 16, 32);
    lane_tables(tb, gg_iq5nl_values + 16, 16, 32);
    const float d = gg_rdf32(meta);
    for (int64_t b = 0; b < n; b++, src += 168, dst += 256) {
        ALIGN32 float dl[8];
        scales_byte(d, src, dl);
        const __m256i qh = ld32(src + 136);
        #pragma GCC unroll 8
        for (int k = 0; k < 4; k++) {
            __m256i q = ld32(src + 8 + 32 * k);
            #pragma GCC unroll 8
            for (int h = 0; h < 2; h++) {
                int bl = 2 * k + h;
                __m256i idx = _mm256_or_si256(and8(_mm256_srli_epi16(q, 4 * h), 15), and8(bit_to(qh, bl, 4), 16));
                put32(dst + 32 * bl, lookup32(ta[3 * (src[bl] & 1)], tb[3 * (src[bl] & 1)], idx), dl[bl], dl[bl]);
            }
        }
    }
}

/* IQ6_K: 6-bit codes as bytes, then the cubic with fused multiply-adds on 8
 * lanes at a time, as the scalar kernel's fmaf. */
static void dec_iq6_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m256 A = _mm256_set1_ps(gg_iq6k_poly_constants[0]);
    const __m256 B = _mm256_set1_ps(gg_iq6k_poly_constants[1]);
    const __m256 nC = _mm256_set1_ps(-gg_iq6k_poly_constants[2]);
    const __m256 D = _mm256_set1_ps(gg_iq6k_poly_constants[3]);
    const float mS[2] = {0.0f, gg_iq6k_poly_constants[4]};
    for (int64_t b = 0; b < n; b++, src += 212, dst += 256) {
        ALIGN32 float dl[16];
        scales_iq6_k(src, dl);
        const unsigned extra = gg_rd16(src + 2);
        #pragma GCC unroll 8
        for (int k = 0; k < 4; k++) {
            __m256i q = ld32(src + 20 + 32 * k);
            __m256i qh = ld32(src + 148 + 32 * (k / 2));
            #pragma GCC unroll 8
            for (int h = 0; h < 2; h++) {
                __m256i code = _mm256_or_si256(and8(_mm256_srli_epi16(q, 4 * h), 15),
                                               and8(bit_to(qh, 4 * (k % 2) + 2 * h, 4), 0x30));
                __m128i half[2] = {_mm256_castsi256_si128(code), _mm256_extracti128_si256(code, 1)};
                #pragma GCC unroll 8
                for (int e = 0; e < 4; e++) { /* 8 values 64k + 32h + 8e */
                    int s = 4 * k + 2 * h + e / 2;
                    __m128i c8 = e % 2 ? _mm_srli_si128(half[e / 2], 8) : half[e / 2];
                    __m256 fq = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(c8));
                    __m256 p = _mm256_fmadd_ps(fq, D, nC);
                    p = _mm256_fmadd_ps(fq, p, B);
                    p = _mm256_fmadd_ps(fq, p, A);
                    p = _mm256_add_ps(p, _mm256_set1_ps(mS[(extra >> s) & 1]));
                    _mm256_storeu_ps(dst + 64 * k + 32 * h + 8 * e, _mm256_mul_ps(_mm256_set1_ps(dl[s]), p));
                }
            }
        }
    }
}

/* IQ2_KL: for the 16 codes of a block, the first bytes of their pairs are
 * looked up in the low lane, the second bytes in the high lane, then
 * interleaved into the 32 values. */
static void dec_iq2_kl(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    /* lane l: byte l of pairs 0..15 (ta), 16..31 (tb) */
    const __m128i even = _mm_setr_epi8(0, 2, 4, 6, 8, 10, 12, 14, 1, 3, 5, 7, 9, 11, 13, 15);
    const __m128i p0 = _mm_shuffle_epi8(ld16((const uint8_t *)gg_iq2kl_values_as_int8_pairs), even);
    const __m128i p1 = _mm_shuffle_epi8(ld16((const uint8_t *)gg_iq2kl_values_as_int8_pairs + 16), even);
    const __m128i p2 = _mm_shuffle_epi8(ld16((const uint8_t *)gg_iq2kl_values_as_int8_pairs + 32), even);
    const __m128i p3 = _mm_shuffle_epi8(ld16((const uint8_t *)gg_iq2kl_values_as_int8_pairs + 48), even);
    const __m256i ta = _mm256_set_m128i(_mm_unpackhi_epi64(p0, p1), _mm_unpacklo_epi64(p0, p1));
    const __m256i tb = _mm256_set_m128i(_mm_unpackhi_epi64(p2, p3), _mm_unpacklo_epi64(p2, p3));
    const float d = gg_rdf16(meta);
    for (int64_t b = 0; b < n; b++, src += 86, dst += 256) {
        ALIGN32 float dl[8];
        scales_iq2_kl(d, src, dl);
        const __m256i qh = _mm256_broadcastsi128_si256(ld16(src + 70));
        #pragma GCC unroll 8
        for (int k = 0; k < 4; k++) {
            __m256i q = bc16(src + 6 + 16 * k);
            #pragma GCC unroll 8
            for (int h = 0; h < 2; h++) {
                int bl = 2 * k + h;
                __m256i code = _mm256_or_si256(and8(_mm256_srli_epi16(q, 4 * h), 15), and8(bit_to(qh, bl, 4), 16));
                __m256i v = lookup32(ta, tb, code);
                __m128i first = _mm256_castsi256_si128(v), second = _mm256_extracti128_si256(v, 1);
                __m256i pairs = _mm256_set_m128i(_mm_unpackhi_epi8(first, second), _mm_unpacklo_epi8(first, second));
                put32(dst + 32 * bl, pairs, dl[bl], dl[bl]);
            }
        }
    }
}

const gg_kernel_entry gg_kernels_ik_k_avx2[] = {
    {GG_T_Q6_0, GG_ISA_AVX2, dec_q6_0},       {GG_T_IQ2_K, GG_ISA_AVX2, dec_iq2_k},
    {GG_T_IQ3_K, GG_ISA_AVX2, dec_iq3_k},     {GG_T_IQ4_K, GG_ISA_AVX2, dec_iq4_k},
    {GG_T_IQ5_K, GG_ISA_AVX2, dec_iq5_k},     {GG_T_IQ6_K, GG_ISA_AVX2, dec_iq6_k},
    {GG_T_IQ2_KS, GG_ISA_AVX2, dec_iq2_ks},   {GG_T_IQ3_KS, GG_ISA_AVX2, dec_iq3_ks},
    {GG_T_IQ4_KS, GG_ISA_AVX2, dec_iq4_ks},   {GG_T_IQ4_KSS, GG_ISA_AVX2, dec_iq4_kss},
    {GG_T_IQ5_KS, GG_ISA_AVX2, dec_iq5_ks},   {GG_T_IQ2_KL, GG_ISA_AVX2, dec_iq2_kl},
    {0},
};
#else
const gg_kernel_entry gg_kernels_ik_k_avx2[] = {{0}};
#endif
