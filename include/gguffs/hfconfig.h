/* hfconfig.h - the texts of as/hf/ that describe the model: config.json and
 * generation_config.json, made from the GGUF keys the way transformers
 * reads a checkpoint of the plan's class (hfplan.h), and `why`, which says
 * what keeps files out of the folder.
 *
 * config.json carries what llama.cpp computes with: the figures of the
 * keys (and llama.cpp's defaults where a key is missing), the attention
 * scale and sliding-window layers llama.cpp derives for gemma, the torch
 * dtype of model.safetensors. Floats are written as the shortest text
 * that reads back to the stored value (f32 keys at f32 precision). */
#ifndef GGUFFS_HFCONFIG_H
#define GGUFFS_HFCONFIG_H

#include "gguffs/buf.h"
#include "gguffs/hfplan.h"
#include "gguffs/model.h"

/* torch_dtype: "float32", "float16" or "bfloat16". The plan must have
 * its weights (no why). */
void gg_hf_config_json(const gg_model *m, const gg_hf_plan *p, const char *torch_dtype, gg_buf *out);
void gg_hf_generation_config_json(const gg_model *m, gg_buf *out);

/* What keeps config.json, model.safetensors or the tokenizer files out of
 * as/hf/ (empty when nothing does). */
void gg_hf_why(const gg_model *m, const gg_hf_plan *p, gg_buf *out);

#endif
