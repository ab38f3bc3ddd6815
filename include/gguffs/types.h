/* types.h - the tensor type table: what each type id means in each dialect,
 * how its bytes are laid out, and which kernels decode it. */
#ifndef GGUFFS_TYPES_H
#define GGUFFS_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "gguffs/decode.h"
#include "gguffs/error.h"

/* Dialects: families of programs that write GGUF files and agree on ids. */
enum {
    GG_DIALECT_MAINLINE = 1u << 0, /* ggml / llama.cpp */
    GG_DIALECT_IK = 1u << 1,       /* ik_llama.cpp */
    GG_DIALECT_STQ = 1u << 2,      /* STQ1_0 (llama.cpp PR #22836, Tencent files) */
    GG_DIALECT_PRISM = 1u << 3,    /* PrismML fork */
    GG_DIALECT_ALL = 0xfu,
};

enum {
    /* I2_S: one float32 scale after all codes; data is n/4 + 32 bytes. */
    GG_TYPE_TRAILING_SCALE = 1u << 0,
    /* Only chosen when forced with -o types= (an alternative element order). */
    GG_TYPE_VARIANT = 1u << 1,
    /* Plain number types (F32, F16, I8, ...): one element per block. */
    GG_TYPE_PLAIN_NUMBER = 1u << 2,
};

typedef struct gg_type {
    const char *name;          /* unique, e.g. "Q4_K", "IQ3_KS", "STQ1_0" */
    gg_tid tid;                /* identity shared with the kernels (GG_T_<name>) */
    uint32_t id;               /* id stored in files of its dialects */
    uint32_t dialects;         /* GG_DIALECT_* where `id` means this layout */
    uint32_t block_elems;      /* elements per block */
    uint32_t block_bytes;      /* bytes per block */
    uint32_t row_meta_bytes;   /* bytes in front of every row's blocks */
    uint32_t rows_interleaved; /* 1, or R for the _R4/_R8/_R16 types */
    uint32_t flags;            /* GG_TYPE_* */
    const char *note;          /* shown in info.json; NULL if none */
} gg_type;

/* The whole table (all dialects), in a stable order. */
size_t gg_type_count(void);
const gg_type *gg_type_at(size_t i);
size_t gg_type_index(const gg_type *t);

/* Every type that `id` can mean, in any dialect; returns how many were
 * written to out (at most max). */
size_t gg_types_for_id(uint32_t id, const gg_type **out, size_t max);
/* Look a type up by name (case-insensitive). NULL if none. */
const gg_type *gg_type_by_name(const char *name);
/* The row of a type identity in mainline ggml's dialect (its id and block
 * there), or NULL when mainline has no such type. */
const gg_type *gg_type_mainline(gg_tid tid);

/* The kernel that decodes `t` on `isa`, falling back to lower instruction
 * sets; NULL if the type cannot be decoded at all. */
gg_kernel gg_type_kernel(const gg_type *t, gg_isa isa);
/* The instruction set of the kernel gg_type_kernel() would return. */
gg_isa gg_type_kernel_isa(const gg_type *t, gg_isa isa);

/* Bytes a tensor of this type with `ne0` elements per row and `nrows` rows
 * occupies, into *out. Returns 0, or -1 (GG_E_UNSUPPORTED, a message
 * without context) when the shape does not fit the type (row length not a
 * multiple of the block, rows not a multiple of R, overflow). */
int gg_type_nbytes(const gg_type *t, uint64_t ne0, uint64_t nrows, uint64_t *out, gg_err *e);

#endif
