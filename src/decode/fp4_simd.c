/* fp4_simd.c - the SIMD kernels of fp4.c, written once over the primitives
 * of simd.h; the same bytes as the scalar kernels for any input.
 *
 * The 16-entry int8 value table (kvalues_fp4) is applied to the nibbles as
 * a byte lookup; the values are widened, converted to float (exactly) and
 * multiplied by the block's scale, as the reference does per weight. (MXFP4
 * scales reach deep into the float32 subnormals, e8m0 byte 0 being 2^-128
 * here: precomputing the 16 products would take slow subnormal assists on
 * products no weight uses, so each weight is multiplied. For NVFP4 a table
 * of the 16 products with a float lookup, as the AVX-512 kernel once did,
 * measured no faster.) */
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

/* NVFP4: sub-block s is 8 bytes, low nibbles weights 0..7, high 8..15; two
 * sub-blocks are looked up together. */
static void dec_nvfp4(const uint8_t *meta, const uint8_t *src, float *y, int64_t nb, int64_t stride)
{
    const gv_b16 tab = gv_load16(gg_kvalues_fp4), m4 = gv_splat16(15);
    const blk_nvfp4 *b = (const blk_nvfp4 *)src;
    for (int64_t i = 0; i < nb; i++, b++, y += 64) {
        for (int h = 0; h < 2; h++) {
            const gv_b16 x = gv_load16(b->qs + 16 * h);
            const gv_b16 lo = gv_lut16b(tab, gv_and16(x, m4)), hi = gv_lut16b(tab, gv_shr16(x, 4, 15));
            for (int k = 0; k < 2; k++) { /* sub-block 2h + k: low then high nibbles of its 8 bytes */
                const float d = gg_bits_to_f32(gg_nvfp4_ue4m3_scale_bits[b->d[2 * h + k]]);
                gv_fstore(y + 32 * h + 16 * k, gv_fmul(gv_fs8pair(lo, hi, k), gv_fsplat(d)));
            }
        }
    }
}

GV_KERNELS(fp4) = {
    {GG_T_MXFP4, GV_ISA, dec_mxfp4},
    {GG_T_NVFP4, GV_ISA, dec_nvfp4},
    {0},
};
#else
GV_KERNELS(fp4) = {{0}};
#endif
