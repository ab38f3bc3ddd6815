/* hfplan.h - a GGUF model as the Hugging Face checkpoint it was converted
 * from: which transformers class loads it, and every weight under its HF
 * name, in HF row order, as runs of the GGUF tensors' values.
 *
 * It undoes what llama.cpp's converter (convert_hf_to_gguf.py) did to each
 * supported architecture, names by the inverse of gguf-py's
 * tensor_mapping.py:
 *   - llama (and mistral, mixtral): attn_q / attn_k rows were permuted per
 *     head for llama.cpp's rope (reshape(n_head, 2, hd/2, ...).swapaxes(1,2));
 *     here each head's rows come back in order, K with the KV heads;
 *   - gemma, gemma2, gemma3: every norm weight had 1 added; here 1 is taken off
 *     (a value transform of the run, GG_HF_MINUS_ONE);
 *   - MoE experts were stacked into 3-D ffn_*_exps tensors; here each
 *     expert is its own 2-D slice (model.layers.N.mlp.experts.E.*_proj);
 *   - a missing output.weight means tied embeddings (no lm_head.weight).
 * Anything it cannot account for (another architecture, a tensor it has no
 * name for, a tensor that cannot be decoded, a missing one, rope scaling it
 * cannot express) leaves the weights out, and `why` says what: a folder
 * that loads and computes something else must never be made.
 *
 * A pure function of the parsed header: no tensor data is read. */
#ifndef GGUFFS_HFPLAN_H
#define GGUFFS_HFPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "gguffs/model.h"

typedef enum gg_hf_xform {
    GG_HF_PLAIN = 0,     /* the values as they are */
    GG_HF_MINUS_ONE = 1, /* value - 1 (gemma norms), in f32 before the dtype */
} gg_hf_xform;

/* `rows` runs of `row` values of one GGUF tensor (element counts of its
 * f32 view): the first at element `from`, each next one `stride` elements
 * after the one before. A plain slice is one row. */
typedef struct gg_hf_piece {
    uint64_t tensor;
    uint64_t from, row, rows, stride;
    uint8_t xform;
} gg_hf_piece;

typedef struct gg_hf_tensor {
    char *name;          /* the HF name ("model.layers.0.self_attn.q_proj.weight") */
    uint32_t n_dims;
    uint64_t shape[2];   /* HF (numpy) order */
    uint64_t nelems;
    size_t piece0, npieces; /* its runs, in order, in plan->p */
} gg_hf_tensor;

/* The supported architectures, as llama.cpp names them (general.architecture),
 * and the variant a llama file is: plain, mistral (by general.name, as
 * transformers' GGUF loader decides), or mixtral (it has experts). */
typedef enum gg_hf_variant {
    GG_HF_NONE = 0,
    GG_HF_LLAMA, GG_HF_MISTRAL, GG_HF_MIXTRAL,
    GG_HF_QWEN2, GG_HF_QWEN3, GG_HF_QWEN2MOE, GG_HF_QWEN3MOE,
    GG_HF_GEMMA, GG_HF_GEMMA2, GG_HF_GEMMA3, GG_HF_PHI3,
} gg_hf_variant;

typedef struct gg_hf_plan {
    gg_hf_variant variant;  /* GG_HF_NONE: the architecture is not supported */
    const char *arch;       /* general.architecture ("" when missing) */
    const char *hf_class;   /* "LlamaForCausalLM", ... (NULL: none) */
    const char *model_type; /* "llama", ... */
    int vocab_only;         /* no tensors: a vocabulary file */
    /* What keeps config.json and model.safetensors out, one reason a line;
     * NULL when the weights are complete. */
    char *why;
    /* Figures the config needs, checked against the tensors' shapes. */
    uint64_t n_vocab, n_embd, n_layer, n_head, n_head_kv, head_dim, n_rot;
    uint64_t n_ff, n_expert, n_expert_used, n_ff_exp, n_ff_shexp;
    int tied;           /* no output.weight: lm_head is the embedding */
    /* llama's rope_freqs.weight (llama 3 rope scaling, F32 [n_rot / 2]): its
     * tensor index, or -1. The values decide config.json's rope_scaling
     * (hfconfig.h: gg_hf_rope_llama3); it is not a weight of the class. */
    int64_t rope_freqs;
    /* phi-3's rope_factors_long / _short (longrope, F32 [n_rot / 2] each),
     * or -1: config.json's rope_scaling lists, not weights either. */
    int64_t rope_long, rope_short;
    int attention_bias; /* q, k, v (and o where the class has it) carry biases */
    gg_hf_tensor *t;
    size_t nt;
    gg_hf_piece *p;
    size_t np;
} gg_hf_plan;

/* The plan of a model; NULL only when memory is short. */
gg_hf_plan *gg_hf_plan_new(const gg_model *m);
void gg_hf_plan_free(gg_hf_plan *p);

/* Memory a plan holds, about. */
uint64_t gg_hf_plan_bytes(const gg_hf_plan *p);

#endif
