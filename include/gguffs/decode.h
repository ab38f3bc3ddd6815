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

typedef enum gg_isa {
    GG_ISA_SCALAR = 0, /* portable C, any CPU */
    GG_ISA_AVX2 = 1,   /* x86-64 AVX2 + FMA + F16C + BMI2 (x86-64-v3) */
    GG_ISA_AVX512 = 2, /* AVX-512 F/BW/VL/DQ/CD (x86-64-v4) */
    GG_ISA_COUNT
} gg_isa;

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

/* Kernels register themselves by type name in arrays terminated by {0}. */
typedef struct gg_kernel_entry {
    const char *type_name; /* as in the type table, e.g. "Q4_K", "IQ3_KS" */
    gg_isa isa;
    gg_kernel fn;
} gg_kernel_entry;

/* Best instruction set this CPU (and OS) supports. */
gg_isa gg_isa_detect(void);
/* "scalar", "avx2", "avx512" -> isa; returns 0 on success, -1 if unknown. */
int gg_isa_parse(const char *s, gg_isa *out);
const char *gg_isa_name(gg_isa isa);

/* The instruction set decoding uses (set once at start-up; defaults to the
 * detected one, or to $GGUFFS_SIMD when that names one). */
gg_isa gg_isa_active(void);
/* Force a path; fails (-1) if the CPU lacks it. */
int gg_isa_set(gg_isa isa);

#endif
