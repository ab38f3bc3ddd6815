/* scheme.h - a source scheme's row of the resolver table (resolver.c): one
 * per scheme besides http(s), each in a file of its own (hf.c; s3:// and
 * ollama:// are a row and a file each). A row turns its scheme's names into
 * the models to mount (gg_resolve_spec, resolver.h), and claims the URLs it
 * reads with a policy of its own (net.h): the hub's token goes with the
 * hub's URLs, also those of a repository's models opened on first look.
 * Internal to remote/. */
#ifndef GGUFFS_REMOTE_SCHEME_H
#define GGUFFS_REMOTE_SCHEME_H

#include "gguffs/error.h"
#include "gguffs/net.h"
#include "gguffs/resolver.h"

typedef struct gg_resolver {
    const char *scheme; /* "hf": its names are "hf://..." */
    /* Its state, made with each net: settings and credentials, read once
     * (the hub's endpoint and token). 0, or -1 with *e set (a bad setting). */
    int (*init)(const gg_net_opts *o, void **state, gg_err *e);
    void (*free)(void *state);
    /* The models name stands for, into *r (empty): 0, or -1 with *e set. */
    int (*expand)(gg_net *n, void *state, const char *name, gg_resolved *r, gg_err *e);
    /* The policy to read url with, if url is the scheme's (at the hub),
     * else NULL. */
    const gg_net_policy *(*policy_for)(void *state, const char *url);
} gg_resolver;

/* One more model for r: spec to open, or (refused != NULL) a listed entry
 * not mounted, and why. 0, or -1 (out of memory) with *e set. */
int gg_resolved_add(gg_resolved *r, const char *spec, const char *path, const char *refused, gg_err *e);

/* The rows' states for one net (gg_net_new makes them: gg_net_schemes()). */
typedef struct gg_schemes gg_schemes;
gg_schemes *gg_schemes_new(const gg_net_opts *o, gg_err *e);
void gg_schemes_free(gg_schemes *s);

/* The policy url is read with: that of the first row that claims it, else
 * NULL (a plain URL). */
const gg_net_policy *gg_policy_for(gg_net *n, const char *url);

#endif
