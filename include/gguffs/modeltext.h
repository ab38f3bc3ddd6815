/* modeltext.h - texts about one model, as the tree's files show them:
 * info.json of a tensor, tensors.tsv, types.tsv, a tensor's stats, and the
 * model's summary (summary.h). They know the model, not the tree. */
#ifndef GGUFFS_MODELTEXT_H
#define GGUFFS_MODELTEXT_H

#include "gguffs/error.h"
#include "gguffs/model.h"
#include "gguffs/buf.h"
#include "gguffs/view.h"

/* tensors/<name>/stats: 8 lines of "%-5s %24s\n". */
#define GG_STATS_WIDTH 24
#define GG_STATS_BYTES (8 * (5 + 1 + GG_STATS_WIDTH + 1))

/* info.json of a tensor (also used by --dump --json). */
void gg_tensor_info_json(const gg_model *m, const gg_tensor *ts, gg_buf *out);

/* tensors.tsv; tree_names[i] is tensor i's folder name under tensors/. */
void gg_tensors_tsv(const gg_model *m, char *const *tree_names, gg_buf *out);

/* types.tsv: one line per (type, id) present, in order of appearance. */
void gg_types_tsv(const gg_model *m, gg_buf *out);

/* A tensor's stats (it decodes the whole tensor): 0, or -1 with *e set. */
int gg_tensor_stats(gg_reader *r, const gg_model *m, const gg_tensor *ts, gg_buf *out, gg_err *e);

#endif
