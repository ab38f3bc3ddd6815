/* simd.h - the one include of every <family>_simd.c: picks the primitives of
 * the target the file is being compiled for.
 *
 * The Makefile compiles each family source three times, with -DGG_TARGET=avx2,
 * avx512 or neon (and the matching -m flags on x86-64). When the target
 * belongs to this compiler's architecture GV_BUILT is 1 and the primitives of
 * simd_<target>.h are defined; otherwise GV_BUILT is 0 and the family must
 * define an empty kernel list (GV_KERNELS with only {0}).
 *
 * What every target header promises (width-agnostic: "16" is a count of
 * values, not a register size; x86 byte primitives live in simd_x86.h):
 *   gv_b16 / gv_b32   16 / 32 bytes: loads, splats, and/or/add/sub, byte
 *                     shifts with a mask, bit tests, selects, zips, 16-entry
 *                     byte lookups (gv_lut16b; per 16-byte half: gv_lut32x2,
 *                     32 entries gv_lut32b), 16-bit-entry lookups (gv_lut32w)
 *   gv_i              16 int32 lanes: widen bytes / uint16, shifts (also per
 *                     lane), and/or/add/sub/mul, the base-3 digit rule of the
 *                     ternary formats, lane spreads, sums of bytes
 *   gv_f              16 float lanes: conversions from int8/16/32, uint8,
 *                     fp16, bf16, double (int64 on AVX-512 only), splat,
 *                     mul, add, sub, sign flips / selects by a bit mask, store
 *   gv_ftab           8 floats for gv_lut8 (products precomputed per block)
 * Float arithmetic is one IEEE operation per call (mul, add, sub: never
 * fused); the one fused primitive, gv_ffma, serves IQ6_K, whose reference
 * fuses. Integer to float conversions are exact for the small integers the
 * kernels use. */
#ifndef GGUFFS_DECODE_SIMD_H
#define GGUFFS_DECODE_SIMD_H

#include "families.h"
#include "gguffs/decode.h"

#define GV_CAT_(a, b) a##_##b
#define GV_CAT(a, b) GV_CAT_(a, b)
#define GV_ID_avx2 1
#define GV_ID_avx512 2
#define GV_ID_neon 3
#define GV_TARGET_ID GV_CAT(GV_ID, GG_TARGET)

/* `GV_KERNELS(kquants) = {...};` defines gg_kernels_kquants_<target>[]. */
#define GV_KERNELS(family) const gg_kernel_entry GV_CAT(GV_CAT(gg_kernels, family), GG_TARGET)[]

#if GV_TARGET_ID == 1 && defined(__x86_64__)
#define GV_BUILT 1
#define GV_ISA GG_ISA_AVX2
#define GV_AVX2 1
#include "simd_avx2.h"
#elif GV_TARGET_ID == 2 && defined(__x86_64__)
#define GV_BUILT 1
#define GV_ISA GG_ISA_AVX512
#define GV_AVX512 1
#include "simd_avx512.h"
#elif GV_TARGET_ID == 3 && defined(__aarch64__)
#define GV_BUILT 1
#define GV_ISA GG_ISA_NEON
#define GV_NEON 1
#include "simd_neon.h"
#else
#define GV_BUILT 0
#endif

#endif
