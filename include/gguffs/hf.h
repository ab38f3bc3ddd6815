/* hf.h - hf:// names of models on the Hugging Face hub, as URLs.
 *
 *   hf://ORG/REPO/PATH.gguf             $HF_ENDPOINT/ORG/REPO/resolve/main/PATH.gguf
 *   hf://ORG/REPO@REV/PATH.gguf         .../resolve/REV/PATH.gguf
 *   hf://ORG/REPO, hf://ORG/REPO@REV    every GGUF of the repo at REV, listed
 *                                       through the hub's tree API (recursive,
 *                                       page after page); a split set counts
 *                                       once, by its first shard. A trailing
 *                                       '/' changes nothing.
 * REV is one segment, or refs/KIND/NAME (refs/pr/1); %XX in REV and PATH is
 * decoded once, and each goes into the URL escaped once (the revision with
 * its '/' as %2F, as the hub's own client sends it). A PATH, given or
 * listed, must be plain segments (no "", "." or "..") ending in .gguf.
 * With a disk cache (-o cache_dir) a repository's listing is kept there, by
 * revision, and used when the hub cannot be reached.
 * HF_ENDPOINT defaults to https://huggingface.co (net.h). */
#ifndef GGUFFS_HF_H
#define GGUFFS_HF_H

#include "gguffs/error.h"
#include "gguffs/net.h"

typedef struct gg_hf_model {
    char *url;     /* https://.../resolve/REV/PATH; NULL if refused */
    char *path;    /* PATH inside the repo */
    char *refused; /* a listed path not mounted: why ("a '..' segment"); NULL for the others */
} gg_hf_model;

int gg_is_hf(const char *spec);
/* Does spec name a whole repository (no file)? */
int gg_hf_names_repo(const char *spec);

/* The models an hf:// name stands for (at least one mounted, besides the
 * refused listed paths). Returns 0 with
 * *models (free with gg_hf_free), or -1 with *e set. */
int gg_hf_expand(gg_net *n, const char *spec, gg_hf_model **models, int *count, gg_err *e);
void gg_hf_free(gg_hf_model *models, int count);

#endif
