/* families.h - the kernel families and their kernel lists (internal).
 *
 * Each family has a scalar object defining gg_kernels_<family>[] and, for
 * the families with SIMD kernels, one object per target defining
 * gg_kernels_<family>_<target>[] (all terminated by {0}). Every target
 * object is built on every architecture; one whose target does not exist
 * there holds only the {0}. registry.c lists them all. */
#ifndef GGUFFS_DECODE_FAMILIES_H
#define GGUFFS_DECODE_FAMILIES_H

#include "gguffs/decode.h"

#define GG_SCALAR_FAMILIES(X) \
    X(float) X(legacy) X(kquants) X(iquants) X(ternary) X(fp4) X(ik_k) X(ik_kt) X(ik_bn) \
    X(ik_interleaved) X(ik_misc) X(forks)
#define GG_SIMD_FAMILIES(X) \
    X(float) X(legacy) X(kquants) X(iquants) X(ternary) X(fp4) X(ik_k) X(ik_kt) X(ik_bn) \
    X(ik_interleaved) X(forks)

#define GG_DECLARE_SCALAR(f) extern const gg_kernel_entry gg_kernels_##f[];
#define GG_DECLARE_SIMD(f)                                   \
    extern const gg_kernel_entry gg_kernels_##f##_avx2[];   \
    extern const gg_kernel_entry gg_kernels_##f##_avx512[]; \
    extern const gg_kernel_entry gg_kernels_##f##_neon[];
GG_SCALAR_FAMILIES(GG_DECLARE_SCALAR)
GG_SIMD_FAMILIES(GG_DECLARE_SIMD)

#endif
