/* compare.h - one model against a reference, tensor by tensor: the pairs
 * (by name), and the error figures of each pair (comparetext.h) from the
 * two models' decoded values.
 *
 * A pair's figures are computed once and kept: both tensors' f32 views
 * are streamed through the reader's page cache (view.h; memory bounded by
 * its budget, the pages read released as used once) in chunks of
 * GG_CMP_CHUNK elements, on every decode thread, and folded in double
 * precision. Each chunk is folded in 8 lanes (element j of the chunk into
 * lane j % 8), the lanes added in a fixed tree and the chunks in order, so
 * the figures do not depend on the number of threads, the page size or the
 * SIMD path. Callers that ask for a pair being computed wait for it.
 *
 * A comparison holds no model: it is made from two opened models, and
 * each call is given them again (they may have been closed and opened
 * again in between, the same files). */
#ifndef GGUFFS_COMPARE_H
#define GGUFFS_COMPARE_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "gguffs/comparetext.h"
#include "gguffs/error.h"
#include "gguffs/imatrix.h"
#include "gguffs/model.h"
#include "gguffs/view.h"

#define GG_CMP_CHUNK (1u << 18) /* elements folded as one: 1 MiB of f32 on each side */

typedef struct gg_cmp gg_cmp;

/* Counters, shared by the comparisons of a mount (its .stats). */
typedef struct gg_cmp_stats {
    _Atomic uint64_t tensors;  /* pairs whose figures were computed */
    _Atomic uint64_t elements; /* elements folded */
    _Atomic uint64_t waits;    /* callers that waited for a pair another one was computing */
    /* Progress (gguffs --compare): called with the elements folded so far,
     * from one thread at a time. NULL: none. */
    void (*tick)(void *arg, uint64_t elements);
    void *tick_arg;
} gg_cmp_stats;

/* One side of a comparison as it is read now: the model, the reader, the
 * cache id of its tensor 0 (tensor i is uid + i, as the tree numbers them),
 * and read-ahead state for streams of diff (may be NULL). */
typedef struct gg_cmp_side {
    gg_reader *r;
    const gg_model *m;
    uint32_t uid;
    gg_readahead *ra;
} gg_cmp_side;

/* Pair the tensors of a with those of ref by name (nothing is read but
 * the headers). im (may be NULL) weighs the pairs it has weights for, of
 * the size llama-quantize requires (ne0 x ne2). stats may be NULL. */
gg_cmp *gg_cmp_new(const gg_model *a, const gg_model *ref, const gg_imatrix *im, gg_cmp_stats *stats, gg_err *e);
void gg_cmp_free(gg_cmp *c);

/* The pairs compared, in a's order: how many, and a's and ref's tensor
 * index of pair k. */
size_t gg_cmp_pairs(const gg_cmp *c);
uint64_t gg_cmp_tensor(const gg_cmp *c, size_t k);
uint64_t gg_cmp_ref_tensor(const gg_cmp *c, size_t k);
/* The pair of a's tensor i, or SIZE_MAX when it is not compared. */
size_t gg_cmp_pair_of(const gg_cmp *c, uint64_t i);

/* The figures of pair k, computed on first use. 0, or -1 with *e set
 * (a read error; a later call tries again). */
int gg_cmp_compute(gg_cmp *c, size_t k, const gg_cmp_side *a, const gg_cmp_side *ref, gg_err *e);
/* Every pair's. */
int gg_cmp_compute_all(gg_cmp *c, const gg_cmp_side *a, const gg_cmp_side *ref, gg_err *e);

/* The table the texts are made of (comparetext.h), with the figures known
 * so far (none if figures is 0: the texts' sizes). a and ref must be the
 * models c was made of (the same files), alive while t is used. */
int gg_cmp_table_make(gg_cmp *c, const gg_model *a, const gg_model *ref, int figures, gg_cmp_table *t,
                      gg_err *e);
void gg_cmp_table_free(gg_cmp_table *t);

/* Bytes [off, off+size) of pair k's difference, this - ref as
 * little-endian float32 (rounded as float arithmetic rounds), into buf.
 * Returns the byte count (0 at the end) or -1 with *e set. */
ssize_t gg_cmp_read_diff(const gg_cmp *c, size_t k, const gg_cmp_side *a, const gg_cmp_side *ref, char *buf,
                         size_t size, uint64_t off, gg_err *e);

#endif
