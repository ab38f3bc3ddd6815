/* scheme.h - a source scheme's row of the resolver table (resolver.c): one
 * per scheme besides http(s), each in a file of its own (hf.c; s3:// and
 * ollama:// are a row and a file each). A row turns its scheme's names into
 * the models to mount (gg_resolve_spec, resolver.h), and claims the URLs it
 * reads with a policy of its own (net.h): the hub's token goes with the
 * hub's URLs, also those of a repository's models opened on first look.
 * Internal to remote/. */
#ifndef GGUFFS_REMOTE_SCHEME_H
#define GGUFFS_REMOTE_SCHEME_H

#include "gguffs/buf.h"
#include "gguffs/error.h"
#include "gguffs/net.h"
#include "gguffs/resolver.h"
#include "gguffs/scope.h"

typedef struct gg_resolver {
    const char *scheme; /* "hf": its names are "hf://..." */
    /* The options of o it reads, checked (gg_net_check_opts): 0, or -1 with
     * *e set. NULL: it reads none. */
    int (*check)(const gg_net_opts *o, gg_err *e);
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

/* What the rows share for names and listings (resolver.c):
 * s percent-encoded for a URL (unreserved characters kept, and '/' if
 * keep_slash), as S3's SigV4 and the hub want it; */
void gg_url_escape(gg_buf *out, const char *s, int keep_slash);
/* the first fault of s as '/'-separated segments (a path, a revision): a
 * control character or one of `also` anywhere, else an empty segment, else
 * a "." or ".." one; GG_SEG_OK (0) if none; */
enum { GG_SEG_OK, GG_SEG_CONTROL, GG_SEG_EMPTY, GG_SEG_DOT };
int gg_segments_fault(const char *s, const char *also);
/* a path of a model in a collection (a repository, a bucket's prefix), given
 * or listed: plain segments (no empty one, no "." or "..", no control
 * character or backslash) ending in .gguf; NULL, or what is wrong with it;
 * a listing mounts a split set once, by its first shard: */
const char *gg_bad_listed_path(const char *path);
int gg_is_gguf_name(const char *path);
int gg_later_shard(const char *path); /* NAME-0000K-of-0000N.gguf, K > 1 */

/* A listing page after page (S3's continuation tokens, the hub's Link:
 * rel="next"), made to end: a token (or link) seen before is an error (the
 * listing would go round for ever), and so are more than GG_LIST_PAGES
 * pages or more than GG_LIST_TIMEOUTS times -o timeout for the whole
 * listing; the message names the bound. Without a scope of its own, the
 * thread gets one for the listing, so that no page outlives it. */
#define GG_LIST_PAGES 10000
#define GG_LIST_TIMEOUTS 10
typedef struct gg_listing {
    const char *spec, *what; /* for messages: the name listed, what leads to the next page */
    int pages;
    int timeout_s;
    int64_t deadline_ms;
    uint64_t *seen;          /* a hash of each page's token */
    gg_scope own;
    int scoped;              /* own is the thread's scope */
} gg_listing;
void gg_listing_begin(gg_listing *l, gg_net *n, const char *spec, const char *what);
/* Before each page, `next` its token or URL (the first page's too): 0, or
 * -1 with *e set. */
int gg_listing_next(gg_listing *l, const char *next, gg_err *e);
/* A page failed with *e: at the listing's deadline, *e says that instead
 * (its request was cut by it). Returns -1. */
int gg_listing_failed(gg_listing *l, gg_err *e);
void gg_listing_end(gg_listing *l);

/* An endpoint a row is told to use (-o s3_endpoint=, -o ollama_registry=):
 * NULL if fine, else why not: not an http(s) URL, http to a host that is
 * not this machine (loopback: 127.0.0.0/8, ::1, localhost), where a
 * signature, a session token or a model would cross a network in clear, or
 * a URL with credentials, a query or a fragment (paths are appended to
 * it). */
const char *gg_endpoint_refused(const char *url);
/* The same for option `name` of o (value NULL: not given): 0, or -1 with
 * *e set (GG_E_INVAL: "-o NAME=VALUE: why"). */
int gg_endpoint_check(const char *name, const char *value, gg_err *e);

/* The rows' states for one net (gg_net_new makes them: gg_net_schemes()). */
typedef struct gg_schemes gg_schemes;
gg_schemes *gg_schemes_new(const gg_net_opts *o, gg_err *e);
void gg_schemes_free(gg_schemes *s);

/* The policy url is read with: that of the first row that claims it, else
 * NULL (a plain URL). */
const gg_net_policy *gg_policy_for(gg_net *n, const char *url);

#endif
