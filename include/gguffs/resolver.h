/* resolver.h - what a remote spec on the command line stands for: the
 * models to mount, as specs the URL opener takes (gg_net_url_opener).
 *
 * A name of a scheme of the resolver table (src/remote/resolver.c: hf://
 * now, each scheme one row and a file of its own) is resolved by its row:
 * one model (hf://ORG/REPO/FILE.gguf), or a collection of them, listed
 * (hf://ORG/REPO). An http(s) URL stands for itself, one model; a name of a
 * scheme of no row is refused (GG_E_INVAL), naming the schemes there are.
 * How a URL is read (the hub's token, ...) is the business of the row
 * that claims it, found again when it is opened (gg_net_url_opener). */
#ifndef GGUFFS_RESOLVER_H
#define GGUFFS_RESOLVER_H

#include "gguffs/error.h"
#include "gguffs/model.h"
#include "gguffs/net.h"

typedef struct gg_resolved_model {
    char *spec;    /* what to open: a URL; NULL for a refused one */
    char *path;    /* its path in the collection ("q/ik.gguf"), or the spec for a single model */
    char *refused; /* a listed entry not mounted: why ("a '..' segment"); NULL for the others */
    gg_side_spec *sides; /* files to show beside it (an Ollama model's template, params, ...) */
    int nsides;
} gg_resolved_model;

typedef struct gg_resolved {
    gg_resolved_model *models;
    int count;
    int collection; /* a listing (a repository): a folder per model, named by its path and
                     * opened on first look; else one model, opened at once */
    int named;      /* not a listing, but its models are named by their paths (an Ollama
                     * model and its projector: MODEL:TAG, MODEL:TAG.projector) */
} gg_resolved;

/* The models spec (a URL or a name, not a path) stands for, at least one
 * not refused. Returns 0 with *r (free with gg_resolved_free), or -1 with
 * *e set (a malformed name, a scheme of no row, nothing found, the listing
 * unreachable). */
int gg_resolve_spec(gg_net *n, const char *spec, gg_resolved *r, gg_err *e);
/* (and zeroes *r) */
void gg_resolved_free(gg_resolved *r);

#endif
