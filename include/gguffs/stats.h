/* stats.h - tensors/<name>/stats: count, min, max, mean, std, NaN, Inf and
 * zeros of a tensor's decoded values. It reads the tensor's data through a
 * reader (view.h), so it sits with the views, above the texts of
 * modeltext.h that know only the header. */
#ifndef GGUFFS_STATS_H
#define GGUFFS_STATS_H

#include "gguffs/buf.h"
#include "gguffs/error.h"
#include "gguffs/model.h"
#include "gguffs/view.h"

/* tensors/<name>/stats: 8 lines of "%-5s %24s\n". */
#define GG_STATS_WIDTH 24
#define GG_STATS_BYTES (8 * (5 + 1 + GG_STATS_WIDTH + 1))

/* A tensor's stats (it decodes the whole tensor): 0, or -1 with *e set. */
int gg_tensor_stats(gg_reader *r, const gg_model *m, const gg_tensor *ts, gg_buf *out, gg_err *e);

#endif
