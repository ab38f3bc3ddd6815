/* fp4_simd.c - the SIMD kernels of fp4.c, written once over the primitives
 * of simd.h; the same bytes as the scalar kernels for any input.
 *
 * The 16-entry int8 value table (kvalues_fp4) is applied to the nibbles as
 * a byte lookup; the values are widened, converted to float (exactly) and
 * multiplied by the block's scale, as the reference does per weight. (MXFP4
 * scales reach deep into the float32 subnormals, e8m0 byte 0 being 2^-128
 * here: precomputing the 16 products would take slow subnormal assists on
 * products no weight uses, so each weight is multiplied.) */
#include "simd.h"

#if GV_BUILT
#include "blocks.h"
#include "gguffs/fp16.h"
#include "tables.h"

static inline void put16(float *y, gv_b16 v, float d) { gv_fstore(y, gv_fmul(gv_fs8(v), gv_fsplat(d))); }

static void dec_mxfp4(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const gv_b16 tab = gv_load16(gg_kvalues_fp4), m4 = gv_splat16(15);
    const blk_mxfp4 *b = (const blk_mxfp4 *)src;
    for (int64_t i = 0; i < nb; i++, b++, y += 32) {
        const float d = gg_bits_to_f32(gg_mxfp4_e8m0_half_scale_bits[b->e]);
        const gv_b16 x = gv_load16(b->qs);
        put16(y, gv_lut16b(tab, gv_and16(x, m4)), d);           /* weights 0..15 */
        put16(y + 16, gv_lut16b(tab, gv_shr16(x, 4, 15)), d);   /* 16..31 */
    }
}

/* NVFP4: sub-block s is 8 bytes, low nibbles weights 0..7, high 8..15. */
#if GV_AVX512
/* AVX-512 only: per scale the 16 products kvalues_fp4[q] * scale are formed
 * once (the reference's own multiplications; NVFP4 scales are never float32
 * subnormals) and each weight picks its own with a 16-entry float lookup.
 * Measured 60.1 GB/s against 51.8 for the shared body below (decode_bench,
 * median of 7); on AVX2 and NEON that lookup costs more than the multiply. */
static void dec_nvfp4(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const gv_f kv = gv_fs8(gv_load16(gg_kvalues_fp4));
    const gv_i sh = gv_isplat2(0, 4); /* lanes 0..7 low nibbles, 8..15 high */
    const blk_nvfp4 *b = (const blk_nvfp4 *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        for (int s = 0; s < 4; s++, y += 16) {
            const gv_ftab tab = gv_ftabf(gv_fmul(kv, gv_fsplat(gg_bits_to_f32(gg_nvfp4_ue4m3_scale_bits[b->d[s]]))));
            const gv_b16 x = gv_load8(b->qs + 8 * s);
            gv_fstore(y, gv_lut16(tab, gv_ishrv(gv_iu8(gv_zip64lo(x, x)), sh)));
        }
    }
}
#else
static void dec_nvfp4(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const gv_b16 tab = gv_load16(gg_kvalues_fp4), m4 = gv_splat16(15);
    const blk_nvfp4 *b = (const blk_nvfp4 *)src;
    for (int64_t i = 0; i < nb; i++, b++) {
        for (int s = 0; s < 4; s++, y += 16) {
            const float d = gg_bits_to_f32(gg_nvfp4_ue4m3_scale_bits[b->d[s]]);
            const gv_b16 x = gv_load8(b->qs + 8 * s);
            put16(y, gv_lut16b(tab, gv_zip64lo(gv_and16(x, m4), gv_shr16(x, 4, 15))), d);
        }
    }
}
#endif

GV_KERNELS(fp4) = {
    {GG_T_MXFP4, GV_ISA, dec_mxfp4},
    {GG_T_NVFP4, GV_ISA, dec_nvfp4},
    {0},
};
#else
GV_KERNELS(fp4) = {{0}};
#endif
