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
#define SIMD_FAMILIES(X) X(float) X(legacy) X(fp4) X(ternary) X(ik_bn) X(kquants) X(iquants) X(ik_k) X(ik_kt) X(forks)
/* Families still in the older per-file form (x86 only). */
#define X86_FAMILIES(X) \
    X(ik_interleaved)

#define DECLARE_SCALAR(f) extern const gg_kernel_entry gg_kernels_##f[];
#define DECLARE_SIMD(f)                                      \
    extern const gg_kernel_entry gg_kernels_##f##_avx2[];   \
    extern const gg_kernel_entry gg_kernels_##f##_avx512[]; \
    extern const gg_kernel_entry gg_kernels_##f##_neon[];
#define DECLARE_X86(f)                                      \
    extern const gg_kernel_entry gg_kernels_##f##_avx2[];   \
    extern const gg_kernel_entry gg_kernels_##f##_avx512[];
SCALAR_FAMILIES(DECLARE_SCALAR)
SIMD_FAMILIES(DECLARE_SIMD)
X86_FAMILIES(DECLARE_X86)

#define LIST_SCALAR(f) gg_kernels_##f,
#define LIST_SIMD(f) gg_kernels_##f##_avx2, gg_kernels_##f##_avx512, gg_kernels_##f##_neon,
#define LIST_X86(f) gg_kernels_##f##_avx2, gg_kernels_##f##_avx512,

void gg_registry_each(void (*fn)(const gg_kernel_entry *e, void *arg), void *arg)
{
    static const gg_kernel_entry *const lists[] = {SCALAR_FAMILIES(LIST_SCALAR) SIMD_FAMILIES(LIST_SIMD)
                                                     X86_FAMILIES(LIST_X86)};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        for (const gg_kernel_entry *e = lists[i]; e->type != GG_T_NONE; e++)
            fn(e, arg);
}
