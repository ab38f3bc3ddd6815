/* gguf_write.h - the header of a GGUF file holding a model's tensors anew
 * (model.gguf of a split set, as/f32.gguf, ...), made from the parsed
 * header alone: nothing is read, and the data that follows it is the
 * caller's to lay out where this says.
 *
 * The header is GGUF version 3, as ggml writes it:
 *   - every key of the model (m->f: its first shard's, or for a model
 *     whose keys were edited, kvedit.h, its edited header's), in its
 *     order, its value as stored (a GGUF v1 file's 32-bit lengths and
 *     counts widened), but the split.* keys of gguf-split, which a single
 *     file must not carry;
 *   - general.file_type set to the value asked for (a u32 where the key
 *     was, or last if there was none), or kept;
 *   - every tensor of every shard in the model's order, its dimensions as
 *     stored, its type id and data offset the new ones;
 *   - then zeros up to the alignment (general.alignment, else 32), where
 *     the data starts (none when there are no tensors: ggml reads such a
 *     file, and an alignment of 2^31 would make it 2 GiB). Tensor i lies at offset[i] from there, each padded
 *     with zeros to the alignment (the last one too, as ggml's writer
 *     does). The zeros are not made here: an alignment may be 2^31.
 * Or as llama-quantize writes the file it makes (gg_gguf_form.quantized):
 * general.quantization_version (2) and general.file_type are taken out
 * where they were and set last, in that order (gguf_set_val_u32 removes a
 * key and appends it); the tensors come in the order given, each with the
 * dimensions ggml counts (ggml_n_dims: trailing 1s dropped). */
#ifndef GGUFFS_GGUF_WRITE_H
#define GGUFFS_GGUF_WRITE_H

#include <stdint.h>

#include "gguffs/buf.h"
#include "gguffs/error.h"
#include "gguffs/model.h"

/* How tensor i is stored in the new file. */
typedef struct gg_gguf_tensor {
    uint32_t type_id;
    uint64_t nbytes;
} gg_gguf_tensor;

#define GG_FILE_TYPE_KEEP (-1)

/* Runs of the model's header copy that the new header holds as they are
 * (keys and values of a GGUF v2 or v3 file: a vocabulary may be megabytes),
 * left out of `out` so that several headers made of one model share them:
 * run i is `len` bytes from `src`, at `at` in the new header. */
typedef struct gg_gguf_run {
    uint64_t at, len;
    const uint8_t *src;
} gg_gguf_run;
typedef struct gg_gguf_runs {
    gg_gguf_run *run; /* malloc'ed; the caller frees it */
    size_t n, cap;
    uint64_t bytes; /* in all runs */
} gg_gguf_runs;

/* How the header is written. */
typedef struct gg_gguf_form {
    int64_t file_type;     /* a llama_ftype value, or GG_FILE_TYPE_KEEP */
    int quantized;         /* llama-quantize's keys and dimensions (above) */
    const uint64_t *order; /* the tensors in this order (model indexes); NULL: the model's */
    gg_gguf_runs *share;   /* NULL: every byte goes to out; else runs as above */
} gg_gguf_form;

/* The quantization version llama-quantize writes (GGML_QNT_VERSION). */
#define GG_QNT_VERSION 2

/* The header of m with tensors ts[0 .. m->nt) (by the model's index) into
 * out (appended, without its padding; but the runs of form->share);
 * *data_start gets where the data starts (the header's length padded),
 * offset[i] tensor i's offset from there, *data_bytes the length of the
 * data section (paddings included). Returns 0, or -1 with *e set (out of
 * memory, sizes past 2^63). */
int gg_gguf_header(const gg_model *m, const gg_gguf_tensor *ts, const gg_gguf_form *form, gg_buf *out,
                   uint64_t *offset, uint64_t *data_start, uint64_t *data_bytes, gg_err *e);

/* The header of a one-file model whose keys were edited (kvedit.h):
 * GGUF version 3, m's keys (split.* too, as the file has them), the file's
 * tensor infos as stored, their offsets too: the file's data section
 * follows as it is, from *data_start (the header's length padded to
 * general.alignment, which must be the file's). Returns 0, or -1 with *e. */
int gg_gguf_header_in_place(const gg_model *m, gg_buf *out, uint64_t *data_start, gg_err *e);

/* The dimensions of a tensor as ggml counts them (ggml_n_dims): up to the
 * last one that is not 1, at least 1. */
uint32_t gg_tinfo_ndims(const gg_tinfo *ti);

#endif
