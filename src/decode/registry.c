/* registry.c - where the kernel families are found (families.h). The
 * references below are ordinary ones, so a program linking the static
 * library pulls in every family. */
#include "families.h"

#include <stddef.h>

#define LIST_SCALAR(f) gg_kernels_##f,
#define LIST_SIMD(f) gg_kernels_##f##_avx2, gg_kernels_##f##_avx512, gg_kernels_##f##_neon,

void gg_registry_each(void (*fn)(const gg_kernel_entry *e, void *arg), void *arg)
{
    static const gg_kernel_entry *const lists[] = {GG_SCALAR_FAMILIES(LIST_SCALAR) GG_SIMD_FAMILIES(LIST_SIMD)};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++)
        for (const gg_kernel_entry *e = lists[i]; e->type != GG_T_NONE; e++)
            fn(e, arg);
}
