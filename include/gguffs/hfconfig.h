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

/* llama 3's rope scaling, from the factors llama.cpp's converter stored in
 * rope_freqs.weight (r[i] for frequency pair i of a head of `dim`, rope base
 * `base`): 1 for wavelengths below L / high_freq_factor, `factor` above
 * L / low_freq_factor, 1 / ((1 - s) / factor + s) between, s = (L /
 * wavelength - low) / (high - low). Finds factor, low_freq_factor,
 * high_freq_factor and L (original_max_position_embeddings) that give every
 * r[i] within float32 rounding: the usual values of llama 3 models first,
 * else solved from the factors (the three are then known only up to a
 * common scale, which changes nothing: L is taken as `ctx`, the model's
 * context, when it is not 0). 1 and *out; 0 when all are 1 (no scaling); -1
 * when no parameters give them. */
typedef struct gg_hf_llama3 {
    double factor, low, high, orig_ctx;
    float factor_f32; /* the factor as stored */
} gg_hf_llama3;
int gg_hf_rope_llama3(const float *r, uint64_t n, double base, uint64_t dim, double ctx, gg_hf_llama3 *out);

/* The rope scaling a model's rope factor tensors stand for (read by
 * hfexport.h's gg_hf_rope_read): llama 3's parameters, or phi-3's longrope
 * lists (n factors each). */
enum { GG_HF_ROPE_NONE = 0, GG_HF_ROPE_LLAMA3, GG_HF_ROPE_LONGROPE };
#define GG_HF_ROPE_MAX 256
typedef struct gg_hf_rope {
    int kind;
    gg_hf_llama3 llama3;
    uint64_t n;
    float long_f[GG_HF_ROPE_MAX], short_f[GG_HF_ROPE_MAX];
} gg_hf_rope;

/* torch_dtype: "float32", "float16" or "bfloat16"; rope: what the rope
 * factor tensors stand for (NULL: there are none). The plan must have its
 * weights (no why). */
void gg_hf_config_json(const gg_model *m, const gg_hf_plan *p, const char *torch_dtype, const gg_hf_rope *rope,
                       gg_buf *out);
/* generation_config.json: the bos and pad ids, and as eos_token_id the
 * tokens llama.cpp ends generation at (gg_hf_eog_ids). */
void gg_hf_generation_config_json(const gg_model *m, gg_buf *out);

/* What keeps config.json, model.safetensors or the tokenizer files out of
 * as/hf/ (empty when nothing does); `more`: a reason found beyond the
 * plan's (from tensor values), or NULL. */
void gg_hf_why(const gg_model *m, const gg_hf_plan *p, const char *more, gg_buf *out);

#endif
