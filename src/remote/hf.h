/* hf.h - hf:// names of models on the Hugging Face hub, as URLs: the hub's
 * row of the resolver table (scheme.h). Internal to remote/.
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
#ifndef GGUFFS_REMOTE_HF_H
#define GGUFFS_REMOTE_HF_H

#include "scheme.h"

extern const gg_resolver gg_hf_resolver;

#endif
