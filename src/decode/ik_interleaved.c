/* ik_interleaved.c - scalar kernels of the row-interleaved types of
 * ik_llama.cpp (_R4, _R8, _R16).
 *
 * An interleaved tensor stores R consecutive rows as one group. When the type
 * has per-row metadata (a row scale), the R values come first in the group
 * and the kernel gets them as `meta`. Then follow the block columns: column c
 * holds block c of all R rows together, R * block_bytes bytes, with the R
 * rows' fields mixed inside it as described at each kernel; the fields are
 * those of the column's struct col_<type>_r<R> in blocks.h, named alike
 * here (a short local name in parentheses). Row r of the group is written
 * to dst + r * dst_stride.
 *
 * Every value is computed with the float operations of the fork's own
 * dequantize_row_*_rN, in the same order (products of the form d * s * q are
 * (d * s) * q). Integers are turned into floats exactly before the multiply.
 *
 * Notation in the comments: "row k" is the row within the group, "value j"
 * the position within the row's part of the column (0 .. block_elems-1). */
#include <stddef.h>
#include <stdint.h>

#include "blocks.h"
#include "gguffs/decode.h"
#include "families.h"
#include "gguffs/fp16.h"
#include "ik_interleaved.h"
#include "tables.h"

#define ROW(k, c, be) (dst + (int64_t)(k) * dst_stride + (int64_t)(c) * (be))

/* ---- Blocks of 32 ------------------------------------------------------ */

/* Q4_0_R8: 8 rows, column of 144 bytes: d[8] fp16, qs[128]. qs byte
 * 32l + 4k + i (l, i = 0..3) carries row k's values 4l + i (low nibble) and
 * 4l + i + 16 (high nibble); value = d[k] * (nibble - 8). */
static void q4_0_r8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                    int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_q4_0_r8 *b = (const col_q4_0_r8 *)src + c;
        const uint8_t *qs = b->qs;
        for (int k = 0; k < 8; k++) {
            float d = gg_rdf16(b->d[k]), *y = ROW(k, c, 32);
            for (int l = 0; l < 4; l++)
                for (int i = 0; i < 4; i++) {
                    uint8_t q = qs[32 * l + 4 * k + i];
                    y[4 * l + i] = d * ((q & 15) - 8);
                    y[4 * l + i + 16] = d * ((q >> 4) - 8);
                }
        }
    }
}

/* Q5_0_R4: 4 rows, column of 88 bytes: d[4] fp16, qh[16], qs[64].
 * qs byte 16q + 4k + i holds the low 4 bits of row k's values
 * p = quad_pos(q) + i (low nibble) and p + 8 (high nibble); their 5th bits
 * are bits q and q + 4 of qh[4k + i]. value = d * q5 + (-16 * d). */
static void q5_0_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                    int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_q5_0_r4 *b = (const col_q5_0_r4 *)src + c;
        const uint8_t *qh = b->qh, *qs = b->qs;
        for (int k = 0; k < 4; k++) {
            float d = gg_rdf16(b->d[k]), m = -16 * d, *y = ROW(k, c, 32);
            for (int q = 0; q < 4; q++)
                for (int i = 0; i < 4; i++) {
                    int p = ggi_quad_pos(q) + i;
                    uint8_t l = qs[16 * q + 4 * k + i], h = qh[4 * k + i];
                    y[p] = d * ((l & 15) | ((h >> q) & 1) << 4) + m;
                    y[p + 8] = d * ((l >> 4) | ((h >> (q + 4)) & 1) << 4) + m;
                }
        }
    }
}

/* Q6_0_R4: 4 rows, column of 104 bytes: d[4] fp16, qh[32], qs[64].
 * Low 4 bits as in Q5_0_R4; the two high bits of value p (low nibble) are
 * bits 2(q/2), 2(q/2)+1 of qh[16(q%2) + 4k + i], those of value p + 8 bits
 * 2(q/2)+4, 2(q/2)+5. value = d * q6 + (-32 * d). */
static void q6_0_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                    int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_q6_0_r4 *b = (const col_q6_0_r4 *)src + c;
        const uint8_t *qh = b->qh, *qs = b->qs;
        for (int k = 0; k < 4; k++) {
            float d = gg_rdf16(b->d[k]), m = -32 * d, *y = ROW(k, c, 32);
            for (int q = 0; q < 4; q++)
                for (int i = 0; i < 4; i++) {
                    int p = ggi_quad_pos(q) + i, s = 2 * (q >> 1);
                    uint8_t l = qs[16 * q + 4 * k + i], h = qh[16 * (q & 1) + 4 * k + i];
                    y[p] = d * ((l & 15) | ((h >> s) & 3) << 4) + m;
                    y[p + 8] = d * ((l >> 4) | ((h >> (s + 4)) & 3) << 4) + m;
                }
        }
    }
}

/* Q8_0_R8: 8 rows, column of 272 bytes: d[8] fp16, qs[256] (signed). qs
 * byte 32l + 4k + i is row k's value 4l + i, byte 128 + 32l + 4k + i its
 * value 16 + 4l + i. value = d * q. */
static void q8_0_r8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                    int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_q8_0_r8 *b = (const col_q8_0_r8 *)src + c;
        const uint8_t *qs = b->qs;
        for (int k = 0; k < 8; k++) {
            float d = gg_rdf16(b->d[k]), *y = ROW(k, c, 32);
            for (int l = 0; l < 4; l++)
                for (int i = 0; i < 4; i++) {
                    y[4 * l + i] = d * (int8_t)qs[32 * l + 4 * k + i];
                    y[16 + 4 * l + i] = d * (int8_t)qs[128 + 32 * l + 4 * k + i];
                }
        }
    }
}

/* IQ4_NL_R4: 4 rows, column of 72 bytes: d[4] fp16, qs[64], nibbles in the
 * quad layout (see ggi_quad_pos). value = d * iq4k_values[n] (the first 16
 * entries, the IQ4_NL codebook). */
static void iq4_nl_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                      int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq4_nl_r4 *b = (const col_iq4_nl_r4 *)src + c;
        const uint8_t *qs = b->qs;
        for (int k = 0; k < 4; k++) {
            float d = gg_rdf16(b->d[k]), *y = ROW(k, c, 32);
            for (int q = 0; q < 4; q++)
                for (int i = 0; i < 4; i++) {
                    int p = ggi_quad_pos(q) + i;
                    uint8_t l = qs[16 * q + 4 * k + i];
                    y[p] = d * gg_iq4k_values[l & 15];
                    y[p + 8] = d * gg_iq4k_values[l >> 4];
                }
        }
    }
}

/* MXFP4_R8: 8 rows, column of 136 bytes: e[8] (E8M0 exponent bytes),
 * qs[128]. qs byte 32j + 4k + i (j, i = 0..3) carries row k's values 4j + i
 * (low nibble) and 4j + i + 16 (high nibble); value = half_scale(e[k]) *
 * kvalues_mxfp4[n] (the codebook is stored doubled, the scale halved).
 * The fork's own to_float for this type miscounts its blocks; this is the
 * MXFP4 decoding of the same blocks (see tests/data/ik/README.md). */
static void mxfp4_r8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                     int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_mxfp4_r8 *b = (const col_mxfp4_r8 *)src + c;
        const uint8_t *qs = b->qs;
        for (int k = 0; k < 8; k++) {
            float d = gg_bits_to_f32(gg_mxfp4_e8m0_half_scale_bits[b->e[k]]), *y = ROW(k, c, 32);
            for (int j = 0; j < 4; j++)
                for (int i = 0; i < 4; i++) {
                    uint8_t q = qs[32 * j + 4 * k + i];
                    y[4 * j + i] = d * gg_kvalues_mxfp4[q & 15];
                    y[4 * j + i + 16] = d * gg_kvalues_mxfp4[q >> 4];
                }
        }
    }
}

/* IQ1_S_R4: meta = 4 fp16 row scales d[k]. Column of 24 bytes: qs[16],
 * qh[4] (little-endian 16-bit words; h = qh[k] for row k). Row k: 4 groups
 * of 8 values; group i uses grid entry qs[4i + k] + 256 * (bits 3i..3i+2 of
 * h) of iq1s_grid (8 values -1/0/+1); bits 12..14 of h give the block scale
 * s, bit 15 the sign of the shift. value = (d * (2s + 1)) * (grid + shift),
 * shift = -/+ IQ1S_DELTA. */
static void iq1_s_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                     int64_t dst_stride)
{
    const float delta = gg_iq1_delta_constants[0];
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq1_s_r4 *b = (const col_iq1_s_r4 *)src + c;
        for (int k = 0; k < 4; k++) {
            unsigned h = gg_rd16(b->qh[k]);
            float shift = (h & 0x8000) ? -delta : delta;
            float dl = gg_rdf16(meta + 2 * k) * (2 * ((h >> 12) & 7) + 1), *y = ROW(k, c, 32);
            for (int i = 0; i < 4; i++) {
                uint64_t g = gg_iq1s_grid[b->qs[4 * i + k] | ((h >> (3 * i)) & 7) << 8];
                for (int j = 0; j < 8; j++)
                    y[8 * i + j] = dl * (ggi_s8(g, j) + shift);
            }
        }
    }
}

/* IQ1_M_R4: meta = 4 fp16 row scales d[k]. Column of 28 bytes: qs[16],
 * qh[8], scales[4] (sc). Row k, half i (values 16i .. 16i+15) has scale
 * d * (nibble i of sc[k]); its two groups of 8 use grid entries
 * qs[8i + k] + 256 * (qh[4i + k] & 7) and qs[8i + k + 4] + 256 *
 * ((qh[4i + k] >> 4) & 7), with shift signs in bits 3 and 7 of qh[4i + k].
 * value = dl * (grid + shift), shift = -/+ IQ1M_DELTA. */
static void iq1_m_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                     int64_t dst_stride)
{
    const float delta = gg_iq1_delta_constants[1];
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq1_m_r4 *b = (const col_iq1_m_r4 *)src + c;
        const uint8_t *qs = b->qs, *qh = b->qh, *sc = b->scales;
        for (int k = 0; k < 4; k++) {
            float d = gg_rdf16(meta + 2 * k), *y = ROW(k, c, 32);
            for (int i = 0; i < 2; i++) {
                float dl = d * ((sc[k] >> (4 * i)) & 15);
                uint8_t h = qh[4 * i + k];
                uint64_t g1 = gg_iq1s_grid[qs[8 * i + k] | (h & 7) << 8];
                uint64_t g2 = gg_iq1s_grid[qs[8 * i + k + 4] | ((h >> 4) & 7) << 8];
                float s1 = (h & 0x08) ? -delta : delta, s2 = (h & 0x80) ? -delta : delta;
                for (int j = 0; j < 8; j++) {
                    y[16 * i + j] = dl * (ggi_s8(g1, j) + s1);
                    y[16 * i + 8 + j] = dl * (ggi_s8(g2, j) + s2);
                }
            }
        }
    }
}

/* Q8_KV_R8: meta = 8 float32 row scales d[k]. Column of 256 bytes: qs[256]
 * (signed; 32 values of 8 rows) made of two units u = 0, 1 of 128 bytes: qs
 * byte 128u + 32l + 4k + i is row k's value 16u + 4l + i. value = d * q. */
static void q8_kv_r8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                     int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const uint8_t *b = ((const col_q8_kv_r8 *)src + c)->qs;
        for (int k = 0; k < 8; k++) {
            float d = gg_rdf32(meta + 4 * k), *y = ROW(k, c, 32);
            for (int u = 0; u < 2; u++)
                for (int l = 0; l < 4; l++)
                    for (int i = 0; i < 4; i++)
                        y[16 * u + 4 * l + i] = d * (int8_t)b[128 * u + 32 * l + 4 * k + i];
        }
    }
}

/* ---- Blocks of 64 ------------------------------------------------------ */

/* IQ2_BN_R4: meta = 4 float32 row scales d[k]. Column of 64 bytes: qs[64]; qs
 * byte 16l + 4k + i holds four 2-bit codes; code s (bits 2s, 2s+1) is row k's
 * value 16l + 4s + i. value = d * (code - 1). */
static void iq2_bn_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                      int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq2_bn_r4 *b = (const col_iq2_bn_r4 *)src + c;
        for (int k = 0; k < 4; k++) {
            float d = gg_rdf32(meta + 4 * k), *y = ROW(k, c, 64);
            for (int l = 0; l < 4; l++)
                for (int i = 0; i < 4; i++)
                    for (int s = 0; s < 4; s++)
                        y[16 * l + 4 * s + i] = d * (((b->qs[16 * l + 4 * k + i] >> (2 * s)) & 3) - 1);
        }
    }
}

/* ---- Super-blocks of 256 (8 sub-blocks ib of 32 values) ---------------- */

/* 2-bit planes used by Q2_K_R4, Q3_K_R4, IQ2_K_R4, IQ3_K_R4: sub-block ib
 * has 32 bytes at 32ib; byte 32ib + 16h + 4k + i holds four 2-bit fields;
 * field s is row k's value 16h + 4s + i of the sub-block. */

/* Q2_K_R4: 4 rows, column of 336 bytes: dm[8] fp16 (d[4], then dmin[4]),
 * scales[64] (sc), qs[256]. Sub-block ib, half h: scale byte
 * sc[8ib + 4h + k], low nibble times d, high nibble times dmin.
 * value = dl * q2 - ml. */
static void q2_k_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                    int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_q2_k_r4 *b = (const col_q2_k_r4 *)src + c;
        const uint8_t *sc = b->scales, *qs = b->qs;
        for (int k = 0; k < 4; k++) {
            float d = gg_rdf16(b->dm[k]), m = gg_rdf16(b->dm[4 + k]);
            for (int ib = 0; ib < 8; ib++)
                for (int h = 0; h < 2; h++) {
                    uint8_t s = sc[8 * ib + 4 * h + k];
                    float dl = d * (s & 15), ml = m * (s >> 4);
                    float *y = ROW(k, c, 256) + 32 * ib + 16 * h;
                    for (int i = 0; i < 4; i++) {
                        uint8_t q = qs[32 * ib + 16 * h + 4 * k + i];
                        for (int f = 0; f < 4; f++)
                            y[4 * f + i] = dl * ((q >> (2 * f)) & 3) - ml;
                    }
                }
        }
    }
}

/* Q3_K_R4: 4 rows, column of 440 bytes: d[4] fp16, scales_h[16] (sh),
 * scales_l[32] (sl), qh[128], qs[256]. The 6-bit scale of row k's 16 values
 * 16h .. 16h+15 of sub-block ib is n = 8ib + 4h + k: 4-bit field n of sl plus
 * 2-bit field n of sh (ggi_field planes), minus 32. The third bit of value
 * 16h + 4s + i is bit 4h + s of qh[16ib + 4k + i].
 * value = (d * (sc - 32)) * (q3 - 4). */
static void q3_k_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                    int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_q3_k_r4 *b = (const col_q3_k_r4 *)src + c;
        const uint8_t *sh = b->scales_h, *sl = b->scales_l, *qh = b->qh, *qs = b->qs;
        for (int k = 0; k < 4; k++) {
            float d = gg_rdf16(b->d[k]);
            for (int ib = 0; ib < 8; ib++)
                for (int h = 0; h < 2; h++) {
                    unsigned n = 8 * ib + 4 * h + k;
                    int s = (int)(ggi_field(sl, n, 32, 4) | ggi_field(sh, n, 16, 2) << 4);
                    float dl = d * (s - 32), *y = ROW(k, c, 256) + 32 * ib + 16 * h;
                    for (int i = 0; i < 4; i++) {
                        uint8_t q = qs[32 * ib + 16 * h + 4 * k + i], hb = qh[16 * ib + 4 * k + i];
                        for (int f = 0; f < 4; f++) {
                            int v = ((q >> (2 * f)) & 3) | ((hb >> (4 * h + f)) & 1) << 2;
                            y[4 * f + i] = dl * (v - 4);
                        }
                    }
                }
        }
    }
}

/* Q4_K_R4: 4 rows, column of 576 bytes: dm[8] fp16 (d[4], then dmin[4]),
 * scales_h[16] (sh), scales_l[32] (sl), qs[512]. Sub-block ib of row k has
 * n = 4ib + k: scale = low nibble of sl[n] + 16 * (bits 0-1 of 4-bit field n
 * of sh), min = high nibble of sl[n] + 16 * (bits 2-3 of that field). Its
 * nibbles are the 64 bytes at 64ib of qs in the quad layout.
 * value = (d * scale) * q - (dmin * min). */
static void q4_k_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                    int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_q4_k_r4 *b = (const col_q4_k_r4 *)src + c;
        const uint8_t *sh = b->scales_h, *sl = b->scales_l, *qs = b->qs;
        for (int k = 0; k < 4; k++) {
            float d = gg_rdf16(b->dm[k]), m = gg_rdf16(b->dm[4 + k]);
            for (int ib = 0; ib < 8; ib++) {
                unsigned n = 4 * ib + k, hi = ggi_field(sh, n, 16, 4);
                float dl = d * ((sl[n] & 15) | (hi & 3) << 4);
                float ml = m * ((sl[n] >> 4) | (hi >> 2) << 4);
                float *y = ROW(k, c, 256) + 32 * ib;
                for (int q = 0; q < 4; q++)
                    for (int i = 0; i < 4; i++) {
                        int p = ggi_quad_pos(q) + i;
                        uint8_t l = qs[64 * ib + 16 * q + 4 * k + i];
                        y[p] = dl * (l & 15) - ml;
                        y[p + 8] = dl * (l >> 4) - ml;
                    }
            }
        }
    }
}

/* Q5_K_R4: as Q4_K_R4 plus qh[128] before the 512 nibble bytes
 * (column of 704 bytes: dm[8], scales_h[16], scales_l[32], qh[128], qs[512]).
 * The 5th bit of the value in quad q, nibble x (0 low, 1 high) is bit
 * 4(q%2) + 2(q/2) + x of qh[16ib + 4k + i]. */
static void q5_k_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                    int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_q5_k_r4 *b = (const col_q5_k_r4 *)src + c;
        const uint8_t *sh = b->scales_h, *sl = b->scales_l, *qh = b->qh, *qs = b->qs;
        for (int k = 0; k < 4; k++) {
            float d = gg_rdf16(b->dm[k]), m = gg_rdf16(b->dm[4 + k]);
            for (int ib = 0; ib < 8; ib++) {
                unsigned n = 4 * ib + k, hi = ggi_field(sh, n, 16, 4);
                float dl = d * ((sl[n] & 15) | (hi & 3) << 4);
                float ml = m * ((sl[n] >> 4) | (hi >> 2) << 4);
                float *y = ROW(k, c, 256) + 32 * ib;
                for (int q = 0; q < 4; q++)
                    for (int i = 0; i < 4; i++) {
                        int p = ggi_quad_pos(q) + i, bit = 4 * (q & 1) + 2 * (q >> 1);
                        uint8_t l = qs[64 * ib + 16 * q + 4 * k + i], h = qh[16 * ib + 4 * k + i];
                        y[p] = dl * ((l & 15) | ((h >> bit) & 1) << 4) - ml;
                        y[p + 8] = dl * ((l >> 4) | ((h >> (bit + 1)) & 1) << 4) - ml;
                    }
            }
        }
    }
}

/* Q6_K_R4: 4 rows, column of 840 bytes: d[4] fp16, scales[64] (sc, signed),
 * qh[256], ql[512]. Sub-block ib: row k's values 0..15 have scale
 * sc[8ib + k], values 16..31 sc[8ib + k + 4]. Low nibbles: 64 bytes at 64ib
 * of ql, quad layout. High 2 bits of the value in quad q, nibble x: bits
 * 2(2(q/2) + x) and the next of qh[32ib + 16(q%2) + 4k + i].
 * value = (d * sc) * (q6 - 32). */
static void q6_k_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                    int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_q6_k_r4 *b = (const col_q6_k_r4 *)src + c;
        const uint8_t *sc = b->scales, *qh = b->qh, *ql = b->ql;
        for (int k = 0; k < 4; k++) {
            float d = gg_rdf16(b->d[k]);
            for (int ib = 0; ib < 8; ib++) {
                float dl[2] = {d * (int8_t)sc[8 * ib + k], d * (int8_t)sc[8 * ib + k + 4]};
                float *y = ROW(k, c, 256) + 32 * ib;
                for (int q = 0; q < 4; q++)
                    for (int i = 0; i < 4; i++) {
                        int p = ggi_quad_pos(q) + i, s = 4 * (q >> 1);
                        uint8_t l = ql[64 * ib + 16 * q + 4 * k + i];
                        uint8_t h = qh[32 * ib + 16 * (q & 1) + 4 * k + i];
                        y[p] = dl[q & 1] * (((l & 15) | ((h >> s) & 3) << 4) - 32);
                        y[p + 8] = dl[q & 1] * (((l >> 4) | ((h >> (s + 2)) & 3) << 4) - 32);
                    }
            }
        }
    }
}

/* IQ2_XXS_R4: 4 rows, column of 264 bytes: d[4] fp16, sas[128], qs[128].
 * Sub-block ib of row k: grid bytes qs[16ib + 4k + g] (g = 0..3, iq2xxs_grid,
 * 8 values each) and the 4 bytes sas[16ib + 4k + g]. Bit 0 of sas byte g is
 * bit g of the 4-bit scale s; with t = that byte without bit 0, bit j of
 * t ^ (t >> 1) is the sign of value 8g + j. d' = 0.125 * d;
 * value = ((d' * (2s + 1)) * grid) * (+/-1). */
static void iq2_xxs_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                       int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq2_xxs_r4 *b = (const col_iq2_xxs_r4 *)src + c;
        const uint8_t *sas = b->sas, *qs = b->qs;
        for (int k = 0; k < 4; k++) {
            float d = 0.125f * gg_rdf16(b->d[k]);
            for (int ib = 0; ib < 8; ib++) {
                const uint8_t *a = sas + 16 * ib + 4 * k;
                int s = (a[0] & 1) | (a[1] & 1) << 1 | (a[2] & 1) << 2 | (a[3] & 1) << 3;
                float dl = d * (2 * s + 1), *y = ROW(k, c, 256) + 32 * ib;
                for (int g = 0; g < 4; g++) {
                    unsigned t = a[g] & 0xfe, signs = t ^ (t >> 1);
                    uint64_t e = gg_iq2xxs_grid[qs[16 * ib + 4 * k + g]];
                    for (int j = 0; j < 8; j++)
                        y[8 * g + j] = dl * ggi_s8(e, j) * ((signs >> j) & 1 ? -1 : 1);
                }
            }
        }
    }
}

/* IQ2_XS_R4: 4 rows, column of 296 bytes: d[4] fp16, qs[128]
 * (little-endian 16-bit words), scales[32] (sc). Word qs[16ib + 4k + g]: bits
 * 0..8 index iq2xs_grid (values 8g .. 8g+7 of sub-block ib), bits 9..15 a
 * 7-bit code t; bit j of t ^ (t << 1) is the sign of value 8g + j. Scale byte
 * sc[4ib + k]: low nibble for groups 0-1, high nibble for groups 2-3.
 * d' = 0.125 * d; value = ((d' * (2s + 1)) * grid) * (+/-1). */
static void iq2_xs_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                      int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq2_xs_r4 *b = (const col_iq2_xs_r4 *)src + c;
        const uint8_t *sc = b->scales;
        for (int k = 0; k < 4; k++) {
            float d = 0.125f * gg_rdf16(b->d[k]);
            for (int ib = 0; ib < 8; ib++) {
                uint8_t s = sc[4 * ib + k];
                float dl[2] = {d * (2 * (s & 15) + 1), d * (2 * (s >> 4) + 1)};
                float *y = ROW(k, c, 256) + 32 * ib;
                for (int g = 0; g < 4; g++) {
                    unsigned w = gg_rd16(b->qs[16 * ib + 4 * k + g]);
                    unsigned t = w >> 9, signs = t ^ (t << 1);
                    uint64_t e = gg_iq2xs_grid[w & 511];
                    for (int j = 0; j < 8; j++)
                        y[8 * g + j] = dl[g >> 1] * ggi_s8(e, j) * ((signs >> j) & 1 ? -1 : 1);
                }
            }
        }
    }
}

/* IQ2_S_R4: 4 rows, column of 328 bytes: d[4] fp16, qs[128], qh[32],
 * signs[128] (sg), scales[32] (sc). Group g of sub-block ib, row k: grid index
 * qs[16ib + 4k + g] + 256 * (bits 2g, 2g+1 of qh[4ib + k]) into iq2s_grid,
 * sign bits signs[16ib + 4k + g]; scales as IQ2_XS_R4. */
static void iq2_s_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                     int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq2_s_r4 *b = (const col_iq2_s_r4 *)src + c;
        const uint8_t *qs = b->qs, *qh = b->qh, *sg = b->signs, *sc = b->scales;
        for (int k = 0; k < 4; k++) {
            float d = 0.125f * gg_rdf16(b->d[k]);
            for (int ib = 0; ib < 8; ib++) {
                uint8_t s = sc[4 * ib + k];
                float dl[2] = {d * (2 * (s & 15) + 1), d * (2 * (s >> 4) + 1)};
                float *y = ROW(k, c, 256) + 32 * ib;
                for (int g = 0; g < 4; g++) {
                    int n = 16 * ib + 4 * k + g;
                    uint64_t e = gg_iq2s_grid[qs[n] | ((qh[4 * ib + k] >> (2 * g)) & 3) << 8];
                    for (int j = 0; j < 8; j++)
                        y[8 * g + j] = dl[g >> 1] * ggi_s8(e, j) * ((sg[n] >> j) & 1 ? -1 : 1);
                }
            }
        }
    }
}

/* IQ3_XXS_R4: 4 rows, column of 392 bytes: d[4] fp16, sas[128], qs[256].
 * Sub-block ib of row k: 8 grid bytes qs[32ib + 8k + g] (iq3xxs_grid, 4
 * values each) and sas bytes 16ib + 4k + 0..3 as in IQ2_XXS_R4 (scale bits
 * in bit 0); sas byte a's transformed sign byte t ^ (t >> 1) covers groups
 * 2a (low nibble) and 2a + 1 (high nibble). d' = 0.25 * d. */
static void iq3_xxs_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                       int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq3_xxs_r4 *b = (const col_iq3_xxs_r4 *)src + c;
        const uint8_t *sas = b->sas, *qs = b->qs;
        for (int k = 0; k < 4; k++) {
            float d = 0.25f * gg_rdf16(b->d[k]);
            for (int ib = 0; ib < 8; ib++) {
                const uint8_t *a = sas + 16 * ib + 4 * k;
                int s = (a[0] & 1) | (a[1] & 1) << 1 | (a[2] & 1) << 2 | (a[3] & 1) << 3;
                float dl = d * (2 * s + 1), *y = ROW(k, c, 256) + 32 * ib;
                for (int g = 0; g < 8; g++) {
                    unsigned t = a[g >> 1] & 0xfe, signs = (t ^ (t >> 1)) >> (4 * (g & 1));
                    uint32_t e = gg_iq3xxs_grid[qs[32 * ib + 8 * k + g]];
                    for (int j = 0; j < 4; j++)
                        y[4 * g + j] = dl * ggi_s8(e, j) * ((signs >> j) & 1 ? -1 : 1);
                }
            }
        }
    }
}

/* IQ3_S_R4: 4 rows, column of 440 bytes: d[4] fp16, qs[256], qh[32],
 * signs[128] (sg), scales[16] (sc). Sub-block ib of row k: scale = 4-bit
 * field 4ib + k of sc (planes of 16), dl = d * (1 + 2 * scale). For i = 0..3:
 * values 4i + j come from
 * iq3s_grid[qs[32ib + 8i + k] + 256 * bit i of qh[4ib + k]] with sign bit i
 * of signs[16ib + 4k + j]; values 16 + 4i + j from
 * iq3s_grid[qs[32ib + 8i + 4 + k] + 256 * bit i+4 of qh] with sign bit i+4.
 * value = (dl * grid) * (+/-1). */
static void iq3_s_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                     int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq3_s_r4 *b = (const col_iq3_s_r4 *)src + c;
        const uint8_t *qs = b->qs, *qh = b->qh, *sg = b->signs, *sc = b->scales;
        for (int k = 0; k < 4; k++) {
            float d = gg_rdf16(b->d[k]);
            for (int ib = 0; ib < 8; ib++) {
                float dl = d * (1 + 2 * (int)ggi_field(sc, 4 * ib + k, 16, 4));
                const uint8_t *s = sg + 16 * ib + 4 * k;
                uint8_t h = qh[4 * ib + k];
                float *y = ROW(k, c, 256) + 32 * ib;
                for (int i = 0; i < 4; i++) {
                    uint32_t e1 = gg_iq3s_grid[qs[32 * ib + 8 * i + k] | ((h >> i) & 1) << 8];
                    uint32_t e2 = gg_iq3s_grid[qs[32 * ib + 8 * i + 4 + k] | ((h >> (i + 4)) & 1) << 8];
                    for (int j = 0; j < 4; j++) {
                        y[4 * i + j] = dl * ggi_u8(e1, j) * ((s[j] >> i) & 1 ? -1 : 1);
                        y[16 + 4 * i + j] = dl * ggi_u8(e2, j) * ((s[j] >> (i + 4)) & 1 ? -1 : 1);
                    }
                }
            }
        }
    }
}

/* IQ4_XS_R8: 8 rows, column of 1088 bytes: d[8] fp16, scales_h[16] (sh),
 * scales_l[32] (sl), qs[1024]. Sub-block ib of row k: n = 8ib + k,
 * scale = 4-bit field n of sl + 16 * 2-bit field n of sh, minus 32. qs byte
 * 128ib + 32l + 4k + i holds row k's values 8l + i (low nibble) and
 * 8l + i + 4 (high nibble). value = (d * (scale - 32)) * iq4k_values[nib]. */
static void iq4_xs_r8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                      int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq4_xs_r8 *b = (const col_iq4_xs_r8 *)src + c;
        const uint8_t *sh = b->scales_h, *sl = b->scales_l, *qs = b->qs;
        for (int k = 0; k < 8; k++) {
            float d = gg_rdf16(b->d[k]);
            for (int ib = 0; ib < 8; ib++) {
                unsigned n = 8 * ib + k;
                int s = (int)(ggi_field(sl, n, 32, 4) | ggi_field(sh, n, 16, 2) << 4);
                float dl = d * (s - 32), *y = ROW(k, c, 256) + 32 * ib;
                for (int l = 0; l < 4; l++)
                    for (int i = 0; i < 4; i++) {
                        uint8_t q = qs[128 * ib + 32 * l + 4 * k + i];
                        y[8 * l + i] = dl * gg_iq4k_values[q & 15];
                        y[8 * l + i + 4] = dl * gg_iq4k_values[q >> 4];
                    }
            }
        }
    }
}

/* IQ2_K_R4: 4 rows, column of 304 bytes: d[4] fp16, extra[8] (ex),
 * scales[32] (sc), qs[256] (2-bit planes). Row k's values 16h .. 16h+15 of
 * sub-block ib: n = 8ib + 4h + k, scale = 4-bit field n of sc minus 8;
 * codebook iq2nl_values, shifted by 4 entries when bit ib of extra[k + 4h] is
 * set. value = (d * (scale - 8)) * codebook[q2]. */
static void iq2_k_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                     int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq2_k_r4 *b = (const col_iq2_k_r4 *)src + c;
        const uint8_t *ex = b->extra, *sc = b->scales, *qs = b->qs;
        for (int k = 0; k < 4; k++) {
            float d = gg_rdf16(b->d[k]);
            for (int ib = 0; ib < 8; ib++)
                for (int h = 0; h < 2; h++) {
                    float dl = d * ((int)ggi_field(sc, 8 * ib + 4 * h + k, 32, 4) - 8);
                    const int8_t *v = gg_iq2nl_values + ((ex[k + 4 * h] >> ib) & 1) * 4;
                    float *y = ROW(k, c, 256) + 32 * ib + 16 * h;
                    for (int i = 0; i < 4; i++) {
                        uint8_t q = qs[32 * ib + 16 * h + 4 * k + i];
                        for (int f = 0; f < 4; f++)
                            y[4 * f + i] = dl * v[(q >> (2 * f)) & 3];
                    }
                }
        }
    }
}

/* IQ3_K_R4: 4 rows, column of 440 bytes: d[4] fp16, extra[8] (ex),
 * scales_h[8] (sh), scales_l[32] (sl), qs[256] (2-bit planes), qh[128].
 * Values 16h .. of sub-block ib, n = 8ib + 4h + k:
 * scale = 2 * (4-bit field n of sl) + 1, negated when the 1-bit field n of sh
 * (planes of 8) is set; codebook iq3nl_values, shifted by 8 when bit ib of
 * extra[k + 4h] is set. The 3rd index bit of value 16h + 4s + i is bit 4h + s
 * of qh[16ib + 4k + i]. value = ((d * (2l + 1)) * (+/-1)) * codebook[q3]. */
static void iq3_k_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                     int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq3_k_r4 *b = (const col_iq3_k_r4 *)src + c;
        const uint8_t *ex = b->extra, *sh = b->scales_h, *sl = b->scales_l, *qs = b->qs, *qh = b->qh;
        for (int k = 0; k < 4; k++) {
            float d = gg_rdf16(b->d[k]);
            for (int ib = 0; ib < 8; ib++)
                for (int h = 0; h < 2; h++) {
                    unsigned n = 8 * ib + 4 * h + k;
                    float dl = d * (2 * (int)ggi_field(sl, n, 32, 4) + 1) * (ggi_field(sh, n, 8, 1) ? -1 : 1);
                    const int8_t *v = gg_iq3nl_values + ((ex[k + 4 * h] >> ib) & 1) * 8;
                    float *y = ROW(k, c, 256) + 32 * ib + 16 * h;
                    for (int i = 0; i < 4; i++) {
                        uint8_t q = qs[32 * ib + 16 * h + 4 * k + i], hb = qh[16 * ib + 4 * k + i];
                        for (int f = 0; f < 4; f++)
                            y[4 * f + i] = dl * v[((q >> (2 * f)) & 3) | ((hb >> (4 * h + f)) & 1) << 2];
                    }
                }
        }
    }
}

/* IQ4_K_R4 / IQ5_K_R4 scales: d[4] fp16, extra[8], scales_h[16] (sh),
 * scales_l[32] (sl); an IQ5_K_R4 column is an IQ4_K_R4 column followed by
 * qh, so both are read here as a col_iq4_k_r4. Values 16h .. of sub-block ib
 * (h = 0: quads 0 and 2, h = 1: quads 1 and 3) use n = 8ib + 4h + k:
 * scale = 4-bit field n of sl + 16 * 2-bit field n of sh, minus 32, and the
 * codebook half selected by bit ib of extra[k + 4h]. */
static float ik_k_scale(const col_iq4_k_r4 *b, int k, int ib, int h, int *alt)
{
    const uint8_t *ex = b->extra, *sh = b->scales_h, *sl = b->scales_l;
    unsigned n = 8 * ib + 4 * h + k;
    *alt = (ex[k + 4 * h] >> ib) & 1;
    return gg_rdf16(b->d[k]) * ((int)(ggi_field(sl, n, 32, 4) | ggi_field(sh, n, 16, 2) << 4) - 32);
}

/* IQ4_K_R4: column of 576 bytes: the scales above, then qs[512] (quad
 * layout, 64 bytes per sub-block). value = dl * iq4k_values[16 alt + nib]. */
static void iq4_k_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                     int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq4_k_r4 *b = (const col_iq4_k_r4 *)src + c;
        const uint8_t *qs = b->qs;
        for (int k = 0; k < 4; k++)
            for (int ib = 0; ib < 8; ib++) {
                int alt[2];
                float dl[2] = {ik_k_scale(b, k, ib, 0, &alt[0]), ik_k_scale(b, k, ib, 1, &alt[1])};
                float *y = ROW(k, c, 256) + 32 * ib;
                for (int q = 0; q < 4; q++) {
                    const int8_t *v = gg_iq4k_values + 16 * alt[q & 1];
                    for (int i = 0; i < 4; i++) {
                        int p = ggi_quad_pos(q) + i;
                        uint8_t l = qs[64 * ib + 16 * q + 4 * k + i];
                        y[p] = dl[q & 1] * v[l & 15];
                        y[p + 8] = dl[q & 1] * v[l >> 4];
                    }
                }
            }
    }
}

/* IQ5_K_R4: column of 704 bytes: the scales above, qs[512] (quad layout),
 * qh[128]. The 5th index bit of the value in quad q, nibble x is bit
 * 2q + x of qh[16ib + 4k + i]. value = dl * iq5nl_values[32 alt + q5]. */
static void iq5_k_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                     int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq5_k_r4 *b = (const col_iq5_k_r4 *)src + c;
        const col_iq4_k_r4 *b4 = (const col_iq4_k_r4 *)b; /* the same scale fields */
        const uint8_t *qs = b->qs, *qh = b->qh;
        for (int k = 0; k < 4; k++)
            for (int ib = 0; ib < 8; ib++) {
                int alt[2];
                float dl[2] = {ik_k_scale(b4, k, ib, 0, &alt[0]), ik_k_scale(b4, k, ib, 1, &alt[1])};
                float *y = ROW(k, c, 256) + 32 * ib;
                for (int q = 0; q < 4; q++) {
                    const int8_t *v = gg_iq5nl_values + 32 * alt[q & 1];
                    for (int i = 0; i < 4; i++) {
                        int p = ggi_quad_pos(q) + i;
                        uint8_t l = qs[64 * ib + 16 * q + 4 * k + i], h = qh[16 * ib + 4 * k + i];
                        y[p] = dl[q & 1] * v[(l & 15) | ((h >> (2 * q)) & 1) << 4];
                        y[p + 8] = dl[q & 1] * v[(l >> 4) | ((h >> (2 * q + 1)) & 1) << 4];
                    }
                }
            }
    }
}

/* IQ4_KS_R4: meta = 4 float32 row scales d[k]. Column of 544 bytes:
 * scales[32], qs[512] (quad layout). Sub-block ib of row k:
 * s = scales[4ib + k]; dl = d * ((s & 254) - 127), codebook
 * iq4k_values + 16 * (s & 1). */
static void iq4_ks_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                      int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq4_ks_r4 *b = (const col_iq4_ks_r4 *)src + c;
        const uint8_t *qs = b->qs;
        for (int k = 0; k < 4; k++) {
            float d = gg_rdf32(meta + 4 * k);
            for (int ib = 0; ib < 8; ib++) {
                uint8_t s = b->scales[4 * ib + k];
                float dl = d * ((s & 254) - 127), *y = ROW(k, c, 256) + 32 * ib;
                const int8_t *v = gg_iq4k_values + 16 * (s & 1);
                for (int q = 0; q < 4; q++)
                    for (int i = 0; i < 4; i++) {
                        int p = ggi_quad_pos(q) + i;
                        uint8_t l = qs[64 * ib + 16 * q + 4 * k + i];
                        y[p] = dl * v[l & 15];
                        y[p + 8] = dl * v[l >> 4];
                    }
            }
        }
    }
}

/* IQ5_KS_R4: meta = 4 float32 row scales. Column of 672 bytes: scales[32],
 * qs[512] (quad layout), qh[128] (5th bits as in IQ5_K_R4). Scales as
 * IQ4_KS_R4, codebook iq5nl_values + 32 * (s & 1). */
static void iq5_ks_r4(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                      int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_iq5_ks_r4 *b = (const col_iq5_ks_r4 *)src + c;
        const uint8_t *qs = b->qs, *qh = b->qh;
        for (int k = 0; k < 4; k++) {
            float d = gg_rdf32(meta + 4 * k);
            for (int ib = 0; ib < 8; ib++) {
                uint8_t s = b->scales[4 * ib + k];
                float dl = d * ((s & 254) - 127), *y = ROW(k, c, 256) + 32 * ib;
                const int8_t *v = gg_iq5nl_values + 32 * (s & 1);
                for (int q = 0; q < 4; q++)
                    for (int i = 0; i < 4; i++) {
                        int p = ggi_quad_pos(q) + i;
                        uint8_t l = qs[64 * ib + 16 * q + 4 * k + i], h = qh[16 * ib + 4 * k + i];
                        y[p] = dl * v[(l & 15) | ((h >> (2 * q)) & 1) << 4];
                        y[p + 8] = dl * v[(l >> 4) | ((h >> (2 * q + 1)) & 1) << 4];
                    }
            }
        }
    }
}

/* Q8_K_R8: 8 rows, column of 2064 bytes: d[8] fp16, qs[2048] (signed); qs
 * byte 32j + 4k + i (j = 0..63) is row k's value 4j + i. value = d * q. */
static void q8_k_r8(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                    int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_q8_k_r8 *b = (const col_q8_k_r8 *)src + c;
        const uint8_t *qs = b->qs;
        for (int k = 0; k < 8; k++) {
            float d = gg_rdf16(b->d[k]), *y = ROW(k, c, 256);
            for (int j = 0; j < 64; j++)
                for (int i = 0; i < 4; i++)
                    y[4 * j + i] = d * (int8_t)qs[32 * j + 4 * k + i];
        }
    }
}

/* Q8_K_R16: 16 rows, column of 4128 bytes: d[16] fp16, qs[4096] (unsigned);
 * qs byte 64j + 4k + i is row k's value 4j + i, stored with +128.
 * value = d * q + (-128 * d). */
static void q8_k_r16(const uint8_t *meta, const uint8_t *src, float *dst, int64_t nblocks,
                     int64_t dst_stride)
{
    for (int64_t c = 0; c < nblocks; c++) {
        const col_q8_k_r16 *b = (const col_q8_k_r16 *)src + c;
        const uint8_t *qs = b->qs;
        for (int k = 0; k < 16; k++) {
            float d = gg_rdf16(b->d[k]), m = -128.f * d, *y = ROW(k, c, 256);
            for (int j = 0; j < 64; j++)
                for (int i = 0; i < 4; i++)
                    y[4 * j + i] = d * qs[64 * j + 4 * k + i] + m;
        }
    }
}

const gg_kernel_entry gg_kernels_ik_interleaved[] = {
    {GG_T_Q4_0_R8, GG_ISA_SCALAR, q4_0_r8},
    {GG_T_Q5_0_R4, GG_ISA_SCALAR, q5_0_r4},
    {GG_T_Q6_0_R4, GG_ISA_SCALAR, q6_0_r4},
    {GG_T_Q8_0_R8, GG_ISA_SCALAR, q8_0_r8},
    {GG_T_IQ4_NL_R4, GG_ISA_SCALAR, iq4_nl_r4},
    {GG_T_MXFP4_R8, GG_ISA_SCALAR, mxfp4_r8},
    {GG_T_IQ1_S_R4, GG_ISA_SCALAR, iq1_s_r4},
    {GG_T_IQ1_M_R4, GG_ISA_SCALAR, iq1_m_r4},
    {GG_T_Q8_KV_R8, GG_ISA_SCALAR, q8_kv_r8},
    {GG_T_IQ2_BN_R4, GG_ISA_SCALAR, iq2_bn_r4},
    {GG_T_Q2_K_R4, GG_ISA_SCALAR, q2_k_r4},
    {GG_T_Q3_K_R4, GG_ISA_SCALAR, q3_k_r4},
    {GG_T_Q4_K_R4, GG_ISA_SCALAR, q4_k_r4},
    {GG_T_Q5_K_R4, GG_ISA_SCALAR, q5_k_r4},
    {GG_T_Q6_K_R4, GG_ISA_SCALAR, q6_k_r4},
    {GG_T_IQ2_XXS_R4, GG_ISA_SCALAR, iq2_xxs_r4},
    {GG_T_IQ2_XS_R4, GG_ISA_SCALAR, iq2_xs_r4},
    {GG_T_IQ2_S_R4, GG_ISA_SCALAR, iq2_s_r4},
    {GG_T_IQ3_XXS_R4, GG_ISA_SCALAR, iq3_xxs_r4},
    {GG_T_IQ3_S_R4, GG_ISA_SCALAR, iq3_s_r4},
    {GG_T_IQ4_XS_R8, GG_ISA_SCALAR, iq4_xs_r8},
    {GG_T_IQ2_K_R4, GG_ISA_SCALAR, iq2_k_r4},
    {GG_T_IQ3_K_R4, GG_ISA_SCALAR, iq3_k_r4},
    {GG_T_IQ4_K_R4, GG_ISA_SCALAR, iq4_k_r4},
    {GG_T_IQ5_K_R4, GG_ISA_SCALAR, iq5_k_r4},
    {GG_T_IQ4_KS_R4, GG_ISA_SCALAR, iq4_ks_r4},
    {GG_T_IQ5_KS_R4, GG_ISA_SCALAR, iq5_ks_r4},
    {GG_T_Q8_K_R8, GG_ISA_SCALAR, q8_k_r8},
    {GG_T_Q8_K_R16, GG_ISA_SCALAR, q8_k_r16},
    {0},
};
