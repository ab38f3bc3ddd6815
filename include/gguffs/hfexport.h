/* hfexport.h - as/hf/model.safetensors: the weights of a Hugging Face plan
 * (hfplan.h) as one safetensors file of segments (export.h): a header
 * made in memory, then each HF tensor's runs of the GGUF tensors' views
 * in the dtype asked for (f32, f16 or bf16), nothing decoded to list it. */
#ifndef GGUFFS_HFEXPORT_H
#define GGUFFS_HFEXPORT_H

#include "gguffs/export.h"
#include "gguffs/hfplan.h"

/* NULL with *e set when the plan has no weights (its why says so) or
 * memory is short. */
gg_composite *gg_export_hf_safetensors(const gg_model *m, const gg_hf_plan *p, gg_view_kind dtype, gg_err *e);

#endif
