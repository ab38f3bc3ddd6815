/* export.h - files in the formats Python tools and llama.cpp load directly,
 * made of segments laid end to end: literal bytes (a header), zeros
 * (padding), ranges of tensor views (view.h: f32, f16, bf16, quantized, raw), or
 * rows of them a stride apart, or their values less one (as/hf/, segread.c),
 * and ranges of a model's files. Nothing is decoded to build one: only the
 * header is made, whose size depends on the tensor count, not on the data.
 *
 *   tensors/<name>/f32.npy, f16.npy   .npy format 1.0 (2.0 only if its header
 *                                     needs it): '<f4' / '<f2', C order, shape
 *                                     in numpy order, data at a multiple of 64
 *   model.safetensors                 u64 little-endian header length, a JSON
 *                                     header padded with spaces to a multiple
 *                                     of 8, then every decodable tensor in file
 *                                     order, contiguous (dtype F32, F16 or BF16)
 *   model.gguf, as/<type>.gguf        GGUF files (gg_export_gguf below) */
#ifndef GGUFFS_EXPORT_H
#define GGUFFS_EXPORT_H

#include <stdint.h>
#include <sys/types.h>

#include "gguffs/error.h"
#include "gguffs/model.h"
#include "gguffs/recipe.h"
#include "gguffs/view.h" /* gg_view_kind */

/* What a segment's bytes are. */
typedef enum gg_seg_kind {
    GG_SEG_VIEW = 0,   /* a range of a tensor's view (or literal bytes: `bytes` set) */
    GG_SEG_ZEROS,      /* zeros (padding) */
    GG_SEG_SHARD,      /* bytes of the model's file `shard` as stored */
    GG_SEG_MINUS_ONE,  /* a view's values less one: in f32, then the view's type */
} gg_seg_kind;

typedef struct gg_segment {
    uint64_t at, len;    /* where it lies in the file */
    const char *bytes;   /* literal bytes, or NULL for the others */
    uint64_t tensor;     /* the model's tensor index (views) */
    gg_view_kind view;
    gg_seg_kind kind;
    uint32_t shard;      /* GG_SEG_SHARD */
    uint64_t from;       /* where it starts in its view or shard */
    /* Views: with `row` set, the segment is rows of `row` bytes taken
     * `stride` bytes apart from `from` on (0: one run). */
    uint64_t row, stride;
} gg_segment;

typedef struct gg_composite {
    uint64_t size;
    size_t n;
    gg_segment *seg;
    char *header;        /* the literal bytes it holds (others may lie in the model's header) */
    uint64_t header_len;
} gg_composite;

void gg_composite_free(gg_composite *c);
/* Memory c holds, about. */
uint64_t gg_composite_bytes(const gg_composite *c);

/* .npy of one tensor's f32 or f16 view. */
gg_composite *gg_export_npy(const gg_model *m, uint64_t tensor, gg_view_kind view, gg_err *e);

/* The whole model as safetensors; dtype: GG_VIEW_F32, F16 or BF16. Tensors
 * that cannot be decoded are left out and named in __metadata__. */
gg_composite *gg_export_safetensors(const gg_model *m, gg_view_kind dtype, gg_err *e);

/* model.gguf (gguf_write.h): the stored types. A single file is its own
 * bytes (one segment of its file); a split set one merged GGUF, split.*
 * keys dropped, the shards' tensors in order. A model whose keys were
 * edited (kvedit.h) has its edited keys: a single file the new header,
 * then its data section as it is (but where the edit changed
 * general.alignment: laid out anew, as a split set is). */
gg_composite *gg_export_gguf(const gg_model *m, gg_err *e);

/* as/<recipe>.gguf (recipe.h): every tensor in the type the recipe gives it,
 * general.file_type its llama_ftype. as/f32.gguf keeps the model's header
 * and tensor order (ALL_F32, 0, where the key was); the others are the
 * file llama-quantize makes of as/f32.gguf with no importance matrix,
 * byte for byte: its keys (gguf_write.h), its tensor order, its types, its
 * blocks, but for one thing: the model's general.alignment (llama-quantize
 * pads to 32 whatever the key says). Needs every tensor decodable, the
 * recipe able to place every tensor and a quantizer for each of its types
 * (else GG_E_UNSUPPORTED, saying which and why). The keys are m->f's: an
 * edited model's are its edits' (kvedit.h), as model.gguf's are. */
gg_composite *gg_export_recipe(const gg_model *m, const gg_recipe *r, gg_err *e);

/* Bytes [off, off+size) of c, described in ref (empty: gg_ref_init) as a
 * view's read describes them (view.h): literal bytes where they lie (c
 * outlives the reply), the bytes of one run of a view in the cached pages
 * where they are, the rest in buf (size bytes): zeros, file bytes, and what
 * is made of a view (rows taken a stride apart, values less one).
 * read(arg, s, buf, n, off, sub, e) describes in sub n bytes (or fewer) of
 * segment s (a view or a file) from off within it, using buf; it is given
 * only GG_SEG_VIEW and GG_SEG_SHARD segments. Returns the byte count, or -1
 * with *e set and nothing to release (sub-reads are let go through r). */
typedef ssize_t (*gg_seg_read_fn)(void *arg, const gg_segment *s, char *buf, size_t n, uint64_t off, gg_ref *sub,
                                  gg_err *e);
ssize_t gg_composite_read(const gg_composite *c, gg_reader *r, gg_seg_read_fn read, void *arg, char *buf, size_t size,
                          uint64_t off, gg_ref *ref, gg_err *e);

#endif
