/* types.c - every tensor type we know, in every dialect.
 *
 * Sizes are facts of the formats: mainline ggml's ggml-common.h, the
 * ik_llama.cpp fork's (tests/data/ik/types.tsv) and the fork formats
 * (tests/data/forks/README.md). Kernels are attached by type identity
 * (GG_T_*, decode.h) at first use, from the registry of src/decode/. */
#include "gguffs/types.h"

#include <pthread.h>
#include <strings.h>

#define ML GG_DIALECT_MAINLINE
#define IK GG_DIALECT_IK
#define STQ GG_DIALECT_STQ
#define PR GG_DIALECT_PRISM
#define ALL GG_DIALECT_ALL
#define NUM GG_TYPE_PLAIN_NUMBER

/* name, identity, id, dialects, block elems, block bytes, row meta, rows interleaved, flags, note */
static const gg_type table[] = {
    /* Types every dialect shares. */
    {"F32", GG_T_F32, 0, ALL, 1, 4, 0, 1, NUM, NULL},
    {"F16", GG_T_F16, 1, ALL, 1, 2, 0, 1, NUM, NULL},
    {"Q4_0", GG_T_Q4_0, 2, ALL, 32, 18, 0, 1, 0, NULL},
    {"Q4_1", GG_T_Q4_1, 3, ALL, 32, 20, 0, 1, 0, NULL},
    {"Q5_0", GG_T_Q5_0, 6, ALL, 32, 22, 0, 1, 0, NULL},
    {"Q5_1", GG_T_Q5_1, 7, ALL, 32, 24, 0, 1, 0, NULL},
    {"Q8_0", GG_T_Q8_0, 8, ALL, 32, 34, 0, 1, 0, NULL},
    {"Q8_1", GG_T_Q8_1, 9, ALL, 32, 36, 0, 1, 0,
     "ggml has no dequantizer for Q8_1; decoded as d * q per block of 32"},
    {"Q2_K", GG_T_Q2_K, 10, ALL, 256, 84, 0, 1, 0, NULL},
    {"Q3_K", GG_T_Q3_K, 11, ALL, 256, 110, 0, 1, 0, NULL},
    {"Q4_K", GG_T_Q4_K, 12, ALL, 256, 144, 0, 1, 0, NULL},
    {"Q5_K", GG_T_Q5_K, 13, ALL, 256, 176, 0, 1, 0, NULL},
    {"Q6_K", GG_T_Q6_K, 14, ALL, 256, 210, 0, 1, 0, NULL},
    {"Q8_K", GG_T_Q8_K, 15, ML | STQ | PR, 256, 292, 0, 1, 0, NULL},
    {"IQ2_XXS", GG_T_IQ2_XXS, 16, ALL, 256, 66, 0, 1, 0, NULL},
    {"IQ2_XS", GG_T_IQ2_XS, 17, ALL, 256, 74, 0, 1, 0, NULL},
    {"IQ3_XXS", GG_T_IQ3_XXS, 18, ALL, 256, 98, 0, 1, 0, NULL},
    {"IQ1_S", GG_T_IQ1_S, 19, ALL, 256, 50, 0, 1, 0, NULL},
    {"IQ4_NL", GG_T_IQ4_NL, 20, ALL, 32, 18, 0, 1, 0, NULL},
    {"IQ3_S", GG_T_IQ3_S, 21, ALL, 256, 110, 0, 1, 0, NULL},
    {"IQ2_S", GG_T_IQ2_S, 22, ALL, 256, 82, 0, 1, 0, NULL},
    {"IQ4_XS", GG_T_IQ4_XS, 23, ALL, 256, 136, 0, 1, 0, NULL},
    {"I8", GG_T_I8, 24, ALL, 1, 1, 0, 1, NUM, NULL},
    {"I16", GG_T_I16, 25, ALL, 1, 2, 0, 1, NUM, NULL},
    {"I32", GG_T_I32, 26, ALL, 1, 4, 0, 1, NUM, NULL},
    {"I64", GG_T_I64, 27, ALL, 1, 8, 0, 1, NUM, NULL},
    {"F64", GG_T_F64, 28, ALL, 1, 8, 0, 1, NUM, NULL},
    {"IQ1_M", GG_T_IQ1_M, 29, ALL, 256, 56, 0, 1, 0, NULL},
    {"BF16", GG_T_BF16, 30, ALL, 1, 2, 0, 1, NUM, NULL},
    {"MXFP4", GG_T_MXFP4, 39, ALL, 32, 17, 0, 1, 0, NULL},
    {"Q1_0", GG_T_Q1_0, 41, ALL, 128, 18, 0, 1, 0, "called Q1_0_G128 in ik_llama.cpp (same layout)"},

    /* Mainline types the ik fork does not define. */
    {"TQ1_0", GG_T_TQ1_0, 34, ML | STQ | PR, 256, 54, 0, 1, 0, NULL},
    {"TQ2_0", GG_T_TQ2_0, 35, ML | STQ | PR, 256, 66, 0, 1, 0, NULL},
    {"NVFP4", GG_T_NVFP4, 40, ML | STQ | PR, 64, 36, 0, 1, 0, NULL},
    {"Q2_0", GG_T_Q2_0, 42, ML | PR, 64, 18, 0, 1, 0, NULL},

    /* ik_llama.cpp. */
    {"Q8_K_IK", GG_T_Q8_K_IK, 15, IK, 256, 296, 0, 1, 0,
     "ik_llama.cpp Q8_K (296-byte block, activation-only; no dequantizer)"},
    {"Q4_0_4_4", GG_T_Q4_0_4_4, 31, IK, 32, 18, 0, 4, 0, "repacked Q4_0 (no dequantizer in ik_llama.cpp)"},
    {"Q4_0_4_8", GG_T_Q4_0_4_8, 32, IK, 32, 18, 0, 4, 0, "repacked Q4_0 (no dequantizer in ik_llama.cpp)"},
    {"Q4_0_8_8", GG_T_Q4_0_8_8, 33, IK, 32, 18, 0, 8, 0, "repacked Q4_0 (no dequantizer in ik_llama.cpp)"},
    {"I2_S", GG_T_I2_S, 36, IK, 128, 32, 0, 1, GG_TYPE_TRAILING_SCALE,
     "BitNet 2-bit codes; one float32 scale after the codes"},
    {"Q8_0_X4", GG_T_Q8_0_X4, 97, IK, 32, 34, 0, 1, 0, "activation-only type (no dequantizer)"},
    {"Q8_1_X4", GG_T_Q8_1_X4, 98, IK, 32, 36, 0, 1, 0, "activation-only type (no dequantizer)"},
    {"Q8_2_X4", GG_T_Q8_2_X4, 99, IK, 32, 36, 0, 1, 0, "activation-only type (no dequantizer)"},
    {"Q6_0", GG_T_Q6_0, 133, IK, 32, 26, 0, 1, 0, NULL},
    {"IQ1_BN", GG_T_IQ1_BN, 134, IK, 64, 13, 2, 1, 0, "row scale applied (as the fork's CUDA dequantizer does)"},
    {"IQ2_BN", GG_T_IQ2_BN, 135, IK, 64, 16, 4, 1, 0, "row scale applied (as the fork's CUDA dequantizer does)"},
    {"Q8_K64", GG_T_Q8_K64, 136, IK, 64, 68, 0, 1, 0, "activation-only type (no dequantizer)"},
    {"IQ2_K", GG_T_IQ2_K, 137, IK, 256, 76, 0, 1, 0, NULL},
    {"IQ3_K", GG_T_IQ3_K, 138, IK, 256, 110, 0, 1, 0, NULL},
    {"IQ4_K", GG_T_IQ4_K, 139, IK, 256, 144, 0, 1, 0, NULL},
    {"IQ5_K", GG_T_IQ5_K, 140, IK, 256, 176, 0, 1, 0, NULL},
    {"IQ6_K", GG_T_IQ6_K, 141, IK, 256, 212, 0, 1, 0, NULL},
    {"IQ4_KS", GG_T_IQ4_KS, 144, IK, 256, 136, 4, 1, 0, NULL},
    {"IQ2_KS", GG_T_IQ2_KS, 145, IK, 256, 70, 2, 1, 0, NULL},
    {"IQ4_KSS", GG_T_IQ4_KSS, 146, IK, 256, 128, 4, 1, 0, NULL},
    {"Q8_K16", GG_T_Q8_K16, 147, IK, 64, 64, 20, 1, 0, "activation-only type (no dequantizer)"},
    {"Q8_K32", GG_T_Q8_K32, 148, IK, 256, 296, 0, 1, 0, "activation-only type (no dequantizer)"},
    {"Q8_KR8", GG_T_Q8_KR8, 149, IK, 256, 296, 0, 1, 0, "activation-only type (no dequantizer)"},
    {"Q8_K128", GG_T_Q8_K128, 150, IK, 128, 140, 0, 1, 0, "activation-only type (no dequantizer)"},
    {"Q8_KV", GG_T_Q8_KV, 151, IK, 32, 32, 8, 1, 0, NULL},
    {"IQ5_KS", GG_T_IQ5_KS, 152, IK, 256, 168, 4, 1, 0, NULL},
    {"IQ2_KT", GG_T_IQ2_KT, 153, IK, 256, 68, 4, 1, 0, NULL},
    {"IQ3_KT", GG_T_IQ3_KT, 154, IK, 256, 100, 4, 1, 0, NULL},
    {"IQ4_KT", GG_T_IQ4_KT, 155, IK, 256, 128, 4, 1, 0, NULL},
    {"IQ3_KS", GG_T_IQ3_KS, 156, IK, 256, 102, 2, 1, 0, NULL},
    {"IQ2_KL", GG_T_IQ2_KL, 157, IK, 256, 86, 2, 1, 0, NULL},
    {"IQ1_KT", GG_T_IQ1_KT, 158, IK, 256, 56, 4, 1, 0, NULL},
    {"Q4_0_R8", GG_T_Q4_0_R8, 202, IK, 32, 18, 0, 8, 0, NULL},
    {"Q5_0_R4", GG_T_Q5_0_R4, 206, IK, 32, 22, 0, 4, 0, NULL},
    {"Q8_0_R8", GG_T_Q8_0_R8, 208, IK, 32, 34, 0, 8, 0, NULL},
    {"Q2_K_R4", GG_T_Q2_K_R4, 210, IK, 256, 84, 0, 4, 0, NULL},
    {"Q3_K_R4", GG_T_Q3_K_R4, 211, IK, 256, 110, 0, 4, 0, NULL},
    {"Q4_K_R4", GG_T_Q4_K_R4, 212, IK, 256, 144, 0, 4, 0, NULL},
    {"Q5_K_R4", GG_T_Q5_K_R4, 213, IK, 256, 176, 0, 4, 0, NULL},
    {"Q6_K_R4", GG_T_Q6_K_R4, 214, IK, 256, 210, 0, 4, 0, NULL},
    {"IQ2_XXS_R4", GG_T_IQ2_XXS_R4, 216, IK, 256, 66, 0, 4, 0, NULL},
    {"IQ2_XS_R4", GG_T_IQ2_XS_R4, 217, IK, 256, 74, 0, 4, 0, NULL},
    {"IQ3_XXS_R4", GG_T_IQ3_XXS_R4, 218, IK, 256, 98, 0, 4, 0, NULL},
    {"IQ1_S_R4", GG_T_IQ1_S_R4, 219, IK, 32, 6, 2, 4, 0, NULL},
    {"IQ4_NL_R4", GG_T_IQ4_NL_R4, 220, IK, 32, 18, 0, 4, 0, NULL},
    {"IQ3_S_R4", GG_T_IQ3_S_R4, 221, IK, 256, 110, 0, 4, 0, NULL},
    {"IQ2_S_R4", GG_T_IQ2_S_R4, 222, IK, 256, 82, 0, 4, 0, NULL},
    {"IQ4_XS_R8", GG_T_IQ4_XS_R8, 223, IK, 256, 136, 0, 8, 0, NULL},
    {"IQ1_M_R4", GG_T_IQ1_M_R4, 229, IK, 32, 7, 2, 4, 0, NULL},
    {"BF16_R16", GG_T_BF16_R16, 230, IK, 1, 2, 0, 16, 0, "no dequantizer in ik_llama.cpp"},
    {"Q6_0_R4", GG_T_Q6_0_R4, 233, IK, 32, 26, 0, 4, 0, NULL},
    {"IQ2_BN_R4", GG_T_IQ2_BN_R4, 335, IK, 64, 16, 4, 4, 0, NULL},
    {"IQ2_K_R4", GG_T_IQ2_K_R4, 337, IK, 256, 76, 0, 4, 0, NULL},
    {"IQ3_K_R4", GG_T_IQ3_K_R4, 338, IK, 256, 110, 0, 4, 0, NULL},
    {"IQ4_K_R4", GG_T_IQ4_K_R4, 339, IK, 256, 144, 0, 4, 0, NULL},
    {"IQ5_K_R4", GG_T_IQ5_K_R4, 340, IK, 256, 176, 0, 4, 0, NULL},
    {"IQ4_KS_R4", GG_T_IQ4_KS_R4, 344, IK, 256, 136, 4, 4, 0, NULL},
    {"IQ5_KS_R4", GG_T_IQ5_KS_R4, 352, IK, 256, 168, 4, 4, 0, NULL},
    {"MXFP4_R8", GG_T_MXFP4_R8, 353, IK, 32, 17, 0, 8, 0, NULL},
    {"Q8_K_R16", GG_T_Q8_K_R16, 397, IK, 256, 258, 0, 16, 0,
     "bytes are read as unsigned with an offset of -128, as the fork does; files quantized by an "
     "AVX2-only build of ik_llama.cpp hold signed bytes and decode wrongly there too"},
    {"Q8_KV_R8", GG_T_Q8_KV_R8, 398, IK, 32, 32, 4, 8, 0, NULL},
    {"Q8_K_R8", GG_T_Q8_K_R8, 399, IK, 256, 258, 0, 8, 0, NULL},

    /* Fork formats. */
    {"STQ1_0", GG_T_STQ1_0, 42, STQ, 256, 42, 0, 1, 0, "stride-16 element order (as distributed files)"},
    {"STQ1_0", GG_T_STQ1_0, 43, STQ, 256, 42, 0, 1, 0, "stride-16 element order (as distributed files)"},
    {"STQ1_0_CONSECUTIVE", GG_T_STQ1_0_CONSECUTIVE, 42, STQ, 256, 42, 0, 1, GG_TYPE_VARIANT,
     "STQ1_0 with the older consecutive element order"},
    {"STQ1_0_CONSECUTIVE", GG_T_STQ1_0_CONSECUTIVE, 43, STQ, 256, 42, 0, 1, GG_TYPE_VARIANT,
     "STQ1_0 with the older consecutive element order"},
    {"PQ2_0", GG_T_PQ2_0, 142, PR, 128, 34, 0, 1, 0, NULL},
    {"PTQ1_0", GG_T_PTQ1_0, 143, PR, 128, 28, 0, 1, 0, NULL},
};

#define N_TYPES (sizeof table / sizeof table[0])

/* Kernels per type identity and instruction set, filled once from the registry. */
static gg_kernel kernels[GG_T_COUNT][GG_ISA_COUNT];
static pthread_once_t kernels_once = PTHREAD_ONCE_INIT;

static void attach_one(const gg_kernel_entry *e, void *arg)
{
    (void)arg;
    if (e->type > GG_T_NONE && e->type < GG_T_COUNT && e->isa < GG_ISA_COUNT)
        kernels[e->type][e->isa] = e->fn;
}

static void attach_kernels(void) { gg_registry_each(attach_one, NULL); }

size_t gg_type_count(void) { return N_TYPES; }

const gg_type *gg_type_at(size_t i) { return i < N_TYPES ? &table[i] : NULL; }

size_t gg_type_index(const gg_type *t) { return (size_t)(t - table); }

size_t gg_types_for_id(uint32_t id, const gg_type **out, size_t max)
{
    size_t n = 0;
    for (size_t i = 0; i < N_TYPES; i++)
        if (table[i].id == id && n < max)
            out[n++] = &table[i];
    return n;
}

const gg_type *gg_type_by_name(const char *name)
{
    for (size_t i = 0; i < N_TYPES; i++)
        if (strcasecmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

gg_isa gg_type_kernel_isa(const gg_type *t, gg_isa isa)
{
    pthread_once(&kernels_once, attach_kernels);
    if (t->tid <= GG_T_NONE || t->tid >= GG_T_COUNT || isa >= GG_ISA_COUNT)
        return GG_ISA_SCALAR;
    while (isa != GG_ISA_SCALAR && !kernels[t->tid][isa])
        isa = gg_isa_fallback(isa);
    return isa;
}

gg_kernel gg_type_kernel(const gg_type *t, gg_isa isa)
{
    pthread_once(&kernels_once, attach_kernels);
    if (t->tid <= GG_T_NONE || t->tid >= GG_T_COUNT)
        return NULL;
    return kernels[t->tid][gg_type_kernel_isa(t, isa)];
}

int gg_type_nbytes(const gg_type *t, uint64_t ne0, uint64_t nrows, uint64_t *out, gg_err *e)
{
    *out = 0;
    if (t->flags & GG_TYPE_TRAILING_SCALE) {
        /* Codes of the whole tensor in blocks, then one scale padded to 32 bytes. */
        if (nrows && ne0 > UINT64_MAX / nrows)
            return gg_fail(e, GG_E_UNSUPPORTED, "element count overflows");
        uint64_t n = ne0 * nrows;
        if (n % t->block_elems)
            return gg_fail(e, GG_E_UNSUPPORTED, "element count is not a multiple of the block size");
        *out = n / t->block_elems * t->block_bytes + 32;
        return 0;
    }
    if (ne0 % t->block_elems)
        return gg_fail(e, GG_E_UNSUPPORTED, "row length is not a multiple of the block size");
    if (nrows % t->rows_interleaved)
        return gg_fail(e, GG_E_UNSUPPORTED, "row count is not a multiple of the interleaved row group");
    uint64_t nblocks = ne0 / t->block_elems;
    if (nblocks > (UINT64_MAX - t->row_meta_bytes) / t->block_bytes)
        return gg_fail(e, GG_E_UNSUPPORTED, "byte size overflows");
    uint64_t row_bytes = t->row_meta_bytes + nblocks * t->block_bytes;
    if (nrows && row_bytes > UINT64_MAX / nrows)
        return gg_fail(e, GG_E_UNSUPPORTED, "byte size overflows");
    *out = row_bytes * nrows;
    return 0;
}
