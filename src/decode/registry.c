/* registry.c - where the kernel families are found.
 *
 * Each family has a scalar object defining gg_kernels_<family>[] and, for
 * the families with SIMD kernels, one object per target defining
 * gg_kernels_<family>_<target>[] (all terminated by {0}). Every target
 * object is built on every architecture; one whose target does not exist
 * there holds only the {0}. The references below are ordinary ones, so a
 * program linking the static library pulls in every family. */
#include "gguffs/decode.h"

#include <stddef.h>

#define SCALAR_FAMILIES(X) \
    X(float) X(legacy) X(kquants) X(iquants) X(ternary) X(fp4) X(ik_k) X(ik_kt) X(ik_bn) \
    X(ik_interleaved) X(ik_misc) X(forks)
#define SIMD_FAMILIES(X) \
    X(float) X(legacy) X(kquants) X(iquants) X(ternary) X(fp4) X(ik_k) X(ik_kt) X(ik_bn) \
    X(ik_interleaved) X(forks)

#define DECLARE_SCALAR(f) extern const gg_kernel_entry gg_kernels_##f[];
#define DECLARE_SIMD(f)                                      \
    extern const gg_kernel_entry gg_kernels_##f##_avx2[];   \
    extern const gg_kernel_entry gg_kernels_##f##_avx512[]; \
    extern const gg_kernel_entry gg_kernels_##f##_neon[];
SCALAR_FAMILIES(DECLARE_SCALAR)
SIMD_FAMILIES(DECLARE_SIMD)

#define LIST_SCALAR(f) gg_kernels_##f,
#define LIST_SIMD(f) gg_kernels_##f##_avx2, gg_kernels_##f##_avx512, gg_kernels_##f##_neon,

void gg_registry_each(void (*fn)(const gg_kernel_entry *e, void *arg), void *arg)
{
    static const gg_kernel_entry *const lists[] = {SCALAR_FAMILIES(LIST_SCALAR) SIMD_FAMILIES(LIST_SIMD)};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        for (const gg_kernel_entry *e = lists[i]; e->type != GG_T_NONE; e++)
            fn(e, arg);
}
