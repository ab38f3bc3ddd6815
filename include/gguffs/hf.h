/* hf.h - hf:// names of models on the Hugging Face hub, as URLs.
 *
 *   hf://ORG/REPO/PATH.gguf             $HF_ENDPOINT/ORG/REPO/resolve/main/PATH.gguf
 *   hf://ORG/REPO@REV/PATH.gguf         .../resolve/REV/PATH.gguf
 *   hf://ORG/REPO, hf://ORG/REPO@REV    every GGUF of the repo at REV, listed
 *                                       through the hub's tree API (recursive,
 *                                       page after page); a split set counts
 *                                       once, by its first shard.
 * HF_ENDPOINT defaults to https://huggingface.co (net.h). */
#ifndef GGUFFS_HF_H
#define GGUFFS_HF_H

#include "gguffs/error.h"
#include "gguffs/net.h"

typedef struct gg_hf_model {
    char *url;  /* https://.../resolve/REV/PATH */
    char *path; /* PATH inside the repo */
} gg_hf_model;

int gg_is_hf(const char *spec);

/* The models an hf:// name stands for (at least one). Returns 0 with
 * *models (free with gg_hf_free), or -1 with *e set. */
int gg_hf_expand(gg_net *n, const char *spec, gg_hf_model **models, int *count, gg_err *e);
void gg_hf_free(gg_hf_model *models, int count);

#endif
