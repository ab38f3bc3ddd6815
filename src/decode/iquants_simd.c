/* iquants_simd.c - the SIMD kernels of iquants.c, written once over the
 * primitives of simd.h; the same bytes as the scalar kernels for any input.
 *
 * Grid types: the group scales of a block are computed together, one lane
 * per scale, with exactly the float operations of iquants.h, and stored to a
 * small array from which each group broadcasts its own. Two groups of 8
 * weights (two 8-byte codebook entries; IQ3: four 4-byte ones)
 * make 16 lanes, converted exactly to float and multiplied by the scale. The
 * reference then multiplies by +-1: an exact sign flip, done here on the
 * sign bit, which gives identical bytes for every non-NaN value (-0.0
 * included). Nothing branches on the data.
 *
 * IQ4: the 16-entry int8 codebook is applied to the nibbles as a byte
 * lookup, the values converted and multiplied by the scale. */
#include "simd.h"

#if GV_BUILT
#include "blocks.h"
#include "iquants.h"
#include "tables.h"

static inline float f16(const uint8_t *p) { return gv_h2f(gg_rd16(p)); } /* exact, like gg_rdf16 */

/* d * (s + 1/2) * f lane by lane (iq2_group_scale: f = 1/4; iq3xxs: f = 1/2). */
static inline gv_f half_scales(float d, gv_i s, float f)
{
    return gv_fmul(gv_fmul(gv_fsplat(d), gv_fadd(gv_fsplat(0.5f), gv_fcvt(s))), gv_fsplat(f));
}

/* d * (2s + 1) lane by lane (odd_scale). */
static inline gv_f odd_scales(float d, gv_i s)
{
    return gv_fmul(gv_fsplat(d), gv_fcvt(gv_iadd(gv_iadd(s, s), gv_isplat(1))));
}

/* The nibbles of the low 8 bytes of x, low nibble first, as lanes. */
static inline gv_i nibbles16(gv_b16 x) { return gv_iu8(gv_zip8lo(gv_and16(x, gv_splat16(15)), gv_shr16(x, 4, 15))); }

/* y[0..16) = dl * the magnitudes of entries e0, e1, sign-flipped where bit
 * 16h + j of signs is set. */
static inline void put16_signed(float *y, gv_f dl, const uint64_t *e0, const uint64_t *e1, uint32_t signs, int h)
{
    gv_fstore(y, gv_fnegbits(gv_fmul(dl, gv_fu8x2(e0, e1)), signs, h));
}

/* Four 7-bit sign indices (bits 0..27 of w) -> 32 sign bits. */
static inline uint32_t ksigns4(uint32_t w)
{
    const uint8_t *ks = gg_ksigns_iq2xs;
    return ks[w & 127] | (uint32_t)ks[(w >> 7) & 127] << 8 | (uint32_t)ks[(w >> 14) & 127] << 16 |
           (uint32_t)ks[(w >> 21) & 127] << 24;
}

static void dec_iq2_xxs(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const uint64_t *grid = gg_iq2xxs_grid;
    const blk_iq2_xxs *b = (const blk_iq2_xxs *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        float dls[16]; /* group g's scale in lane 2g + 1: top 4 bits of its second word */
        gv_fstore(dls, half_scales(f16(b->d), gv_ishr(gv_iload(b->qs), 28), 0.25f));
        for (int g = 0; g < 8; g++, y += 32) {
            const uint8_t *q = b->qs + 8 * g;
            const uint32_t sg = ksigns4(gg_rd32(q + 4));
            const gv_f dl = gv_fsplat(dls[2 * g + 1]);
            put16_signed(y, dl, &grid[q[0]], &grid[q[1]], sg, 0);
            put16_signed(y + 16, dl, &grid[q[2]], &grid[q[3]], sg, 1);
        }
    }
}

static void dec_iq2_xs(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const uint64_t *grid = gg_iq2xs_grid;
    const uint8_t *ks = gg_ksigns_iq2xs;
    const blk_iq2_xs *b = (const blk_iq2_xs *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        float dls[16]; /* dls[2g], dls[2g+1]: the two halves of group g */
        gv_fstore(dls, half_scales(f16(b->d), nibbles16(gv_load8(b->scales)), 0.25f));
        for (int g = 0; g < 8; g++, y += 32) {
            const uint64_t q = gg_rd64(b->qs + 8 * g); /* four uint16 codes: 9-bit index, 7-bit sign index */
            const uint32_t q0 = (uint32_t)q & 0xffff, q1 = (uint32_t)(q >> 16) & 0xffff;
            const uint32_t q2 = (uint32_t)(q >> 32) & 0xffff, q3 = (uint32_t)(q >> 48);
            const uint32_t sg = ks[q0 >> 9] | ks[q1 >> 9] << 8 | (uint32_t)ks[q2 >> 9] << 16 | (uint32_t)ks[q3 >> 9] << 24;
            put16_signed(y, gv_fsplat(dls[2 * g]), &grid[q0 & 511], &grid[q1 & 511], sg, 0);
            put16_signed(y + 16, gv_fsplat(dls[2 * g + 1]), &grid[q2 & 511], &grid[q3 & 511], sg, 1);
        }
    }
}

static void dec_iq2_s(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const uint64_t *grid = gg_iq2s_grid;
    const blk_iq2_s *b = (const blk_iq2_s *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        const uint8_t *qs = b->qs, *signs = b->signs;
        float dls[16];
        gv_fstore(dls, half_scales(f16(b->d), nibbles16(gv_load8(b->scales)), 0.25f));
        for (int g = 0; g < 8; g++, y += 32, qs += 4, signs += 4) {
            /* index l: low byte qs[l], bits 8..9 from bits 2l..2l+1 of qh[g] */
            const uint32_t h = b->qh[g], sg = gg_rd32(signs);
            put16_signed(y, gv_fsplat(dls[2 * g]), &grid[qs[0] | ((h << 8) & 0x300)],
                         &grid[qs[1] | ((h << 6) & 0x300)], sg, 0);
            put16_signed(y + 16, gv_fsplat(dls[2 * g + 1]), &grid[qs[2] | ((h << 4) & 0x300)],
                         &grid[qs[3] | ((h << 2) & 0x300)], sg, 1);
        }
    }
}

/* IQ3: 16 weights from four 4-byte entries, times dl, sign-flipped where bit
 * 16h + j of signs is set. */
static inline void put16_iq3(float *y, gv_f dl, const uint32_t *grid, const uint32_t idx[4], uint32_t signs, int h)
{
    const gv_b16 mag = gv_load4x4(&grid[idx[0]], &grid[idx[1]], &grid[idx[2]], &grid[idx[3]]);
    gv_fstore(y, gv_fnegbits(gv_fmul(dl, gv_fu8(mag)), signs, h));
}

static void dec_iq3_xxs(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_iq3_xxs *b = (const blk_iq3_xxs *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        float dls[16]; /* scale of group g: top 4 bits of sas word g */
        gv_fstore(dls, half_scales(f16(b->d), gv_ishr(gv_iload8(b->sas), 28), 0.5f));
        for (int g = 0; g < 8; g++, y += 32) {
            const uint8_t *q = b->qs + 8 * g;
            const uint32_t sg = ksigns4(gg_rd32(b->sas + 4 * g));
            const uint32_t i0[4] = {q[0], q[1], q[2], q[3]}, i1[4] = {q[4], q[5], q[6], q[7]};
            const gv_f dl = gv_fsplat(dls[g]);
            put16_iq3(y, dl, gg_iq3xxs_grid, i0, sg, 0);
            put16_iq3(y + 16, dl, gg_iq3xxs_grid, i1, sg, 1);
        }
    }
}

static void dec_iq3_s(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_iq3_s *b = (const blk_iq3_s *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        float dls[16]; /* 8 nibble scales, low nibble first: d * (2s + 1) */
        gv_fstore(dls, odd_scales(f16(b->d), nibbles16(gv_splatw(gg_rd32(b->scales))))); /* lanes 0..7 */
        for (int g = 0; g < 8; g++, y += 32) {
            /* index k: low byte qs[8g + k], bit 8 is bit k of qh[g] */
            const uint8_t *q = b->qs + 8 * g;
            const uint32_t h = b->qh[g];
            const uint32_t i0[4] = {q[0] | (h << 8 & 256), q[1] | (h << 7 & 256), q[2] | (h << 6 & 256),
                                    q[3] | (h << 5 & 256)};
            const uint32_t i1[4] = {q[4] | (h << 4 & 256), q[5] | (h << 3 & 256), q[6] | (h << 2 & 256),
                                    q[7] | (h << 1 & 256)};
            const uint32_t sg = gg_rd32(b->signs + 4 * g);
            const gv_f dl = gv_fsplat(dls[g]);
            put16_iq3(y, dl, gg_iq3s_grid, i0, sg, 0);
            put16_iq3(y + 16, dl, gg_iq3s_grid, i1, sg, 1);
        }
    }
}

/* IQ1: y[0..16) = dl * ((float)grid + delta), entries e0, e1 (int8 values). */
static inline void put16_iq1(float *y, gv_f dl, const uint64_t *e0, const uint64_t *e1, gv_f delta)
{
    gv_fstore(y, gv_fmul(dl, gv_fadd(gv_fs8x2(e0, e1), delta)));
}

static void dec_iq1_s(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const uint64_t *grid = gg_iq1s_grid;
    const float delta = gg_iq1s_delta[0];
    const blk_iq1_s *b = (const blk_iq1_s *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        const uint8_t *qs = b->qs;
        float dls[16]; /* group g's uint16 h: scale s = bits 12..14 */
        const gv_i h = gv_iu16b(gv_load16(b->qh), gv_splat16(0));
        gv_fstore(dls, odd_scales(f16(b->d), gv_iand(gv_ishr(h, 12), gv_isplat(7))));
        for (int g = 0; g < 8; g++, y += 32, qs += 4) {
            const uint32_t hg = gg_rd16(b->qh + 2 * g);
            const gv_f dl = gv_fsplat(dls[g]), dt = gv_fsplat(hg & 0x8000 ? -delta : delta);
            /* index l: low byte qs[l], bits 8..10 from bits 3l..3l+2 of h */
            put16_iq1(y, dl, &grid[qs[0] | ((hg << 8) & 0x700)], &grid[qs[1] | ((hg << 5) & 0x700)], dt);
            put16_iq1(y + 16, dl, &grid[qs[2] | ((hg << 2) & 0x700)], &grid[qs[3] | ((hg >> 1) & 0x700)], dt);
        }
    }
}

static void dec_iq1_m(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const uint64_t *grid = gg_iq1s_grid;
    const float delta = gg_iq1m_delta[0];
    /* scale k (16 of them, one per 16 weights): bits 3(k%4).. of word k/4 */
    static const uint8_t w01[16] = {0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3, 2, 3};
    static const int32_t wsh[16] = {0, 3, 6, 9, 0, 3, 6, 9, 0, 3, 6, 9, 0, 3, 6, 9};
    const gv_b16 sel0 = gv_load16(w01), sel1 = gv_add16(sel0, gv_splat16(4));
    const gv_i sh = gv_iload(wsh);
    const blk_iq1_m *b = (const blk_iq1_m *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        const uint8_t *qs = b->qs, *qh = b->qh;
        const gv_b16 sc = gv_load8(b->scales);
        const gv_i w = gv_iu16b(gv_lut16b(sc, sel0), gv_lut16b(sc, sel1));
        float dls[16]; /* dls[2g], dls[2g+1]: first / last 16 weights of group g */
        gv_fstore(dls, odd_scales(gv_h2f(iq1m_block_scale_bits(b)), gv_iand(gv_ishrv(w, sh), gv_isplat(7))));
        for (int g = 0; g < 8; g++, y += 32, qs += 4) {
            const uint32_t h0 = qh[2 * g], h1 = qh[2 * g + 1];
            /* bits 0..2 / 4..6: index bits 8..10 of the two entries; bits 3 / 7 their delta signs */
            put16_iq1(y, gv_fsplat(dls[2 * g]), &grid[qs[0] | ((h0 << 8) & 0x700)], &grid[qs[1] | ((h0 << 4) & 0x700)],
                      gv_fsplat2(h0 & 8 ? -delta : delta, h0 & 128 ? -delta : delta));
            put16_iq1(y + 16, gv_fsplat(dls[2 * g + 1]), &grid[qs[2] | ((h1 << 8) & 0x700)],
                      &grid[qs[3] | ((h1 << 4) & 0x700)], gv_fsplat2(h1 & 8 ? -delta : delta, h1 & 128 ? -delta : delta));
        }
    }
}

/* 32 weights of an IQ4 group: 16 code bytes (low nibbles are weights 0..15,
 * high nibbles 16..31) times dl. (A table of the 16 products dl * kvalues
 * with a float lookup, as the AVX-512 kernel once did, measured no faster.) */
typedef gv_b16 iq4_vals;
static inline iq4_vals iq4_values(void) { return gv_load16(gg_kvalues_iq4nl); }
static inline void put32_iq4(float *y, float dl, iq4_vals kv, const uint8_t *qs)
{
    const gv_f d = gv_fsplat(dl);
    const gv_b16 x = gv_load16(qs);
    gv_fstore(y, gv_fmul(d, gv_fs8(gv_lut16b(kv, gv_and16(x, gv_splat16(15))))));
    gv_fstore(y + 16, gv_fmul(d, gv_fs8(gv_lut16b(kv, gv_shr16(x, 4, 15)))));
}

static void dec_iq4_nl(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const iq4_vals kv = iq4_values();
    const blk_iq4_nl *b = (const blk_iq4_nl *)src;
    for (int64_t i = 0; i < nb; i++, b++, y += 32)
        put32_iq4(y, f16(b->d), kv, b->qs);
}

static void dec_iq4_xs(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    static const int32_t hsh[16] = {0, 2, 4, 6, 8, 10, 12, 14, 0, 0, 0, 0, 0, 0, 0, 0};
    const gv_i sh = gv_iload(hsh);
    const iq4_vals kv = iq4_values();
    const blk_iq4_xs *b = (const blk_iq4_xs *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        /* 6-bit scale of group g: nibble g of scales_l, bits 2g..2g+1 of
         * scales_h on top; dl = d * (ls - 32) as iq4xs_group_scale */
        float dls[16];
        const gv_b16 x = gv_splatw(gg_rd32(b->scales_l));
        const gv_i lo = gv_iu8(gv_zip8lo(gv_and16(x, gv_splat16(15)), gv_shr16(x, 4, 15)));
        const gv_i hi = gv_iand(gv_ishrv(gv_isplat(gg_rd16(b->scales_h)), sh), gv_isplat(3));
        const gv_i ls = gv_isub(gv_ior(lo, gv_ishl(hi, 4)), gv_isplat(32));
        gv_fstore(dls, gv_fmul(gv_fsplat(f16(b->d)), gv_fcvt(ls)));
        for (int g = 0; g < 8; g++, y += 32)
            put32_iq4(y, dls[g], kv, b->qs + 16 * g);
    }
}

GV_KERNELS(iquants) = {
    {GG_T_IQ2_XXS, GV_ISA, dec_iq2_xxs}, {GG_T_IQ2_XS, GV_ISA, dec_iq2_xs}, {GG_T_IQ2_S, GV_ISA, dec_iq2_s},
    {GG_T_IQ3_XXS, GV_ISA, dec_iq3_xxs}, {GG_T_IQ3_S, GV_ISA, dec_iq3_s},   {GG_T_IQ1_S, GV_ISA, dec_iq1_s},
    {GG_T_IQ1_M, GV_ISA, dec_iq1_m},     {GG_T_IQ4_NL, GV_ISA, dec_iq4_nl}, {GG_T_IQ4_XS, GV_ISA, dec_iq4_xs},
    {0},
};
#else
GV_KERNELS(iquants) = {{0}};
#endif
