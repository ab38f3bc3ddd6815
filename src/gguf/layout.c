/* layout.c - element ranges to byte ranges to kernel calls.
 *
 * Three shapes of storage:
 *  - flat: blocks follow each other across rows (no per-row metadata); also
 *    the trailing-scale type I2_S, whose codes are flat too;
 *  - rows: each row is metadata + blocks;
 *  - groups: R rows interleaved block column by block column, with the R
 *    rows' metadata in front of the group.
 * Whole blocks (whole row groups) are decoded straight into the caller's
 * buffer; partial ones at the edges go through a small scratch buffer. */
#include "gguffs/layout.h"

#include <stdlib.h>
#include <string.h>

int gg_layout_init(gg_layout *l, const gg_type *t, uint64_t ne0, uint64_t nrows, gg_err *e)
{
    memset(l, 0, sizeof *l);
    l->type = t;
    l->ne0 = ne0;
    l->nrows = nrows;
    if (nrows && ne0 > UINT64_MAX / nrows)
        return gg_fail(e, GG_E_UNSUPPORTED, "element count overflows");
    l->nelems = ne0 * nrows;
    /* (also with 0 elements: rows of metadata can overflow) */
    if (gg_type_nbytes(t, ne0, nrows, &l->nbytes, e))
        return -1;
    if (!(t->flags & GG_TYPE_TRAILING_SCALE))
        l->row_bytes = t->row_meta_bytes + ne0 / t->block_elems * t->block_bytes;
    return 0;
}

static int is_flat(const gg_layout *l)
{
    const gg_type *t = l->type;
    return (t->flags & GG_TYPE_TRAILING_SCALE) || (t->row_meta_bytes == 0 && t->rows_interleaved == 1);
}

uint64_t gg_layout_granule(const gg_layout *l)
{
    const gg_type *t = l->type;
    /* Never 0 (callers divide by it) nor bigger than the tensor (callers
     * allocate it): a tensor without elements gets the block size. */
    if (t->rows_interleaved > 1 && l->nelems)
        return l->ne0 * t->rows_interleaved;
    return t->block_elems;
}

static uint64_t ceil_div(uint64_t a, uint64_t b) { return a / b + (a % b != 0); }

void gg_layout_bytes(const gg_layout *l, uint64_t e0, uint64_t e1, uint64_t *lo, uint64_t *hi,
                     uint64_t *tail)
{
    const gg_type *t = l->type;
    uint64_t be = t->block_elems, bb = t->block_bytes;
    *tail = UINT64_MAX;
    if (is_flat(l)) {
        *lo = e0 / be * bb;
        *hi = ceil_div(e1, be) * bb;
        if (t->flags & GG_TYPE_TRAILING_SCALE)
            *tail = l->nelems / be * bb;
        return;
    }
    uint64_t R = t->rows_interleaved, M = t->row_meta_bytes;
    uint64_t r0 = e0 / l->ne0, rl = (e1 - 1) / l->ne0; /* first and last row */
    uint64_t g0 = r0 / R, gl = rl / R;                  /* groups (R = 1: rows) */
    *lo = g0 * R * l->row_bytes;
    if (g0 == gl && r0 == rl) {
        /* One row: from its group's start (metadata) to the last column needed. */
        uint64_t c1 = ceil_div(e1 - rl * l->ne0, be);
        *hi = gl * R * l->row_bytes + R * M + c1 * R * bb;
    } else {
        *hi = (gl + 1) * R * l->row_bytes;
        if (R == 1) /* a row's tail past e1 is not needed */
            *hi = rl * l->row_bytes + M + ceil_div(e1 - rl * l->ne0, be) * bb;
    }
}

/* Decode output elements [e0, e1) of one storage run whose block 0 is at
 * `src` (positions relative to the run's element 0). Whole blocks go to dst
 * directly, edge blocks through scratch (no type has blocks over 256). */
static void decode_run(gg_kernel k, const gg_type *t, const uint8_t *meta, const uint8_t *src,
                       uint64_t e0, uint64_t e1, float *dst)
{
    uint64_t be = t->block_elems, bb = t->block_bytes;
    float scratch[256];
    uint64_t e = e0;
    while (e < e1) {
        uint64_t blk = e / be;
        uint64_t in = e - blk * be;
        if (in == 0 && e1 - e >= be) {
            /* As many whole blocks as fit. */
            uint64_t n = (e1 - e) / be;
            k(meta, src + blk * bb, dst + (e - e0), (int64_t)n, 0);
            e += n * be;
        } else {
            uint64_t take = be - in < e1 - e ? be - in : e1 - e;
            k(meta, src + blk * bb, scratch, 1, 0);
            memcpy(dst + (e - e0), scratch + in, take * sizeof(float));
            e += take;
        }
    }
}

/* Interleaved types: decode rows/elements of group g that fall in [e0, e1). */
static int decode_group(gg_kernel k, const gg_layout *l, const uint8_t *group, uint64_t g,
                        uint64_t e0, uint64_t e1, float *dst)
{
    const gg_type *t = l->type;
    uint64_t R = t->rows_interleaved, M = t->row_meta_bytes;
    uint64_t be = t->block_elems, bb = t->block_bytes, ne0 = l->ne0;
    uint64_t ncols = ne0 / be;
    uint64_t gs = g * R * ne0, ge = gs + R * ne0; /* group's element range */
    uint64_t a = e0 > gs ? e0 : gs, b = e1 < ge ? e1 : ge;
    const uint8_t *meta = M ? group : NULL;
    const uint8_t *cols = group + R * M;

    if (a == gs && b == ge) { /* whole group, straight into place */
        k(meta, cols, dst + (gs - e0), (int64_t)ncols, (int64_t)ne0);
        return 0;
    }
    /* Partial group: decode the needed columns of all R rows in chunks. */
    uint64_t ra = (a - gs) / ne0, rb = (b - 1 - gs) / ne0;
    uint64_t c0 = 0, c1 = ncols;
    if (ra == rb) {
        c0 = (a - gs - ra * ne0) / be;
        c1 = ceil_div(b - gs - ra * ne0, be);
    }
    uint64_t chunk = (1u << 16) / (R * be);
    if (chunk == 0)
        chunk = 1;
    float *tmp = malloc(chunk * be * R * sizeof(float));
    if (!tmp)
        return -1;
    for (uint64_t c = c0; c < c1; c += chunk) {
        uint64_t n = c1 - c < chunk ? c1 - c : chunk;
        uint64_t w = n * be; /* decoded width per row */
        k(meta, cols + c * R * bb, tmp, (int64_t)n, (int64_t)w);
        for (uint64_t r = ra; r <= rb; r++) {
            uint64_t rs = gs + r * ne0 + c * be; /* element of tmp row r, column 0 */
            uint64_t lo = rs > a ? rs : a, hi = rs + w < b ? rs + w : b;
            if (lo < hi)
                memcpy(dst + (lo - e0), tmp + r * w + (lo - rs), (hi - lo) * sizeof(float));
        }
    }
    free(tmp);
    return 0;
}

int gg_layout_decode(const gg_layout *l, gg_isa isa, const uint8_t *buf, uint64_t lo,
                     const uint8_t *tail, uint64_t e0, uint64_t e1, float *dst)
{
    const gg_type *t = l->type;
    gg_kernel k = gg_type_kernel(t, isa);
    if (!k || t->block_elems > 256)
        return -1;
    if (e0 >= e1)
        return 0;
    uint64_t be = t->block_elems, bb = t->block_bytes;

    if (is_flat(l)) {
        /* Run whose block 0 is the first block in buf. */
        uint64_t k0 = e0 / be;
        const uint8_t *src = buf + (k0 * bb - lo);
        decode_run(k, t, tail, src, e0 - k0 * be, e1 - k0 * be, dst);
        return 0;
    }
    uint64_t R = t->rows_interleaved, M = t->row_meta_bytes, ne0 = l->ne0;
    if (R == 1) {
        for (uint64_t r = e0 / ne0; r * ne0 < e1; r++) {
            uint64_t rs = r * ne0;
            uint64_t a = e0 > rs ? e0 - rs : 0, b = e1 - rs < ne0 ? e1 - rs : ne0;
            const uint8_t *row = buf + (r * l->row_bytes - lo);
            decode_run(k, t, row, row + M, a, b, dst + (rs + a - e0));
        }
        return 0;
    }
    uint64_t group_bytes = R * l->row_bytes;
    for (uint64_t g = e0 / (R * ne0); g * R * ne0 < e1; g++)
        if (decode_group(k, l, buf + (g * group_bytes - lo), g, e0, e1, dst) < 0)
            return -1;
    (void)bb;
    return 0;
}
