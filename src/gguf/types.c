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

/* One row per (type, id, dialect), as ggml's type_traits[]: designated fields, zero ones
 * (row_meta_bytes, flags, note) left out. rows_interleaved is always written: 0 would
 * divide by zero in gg_type_nbytes and layout.c. A row's name is its GG_T_ suffix. */
#define T(n) .name = #n, .tid = GG_T_##n
static const gg_type table[] = {
    /* Types every dialect shares. */
    {T(F32), .id = 0, .dialects = ALL, .block_elems = 1, .block_bytes = 4, .rows_interleaved = 1,
     .flags = NUM},
    {T(F16), .id = 1, .dialects = ALL, .block_elems = 1, .block_bytes = 2, .rows_interleaved = 1,
     .flags = NUM},
    {T(Q4_0), .id = 2, .dialects = ALL, .block_elems = 32, .block_bytes = 18, .rows_interleaved = 1},
    {T(Q4_1), .id = 3, .dialects = ALL, .block_elems = 32, .block_bytes = 20, .rows_interleaved = 1},
    {T(Q5_0), .id = 6, .dialects = ALL, .block_elems = 32, .block_bytes = 22, .rows_interleaved = 1},
    {T(Q5_1), .id = 7, .dialects = ALL, .block_elems = 32, .block_bytes = 24, .rows_interleaved = 1},
    {T(Q8_0), .id = 8, .dialects = ALL, .block_elems = 32, .block_bytes = 34, .rows_interleaved = 1},
    {T(Q8_1), .id = 9, .dialects = ALL, .block_elems = 32, .block_bytes = 36, .rows_interleaved = 1,
     .note = "ggml has no dequantizer for Q8_1; decoded as d * q per block of 32"},
    {T(Q2_K), .id = 10, .dialects = ALL, .block_elems = 256, .block_bytes = 84, .rows_interleaved = 1},
    {T(Q3_K), .id = 11, .dialects = ALL, .block_elems = 256, .block_bytes = 110, .rows_interleaved = 1},
    {T(Q4_K), .id = 12, .dialects = ALL, .block_elems = 256, .block_bytes = 144, .rows_interleaved = 1},
    {T(Q5_K), .id = 13, .dialects = ALL, .block_elems = 256, .block_bytes = 176, .rows_interleaved = 1},
    {T(Q6_K), .id = 14, .dialects = ALL, .block_elems = 256, .block_bytes = 210, .rows_interleaved = 1},
    {T(Q8_K), .id = 15, .dialects = ML | STQ | PR, .block_elems = 256, .block_bytes = 292,
     .rows_interleaved = 1},
    {T(IQ2_XXS), .id = 16, .dialects = ALL, .block_elems = 256, .block_bytes = 66, .rows_interleaved = 1},
    {T(IQ2_XS), .id = 17, .dialects = ALL, .block_elems = 256, .block_bytes = 74, .rows_interleaved = 1},
    {T(IQ3_XXS), .id = 18, .dialects = ALL, .block_elems = 256, .block_bytes = 98, .rows_interleaved = 1},
    {T(IQ1_S), .id = 19, .dialects = ALL, .block_elems = 256, .block_bytes = 50, .rows_interleaved = 1},
    {T(IQ4_NL), .id = 20, .dialects = ALL, .block_elems = 32, .block_bytes = 18, .rows_interleaved = 1},
    {T(IQ3_S), .id = 21, .dialects = ALL, .block_elems = 256, .block_bytes = 110, .rows_interleaved = 1},
    {T(IQ2_S), .id = 22, .dialects = ALL, .block_elems = 256, .block_bytes = 82, .rows_interleaved = 1},
    {T(IQ4_XS), .id = 23, .dialects = ALL, .block_elems = 256, .block_bytes = 136, .rows_interleaved = 1},
    {T(I8), .id = 24, .dialects = ALL, .block_elems = 1, .block_bytes = 1, .rows_interleaved = 1,
     .flags = NUM},
    {T(I16), .id = 25, .dialects = ALL, .block_elems = 1, .block_bytes = 2, .rows_interleaved = 1,
     .flags = NUM},
    {T(I32), .id = 26, .dialects = ALL, .block_elems = 1, .block_bytes = 4, .rows_interleaved = 1,
     .flags = NUM},
    {T(I64), .id = 27, .dialects = ALL, .block_elems = 1, .block_bytes = 8, .rows_interleaved = 1,
     .flags = NUM},
    {T(F64), .id = 28, .dialects = ALL, .block_elems = 1, .block_bytes = 8, .rows_interleaved = 1,
     .flags = NUM},
    {T(IQ1_M), .id = 29, .dialects = ALL, .block_elems = 256, .block_bytes = 56, .rows_interleaved = 1},
    {T(BF16), .id = 30, .dialects = ALL, .block_elems = 1, .block_bytes = 2, .rows_interleaved = 1,
     .flags = NUM},
    {T(MXFP4), .id = 39, .dialects = ALL, .block_elems = 32, .block_bytes = 17, .rows_interleaved = 1},
    {T(Q1_0), .id = 41, .dialects = ALL, .block_elems = 128, .block_bytes = 18, .rows_interleaved = 1,
     .note = "called Q1_0_G128 in ik_llama.cpp (same layout)"},

    /* Mainline types the ik fork does not define. */
    {T(TQ1_0), .id = 34, .dialects = ML | STQ | PR, .block_elems = 256, .block_bytes = 54,
     .rows_interleaved = 1},
    {T(TQ2_0), .id = 35, .dialects = ML | STQ | PR, .block_elems = 256, .block_bytes = 66,
     .rows_interleaved = 1},
    {T(NVFP4), .id = 40, .dialects = ML | STQ | PR, .block_elems = 64, .block_bytes = 36,
     .rows_interleaved = 1},
    {T(Q2_0), .id = 42, .dialects = ML | PR, .block_elems = 64, .block_bytes = 18, .rows_interleaved = 1},

    /* ik_llama.cpp. */
    {T(Q8_K_IK), .id = 15, .dialects = IK, .block_elems = 256, .block_bytes = 296, .rows_interleaved = 1,
     .note = "ik_llama.cpp Q8_K (296-byte block, activation-only; no dequantizer)"},
    {T(Q4_0_4_4), .id = 31, .dialects = IK, .block_elems = 32, .block_bytes = 18, .rows_interleaved = 4,
     .note = "repacked Q4_0 (no dequantizer in ik_llama.cpp)"},
    {T(Q4_0_4_8), .id = 32, .dialects = IK, .block_elems = 32, .block_bytes = 18, .rows_interleaved = 4,
     .note = "repacked Q4_0 (no dequantizer in ik_llama.cpp)"},
    {T(Q4_0_8_8), .id = 33, .dialects = IK, .block_elems = 32, .block_bytes = 18, .rows_interleaved = 8,
     .note = "repacked Q4_0 (no dequantizer in ik_llama.cpp)"},
    {T(I2_S), .id = 36, .dialects = IK, .block_elems = 128, .block_bytes = 32, .rows_interleaved = 1,
     .flags = GG_TYPE_TRAILING_SCALE, .note = "BitNet 2-bit codes; one float32 scale after the codes"},
    {T(Q8_0_X4), .id = 97, .dialects = IK, .block_elems = 32, .block_bytes = 34, .rows_interleaved = 1,
     .note = "activation-only type (no dequantizer)"},
    {T(Q8_1_X4), .id = 98, .dialects = IK, .block_elems = 32, .block_bytes = 36, .rows_interleaved = 1,
     .note = "activation-only type (no dequantizer)"},
    {T(Q8_2_X4), .id = 99, .dialects = IK, .block_elems = 32, .block_bytes = 36, .rows_interleaved = 1,
     .note = "activation-only type (no dequantizer)"},
    {T(Q6_0), .id = 133, .dialects = IK, .block_elems = 32, .block_bytes = 26, .rows_interleaved = 1},
    {T(IQ1_BN), .id = 134, .dialects = IK, .block_elems = 64, .block_bytes = 13, .row_meta_bytes = 2,
     .rows_interleaved = 1, .note = "row scale applied (as the fork's CUDA dequantizer does)"},
    {T(IQ2_BN), .id = 135, .dialects = IK, .block_elems = 64, .block_bytes = 16, .row_meta_bytes = 4,
     .rows_interleaved = 1, .note = "row scale applied (as the fork's CUDA dequantizer does)"},
    {T(Q8_K64), .id = 136, .dialects = IK, .block_elems = 64, .block_bytes = 68, .rows_interleaved = 1,
     .note = "activation-only type (no dequantizer)"},
    {T(IQ2_K), .id = 137, .dialects = IK, .block_elems = 256, .block_bytes = 76, .rows_interleaved = 1},
    {T(IQ3_K), .id = 138, .dialects = IK, .block_elems = 256, .block_bytes = 110, .rows_interleaved = 1},
    {T(IQ4_K), .id = 139, .dialects = IK, .block_elems = 256, .block_bytes = 144, .rows_interleaved = 1},
    {T(IQ5_K), .id = 140, .dialects = IK, .block_elems = 256, .block_bytes = 176, .rows_interleaved = 1},
    {T(IQ6_K), .id = 141, .dialects = IK, .block_elems = 256, .block_bytes = 212, .rows_interleaved = 1},
    {T(IQ4_KS), .id = 144, .dialects = IK, .block_elems = 256, .block_bytes = 136, .row_meta_bytes = 4,
     .rows_interleaved = 1},
    {T(IQ2_KS), .id = 145, .dialects = IK, .block_elems = 256, .block_bytes = 70, .row_meta_bytes = 2,
     .rows_interleaved = 1},
    {T(IQ4_KSS), .id = 146, .dialects = IK, .block_elems = 256, .block_bytes = 128, .row_meta_bytes = 4,
     .rows_interleaved = 1},
    {T(Q8_K16), .id = 147, .dialects = IK, .block_elems = 64, .block_bytes = 64, .row_meta_bytes = 20,
     .rows_interleaved = 1, .note = "activation-only type (no dequantizer)"},
    {T(Q8_K32), .id = 148, .dialects = IK, .block_elems = 256, .block_bytes = 296, .rows_interleaved = 1,
     .note = "activation-only type (no dequantizer)"},
    {T(Q8_KR8), .id = 149, .dialects = IK, .block_elems = 256, .block_bytes = 296, .rows_interleaved = 1,
     .note = "activation-only type (no dequantizer)"},
    {T(Q8_K128), .id = 150, .dialects = IK, .block_elems = 128, .block_bytes = 140, .rows_interleaved = 1,
     .note = "activation-only type (no dequantizer)"},
    {T(Q8_KV), .id = 151, .dialects = IK, .block_elems = 32, .block_bytes = 32, .row_meta_bytes = 8,
     .rows_interleaved = 1},
    {T(IQ5_KS), .id = 152, .dialects = IK, .block_elems = 256, .block_bytes = 168, .row_meta_bytes = 4,
     .rows_interleaved = 1},
    {T(IQ2_KT), .id = 153, .dialects = IK, .block_elems = 256, .block_bytes = 68, .row_meta_bytes = 4,
     .rows_interleaved = 1},
    {T(IQ3_KT), .id = 154, .dialects = IK, .block_elems = 256, .block_bytes = 100, .row_meta_bytes = 4,
     .rows_interleaved = 1},
    {T(IQ4_KT), .id = 155, .dialects = IK, .block_elems = 256, .block_bytes = 128, .row_meta_bytes = 4,
     .rows_interleaved = 1},
    {T(IQ3_KS), .id = 156, .dialects = IK, .block_elems = 256, .block_bytes = 102, .row_meta_bytes = 2,
     .rows_interleaved = 1},
    {T(IQ2_KL), .id = 157, .dialects = IK, .block_elems = 256, .block_bytes = 86, .row_meta_bytes = 2,
     .rows_interleaved = 1},
    {T(IQ1_KT), .id = 158, .dialects = IK, .block_elems = 256, .block_bytes = 56, .row_meta_bytes = 4,
     .rows_interleaved = 1},
    {T(Q4_0_R8), .id = 202, .dialects = IK, .block_elems = 32, .block_bytes = 18, .rows_interleaved = 8},
    {T(Q5_0_R4), .id = 206, .dialects = IK, .block_elems = 32, .block_bytes = 22, .rows_interleaved = 4},
    {T(Q8_0_R8), .id = 208, .dialects = IK, .block_elems = 32, .block_bytes = 34, .rows_interleaved = 8},
    {T(Q2_K_R4), .id = 210, .dialects = IK, .block_elems = 256, .block_bytes = 84, .rows_interleaved = 4},
    {T(Q3_K_R4), .id = 211, .dialects = IK, .block_elems = 256, .block_bytes = 110, .rows_interleaved = 4},
    {T(Q4_K_R4), .id = 212, .dialects = IK, .block_elems = 256, .block_bytes = 144, .rows_interleaved = 4},
    {T(Q5_K_R4), .id = 213, .dialects = IK, .block_elems = 256, .block_bytes = 176, .rows_interleaved = 4},
    {T(Q6_K_R4), .id = 214, .dialects = IK, .block_elems = 256, .block_bytes = 210, .rows_interleaved = 4},
    {T(IQ2_XXS_R4), .id = 216, .dialects = IK, .block_elems = 256, .block_bytes = 66, .rows_interleaved = 4},
    {T(IQ2_XS_R4), .id = 217, .dialects = IK, .block_elems = 256, .block_bytes = 74, .rows_interleaved = 4},
    {T(IQ3_XXS_R4), .id = 218, .dialects = IK, .block_elems = 256, .block_bytes = 98, .rows_interleaved = 4},
    {T(IQ1_S_R4), .id = 219, .dialects = IK, .block_elems = 32, .block_bytes = 6, .row_meta_bytes = 2,
     .rows_interleaved = 4},
    {T(IQ4_NL_R4), .id = 220, .dialects = IK, .block_elems = 32, .block_bytes = 18, .rows_interleaved = 4},
    {T(IQ3_S_R4), .id = 221, .dialects = IK, .block_elems = 256, .block_bytes = 110, .rows_interleaved = 4},
    {T(IQ2_S_R4), .id = 222, .dialects = IK, .block_elems = 256, .block_bytes = 82, .rows_interleaved = 4},
    {T(IQ4_XS_R8), .id = 223, .dialects = IK, .block_elems = 256, .block_bytes = 136, .rows_interleaved = 8},
    {T(IQ1_M_R4), .id = 229, .dialects = IK, .block_elems = 32, .block_bytes = 7, .row_meta_bytes = 2,
     .rows_interleaved = 4},
    {T(BF16_R16), .id = 230, .dialects = IK, .block_elems = 1, .block_bytes = 2, .rows_interleaved = 16,
     .note = "no dequantizer in ik_llama.cpp"},
    {T(Q6_0_R4), .id = 233, .dialects = IK, .block_elems = 32, .block_bytes = 26, .rows_interleaved = 4},
    {T(IQ2_BN_R4), .id = 335, .dialects = IK, .block_elems = 64, .block_bytes = 16, .row_meta_bytes = 4,
     .rows_interleaved = 4},
    {T(IQ2_K_R4), .id = 337, .dialects = IK, .block_elems = 256, .block_bytes = 76, .rows_interleaved = 4},
    {T(IQ3_K_R4), .id = 338, .dialects = IK, .block_elems = 256, .block_bytes = 110, .rows_interleaved = 4},
    {T(IQ4_K_R4), .id = 339, .dialects = IK, .block_elems = 256, .block_bytes = 144, .rows_interleaved = 4},
    {T(IQ5_K_R4), .id = 340, .dialects = IK, .block_elems = 256, .block_bytes = 176, .rows_interleaved = 4},
    {T(IQ4_KS_R4), .id = 344, .dialects = IK, .block_elems = 256, .block_bytes = 136, .row_meta_bytes = 4,
     .rows_interleaved = 4},
    {T(IQ5_KS_R4), .id = 352, .dialects = IK, .block_elems = 256, .block_bytes = 168, .row_meta_bytes = 4,
     .rows_interleaved = 4},
    {T(MXFP4_R8), .id = 353, .dialects = IK, .block_elems = 32, .block_bytes = 17, .rows_interleaved = 8},
    {T(Q8_K_R16), .id = 397, .dialects = IK, .block_elems = 256, .block_bytes = 258, .rows_interleaved = 16,
     .note = "bytes are read as unsigned with an offset of -128, as the fork does; files quantized by an "
             "AVX2-only build of ik_llama.cpp hold signed bytes and decode wrongly there too"},
    {T(Q8_KV_R8), .id = 398, .dialects = IK, .block_elems = 32, .block_bytes = 32, .row_meta_bytes = 4,
     .rows_interleaved = 8},
    {T(Q8_K_R8), .id = 399, .dialects = IK, .block_elems = 256, .block_bytes = 258, .rows_interleaved = 8},

    /* Fork formats. */
    {T(STQ1_0), .id = 42, .dialects = STQ, .block_elems = 256, .block_bytes = 42, .rows_interleaved = 1,
     .note = "stride-16 element order (as distributed files)"},
    {T(STQ1_0), .id = 43, .dialects = STQ, .block_elems = 256, .block_bytes = 42, .rows_interleaved = 1,
     .note = "stride-16 element order (as distributed files)"},
    {T(STQ1_0_CONSECUTIVE), .id = 42, .dialects = STQ, .block_elems = 256, .block_bytes = 42,
     .rows_interleaved = 1, .flags = GG_TYPE_VARIANT,
     .note = "STQ1_0 with the older consecutive element order"},
    {T(STQ1_0_CONSECUTIVE), .id = 43, .dialects = STQ, .block_elems = 256, .block_bytes = 42,
     .rows_interleaved = 1, .flags = GG_TYPE_VARIANT,
     .note = "STQ1_0 with the older consecutive element order"},
    {T(PQ2_0), .id = 142, .dialects = PR, .block_elems = 128, .block_bytes = 34, .rows_interleaved = 1},
    {T(PTQ1_0), .id = 143, .dialects = PR, .block_elems = 128, .block_bytes = 28, .rows_interleaved = 1},
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

const gg_type *gg_type_mainline(gg_tid tid)
{
    for (size_t i = 0; i < N_TYPES; i++)
        if (table[i].tid == tid && (table[i].dialects & ML))
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
