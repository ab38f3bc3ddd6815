/* recipe.h - llama-quantize's recipes: the type each tensor of a model
 * takes in a file of one llama_ftype, as llama.cpp's llama_tensor_get_type
 * chooses it without an importance matrix (src/llama-quant.cpp of the
 * llama.cpp that node-llama-cpp 3.21.1 ships, the one tests run), and the
 * order llama-quantize writes the tensors in.
 *
 * A recipe is a row of data (recipe.c): its name (llama-quantize's, in
 * lower case), its llama_ftype, the type most tensors take, the type of the
 * token embeddings, and a few rules "a tensor of this kind, in a model
 * like this, at this place among its kind, takes this type", the first
 * that holds winning. What is left as code is what every recipe shares:
 * which tensors may be quantized at all (by name, 2 or more dimensions),
 * the output tensor's choice, the 70B and 8-expert bumps of attn_v, and
 * the fallbacks for rows that a type's block does not divide.
 *
 * It knows nothing of how the blocks are made (quantize.h) or how a file
 * is laid out (export.h, gguf_write.h). */
#ifndef GGUFFS_RECIPE_H
#define GGUFFS_RECIPE_H

#include <stddef.h>
#include <stdint.h>

#include "gguffs/decode.h"
#include "gguffs/error.h"
#include "gguffs/model.h"

enum {
    /* as/f32.gguf: every tensor F32, in the model's own order and header
     * (the file the other recipes are quantized from) */
    GG_RECIPE_SOURCE = 1u << 0,
    /* MXFP4_MOE: experts (3-D) MXFP4, everything else Q8_0 */
    GG_RECIPE_MXFP4_MOE = 1u << 1,
    /* another name llama-quantize takes for a recipe (q4_k is q4_k_m) */
    GG_RECIPE_ALIAS = 1u << 2,
};

typedef struct gg_recipe_rule gg_recipe_rule;

typedef struct gg_recipe {
    const char *name;            /* "q4_k_m": the file is as/q4_k_m.gguf */
    uint32_t ftype;              /* llama_ftype, general.file_type of the file */
    gg_tid base;                 /* most tensors (llama_ftype_get_default_type) */
    gg_tid embd;                 /* token_embd.weight when the model has output.weight (NONE: base) */
    uint32_t flags;              /* GG_RECIPE_* */
    const gg_recipe_rule *rules; /* ended by a rule of kind 0; NULL: none */
} gg_recipe;

/* The table, in llama_ftype order (aliases after). */
size_t gg_recipe_count(void);
const gg_recipe *gg_recipe_at(size_t i);
size_t gg_recipe_index(const gg_recipe *r);
/* The recipe of a name (len bytes, exactly as listed: "q4_k_m"), or NULL. */
const gg_recipe *gg_recipe_by_name(const char *name, size_t len);

/* What the recipes read of a model, worked out once (a sort of the
 * tensor names, a look at each name and a few keys). */
typedef struct gg_recipe_facts gg_recipe_facts;
gg_recipe_facts *gg_recipe_facts_new(const gg_model *m);
void gg_recipe_facts_free(gg_recipe_facts *f);

/* The tensors in llama-quantize's order (its weights_map: by layer number,
 * tensors outside blk.N. first, then by name): the model's tensor indexes. */
const uint64_t *gg_recipe_order(const gg_recipe_facts *f);

/* The type of every tensor of the model in recipe r into types (m->nt of
 * them, by the model's tensor index): tensors that llama-quantize does not
 * quantize keep the type they have in as/f32.gguf, F32. Returns 0, or -1
 * with *e set (GG_E_UNSUPPORTED) when the model cannot be made in r, saying
 * why: a tensor that cannot be decoded; one the recipe cannot place (where
 * llama-quantize fails); a type no quantizer makes (quantize.h). */
int gg_recipe_types(const gg_recipe_facts *f, const gg_recipe *r, gg_tid *types, gg_err *e);

/* The recipes as/ lists by default (-o as=). */
#define GG_RECIPES_LISTED "f32,f16,bf16,q8_0,q4_k_m,q5_k_m,q6_k,q3_k_m,q2_k,iq4_xs"
/* A comma-separated list of recipe names (NULL: GG_RECIPES_LISTED; "":
 * none) as bits of *mask, bit i for gg_recipe_at(i). Returns 0, or -1 with
 * *e set naming an unknown name. */
int gg_recipe_list(const char *list, uint64_t *mask, gg_err *e);

/* The recipes model m can take: bit i of *ok for gg_recipe_at(i). why_not,
 * unless NULL, is called with arg for each recipe it cannot take, in order,
 * with gg_recipe_types's reason. Returns 0, or -1 out of memory (*ok 0,
 * why_not not called). */
int gg_recipes_possible(const gg_model *m, uint64_t *ok,
                        void (*why_not)(void *arg, const gg_recipe *r, const gg_err *e), void *arg);

#endif
