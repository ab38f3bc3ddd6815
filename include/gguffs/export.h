/* export.h - files in the formats Python tools load directly, made of
 * segments laid end to end: literal bytes (a header) and ranges of tensor
 * views (view.h: f32, f16, bf16, raw). Nothing is decoded to build one: only the header
 * is made, whose size depends on the tensor count, not on the data.
 *
 *   tensors/<name>/f32.npy, f16.npy   .npy format 1.0 (2.0 only if its header
 *                                     needs it): '<f4' / '<f2', C order, shape
 *                                     in numpy order, data at a multiple of 64
 *   model.safetensors                 u64 little-endian header length, a JSON
 *                                     header padded with spaces to a multiple
 *                                     of 8, then every decodable tensor in file
 *                                     order, contiguous (dtype F32, F16 or BF16) */
#ifndef GGUFFS_EXPORT_H
#define GGUFFS_EXPORT_H

#include <stdint.h>
#include <sys/types.h>

#include "gguffs/error.h"
#include "gguffs/model.h"
#include "gguffs/view.h" /* gg_view_kind */

typedef struct gg_segment {
    uint64_t at, len;    /* where it lies in the file */
    const char *bytes;   /* literal bytes, or NULL for a tensor view */
    uint64_t tensor;     /* the model's tensor index (views) */
    gg_view_kind view;
    /* Views only (segread.c): the segment starts `from` bytes into the
     * view; with `row` set, it is rows of `row` bytes taken `stride` bytes
     * apart (0: one run). `xform` GG_SEG_MINUS_ONE: value - 1 in f32, then
     * the view's type. */
    uint64_t from, row, stride;
    uint8_t xform;
} gg_segment;

enum { GG_SEG_PLAIN = 0, GG_SEG_MINUS_ONE = 1 };

typedef struct gg_composite {
    uint64_t size;
    size_t n;
    gg_segment *seg;
    char *header;        /* the literal bytes */
} gg_composite;

void gg_composite_free(gg_composite *c);
/* Memory c holds, about. */
uint64_t gg_composite_bytes(const gg_composite *c);

/* .npy of one tensor's f32 or f16 view. */
gg_composite *gg_export_npy(const gg_model *m, uint64_t tensor, gg_view_kind view, gg_err *e);

/* The whole model as safetensors; dtype: GG_VIEW_F32, F16 or BF16. Tensors
 * that cannot be decoded are left out and named in __metadata__. */
gg_composite *gg_export_safetensors(const gg_model *m, gg_view_kind dtype, gg_err *e);

/* Read [off, off+size) of c into buf; view(arg, tensor, kind, buf, n, off, e)
 * reads view bytes. Returns the byte count or -1 with *e set. */
typedef ssize_t (*gg_view_read_fn)(void *arg, uint64_t tensor, gg_view_kind kind, char *buf, size_t n,
                                   uint64_t off, gg_err *e);
ssize_t gg_composite_read(const gg_composite *c, gg_view_read_fn view, void *arg, char *buf, size_t size,
                          uint64_t off, gg_err *e);

/* Bytes [in, in+n) of view segment s (segread.c). */
ssize_t gg_segment_read(const gg_segment *s, gg_view_read_fn view, void *arg, char *buf, size_t n, uint64_t in,
                        gg_err *e);

#endif
