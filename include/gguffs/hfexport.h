/* hfexport.h - what as/hf/ takes from tensor data: model.safetensors, the
 * weights of a Hugging Face plan (hfplan.h) as one safetensors file of
 * segments (export.h): a header made in memory, then each HF tensor's runs
 * of the GGUF tensors' views in the dtype asked for (f32, f16 or bf16),
 * nothing decoded to list it; and the rope scaling of config.json, which
 * only the values of the rope factor tensors tell. */
#ifndef GGUFFS_HFEXPORT_H
#define GGUFFS_HFEXPORT_H

#include "gguffs/export.h"
#include "gguffs/hfconfig.h"
#include "gguffs/hfplan.h"

/* NULL with *e set when the plan has no weights (its why says so) or
 * memory is short. */
gg_composite *gg_export_hf_safetensors(const gg_model *m, const gg_hf_plan *p, gg_view_kind dtype, gg_err *e);

/* The rope scaling of the plan's rope factor tensors (llama's rope_freqs,
 * phi-3's rope_factors_long / _short: a few dozen F32 values each, read as
 * stored): 0 and *out (kind NONE when there are none or they change
 * nothing); -1 and *why when no config.json can carry them or they cannot
 * be read (then *e says why). */
int gg_hf_rope_read(const gg_model *m, const gg_hf_plan *p, gg_hf_rope *out, const char **why, gg_err *e);

#endif
