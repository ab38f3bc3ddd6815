/* kquants_avx2.c - AVX2/F16C twins of kquants.c; same bytes for any input.
 *
 * Per block, the sub-block factors (d * sc, dmin * mn) are computed 8 at a
 * time with the same single roundings as the scalar code and kept in small
 * float arrays; the codes are built as 32 bytes (one sub-block of 32, or two
 * of 16) and widened 8 at a time to int32, converted to float (exact), then
 * multiplied (and the min subtracted) in the scalar order. */
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

/* Eight bytes (in the low half of v) to 8 floats, unsigned or signed. */
static inline __m256 u8_ps(__m128i v) { return _mm256_cvtepi32_ps(_mm256_cvtepu8_epi32(v)); }
static inline __m256 i8_ps(__m128i v) { return _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)); }

/* 16 unsigned codes -> dl * q - ml. */
static inline void put16_dm(float *dst, __m128i c, float dl, float ml)
{
    __m256 d = _mm256_set1_ps(dl), m = _mm256_set1_ps(ml);
    _mm256_storeu_ps(dst, _mm256_sub_ps(_mm256_mul_ps(d, u8_ps(c)), m));
    _mm256_storeu_ps(dst + 8, _mm256_sub_ps(_mm256_mul_ps(d, u8_ps(_mm_unpackhi_epi64(c, c))), m));
}

/* 16 signed codes -> dl * q. */
static inline void put16_d(float *dst, __m128i c, float dl)
{
    __m256 d = _mm256_set1_ps(dl);
    _mm256_storeu_ps(dst, _mm256_mul_ps(d, i8_ps(c)));
    _mm256_storeu_ps(dst + 8, _mm256_mul_ps(d, i8_ps(_mm_unpackhi_epi64(c, c))));
}

static inline __m128i lo128(__m256i v) { return _mm256_castsi256_si128(v); }
static inline __m128i hi128(__m256i v) { return _mm256_extracti128_si256(v, 1); }

/* Byte-wise shifts done on 16-bit lanes, then masked to the wanted bits. */
static inline __m256i shr_mask(__m256i v, int s, int mask)
{
    return _mm256_and_si256(_mm256_srli_epi16(v, s), _mm256_set1_epi8((char)mask));
}
static inline __m256i shl_mask(__m256i v, int s, int mask)
{
    return _mm256_and_si256(_mm256_slli_epi16(v, s), _mm256_set1_epi8((char)mask));
}

/* 16 factors f * bytes[k] (unsigned bytes, converted exactly) into out[16]. */
static inline void scale16_u8(float *out, __m128i bytes, float f)
{
    __m256 v = _mm256_set1_ps(f);
    _mm256_storeu_ps(out, _mm256_mul_ps(v, u8_ps(bytes)));
    _mm256_storeu_ps(out + 8, _mm256_mul_ps(v, u8_ps(_mm_unpackhi_epi64(bytes, bytes))));
}
static inline void scale16_i8(float *out, __m128i bytes, float f)
{
    __m256 v = _mm256_set1_ps(f);
    _mm256_storeu_ps(out, _mm256_mul_ps(v, i8_ps(bytes)));
    _mm256_storeu_ps(out + 8, _mm256_mul_ps(v, i8_ps(_mm_unpackhi_epi64(bytes, bytes))));
}

static void dec_q2_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    for (int64_t b = 0; b < n; b++, src += 84, dst += 256) {
        float dl[16], ml[16];
        __m128i sc = _mm_loadu_si128((const __m128i *)src);
        const __m128i m4 = _mm_set1_epi8(15);
        scale16_u8(dl, _mm_and_si128(sc, m4), f16(src + 80));
        scale16_u8(ml, _mm_and_si128(_mm_srli_epi16(sc, 4), m4), f16(src + 82));
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
    uint32_t a = (w0 & lo4) | (w2 & lo2) << 4;               /* scales 0..3 */
    uint32_t b = (w1 & lo4) | (w2 >> 2 & lo2) << 4;          /* 4..7 */
    uint32_t c = (w0 >> 4 & lo4) | (w2 >> 4 & lo2) << 4;     /* 8..11 */
    uint32_t e = (w1 >> 4 & lo4) | (w2 >> 6 & lo2) << 4;     /* 12..15 */
    return _mm_set_epi32((int)e, (int)c, (int)b, (int)a);
}

static void dec_q3_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const __m256i four = _mm256_set1_epi8(4), zero = _mm256_setzero_si256();
    for (int64_t b = 0; b < n; b++, src += 110, dst += 256) {
        float dl[16];
        scale16_i8(dl, _mm_sub_epi8(q3k_scales(src + 96), _mm_set1_epi8(32)), f16(src + 108));
        __m256i hm = _mm256_loadu_si256((const __m256i *)src);
        for (int h = 0; h < 2; h++) {
            __m256i q = _mm256_loadu_si256((const __m256i *)(src + 32 + 32 * h));
            for (int s = 0; s < 4; s++) {
                __m256i bit = _mm256_set1_epi8((char)(1 << (4 * h + s)));
                __m256i clear = _mm256_cmpeq_epi8(_mm256_and_si256(hm, bit), zero);
                __m256i c = _mm256_sub_epi8(shr_mask(q, 2 * s, 3), _mm256_and_si256(clear, four));
                int k = 8 * h + 2 * s;
                float *o = dst + 128 * h + 32 * s;
                put16_d(o, lo128(c), dl[k]);
                put16_d(o + 16, hi128(c), dl[k + 1]);
            }
        }
    }
}

/* Q4_K / Q5_K scales and mins (see kq_scale_min_k4), 8 bytes each. */
static inline void k4_scales(const uint8_t *s, uint64_t *sc, uint64_t *mn)
{
    uint32_t w0 = word(s), w1 = word(s + 4), w2 = word(s + 8);
    const uint32_t lo6 = 0x3f3f3f3f, lo4 = 0x0f0f0f0f, lo2 = 0x03030303;
    *sc = (w0 & lo6) | (uint64_t)((w2 & lo4) | (w0 >> 6 & lo2) << 4) << 32;
    *mn = (w1 & lo6) | (uint64_t)((w2 >> 4 & lo4) | (w1 >> 6 & lo2) << 4) << 32;
}

static inline void k4_factors(const uint8_t *src, float *dl, float *ml)
{
    uint64_t sc, mn;
    k4_scales(src + 4, &sc, &mn);
    __m256 d = _mm256_set1_ps(f16(src)), dmin = _mm256_set1_ps(f16(src + 2));
    _mm256_storeu_ps(dl, _mm256_mul_ps(d, u8_ps(_mm_cvtsi64_si128((long long)sc))));
    _mm256_storeu_ps(ml, _mm256_mul_ps(dmin, u8_ps(_mm_cvtsi64_si128((long long)mn))));
}

/* 32 unsigned codes of one sub-block -> dl * q - ml. */
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

/* Bit j of each qh byte moved to value 16. */
static inline __m256i fifth(__m256i qh, int j)
{
    return _mm256_and_si256(_mm256_slli_epi16(_mm256_srli_epi16(qh, j), 4), _mm256_set1_epi8(16));
}

static void dec_q5_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    for (int64_t b = 0; b < n; b++, src += 176, dst += 256) {
        float dl[8], ml[8];
        k4_factors(src, dl, ml);
        __m256i qh = _mm256_loadu_si256((const __m256i *)(src + 16));
        for (int j = 0; j < 8; j += 2) {
            __m256i q = _mm256_loadu_si256((const __m256i *)(src + 48 + 16 * j));
            __m256i lo = _mm256_or_si256(shr_mask(q, 0, 15), fifth(qh, j));
            __m256i hi = _mm256_or_si256(shr_mask(q, 4, 15), fifth(qh, j + 1));
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
        scale16_i8(ds, _mm_loadu_si128((const __m128i *)(src + 192)), f16(src + 208));
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
        __m256 d = _mm256_set1_ps(dv);
        for (int e = 0; e < 256; e += 8) {
            __m128i c = _mm_loadl_epi64((const __m128i *)(src + 4 + e));
            _mm256_storeu_ps(dst + e, _mm256_mul_ps(d, i8_ps(c)));
        }
    }
}

const gg_kernel_entry gg_kernels_kquants_avx2[] = {
    {GG_T_Q2_K, GG_ISA_AVX2, dec_q2_k}, {GG_T_Q3_K, GG_ISA_AVX2, dec_q3_k},
    {GG_T_Q4_K, GG_ISA_AVX2, dec_q4_k}, {GG_T_Q5_K, GG_ISA_AVX2, dec_q5_k},
    {GG_T_Q6_K, GG_ISA_AVX2, dec_q6_k}, {GG_T_Q8_K, GG_ISA_AVX2, dec_q8_k},
    {0},
};

#else
const gg_kernel_entry gg_kernels_kquants_avx2[] = {{0}};
#endif
