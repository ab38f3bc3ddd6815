/* scheme.h - a source scheme's row of the resolver table (resolver.c): one per
 * scheme besides http(s), each in a file of its own (hf.c; s3:// and
 * ollama:// are a row and a file each). A row turns its scheme's names into
 * the models to mount (gg_resolve_spec, resolver.h). Internal to remote/. */
#ifndef GGUFFS_REMOTE_SCHEME_H
#define GGUFFS_REMOTE_SCHEME_H

#include "gguffs/error.h"
#include "gguffs/net.h"
#include "gguffs/resolver.h"

typedef struct gg_resolver {
    const char *scheme; /* "hf": its names are "hf://..." */
    /* The models name stands for, into *r (empty): 0, or -1 with *e set. */
    int (*expand)(gg_net *n, const char *name, gg_resolved *r, gg_err *e);
} gg_resolver;

/* One more model for r: spec to open, or (refused != NULL) a listed entry
 * not mounted, and why. 0, or -1 (out of memory) with *e set. */
int gg_resolved_add(gg_resolved *r, const char *spec, const char *path, const char *refused, gg_err *e);

#endif
