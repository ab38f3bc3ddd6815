/* modeltext.h - texts about one model, as the tree's files show them:
 * info.json of a tensor, tensors.tsv, types.tsv, as/why, and the model's summary
 * (summary.h). They know the model's header, not the tree nor its tensor
 * data (a tensor's stats, which decode it, are stats.h's). */
#ifndef GGUFFS_MODELTEXT_H
#define GGUFFS_MODELTEXT_H

#include "gguffs/error.h"
#include "gguffs/model.h"
#include "gguffs/buf.h"

/* info.json of a tensor (also used by --dump --json). */
void gg_tensor_info_json(const gg_model *m, const gg_tensor *ts, gg_buf *out);

/* tensors.tsv; tree_names[i] is tensor i's folder name under tensors/. */
void gg_tensors_tsv(const gg_model *m, char *const *tree_names, gg_buf *out);

/* types.tsv: one line per (type, id) present, in order of appearance. */
void gg_types_tsv(const gg_model *m, gg_buf *out);

/* as/why: with tensors that cannot be decoded, a line saying there are no
 * GGUF views, then one line per such tensor: name, type (or "id N" when the
 * id means nothing known), why; else a line per recipe (recipe.h) the
 * model cannot take: its file's name and why. Tab-separated, escaped as
 * tensors.tsv fields are, after a header line starting with '#'. */
void gg_as_why(const gg_model *m, gg_buf *out);

#endif
