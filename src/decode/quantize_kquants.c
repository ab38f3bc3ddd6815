/* quantize_kquants.c - float32 to the K-quant super-blocks (Q2_K .. Q6_K),
 * as ggml's quantize_row_q*_K_ref.
 *
 * A super-block of 256 values is cut into sub-blocks of 16 or 32. Each
 * sub-block gets the scale (and, for Q2_K, Q4_K and Q5_K, the offset) that
 * a small search finds best for it; then the sub-block scales are themselves
 * quantized to 4, 6 or 8 bits against one float16 super-scale d (and dmin),
 * and every value is coded again against the scale it will be decoded with.
 *
 * Bit for bit means step for step: every product and sum below is the
 * float one ggml evaluates, in its order (w * x * l is (w * x) * l), and
 * its comparisons in its sense, because a search that prefers one scale by
 * the last bit picks other codes. */
#include <math.h>

#include "blocks.h"
#include "quantize_kernels.h"

/* Symmetric codes l in -nmax..nmax-1 for x, weighted by x^2, the scale
 * found by trying 19 slightly different inverse scales around -nmax / max
 * and keeping the one whose least-squares fit is best (ggml's
 * make_qx_quants with rmse_type 1, no importance). L gets l + nmax. The
 * codes of one inverse scale into L, their x^2-weighted sums sum(w x l)
 * (returned) and sum(w l^2): */
static float symmetric_fit(int n, int nmax, const float *restrict x, float iscale, int8_t *restrict L,
                           float *restrict suml2)
{
    float sumlx = 0.0f;
    *suml2 = 0.0f;
    for (int i = 0; i < n; i++) {
        int l = gg_q_clamp(gg_q_nearest(iscale * x[i]), -nmax, nmax - 1);
        L[i] = (int8_t)(l + nmax);
        float w = x[i] * x[i];
        sumlx += w * x[i] * (float)l;
        *suml2 += w * (float)l * (float)l;
    }
    return sumlx;
}

static float symmetric_scale(int n, int nmax, const float *restrict x, int8_t *restrict L)
{
    float amax, max = gg_q_signed_max(x, n, &amax), suml2;
    if (amax < GG_Q_GROUP_EPS) {
        memset(L, 0, (size_t)n);
        return 0.0f;
    }
    float sumlx = symmetric_fit(n, nmax, x, (float)-nmax / max, L, &suml2);
    float scale = suml2 != 0.0f ? sumlx / suml2 : 0.0f, best = scale * sumlx;
    int8_t Laux[32];
    for (int is = -9; is <= 9; is++) {
        if (is == 0)
            continue;
        sumlx = symmetric_fit(n, nmax, x, -((float)nmax + 0.1f * (float)is) / max, Laux, &suml2);
        if (suml2 > 0.0f && sumlx * sumlx > best * suml2) {
            memcpy(L, Laux, (size_t)n);
            scale = sumlx / suml2;
            best = scale * sumlx;
        }
    }
    return scale;
}

/* Q3_K's sub-block search (ggml's make_q3_quants with rmse): codes
 * -nmax..nmax-1 from -nmax / max, then up to 5 rounds that move one code
 * at a time wherever the weighted (x^2) least-squares fit improves. L gets
 * l + nmax. */
static float q3_scale(int n, int nmax, const float *restrict x, int8_t *restrict L)
{
    float amax, max = gg_q_signed_max(x, n, &amax);
    if (amax < GG_Q_GROUP_EPS) {
        memset(L, 0, (size_t)n);
        return 0.0f;
    }
    const float iscale = (float)-nmax / max;
    float sumlx = 0.0f, suml2 = 0.0f;
    for (int i = 0; i < n; i++) {
        int l = gg_q_clamp(gg_q_nearest(iscale * x[i]), -nmax, nmax - 1);
        L[i] = (int8_t)l;
        float w = x[i] * x[i];
        sumlx += w * x[i] * (float)l;
        suml2 += w * (float)l * (float)l;
    }
    for (int round = 0; round < 5; round++) {
        int changed = 0;
        for (int i = 0; i < n; i++) {
            float w = x[i] * x[i];
            float slx = sumlx - w * x[i] * (float)L[i];
            if (!(slx > 0.0f))
                continue;
            float sl2 = suml2 - w * (float)L[i] * (float)L[i];
            int l = gg_q_clamp(gg_q_nearest(x[i] * sl2 / slx), -nmax, nmax - 1);
            if (l == L[i])
                continue;
            slx += w * x[i] * (float)l;
            sl2 += w * (float)l * (float)l;
            if (sl2 > 0.0f && slx * slx * suml2 > sumlx * sumlx * sl2)
                L[i] = (int8_t)l, sumlx = slx, suml2 = sl2, changed++;
        }
        if (!changed)
            break;
    }
    for (int i = 0; i < n; i++)
        L[i] = (int8_t)(L[i] + nmax);
    return suml2 > 0.0f ? sumlx / suml2 : 0.0f;
}

/* Codes 0..nmax with a scale and an offset (ggml's make_qkx2_quants): the
 * range from min(x, 0) to max(x) first, then nstep + 1 other inverse
 * scales, each with its weighted least-squares scale and offset, the one
 * of least weighted error (|error| with mad, else error^2) kept. Returns
 * the scale; *neg_min gets -offset (>= 0). */
static float scale_min(int n, int nmax, const float *restrict x, const float *restrict w, uint8_t *restrict L,
                       float *restrict neg_min, float rmin,
                       float rdelta, int nstep, int mad)
{
    uint8_t Laux[32];
    float min = x[0], max = x[0], sum_w = w[0], sum_x = sum_w * x[0];
    for (int i = 1; i < n; i++) {
        if (x[i] < min)
            min = x[i];
        if (x[i] > max)
            max = x[i];
        sum_w += w[i];
        sum_x += w[i] * x[i];
    }
    if (min > 0.0f)
        min = 0.0f;
    if (max == min) {
        memset(L, 0, (size_t)n);
        *neg_min = -min;
        return 0.0f;
    }
    float iscale = (float)nmax / (max - min), scale = 1.0f / iscale, best = 0.0f;
    for (int i = 0; i < n; i++) {
        L[i] = (uint8_t)gg_q_clamp(gg_q_nearest(iscale * (x[i] - min)), 0, nmax);
        float diff = scale * (float)L[i] + min - x[i];
        best += w[i] * (mad ? fabsf(diff) : diff * diff);
    }
    for (int is = 0; is <= nstep; is++) {
        iscale = (rmin + rdelta * (float)is + (float)nmax) / (max - min);
        float sum_l = 0.0f, sum_l2 = 0.0f, sum_xl = 0.0f;
        for (int i = 0; i < n; i++) {
            int l = gg_q_clamp(gg_q_nearest(iscale * (x[i] - min)), 0, nmax);
            Laux[i] = (uint8_t)l;
            sum_l += w[i] * (float)l;
            sum_l2 += w[i] * (float)l * (float)l;
            sum_xl += w[i] * (float)l * x[i];
        }
        float D = sum_w * sum_l2 - sum_l * sum_l;
        if (!(D > 0.0f))
            continue;
        float this_scale = (sum_w * sum_xl - sum_x * sum_l) / D;
        float this_min = (sum_l2 * sum_x - sum_l * sum_xl) / D;
        if (this_min > 0.0f)
            this_min = 0.0f, this_scale = sum_xl / sum_l2;
        float err = 0.0f;
        for (int i = 0; i < n; i++) {
            float diff = this_scale * (float)Laux[i] + this_min - x[i];
            err += w[i] * (mad ? fabsf(diff) : diff * diff);
        }
        if (err < best) {
            memcpy(L, Laux, (size_t)n);
            best = err, scale = this_scale, min = this_min;
        }
    }
    *neg_min = -min;
    return scale;
}

/* The 2-bit codes of 256 values, four to a byte: byte l of each 32-byte
 * half holds values l, l+32, l+64, l+96 of its 128 (bits 0-1, 2-3, 4-5, 6-7). */
static void pack_2bit(const uint8_t *restrict L, uint8_t *restrict qs)
{
    for (int h = 0; h < 2; h++, L += 128, qs += 32)
        for (int l = 0; l < 32; l++)
            qs[l] = (uint8_t)(L[l] | L[l + 32] << 2 | L[l + 64] << 4 | L[l + 96] << 6);
}

/* Q2_K, 256 values in 84 bytes, 16 sub-blocks of 16:
 *
 *     byte 0               16                  80      82       84
 *          | scales[16]: lo nibble scale, hi min | qs[64] 2-bit | d f16 | dmin f16 |
 *
 * value = d * scale * q - dmin * min, q 0..3; sub-block scales and mins
 * by the |x|-weighted search (mad), then 4 bits each of the largest. */
void gg_kq_search_q2_k(const float *restrict x, gg_kq_search *restrict s)
{
    float w[16];
    for (int j = 0; j < 16; j++) {
        for (int l = 0; l < 16; l++)
            w[l] = fabsf(x[16 * j + l]);
        s->scale[j] = scale_min(16, 3, x + 16 * j, w, s->L + 16 * j, &s->min[j], -0.5f, 0.1f, 15, 1);
    }
}

void gg_kq_finish_q2_k(const float *restrict x, gg_kq_search *restrict s, uint8_t *restrict y)
{
    blk_q2_k *b = (blk_q2_k *)(void *)y;
    const float *scales = s->scale, *mins = s->min;
    uint8_t *L = s->L;
    float max_scale = 0.0f, max_min = 0.0f;
    for (int j = 0; j < 16; j++) {
        if (scales[j] > max_scale)
            max_scale = scales[j];
        if (mins[j] > max_min)
            max_min = mins[j];
    }
    memset(b->scales, 0, sizeof b->scales);
    float d = 0.0f, dmin = 0.0f;
    if (max_scale > 0.0f) {
        const float iscale = 15.0f / max_scale;
        for (int j = 0; j < 16; j++)
            b->scales[j] = (uint8_t)gg_q_nearest(iscale * scales[j]);
        d = max_scale / 15.0f;
    }
    if (max_min > 0.0f) {
        const float iscale = 15.0f / max_min;
        for (int j = 0; j < 16; j++)
            b->scales[j] = (uint8_t)(b->scales[j] | (uint32_t)gg_q_nearest(iscale * mins[j]) << 4);
        dmin = max_min / 15.0f;
    }
    d = gg_q_put_f16(b->d, d);
    dmin = gg_q_put_f16(b->dmin, dmin);
    for (int j = 0; j < 16; j++) {
        const float dl = d * (float)(b->scales[j] & 15);
        if (dl == 0.0f)
            continue;
        const float ml = dmin * (float)(b->scales[j] >> 4);
        for (int l = 0; l < 16; l++)
            L[16 * j + l] = (uint8_t)gg_q_clamp(gg_q_nearest((x[16 * j + l] + ml) / dl), 0, 3);
    }
    pack_2bit(L, b->qs);
}

/* Q3_K, 256 values in 110 bytes, 16 sub-blocks of 16:
 *
 *     byte 0                 32                96                 108      110
 *          | hmask[32]: bit 2 | qs[64]: bits 0-1 | scales: 16 x 6 bits | d f16 |
 *
 * value = d * (scale - 32) * (q - 4), q 0..7: bit 2 of value j is bit j/32
 * of hmask[j % 32]; scale j's low nibble is in byte j % 8 (hi nibble for
 * j >= 8), its top 2 bits at bit 2(j/4) of byte 8 + j % 4. */
void gg_kq_search_q3_k(const float *restrict x, gg_kq_search *restrict s)
{
    for (int j = 0; j < 16; j++)
        s->scale[j] = q3_scale(16, 4, x + 16 * j, (int8_t *)s->L + 16 * j);
}

void gg_kq_finish_q3_k(const float *restrict x, gg_kq_search *restrict s, uint8_t *restrict y)
{
    blk_q3_k *b = (blk_q3_k *)(void *)y;
    const float *scales = s->scale;
    uint8_t *L = s->L; /* (0..7) */
    float amax, max_scale = gg_q_signed_max(scales, 16, &amax);
    uint8_t *sc = b->scales;
    memset(sc, 0, 12);
    float d = 0.0f;
    if (max_scale != 0.0f) {
        const float iscale = -32.0f / max_scale;
        for (int j = 0; j < 16; j++) {
            int8_t l = (int8_t)gg_q_nearest(iscale * scales[j]);
            l = (int8_t)(gg_q_clamp(l, -32, 31) + 32);
            sc[j % 8] |= (uint8_t)((l & 15) << (j < 8 ? 0 : 4));
            sc[8 + j % 4] |= (uint8_t)((l >> 4) << 2 * (j / 4));
        }
        d = 1.0f / iscale;
    }
    d = gg_q_put_f16(b->d, d);
    for (int j = 0; j < 16; j++) {
        int sj = (sc[j % 8] >> (j < 8 ? 0 : 4) & 15) | (sc[8 + j % 4] >> 2 * (j / 4) & 3) << 4;
        const float dl = d * (float)(int8_t)(sj - 32);
        if (dl == 0.0f)
            continue;
        for (int l = 0; l < 16; l++)
            L[16 * j + l] = (uint8_t)(gg_q_clamp(gg_q_nearest(x[16 * j + l] / dl), -4, 3) + 4);
    }
    memset(b->hmask, 0, sizeof b->hmask);
    for (int j = 0; j < 256; j++)
        if (L[j] > 3) {
            b->hmask[j % 32] |= (uint8_t)(1 << j / 32);
            L[j] = (uint8_t)(L[j] - 4);
        }
    pack_2bit(L, b->qs);
}

/* Q4_K's and Q5_K's 8 six-bit scales and mins in 12 bytes: bytes 0-3 hold
 * scales 0-3, bytes 4-7 mins 0-3 (their top 2 bits: scale/min 4-7's high
 * bits), bytes 8-11 scale 4-7 (lo nibble) and min 4-7 (hi nibble). */
static void pack_k4_scales(uint8_t *sc, const uint8_t *ls, const uint8_t *lm)
{
    for (int j = 0; j < 4; j++)
        sc[j] = ls[j], sc[j + 4] = lm[j];
    for (int j = 4; j < 8; j++) {
        sc[j + 4] = (uint8_t)((ls[j] & 15) | (lm[j] & 15) << 4);
        sc[j - 4] |= (uint8_t)((ls[j] >> 4) << 6);
        sc[j] |= (uint8_t)((lm[j] >> 4) << 6);
    }
}

static void unpack_k4_scale(const uint8_t *sc, int j, uint8_t *s, uint8_t *m)
{
    if (j < 4) {
        *s = sc[j] & 63, *m = sc[j + 4] & 63;
    } else {
        *s = (uint8_t)((sc[j + 4] & 15) | (sc[j - 4] >> 6) << 4);
        *m = (uint8_t)((sc[j + 4] >> 4) | (sc[j] >> 6) << 4);
    }
}

/* Q4_K's and Q5_K's search: 8 sub-blocks of 32, weights rms + |x|. */
static void k4_search(const float *restrict x, int nmax, float rmin, int nstep, gg_kq_search *restrict s)
{
    float w[32];
    for (int j = 0; j < 8; j++) {
        const float *xs = x + 32 * j;
        float sum_x2 = 0.0f;
        for (int l = 0; l < 32; l++)
            sum_x2 += xs[l] * xs[l];
        const float av_x = sqrtf(sum_x2 / 32);
        for (int l = 0; l < 32; l++)
            w[l] = av_x + fabsf(xs[l]);
        s->scale[j] = scale_min(32, nmax, xs, w, s->L + 32 * j, &s->min[j], rmin, 0.1f, nstep, 0);
    }
}

void gg_kq_search_q4_k(const float *restrict x, gg_kq_search *restrict s) { k4_search(x, 15, -1.0f, 20, s); }
void gg_kq_search_q5_k(const float *restrict x, gg_kq_search *restrict s) { k4_search(x, 31, -0.5f, 15, s); }

/* Then, alike: the scales and mins to 6 bits of d and dmin, and the codes
 * 0..nmax again against them, into s->L. */
static void k4_finish(const float *restrict x, int nmax, gg_kq_search *restrict s, uint8_t *restrict dm,
                      uint8_t *restrict scales)
{
    const float *sc = s->scale, *mins = s->min;
    uint8_t *L = s->L;
    float max_scale = 0.0f, max_min = 0.0f;
    for (int j = 0; j < 8; j++) {
        if (sc[j] > max_scale)
            max_scale = sc[j];
        if (mins[j] > max_min)
            max_min = mins[j];
    }
    const float inv_scale = max_scale > 0.0f ? 63.0f / max_scale : 0.0f;
    const float inv_min = max_min > 0.0f ? 63.0f / max_min : 0.0f;
    uint8_t ls[8], lm[8];
    for (int j = 0; j < 8; j++) {
        ls[j] = (uint8_t)gg_q_nearest(inv_scale * sc[j]);
        lm[j] = (uint8_t)gg_q_nearest(inv_min * mins[j]);
        ls[j] = ls[j] < 63 ? ls[j] : 63;
        lm[j] = lm[j] < 63 ? lm[j] : 63;
    }
    pack_k4_scales(scales, ls, lm);
    const float d = gg_q_put_f16(dm, max_scale / 63.0f);
    const float dmin = gg_q_put_f16(dm + 2, max_min / 63.0f);
    for (int j = 0; j < 8; j++) {
        uint8_t sj, m;
        unpack_k4_scale(scales, j, &sj, &m);
        const float dl = d * (float)sj;
        if (dl == 0.0f)
            continue;
        const float ml = dmin * (float)m;
        for (int l = 0; l < 32; l++)
            L[32 * j + l] = (uint8_t)gg_q_clamp(gg_q_nearest((x[32 * j + l] + ml) / dl), 0, nmax);
    }
}

/* Q4_K, 256 values in 144 bytes, 8 sub-blocks of 32:
 *
 *     byte 0      2         4              16                      144
 *          | d f16 | dmin f16 | scales[12] | qs[128]: 4-bit |
 *
 * value = d * scale * q - dmin * min, q 0..15; qs byte l of each 32-byte
 * quarter holds value l (lo nibble) and l + 32 (hi) of its 64. */
void gg_kq_finish_q4_k(const float *restrict x, gg_kq_search *restrict s, uint8_t *restrict y)
{
    blk_q4_k *b = (blk_q4_k *)(void *)y;
    const uint8_t *L = s->L;
    _Static_assert(offsetof(blk_q4_k, dmin) == 2, "d and dmin together");
    k4_finish(x, 15, s, b->d, b->scales);
    for (int q = 0; q < 4; q++)
        for (int l = 0; l < 32; l++)
            b->qs[32 * q + l] = (uint8_t)(L[64 * q + l] | L[64 * q + l + 32] << 4);
}

/* Q5_K, 256 values in 176 bytes, 8 sub-blocks of 32:
 *
 *     byte 0      2         4              16            48              176
 *          | d f16 | dmin f16 | scales[12] | qh[32]: bit 4 | qs[128]: bits 0-3 |
 *
 * As Q4_K with q 0..31: bit 4 of value 64q + l is bit 2q of qh[l], of
 * value 64q + 32 + l bit 2q + 1. */
void gg_kq_finish_q5_k(const float *restrict x, gg_kq_search *restrict s, uint8_t *restrict y)
{
    blk_q5_k *b = (blk_q5_k *)(void *)y;
    const uint8_t *L = s->L;
    _Static_assert(offsetof(blk_q5_k, dmin) == 2, "d and dmin together");
    k4_finish(x, 31, s, b->d, b->scales);
    memset(b->qh, 0, sizeof b->qh);
    for (int q = 0; q < 4; q++)
        for (int l = 0; l < 32; l++) {
            const uint8_t lo = L[64 * q + l], hi = L[64 * q + l + 32];
            b->qh[l] |= (uint8_t)((lo >> 4) << 2 * q | (hi >> 4) << (2 * q + 1));
            b->qs[32 * q + l] = (uint8_t)((lo & 15) | (hi & 15) << 4);
        }
}

/* Q6_K, 256 values in 210 bytes, 16 sub-blocks of 16:
 *
 *     byte 0                  128              192                 208     210
 *          | ql[128]: bits 0-3 | qh[64]: bits 4-5 | scales[16] int8 | d f16 |
 *
 * value = d * scale * (q - 32), q 0..63. In each half (128 values, 64 ql
 * bytes, 32 qh bytes), value l + 32k (l < 32, k < 4) has its low nibble in
 * ql[l + 32(k & 1)] (hi nibble for k >= 2) and its top bits at bit 2k of
 * qh[l]. */
void gg_kq_search_q6_k(const float *restrict x, gg_kq_search *restrict s)
{
    for (int j = 0; j < 16; j++)
        s->scale[j] = symmetric_scale(16, 32, x + 16 * j, (int8_t *)s->L + 16 * j);
}

void gg_kq_finish_q6_k(const float *restrict x, gg_kq_search *restrict s, uint8_t *restrict y)
{
    blk_q6_k *b = (blk_q6_k *)(void *)y;
    const float *scales = s->scale;
    uint8_t *L = s->L; /* (0..63) */
    float amax, max_scale = gg_q_signed_max(scales, 16, &amax);
    if (amax < GG_Q_GROUP_EPS) {
        memset(b, 0, sizeof *b);
        return;
    }
    const float iscale = -128.0f / max_scale;
    const float d = gg_q_put_f16(b->d, 1.0f / iscale);
    for (int j = 0; j < 16; j++) {
        int l = gg_q_nearest(iscale * scales[j]);
        b->scales[j] = (uint8_t)(l < 127 ? l : 127);
    }
    for (int j = 0; j < 16; j++) {
        const float dl = d * (float)(int8_t)b->scales[j];
        if (dl == 0.0f)
            continue;
        for (int l = 0; l < 16; l++)
            L[16 * j + l] = (uint8_t)(gg_q_clamp(gg_q_nearest(x[16 * j + l] / dl), -32, 31) + 32);
    }
    for (int h = 0; h < 2; h++) {
        const uint8_t *Lh = L + 128 * h;
        uint8_t *ql = b->ql + 64 * h, *qh = b->qh + 32 * h;
        for (int l = 0; l < 32; l++) {
            ql[l] = (uint8_t)((Lh[l] & 15) | (Lh[l + 64] & 15) << 4);
            ql[l + 32] = (uint8_t)((Lh[l + 32] & 15) | (Lh[l + 96] & 15) << 4);
            qh[l] = (uint8_t)(Lh[l] >> 4 | (Lh[l + 32] >> 4) << 2 | (Lh[l + 64] >> 4) << 4 | (Lh[l + 96] >> 4) << 6);
        }
    }
}

/* Each type: search, then finish, one super-block at a time. */
#define K_QUANTIZER(name)                                                                  \
    void gg_quantize_##name(const float *restrict x, uint8_t *restrict y, int64_t nblocks) \
    {                                                                                      \
        gg_kq_search s;                                                                    \
        for (int64_t i = 0; i < nblocks; i++, x += 256) {                                  \
            gg_kq_search_##name(x, &s);                                                    \
            gg_kq_finish_##name(x, &s, y + (size_t)i * sizeof(blk_##name));                \
        }                                                                                  \
    }
K_QUANTIZER(q2_k)
K_QUANTIZER(q3_k)
K_QUANTIZER(q4_k)
K_QUANTIZER(q5_k)
K_QUANTIZER(q6_k)
