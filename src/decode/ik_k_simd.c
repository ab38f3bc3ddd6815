/* ik_k_simd.c - the SIMD kernels of ik_k.c, written once over the
 * primitives of simd.h; the same bytes as the scalar kernels for any input.
 *
 * Block scales: the integer codes are assembled in int32 lanes, converted
 * (exact) and multiplied by d, the same single rounding as the scalar
 * helpers of ik_k.h. Values: the codes of 32 outputs are assembled as bytes
 * and looked up in the signed-byte value tables (each 16-byte half of the 32
 * has its own table, so the two halves can use different tables), then
 * widened, converted (exact) and multiplied by the broadcast block scale:
 * dl * (float)table[code], the scalar kernels' product. */
#include "simd.h"

#if GV_BUILT
#include <stddef.h>

#include "blocks.h"
#include "ik_k.h"
#include "tables.h"

/* Bits `from` .. of every byte moved to bit `to` and up, masked by m. */
static inline gv_b32 bits_to(gv_b32 x, int from, int to, int m)
{
    return from >= to ? gv_shr32(x, from - to, m) : gv_shl32(x, to - from, m);
}

/* A value table of 16 entries (shorter tables repeated). */
static inline gv_b16 table16(const int8_t *values, int len)
{
    if (len == 4)
        return gv_splatw(gg_rd32((const uint8_t *)values));
    if (len == 8)
        return gv_setq2(gg_rd64((const uint8_t *)values), gg_rd64((const uint8_t *)values));
    return gv_load16(values);
}
/* The two value tables of a type (the second chosen by an "extra" bit);
 * table e starts at values + step * e. */
static inline void tables2(gv_vtab t[2], const int8_t *values, int len, int step)
{
    t[0] = gv_vtab16(table16(values, len)), t[1] = gv_vtab16(table16(values + step, len));
}
/* 32-entry tables by pairs for 32 codes: p[c] has table c & 1 for the first
 * 16 codes, table c >> 1 for the last 16. */
static inline void tables2x32(gv_vpair32 p[4], const int8_t *values)
{
    gv_vtab32 t[2];
    for (int e = 0; e < 2; e++)
        t[e] = gv_vtab32of(gv_load16(values + 32 * e), gv_load16(values + 32 * e + 16));
    for (int c = 0; c < 4; c++)
        p[c] = gv_vpair32of(t[c & 1], t[c >> 1]);
}

/* Block scales, 16 lanes: dl = d * (float)code, as ik_k.h. */
static inline void scales16(float *dl, float d, gv_i code) { gv_fstore(dl, gv_fmul(gv_fsplat(d), gv_fcvt(code))); }
/* Lane l: (w >> sh[l]) & mask (w: a, b for lanes 0..7, 8..15). */
static inline gv_i field(uint32_t a, uint32_t b, const int32_t sh[16], int mask)
{
    return gv_iand(gv_ishrv(gv_isplat2((int32_t)a, (int32_t)b), gv_iload(sh)), gv_isplat(mask));
}
static const int32_t NIB[16] = {0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28}; /* nibble l */
static const int32_t BIT[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
static const int32_t PAIR[16] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30};

static inline void scales_iq2_k(const blk_iq2_k *b, float *dl)
{
    const gv_i code = field(gg_rd32(b->scales), gg_rd32(b->scales + 4), NIB, 15);
    scales16(dl, gg_rdf16(b->d), gv_isub(code, gv_isplat(8)));
}
static inline void scales_iq3_k(const blk_iq3_k *b, float *dl)
{
    const uint32_t sh = gg_rd16(b->scales_h);
    const gv_i m = gv_iadd(gv_ishl(field(gg_rd32(b->scales_l), gg_rd32(b->scales_l + 4), NIB, 15), 1), gv_isplat(1));
    const gv_i neg = gv_isub(gv_isplat(0), field(sh, sh, BIT, 1)); /* all ones where bit s is set */
    scales16(dl, gg_rdf16(b->d), gv_isub(gv_ixor(m, neg), neg));
}
static inline void scales_iq45_k(const uint8_t *d, const uint8_t *scales_h, const uint8_t *scales_l, float *dl)
{
    const uint32_t sh = gg_rd32(scales_h);
    const gv_i hi = gv_ishl(field(sh, sh, PAIR, 3), 4);
    const gv_i code = gv_ior(field(gg_rd32(scales_l), gg_rd32(scales_l + 4), NIB, 15), hi);
    scales16(dl, gg_rdf16(d), gv_isub(code, gv_isplat(32)));
}
static inline void scales_iq6_k(const blk_iq6_k *b, float *dl)
{
    scales16(dl, gg_rdf16(b->d), gv_is8(gv_load16(b->scales)));
}
/* The types with one scale per 32 values fill lanes 0..7 of dl. */
static const int32_t NIBT[16] = {0, 8, 16, 24, 4, 12, 20, 28, 0, 0, 0, 0, 0, 0, 0, 0}; /* nibble l/4 of byte l%4 */

static inline void scales_iq2_ks(float d, const blk_iq2_ks *b, float *dl)
{
    const uint32_t ex = gg_rd16(b->extra) >> 8;
    const gv_i code = gv_ior(field(gg_rd32(b->scales), 0, NIB, 15), gv_ishl(field(ex, 0, BIT, 1), 4));
    scales16(dl, d, gv_isub(code, gv_isplat(16)));
}
static inline void scales_iq3_ks(float d, const blk_iq3_ks *b, float *dl)
{
    const uint32_t ex = gg_rd16(b->extra);
    const gv_i code = gv_ior(field(gg_rd32(b->scales), 0, NIBT, 15), gv_ishl(field(ex, 0, BIT, 1), 4));
    scales16(dl, d, gv_isub(code, gv_isplat(16)));
}
static inline void scales_byte(float d, const uint8_t *scales, float *dl)
{
    const gv_i s = gv_iu8(gv_load8(scales));
    scales16(dl, d, gv_isub(gv_iand(s, gv_isplat(254)), gv_isplat(127)));
}
static inline void scales_iq2_kl(float d, const blk_iq2_kl *b, float *dl)
{
    const uint32_t sh = gg_rd16(b->scales_h);
    const gv_i code = gv_ior(field(gg_rd32(b->scales_l), 0, NIBT, 15), gv_ishl(field(sh, 0, PAIR, 3), 4));
    scales16(dl, d, gv_isub(code, gv_isplat(32)));
}

/* Bit 0 of each of 8 scale bytes (the table choice of IQ4_KS, IQ5_KS). */
static inline unsigned low_bits8(const uint8_t *p)
{
    return (unsigned)(((gg_rd64(p) & 0x0101010101010101ull) * 0x0102040810204080ull) >> 56);
}

/* The scale and table of values 16s .. 16s+15: the 16-value types (per32 =
 * 0) have a scale and a table bit per 16, the 32-value types per 32. */
static inline void pick(const float *dl, unsigned e, int s, int per32, int *t, float *d)
{
    *t = (e >> (per32 ? s / 2 : s)) & 1;
    *d = dl[per32 ? s / 2 : s];
}

/* 32 signed bytes to floats: bytes 0..15 times s0, bytes 16..31 times s1. */
static inline void put32(float *y, gv_b32 v, float s0, float s1)
{
    gv_fstore(y, gv_fmul(gv_fsplat(s0), gv_fs8(gv_lo16(v))));
    gv_fstore(y + 16, gv_fmul(gv_fsplat(s1), gv_fs8(gv_hi16(v))));
}

/* Q6_0: values j (0..15) from low nibbles, j + 16 from high nibbles; bits
 * 4..5 are qh[j % 8] bits 4(j/8).. (low) and 4(j/8)+2.. (high). */
static void dec_q6_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    const blk_q6_0 *b = (const blk_q6_0 *)src;
    for (int64_t i = 0; i < n; i++, b++, y += 32) {
        const gv_f d = gv_fsplat(gg_rdf16(b->d));
        const gv_b16 x = gv_load16(b->qs), qh8 = gv_load8(b->qh);
        const gv_b16 h = gv_zip64lo(qh8, gv_shr16(qh8, 4, 15)); /* byte j: qh[j % 8] >> 4(j/8) */
        const gv_b16 lo = gv_or16(gv_and16(x, gv_splat16(15)), gv_shl16(h, 4, 0x30));
        const gv_b16 hi = gv_or16(gv_shr16(x, 4, 15), gv_shl16(h, 2, 0x30));
        gv_fstore(y, gv_fmul(gv_fs8(gv_sub16(lo, gv_splat16(32))), d));
        gv_fstore(y + 16, gv_fmul(gv_fs8(gv_sub16(hi, gv_splat16(32))), d));
    }
}

/* The value bodies, per 256 values, shared by the K and KS types (see pick;
 * per32 is a constant at each use, so each kernel gets its own code). */

/* Values 16s .. 16s+15 from their codes: dl * (float)table[code]. */
static inline void put16_sub(float *y, int s, const float *dl, unsigned e, int per32, const gv_vtab *t, gv_b16 codes)
{
    int ti;
    float d;
    pick(dl, e, s, per32, &ti, &d);
    gv_fstore(y + 16 * s, gv_fmul(gv_fsplat(d), gv_vlook(t[ti], codes)));
}
/* Values 16s .. 16s+31 (s even) from 32 codes and 32-entry tables. */
static inline void put32_sub32(float *y, int s, const float *dl, unsigned e, int per32, const gv_vpair32 *p,
                               gv_b32 codes)
{
    int t0, t1;
    float d0, d1;
    gv_f v[2];
    pick(dl, e, s, per32, &t0, &d0);
    pick(dl, e, s + 1, per32, &t1, &d1);
    gv_vlook32x2(p[t0 | t1 << 1], codes, v);
    gv_fstore(y + 16 * s, gv_fmul(gv_fsplat(d0), v[0]));
    gv_fstore(y + 16 * s + 16, gv_fmul(gv_fsplat(d1), v[1]));
}

/* IQ2_K, IQ2_KS, and with qh IQ3_K, IQ3_KS: the 32 values 128h + 32k +
 * (0..31) are bits 2k of qs[32h + 0..31], plus bit 4h + k of qh[0..31] as
 * bit 2 for IQ3. */
static inline void iq23_body(float *y, const uint8_t *qs, const uint8_t *qhp, const gv_vtab t[2], const float *dl,
                             unsigned e, int per32)
{
    const gv_b32 qh = qhp ? gv_load32(qhp) : gv_splat32(0);
#pragma GCC unroll 8
    for (int h = 0; h < 2; h++) {
        const gv_b32 q = gv_load32(qs + 32 * h);
#pragma GCC unroll 8
        for (int k = 0; k < 4; k++) {
            gv_b32 idx = gv_shr32(q, 2 * k, 3);
            if (qhp)
                idx = gv_or32(idx, bits_to(qh, 4 * h + k, 2, 4));
            put16_sub(y, 8 * h + 2 * k, dl, e, per32, t, gv_lo16(idx));
            put16_sub(y, 8 * h + 2 * k + 1, dl, e, per32, t, gv_hi16(idx));
        }
    }
}

/* IQ4_K, IQ4_KS: block k of 32 values is qs[16k .. 16k+15], low nibbles
 * then high nibbles. */
static inline void iq4_body(float *y, const uint8_t *qs, const gv_vtab t[2], const float *dl, unsigned e, int per32)
{
#pragma GCC unroll 8
    for (int k = 0; k < 8; k++) {
        const gv_b16 x = gv_load16(qs + 16 * k);
        put16_sub(y, 2 * k, dl, e, per32, t, gv_and16(x, gv_splat16(15)));
        put16_sub(y, 2 * k + 1, dl, e, per32, t, gv_shr16(x, 4, 15));
    }
}

/* IQ5_K, IQ5_KS: values 64k + 32h + (0..31): nibble h of qs[32k + 0..31]
 * and bit 2k + h of qh[0..31] as bit 4; 32-entry tables. */
static inline void iq5_body(float *y, const uint8_t *qs, const uint8_t *qhp, const gv_vpair32 p[4], const float *dl,
                            unsigned e, int per32)
{
    const gv_b32 qh = gv_load32(qhp);
#pragma GCC unroll 8
    for (int k = 0; k < 4; k++) {
        const gv_b32 q = gv_load32(qs + 32 * k);
#pragma GCC unroll 8
        for (int h = 0; h < 2; h++) {
            const gv_b32 idx = gv_or32(gv_shr32(q, 4 * h, 15), bits_to(qh, 2 * k + h, 4, 16));
            put32_sub32(y, 4 * k + 2 * h, dl, e, per32, p, idx);
        }
    }
}

/* The K types: fp16 d and the scales in each block; the KS types: a row
 * scale d (meta) and one scale byte or code per 32 values. */
#define EACH_BLOCK(type) \
    const type *b = (const type *)src; \
    for (int64_t i = 0; i < n; i++, b++, y += 256)

static void dec_iq2_k(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    gv_vtab t[2];
    float dl[16];
    tables2(t, gg_iq2nl_values, 4, 4);
    EACH_BLOCK(blk_iq2_k) scales_iq2_k(b, dl), iq23_body(y, b->qs, NULL, t, dl, gg_rd16(b->extra), 0);
}

static void dec_iq2_ks(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    gv_vtab t[2];
    float dl[16], d = gg_rdf16(meta);
    tables2(t, gg_iq2nl_values, 4, 4);
    EACH_BLOCK(blk_iq2_ks) scales_iq2_ks(d, b, dl), iq23_body(y, b->qs, NULL, t, dl, gg_rd16(b->extra), 1);
}

static void dec_iq3_k(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    gv_vtab t[2];
    float dl[16];
    tables2(t, gg_iq3nl_values, 8, 8);
    EACH_BLOCK(blk_iq3_k) scales_iq3_k(b, dl), iq23_body(y, b->qs, b->qh, t, dl, gg_rd16(b->extra), 0);
}

static void dec_iq3_ks(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    gv_vtab t[2];
    float dl[16], d = gg_rdf16(meta);
    tables2(t, gg_iq3nl_values, 8, 8);
    EACH_BLOCK(blk_iq3_ks) scales_iq3_ks(d, b, dl), iq23_body(y, b->qs, b->qh, t, dl, gg_rd16(b->extra) >> 8, 1);
}

static void dec_iq4_k(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    gv_vtab t[2];
    float dl[16];
    tables2(t, gg_iq4k_values, 16, 16);
    EACH_BLOCK(blk_iq4_k) scales_iq45_k(b->d, b->scales_h, b->scales_l, dl), iq4_body(y, b->qs, t, dl, gg_rd16(b->extra), 0);
}

static void dec_iq4_ks(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    gv_vtab t[2];
    float dl[16], d = gg_rdf32(meta);
    tables2(t, gg_iq4k_values, 16, 16);
    EACH_BLOCK(blk_iq4_ks) scales_byte(d, b->scales, dl), iq4_body(y, b->qs, t, dl, low_bits8(b->scales), 1);
}

/* IQ4_KSS: bit 0 of word k of a block of 32 is bit k of its scale byte. */
static void dec_iq4_kss(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    gv_vtab t[2];
    tables2(t, gg_iq4k_values, 16, 16);
    const float d = gg_rdf32(meta);
    const gv_b16 notone = gv_setw4(0xfffefffe, 0xfffefffe, 0xfffefffe, 0xfffefffe);
    for (int64_t k = 0; k < 8 * n; k++, src += 16, y += 32) {
        const gv_b16 w = gv_load16(src);
        const unsigned ls = gv_wlowbits(w);
        gv_b16 c = gv_and16(w, notone);
        c = gv_xor16(c, gv_w16shr(c, 1));
        const gv_f dl = gv_fsplat(ikk_scale_byte(d, (int)ls));
        gv_fstore(y, gv_fmul(dl, gv_vlook(t[ls & 1], gv_and16(c, gv_splat16(15)))));
        gv_fstore(y + 16, gv_fmul(dl, gv_vlook(t[ls & 1], gv_shr16(c, 4, 15))));
    }
}

static void dec_iq5_k(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    gv_vpair32 t[4];
    float dl[16];
    tables2x32(t, gg_iq5nl_values);
    EACH_BLOCK(blk_iq5_k)
        scales_iq45_k(b->d, b->scales_h, b->scales_l, dl), iq5_body(y, b->qs, b->qh, t, dl, gg_rd16(b->extra), 0);
}

static void dec_iq5_ks(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    gv_vpair32 t[4];
    float dl[16], d = gg_rdf32(meta);
    tables2x32(t, gg_iq5nl_values);
    EACH_BLOCK(blk_iq5_ks) scales_byte(d, b->scales, dl), iq5_body(y, b->qs, b->qh, t, dl, low_bits8(b->scales), 1);
}

/* IQ6_K: 6-bit codes as bytes, then the cubic with fused multiply-adds, as
 * the scalar kernel's fmaf (the fork fuses them). */
static void dec_iq6_k(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    const gv_f A = gv_fsplat(gg_iq6k_poly_constants[0]), B = gv_fsplat(gg_iq6k_poly_constants[1]);
    const gv_f nC = gv_fsplat(-gg_iq6k_poly_constants[2]), D = gv_fsplat(gg_iq6k_poly_constants[3]);
    const float mS[2] = {0.0f, gg_iq6k_poly_constants[4]};
    const blk_iq6_k *b = (const blk_iq6_k *)src;
    for (int64_t i = 0; i < n; i++, b++, y += 256) {
        float dl[16];
        scales_iq6_k(b, dl);
        const unsigned extra = gg_rd16(b->extra);
#pragma GCC unroll 8
        for (int k = 0; k < 4; k++) {
            const gv_b32 q = gv_load32(b->qs + 32 * k), qh = gv_load32(b->qh + 32 * (k / 2));
#pragma GCC unroll 8
            for (int h = 0; h < 2; h++) {
                const gv_b32 code = gv_or32(gv_shr32(q, 4 * h, 15), bits_to(qh, 4 * (k % 2) + 2 * h, 4, 0x30));
#pragma GCC unroll 8
                for (int e = 0; e < 2; e++) { /* 16 values 64k + 32h + 16e */
                    const int s = 4 * k + 2 * h + e;
                    const gv_f fq = gv_fu8(e ? gv_hi16(code) : gv_lo16(code));
                    gv_f p = gv_ffma(fq, D, nC);
                    p = gv_ffma(fq, p, B);
                    p = gv_ffma(fq, p, A);
                    p = gv_fadd(p, gv_fsplat(mS[(extra >> s) & 1]));
                    gv_fstore(y + 16 * s, gv_fmul(gv_fsplat(dl[s]), p));
                }
            }
        }
    }
}

/* IQ2_KL: the 16 5-bit codes of a block of 32 pick pairs of signed bytes
 * (a 32-entry table of 16-bit entries); the pairs in order are the 32
 * values. */
#if GV_AVX512
/* AVX-512 only: the codes are built once per 16 bytes in 16-bit lanes (one
 * ternary-logic select per block of 32) and fed straight to vpermt2w.
 * Measured 49.9 GB/s against 39.1 for the shared body below (decode_bench,
 * medians of 11 interleaved runs). */
static void dec_iq2_kl(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    const gv_wtab pairs = gv_wtab32(gg_iq2kl_values_as_int8_pairs);
    const __m256i m4 = _mm256_set1_epi16(15);
    const float d = gg_rdf16(meta);
    const blk_iq2_kl *b = (const blk_iq2_kl *)src;
    for (int64_t i = 0; i < n; i++, b++, y += 256) {
        float dl[16];
        scales_iq2_kl(d, b, dl);
        const __m256i qh = _mm256_slli_epi16(_mm256_cvtepu8_epi16(gv_load16(b->qh)), 4);
#pragma GCC unroll 8
        for (int k = 0; k < 4; k++) {
            const __m256i q = _mm256_cvtepu8_epi16(gv_load16(b->qs + 16 * k));
#pragma GCC unroll 8
            for (int h = 0; h < 2; h++) {
                const int bl = 2 * k + h;
                /* nibble h where m4 has ones, bit bl of qh above it */
                const __m256i code = _mm256_ternarylogic_epi32(_mm256_srli_epi16(q, 4 * h), _mm256_srli_epi16(qh, bl), m4, 0xE4);
                put32(y + 32 * bl, _mm256_permutex2var_epi16(pairs.lo, code, pairs.hi), dl[bl], dl[bl]);
            }
        }
    }
}
#else
static void dec_iq2_kl(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    const gv_wtab pairs = gv_wtab32(gg_iq2kl_values_as_int8_pairs);
    const float d = gg_rdf16(meta);
    const blk_iq2_kl *b = (const blk_iq2_kl *)src;
    for (int64_t i = 0; i < n; i++, b++, y += 256) {
        float dl[16];
        scales_iq2_kl(d, b, dl);
        const gv_b16 qh = gv_load16(b->qh);
#pragma GCC unroll 8
        for (int k = 0; k < 4; k++) {
            const gv_b16 q = gv_load16(b->qs + 16 * k);
#pragma GCC unroll 8
            for (int h = 0; h < 2; h++) {
                const int bl = 2 * k + h;
                const gv_b16 hb = bl >= 4 ? gv_shr16(qh, bl - 4, 16) : gv_shl16(qh, 4 - bl, 16);
                const gv_b16 code = gv_or16(h ? gv_shr16(q, 4, 15) : gv_and16(q, gv_splat16(15)), hb);
                put32(y + 32 * bl, gv_lut32w(pairs, code), dl[bl], dl[bl]);
            }
        }
    }
}
#endif

GV_KERNELS(ik_k) = {
    {GG_T_Q6_0, GV_ISA, dec_q6_0},     {GG_T_IQ2_K, GV_ISA, dec_iq2_k},     {GG_T_IQ3_K, GV_ISA, dec_iq3_k},
    {GG_T_IQ4_K, GV_ISA, dec_iq4_k},   {GG_T_IQ5_K, GV_ISA, dec_iq5_k},     {GG_T_IQ6_K, GV_ISA, dec_iq6_k},
    {GG_T_IQ2_KS, GV_ISA, dec_iq2_ks}, {GG_T_IQ3_KS, GV_ISA, dec_iq3_ks},   {GG_T_IQ4_KS, GV_ISA, dec_iq4_ks},
    {GG_T_IQ4_KSS, GV_ISA, dec_iq4_kss}, {GG_T_IQ5_KS, GV_ISA, dec_iq5_ks}, {GG_T_IQ2_KL, GV_ISA, dec_iq2_kl},
    {0},
};
#else
GV_KERNELS(ik_k) = {{0}};
#endif
