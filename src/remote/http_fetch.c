/* http_fetch.c - an object behind an http(s) URL as a fetcher (fetch.h),
 * read with the policy of the scheme that claims the URL (net.h), if any.
 *
 * The first request goes to the URL as given; the answer's validator is
 * its ETag, its Last-Modified, and what the policy took from the answers
 * of its hops (the hub's X-Linked-Etag and X-Repo-Commit of a redirect).
 * Later requests go straight to the URL the last answer came from (after
 * the hub's redirect, to its CDN) with If-Match; if that one refuses us (a
 * presigned URL expired), to the URL as given again. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "remote/remote_source.h"
#include "scheme.h"

typedef struct http_fetcher {
    gg_fetcher f;
    gg_net *net;
    const gg_net_policy *policy; /* the scheme's (its state lives as long as the net), or NULL */
    pthread_mutex_t lock; /* guards effective */
    char *effective;      /* the URL the last answer came from */
} http_fetcher;

/* What the answer g says, into r. */
static void answer(gg_range *r, const gg_http_get *g)
{
    r->total = g->total;
    r->got = g->got;
    memcpy(r->v.etag, g->etag, sizeof r->v.etag);
    memcpy(r->v.last_modified, g->last_modified, sizeof r->v.last_modified);
    memcpy(r->v.extra, g->extra, sizeof r->v.extra);
    memcpy(r->v.revision, g->revision, sizeof r->v.revision);
}

/* A part of r is in (net.h's part_in): tell r's caller, with what the
 * answer says of the object. */
static int part_in(void *arg, uint64_t part, const gg_http_get *g)
{
    gg_range *r = arg, seen = *r;
    answer(&seen, g);
    return r->part_in(r->part_arg, part, &seen);
}

/* The bytes came from g->final_url: go there next time. */
static void moved_to(http_fetcher *h, gg_http_get *g)
{
    pthread_mutex_lock(&h->lock);
    if (g->final_url && (!h->effective || strcmp(g->final_url, h->effective))) {
        free(h->effective);
        h->effective = g->final_url;
        g->final_url = NULL;
    }
    pthread_mutex_unlock(&h->lock);
    free(g->final_url);
    g->final_url = NULL;
}

static int first_fetch(http_fetcher *h, gg_range *r, gg_err *e)
{
    gg_http_get g = {.url = h->f.key, .off = r->off, .len = r->len, .parts = r->parts, .part_bytes = r->part_bytes,
                     .policy = h->policy};
    int rc = gg_net_get(h->net, &g, e);
    if (rc && e->code == GG_E_STALE && g.status == 416 && g.total == 0) {
        rc = 0; /* an empty object */
        g.got = 0;
    }
    if (rc == 0) {
        answer(r, &g);
        moved_to(h, &g);
    }
    free(g.final_url);
    return rc;
}

static int http_fetch(gg_fetcher *f, gg_range *r, gg_err *err)
{
    http_fetcher *h = (http_fetcher *)f;
    gg_err local, *e = err ? err : &local;
    if (r->first)
        return first_fetch(h, r, e);
    pthread_mutex_lock(&h->lock);
    char *eff = h->effective ? strdup(h->effective) : NULL;
    pthread_mutex_unlock(&h->lock);
    int rc = -1;
    uint64_t parts_in = 0; /* told in an earlier pass: not asked for again */
    for (int pass = eff ? 0 : 1; pass < 2; pass++) {
        /* Pass 0: straight to where the bytes came from last time, with
         * If-Match; pass 1: from the URL as given (redirected again). */
        gg_http_get g = {.url = pass == 0 ? eff : f->key, .off = r->off, .len = r->len, .parts = r->parts,
                         .part_bytes = r->part_bytes, .if_match = pass == 0 ? r->if_match : NULL, .home = f->key,
                         .policy = h->policy, .part_in = r->part_in ? part_in : NULL, .part_arg = r,
                         .parts_in = parts_in};
        rc = gg_net_get(h->net, &g, e);
        parts_in = g.parts_in;
        if (rc == 0) {
            answer(r, &g);
            moved_to(h, &g);
            break;
        }
        free(g.final_url);
        /* Back to the URL as given only when the redirect's target refused
         * us (a presigned URL expired: 401/403/404/410...); a server that is
         * down or slow would only be tried as many times again. */
        int refused = g.status >= 400 && g.status < 500 && g.status != 408 && g.status != 429;
        if (e->code == GG_E_STALE || pass == 1 || !refused || !strcmp(eff, f->key))
            break;
    }
    free(eff);
    return rc;
}

static void http_describe(gg_fetcher *f, gg_buf *out)
{
    gg_buf_puts(out, "\"url\": ");
    gg_json_string(out, f->name, strlen(f->name));
}

static void http_close(gg_fetcher *f)
{
    http_fetcher *h = (http_fetcher *)f;
    pthread_mutex_destroy(&h->lock);
    free(h->effective);
    free(f->name);
    free(f->key);
    free(f->cache_key);
    free(h);
}

static const gg_fetcher_ops http_ops = {http_fetch, http_describe, http_close};

gg_fetcher *gg_http_fetcher_new(gg_net *net, const char *url, const gg_net_policy *policy, gg_err *e)
{
    http_fetcher *h = calloc(1, sizeof *h);
    if (!h || !(h->f.key = strdup(url)) || !(h->f.name = gg_url_display(url)) ||
        !(h->f.cache_key = gg_url_cache_key(url))) {
        if (h) {
            free(h->f.key);
            free(h->f.name);
        }
        free(h);
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    h->f.ops = &http_ops;
    h->f.extra_name = policy ? policy->extra_name : NULL;
    h->f.content_addressed = policy && policy->content_addressed && policy->content_addressed(policy, url);
    if (!(policy && policy->identity && policy->identity(policy, url, &h->f.want_size, h->f.want_sha256)))
        h->f.want_sha256[0] = 0;
    h->net = net;
    h->policy = policy;
    pthread_mutex_init(&h->lock, NULL);
    return &h->f;
}

gg_source *gg_source_open_http(gg_net *net, const char *url, gg_err *e)
{
    return gg_remote_open(net, gg_http_fetcher_new(net, url, gg_policy_for(net, url), e), e);
}

gg_source *gg_net_url_opener(void *net, const char *url, gg_err *e)
{
    return gg_source_open_http(net, url, e);
}
