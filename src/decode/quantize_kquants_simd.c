/* quantize_kquants_simd.c - the K-quants' sub-block searches (the costly
 * part of quantize_kquants.c), a sub-block a lane (quantize_simd.h),
 * compiled per target like the decoding families (simd.h).
 *
 * The scalar searches are chains of float sums that must be added in
 * ggml's order, so they cannot be split within a sub-block; but the
 * sub-blocks are independent. The sub-blocks of one super-block (16 of 16
 * for Q2_K, Q3_K, Q6_K; 8 of 32 for Q4_K, Q5_K), or of two, fill the lanes
 * in turn. */
#include "simd.h"

#include "quantize_kernels.h"

#if GV_BUILT
#include <math.h>

#include "blocks.h"
#include "quantize_simd.h"

/* scale_min (ggml's make_qkx2_quants) in every lane: L[i] gets the codes,
 * *scale and *neg_min the answers. */
static void scale_min_v(int n, int nmax, const vf *restrict x, const vf *restrict w, vi *restrict L,
                        vf *restrict scale_out, vf *restrict neg_min, float rmin, float rdelta, int nstep, int mad)
{
    vi Laux[32];
    vf min = x[0], max = x[0], sum_w = w[0], sum_x = sum_w * x[0];
    for (int i = 1; i < n; i++) {
        min = sel(x[i] < min, x[i], min);
        max = sel(x[i] > max, x[i], max);
        sum_w += w[i];
        sum_x += w[i] * x[i];
    }
    min = sel(min > 0.0f, (vf){0}, min);
    const vf min0 = min;
    const vi flat = max == min; /* these lanes: codes 0, scale 0, min as it is */
    vf iscale = (float)nmax / (max - min), scale = 1.0f / iscale, best = (vf){0};
    for (int i = 0; i < n; i++) {
        L[i] = clampv(nearest(iscale * (x[i] - min)), 0, nmax);
        vf diff = scale * tof(L[i]) + min - x[i];
        best += w[i] * (mad ? absv(diff) : diff * diff);
    }
    for (int is = 0; is <= nstep; is++) {
        iscale = (rmin + rdelta * (float)is + (float)nmax) / (max - min); /* (min moves as it improves) */
        vf sum_l = (vf){0}, sum_l2 = (vf){0}, sum_xl = (vf){0};
        for (int i = 0; i < n; i++) {
            Laux[i] = clampv(nearest(iscale * (x[i] - min)), 0, nmax);
            vf l = tof(Laux[i]);
            sum_l += w[i] * l;
            sum_l2 += w[i] * l * l;
            sum_xl += w[i] * l * x[i];
        }
        vf D = sum_w * sum_l2 - sum_l * sum_l;
        vi ok = D > 0.0f;
        if (!any(ok))
            continue;
        vf this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
        vf this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
        vi pos = this_min > 0.0f;
        this_min = sel(pos, (vf){0}, this_min);
        this_scale = sel(pos, sum_xl / sum_l2, this_scale);
        vf err = (vf){0};
        for (int i = 0; i < n; i++) {
            vf diff = this_scale * tof(Laux[i]) + this_min - x[i];
            err += w[i] * (mad ? absv(diff) : diff * diff);
        }
        vi better = ok & (err < best);
        for (int i = 0; i < n; i++)
            L[i] = seli(better, Laux[i], L[i]);
        best = sel(better, err, best);
        scale = sel(better, this_scale, scale);
        min = sel(better, this_min, min);
    }
    for (int i = 0; i < n; i++)
        L[i] = seli(flat, (vi){0}, L[i]);
    *scale_out = sel(flat, (vf){0}, scale);
    *neg_min = -sel(flat, min0, min);
}

/* symmetric_scale (ggml's make_qx_quants, rmse_type 1) in every lane; L[i]
 * gets l + nmax. As there, the codes and sums of one inverse scale: */
static vf symmetric_fit_v(int n, int nmax, const vf *restrict x, vf iscale, vi *restrict L, vf *restrict suml2)
{
    vf sumlx = (vf){0};
    *suml2 = (vf){0};
    for (int i = 0; i < n; i++) {
        vi l = clampv(nearest(iscale * x[i]), -nmax, nmax - 1);
        L[i] = l + nmax;
        vf w = x[i] * x[i], lf = tof(l);
        sumlx += w * x[i] * lf;
        *suml2 += w * lf * lf;
    }
    return sumlx;
}

static vf symmetric_scale_v(int n, int nmax, const vf *restrict x, vi *restrict L)
{
    vf amax, max = signed_max_v(n, x, &amax), suml2;
    const vi zero = amax < GG_Q_GROUP_EPS;
    vf sumlx = symmetric_fit_v(n, nmax, x, (float)-nmax / max, L, &suml2);
    vf scale = sel(suml2 != 0.0f, sumlx / suml2, (vf){0}), best = scale * sumlx;
    vi Laux[32];
    for (int is = -9; is <= 9; is++) {
        if (is == 0)
            continue;
        sumlx = symmetric_fit_v(n, nmax, x, -((float)nmax + 0.1f * (float)is) / max, Laux, &suml2);
        vi better = (suml2 > 0.0f) & (sumlx * sumlx > best * suml2);
        if (!any(better))
            continue;
        for (int i = 0; i < n; i++)
            L[i] = seli(better, Laux[i], L[i]);
        scale = sel(better, sumlx / suml2, scale);
        best = sel(better, scale * sumlx, best);
    }
    for (int i = 0; i < n; i++)
        L[i] = seli(zero, (vi){0}, L[i]);
    return sel(zero, (vf){0}, scale);
}

/* q3_scale (ggml's make_q3_quants with rmse) in every lane; L[i] gets
 * l + nmax. A lane whose round changed nothing would change nothing in the
 * next round either (its state is the same), so running on until no lane
 * changes is the scalar's early stop. */
static vf q3_scale_v(int n, int nmax, const vf *restrict x, vi *restrict L)
{
    vf amax, max = signed_max_v(n, x, &amax);
    const vi zero = amax < GG_Q_GROUP_EPS;
    const vf iscale = (float)-nmax / max;
    vf sumlx = (vf){0}, suml2 = (vf){0};
    for (int i = 0; i < n; i++) {
        L[i] = clampv(nearest(iscale * x[i]), -nmax, nmax - 1);
        vf w = x[i] * x[i], lf = tof(L[i]);
        sumlx += w * x[i] * lf;
        suml2 += w * lf * lf;
    }
    for (int round = 0; round < 5; round++) {
        vi changed = (vi){0};
        for (int i = 0; i < n; i++) {
            vf w = x[i] * x[i], lf = tof(L[i]);
            vf slx = sumlx - w * x[i] * lf;
            vi m = slx > 0.0f;
            vf sl2 = suml2 - w * lf * lf;
            vi l = clampv(nearest(x[i] * sl2 / slx), -nmax, nmax - 1);
            m &= l != L[i];
            vf nl = tof(l);
            slx += w * x[i] * nl;
            sl2 += w * nl * nl;
            m &= (sl2 > 0.0f) & (slx * slx * suml2 > sumlx * sumlx * sl2);
            L[i] = seli(m, l, L[i]);
            sumlx = sel(m, slx, sumlx);
            suml2 = sel(m, sl2, suml2);
            changed |= m;
        }
        if (!any(changed))
            break;
    }
    for (int i = 0; i < n; i++)
        L[i] = seli(zero, (vi){0}, L[i] + nmax);
    return sel(zero, (vf){0}, sel(suml2 > 0.0f, sumlx / suml2, (vf){0}));
}

/* The searches of LANES sub-blocks of n values laid end to end at x, into
 * sc[k], mn[k] and the n codes at L + n k for sub-block k. */
typedef void lanes_search(const float *restrict x, float *restrict sc, float *restrict mn, uint8_t *restrict L);

static void put_lanes(const vi *restrict L, int n, vf scale, vf neg_min, float *restrict sc, float *restrict mn,
                      uint8_t *restrict out)
{
    for (int k = 0; k < LANES; k++) {
        sc[k] = scale[k], mn[k] = neg_min[k];
        for (int i = 0; i < n; i++)
            out[n * k + i] = (uint8_t)L[i][k];
    }
}

/* Q4_K and Q5_K: sub-blocks of 32, weights rms + |x|. */
static void k4_lanes(const float *restrict x, int nmax, float rmin, int nstep, float *restrict sc,
                     float *restrict mn, uint8_t *restrict out)
{
    vf xt[32], w[32], sum_x2 = (vf){0}, scale, neg_min;
    vi L[32];
    transpose(x, 32, xt);
    for (int i = 0; i < 32; i++)
        sum_x2 += xt[i] * xt[i];
    vf av_x = sum_x2 / 32.0f;
    for (int k = 0; k < LANES; k++)
        av_x[k] = sqrtf(av_x[k]);
    for (int i = 0; i < 32; i++)
        w[i] = av_x + absv(xt[i]);
    scale_min_v(32, nmax, xt, w, L, &scale, &neg_min, rmin, 0.1f, nstep, 0);
    put_lanes(L, 32, scale, neg_min, sc, mn, out);
}

static void q4_k_lanes(const float *restrict x, float *restrict sc, float *restrict mn, uint8_t *restrict L)
{
    k4_lanes(x, 15, -1.0f, 20, sc, mn, L);
}

static void q5_k_lanes(const float *restrict x, float *restrict sc, float *restrict mn, uint8_t *restrict L)
{
    k4_lanes(x, 31, -0.5f, 15, sc, mn, L);
}

/* Q2_K: sub-blocks of 16, weights |x|, mad. */
static void q2_k_lanes(const float *restrict x, float *restrict sc, float *restrict mn, uint8_t *restrict out)
{
    vf xt[16], w[16], scale, neg_min;
    vi L[16];
    transpose(x, 16, xt);
    for (int i = 0; i < 16; i++)
        w[i] = absv(xt[i]);
    scale_min_v(16, 3, xt, w, L, &scale, &neg_min, -0.5f, 0.1f, 15, 1);
    put_lanes(L, 16, scale, neg_min, sc, mn, out);
}

static void q3_k_lanes(const float *restrict x, float *restrict sc, float *restrict mn, uint8_t *restrict out)
{
    vf xt[16];
    vi L[16];
    transpose(x, 16, xt);
    put_lanes(L, 16, q3_scale_v(16, 4, xt, L), (vf){0}, sc, mn, out);
}

static void q6_k_lanes(const float *restrict x, float *restrict sc, float *restrict mn, uint8_t *restrict out)
{
    vf xt[16];
    vi L[16];
    transpose(x, 16, xt);
    put_lanes(L, 16, symmetric_scale_v(16, 32, xt, L), (vf){0}, sc, mn, out);
}

/* nblocks super-blocks of sub-blocks of n: searched LANES sub-blocks at a
 * time over groups of whole super-blocks, each finished with its own
 * search; a last part that does not fill the lanes by the scalar kernel. */
static void run(const float *restrict x, uint8_t *restrict y, int64_t nblocks, int n, lanes_search *search,
                void (*finish)(const float *restrict, gg_kq_search *restrict, uint8_t *restrict), size_t bytes,
                gg_quantizer scalar)
{
    const int per = 256 / n, group = LANES > per ? LANES / per : 1; /* super-blocks a group */
    float sc[32], mn[32];
    uint8_t L[512];
    gg_kq_search s;
    int64_t i = 0;
    for (; i + group <= nblocks; i += group) {
        for (int k = 0; k < group * per; k += LANES)
            search(x + 256 * i + n * k, sc + k, mn + k, L + n * k);
        for (int h = 0; h < group; h++) {
            memcpy(s.scale, sc + per * h, sizeof *sc * (size_t)per);
            memcpy(s.min, mn + per * h, sizeof *mn * (size_t)per);
            memcpy(s.L, L + 256 * h, 256);
            finish(x + 256 * (i + h), &s, y + (size_t)(i + h) * bytes);
        }
    }
    lanes_done();
    if (i < nblocks)
        scalar(x + 256 * i, y + (size_t)i * bytes, nblocks - i);
}

#define K_QUANTIZER(name, n)                                                                              \
    static void name##_v(const float *restrict x, uint8_t *restrict y, int64_t nblocks)                   \
    {                                                                                                     \
        run(x, y, nblocks, n, name##_lanes, gg_kq_finish_##name, sizeof(blk_##name), gg_quantize_##name); \
    }
K_QUANTIZER(q2_k, 16)
K_QUANTIZER(q3_k, 16)
K_QUANTIZER(q4_k, 32)
K_QUANTIZER(q5_k, 32)
K_QUANTIZER(q6_k, 16)
#endif

GV_QUANTIZERS(kquants) = {
#if GV_BUILT
    {GG_T_Q2_K, q2_k_v}, {GG_T_Q3_K, q3_k_v}, {GG_T_Q4_K, q4_k_v}, {GG_T_Q5_K, q5_k_v}, {GG_T_Q6_K, q6_k_v},
#endif
    {0},
};
