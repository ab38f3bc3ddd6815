/* layout.h - where a tensor's elements live in its bytes, and decoding any
 * element range of it with the type's kernels.
 *
 * Callers first ask which bytes a range needs (gg_layout_bytes), fetch them
 * however they like (pread, mmap, memory), then decode (gg_layout_decode).
 * Nothing here does I/O. */
#ifndef GGUFFS_LAYOUT_H
#define GGUFFS_LAYOUT_H

#include <stdint.h>

#include "gguffs/types.h"

typedef struct gg_layout {
    const gg_type *type;
    uint64_t ne0;       /* elements per row */
    uint64_t nrows;     /* product of the other dimensions */
    uint64_t nelems;    /* ne0 * nrows */
    uint64_t row_bytes; /* per-row metadata + blocks of one row */
    uint64_t nbytes;    /* bytes of the whole tensor */
} gg_layout;

/* Fill *l; returns 0, or -1 (GG_E_UNSUPPORTED) when the shape does not fit t. */
int gg_layout_init(gg_layout *l, const gg_type *t, uint64_t ne0, uint64_t nrows, gg_err *e);

/* Elements a decode should be aligned to so that no work is wasted: one
 * block for most types, a whole row group (R * ne0) for interleaved ones. */
uint64_t gg_layout_granule(const gg_layout *l);

/* Tensor byte range [*lo, *hi) that decoding elements [e0, e1) reads, and
 * for trailing-scale types the offset of the 4-byte scale (*tail, else
 * UINT64_MAX). Requires e0 < e1 <= nelems. */
void gg_layout_bytes(const gg_layout *l, uint64_t e0, uint64_t e1, uint64_t *lo, uint64_t *hi,
                     uint64_t *tail);

/* Decode elements [e0, e1) into dst (e1 - e0 floats). buf holds tensor bytes
 * [lo, hi) as returned by gg_layout_bytes for the same range (a larger range
 * is fine), tail the 4-byte scale when *tail was set. Any e0 < e1 works;
 * partial blocks are decoded into scratch and copied.
 * Returns 0, or -1 if the type has no decoder. */
int gg_layout_decode(const gg_layout *l, gg_isa isa, const uint8_t *buf, uint64_t lo,
                     const uint8_t *tail, uint64_t e0, uint64_t e1, float *dst);

#endif
