/* iquants.c - the "importance" quantizations of mainline ggml, portable C.
 *
 * These are the readable references: every kernel evaluates the same float
 * operations, in the same order, as ggml's dequantize_row_* for the type.
 * All multi-byte fields are little-endian; fp16 scales convert exactly.
 *
 * Grid types. Most of these types store, for each group of 8 (IQ3: 4)
 * weights, an index into a fixed codebook ("grid") of 8 (4) magnitudes, plus
 * 8 sign bits and a scale per 32 weights. The codebooks are in tables.h; a
 * uint64 (uint32) grid entry holds its magnitudes in bytes 0..7 (0..3), low
 * byte first. Signs of IQ2_XXS / IQ2_XS / IQ3_XXS are stored as a 7-bit index
 * into ksigns_iq2xs, which adds an 8th bit making the count of minus signs
 * even. Bit j of a sign byte negates weight j of its group of 8.
 *
 *  IQ2_XXS  66 bytes: fp16 d; then 8 groups of 32 weights, 8 bytes each:
 *           bytes 0..3 are four grid indices (iq2xxs_grid, 8 weights each),
 *           bytes 4..7 a uint32 w: bits 7l..7l+6 = sign index of the l-th
 *           8 weights, bits 28..31 = scale s; dl = d*(s+1/2)/4.
 *  IQ2_XS   74 bytes: fp16 d; 32 uint16 q (4 per 32 weights): bits 0..8 =
 *           iq2xs_grid index, bits 9..15 = sign index; 8 scale bytes, one per
 *           32 weights: low nibble for its first 16 weights, high nibble
 *           for the last 16 (same formula as IQ2_XXS).
 *  IQ2_S    82 bytes: fp16 d; 32 low index bytes; 32 sign bytes (plain 8
 *           bits); 8 qh bytes (per 32 weights, bits 2l..2l+1 are index bits
 *           8..9 of group l; iq2s_grid has 1024 entries); 8 scale bytes as IQ2_XS.
 *  IQ3_XXS  98 bytes: fp16 d; 64 bytes of iq3xxs_grid indices (4 weights
 *           each); 8 uint32 w, one per 32 weights, laid out as in IQ2_XXS
 *           but with dl = d*(s+1/2)/2.
 *  IQ3_S    110 bytes: fp16 d; 64 low index bytes (4 weights each); 8 qh bytes
 *           (per 32 weights, bit k is index bit 8 of its k-th index;
 *           iq3s_grid has 512 entries); 32 sign bytes; 4 scale bytes, one
 *           per 64 weights, low nibble first: dl = d*(2s+1).
 *  IQ1_S    50 bytes: fp16 d; 32 low index bytes; 8 uint16 qh, one per 32
 *           weights: bits 3l..3l+2 = index bits 8..10 of group l
 *           (iq1s_grid: 2048 entries of int8 -1/0/+1), bits 12..14 = scale s,
 *           bit 15 = sign of the shift delta (+-1/8):
 *           value = d*(2s+1) * (grid + delta).
 *  IQ1_M    56 bytes (no leading d): 32 low index bytes; 16 qh bytes, one
 *           per 16 weights: bits 0..2 / 4..6 = index bits 8..10 of its first /
 *           second group of 8, bit 3 / bit 7 = their delta signs (+-1/8);
 *           8 scale bytes read as four uint16 words: word w has the 3-bit
 *           scales of weights 64w..64w+63, 16 weights each, at bits 0, 3, 6
 *           and 9; the top nibbles (bits 12..15) of words 0..3 are bits
 *           0..3, 4..7, 8..11, 12..15 of the fp16 d. value = d*(2s+1) * (grid + delta).
 *
 * Non-linear 4-bit types, values from kvalues_iq4nl:
 *  IQ4_NL   18 bytes: fp16 d; 16 bytes, byte j holds weight j (low nibble)
 *           and weight j+16 (high nibble); value = d * kvalues[nibble].
 *  IQ4_XS   136 bytes: fp16 d; uint16 scales_h (2 high bits per 32 weights);
 *           4 bytes scales_l (low nibble per 32 weights); 128 bytes of
 *           nibbles, 16 per 32 weights packed as in IQ4_NL;
 *           dl = d * (ls - 32), value = dl * kvalues[nibble].
 */
#include "iquants.h"

#include "blocks.h"
#include "gguffs/decode.h"
#include "families.h"
#include "gguffs/fp16.h"
#include "tables.h"

/* Byte j of a codebook entry. */
static inline uint8_t grid_u8(uint64_t g, int j) { return (uint8_t)(g >> (8 * j)); }
static inline int8_t grid_i8(uint64_t g, int j) { return (int8_t)(uint8_t)(g >> (8 * j)); }

/* 8 weights: dl * magnitude, negated where the sign byte has a 1 bit. */
static inline void put8_signed(float *y, float dl, uint64_t grid, uint8_t signs)
{
    for (int j = 0; j < 8; j++)
        y[j] = dl * (float)grid_u8(grid, j) * ((signs >> j) & 1 ? -1.f : 1.f);
}

static void dec_iq2_xxs(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_iq2_xxs *b = (const blk_iq2_xxs *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        const float d = gg_rdf16(b->d);
        for (int g = 0; g < 8; g++) {
            const uint8_t *q = b->qs + 8 * g;
            const uint32_t w = gg_rd32(q + 4);
            const float dl = iq2_group_scale(d, w >> 28);
            for (int l = 0; l < 4; l++, y += 8)
                put8_signed(y, dl, gg_iq2xxs_grid[q[l]], gg_ksigns_iq2xs[(w >> (7 * l)) & 127]);
        }
    }
}

static void dec_iq2_xs(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_iq2_xs *b = (const blk_iq2_xs *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        const float d = gg_rdf16(b->d);
        const uint8_t *scales = b->scales;
        for (int g = 0; g < 8; g++) {
            const float dl[2] = {iq2_group_scale(d, scales[g] & 0xf), iq2_group_scale(d, scales[g] >> 4)};
            for (int l = 0; l < 4; l++, y += 8) {
                const uint16_t q = gg_rd16(b->qs + 2 * (4 * g + l));
                put8_signed(y, dl[l / 2], gg_iq2xs_grid[q & 511], gg_ksigns_iq2xs[q >> 9]);
            }
        }
    }
}

static void dec_iq2_s(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_iq2_s *b = (const blk_iq2_s *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        const float d = gg_rdf16(b->d);
        const uint8_t *qs = b->qs, *signs = b->signs, *qh = b->qh, *scales = b->scales;
        for (int g = 0; g < 8; g++) {
            const float dl[2] = {iq2_group_scale(d, scales[g] & 0xf), iq2_group_scale(d, scales[g] >> 4)};
            for (int l = 0; l < 4; l++, y += 8) {
                const int idx = qs[4 * g + l] | (((qh[g] >> (2 * l)) & 3) << 8);
                put8_signed(y, dl[l / 2], gg_iq2s_grid[idx], signs[4 * g + l]);
            }
        }
    }
}

static void dec_iq3_xxs(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_iq3_xxs *b = (const blk_iq3_xxs *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        const float d = gg_rdf16(b->d);
        const uint8_t *qs = b->qs;
        for (int g = 0; g < 8; g++) {
            const uint32_t w = gg_rd32(b->sas + 4 * g);
            const float dl = iq3xxs_group_scale(d, w >> 28);
            for (int l = 0; l < 4; l++, y += 8) {
                const uint64_t grid = gg_iq3xxs_grid[qs[8 * g + 2 * l]] |
                                      (uint64_t)gg_iq3xxs_grid[qs[8 * g + 2 * l + 1]] << 32;
                put8_signed(y, dl, grid, gg_ksigns_iq2xs[(w >> (7 * l)) & 127]);
            }
        }
    }
}

static void dec_iq3_s(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_iq3_s *b = (const blk_iq3_s *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        const float d = gg_rdf16(b->d);
        const uint8_t *qs = b->qs, *qh = b->qh, *signs = b->signs, *scales = b->scales;
        for (int g = 0; g < 8; g++) {
            const float dl = odd_scale(d, (scales[g / 2] >> (4 * (g % 2))) & 0xf);
            for (int l = 0; l < 4; l++, y += 8) {
                const int k = 2 * l; /* index number within the 32 weights */
                const int i0 = qs[8 * g + k] | (((qh[g] >> k) & 1) << 8);
                const int i1 = qs[8 * g + k + 1] | (((qh[g] >> (k + 1)) & 1) << 8);
                const uint64_t grid = gg_iq3s_grid[i0] | (uint64_t)gg_iq3s_grid[i1] << 32;
                put8_signed(y, dl, grid, signs[4 * g + l]);
            }
        }
    }
}

static void dec_iq1_s(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_iq1_s *b = (const blk_iq1_s *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        const float d = gg_rdf16(b->d);
        const uint8_t *qs = b->qs;
        for (int g = 0; g < 8; g++) {
            const uint16_t h = gg_rd16(b->qh + 2 * g);
            const float dl = odd_scale(d, (h >> 12) & 7);
            const float delta = h & 0x8000 ? -gg_iq1s_delta[0] : gg_iq1s_delta[0];
            for (int l = 0; l < 4; l++, y += 8) {
                const uint64_t grid = gg_iq1s_grid[qs[4 * g + l] | (((h >> (3 * l)) & 7) << 8)];
                for (int j = 0; j < 8; j++)
                    y[j] = dl * ((float)grid_i8(grid, j) + delta);
            }
        }
    }
}

static void dec_iq1_m(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_iq1_m *b = (const blk_iq1_m *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        const float d = gg_fp16_to_f32(iq1m_block_scale_bits(b));
        const uint8_t *qs = b->qs, *qh = b->qh, *sc = b->scales;
        for (int g = 0; g < 8; g++) {
            const uint16_t w = gg_rd16(sc + 2 * (g / 2));
            const int sh = 6 * (g % 2);
            for (int l = 0; l < 4; l++, y += 8) {
                /* l = 0,1 use the first scale of the 32, l = 2,3 the second */
                const float dl = odd_scale(d, (w >> (sh + 3 * (l / 2))) & 7);
                const uint8_t h = qh[2 * g + l / 2] >> (4 * (l % 2)); /* this group's nibble */
                const uint64_t grid = gg_iq1s_grid[qs[4 * g + l] | ((h & 7) << 8)];
                /* ggml's dequantizer uses IQ1S_DELTA here; both constants are 1/8 */
                const float delta = h & 8 ? -gg_iq1m_delta[0] : gg_iq1m_delta[0];
                for (int j = 0; j < 8; j++)
                    y[j] = dl * ((float)grid_i8(grid, j) + delta);
            }
        }
    }
}

static void dec_iq4_nl(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_iq4_nl *b = (const blk_iq4_nl *)src;
    for (int64_t i = 0; i < nb; i++, b++, y += 32) {
        const float d = gg_rdf16(b->d);
        for (int j = 0; j < 16; j++) {
            y[j] = d * (float)gg_kvalues_iq4nl[b->qs[j] & 0xf];
            y[j + 16] = d * (float)gg_kvalues_iq4nl[b->qs[j] >> 4];
        }
    }
}

static void dec_iq4_xs(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const blk_iq4_xs *b = (const blk_iq4_xs *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        const float d = gg_rdf16(b->d);
        for (int g = 0; g < 8; g++, y += 32) {
            const float dl = iq4xs_group_scale(d, b, g);
            const uint8_t *qs = b->qs + 16 * g;
            for (int j = 0; j < 16; j++) {
                y[j] = dl * (float)gg_kvalues_iq4nl[qs[j] & 0xf];
                y[j + 16] = dl * (float)gg_kvalues_iq4nl[qs[j] >> 4];
            }
        }
    }
}

const gg_kernel_entry gg_kernels_iquants[] = {
    {GG_T_IQ2_XXS, GG_ISA_SCALAR, dec_iq2_xxs},
    {GG_T_IQ2_XS, GG_ISA_SCALAR, dec_iq2_xs},
    {GG_T_IQ2_S, GG_ISA_SCALAR, dec_iq2_s},
    {GG_T_IQ3_XXS, GG_ISA_SCALAR, dec_iq3_xxs},
    {GG_T_IQ3_S, GG_ISA_SCALAR, dec_iq3_s},
    {GG_T_IQ1_S, GG_ISA_SCALAR, dec_iq1_s},
    {GG_T_IQ1_M, GG_ISA_SCALAR, dec_iq1_m},
    {GG_T_IQ4_NL, GG_ISA_SCALAR, dec_iq4_nl},
    {GG_T_IQ4_XS, GG_ISA_SCALAR, dec_iq4_xs},
    {0},
};
