/* kquants_avx512.c - AVX-512 twins of kquants.c; same bytes for any input.
 * Same plan as kquants_avx2.c with 16 floats per vector: every group of 16
 * outputs has one sub-block factor, broadcast from a small per-block array. */
#include "gguffs/decode.h"

#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

#include "gguffs/fp16.h"

static inline float f16(const uint8_t *p) { return _cvtsh_ss(gg_rd16(p)); }

static inline uint32_t word(const uint8_t *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

/* Sixteen bytes to 16 floats, unsigned or signed (exact). */
static inline __m512 u8_ps(__m128i v) { return _mm512_cvtepi32_ps(_mm512_cvtepu8_epi32(v)); }
static inline __m512 i8_ps(__m128i v) { return _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(v)); }

static inline __m128i lo128(__m256i v) { return _mm256_castsi256_si128(v); }
static inline __m128i hi128(__m256i v) { return _mm256_extracti128_si256(v, 1); }

static inline __m256i shr_mask(__m256i v, int s, int mask)
{
    return _mm256_and_si256(_mm256_srli_epi16(v, s), _mm256_set1_epi8((char)mask));
}
static inline __m256i shl_mask(__m256i v, int s, int mask)
{
    return _mm256_and_si256(_mm256_slli_epi16(v, s), _mm256_set1_epi8((char)mask));
}

/* 16 unsigned codes -> dl * q - ml;  16 signed codes -> dl * q. */
static inline void put16_dm(float *dst, __m128i c, float dl, float ml)
{
    _mm512_storeu_ps(dst, _mm512_sub_ps(_mm512_mul_ps(_mm512_set1_ps(dl), u8_ps(c)), _mm512_set1_ps(ml)));
}
static inline void put16_d(float *dst, __m128i c, float dl)
{
    _mm512_storeu_ps(dst, _mm512_mul_ps(_mm512_set1_ps(dl), i8_ps(c)));
}

static void dec_q2_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    for (int64_t b = 0; b < n; b++, src += 84, dst += 256) {
        float dl[16], ml[16];
        __m128i sc = _mm_loadu_si128((const __m128i *)src);
        const __m128i m4 = _mm_set1_epi8(15);
        _mm512_storeu_ps(dl, _mm512_mul_ps(_mm512_set1_ps(f16(src + 80)), u8_ps(_mm_and_si128(sc, m4))));
        _mm512_storeu_ps(ml, _mm512_mul_ps(_mm512_set1_ps(f16(src + 82)),
                                           u8_ps(_mm_and_si128(_mm_srli_epi16(sc, 4), m4))));
        for (int h = 0; h < 2; h++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)(src + 16 + 32 * h));
            for (int s = 0; s < 4; s++) {
                __m256i c = shr_mask(q, 2 * s, 3);
                int k = 8 * h + 2 * s;
                float *o = dst + 128 * h + 32 * s;
                put16_dm(o, lo128(c), dl[k], ml[k]);
                put16_dm(o + 16, hi128(c), dl[k + 1], ml[k + 1]);
            }
        }
    }
}

/* The 16 Q3_K scales (see kq_scale_q3k) as bytes 0..63, from three words. */
static inline __m128i q3k_scales(const uint8_t *s)
{
    uint32_t w0 = word(s), w1 = word(s + 4), w2 = word(s + 8);
    const uint32_t lo4 = 0x0f0f0f0f, lo2 = 0x03030303;
    uint32_t a = (w0 & lo4) | (w2 & lo2) << 4;
    uint32_t b = (w1 & lo4) | (w2 >> 2 & lo2) << 4;
    uint32_t c = (w0 >> 4 & lo4) | (w2 >> 4 & lo2) << 4;
    uint32_t e = (w1 >> 4 & lo4) | (w2 >> 6 & lo2) << 4;
    return _mm_set_epi32((int)e, (int)c, (int)b, (int)a);
}

static void dec_q3_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m256i four = _mm256_set1_epi8(4);
    for (int64_t b = 0; b < n; b++, src += 110, dst += 256) {
        float dl[16];
        __m128i sc = _mm_sub_epi8(q3k_scales(src + 96), _mm_set1_epi8(32));
        _mm512_storeu_ps(dl, _mm512_mul_ps(_mm512_set1_ps(f16(src + 108)), i8_ps(sc)));
        __m256i hm = _mm256_loadu_si256((const __m256i *)src);
        for (int h = 0; h < 2; h++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)(src + 32 + 32 * h));
            for (int s = 0; s < 4; s++) {
                /* Subtract 4 where the third bit is clear. */
                __mmask32 clear = _mm256_testn_epi8_mask(hm, _mm256_set1_epi8((char)(1 << (4 * h + s))));
                __m256i low = shr_mask(q, 2 * s, 3);
                __m256i c = _mm256_mask_sub_epi8(low, clear, low, four);
                int k = 8 * h + 2 * s;
                float *o = dst + 128 * h + 32 * s;
                put16_d(o, lo128(c), dl[k]);
                put16_d(o + 16, hi128(c), dl[k + 1]);
            }
        }
    }
}

/* Q4_K / Q5_K scales and mins (see kq_scale_min_k4): d * sc[j], dmin * mn[j]. */
static inline void k4_factors(const uint8_t *src, float *dl, float *ml)
{
    const uint8_t *s = src + 4;
    uint32_t w0 = word(s), w1 = word(s + 4), w2 = word(s + 8);
    const uint32_t lo6 = 0x3f3f3f3f, lo4 = 0x0f0f0f0f, lo2 = 0x03030303;
    uint64_t sc = (w0 & lo6) | (uint64_t)((w2 & lo4) | (w0 >> 6 & lo2) << 4) << 32;
    uint64_t mn = (w1 & lo6) | (uint64_t)((w2 >> 4 & lo4) | (w1 >> 6 & lo2) << 4) << 32;
    __m256 d = _mm256_set1_ps(f16(src)), dmin = _mm256_set1_ps(f16(src + 2));
    __m256 scf = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)sc)));
    __m256 mnf = _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)mn)));
    _mm256_storeu_ps(dl, _mm256_mul_ps(d, scf));
    _mm256_storeu_ps(ml, _mm256_mul_ps(dmin, mnf));
}

static inline void put32_dm(float *dst, __m256i c, float dl, float ml)
{
    put16_dm(dst, lo128(c), dl, ml);
    put16_dm(dst + 16, hi128(c), dl, ml);
}

static void dec_q4_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    for (int64_t b = 0; b < n; b++, src += 144, dst += 256) {
        float dl[8], ml[8];
        k4_factors(src, dl, ml);
        for (int j = 0; j < 8; j += 2) {
            __m256i q = _mm256_loadu_si256((const __m256i *)(src + 16 + 16 * j));
            put32_dm(dst + 32 * j, shr_mask(q, 0, 15), dl[j], ml[j]);
            put32_dm(dst + 32 * j + 32, shr_mask(q, 4, 15), dl[j + 1], ml[j + 1]);
        }
    }
}

static void dec_q5_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m256i sixteen = _mm256_set1_epi8(16);
    for (int64_t b = 0; b < n; b++, src += 176, dst += 256) {
        float dl[8], ml[8];
        k4_factors(src, dl, ml);
        __m256i qh = _mm256_loadu_si256((const __m256i *)(src + 16));
        for (int j = 0; j < 8; j += 2) {
            __m256i q = _mm256_loadu_si256((const __m256i *)(src + 48 + 16 * j));
            /* Fifth bit j of qh[l]: add 16 (the nibble is below 16). */
            __mmask32 b0 = _mm256_test_epi8_mask(qh, _mm256_set1_epi8((char)(1 << j)));
            __mmask32 b1 = _mm256_test_epi8_mask(qh, _mm256_set1_epi8((char)(1 << (j + 1))));
            __m256i lo = shr_mask(q, 0, 15), hi = shr_mask(q, 4, 15);
            lo = _mm256_mask_add_epi8(lo, b0, lo, sixteen);
            hi = _mm256_mask_add_epi8(hi, b1, hi, sixteen);
            put32_dm(dst + 32 * j, lo, dl[j], ml[j]);
            put32_dm(dst + 32 * j + 32, hi, dl[j + 1], ml[j + 1]);
        }
    }
}

static void dec_q6_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m256i m4 = _mm256_set1_epi8(15), m32 = _mm256_set1_epi8(32);
    for (int64_t b = 0; b < n; b++, src += 210, dst += 256) {
        float ds[16];
        __m128i sc = _mm_loadu_si128((const __m128i *)(src + 192));
        _mm512_storeu_ps(ds, _mm512_mul_ps(_mm512_set1_ps(f16(src + 208)), i8_ps(sc)));
        for (int h = 0; h < 2; h++) {
            __m256i a = _mm256_loadu_si256((const __m256i *)(src + 64 * h));
            __m256i b2 = _mm256_loadu_si256((const __m256i *)(src + 64 * h + 32));
            __m256i qh = _mm256_loadu_si256((const __m256i *)(src + 128 + 32 * h));
            __m256i c[4];
            c[0] = _mm256_or_si256(_mm256_and_si256(a, m4), shl_mask(qh, 4, 0x30));
            c[1] = _mm256_or_si256(_mm256_and_si256(b2, m4), shl_mask(qh, 2, 0x30));
            c[2] = _mm256_or_si256(shr_mask(a, 4, 15), _mm256_and_si256(qh, _mm256_set1_epi8(0x30)));
            c[3] = _mm256_or_si256(shr_mask(b2, 4, 15), shr_mask(qh, 2, 0x30));
            for (int s = 0; s < 4; s++) {
                __m256i v = _mm256_sub_epi8(c[s], m32);
                int k = 8 * h + 2 * s;
                float *o = dst + 128 * h + 32 * s;
                put16_d(o, lo128(v), ds[k]);
                put16_d(o + 16, hi128(v), ds[k + 1]);
            }
        }
    }
}

static void dec_q8_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    for (int64_t b = 0; b < n; b++, src += 292, dst += 256) {
        float dv;
        memcpy(&dv, src, 4);
        __m512 d = _mm512_set1_ps(dv);
        for (int e = 0; e < 256; e += 16) {
            __m128i c = _mm_loadu_si128((const __m128i *)(src + 4 + e));
            _mm512_storeu_ps(dst + e, _mm512_mul_ps(d, i8_ps(c)));
        }
    }
}

const gg_kernel_entry gg_kernels_kquants_avx512[] = {
    {GG_T_Q2_K, GG_ISA_AVX512, dec_q2_k}, {GG_T_Q3_K, GG_ISA_AVX512, dec_q3_k},
    {GG_T_Q4_K, GG_ISA_AVX512, dec_q4_k}, {GG_T_Q5_K, GG_ISA_AVX512, dec_q5_k},
    {GG_T_Q6_K, GG_ISA_AVX512, dec_q6_k}, {GG_T_Q8_K, GG_ISA_AVX512, dec_q8_k},
    {0},
};

#else
const gg_kernel_entry gg_kernels_kquants_avx512[] = {{0}};
#endif
