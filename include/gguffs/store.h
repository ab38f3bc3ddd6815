/* store.h - the kinds of folder models are kept in, and where the user's
 * tools keep theirs. What a folder of each kind holds is stores.h's (the
 * scan); the shelf (shelf.h) shows what the scan finds. */
#ifndef GGUFFS_STORE_H
#define GGUFFS_STORE_H

#include "gguffs/error.h"

typedef enum gg_store { GG_STORE_AUTO, GG_STORE_PLAIN, GG_STORE_OLLAMA, GG_STORE_HF } gg_store;

/* The kind of the folder dir: OLLAMA (manifests/ and blobs/), HF
 * (models--ORG--NAME/), else PLAIN. */
gg_store gg_store_detect(const char *dir);

/* Where the user's tools are: the default folders of the stores, from
 * their environment variables ($OLLAMA_MODELS; $HF_HUB_CACHE, $HF_HOME;
 * LM Studio's). Returns a malloc'ed path, or NULL with *e set. */
char *gg_store_default_dir(gg_store kind, int lmstudio, gg_err *e);

#endif
