/* quantize_iquants_simd.c - IQ4_NL's and IQ4_XS's block scales and codes
 * (quantize_iquants.c), a block of 32 a lane (quantize_simd.h), compiled
 * per target like the decoding families (simd.h).
 *
 * The nearest of the 16 levels, which the scalar code finds by bisection,
 * is found here by counting the levels at or below x; the level below and
 * the one above are then at hand, and the rest is the scalar rule. */
#include "simd.h"

#include "quantize_kernels.h"

/* Not on AVX-512: there the same code ran at 34-40 M values/s against
 * AVX2's 51-55 (16 lanes or 8), so that path falls back to AVX2's. */
#if GV_BUILT && !defined(GV_AVX512)
#include "blocks.h"
#include "quantize_simd.h"
#include "tables.h"

/* The index of the level nearest x per lane (ggml's best_index_int8: the
 * lower on a tie, 0 at or below the first, 15 at or above the last and
 * for NaN), and that level in *q. */
static inline vi nearest_level_v(vf x, vf *restrict q)
{
    const int8_t *v = gg_kvalues_iq4nl;
    vf lo = (vf){0} + (float)v[0], hi = (vf){0} + (float)v[15];
    vi idx = (vi){0};
    for (int k = 1; k < 15; k++) {
        vi m = x >= (float)v[k];
        idx -= m;
        lo = sel(m, (vf){0} + (float)v[k], lo);
    }
    for (int k = 14; k >= 1; k--)
        hi = sel(x < (float)v[k], (vf){0} + (float)v[k], hi);
    vi low = x - lo < hi - x;
    vi top = (x >= (float)v[15]) | (x != x), bottom = x <= (float)v[0];
    *q = sel(bottom, (vf){0} + (float)v[0], sel(top, (vf){0} + (float)v[15], sel(low, lo, hi)));
    return seli(bottom, (vi){0}, seli(top, (vi){0} + 15, seli(low, idx, idx + 1)));
}

/* iq4_fit (quantize_iquants.c) in every lane. */
static inline vf iq4_fit_v(const vf *restrict x, vf id, vf *restrict sumq2)
{
    vf sumqx = (vf){0}, sq2 = (vf){0}, q;
    for (int j = 0; j < 32; j++) {
        nearest_level_v(id * x[j], &q);
        vf w = x[j] * x[j];
        sumqx += w * q * x[j];
        sq2 += w * q * q;
    }
    *sumq2 = sq2;
    return sumqx;
}

/* gg_iq4_block_scale in every lane. */
static vf block_scale_v(const vf *restrict x)
{
    const float v0 = (float)gg_kvalues_iq4nl[0];
    vf amax, max = signed_max_v(32, x, &amax);
    const vi zero = amax < GG_Q_GROUP_EPS;
    vf sumq2, sumqx = iq4_fit_v(x, 1.0f / (-max / v0), &sumq2);
    vf d = sel(sumq2 > 0.0f, sumqx / sumq2, (vf){0}), best = d * sumqx;
    for (int t = -7; t <= 7; t++) {
        sumqx = iq4_fit_v(x, (float)(t + gg_kvalues_iq4nl[0]) / max, &sumq2);
        vi better = (sumq2 > 0.0f) & (sumqx * sumqx > best * sumq2);
        d = sel(better, sumqx / sumq2, d);
        best = sel(better, d * sumqx, best);
    }
    return sel(zero, (vf){0}, d);
}

/* The 16 code bytes of each lane's block (gg_iq4_codes), lane k's at
 * qs + stride k. */
static void codes_v(const vf *restrict x, vf id, uint8_t *restrict qs, size_t stride)
{
    vi c[32];
    vf q;
    for (int j = 0; j < 32; j++)
        c[j] = nearest_level_v(id * x[j], &q);
    for (int k = 0; k < LANES; k++)
        for (int j = 0; j < 16; j++)
            qs[stride * (size_t)k + j] = (uint8_t)(c[j][k] | c[j + 16][k] << 4);
}

/* IQ4_NL: LANES blocks at a time, the last ones by the scalar kernel. */
static void iq4_nl_v(const float *restrict x, uint8_t *restrict y, int64_t nblocks)
{
    int64_t i = 0;
    for (; i + LANES <= nblocks; i += LANES) {
        vf xt[32];
        transpose(x + 32 * i, 32, xt);
        vf d = block_scale_v(xt);
        blk_iq4_nl *b = (blk_iq4_nl *)(void *)(y + (size_t)i * sizeof(blk_iq4_nl));
        for (int k = 0; k < LANES; k++)
            gg_q_put_f16(b[k].d, d[k]);
        codes_v(xt, sel(d != 0.0f, 1.0f / d, (vf){0}), b->qs, sizeof *b);
    }
    lanes_done();
    if (i < nblocks)
        gg_quantize_iq4_nl(x + 32 * i, y + (size_t)i * sizeof(blk_iq4_nl), nblocks - i);
}

/* IQ4_XS: the blocks of whole super-blocks, LANES at a time; each
 * super-block's scales between the blocks' scales and their codes. */
static void iq4_xs_v(const float *restrict x, uint8_t *restrict y, int64_t nblocks)
{
    enum { GROUP = LANES > 8 ? LANES / 8 : 1 }; /* super-blocks a group */
    float scales[8 * GROUP], idl[8 * GROUP];
    int64_t i = 0;
    for (; i + GROUP <= nblocks; i += GROUP) {
        const float *xg = x + 256 * i;
        blk_iq4_xs *b = (blk_iq4_xs *)(void *)(y + (size_t)i * sizeof(blk_iq4_xs));
        vf xt[32];
        for (int k = 0; k < 8 * GROUP; k += LANES) {
            transpose(xg + 32 * k, 32, xt);
            vf s = block_scale_v(xt);
            for (int l = 0; l < LANES; l++)
                scales[k + l] = s[l];
        }
        for (int h = 0; h < GROUP; h++)
            gg_iq4_xs_scales(scales + 8 * h, (uint8_t *)&b[h], idl + 8 * h);
        for (int k = 0; k < 8 * GROUP; k += LANES) {
            vf id;
            for (int l = 0; l < LANES; l++)
                id[l] = idl[k + l];
            transpose(xg + 32 * k, 32, xt);
            uint8_t qs[LANES * 16]; /* (block k + l is block (k + l) % 8 of super-block (k + l) / 8) */
            codes_v(xt, id, qs, 16);
            for (int l = 0; l < LANES; l++)
                memcpy(b[(k + l) / 8].qs + 16 * ((k + l) % 8), qs + 16 * l, 16);
        }
    }
    lanes_done();
    if (i < nblocks)
        gg_quantize_iq4_xs(x + 256 * i, y + (size_t)i * sizeof(blk_iq4_xs), nblocks - i);
}
#endif

GV_QUANTIZERS(iquants) = {
#if GV_BUILT && !defined(GV_AVX512)
    {GG_T_IQ4_NL, iq4_nl_v},
    {GG_T_IQ4_XS, iq4_xs_v},
#endif
    {0},
};
