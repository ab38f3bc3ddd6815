/* ik_interleaved_avx2.c - AVX2 kernels of the row-interleaved ik_llama.cpp
 * types; the bodies are in ik_interleaved_x86.h (shared with the other x86
 * build of this family). */
#include "gguffs/decode.h"

#if defined(__x86_64__)
#include "ik_interleaved_x86.h"

const gg_kernel_entry gg_kernels_ik_interleaved_avx2[] = {
    GGX_IK_INTERLEAVED_ENTRIES(GG_ISA_AVX2)
    {0},
};
#else
const gg_kernel_entry gg_kernels_ik_interleaved_avx2[] = {{0}};
#endif
