/* ik_k.c - the ik_llama.cpp fork's non-linear "K" types and Q6_0 (scalar).
 *
 * Superblocks hold 256 values. Their integer codes index small tables of
 * signed bytes (src/decode/tables.h); a bit per 16 or 32 values ("extra", or
 * bit 0 of a scale byte) picks the second half of the table, which is the
 * first half shifted by a few units. Every value is
 *     dl * (float)table[code]        with dl = d * (float)scale_code
 * (two roundings, in that order; see ik_k.h for the scales). IQ6_K computes
 * its values with a cubic polynomial instead (see there).
 *
 * The "_KS"/"_KSS"/"_KL" types store one row scale d in front of each row
 * (float16 for IQ2_KS, IQ3_KS, IQ2_KL; float32 for IQ4_KS, IQ4_KSS, IQ5_KS):
 * the core passes it as `meta`. The others carry a float16 d per superblock.
 *
 * Byte offsets in the comments are from the start of a block. */
#include <math.h>

#include "gguffs/decode.h"
#include "families.h"
#include "gguffs/fp16.h"
#include "ik_k.h"
#include "tables.h"

/* Q6_0, 32 values in 26 bytes: d (f16), qh[8] at 2, qs[16] at 10.
 * Value j (0..15) is the low nibble of qs[j], value j+16 the high nibble;
 * their bits 4..5 are bits 4(j/8)..+1 and 4(j/8)+2..+3 of qh[j%8].
 * Code minus 32, times d. */
static void dec_q6_0(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const blk_q6_0 *b = (const blk_q6_0 *)src;
    for (int64_t k = 0; k < n; k++, b++, dst += 32) {
        const float d = gg_rdf16(b->d);
        const uint8_t *qh = b->qh, *qs = b->qs;
        /* Whole: j % 8 and j / 8 become constants (+35 %). */
#pragma GCC unroll 16
        for (int j = 0; j < 16; j++) {
            int h = qh[j % 8] >> 4 * (j / 8);
            int lo = (qs[j] & 15) | (h & 3) << 4;
            int hi = (qs[j] >> 4) | (h >> 2 & 3) << 4;
            dst[j] = (float)(lo - 32) * d;
            dst[j + 16] = (float)(hi - 32) * d;
        }
    }
}

/* IQ2_K, 256 values in 76 bytes: d (f16), extra (u16) at 2, scales[8] at 4,
 * qs[64] at 12. 2-bit codes: value i is bits 2((i/32)%4)..+1 of
 * qs[32(i/128) + i%32]. Per 16 values s = i/16: scale nibble s, table
 * iq2nl_values + 4*(bit s of extra). */
static void dec_iq2_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const blk_iq2_k *b = (const blk_iq2_k *)src;
    for (int64_t k = 0; k < n; k++, b++, dst += 256) {
        float dl[16];
        ikk_scales_iq2_k(b, dl);
        const unsigned extra = gg_rd16(b->extra);
        const uint8_t *qs = b->qs;
        for (int i = 0; i < 256; i++) {
            const int8_t *tab = gg_iq2nl_values + 4 * ((extra >> (i / 16)) & 1);
            int q = (qs[32 * (i / 128) + i % 32] >> 2 * (i / 32 % 4)) & 3;
            dst[i] = dl[i / 16] * (float)tab[q];
        }
    }
}

/* IQ3_K, 256 values in 110 bytes: d (f16), extra (u16) at 2, scales_h (u16)
 * at 4, scales_l[8] at 6, qs[64] at 14, qh[32] at 78. 3-bit codes: the low 2
 * bits as in IQ2_K, bit 2 is bit i/32 of qh[i%32]. Table iq3nl_values +
 * 8*(bit s of extra). */
static void dec_iq3_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const blk_iq3_k *b = (const blk_iq3_k *)src;
    for (int64_t k = 0; k < n; k++, b++, dst += 256) {
        float dl[16];
        ikk_scales_iq3_k(b, dl);
        const unsigned extra = gg_rd16(b->extra);
        const uint8_t *qs = b->qs, *qh = b->qh;
        for (int i = 0; i < 256; i++) {
            const int8_t *tab = gg_iq3nl_values + 8 * ((extra >> (i / 16)) & 1);
            int q = (qs[32 * (i / 128) + i % 32] >> 2 * (i / 32 % 4)) & 3;
            q |= ((qh[i % 32] >> (i / 32)) & 1) << 2;
            dst[i] = dl[i / 16] * (float)tab[q];
        }
    }
}

/* IQ4_K, 256 values in 144 bytes: d (f16), extra (u16) at 2, scales_h[4] at
 * 4, scales_l[8] at 8, qs[128] at 16. 4-bit codes: in block k of 32 values,
 * value j < 16 is the low nibble of qs[16k + j], value j + 16 its high
 * nibble. Table iq4k_values + 16*(bit s of extra). */
static void dec_iq4_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const blk_iq4_k *b = (const blk_iq4_k *)src;
    for (int64_t k = 0; k < n; k++, b++, dst += 256) {
        float dl[16];
        ikk_scales_iq45_k(b->d, b->scales_h, b->scales_l, dl);
        const unsigned extra = gg_rd16(b->extra);
        const uint8_t *qs = b->qs;
        for (int i = 0; i < 256; i++) {
            const int8_t *tab = gg_iq4k_values + 16 * ((extra >> (i / 16)) & 1);
            int q = (qs[16 * (i / 32) + i % 16] >> 4 * (i / 16 % 2)) & 15;
            dst[i] = dl[i / 16] * (float)tab[q];
        }
    }
}

/* IQ5_K, 256 values in 176 bytes: d (f16), extra (u16) at 2, scales_h[4] at
 * 4, scales_l[8] at 8, qs[128] at 16, qh[32] at 144. 5-bit codes: in block
 * k of 64 values, value j < 32 takes the low nibble of qs[32k + j] and bit
 * 2k of qh[j]; value j + 32 the high nibble and bit 2k+1. Table
 * iq5nl_values + 32*(bit s of extra). */
static void dec_iq5_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const blk_iq5_k *b = (const blk_iq5_k *)src;
    for (int64_t k = 0; k < n; k++, b++, dst += 256) {
        float dl[16];
        ikk_scales_iq45_k(b->d, b->scales_h, b->scales_l, dl);
        const unsigned extra = gg_rd16(b->extra);
        const uint8_t *qs = b->qs, *qh = b->qh;
        for (int i = 0; i < 256; i++) {
            const int8_t *tab = gg_iq5nl_values + 32 * ((extra >> (i / 16)) & 1);
            int h = i / 32; /* 0..7: nibble half and qh bit */
            int q = (qs[32 * (i / 64) + i % 32] >> 4 * (h % 2)) & 15;
            q |= ((qh[i % 32] >> h) & 1) << 4;
            dst[i] = dl[i / 16] * (float)tab[q];
        }
    }
}

/* IQ6_K, 256 values in 212 bytes: d (f16), extra (u16) at 2, scales[16]
 * (signed) at 4, qs[128] at 20, qh[64] at 148. 6-bit codes: in block k of
 * 64 values, value j < 32 takes the low nibble of qs[32k + j] and bits
 * 4(k%2)..+1 of qh[32(k/2) + j]; value j + 32 the high nibble and bits
 * 4(k%2)+2..+3. The code q is mapped by a cubic A + q(B + q(-C + qD)), plus
 * S when bit s of extra is set, times dl. The fork's build fuses the cubic's
 * multiply-adds, so fmaf reproduces it. */
static void dec_iq6_k(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const float A = gg_iq6k_poly_constants[0], B = gg_iq6k_poly_constants[1];
    const float C = gg_iq6k_poly_constants[2], D = gg_iq6k_poly_constants[3];
    const float S = gg_iq6k_poly_constants[4];
    const blk_iq6_k *b = (const blk_iq6_k *)src;
    for (int64_t blk = 0; blk < n; blk++, b++, dst += 256) {
        float dl[16];
        ikk_scales_iq6_k(b, dl);
        const unsigned extra = gg_rd16(b->extra);
        const uint8_t *qs = b->qs, *qh = b->qh;
        for (int i = 0; i < 256; i++) {
            int k = i / 64, h = i / 32 % 2, j = i % 32;
            int q = (qs[32 * k + j] >> 4 * h) & 15;
            q |= ((qh[32 * (k / 2) + j] >> (4 * (k % 2) + 2 * h)) & 3) << 4;
            float m = (extra >> (i / 16)) & 1 ? S : 0.0f;
            float fq = (float)q;
            dst[i] = dl[i / 16] * (fmaf(fq, fmaf(fq, fmaf(fq, D, -C), B), A) + m);
        }
    }
}

/* IQ2_KS, row scale d (f16) in meta; 256 values in 70 bytes: extra (u16),
 * scales[4] at 2, qs[64] at 6. Codes as in IQ2_K; per 32 values b = i/32:
 * scale ikk_scales_iq2_ks, table iq2nl_values + 4*(bit b of extra). */
static void dec_iq2_ks(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const float d = gg_rdf16(meta);
    const blk_iq2_ks *b = (const blk_iq2_ks *)src;
    for (int64_t k = 0; k < n; k++, b++, dst += 256) {
        float dl[8];
        ikk_scales_iq2_ks(d, b, dl);
        const unsigned extra = gg_rd16(b->extra);
        for (int ib = 0; ib < 8; ib++) {
            const int8_t *tab = gg_iq2nl_values + 4 * ((extra >> ib) & 1);
            const uint8_t *qs = b->qs + 32 * (ib / 4);
            const int shift = 2 * (ib % 4);
            for (int j = 0; j < 32; j++)
                dst[32 * ib + j] = dl[ib] * (float)tab[(qs[j] >> shift) & 3];
        }
    }
}

/* IQ3_KS, row scale d (f16) in meta; 256 values in 102 bytes: extra (u16),
 * scales[4] at 2, qs[64] at 6, qh[32] at 70. Codes as in IQ3_K; per 32
 * values b: scale ikk_scales_iq3_ks, table iq3nl_values + 8*(bit 8+b of
 * extra). */
static void dec_iq3_ks(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const float d = gg_rdf16(meta);
    const blk_iq3_ks *b = (const blk_iq3_ks *)src;
    for (int64_t k = 0; k < n; k++, b++, dst += 256) {
        float dl[8];
        ikk_scales_iq3_ks(d, b, dl);
        const unsigned extra = gg_rd16(b->extra);
        const uint8_t *qs = b->qs, *qh = b->qh;
        for (int i = 0; i < 256; i++) {
            const int8_t *tab = gg_iq3nl_values + 8 * ((extra >> (8 + i / 32)) & 1);
            int q = (qs[32 * (i / 128) + i % 32] >> 2 * (i / 32 % 4)) & 3;
            q |= ((qh[i % 32] >> (i / 32)) & 1) << 2;
            dst[i] = dl[i / 32] * (float)tab[q];
        }
    }
}

/* IQ4_KS, row scale d (f32) in meta; 256 values in 136 bytes: scales[8],
 * qs[128] at 8. Codes as in IQ4_K; table iq4k_values + 16*(scales[b] & 1). */
static void dec_iq4_ks(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const float d = gg_rdf32(meta);
    const blk_iq4_ks *b = (const blk_iq4_ks *)src;
    for (int64_t k = 0; k < n; k++, b++, dst += 256) {
        float dl[8];
        ikk_scales_byte(d, b->scales, dl);
        const uint8_t *qs = b->qs;
        for (int i = 0; i < 256; i++) {
            const int8_t *tab = gg_iq4k_values + 16 * (b->scales[i / 32] & 1);
            int q = (qs[16 * (i / 32) + i % 16] >> 4 * (i / 16 % 2)) & 15;
            dst[i] = dl[i / 32] * (float)tab[q];
        }
    }
}

/* IQ4_KSS, row scale d (f32) in meta; 256 values in 128 bytes: per 32
 * values, eight little-endian 16-bit words w[k]. Bit 0 of w[k] is bit k of
 * the block's scale byte (as in IQ4_KS). The other bits, c = w & 0xfffe,
 * become codes by c ^ (c >> 1); its 16 bytes (low byte first) hold the 4-bit
 * codes as in IQ4_K: value j in the low nibble of byte j, j + 16 in the high. */
static void dec_iq4_kss(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const float d = gg_rdf32(meta);
    const blk_iq4_kss *b = (const blk_iq4_kss *)src;
    for (int64_t i = 0; i < n; i++, b++) {
        for (int k32 = 0; k32 < 8; k32++, dst += 32) {
            const uint8_t *w = b->qs + 16 * k32;
            uint8_t codes[16], ls = 0;
            for (int k = 0; k < 8; k++) {
                unsigned c = gg_rd16(w + 2 * k) & 0xfffe;
                c ^= c >> 1;
                codes[2 * k] = (uint8_t)c;
                codes[2 * k + 1] = (uint8_t)(c >> 8);
                ls |= (w[2 * k] & 1) << k;
            }
            const float dl = ikk_scale_byte(d, ls);
            const int8_t *tab = gg_iq4k_values + 16 * (ls & 1);
            for (int j = 0; j < 16; j++) {
                dst[j] = dl * (float)tab[codes[j] & 15];
                dst[j + 16] = dl * (float)tab[codes[j] >> 4];
            }
        }
    }
}

/* IQ5_KS, row scale d (f32) in meta; 256 values in 168 bytes: scales[8],
 * qs[128] at 8, qh[32] at 136. Codes as in IQ5_K; table iq5nl_values +
 * 32*(scales[b] & 1). */
static void dec_iq5_ks(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const float d = gg_rdf32(meta);
    const blk_iq5_ks *b = (const blk_iq5_ks *)src;
    for (int64_t k = 0; k < n; k++, b++, dst += 256) {
        float dl[8];
        ikk_scales_byte(d, b->scales, dl);
        const uint8_t *qs = b->qs, *qh = b->qh;
        for (int i = 0; i < 256; i++) {
            const int8_t *tab = gg_iq5nl_values + 32 * (b->scales[i / 32] & 1);
            int h = i / 32;
            int q = (qs[32 * (i / 64) + i % 32] >> 4 * (h % 2)) & 15;
            q |= ((qh[i % 32] >> h) & 1) << 4;
            dst[i] = dl[h] * (float)tab[q];
        }
    }
}

/* IQ2_KL, row scale d (f16) in meta; 256 values in 86 bytes: scales_h (u16),
 * scales_l[4] at 2, qs[64] at 6, qh[16] at 70. In block b of 32 values, the
 * 5-bit code k of value pair (2j, 2j+1), j = 0..15, is nibble b%2 of
 * qs[16(b/2) + j] plus bit b of qh[j] as bit 4; it picks the pair of signed
 * bytes iq2kl_values_as_int8_pairs[2k], [2k+1]. */
static void dec_iq2_kl(const uint8_t *meta, const uint8_t *src, float *dst, int64_t n, int64_t stride)
{
    const float d = gg_rdf16(meta);
    const blk_iq2_kl *b = (const blk_iq2_kl *)src;
    for (int64_t i = 0; i < n; i++, b++) {
        float dl[8];
        ikk_scales_iq2_kl(d, b, dl);
        const uint8_t *qs = b->qs, *qh = b->qh;
        for (int k32 = 0; k32 < 8; k32++, dst += 32) {
            for (int j = 0; j < 16; j++) {
                int k = (qs[16 * (k32 / 2) + j] >> 4 * (k32 % 2)) & 15;
                k |= ((qh[j] >> k32) & 1) << 4;
                dst[2 * j] = dl[k32] * (float)gg_iq2kl_values_as_int8_pairs[2 * k];
                dst[2 * j + 1] = dl[k32] * (float)gg_iq2kl_values_as_int8_pairs[2 * k + 1];
            }
        }
    }
}

const gg_kernel_entry gg_kernels_ik_k[] = {
    {GG_T_Q6_0, GG_ISA_SCALAR, dec_q6_0},       {GG_T_IQ2_K, GG_ISA_SCALAR, dec_iq2_k},
    {GG_T_IQ3_K, GG_ISA_SCALAR, dec_iq3_k},     {GG_T_IQ4_K, GG_ISA_SCALAR, dec_iq4_k},
    {GG_T_IQ5_K, GG_ISA_SCALAR, dec_iq5_k},     {GG_T_IQ6_K, GG_ISA_SCALAR, dec_iq6_k},
    {GG_T_IQ2_KS, GG_ISA_SCALAR, dec_iq2_ks},   {GG_T_IQ3_KS, GG_ISA_SCALAR, dec_iq3_ks},
    {GG_T_IQ4_KS, GG_ISA_SCALAR, dec_iq4_ks},   {GG_T_IQ4_KSS, GG_ISA_SCALAR, dec_iq4_kss},
    {GG_T_IQ5_KS, GG_ISA_SCALAR, dec_iq5_ks},   {GG_T_IQ2_KL, GG_ISA_SCALAR, dec_iq2_kl},
    {0},
};
