/* blocks.h - the stored block of every quantized format, one struct each,
 * shared by the scalar and SIMD kernels.
 *
 * Fields are byte arrays in the order the format stores them, so a struct
 * has alignment 1 and overlays any byte of a tensor; multi-byte fields are
 * little-endian and read with gg_rd16 / gg_rd32 / gg_rdf16 (gguffs/fp16.h).
 * Sizes are asserted against the type table's block_bytes (for the _Rn
 * types: one column of R rows). What the bits mean is told at each scalar
 * kernel. */
#ifndef GGUFFS_DECODE_BLOCKS_H
#define GGUFFS_DECODE_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#define GG_BLOCK(name, bytes, ...)          \
    typedef struct name __VA_ARGS__ name;   \
    _Static_assert(sizeof(name) == (bytes), #name " is " #bytes " bytes")

/* ---- legacy (legacy.c): 32 values ---- */
GG_BLOCK(blk_q4_0, 18, { uint8_t d[2], qs[16]; });
GG_BLOCK(blk_q4_1, 20, { uint8_t d[2], m[2], qs[16]; });
GG_BLOCK(blk_q5_0, 22, { uint8_t d[2], qh[4], qs[16]; });
GG_BLOCK(blk_q5_1, 24, { uint8_t d[2], m[2], qh[4], qs[16]; });
GG_BLOCK(blk_q8_0, 34, { uint8_t d[2], qs[32]; });
GG_BLOCK(blk_q8_1, 36, { uint8_t d[2], s[2], qs[32]; });

/* ---- K super-blocks (kquants.c): 256 values ---- */
GG_BLOCK(blk_q2_k, 84, { uint8_t scales[16], qs[64], d[2], dmin[2]; });
GG_BLOCK(blk_q3_k, 110, { uint8_t hmask[32], qs[64], scales[12], d[2]; });
GG_BLOCK(blk_q4_k, 144, { uint8_t d[2], dmin[2], scales[12], qs[128]; });
GG_BLOCK(blk_q5_k, 176, { uint8_t d[2], dmin[2], scales[12], qh[32], qs[128]; });
GG_BLOCK(blk_q6_k, 210, { uint8_t ql[128], qh[64], scales[16], d[2]; });
GG_BLOCK(blk_q8_k, 292, { uint8_t d[4], qs[256], bsums[32]; }); /* d: float32 */

/* ---- importance quants (iquants.c) ---- */
GG_BLOCK(blk_iq2_xxs, 66, { uint8_t d[2], qs[64]; });
GG_BLOCK(blk_iq2_xs, 74, { uint8_t d[2], qs[64], scales[8]; });
GG_BLOCK(blk_iq2_s, 82, { uint8_t d[2], qs[32], signs[32], qh[8], scales[8]; });
GG_BLOCK(blk_iq3_xxs, 98, { uint8_t d[2], qs[64], sas[32]; });
GG_BLOCK(blk_iq3_s, 110, { uint8_t d[2], qs[64], qh[8], signs[32], scales[4]; });
GG_BLOCK(blk_iq1_s, 50, { uint8_t d[2], qs[32], qh[16]; });
GG_BLOCK(blk_iq1_m, 56, { uint8_t qs[32], qh[16], scales[8]; });
GG_BLOCK(blk_iq4_nl, 18, { uint8_t d[2], qs[16]; });
GG_BLOCK(blk_iq4_xs, 136, { uint8_t d[2], scales_h[2], scales_l[4], qs[128]; });

/* ---- ternary and 1-/2-bit (ternary.c) ---- */
GG_BLOCK(blk_tq1_0, 54, { uint8_t qs[48], qh[4], d[2]; });
GG_BLOCK(blk_tq2_0, 66, { uint8_t qs[64], d[2]; });
GG_BLOCK(blk_q1_0, 18, { uint8_t d[2], qs[16]; });
GG_BLOCK(blk_q2_0, 18, { uint8_t d[2], qs[16]; });

/* ---- 4-bit floats (fp4.c) ---- */
GG_BLOCK(blk_mxfp4, 17, { uint8_t e, qs[16]; });
GG_BLOCK(blk_nvfp4, 36, { uint8_t d[4], qs[32]; }); /* d: four UE4M3 bytes */

/* ---- ik_llama.cpp K types and Q6_0 (ik_k.c); the _KS/_KSS/_KL row scale
 * is row metadata, not part of the block ---- */
GG_BLOCK(blk_q6_0, 26, { uint8_t d[2], qh[8], qs[16]; });
GG_BLOCK(blk_iq2_k, 76, { uint8_t d[2], extra[2], scales[8], qs[64]; });
GG_BLOCK(blk_iq3_k, 110, { uint8_t d[2], extra[2], scales_h[2], scales_l[8], qs[64], qh[32]; });
GG_BLOCK(blk_iq4_k, 144, { uint8_t d[2], extra[2], scales_h[4], scales_l[8], qs[128]; });
GG_BLOCK(blk_iq5_k, 176, { uint8_t d[2], extra[2], scales_h[4], scales_l[8], qs[128], qh[32]; });
GG_BLOCK(blk_iq6_k, 212, { uint8_t d[2], extra[2], scales[16], qs[128], qh[64]; });
GG_BLOCK(blk_iq2_ks, 70, { uint8_t extra[2], scales[4], qs[64]; });
GG_BLOCK(blk_iq3_ks, 102, { uint8_t extra[2], scales[4], qs[64], qh[32]; });
GG_BLOCK(blk_iq4_ks, 136, { uint8_t scales[8], qs[128]; });
GG_BLOCK(blk_iq4_kss, 128, { uint8_t qs[128]; });
GG_BLOCK(blk_iq5_ks, 168, { uint8_t scales[8], qs[128], qh[32]; });
GG_BLOCK(blk_iq2_kl, 86, { uint8_t scales_h[2], scales_l[4], qs[64], qh[16]; });

/* ---- trellis types (ik_kt.c) ---- */
GG_BLOCK(blk_iq1_kt, 56, { uint8_t sh[8], ql[32], qh[16]; });
GG_BLOCK(blk_iq2_kt, 68, { uint8_t scales[4], ql[64]; });
GG_BLOCK(blk_iq3_kt, 100, { uint8_t scales[4], ql[64], qh[32]; });
GG_BLOCK(blk_iq4_kt, 128, { uint8_t w[32], ql[64], qh[32]; });

/* ---- BitNet (ik_bn.c): 64 values ---- */
GG_BLOCK(blk_iq1_bn, 13, { uint8_t ql[12], extra; });
GG_BLOCK(blk_iq2_bn, 16, { uint8_t qs[16]; });

/* ---- fork formats (forks.c) ---- */
GG_BLOCK(blk_stq1_0, 42, { uint8_t qs[32], sign[8], d[2]; });
GG_BLOCK(blk_ptq1_0, 28, { uint8_t qs[24], qh[2], d[2]; });
GG_BLOCK(blk_pq2_0, 34, { uint8_t d[2], qs[32]; });

/* ---- others (ik_misc.c) ---- */
GG_BLOCK(blk_i2_s, 32, { uint8_t qs[32]; });

/* ---- row-interleaved columns (ik_interleaved.c): R rows of one block,
 * in the order of the kernels there; dm = the R d, then the R dmin ---- */
GG_BLOCK(col_q4_0_r8, 8 * 18, { uint8_t d[8][2], qs[128]; });
GG_BLOCK(col_q5_0_r4, 4 * 22, { uint8_t d[4][2], qh[16], qs[64]; });
GG_BLOCK(col_q6_0_r4, 4 * 26, { uint8_t d[4][2], qh[32], qs[64]; });
GG_BLOCK(col_q8_0_r8, 8 * 34, { uint8_t d[8][2], qs[256]; });
GG_BLOCK(col_iq4_nl_r4, 4 * 18, { uint8_t d[4][2], qs[64]; });
GG_BLOCK(col_mxfp4_r8, 8 * 17, { uint8_t e[8], qs[128]; });
GG_BLOCK(col_iq1_s_r4, 4 * 6, { uint8_t qs[16], qh[4][2]; }); /* qh: 16-bit words */
GG_BLOCK(col_iq1_m_r4, 4 * 7, { uint8_t qs[16], qh[8], scales[4]; });
GG_BLOCK(col_q8_kv_r8, 8 * 32, { uint8_t qs[256]; });
GG_BLOCK(col_iq2_bn_r4, 4 * 16, { uint8_t qs[64]; });
GG_BLOCK(col_q2_k_r4, 4 * 84, { uint8_t dm[8][2], scales[64], qs[256]; });
GG_BLOCK(col_q3_k_r4, 4 * 110, { uint8_t d[4][2], scales_h[16], scales_l[32], qh[128], qs[256]; });
GG_BLOCK(col_q4_k_r4, 4 * 144, { uint8_t dm[8][2], scales_h[16], scales_l[32], qs[512]; });
GG_BLOCK(col_q5_k_r4, 4 * 176, { uint8_t dm[8][2], scales_h[16], scales_l[32], qh[128], qs[512]; });
GG_BLOCK(col_q6_k_r4, 4 * 210, { uint8_t d[4][2], scales[64], qh[256], ql[512]; });
GG_BLOCK(col_iq2_xxs_r4, 4 * 66, { uint8_t d[4][2], sas[128], qs[128]; });
GG_BLOCK(col_iq2_xs_r4, 4 * 74, { uint8_t d[4][2], qs[128][2], scales[32]; }); /* qs: 16-bit words */
GG_BLOCK(col_iq2_s_r4, 4 * 82, { uint8_t d[4][2], qs[128], qh[32], signs[128], scales[32]; });
GG_BLOCK(col_iq3_xxs_r4, 4 * 98, { uint8_t d[4][2], sas[128], qs[256]; });
GG_BLOCK(col_iq3_s_r4, 4 * 110, { uint8_t d[4][2], qs[256], qh[32], signs[128], scales[16]; });
GG_BLOCK(col_iq4_xs_r8, 8 * 136, { uint8_t d[8][2], scales_h[16], scales_l[32], qs[1024]; });
GG_BLOCK(col_iq2_k_r4, 4 * 76, { uint8_t d[4][2], extra[8], scales[32], qs[256]; });
GG_BLOCK(col_iq3_k_r4, 4 * 110, { uint8_t d[4][2], extra[8], scales_h[8], scales_l[32], qs[256], qh[128]; });
GG_BLOCK(col_iq4_k_r4, 4 * 144, { uint8_t d[4][2], extra[8], scales_h[16], scales_l[32], qs[512]; });
GG_BLOCK(col_iq5_k_r4, 4 * 176, { uint8_t d[4][2], extra[8], scales_h[16], scales_l[32], qs[512], qh[128]; });
_Static_assert(offsetof(col_iq5_k_r4, qh) == sizeof(col_iq4_k_r4), "IQ5_K_R4 = IQ4_K_R4 and qh");
GG_BLOCK(col_iq4_ks_r4, 4 * 136, { uint8_t scales[32], qs[512]; });
GG_BLOCK(col_iq5_ks_r4, 4 * 168, { uint8_t scales[32], qs[512], qh[128]; });
GG_BLOCK(col_q8_k_r8, 8 * 258, { uint8_t d[8][2], qs[2048]; });
GG_BLOCK(col_q8_k_r16, 16 * 258, { uint8_t d[16][2], qs[4096]; });

#endif
