/* summary.h - "what is this model?" at a glance: the figures users ask for
 * first, from the header alone (nothing is decoded).
 *
 * Parameters are the sum of the tensors' element counts; bits per weight
 * the tensor bytes * 8 over that; the main type the one holding the most
 * bytes. Context, layers, embedding size, heads and KV heads, experts come
 * from the architecture's keys ("llama.context_length", ...); the KV cache
 * per 1 000 tokens at f16 is 1000 * 2 bytes * sum over layers of
 * kv_heads * (key_length + value_length), both lengths defaulting to
 * embedding / heads of layer 0 as llama.cpp has them (per-layer arrays of
 * KV heads are followed); it is left out when those keys are not there, and
 * is none for an encoder ("<arch>.attention.causal" false, or BERT and its
 * kin: bert, modern-bert, nomic-bert(-moe), neo-bert, jina-bert-v2/v3,
 * eurobert). Layers that attend over a sliding window (swa.h) are not in
 * that figure: they keep their window whatever the context, which is
 * given apart (window * 2 bytes * kv_heads * (key + value length) each), as
 * llama.cpp's tools allocate it. Bits per weight of a model without parameters is not given.
 * An imatrix GGUF (general.type "imatrix", as llama-imatrix writes it)
 * says what it holds instead: its datasets, chunks and the tensors it
 * weighs (imatrix.h). */
#ifndef GGUFFS_SUMMARY_H
#define GGUFFS_SUMMARY_H

#include <stdint.h>

#include "gguffs/model.h"
#include "gguffs/buf.h"

typedef struct gg_summary {
    char arch[64];        /* "" if none */
    char name[256];       /* general.name, "" if none */
    uint64_t params;      /* sum of n_elements */
    uint64_t tensor_bytes, file_bytes;
    double bpw;           /* tensor_bytes * 8 / params; 0 when params is 0 */
    char main_type[32];
    uint64_t context, layers, embedding, heads, kv_heads; /* 0: unknown */
    uint64_t experts, experts_used;
    uint64_t vocab;       /* tokens in tokenizer.ggml.tokens */
    char tokenizer[64];   /* tokenizer.ggml.model */
    int chat_template;    /* tokenizer.chat_template is there */
    int kv_known;
    int no_kv_cache;      /* an encoder: none (kv_known, kv_bytes_per_1k 0) */
    uint64_t kv_bytes_per_1k; /* the layers that keep every token */
    uint64_t swa_tokens;  /* the sliding window (swa.h), 0: none */
    uint64_t swa_layers, swa_kv_bytes; /* the layers that slide; their KV cache at f16 */
    int imatrix;          /* general.type is "imatrix" */
    uint64_t im_chunks, im_chunk_size; /* imatrix.chunk_count, .chunk_size; 0: unknown */
    uint64_t im_tensors;  /* tensors weighed: NAME.in_sum2 */
} gg_summary;

void gg_model_summary(const gg_model *m, gg_summary *s);

/* "8.03 B", "124.44 M", "3.20 K", "12": two decimals of the unit the
 * count reaches (K, M, B, T), the next one when they would read 1000.00. */
void gg_params_text(uint64_t n, char *out, size_t cap);

/* summary (text for people) and summary.json (the same, and the type mix). */
void gg_summary_text(const gg_model *m, gg_buf *out);
void gg_summary_json(const gg_model *m, gg_buf *out);

#endif
