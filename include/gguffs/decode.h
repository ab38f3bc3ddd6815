/* decode.h - the contract between the core and the per-type decoding kernels.
 *
 * A kernel turns stored blocks of one tensor type into float32, bit for bit
 * like the reference dequantizer of that type. Every type has a portable
 * scalar kernel (the readable reference); SIMD kernels sit beside it and must
 * produce the same bytes. Kernels know nothing of files, GGUF or caching.
 */
#ifndef GGUFFS_DECODE_H
#define GGUFFS_DECODE_H

#include <stdint.h>

/* The decoding paths. They are not one ladder: each architecture has its
 * own (x86-64: avx512 -> avx2 -> scalar; aarch64: neon -> scalar), and
 * gg_isa_fallback() walks it. */
typedef enum gg_isa {
    GG_ISA_SCALAR = 0, /* portable C, any CPU */
    GG_ISA_AVX2 = 1,   /* x86-64 AVX2 + FMA + F16C + BMI2 (x86-64-v3) */
    GG_ISA_AVX512 = 2, /* AVX-512 F/BW/VL/DQ/CD (x86-64-v4) */
    GG_ISA_NEON = 3,   /* aarch64 Advanced SIMD (baseline there) */
    GG_ISA_COUNT
} gg_isa;

/* Every tensor type by identity (one per name in the type table, whatever
 * ids and dialects it has): the type table and the kernel entries meet on
 * these, never on names. */
#define GG_TYPE_IDS(X) \
    X(F32) X(F16) X(Q4_0) X(Q4_1) X(Q5_0) X(Q5_1) \
    X(Q8_0) X(Q8_1) X(Q2_K) X(Q3_K) X(Q4_K) X(Q5_K) \
    X(Q6_K) X(Q8_K) X(IQ2_XXS) X(IQ2_XS) X(IQ3_XXS) X(IQ1_S) \
    X(IQ4_NL) X(IQ3_S) X(IQ2_S) X(IQ4_XS) X(I8) X(I16) \
    X(I32) X(I64) X(F64) X(IQ1_M) X(BF16) X(MXFP4) \
    X(Q1_0) X(TQ1_0) X(TQ2_0) X(NVFP4) X(Q2_0) X(Q8_K_IK) \
    X(Q4_0_4_4) X(Q4_0_4_8) X(Q4_0_8_8) X(I2_S) X(Q8_0_X4) X(Q8_1_X4) \
    X(Q8_2_X4) X(Q6_0) X(IQ1_BN) X(IQ2_BN) X(Q8_K64) X(IQ2_K) \
    X(IQ3_K) X(IQ4_K) X(IQ5_K) X(IQ6_K) X(IQ4_KS) X(IQ2_KS) \
    X(IQ4_KSS) X(Q8_K16) X(Q8_K32) X(Q8_KR8) X(Q8_K128) X(Q8_KV) \
    X(IQ5_KS) X(IQ2_KT) X(IQ3_KT) X(IQ4_KT) X(IQ3_KS) X(IQ2_KL) \
    X(IQ1_KT) X(Q4_0_R8) X(Q5_0_R4) X(Q8_0_R8) X(Q2_K_R4) X(Q3_K_R4) \
    X(Q4_K_R4) X(Q5_K_R4) X(Q6_K_R4) X(IQ2_XXS_R4) X(IQ2_XS_R4) X(IQ3_XXS_R4) \
    X(IQ1_S_R4) X(IQ4_NL_R4) X(IQ3_S_R4) X(IQ2_S_R4) X(IQ4_XS_R8) X(IQ1_M_R4) \
    X(BF16_R16) X(Q6_0_R4) X(IQ2_BN_R4) X(IQ2_K_R4) X(IQ3_K_R4) X(IQ4_K_R4) \
    X(IQ5_K_R4) X(IQ4_KS_R4) X(IQ5_KS_R4) X(MXFP4_R8) X(Q8_K_R16) X(Q8_KV_R8) \
    X(Q8_K_R8) X(STQ1_0) X(STQ1_0_CONSECUTIVE) X(PQ2_0) X(PTQ1_0)

typedef enum gg_tid {
    GG_T_NONE = 0, /* ends a kernel list */
#define GG_T_ENUM_(n) GG_T_##n,
    GG_TYPE_IDS(GG_T_ENUM_)
#undef GG_T_ENUM_
    GG_T_COUNT
} gg_tid;

/* One kernel signature serves every layout:
 *
 *  plain block types     meta = NULL; src = first block; nblocks blocks are
 *                        decoded to dst[0 .. nblocks*block_elems); dst_stride unused.
 *  per-row metadata      meta = the row's metadata bytes (row scale, ...);
 *                        src = first block to decode, within that row.
 *  row-interleaved (_Rn) meta = the R per-row metadata values at the start of
 *                        the R-row group (NULL if the type has none);
 *                        src = first block column to decode (group start +
 *                        R*row_meta_bytes + column*R*block_bytes); nblocks
 *                        columns are decoded; row r of the group goes to
 *                        dst + r*dst_stride (dst is the output of row 0 at
 *                        that column).
 *  trailing-scale (I2_S) meta = the float32 scale stored after the codes.
 *
 * Kernels must accept any nblocks >= 1 and must not read outside the blocks
 * (and metadata) they were given. */
typedef void (*gg_kernel)(const uint8_t *meta, const uint8_t *src, float *dst,
                          int64_t nblocks, int64_t dst_stride);

/* Each family object lists its kernels in an array ended by {0}; an object
 * whose target is not built for this architecture has only the {0}. */
typedef struct gg_kernel_entry {
    gg_tid type; /* e.g. GG_T_Q4_K */
    gg_isa isa;
    gg_kernel fn;
} gg_kernel_entry;

/* Calls fn on every kernel entry of every family and target (src/decode/registry.c). */
void gg_registry_each(void (*fn)(const gg_kernel_entry *e, void *arg), void *arg);

/* Best instruction set this CPU (and OS) supports. */
gg_isa gg_isa_detect(void);
/* 1 if this build and CPU can run `isa` (scalar always; never the paths of
 * another architecture). `gguffs --version` lists these. */
int gg_isa_supported(gg_isa isa);
/* The path to try when `isa` has no kernel for a type: avx512 -> avx2 ->
 * scalar, neon -> scalar; scalar -> scalar. */
gg_isa gg_isa_fallback(gg_isa isa);
/* "scalar", "avx2", "avx512", "neon" -> isa; returns 0 on success, -1 if unknown. */
int gg_isa_parse(const char *s, gg_isa *out);
const char *gg_isa_name(gg_isa isa);

/* The instruction set decoding uses (set once at start-up; defaults to the
 * detected one, or to $GGUFFS_SIMD when that names one). */
gg_isa gg_isa_active(void);
/* Force a path; fails (-1) if it is not supported here (gg_isa_supported). */
int gg_isa_set(gg_isa isa);

#endif
