/* forks_avx2.c - AVX2 kernels of STQ1_0, PQ2_0 and PTQ1_0; the bodies are in
 * forks_x86.h (shared with the other x86 build of this family). */
#include "gguffs/decode.h"

#if defined(__x86_64__)
#include "forks_x86.h"

const gg_kernel_entry gg_kernels_forks_avx2[] = {
    GGF_FORKS_ENTRIES(GG_ISA_AVX2)
    {0},
};
#else
const gg_kernel_entry gg_kernels_forks_avx2[] = {{0}};
#endif
