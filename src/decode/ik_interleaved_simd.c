/* ik_interleaved_simd.c - SIMD kernels of the most used row-interleaved
 * types, written once over the primitives of simd.h; the same bytes as their
 * scalar twins in ik_interleaved.c for any input.
 *
 * Each kernel computes exactly what its scalar twin computes: integers (or
 * codebook entries) are converted to float exactly, then multiplied by the
 * same float scale (and the same min subtracted or offset added) in the same
 * order. The work is in regrouping bytes: in a column the rows' 4-byte words
 * alternate (row k's word at 4k within each run of 4R bytes), so a 32-bit
 * transpose gathers each row's bytes. */
#include "simd.h"

#if GV_BUILT
#include "blocks.h"
#include "gguffs/fp16.h"
#include "ik_interleaved.h"
#include "tables.h"

#define ROW(k, c, be) (dst + (int64_t)(k) * dst_stride + (int64_t)(c) * (be))

/* y[0..15] = d * q (q signed bytes); d * q - m; d * q + m (q unsigned). */
static inline void mul16(float *y, gv_b16 q, float d) { gv_fstore(y, gv_fmul(gv_fsplat(d), gv_fs8(q))); }
static inline void mulsub16(float *y, gv_b16 q, float d, float m)
{
    gv_fstore(y, gv_fsub(gv_fmul(gv_fsplat(d), gv_fs8(q)), gv_fsplat(m)));
}
static inline void muladd16_u8(float *y, gv_b16 q, float d, float m)
{
    gv_fstore(y, gv_fadd(gv_fmul(gv_fsplat(d), gv_fu8(q)), gv_fsplat(m)));
}

/* ---- Regrouping ------------------------------------------------------- */

/* Rows of a 4x4 block of 32-bit words: r[k] = word k of a, b, c, e. */
static inline void transpose4(gv_b16 a, gv_b16 b, gv_b16 c, gv_b16 e, gv_b16 r[4])
{
    const gv_b16 t0 = gv_zip32lo(a, b), t1 = gv_zip32lo(c, e);
    const gv_b16 t2 = gv_zip32hi(a, b), t3 = gv_zip32hi(c, e);
    r[0] = gv_zip64lo(t0, t1), r[1] = gv_zip64hi(t0, t1);
    r[2] = gv_zip64lo(t2, t3), r[3] = gv_zip64hi(t2, t3);
}

/* 8 rows: 4 runs of 32 bytes at p, p + step, p + 2 step, p + 3 step; row k's
 * word is at 4k in each run. r[k] = row k's 4 words in run order (the two
 * 16-byte halves, rows 0-3 and 4-7, are transposed side by side). */
static inline void rows8(const uint8_t *p, int64_t step, gv_b16 r[8])
{
    const gv_b32 a0 = gv_load32(p), a1 = gv_load32(p + step), a2 = gv_load32(p + 2 * step), a3 = gv_load32(p + 3 * step);
    const gv_b32 t0 = gv_zip32lo_x2(a0, a1), t1 = gv_zip32lo_x2(a2, a3);
    const gv_b32 t2 = gv_zip32hi_x2(a0, a1), t3 = gv_zip32hi_x2(a2, a3);
    const gv_b32 r04 = gv_zip64lo_x2(t0, t1), r15 = gv_zip64hi_x2(t0, t1);
    const gv_b32 r26 = gv_zip64lo_x2(t2, t3), r37 = gv_zip64hi_x2(t2, t3);
    r[0] = gv_lo16(r04), r[4] = gv_hi16(r04), r[1] = gv_lo16(r15), r[5] = gv_hi16(r15);
    r[2] = gv_lo16(r26), r[6] = gv_hi16(r26), r[3] = gv_lo16(r37), r[7] = gv_hi16(r37);
}

/* 4 rows in the quad layout (ggi_quad_pos): 64 bytes, run q at 16q. r[k] =
 * row k's words of runs 0, 2, 1, 3, so that its low nibbles are values
 * 0-7, 16-23 and its high nibbles values 8-15, 24-31. */
static inline void rows4_quads(const uint8_t *p, gv_b16 r[4])
{
    transpose4(gv_load16(p), gv_load16(p + 32), gv_load16(p + 16), gv_load16(p + 48), r);
}

/* Nibbles of a row from rows4_quads, in value order: v[0] = values 0..15,
 * v[1] = values 16..31. */
static inline void quad_nibbles(gv_b16 x, gv_b16 v[2])
{
    const gv_b16 lo = gv_and16(x, gv_splat16(15)), hi = gv_shr16(x, 4, 15);
    v[0] = gv_zip64lo(lo, hi), v[1] = gv_zip64hi(lo, hi);
}

static inline gv_b16 lo4(gv_b16 x) { return gv_and16(x, gv_splat16(15)); }
static inline gv_b16 hi4(gv_b16 x) { return gv_shr16(x, 4, 15); }

/* The R (8 or 16) fp16 scales at the start of a column as floats; reads 32
 * bytes, all inside the column. */
static inline void f16x16(const uint8_t *p, float d[16]) { gv_fstore(d, gv_fhalf(p)); }

/* ---- Kernels ---------------------------------------------------------- */

/* Q4_0_R8 and MXFP4_R8 share the nibble layout: byte 32l + 4k + i gives
 * values 4l + i (low) and 4l + i + 16 (high) of row k. */
static void q4_0_r8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks, int64_t dst_stride)
{
    const gv_b16 eight = gv_splat16(8);
    for (int64_t c = 0; c < nblocks; c++) {
        const col_q4_0_r8 *b = (const col_q4_0_r8 *)src + c;
        float d[16];
        gv_b16 r[8];
        f16x16(b->d[0], d);
        rows8(b->qs, 32, r);
        for (int k = 0; k < 8; k++) {
            float *y = ROW(k, c, 32);
            mul16(y, gv_sub16(lo4(r[k]), eight), d[k]);
            mul16(y + 16, gv_sub16(hi4(r[k]), eight), d[k]);
        }
    }
}

static void mxfp4_r8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks, int64_t dst_stride)
{
    const gv_b16 tab = gv_load16(gg_kvalues_mxfp4);
    for (int64_t c = 0; c < nblocks; c++) {
        const col_mxfp4_r8 *b = (const col_mxfp4_r8 *)src + c;
        gv_b16 r[8];
        rows8(b->qs, 32, r);
        for (int k = 0; k < 8; k++) {
            float d = gg_bits_to_f32(gg_mxfp4_e8m0_half_scale_bits[b->e[k]]), *y = ROW(k, c, 32);
            mul16(y, gv_lut16b(tab, lo4(r[k])), d);
            mul16(y + 16, gv_lut16b(tab, hi4(r[k])), d);
        }
    }
}

/* Q8_0_R8, Q8_KV_R8: two halves of 128 bytes, values 0..15 and 16..31 of
 * each of the 8 rows of column c. */
static inline void q8_halves_r8(float *dst, int64_t dst_stride, int64_t c, const uint8_t *qs, const float *d)
{
    gv_b16 r[8], s[8];
    rows8(qs, 32, r);
    rows8(qs + 128, 32, s);
    for (int k = 0; k < 8; k++) {
        float *y = ROW(k, c, 32);
        mul16(y, r[k], d[k]);
        mul16(y + 16, s[k], d[k]);
    }
}

static void q8_0_r8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks, int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_q8_0_r8 *b = (const col_q8_0_r8 *)src + c;
        float d[16];
        f16x16(b->d[0], d);
        q8_halves_r8(dst, dst_stride, c, b->qs, d);
    }
}

/* Q8_KV_R8: float32 row scales in meta. */
static void q8_kv_r8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks, int64_t dst_stride)
{
    float d[8];
    for (int k = 0; k < 8; k++)
        d[k] = gg_rdf32(meta + 4 * k);
    for (int64_t c = 0; c < nblocks; c++)
        q8_halves_r8(dst, dst_stride, c, ((const col_q8_kv_r8 *)src + c)->qs, d);
}

/* Q8_K_R8: 16 runs of 128 bytes, each giving 16 values of every row. */
static void q8_k_r8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks, int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_q8_k_r8 *b = (const col_q8_k_r8 *)src + c;
        float d[16];
        f16x16(b->d[0], d);
        for (int j = 0; j < 16; j++) {
            gv_b16 r[8];
            rows8(b->qs + 128 * j, 32, r);
            for (int k = 0; k < 8; k++)
                mul16(ROW(k, c, 256) + 16 * j, r[k], d[k]);
        }
    }
}

/* Q8_K_R16: 16 rows, runs of 64 bytes; rows 0-7 are in the first 32 bytes of
 * each run, rows 8-15 in the second. Unsigned bytes, value = d * q + m. */
static void q8_k_r16(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks, int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_q8_k_r16 *b = (const col_q8_k_r16 *)src + c;
        float d[16], m[16];
        f16x16(b->d[0], d);
        for (int k = 0; k < 16; k++)
            m[k] = -128.f * d[k];
        for (int j = 0; j < 16; j++) {
            gv_b16 r[16];
            rows8(b->qs + 256 * j, 64, r);
            rows8(b->qs + 256 * j + 32, 64, r + 8);
            for (int k = 0; k < 16; k++)
                muladd16_u8(ROW(k, c, 256) + 16 * j, r[k], d[k], m[k]);
        }
    }
}

/* IQ4_XS_R8: per sub-block ib, 128 bytes; byte 32l + 4k + i gives values
 * 8l + i (low) and 8l + i + 4 (high): interleaving the looked-up low and high
 * nibbles word by word puts them in order. */
static void iq4_xs_r8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks, int64_t dst_stride)
{
    const gv_b16 tab = gv_load16(gg_iq4k_values);
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq4_xs_r8 *b = (const col_iq4_xs_r8 *)src + c;
        float d[16];
        f16x16(b->d[0], d);
        for (int ib = 0; ib < 8; ib++) {
            gv_b16 r[8];
            rows8(b->qs + 128 * ib, 32, r);
            for (int k = 0; k < 8; k++) {
                unsigned n = 8 * ib + k;
                int s = (int)(ggi_field(b->scales_l, n, 32, 4) | ggi_field(b->scales_h, n, 16, 2) << 4);
                float dl = d[k] * (s - 32), *y = ROW(k, c, 256) + 32 * ib;
                const gv_b16 lo = gv_lut16b(tab, lo4(r[k])), hi = gv_lut16b(tab, hi4(r[k]));
                mul16(y, gv_zip32lo(lo, hi), dl);
                mul16(y + 16, gv_zip32hi(lo, hi), dl);
            }
        }
    }
}

/* IQ4_NL_R4: one quad-layout block of 64 bytes after the 4 scales. */
static void iq4_nl_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks, int64_t dst_stride)
{
    const gv_b16 tab = gv_load16(gg_iq4k_values);
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq4_nl_r4 *b = (const col_iq4_nl_r4 *)src + c;
        float d[4];
        gv_b16 r[4];
        gv_halves4(d, b->d);
        rows4_quads(b->qs, r);
        for (int k = 0; k < 4; k++) {
            gv_b16 v[2];
            float *y = ROW(k, c, 32);
            quad_nibbles(r[k], v);
            mul16(y, gv_lut16b(tab, v[0]), d[k]);
            mul16(y + 16, gv_lut16b(tab, v[1]), d[k]);
        }
    }
}

/* Q4_K_R4: value = (d * scale) * q - (dmin * min) per sub-block. */
static void q4_k_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks, int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_q4_k_r4 *b = (const col_q4_k_r4 *)src + c;
        const uint8_t *sh = b->scales_h, *sl = b->scales_l;
        float dm[16];
        f16x16(b->dm[0], dm);
        for (int ib = 0; ib < 8; ib++) {
            gv_b16 r[4];
            rows4_quads(b->qs + 64 * ib, r);
            for (int k = 0; k < 4; k++) {
                unsigned n = 4 * ib + k, hi = ggi_field(sh, n, 16, 4);
                float dl = dm[k] * ((sl[n] & 15) | (hi & 3) << 4);
                float ml = dm[k + 4] * ((sl[n] >> 4) | (hi >> 2) << 4);
                float *y = ROW(k, c, 256) + 32 * ib;
                gv_b16 v[2];
                quad_nibbles(r[k], v);
                mulsub16(y, v[0], dl, ml);
                mulsub16(y + 16, v[1], dl, ml);
            }
        }
    }
}

/* IQ4_KS_R4: float32 row scales in meta, sub-block scale byte selects the
 * codebook half. */
static void iq4_ks_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks, int64_t dst_stride)
{
    const gv_b16 tab[2] = {gv_load16(gg_iq4k_values), gv_load16(gg_iq4k_values + 16)};
    float d[4];
    for (int k = 0; k < 4; k++)
        d[k] = gg_rdf32(meta + 4 * k);
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq4_ks_r4 *b = (const col_iq4_ks_r4 *)src + c;
        for (int ib = 0; ib < 8; ib++) {
            gv_b16 r[4];
            rows4_quads(b->qs + 64 * ib, r);
            for (int k = 0; k < 4; k++) {
                uint8_t s = b->scales[4 * ib + k];
                float dl = d[k] * ((s & 254) - 127), *y = ROW(k, c, 256) + 32 * ib;
                gv_b16 v[2];
                quad_nibbles(r[k], v);
                mul16(y, gv_lut16b(tab[s & 1], v[0]), dl);
                mul16(y + 16, gv_lut16b(tab[s & 1], v[1]), dl);
            }
        }
    }
}

/* IQ4_K_R4: values 0..15 and 16..31 of a sub-block have their own scale and
 * codebook half. */
static void iq4_k_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks, int64_t dst_stride)
{
    const gv_b16 tab[2] = {gv_load16(gg_iq4k_values), gv_load16(gg_iq4k_values + 16)};
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq4_k_r4 *b = (const col_iq4_k_r4 *)src + c;
        const uint8_t *ex = b->extra, *sh = b->scales_h, *sl = b->scales_l;
        float d[4];
        gv_halves4(d, b->d);
        for (int ib = 0; ib < 8; ib++) {
            gv_b16 r[4];
            rows4_quads(b->qs + 64 * ib, r);
            for (int k = 0; k < 4; k++) {
                gv_b16 v[2];
                float *y = ROW(k, c, 256) + 32 * ib;
                quad_nibbles(r[k], v);
                for (int h = 0; h < 2; h++) {
                    unsigned n = 8 * ib + 4 * h + k;
                    float dl = d[k] * ((int)(ggi_field(sl, n, 32, 4) | ggi_field(sh, n, 16, 2) << 4) - 32);
                    int alt = (ex[k + 4 * h] >> ib) & 1;
                    mul16(y + 16 * h, gv_lut16b(tab[alt], v[h]), dl);
                }
            }
        }
    }
}

GV_KERNELS(ik_interleaved) = {
    {GG_T_Q4_0_R8, GV_ISA, q4_0_r8},     {GG_T_MXFP4_R8, GV_ISA, mxfp4_r8},   {GG_T_Q8_0_R8, GV_ISA, q8_0_r8},
    {GG_T_Q8_KV_R8, GV_ISA, q8_kv_r8},   {GG_T_Q8_K_R8, GV_ISA, q8_k_r8},     {GG_T_Q8_K_R16, GV_ISA, q8_k_r16},
    {GG_T_IQ4_XS_R8, GV_ISA, iq4_xs_r8}, {GG_T_IQ4_NL_R4, GV_ISA, iq4_nl_r4}, {GG_T_Q4_K_R4, GV_ISA, q4_k_r4},
    {GG_T_IQ4_KS_R4, GV_ISA, iq4_ks_r4}, {GG_T_IQ4_K_R4, GV_ISA, iq4_k_r4},
    {0},
};
#else
GV_KERNELS(ik_interleaved) = {{0}};
#endif
