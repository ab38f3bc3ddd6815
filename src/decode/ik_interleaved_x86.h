/* ik_interleaved_x86.h - x86 SIMD kernels of the most used row-interleaved
 * types. Included by ik_interleaved_avx2.c and ik_interleaved_avx512.c; the
 * only difference between the two builds is how 16 values are converted and
 * stored (two ymm steps, or one zmm step when __AVX512F__ is defined).
 *
 * Each kernel computes exactly what its scalar twin in ik_interleaved.c
 * computes: integers (or codebook entries) are converted to float exactly,
 * then multiplied by the same float scale (and the same min subtracted or
 * offset added) in the same order. The work is in regrouping bytes: in a
 * column the rows' 4-byte words alternate (row k's word at 4k within each run
 * of 4R bytes), so a 32-bit transpose gathers each row's bytes. */
#ifndef GGUFFS_DECODE_IK_INTERLEAVED_X86_H
#define GGUFFS_DECODE_IK_INTERLEAVED_X86_H

#include <immintrin.h>
#include <stdint.h>

#include "gguffs/decode.h"
#include "gguffs/fp16.h"
#include "ik_interleaved.h"
#include "tables.h"

#define ROW(k, c, be) (dst + (int64_t)(k) * dst_stride + (int64_t)(c) * (be))

/* ---- 16 bytes -> 16 floats -------------------------------------------- */

#if defined(__AVX512F__)
static inline __m512 ggx_s8f(__m128i q) { return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(q)); }
static inline __m512 ggx_u8f(__m128i q) { return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(q)); }
/* y[0..15] = d * q (q signed bytes) */
static inline void ggx_mul16(float *y, __m128i q, float d)
{
    _mm512_storeu_ps(y, _mm512_mul_ps(_mm512_set1_ps(d), ggx_s8f(q)));
}
/* y[0..15] = d * q - m (q signed bytes) */
static inline void ggx_mulsub16(float *y, __m128i q, float d, float m)
{
    _mm512_storeu_ps(y, _mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(d), ggx_s8f(q)), _mm512_set1_ps(m)));
}
/* y[0..15] = d * q + m (q unsigned bytes) */
static inline void ggx_muladd16_u8(float *y, __m128i q, float d, float m)
{
    _mm512_storeu_ps(y, _mm512_add_ps(_mm512_mul_ps(_mm512_set1_ps(d), ggx_u8f(q)), _mm512_set1_ps(m)));
}
#else
static inline __m256 ggx_s8f_lo(__m128i q) { return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(q)); }
static inline __m256 ggx_s8f_hi(__m128i q) { return ggx_s8f_lo(_mm_srli_si128(q, 8)); }
static inline __m256 ggx_u8f_lo(__m128i q) { return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(q)); }
static inline __m256 ggx_u8f_hi(__m128i q) { return ggx_u8f_lo(_mm_srli_si128(q, 8)); }
static inline void ggx_mul16(float *y, __m128i q, float d)
{
    __m256 vd = _mm256_set1_ps(d);
    _mm256_storeu_ps(y, _mm256_mul_ps(vd, ggx_s8f_lo(q)));
    _mm256_storeu_ps(y + 8, _mm256_mul_ps(vd, ggx_s8f_hi(q)));
}
static inline void ggx_mulsub16(float *y, __m128i q, float d, float m)
{
    __m256 vd = _mm256_set1_ps(d), vm = _mm256_set1_ps(m);
    _mm256_storeu_ps(y, _mm256_sub_ps(_mm256_mul_ps(vd, ggx_s8f_lo(q)), vm));
    _mm256_storeu_ps(y + 8, _mm256_sub_ps(_mm256_mul_ps(vd, ggx_s8f_hi(q)), vm));
}
static inline void ggx_muladd16_u8(float *y, __m128i q, float d, float m)
{
    __m256 vd = _mm256_set1_ps(d), vm = _mm256_set1_ps(m);
    _mm256_storeu_ps(y, _mm256_add_ps(_mm256_mul_ps(vd, ggx_u8f_lo(q)), vm));
    _mm256_storeu_ps(y + 8, _mm256_add_ps(_mm256_mul_ps(vd, ggx_u8f_hi(q)), vm));
}
#endif

/* ---- Regrouping ------------------------------------------------------- */

/* 8 rows: 4 runs of 32 bytes at p, p + step, p + 2 step, p + 3 step; row k's
 * word is at 4k in each run. r[k] = row k's 4 words in run order. */
static inline void ggx_rows8(const uint8_t *p, int64_t step, __m128i r[8])
{
    __m256i a0 = _mm256_loadu_si256((const __m256i *)p);
    __m256i a1 = _mm256_loadu_si256((const __m256i *)(p + step));
    __m256i a2 = _mm256_loadu_si256((const __m256i *)(p + 2 * step));
    __m256i a3 = _mm256_loadu_si256((const __m256i *)(p + 3 * step));
    __m256i t0 = _mm256_unpacklo_epi32(a0, a1), t1 = _mm256_unpacklo_epi32(a2, a3);
    __m256i t2 = _mm256_unpackhi_epi32(a0, a1), t3 = _mm256_unpackhi_epi32(a2, a3);
    __m256i r04 = _mm256_unpacklo_epi64(t0, t1), r15 = _mm256_unpackhi_epi64(t0, t1);
    __m256i r26 = _mm256_unpacklo_epi64(t2, t3), r37 = _mm256_unpackhi_epi64(t2, t3);
    r[0] = _mm256_castsi256_si128(r04), r[4] = _mm256_extracti128_si256(r04, 1);
    r[1] = _mm256_castsi256_si128(r15), r[5] = _mm256_extracti128_si256(r15, 1);
    r[2] = _mm256_castsi256_si128(r26), r[6] = _mm256_extracti128_si256(r26, 1);
    r[3] = _mm256_castsi256_si128(r37), r[7] = _mm256_extracti128_si256(r37, 1);
}

/* 4 rows in the quad layout (ggi_quad_pos): 64 bytes, run q at 16q. r[k] =
 * row k's words of runs 0, 2, 1, 3, so that its low nibbles are values
 * 0-7, 16-23 and its high nibbles values 8-15, 24-31. */
static inline void ggx_rows4_quads(const uint8_t *p, __m128i r[4])
{
    __m128i a0 = _mm_loadu_si128((const __m128i *)p), a1 = _mm_loadu_si128((const __m128i *)(p + 32));
    __m128i a2 = _mm_loadu_si128((const __m128i *)(p + 16)), a3 = _mm_loadu_si128((const __m128i *)(p + 48));
    __m128i t0 = _mm_unpacklo_epi32(a0, a1), t1 = _mm_unpacklo_epi32(a2, a3);
    __m128i t2 = _mm_unpackhi_epi32(a0, a1), t3 = _mm_unpackhi_epi32(a2, a3);
    r[0] = _mm_unpacklo_epi64(t0, t1), r[1] = _mm_unpackhi_epi64(t0, t1);
    r[2] = _mm_unpacklo_epi64(t2, t3), r[3] = _mm_unpackhi_epi64(t2, t3);
}

/* Nibbles of a row from ggx_rows4_quads, in value order: v[0] = values 0..15,
 * v[1] = values 16..31. */
static inline void ggx_quad_nibbles(__m128i x, __m128i v[2])
{
    const __m128i m4 = _mm_set1_epi8(15);
    __m128i lo = _mm_and_si128(x, m4), hi = _mm_and_si128(_mm_srli_epi16(x, 4), m4);
    v[0] = _mm_unpacklo_epi64(lo, hi), v[1] = _mm_unpackhi_epi64(lo, hi);
}

static inline __m128i ggx_lo4(__m128i x) { return _mm_and_si128(x, _mm_set1_epi8(15)); }
static inline __m128i ggx_hi4(__m128i x) { return _mm_and_si128(_mm_srli_epi16(x, 4), _mm_set1_epi8(15)); }
static inline __m128i ggx_table16(const int8_t *t) { return _mm_loadu_si128((const __m128i *)t); }

/* The R fp16 scales at p as floats. */
static inline void ggx_f16x8(const uint8_t *p, float d[8])
{
    _mm256_storeu_ps(d, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)p)));
}
static inline void ggx_f16x4(const uint8_t *p, float d[4])
{
    _mm_storeu_ps(d, _mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)p)));
}

/* ---- Kernels ---------------------------------------------------------- */

/* Q4_0_R8 and MXFP4_R8 share the nibble layout: byte 32l + 4k + i gives
 * values 4l + i (low) and 4l + i + 16 (high) of row k. */
static void ggx_q4_0_r8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                        int64_t dst_stride)
{
    const __m128i eight = _mm_set1_epi8(8);
    for (int64_t c = 0; c < nblocks; c++) {
        const uint8_t *b = src + c * 144;
        float d[8];
        __m128i r[8];
        ggx_f16x8(b, d);
        ggx_rows8(b + 16, 32, r);
        for (int k = 0; k < 8; k++) {
            float *y = ROW(k, c, 32);
            ggx_mul16(y, _mm_sub_epi8(ggx_lo4(r[k]), eight), d[k]);
            ggx_mul16(y + 16, _mm_sub_epi8(ggx_hi4(r[k]), eight), d[k]);
        }
    }
}

static void ggx_mxfp4_r8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                         int64_t dst_stride)
{
    const __m128i tab = ggx_table16(gg_kvalues_mxfp4);
    for (int64_t c = 0; c < nblocks; c++) {
        const uint8_t *b = src + c * 136;
        __m128i r[8];
        ggx_rows8(b + 8, 32, r);
        for (int k = 0; k < 8; k++) {
            float d = gg_bits_to_f32(gg_mxfp4_e8m0_half_scale_bits[b[k]]), *y = ROW(k, c, 32);
            ggx_mul16(y, _mm_shuffle_epi8(tab, ggx_lo4(r[k])), d);
            ggx_mul16(y + 16, _mm_shuffle_epi8(tab, ggx_hi4(r[k])), d);
        }
    }
}

/* Q8_0_R8: two halves of 128 bytes, values 0..15 and 16..31. */
static void ggx_q8_0_r8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                        int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const uint8_t *b = src + c * 272;
        float d[8];
        __m128i r[8], s[8];
        ggx_f16x8(b, d);
        ggx_rows8(b + 16, 32, r);
        ggx_rows8(b + 144, 32, s);
        for (int k = 0; k < 8; k++) {
            float *y = ROW(k, c, 32);
            ggx_mul16(y, r[k], d[k]);
            ggx_mul16(y + 16, s[k], d[k]);
        }
    }
}

/* Q8_KV_R8: float32 row scales in meta, two units of 128 bytes per column. */
static void ggx_q8_kv_r8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                         int64_t dst_stride)
{
    float d[8];
    for (int k = 0; k < 8; k++)
        d[k] = gg_rdf32(meta + 4 * k);
    for (int64_t c = 0; c < nblocks; c++) {
        const uint8_t *b = src + c * 256;
        __m128i r[8], s[8];
        ggx_rows8(b, 32, r);
        ggx_rows8(b + 128, 32, s);
        for (int k = 0; k < 8; k++) {
            float *y = ROW(k, c, 32);
            ggx_mul16(y, r[k], d[k]);
            ggx_mul16(y + 16, s[k], d[k]);
        }
    }
}

/* Q8_K_R8: 16 runs of 128 bytes, each giving 16 values of every row. */
static void ggx_q8_k_r8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                        int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const uint8_t *b = src + c * 2064;
        float d[8];
        ggx_f16x8(b, d);
        for (int j = 0; j < 16; j++) {
            __m128i r[8];
            ggx_rows8(b + 16 + 128 * j, 32, r);
            for (int k = 0; k < 8; k++)
                ggx_mul16(ROW(k, c, 256) + 16 * j, r[k], d[k]);
        }
    }
}

/* Q8_K_R16: 16 rows, runs of 64 bytes; rows 0-7 are in the first 32 bytes of
 * each run, rows 8-15 in the second. Unsigned bytes, value = d * q + m. */
static void ggx_q8_k_r16(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                         int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const uint8_t *b = src + c * 4128;
        float d[16], m[16];
        ggx_f16x8(b, d);
        ggx_f16x8(b + 16, d + 8);
        for (int k = 0; k < 16; k++)
            m[k] = -128.f * d[k];
        for (int j = 0; j < 16; j++) {
            __m128i r[16];
            ggx_rows8(b + 32 + 256 * j, 64, r);
            ggx_rows8(b + 32 + 256 * j + 32, 64, r + 8);
            for (int k = 0; k < 16; k++)
                ggx_muladd16_u8(ROW(k, c, 256) + 16 * j, r[k], d[k], m[k]);
        }
    }
}

/* IQ4_XS_R8: per sub-block ib, 128 bytes; byte 32l + 4k + i gives values
 * 8l + i (low) and 8l + i + 4 (high): interleaving the looked-up low and high
 * nibbles word by word puts them in order. */
static void ggx_iq4_xs_r8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                          int64_t dst_stride)
{
    const __m128i tab = ggx_table16(gg_iq4k_values);
    for (int64_t c = 0; c < nblocks; c++) {
        const uint8_t *b = src + c * 1088, *sh = b + 16, *sl = b + 32;
        float d[8];
        ggx_f16x8(b, d);
        for (int ib = 0; ib < 8; ib++) {
            __m128i r[8];
            ggx_rows8(b + 64 + 128 * ib, 32, r);
            for (int k = 0; k < 8; k++) {
                unsigned n = 8 * ib + k;
                int s = (int)(ggi_field(sl, n, 32, 4) | ggi_field(sh, n, 16, 2) << 4);
                float dl = d[k] * (s - 32), *y = ROW(k, c, 256) + 32 * ib;
                __m128i lo = _mm_shuffle_epi8(tab, ggx_lo4(r[k]));
                __m128i hi = _mm_shuffle_epi8(tab, ggx_hi4(r[k]));
                ggx_mul16(y, _mm_unpacklo_epi32(lo, hi), dl);
                ggx_mul16(y + 16, _mm_unpackhi_epi32(lo, hi), dl);
            }
        }
    }
}

/* IQ4_NL_R4: one quad-layout block of 64 bytes after the 4 scales. */
static void ggx_iq4_nl_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                          int64_t dst_stride)
{
    const __m128i tab = ggx_table16(gg_iq4k_values);
    for (int64_t c = 0; c < nblocks; c++) {
        const uint8_t *b = src + c * 72;
        float d[4];
        __m128i r[4];
        ggx_f16x4(b, d);
        ggx_rows4_quads(b + 8, r);
        for (int k = 0; k < 4; k++) {
            __m128i v[2];
            float *y = ROW(k, c, 32);
            ggx_quad_nibbles(r[k], v);
            ggx_mul16(y, _mm_shuffle_epi8(tab, v[0]), d[k]);
            ggx_mul16(y + 16, _mm_shuffle_epi8(tab, v[1]), d[k]);
        }
    }
}

/* Q4_K_R4: value = (d * scale) * q - (dmin * min) per sub-block. */
static void ggx_q4_k_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                        int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const uint8_t *b = src + c * 576, *sh = b + 16, *sl = b + 32;
        float dm[8];
        ggx_f16x8(b, dm);
        for (int ib = 0; ib < 8; ib++) {
            __m128i r[4];
            ggx_rows4_quads(b + 64 + 64 * ib, r);
            for (int k = 0; k < 4; k++) {
                unsigned n = 4 * ib + k, hi = ggi_field(sh, n, 16, 4);
                float dl = dm[k] * ((sl[n] & 15) | (hi & 3) << 4);
                float ml = dm[k + 4] * ((sl[n] >> 4) | (hi >> 2) << 4);
                float *y = ROW(k, c, 256) + 32 * ib;
                __m128i v[2];
                ggx_quad_nibbles(r[k], v);
                ggx_mulsub16(y, v[0], dl, ml);
                ggx_mulsub16(y + 16, v[1], dl, ml);
            }
        }
    }
}

/* IQ4_KS_R4: float32 row scales in meta, sub-block scale byte selects the
 * codebook half. */
static void ggx_iq4_ks_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                          int64_t dst_stride)
{
    const __m128i tab[2] = {ggx_table16(gg_iq4k_values), ggx_table16(gg_iq4k_values + 16)};
    float d[4];
    for (int k = 0; k < 4; k++)
        d[k] = gg_rdf32(meta + 4 * k);
    for (int64_t c = 0; c < nblocks; c++) {
        const uint8_t *b = src + c * 544;
        for (int ib = 0; ib < 8; ib++) {
            __m128i r[4];
            ggx_rows4_quads(b + 32 + 64 * ib, r);
            for (int k = 0; k < 4; k++) {
                uint8_t s = b[4 * ib + k];
                float dl = d[k] * ((s & 254) - 127), *y = ROW(k, c, 256) + 32 * ib;
                __m128i v[2];
                ggx_quad_nibbles(r[k], v);
                ggx_mul16(y, _mm_shuffle_epi8(tab[s & 1], v[0]), dl);
                ggx_mul16(y + 16, _mm_shuffle_epi8(tab[s & 1], v[1]), dl);
            }
        }
    }
}

/* IQ4_K_R4: values 0..15 and 16..31 of a sub-block have their own scale and
 * codebook half. */
static void ggx_iq4_k_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                         int64_t dst_stride)
{
    const __m128i tab[2] = {ggx_table16(gg_iq4k_values), ggx_table16(gg_iq4k_values + 16)};
    for (int64_t c = 0; c < nblocks; c++) {
        const uint8_t *b = src + c * 576, *ex = b + 8, *sh = b + 16, *sl = b + 32;
        float d[4];
        ggx_f16x4(b, d);
        for (int ib = 0; ib < 8; ib++) {
            __m128i r[4];
            ggx_rows4_quads(b + 64 + 64 * ib, r);
            for (int k = 0; k < 4; k++) {
                __m128i v[2];
                float *y = ROW(k, c, 256) + 32 * ib;
                ggx_quad_nibbles(r[k], v);
                for (int h = 0; h < 2; h++) {
                    unsigned n = 8 * ib + 4 * h + k;
                    float dl = d[k] * ((int)(ggi_field(sl, n, 32, 4) | ggi_field(sh, n, 16, 2) << 4) - 32);
                    int alt = (ex[k + 4 * h] >> ib) & 1;
                    ggx_mul16(y + 16 * h, _mm_shuffle_epi8(tab[alt], v[h]), dl);
                }
            }
        }
    }
}

#define GGX_IK_INTERLEAVED_ENTRIES(isa)                                                            \
    {GG_T_Q4_0_R8, isa, ggx_q4_0_r8}, {GG_T_MXFP4_R8, isa, ggx_mxfp4_r8}, {GG_T_Q8_0_R8, isa, ggx_q8_0_r8},  \
        {GG_T_Q8_KV_R8, isa, ggx_q8_kv_r8}, {GG_T_Q8_K_R8, isa, ggx_q8_k_r8},                            \
        {GG_T_Q8_K_R16, isa, ggx_q8_k_r16}, {GG_T_IQ4_XS_R8, isa, ggx_iq4_xs_r8},                        \
        {GG_T_IQ4_NL_R4, isa, ggx_iq4_nl_r4}, {GG_T_Q4_K_R4, isa, ggx_q4_k_r4},                          \
        {GG_T_IQ4_KS_R4, isa, ggx_iq4_ks_r4}, {GG_T_IQ4_K_R4, isa, ggx_iq4_k_r4},

#endif
