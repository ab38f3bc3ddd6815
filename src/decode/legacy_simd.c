/* legacy_simd.c - the SIMD kernels of legacy.c, written once over the
 * primitives of simd.h and compiled per target; the same bytes as the scalar
 * kernels for any input. Codes are built as bytes, widened and converted to
 * float (exact), then (float)code * d [+ m] in the scalar order. */
#include "simd.h"

#if GV_BUILT
#include "blocks.h"
#include "gguffs/fp16.h"

static inline gv_f f16(const uint8_t *p) { return gv_fsplat(gv_h2f(gg_rd16(p))); }

/* y[0..15] = (float)c * d, and the same plus m. */
static inline void put16(float *y, gv_b16 c, gv_f d) { gv_fstore(y, gv_fmul(gv_fs8(c), d)); }
static inline void put16m(float *y, gv_b16 c, gv_f d, gv_f m) { gv_fstore(y, gv_fadd(gv_fmul(gv_fs8(c), d), m)); }

/* Low nibbles are elements 0..15, high nibbles 16..31. */
static inline gv_b16 lo4(gv_b16 x) { return gv_and16(x, gv_splat16(15)); }
static inline gv_b16 hi4(gv_b16 x) { return gv_shr16(x, 4, 15); }

/* Bit i of qh is element i's fifth bit (value 16): nibble | 16 == nibble + 16,
 * and Q5_0's "- 16" leaves the elements with the bit set unchanged. */

static void dec_q4_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    const blk_q4_0 *b = (const blk_q4_0 *)src;
    for (int64_t i = 0; i < n; i++, b++, y += 32) {
        gv_f d = f16(b->d);
        gv_b16 x = gv_load16(b->qs);
        put16(y, gv_sub16(lo4(x), gv_splat16(8)), d);
        put16(y + 16, gv_sub16(hi4(x), gv_splat16(8)), d);
    }
}

static void dec_q4_1(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    const blk_q4_1 *b = (const blk_q4_1 *)src;
    for (int64_t i = 0; i < n; i++, b++, y += 32) {
        gv_f d = f16(b->d), m = f16(b->m);
        gv_b16 x = gv_load16(b->qs);
        put16m(y, lo4(x), d, m);
        put16m(y + 16, hi4(x), d, m);
    }
}

static void dec_q5_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    const blk_q5_0 *b = (const blk_q5_0 *)src;
    for (int64_t i = 0; i < n; i++, b++, y += 32) {
        gv_f d = f16(b->d);
        uint32_t clear = ~gg_rd32(b->qh);
        gv_b16 x = gv_load16(b->qs);
        put16(y, gv_addbits16(lo4(x), clear, 0, -16), d);
        put16(y + 16, gv_addbits16(hi4(x), clear, 1, -16), d);
    }
}

static void dec_q5_1(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    const blk_q5_1 *b = (const blk_q5_1 *)src;
    for (int64_t i = 0; i < n; i++, b++, y += 32) {
        gv_f d = f16(b->d), m = f16(b->m);
        uint32_t qh = gg_rd32(b->qh);
        gv_b16 x = gv_load16(b->qs);
        put16m(y, gv_addbits16(lo4(x), qh, 0, 16), d, m);
        put16m(y + 16, gv_addbits16(hi4(x), qh, 1, 16), d, m);
    }
}

/* 32 int8 codes at qs times d. */
static inline void put32_i8(float *y, const uint8_t *qs, gv_f d)
{
    gv_fstore(y, gv_fmul(gv_fs8x2(qs, qs + 8), d));
    gv_fstore(y + 16, gv_fmul(gv_fs8x2(qs + 16, qs + 24), d));
}

static void dec_q8_0(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    const blk_q8_0 *b = (const blk_q8_0 *)src;
    for (int64_t i = 0; i < n; i++, b++, y += 32)
        put32_i8(y, b->qs, f16(b->d));
}

/* Q8_1: d * code like Q8_0; s is ignored (see legacy.c). */
static void dec_q8_1(const uint8_t *meta, const uint8_t *src, float *y, int64_t n, int64_t stride)
{
    const blk_q8_1 *b = (const blk_q8_1 *)src;
    for (int64_t i = 0; i < n; i++, b++, y += 32)
        put32_i8(y, b->qs, f16(b->d));
}

GV_KERNELS(legacy) = {
    {GG_T_Q4_0, GV_ISA, dec_q4_0}, {GG_T_Q4_1, GV_ISA, dec_q4_1}, {GG_T_Q5_0, GV_ISA, dec_q5_0},
    {GG_T_Q5_1, GV_ISA, dec_q5_1}, {GG_T_Q8_0, GV_ISA, dec_q8_0}, {GG_T_Q8_1, GV_ISA, dec_q8_1},
    {0},
};
#else
GV_KERNELS(legacy) = {{0}};
#endif
