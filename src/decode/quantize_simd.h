/* quantize_simd.h - what the quantizers' SIMD families share (internal;
 * included by <family>_simd.c inside #if GV_BUILT).
 *
 * A scalar reference quantizer is a chain of float operations per block (or
 * sub-block) that must run in ggml's order; blocks are independent, so
 * each lane of a vector runs one block's chain: the same IEEE operations
 * on the same values in the same order, bit for bit, and a branch of the
 * scalar code becomes a lane mask that selects. A vector is one register
 * of the target: 16 lanes on AVX-512, 8 on AVX2, 4 on NEON (GCC's generic
 * vectors, whose +, -, *, / are one IEEE operation each, never fused:
 * -ffp-contract=off; wider than a register they were split badly, AVX2
 * running at the scalar speed). */
#ifndef GGUFFS_DECODE_QUANTIZE_SIMD_H
#define GGUFFS_DECODE_QUANTIZE_SIMD_H

#include <stdint.h>

#if defined(LANES)
/* (a family's own choice) */
#elif defined(__AVX512F__)
#define LANES 16
#elif defined(__AVX2__)
#define LANES 8
#else
#define LANES 4
#endif
typedef float vf __attribute__((vector_size(4 * LANES)));
typedef int32_t vi __attribute__((vector_size(4 * LANES)));

static inline vf sel(vi m, vf a, vf b) { return (vf)((m & (vi)a) | (~m & (vi)b)); }
static inline vi seli(vi m, vi a, vi b) { return (m & a) | (~m & b); }
static inline vf tof(vi v) { return __builtin_convertvector(v, vf); }
static inline vf absv(vf a) { return (vf)((vi)a & 0x7fffffff); }
static inline vi clampv(vi v, int lo, int hi) { return seli(v < lo, (vi){0} + lo, seli(v > hi, (vi){0} + hi, v)); }
static inline int any(vi m)
{
    for (int k = 0; k < LANES; k++)
        if (m[k])
            return 1;
    return 0;
}

/* Every SIMD quantizer's last step. GCC omits vzeroupper on returning from
 * its local AVX functions and did not add one on the way out of their
 * caller either: the dirty upper halves then slowed the next SSE code
 * (ggml's IQ4_NL quantizer run after ours: 2.1 instead of 5.4 M values/s). */
static inline void lanes_done(void)
{
#if defined(__AVX__)
    __builtin_ia32_vzeroupper();
#endif
}

/* gg_q_nearest, per lane */
static inline vi nearest(vf f)
{
    vf v = f + 12582912.0f;
    return ((vi)v & 0x007fffff) - 0x00400000;
}

/* xt[i] lane k = value i of block k, the blocks of n values laid end to
 * end at x. */
static inline void transpose(const float *restrict x, int n, vf *restrict xt)
{
    for (int i = 0; i < n; i++)
        for (int k = 0; k < LANES; k++)
            xt[i][k] = x[n * k + i];
}

/* The value of largest magnitude per lane (the first of equals; never a
 * NaN), and that magnitude in *amax. */
static inline vf signed_max_v(int n, const vf *restrict x, vf *restrict amax)
{
    vf max = (vf){0};
    *amax = (vf){0};
    for (int i = 0; i < n; i++) {
        vi m = absv(x[i]) > *amax;
        *amax = sel(m, absv(x[i]), *amax);
        max = sel(m, x[i], max);
    }
    return max;
}

#endif
