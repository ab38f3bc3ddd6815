/* registry.c - where the kernel families are found.
 *
 * Each family file under src/decode/ defines an array gg_kernels_<family>[]
 * (and its SIMD twins gg_kernels_<family>_avx2[], _avx512[]) terminated by
 * {0}. The references are weak so that a family or an instruction set that is
 * not built (another CPU architecture) is simply absent. */
#include "gguffs/decode.h"

#include <stddef.h>

#define FAMILY(f)                                                                   \
    extern const gg_kernel_entry gg_kernels_##f[] __attribute__((weak));           \
    extern const gg_kernel_entry gg_kernels_##f##_avx2[] __attribute__((weak));    \
    extern const gg_kernel_entry gg_kernels_##f##_avx512[] __attribute__((weak));
#define FAMILIES(X)                                                                 \
    X(float) X(legacy) X(kquants) X(iquants) X(ternary) X(fp4)                      \
    X(ik_k) X(ik_kt) X(ik_bn) X(ik_interleaved) X(ik_misc) X(forks)

FAMILIES(FAMILY)

#define LIST(f) gg_kernels_##f, gg_kernels_##f##_avx2, gg_kernels_##f##_avx512,

void gg_registry_each(void (*fn)(const gg_kernel_entry *e, void *arg), void *arg)
{
    const gg_kernel_entry *const lists[] = {FAMILIES(LIST)};
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        if (!lists[i])
            continue;
        for (const gg_kernel_entry *e = lists[i]; e->type_name; e++)
            fn(e, arg);
    }
}
