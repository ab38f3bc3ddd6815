/* quantize_kernels.h - the reference quantizers of each family, and the
 * few operations of ggml's they all share (internal).
 *
 * One function per type: nblocks blocks of float32 at x (any alignment)
 * into nblocks stored blocks at y, each block made from its own values only
 * (quantize.c cuts rows into blocks and lists these in its table). */
#ifndef GGUFFS_DECODE_QUANTIZE_KERNELS_H
#define GGUFFS_DECODE_QUANTIZE_KERNELS_H

#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "gguffs/decode.h"
#include "gguffs/fp16.h"
#include "gguffs/halfconv.h"

typedef void (*gg_quantizer)(const float *restrict x, uint8_t *restrict y, int64_t nblocks);

/* The SIMD quantizers of a family compiled for a target (like the decoding
 * kernels, families.h): a list ended by {0}, empty where the target is not
 * this machine's architecture. */
typedef struct gg_quantizer_entry {
    gg_tid type;
    gg_quantizer fn;
} gg_quantizer_entry;
extern const gg_quantizer_entry gg_quantizers_kquants_avx2[], gg_quantizers_kquants_avx512[],
    gg_quantizers_kquants_neon[], gg_quantizers_iquants_avx2[], gg_quantizers_iquants_avx512[],
    gg_quantizers_iquants_neon[];
#define GV_QUANTIZERS(family) const gg_quantizer_entry GV_CAT(GV_CAT(gg_quantizers, family), GG_TARGET)[]

/* quantize_legacy.c: 32 values a block (Q1_0 128, Q2_0 64) */
void gg_quantize_q4_0(const float *restrict x, uint8_t *restrict y, int64_t nblocks);
void gg_quantize_q4_1(const float *restrict x, uint8_t *restrict y, int64_t nblocks);
void gg_quantize_q5_0(const float *restrict x, uint8_t *restrict y, int64_t nblocks);
void gg_quantize_q5_1(const float *restrict x, uint8_t *restrict y, int64_t nblocks);
void gg_quantize_q1_0(const float *restrict x, uint8_t *restrict y, int64_t nblocks);
void gg_quantize_q2_0(const float *restrict x, uint8_t *restrict y, int64_t nblocks);

/* quantize_kquants.c: 256 values a block, in two steps. The search finds
 * every sub-block's scale (and min) and its codes L (0..nmax: Q3_K's and
 * Q6_K's with nmax added), the costly part, which quantize_kquants_simd.c
 * also does for 16 sub-blocks at once; the finish turns them into the
 * block at y. */
typedef struct gg_kq_search {
    float scale[16], min[16];
    uint8_t L[256];
} gg_kq_search;
#define GG_KQ_TYPES(X) X(q2_k) X(q3_k) X(q4_k) X(q5_k) X(q6_k)
#define GG_KQ_DECLARE(name)                                                                  \
    void gg_quantize_##name(const float *restrict x, uint8_t *restrict y, int64_t nblocks);  \
    void gg_kq_search_##name(const float *restrict x, gg_kq_search *restrict s);             \
    void gg_kq_finish_##name(const float *restrict x, gg_kq_search *restrict s, uint8_t *restrict y);
GG_KQ_TYPES(GG_KQ_DECLARE)

/* quantize_iquants.c, and quantize_iquants_simd.c for IQ4's block scales
 * and codes: a block of 32's scale, its 32 codes from the inverse scale id,
 * IQ4_XS's d and sub-scales from its 8 blocks' scales (idl: each block's id) */
void gg_quantize_iq4_nl(const float *restrict x, uint8_t *restrict y, int64_t nblocks);
void gg_quantize_iq4_xs(const float *restrict x, uint8_t *restrict y, int64_t nblocks);
float gg_iq4_block_scale(const float *restrict x);
void gg_iq4_codes(const float *restrict x, float id, uint8_t *restrict qs);
void gg_iq4_xs_scales(const float *restrict scales, uint8_t *restrict y, float *restrict idl);
void gg_quantize_iq3_s(const float *restrict x, uint8_t *restrict y, int64_t nblocks);
/* 1 once IQ3_S's neighbour lists are made (the first call makes them). */
int gg_quantize_iq3_s_ready(void);

/* quantize_ternary.c: 256 values a block */
void gg_quantize_tq1_0(const float *restrict x, uint8_t *restrict y, int64_t nblocks);
void gg_quantize_tq2_0(const float *restrict x, uint8_t *restrict y, int64_t nblocks);

/* quantize_fp4.c: 32 values a block */
void gg_quantize_mxfp4(const float *restrict x, uint8_t *restrict y, int64_t nblocks);

/* ggml's GROUP_MAX_EPS: a group with every |x| below it is all zero. */
#define GG_Q_GROUP_EPS 1e-15f

static inline int gg_q_clamp(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

/* The value of largest magnitude among n at x (the first of equals; never
 * a NaN), that magnitude in *amax. */
static inline float gg_q_signed_max(const float *restrict x, int n, float *restrict amax)
{
    float max = 0.0f;
    *amax = 0.0f;
    for (int i = 0; i < n; i++)
        if (fabsf(x[i]) > *amax)
            *amax = fabsf(x[i]), max = x[i];
    return max;
}

/* A float stored into an integer, as ggml's C does it on x86 (the
 * conversion is undefined in C outside the integer's range; x86's cvttss2si
 * truncates toward zero and gives INT32_MIN for NaN and for anything
 * outside int32). The caller then keeps the low bits it stores, as C does
 * when it narrows an int. Spelled out so that every machine gives x86's
 * bytes. */
static inline int32_t gg_q_trunc(float r)
{
    /* (a select, then a conversion that is always defined: vectorizes) */
    return (int32_t)(r >= -2147483648.0f && r < 2147483648.0f ? r : -2147483648.0f);
}

/* roundf (half away from zero) to an integer, as ggml's (int)roundf(v) and
 * lroundf(v) give them on x86 (INT32_MIN, LONG_MIN past the range, for NaN
 * and infinities), without libm's call per value (Q2_0, the ternary types).
 * Below 2^23 the truncation and the fraction left are exact; from 2^23 up
 * a float is an integer already. */
static inline int32_t gg_q_round_i32(float v)
{
    if (!(fabsf(v) < 0x1p23f))
        return gg_q_trunc(v);
    int32_t r = (int32_t)v;
    float f = v - (float)r;
    return r + (f >= 0.5f) - (f <= -0.5f);
}

static inline long gg_q_lroundf(float v)
{
    if (!(fabsf(v) < 0x1p23f))
        return fabsf(v) < 0x1p63f ? (long)v : LONG_MIN;
    return gg_q_round_i32(v);
}

/* ggml's nearest_int: round half to even by adding 1.5 * 2^23, read back
 * from the float's low 23 bits. Exact for |f| < 2^22; past that (and for
 * NaN and infinities) it gives what those bits give, as ggml does. */
static inline int gg_q_nearest(float f)
{
    float v = f + 12582912.0f;
    uint32_t i;
    memcpy(&i, &v, 4);
    return (int)(i & 0x007fffffu) - 0x00400000;
}

/* ggml's GGML_FP32_TO_FP16: to nearest even like gg_f32_to_f16_bits, but a
 * NaN is 0x7e00 with its sign (no payload). */
static inline uint16_t gg_q_f16(float d)
{
    uint32_t b;
    memcpy(&b, &d, 4);
    if ((b & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)(((b >> 16) & 0x8000u) | 0x7e00u);
    return gg_f32_to_f16_bits(b);
}

/* Store d as ggml's float16 at p (little-endian), and return the float it
 * stored, which the K-quants go on computing with. */
static inline float gg_q_put_f16(uint8_t *p, float d)
{
    uint16_t h = gg_q_f16(d);
    p[0] = (uint8_t)h;
    p[1] = (uint8_t)(h >> 8);
    return gg_fp16_to_f32(h);
}

#endif
