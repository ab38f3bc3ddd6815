/* imatrix.h - the weights of an importance matrix, as llama-quantize weighs
 * a tensor's columns with it.
 *
 * An imatrix GGUF (llama-imatrix's format; general.type "imatrix") holds,
 * per weight tensor NAME, NAME.in_sum2 (F32: the sums of squared
 * activations, ne0 per expert) and NAME.counts (F32: the tokens seen, one
 * per expert). llama-quantize's weight of column i of expert e is
 * in_sum2[e*ne0 + i] / count[e], in float, the count rounded to an integer
 * first; 1 where the count is not positive. This reads them once, whole. */
#ifndef GGUFFS_IMATRIX_H
#define GGUFFS_IMATRIX_H

#include <stddef.h>
#include <stdint.h>

#include "gguffs/error.h"
#include "gguffs/model.h"

typedef struct gg_imatrix gg_imatrix;

/* Load the weights of the imatrix GGUF at path (a file or a URL, opened with
 * o). Returns NULL with *e set: the file's errors, GG_E_MALFORMED when it
 * holds no NAME.in_sum2 with its NAME.counts, or a pair that is not F32 or
 * whose sizes do not divide. */
gg_imatrix *gg_imatrix_load(const char *path, const gg_open_opts *o, gg_err *e);
void gg_imatrix_free(gg_imatrix *im);

/* The weights of tensor `name` (n bytes): *count floats (ne0 x experts), or
 * NULL when the imatrix has none. */
const float *gg_imatrix_weights(const gg_imatrix *im, const char *name, size_t n, uint64_t *count);

/* How many tensors it weighs. */
size_t gg_imatrix_size(const gg_imatrix *im);

#endif
