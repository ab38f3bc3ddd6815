/* quantize_iquants.c - float32 to the non-linear types IQ4_NL and IQ4_XS,
 * as ggml_quantize_chunk makes them without an importance matrix
 * (quantize_iq4_nl / quantize_iq4_xs, both over quantize_row_iq4_nl_impl
 * with 7 tries each side; note that ggml's quantize_row_iq4_nl_ref tries
 * none, and is not what llama-quantize runs).
 *
 * The codes index 16 fixed levels (kvalues_iq4nl, -127 .. 113); a block of
 * 32 gets the scale whose x^2-weighted least-squares fit is best among 15
 * tried around max / -127. */
#include <float.h>
#include <math.h>
#include <pthread.h>

#include "blocks.h"
#include "quantize_kernels.h"
#include "tables.h"

#define NTRY 7

/* The level of the 16 nearest to x (ggml's best_index_int8: the lower one
 * on a tie; a NaN goes to the top). */
static int nearest_level(const int8_t *restrict v, float x)
{
    if (x <= v[0])
        return 0;
    if (x >= v[15])
        return 15;
    int lo = 0, hi = 15;
    while (hi - lo > 1) {
        int mid = (lo + hi) / 2;
        if (x < v[mid])
            hi = mid;
        else
            lo = mid;
    }
    return x - v[hi - 1] < v[hi] - x ? hi - 1 : hi;
}

/* The x^2 weighted fit of the levels q that x * id picks in a block of 32:
 * sum(w q x) (returned) and sum(w q^2). */
static float iq4_fit(const float *restrict x, float id, float *restrict sumq2)
{
    const int8_t *v = gg_kvalues_iq4nl;
    float sumqx = 0.0f, sq2 = 0.0f;
    for (int j = 0; j < 32; j++) {
        float q = (float)v[nearest_level(v, id * x[j])], w = x[j] * x[j];
        sumqx += w * q * x[j];
        sq2 += w * q * q;
    }
    *sumq2 = sq2;
    return sumqx;
}

/* The best scale of one block of 32 (0 for a block of zeros): the fit
 * for id = -127 / max and (t - 127) / max, t = -7..7, the one that fits
 * best kept. */
float gg_iq4_block_scale(const float *restrict x)
{
    const int8_t *v = gg_kvalues_iq4nl;
    float amax, max = gg_q_signed_max(x, 32, &amax);
    if (amax < GG_Q_GROUP_EPS)
        return 0.0f;
    float sumq2, sumqx = iq4_fit(x, 1.0f / (-max / (float)v[0]), &sumq2);
    float d = sumq2 > 0.0f ? sumqx / sumq2 : 0.0f, best = d * sumqx;
    for (int t = -NTRY; t <= NTRY; t++) {
        sumqx = iq4_fit(x, (float)(t + v[0]) / max, &sumq2);
        if (sumq2 > 0.0f && sumqx * sumqx > best * sumq2)
            d = sumqx / sumq2, best = d * sumqx;
    }
    return d;
}

/* 32 codes, two to a byte: byte j holds value j (lo nibble) and j + 16. */
void gg_iq4_codes(const float *restrict x, float id, uint8_t *restrict qs)
{
    for (int j = 0; j < 16; j++)
        qs[j] = (uint8_t)(nearest_level(gg_kvalues_iq4nl, id * x[j]) |
                          nearest_level(gg_kvalues_iq4nl, id * x[j + 16]) << 4);
}

/* IQ4_NL, 32 values in 18 bytes:
 *
 *     byte 0      2                                   18
 *          | d f16 | qs[16]: lo nibble = q[j], hi = q[j+16] |
 *
 * value = d * kvalues_iq4nl[q]; the codes are picked with the unrounded d. */
void gg_quantize_iq4_nl(const float *restrict x, uint8_t *restrict y, int64_t nblocks)
{
    for (int64_t i = 0; i < nblocks; i++, x += 32) {
        blk_iq4_nl *b = (blk_iq4_nl *)(void *)(y + i * sizeof(blk_iq4_nl));
        const float d = gg_iq4_block_scale(x);
        gg_q_put_f16(b->d, d);
        gg_iq4_codes(x, d != 0.0f ? 1.0f / d : 0.0f, b->qs);
    }
}

/* IQ4_XS, 256 values in 136 bytes, 8 blocks of 32:
 *
 *     byte 0      2            4                8                        136
 *          | d f16 | scales_h u16 | scales_l[4] | qs[128]: 16 bytes a block (as IQ4_NL) |
 *
 * value = d * (s - 32) * kvalues_iq4nl[q]; block b's 6-bit s has its low
 * nibble in scales_l[b/2] (hi nibble for odd b), its top 2 bits at bit 2b
 * of scales_h. d = -(scale of largest |scale|) / 32; as in ggml the codes
 * are picked against d * (s - 32) with d before its float16 rounding.
 * First the 8 blocks' scales into d and the sub-scales, idl[k] the inverse
 * scale block k's codes are picked with: */
void gg_iq4_xs_scales(const float *restrict scales, uint8_t *restrict y, float *restrict idl)
{
    blk_iq4_xs *b = (blk_iq4_xs *)(void *)y;
    float amax, max_scale = gg_q_signed_max(scales, 8, &amax);
    const float d = -max_scale / 32;
    gg_q_put_f16(b->d, d);
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    uint16_t sh = 0;
    memset(b->scales_l, 0, sizeof b->scales_l);
    for (int k = 0; k < 8; k++) {
        int l = gg_q_nearest(id * scales[k]);
        l = gg_q_clamp(l, -32, 31);
        const float dl = d * (float)l;
        idl[k] = dl != 0.0f ? 1.0f / dl : 0.0f;
        l += 32;
        b->scales_l[k / 2] |= (uint8_t)((l & 15) << 4 * (k % 2));
        sh |= (uint16_t)((l >> 4) << 2 * k);
    }
    b->scales_h[0] = (uint8_t)sh;
    b->scales_h[1] = (uint8_t)(sh >> 8);
}

void gg_quantize_iq4_xs(const float *restrict x, uint8_t *restrict y, int64_t nblocks)
{
    for (int64_t i = 0; i < nblocks; i++, x += 256) {
        blk_iq4_xs *b = (blk_iq4_xs *)(void *)(y + i * sizeof(blk_iq4_xs));
        float scales[8], idl[8];
        for (int k = 0; k < 8; k++)
            scales[k] = gg_iq4_block_scale(x + 32 * k);
        gg_iq4_xs_scales(scales, (uint8_t *)b, idl);
        for (int k = 0; k < 8; k++)
            gg_iq4_codes(x + 32 * k, idl[k], b->qs + 16 * k);
    }
}

/* ---- IQ3_S ---- */

/* IQ3_S codes 4 values at a time as one of 512 points of a grid
 * (gg_iq3s_grid: 4 bytes 2l + 1, l 0..7, so a 12-bit index
 * l0 | l1 << 3 | l2 << 6 | l3 << 9 names any point of the 8^4 cube). For
 * the cube's points that are not on the grid, the search looks among their
 * neighbours on it: those at the three smallest distances, nearest first
 * (equal distances in grid order), as ggml's iq3xs_init_impl(512) lists
 * them. */
enum { CUBE = 4096, GRID = 512, NEAR_LEVELS = 3, NEIGHBOURS_CAP = 1 << 15 }; /* (28317 are used) */

static struct {
    int32_t on_grid[CUBE]; /* grid index, or -1 - (start of its list in near[]) */
    uint16_t near[NEIGHBOURS_CAP]; /* per off-grid point: n, then n grid indices */
    float q[4][NEIGHBOURS_CAP]; /* value k of the point near[j], at [k][j] */
    int ok;
} iq3s;

static int cube_index(uint32_t g)
{
    int u = 0;
    for (int k = 0; k < 4; k++)
        u |= ((int)(g >> 8 * k & 0xff) - 1) / 2 << 3 * k;
    return u;
}

static void iq3s_init(void)
{
    for (int u = 0; u < CUBE; u++)
        iq3s.on_grid[u] = -1;
    for (int i = 0; i < GRID; i++)
        iq3s.on_grid[cube_index(gg_iq3s_grid[i])] = i;
    size_t at = 0;
    for (int u = 0; u < CUBE; u++) {
        if (iq3s.on_grid[u] >= 0)
            continue;
        int d2[GRID], level[NEAR_LEVELS];
        for (int j = 0; j < GRID; j++) {
            d2[j] = 0;
            for (int k = 0; k < 4; k++) {
                int diff = (int)(gg_iq3s_grid[j] >> 8 * k & 0xff) - (2 * (u >> 3 * k & 7) + 1);
                d2[j] += diff * diff;
            }
        }
        /* the three smallest distinct distances, then the points at each */
        for (int l = 0; l < NEAR_LEVELS; l++) {
            level[l] = INT32_MAX;
            for (int j = 0; j < GRID; j++)
                if (d2[j] < level[l] && (l == 0 || d2[j] > level[l - 1]))
                    level[l] = d2[j];
        }
        if (at + 1 + GRID > NEIGHBOURS_CAP)
            return; /* (cannot happen with this grid: iq3s.ok stays 0) */
        iq3s.on_grid[u] = -1 - (int32_t)at;
        size_t n = at++;
        for (int l = 0; l < NEAR_LEVELS && level[l] != INT32_MAX; l++)
            for (int j = 0; j < GRID; j++)
                if (d2[j] == level[l]) {
                    for (int k = 0; k < 4; k++)
                        iq3s.q[k][at] = (float)(int8_t)(gg_iq3s_grid[j] >> 8 * k);
                    iq3s.near[at++] = (uint16_t)j;
                }
        iq3s.near[n] = (uint16_t)(at - n - 1);
    }
    iq3s.ok = 1;
}

/* The neighbour of off-grid point u whose values, times scale, are nearest
 * xv (4 |x|) weighted by w (ggml's iq3_find_best_neighbour: the first of
 * equals). L gets its l (0..7). ggml aborts when no distance is below
 * FLT_MAX (NaN or overflowing values); we take the first neighbour. The
 * distances are summed in ggml's order for each neighbour, but for all the
 * neighbours at once (their values laid out by coordinate, the loop over
 * neighbours innermost), which the compiler vectorizes. */
static int iq3s_best_neighbour(int u, const float *restrict xv, const float *restrict w, float scale,
                               int8_t *restrict L)
{
    const int at = -iq3s.on_grid[u] - 1, n = iq3s.near[at];
    const uint16_t *near = iq3s.near + at + 1;
    float d2[GRID];
    for (int j = 0; j < n; j++)
        d2[j] = 0.0f;
    for (int k = 0; k < 4; k++) {
        const float *q = iq3s.q[k] + at + 1;
        for (int j = 0; j < n; j++) {
            float diff = scale * q[j] - xv[k];
            d2[j] += w[k] * diff * diff;
        }
    }
    float best = FLT_MAX;
    int index = near[0];
    for (int j = 0; j < n; j++)
        if (d2[j] < best)
            best = d2[j], index = near[j];
    for (int k = 0; k < 4; k++)
        L[k] = (int8_t)(((int)(gg_iq3s_grid[index] >> 8 * k & 0xff) - 1) / 2);
    return index;
}

/* The l (0..7) of 4 values |x| * id, moved to the grid's nearest neighbour
 * (for scale) when off it. Returns whether they were on it. */
static int iq3s_point(const float *restrict xv, const float *restrict w, float id, float scale, int8_t *restrict L)
{
    int u = 0;
    for (int k = 0; k < 4; k++) {
        int l = gg_q_nearest(0.5f * (id * xv[k] - 1.0f));
        L[k] = (int8_t)gg_q_clamp(l, 0, 7);
        u |= L[k] << 3 * k;
    }
    if (iq3s.on_grid[u] >= 0)
        return 1;
    iq3s_best_neighbour(u, xv, w, scale, L);
    return 0;
}

/* The x^2 weighted least-squares scale of the levels 2l + 1 for xv, into
 * *sumqx and *sumq2. */
static void iq3s_fit(const float *restrict xv, const float *restrict w, const int8_t *restrict L,
                     float *restrict sumqx, float *restrict sumq2)
{
    *sumqx = *sumq2 = 0.0f;
    for (int i = 0; i < 32; i++) {
        float q = (float)(2 * L[i] + 1);
        *sumqx += w[i] * xv[i] * q;
        *sumq2 += w[i] * q * q;
    }
}

/* One sub-block of 32: its signs (bit i of signs[k] for value 8k + i not
 * >= 0), its grid levels L (0..7) and its scale (>= 0, or NaN). Returns 0
 * for a sub-block whose largest |x| is 0, which ggml skips. The scale is
 * the best of 19 tried around max / 15 (each point off the grid moved to
 * its best neighbour), then, if some point of the kept codes was off the
 * grid, fitted again to the codes of 1 / that scale. */
static int iq3s_sub_block(const float *restrict x, uint8_t *restrict signs, int8_t *restrict L,
                          float *restrict out_scale)
{
    float w[32], wroot[32], xv[32];
    int8_t Laux[32];
    for (int i = 0; i < 32; i++)
        w[i] = x[i] * x[i], wroot[i] = sqrtf(w[i]);
    for (int k = 0; k < 4; k++) {
        signs[k] = 0;
        for (int i = 0; i < 8; i++) {
            const int neg = !(x[8 * k + i] >= 0.0f);
            xv[8 * k + i] = neg ? -x[8 * k + i] : x[8 * k + i];
            signs[k] |= (uint8_t)(neg << i);
        }
    }
    float max = xv[0];
    for (int i = 1; i < 32; i++)
        max = max > xv[i] ? max : xv[i];
    memset(L, 0, 32);
    if (max == 0.0f)
        return 0;
    float best = 0.0f, scale = max / 15, sumqx, sumq2;
    int on_grid = 0; /* bit k: point k of the kept codes is on the grid */
    for (int is = -9; is <= 9; is++) {
        const float id = (15 + (float)is * 0.2f) / max, this_scale = 1.0f / id;
        int aux_on = 0;
        for (int k = 0; k < 8; k++)
            aux_on |= iq3s_point(xv + 4 * k, wroot + 4 * k, id, this_scale, Laux + 4 * k) << k;
        iq3s_fit(xv, w, Laux, &sumqx, &sumq2);
        if (sumq2 > 0.0f && sumqx * sumqx > best * sumq2) {
            scale = sumqx / sumq2, best = scale * sumqx;
            memcpy(L, Laux, 32);
            on_grid = aux_on;
        }
    }
    if (on_grid != 0xff && scale > 0.0f) {
        const float id = 1.0f / scale;
        for (int k = 0; k < 8; k++)
            iq3s_point(xv + 4 * k, wroot + 4 * k, id, scale, L + 4 * k);
        iq3s_fit(xv, w, L, &sumqx, &sumq2);
        if (sumq2 > 0.0f)
            scale = sumqx / sumq2;
    }
    if (scale < 0.0f) {
        scale = -scale;
        for (int k = 0; k < 4; k++)
            signs[k] = (uint8_t)~signs[k];
    }
    *out_scale = scale;
    return 1;
}

/* IQ3_S, 256 values in 110 bytes, 8 sub-blocks of 32:
 *
 *     byte 0      2                  66          74                106           110
 *          | d f16 | qs[64]: grid index | qh[8]: bit 8 | signs[32]: 1 = negative | scales[4] |
 *
 * value = d * (1 + 2s) * grid[index][i] * sign, s the sub-block's 4 bits
 * (lo nibble of scales[b/2] for even b); index = qs | bit k of qh[b] << 8
 * for point k of sub-block b. As in ggml, a sub-block of zeros takes no qs
 * and signs bytes: the next one's go where its would have gone (the
 * block's last bytes stay 0). d = max scale / 31 * 1.033. */
static void iq3_s_block(const float *restrict x, blk_iq3_s *restrict b)
{
    memset(b, 0, sizeof *b);
    float scales[8], max_scale = 0.0f;
    uint8_t *qs = b->qs, *signs = b->signs;
    for (int sb = 0; sb < 8; sb++) {
        int8_t L[32];
        scales[sb] = 0.0f;
        if (!iq3s_sub_block(x + 32 * sb, signs, L, &scales[sb]))
            continue;
        for (int k = 0; k < 8; k++) {
            int u = L[4 * k] | L[4 * k + 1] << 3 | L[4 * k + 2] << 6 | L[4 * k + 3] << 9;
            int index = iq3s.on_grid[u] >= 0 ? iq3s.on_grid[u] : 0; /* (always on it) */
            qs[k] = (uint8_t)index;
            b->qh[sb] |= (uint8_t)((index >> 8) << k);
        }
        qs += 8, signs += 4;
        max_scale = max_scale > scales[sb] ? max_scale : scales[sb];
    }
    if (max_scale == 0.0f)
        return;
    const float d = max_scale / 31, id = 1.0f / d;
    gg_q_put_f16(b->d, d * 1.033f);
    for (int sb = 0; sb < 8; sb += 2) {
        int l1 = gg_q_nearest(0.5f * (id * scales[sb] - 1.0f)), l2 = gg_q_nearest(0.5f * (id * scales[sb + 1] - 1.0f));
        l1 = gg_q_clamp(l1, 0, 15);
        l2 = gg_q_clamp(l2, 0, 15);
        b->scales[sb / 2] = (uint8_t)(l1 | l2 << 4);
    }
}

static pthread_once_t iq3s_once = PTHREAD_ONCE_INIT;

/* Makes the neighbour lists on the first call (~10 ms). */
int gg_quantize_iq3_s_ready(void)
{
    pthread_once(&iq3s_once, iq3s_init);
    return iq3s.ok;
}

void gg_quantize_iq3_s(const float *restrict x, uint8_t *restrict y, int64_t nblocks)
{
    for (int64_t i = 0; i < nblocks; i++)
        iq3_s_block(x + 256 * i, (blk_iq3_s *)(void *)(y + (size_t)i * sizeof(blk_iq3_s)));
}
