/* quantize.c - float32 to Q8_0 blocks (see quantize.h). */
#include "gguffs/quantize.h"

#include <math.h>
#include <string.h>

#include "gguffs/halfconv.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* ggml stores roundf()'s float into an int8_t, which x86 does as cvttss2si
 * to int32 (INT32_MIN for NaN and for anything outside int32) and then the
 * low byte. Spelled out, so that every machine gives x86's bytes. */
static inline uint8_t to_q(float r)
{
    if (!(r >= -2147483648.0f && r < 2147483648.0f))
        return 0; /* (INT32_MIN's low byte) */
    return (uint8_t)(uint32_t)(int32_t)r;
}

/* ggml's float16 rounding of the scale: to nearest even like ours, but a
 * NaN is 0x7e00 with its sign. */
static inline uint16_t scale_f16(float d)
{
    uint32_t b;
    memcpy(&b, &d, 4);
    if ((b & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)(((b >> 16) & 0x8000u) | 0x7e00u);
    return gg_f32_to_f16_bits(b);
}

static inline void put_scale(uint8_t *y, float d)
{
    uint16_t h = scale_f16(d);
    y[0] = (uint8_t)h;
    y[1] = (uint8_t)(h >> 8);
}

/* One block, as ggml's quantize_row_q8_0_ref. */
static void block_scalar(const float *x, uint8_t *y)
{
    float amax = 0.0f;
    for (int j = 0; j < GG_Q8_0_ELEMS; j++) {
        float a = fabsf(x[j]);
        amax = amax > a ? amax : a; /* a NaN replaces amax; the next value replaces the NaN */
    }
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f; /* (a NaN d is "true" in C: id NaN) */
    put_scale(y, d);
    for (int j = 0; j < GG_Q8_0_ELEMS; j++)
        y[2 + j] = to_q(roundf(x[j] * id));
}

static void q8_0_scalar(const float *x, uint8_t *y, size_t nblocks)
{
    for (size_t i = 0; i < nblocks; i++)
        block_scalar(x + i * GG_Q8_0_ELEMS, y + i * GG_Q8_0_BYTES);
}

#if defined(__x86_64__) && defined(__GNUC__)
/* Eight lanes at a time. Without NaN the running max is a plain max, in
 * any order; a block holding a NaN takes the scalar path. roundf is
 * trunc(p) plus the sign of p where |p - trunc(p)| >= 0.5 (the fraction is
 * exact); cvttps gives INT32_MIN where cvttss does. */
__attribute__((target("avx2"))) static void q8_0_avx2(const float *x, uint8_t *y, size_t nblocks)
{
    const __m256 sign = _mm256_set1_ps(-0.0f), half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f);
    const __m256i low = _mm256_set1_epi32(0xff), order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for (size_t i = 0; i < nblocks; i++, x += GG_Q8_0_ELEMS, y += GG_Q8_0_BYTES) {
        __m256 v[4], nan = _mm256_setzero_ps(), m = _mm256_setzero_ps();
        for (int k = 0; k < 4; k++) {
            v[k] = _mm256_loadu_ps(x + 8 * k);
            nan = _mm256_or_ps(nan, _mm256_cmp_ps(v[k], v[k], _CMP_UNORD_Q));
            m = _mm256_max_ps(m, _mm256_andnot_ps(sign, v[k]));
        }
        if (!_mm256_testz_ps(nan, nan)) {
            block_scalar(x, y);
            continue;
        }
        __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
        h = _mm_max_ps(h, _mm_movehl_ps(h, h));
        h = _mm_max_ss(h, _mm_movehdup_ps(h));
        const float d = _mm_cvtss_f32(h) / 127.0f;
        const float id = d != 0.0f ? 1.0f / d : 0.0f;
        put_scale(y, d);
        const __m256 vid = _mm256_set1_ps(id);
        __m256i q[4];
        for (int k = 0; k < 4; k++) {
            __m256 p = _mm256_mul_ps(v[k], vid);
            __m256 t = _mm256_round_ps(p, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
            __m256 away = _mm256_cmp_ps(_mm256_andnot_ps(sign, _mm256_sub_ps(p, t)), half, _CMP_GE_OQ);
            __m256 r = _mm256_add_ps(t, _mm256_and_ps(away, _mm256_or_ps(_mm256_and_ps(p, sign), one)));
            q[k] = _mm256_and_si256(_mm256_cvttps_epi32(r), low);
        }
        /* 4 x 8 bytes in 32-bit lanes to 32 bytes in order (the packs work per 128-bit half). */
        __m256i b = _mm256_packus_epi16(_mm256_packus_epi32(q[0], q[1]), _mm256_packus_epi32(q[2], q[3]));
        _mm256_storeu_si256((__m256i *)(void *)(y + 2), _mm256_permutevar8x32_epi32(b, order));
    }
}
#endif

void gg_quantize_q8_0_isa(const float *x, uint8_t *y, size_t nblocks, gg_isa isa)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (isa == GG_ISA_AVX2 || isa == GG_ISA_AVX512) {
        q8_0_avx2(x, y, nblocks);
        return;
    }
#endif
    (void)isa;
    q8_0_scalar(x, y, nblocks);
}

void gg_quantize_q8_0(const float *x, uint8_t *y, size_t nblocks)
{
    gg_quantize_q8_0_isa(x, y, nblocks, gg_isa_active());
}
