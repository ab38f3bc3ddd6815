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
 * decoded once (%00 refused), and each goes into the URL escaped once (the
 * revision with its '/' as %2F, as the hub's own client sends it). ORG and
 * REPO are the hub's letters (letters, digits, '-', '_', '.'; not ".", no
 * ".."); no segment of REV is "", "." or "..". A PATH, given or listed, must
 * be plain segments (no "", "." or "..") ending in .gguf.
 * With a disk cache (-o cache_dir) a repository's listing is kept there, by
 * revision, and used when the hub cannot be reached.
 *
 * The hub's policy (net.h) reads every URL at the hub's origin (scheme,
 * host, port of $HF_ENDPOINT, default https://huggingface.co), those of
 * hf:// names, of a listing's models opened later, and https URLs given as
 * such: the token ($HF_TOKEN, else the first line of $HF_TOKEN_PATH, else
 * of ~/.cache/huggingface/token; read once per net) goes as Authorization:
 * Bearer to hops at that origin only, never to the CDN the resolve redirect
 * leads to; X-Linked-Etag (a file's own validator) and X-Repo-Commit of any
 * hop are the answer's extra and revision; a 401 or 403 from the hub names
 * $HF_TOKEN. */
#ifndef GGUFFS_REMOTE_HF_H
#define GGUFFS_REMOTE_HF_H

#include "scheme.h"

extern const gg_resolver gg_hf_resolver;

#endif
