/* quantize.c - float32 to quantized blocks (see quantize.h): the table of
 * the types gg_quantize_rows makes, and Q8_0's kernels. */
#include "gguffs/quantize.h"

#include <math.h>
#include <string.h>

#include "gguffs/halfconv.h"
#include "blocks.h"
#include "quantize_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

/* ggml stores roundf()'s float into an int8_t: x86's conversion, low byte. */
static inline uint8_t to_q(float r) { return (uint8_t)gg_q_trunc(r); }

static inline void put_scale(uint8_t *y, float d) { (void)gg_q_put_f16(y, d); }

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

static void q8_0_scalar(const float *restrict x, uint8_t *restrict y, int64_t nblocks)
{
    for (int64_t i = 0; i < nblocks; i++)
        block_scalar(x + i * GG_Q8_0_ELEMS, y + i * GG_Q8_0_BYTES);
}

#if defined(__x86_64__) && defined(__GNUC__)
/* Eight lanes at a time. Without NaN the running max is a plain max, in
 * any order; a block holding a NaN takes the scalar path. roundf is
 * trunc(p) plus the sign of p where |p - trunc(p)| >= 0.5 (the fraction is
 * exact); cvttps gives INT32_MIN where cvttss does. */

/* The 32 bytes q of one block, from its values v and its id. */
__attribute__((target("avx2"))) static inline void q_avx2(const __m256 *v, __m256 vid, uint8_t *q)
{
    const __m256 sign = _mm256_set1_ps(-0.0f), half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1.0f);
    const __m256i low = _mm256_set1_epi32(0xff), order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    __m256i w[4];
    for (int k = 0; k < 4; k++) {
        __m256 p = _mm256_mul_ps(v[k], vid);
        __m256 t = _mm256_round_ps(p, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
        __m256 away = _mm256_cmp_ps(_mm256_andnot_ps(sign, _mm256_sub_ps(p, t)), half, _CMP_GE_OQ);
        __m256 r = _mm256_add_ps(t, _mm256_and_ps(away, _mm256_or_ps(_mm256_and_ps(p, sign), one)));
        w[k] = _mm256_and_si256(_mm256_cvttps_epi32(r), low);
    }
    /* 4 x 8 bytes in 32-bit lanes to 32 bytes in order (the packs work per 128-bit half). */
    __m256i b = _mm256_packus_epi16(_mm256_packus_epi32(w[0], w[1]), _mm256_packus_epi32(w[2], w[3]));
    _mm256_storeu_si256((__m256i *)(void *)q, _mm256_permutevar8x32_epi32(b, order));
}

/* The |x| of a block folded to 8 lanes, and whether it holds a NaN. */
__attribute__((target("avx2"))) static inline __m256 absmax8(const float *x, __m256 *v, __m256 *nan)
{
    const __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 m = _mm256_setzero_ps();
    for (int k = 0; k < 4; k++) {
        v[k] = _mm256_loadu_ps(x + 8 * k);
        *nan = _mm256_or_ps(*nan, _mm256_cmp_ps(v[k], v[k], _CMP_UNORD_Q));
        m = _mm256_max_ps(m, _mm256_andnot_ps(sign, v[k]));
    }
    return m;
}

/* One block (the tail, and the blocks of a group that holds a NaN). */
__attribute__((target("avx2"))) static void block_avx2(const float *x, uint8_t *y)
{
    __m256 v[4], nan = _mm256_setzero_ps();
    __m256 m = absmax8(x, v, &nan);
    if (!_mm256_testz_ps(nan, nan)) {
        block_scalar(x, y);
        return;
    }
    __m128 h = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
    h = _mm_max_ps(h, _mm_movehl_ps(h, h));
    h = _mm_max_ss(h, _mm_movehdup_ps(h));
    const float d = _mm_cvtss_f32(h) / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    put_scale(y, d);
    q_avx2(v, _mm256_set1_ps(id), y + 2);
}

/* Eight blocks at once: their maxima gathered in one vector, so that the
 * divisions and the float16 scales take one instruction for all eight
 * (F16C rounds to nearest even, as the scalar path; no NaN gets there). */
__attribute__((target("avx2,f16c"))) static void q8_0_avx2(const float *restrict x, uint8_t *restrict y,
                                                            int64_t nblocks)
{
    int64_t i = 0;
    for (; i + 8 <= nblocks; i += 8, x += 8 * GG_Q8_0_ELEMS, y += 8 * GG_Q8_0_BYTES) {
        __m256 v[4], nan = _mm256_setzero_ps(), m[8];
        for (int b = 0; b < 8; b++)
            m[b] = absmax8(x + b * GG_Q8_0_ELEMS, v, &nan);
        if (!_mm256_testz_ps(nan, nan)) {
            for (int b = 0; b < 8; b++)
                block_avx2(x + b * GG_Q8_0_ELEMS, y + b * GG_Q8_0_BYTES);
            continue;
        }
        /* m[b] -> lane b of one vector: unpack pairs lanes 0-1 with 2-3 of
         * two blocks, shuffle makes each 128-bit half hold four blocks'
         * partial maxima in order, and the two halves meet last */
        __m256 t[4], u[2];
        for (int k = 0; k < 4; k++)
            t[k] = _mm256_max_ps(_mm256_unpacklo_ps(m[2 * k], m[2 * k + 1]), _mm256_unpackhi_ps(m[2 * k], m[2 * k + 1]));
        for (int k = 0; k < 2; k++)
            u[k] = _mm256_max_ps(_mm256_shuffle_ps(t[2 * k], t[2 * k + 1], 0x44),
                                 _mm256_shuffle_ps(t[2 * k], t[2 * k + 1], 0xee));
        __m256 amax = _mm256_max_ps(_mm256_permute2f128_ps(u[0], u[1], 0x20), _mm256_permute2f128_ps(u[0], u[1], 0x31));
        __m256 d = _mm256_div_ps(amax, _mm256_set1_ps(127.0f));
        __m256 id = _mm256_and_ps(_mm256_cmp_ps(d, _mm256_setzero_ps(), _CMP_NEQ_UQ),
                                  _mm256_div_ps(_mm256_set1_ps(1.0f), d));
        uint16_t hd[8];
        float ids[8];
        _mm_storeu_si128((__m128i *)(void *)hd, _mm256_cvtps_ph(d, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
        _mm256_storeu_ps(ids, id);
        for (int b = 0; b < 8; b++) {
            const float *xb = x + b * GG_Q8_0_ELEMS;
            uint8_t *yb = y + b * GG_Q8_0_BYTES;
            for (int k = 0; k < 4; k++)
                v[k] = _mm256_loadu_ps(xb + 8 * k);
            yb[0] = (uint8_t)hd[b];
            yb[1] = (uint8_t)(hd[b] >> 8);
            q_avx2(v, _mm256_set1_ps(ids[b]), yb + 2);
        }
    }
    for (; i < nblocks; i++, x += GG_Q8_0_ELEMS, y += GG_Q8_0_BYTES)
        block_avx2(x, y);
}
static const gg_quantizer_entry q8_0_x86[] = {{GG_T_Q8_0, q8_0_avx2}, {0}};
#else
static const gg_quantizer_entry q8_0_x86[] = {{0}};
#endif

/* The SIMD kernels of each path (the families compiled per target, and
 * Q8_0's AVX2 path above, which serves AVX-512 too). */
enum { LISTS = 3 };
static const gg_quantizer_entry *const simd_lists[GG_ISA_COUNT][LISTS] = {
    [GG_ISA_AVX2] = {gg_quantizers_kquants_avx2, gg_quantizers_iquants_avx2, q8_0_x86},
    [GG_ISA_AVX512] = {gg_quantizers_kquants_avx512, gg_quantizers_iquants_avx512, q8_0_x86},
    [GG_ISA_NEON] = {gg_quantizers_kquants_neon, gg_quantizers_iquants_neon, NULL},
};

/* t's kernel on isa, or on the paths it falls back to (*path: the one
 * found); NULL: the scalar one. */
static gg_quantizer simd_kernel(gg_tid t, gg_isa isa, gg_isa *path)
{
    for (; isa != GG_ISA_SCALAR; isa = gg_isa_fallback(isa))
        for (int l = 0; l < LISTS; l++)
            for (const gg_quantizer_entry *e = simd_lists[isa][l]; e && e->type; e++)
                if (e->type == t)
                    return *path = isa, e->fn;
    return *path = GG_ISA_SCALAR, NULL;
}

gg_isa gg_quantize_path(gg_tid t, gg_isa isa)
{
    gg_isa path;
    simd_kernel(t, isa >= 0 && isa < GG_ISA_COUNT ? isa : GG_ISA_SCALAR, &path);
    return path;
}

/* The types gg_quantize_rows makes: values and bytes per block, kernel,
 * and for those with tables made on first use, the call that makes them. */
static const struct quantizer {
    gg_tid type;
    int elems, bytes;
    gg_quantizer fn;
    int (*ready)(void);
} quantizers[] = {
    {.type = GG_T_Q4_0, .elems = 32, .bytes = sizeof(blk_q4_0), .fn = gg_quantize_q4_0},
    {.type = GG_T_Q4_1, .elems = 32, .bytes = sizeof(blk_q4_1), .fn = gg_quantize_q4_1},
    {.type = GG_T_Q5_0, .elems = 32, .bytes = sizeof(blk_q5_0), .fn = gg_quantize_q5_0},
    {.type = GG_T_Q5_1, .elems = 32, .bytes = sizeof(blk_q5_1), .fn = gg_quantize_q5_1},
    {.type = GG_T_Q8_0, .elems = GG_Q8_0_ELEMS, .bytes = GG_Q8_0_BYTES, .fn = q8_0_scalar},
    {.type = GG_T_Q1_0, .elems = 128, .bytes = sizeof(blk_q1_0), .fn = gg_quantize_q1_0},
    {.type = GG_T_Q2_0, .elems = 64, .bytes = sizeof(blk_q2_0), .fn = gg_quantize_q2_0},
    {.type = GG_T_Q2_K, .elems = 256, .bytes = sizeof(blk_q2_k), .fn = gg_quantize_q2_k},
    {.type = GG_T_Q3_K, .elems = 256, .bytes = sizeof(blk_q3_k), .fn = gg_quantize_q3_k},
    {.type = GG_T_Q4_K, .elems = 256, .bytes = sizeof(blk_q4_k), .fn = gg_quantize_q4_k},
    {.type = GG_T_Q5_K, .elems = 256, .bytes = sizeof(blk_q5_k), .fn = gg_quantize_q5_k},
    {.type = GG_T_Q6_K, .elems = 256, .bytes = sizeof(blk_q6_k), .fn = gg_quantize_q6_k},
    {.type = GG_T_IQ4_NL, .elems = 32, .bytes = sizeof(blk_iq4_nl), .fn = gg_quantize_iq4_nl},
    {.type = GG_T_IQ4_XS, .elems = 256, .bytes = sizeof(blk_iq4_xs), .fn = gg_quantize_iq4_xs},
    {.type = GG_T_IQ3_S, .elems = 256, .bytes = sizeof(blk_iq3_s), .fn = gg_quantize_iq3_s,
     .ready = gg_quantize_iq3_s_ready},
    {.type = GG_T_TQ1_0, .elems = 256, .bytes = sizeof(blk_tq1_0), .fn = gg_quantize_tq1_0},
    {.type = GG_T_TQ2_0, .elems = 256, .bytes = sizeof(blk_tq2_0), .fn = gg_quantize_tq2_0},
    {.type = GG_T_MXFP4, .elems = 32, .bytes = sizeof(blk_mxfp4), .fn = gg_quantize_mxfp4},
};

static const struct quantizer *quantizer_of(gg_tid t)
{
    for (size_t i = 0; i < sizeof quantizers / sizeof *quantizers; i++)
        if (quantizers[i].type == t)
            return !quantizers[i].ready || quantizers[i].ready() ? &quantizers[i] : NULL;
    return NULL;
}

int gg_quantize_has(gg_tid t) { return quantizer_of(t) != NULL; }

size_t gg_quantize_rows_isa(gg_tid t, const float *x, uint8_t *y, int64_t nrows, int64_t n_per_row, gg_isa isa)
{
    const struct quantizer *q = quantizer_of(t);
    if (!q || nrows < 0 || n_per_row < 0 || n_per_row % q->elems || isa < 0 || isa >= GG_ISA_COUNT)
        return 0;
    /* blocks never straddle rows, so the rows are one run of blocks */
    const int64_t nblocks = nrows * (n_per_row / q->elems);
    gg_isa path;
    gg_quantizer fn = simd_kernel(t, isa, &path);
    if (nblocks > 0)
        (fn ? fn : q->fn)(x, y, nblocks);
    return (size_t)nblocks * (size_t)q->bytes;
}

size_t gg_quantize_rows(gg_tid t, const float *x, uint8_t *y, int64_t nrows, int64_t n_per_row)
{
    return gg_quantize_rows_isa(t, x, y, nrows, n_per_row, gg_isa_active());
}
