/* resolver.c - the resolver table, one row per source scheme, and what a
 * spec stands for (see resolver.h; a row's shape: scheme.h). */
#include "scheme.h"

#include <curl/curl.h>
#include <strings.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "gguffs/model.h"
#include "gguffs/source.h"
#include "hf.h"
#include "ollama.h"
#include "s3.h"

/* One row per scheme. */
static const gg_resolver *const table[] = {&gg_hf_resolver, &gg_s3_resolver, &gg_ollama_resolver};
#define ROWS (sizeof table / sizeof *table)

struct gg_schemes {
    void *state[ROWS]; /* of table[i] */
};

int gg_net_check_opts(const gg_net_opts *o, gg_err *e)
{
    for (size_t i = 0; i < ROWS; i++)
        if (table[i]->check && table[i]->check(o, e))
            return -1;
    return 0;
}

gg_schemes *gg_schemes_new(const gg_net_opts *o, gg_err *e)
{
    if (gg_net_check_opts(o, e))
        return NULL;
    gg_schemes *s = calloc(1, sizeof *s);
    if (!s) {
        gg_fail(e, GG_E_NOMEM, "out of memory setting up the HTTP client");
        return NULL;
    }
    for (size_t i = 0; i < ROWS; i++) {
        if (table[i]->init && table[i]->init(o, &s->state[i], e)) {
            gg_schemes_free(s);
            return NULL;
        }
    }
    return s;
}

void gg_schemes_free(gg_schemes *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < ROWS; i++)
        if (table[i]->free)
            table[i]->free(s->state[i]);
    free(s);
}

const gg_net_policy *gg_policy_for(gg_net *n, const char *url)
{
    gg_schemes *s = gg_net_schemes(n);
    for (size_t i = 0; i < ROWS; i++) {
        const gg_net_policy *p = table[i]->policy_for ? table[i]->policy_for(s->state[i], url) : NULL;
        if (p)
            return p;
    }
    return NULL;
}

/* The row of spec's scheme (its number), or -1 (a path, a URL, a scheme of no row). */
static int row_of(const char *spec)
{
    if (gg_spec_kind_of(spec) != GG_SPEC_NAME)
        return -1;
    size_t n = strcspn(spec, ":");
    for (size_t i = 0; i < ROWS; i++)
        if (strlen(table[i]->scheme) == n && !strncmp(spec, table[i]->scheme, n))
            return (int)i;
    return -1;
}

int gg_resolved_add(gg_resolved *r, const char *spec, const char *path, const char *refused, gg_err *e)
{
    gg_resolved_model *p = realloc(r->models, (size_t)(r->count + 1) * sizeof *p);
    if (!p)
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    r->models = p;
    gg_resolved_model *m = &p[r->count];
    m->spec = spec ? strdup(spec) : NULL;
    m->path = strdup(path);
    m->refused = refused ? strdup(refused) : NULL;
    m->sides = NULL;
    m->nsides = 0;
    if ((spec && !m->spec) || !m->path || (refused && !m->refused)) {
        free(m->spec);
        free(m->path);
        free(m->refused);
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    }
    r->count++;
    return 0;
}

/* A name of a scheme of no row: refused, naming the schemes there are. */
static int no_row(const char *spec, gg_err *e)
{
    char names[256] = "";
    for (size_t i = 0; i < ROWS; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s://", !i ? "" : i + 1 < ROWS ? ", " : " and ",
                 table[i]->scheme);
    return gg_fail(e, GG_E_INVAL, "%.*s: no source for this scheme (http:// and https:// URLs, %s names)",
                   (int)strcspn(spec, ":"), spec, names);
}

int gg_resolve_spec(gg_net *n, const char *spec, gg_resolved *r, gg_err *e)
{
    memset(r, 0, sizeof *r);
    int i = row_of(spec), rc;
    if (i >= 0)
        rc = table[i]->expand(n, gg_net_schemes(n)->state[i], spec, r, e);
    else if (gg_spec_kind_of(spec) == GG_SPEC_NAME)
        rc = no_row(spec, e);
    else
        rc = gg_resolved_add(r, spec, spec, NULL, e); /* a URL: itself */
    if (rc)
        gg_resolved_free(r);
    return rc;
}

/* ---- shared by the rows (scheme.h) ---- */

void gg_url_escape(gg_buf *out, const char *s, int keep_slash)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' ||
            *p == '_' || *p == '.' || *p == '~' || (keep_slash && *p == '/'))
            gg_buf_put(out, p, 1);
        else
            gg_buf_printf(out, "%%%02X", *p);
    }
}

int gg_segments_fault(const char *s, const char *also)
{
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f || strchr(also, *p))
            return GG_SEG_CONTROL;
    for (const char *seg = s; seg;) {
        const char *end = strchr(seg, '/');
        size_t k = end ? (size_t)(end - seg) : strlen(seg);
        if (k == 0)
            return GG_SEG_EMPTY;
        if ((k == 1 && seg[0] == '.') || (k == 2 && seg[0] == '.' && seg[1] == '.'))
            return GG_SEG_DOT;
        seg = end ? end + 1 : NULL;
    }
    return GG_SEG_OK;
}

const char *gg_bad_listed_path(const char *path)
{
    size_t n = strlen(path);
    if (!n)
        return "an empty path";
    switch (gg_segments_fault(path, "\\")) {
    case GG_SEG_CONTROL:
        return "a control character or a backslash in the path";
    case GG_SEG_EMPTY:
        return "an empty segment in the path ('//')";
    case GG_SEG_DOT:
        return "a '.' or '..' segment in the path";
    }
    if (n <= 5 || strcmp(path + n - 5, ".gguf"))
        return "not a .gguf file";
    return NULL;
}

void gg_listing_begin(gg_listing *l, gg_net *n, const char *spec, const char *what)
{
    memset(l, 0, sizeof *l);
    l->spec = spec;
    l->what = what;
    l->timeout_s = gg_net_options(n)->timeout_s;
    int64_t ms = (int64_t)GG_LIST_TIMEOUTS * l->timeout_s * 1000;
    l->deadline_ms = gg_scope_now_ms() + ms;
    if (!gg_scope_get()) {
        gg_scope_init(&l->own, ms, NULL, NULL, NULL);
        gg_scope_set(&l->own);
        l->scoped = 1;
    }
}

/* (a request is not started with less than this left: GG_NET_TRY_MIN_MS, and some) */
#define LIST_END_MS (GG_NET_TRY_MIN_MS + 100)

static int past_deadline(const gg_listing *l, gg_err *e)
{
    return gg_fail(e, GG_E_IO, "%s: the listing did not end within %d s (%d x -o timeout=%d), after %d pages",
                   l->spec, GG_LIST_TIMEOUTS * l->timeout_s, GG_LIST_TIMEOUTS, l->timeout_s, l->pages);
}

int gg_listing_failed(gg_listing *l, gg_err *e)
{
    if (gg_scope_now_ms() + LIST_END_MS >= l->deadline_ms)
        past_deadline(l, e);
    return -1;
}

int gg_listing_next(gg_listing *l, const char *next, gg_err *e)
{
    if (l->pages >= GG_LIST_PAGES)
        return gg_fail(e, GG_E_IO, "%s: the listing goes on past %d pages, the most gguffs lists", l->spec,
                       GG_LIST_PAGES);
    if (gg_scope_now_ms() >= l->deadline_ms)
        return past_deadline(l, e);
    uint64_t h = gg_hash64(next, strlen(next), 0);
    for (int i = 0; i < l->pages; i++)
        if (l->seen[i] == h)
            return gg_fail(e, GG_E_IO, "%s: the listing would never end: page %d leads to page %d again (the same %s)",
                           l->spec, l->pages, i + 1, l->what);
    if (!(l->pages & (l->pages - 1))) { /* (0, 1, 2, 4, ...: room doubles) */
        uint64_t *p = realloc(l->seen, (size_t)(l->pages ? 2 * l->pages : 1) * sizeof *p);
        if (!p)
            return gg_fail(e, GG_E_NOMEM, "out of memory");
        l->seen = p;
    }
    l->seen[l->pages++] = h;
    return 0;
}

void gg_listing_end(gg_listing *l)
{
    if (l->scoped)
        gg_scope_set(NULL);
    free(l->seen);
    l->seen = NULL;
}

int gg_is_gguf_name(const char *path)
{
    size_t n = strlen(path);
    return n > 5 && !strcmp(path + n - 5, ".gguf");
}

int gg_later_shard(const char *path)
{
    int part;
    return gg_shard_suffix(path, strlen(path), &part) >= 0 && part > 1;
}


const char *gg_endpoint_refused(const char *url)
{
    if (gg_spec_kind_of(url) != GG_SPEC_URL)
        return "not an http:// or https:// URL";
    CURLU *u = curl_url();
    char *host = NULL, *user = NULL, *query = NULL, *fragment = NULL;
    int ok = u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
             curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK && host;
    int local = ok && (!strncmp(host, "127.", 4) || !strcasecmp(host, "localhost") || !strcmp(host, "[::1]"));
    int extra = ok && (curl_url_get(u, CURLUPART_USER, &user, 0) == CURLUE_OK ||
                       curl_url_get(u, CURLUPART_QUERY, &query, 0) == CURLUE_OK ||
                       curl_url_get(u, CURLUPART_FRAGMENT, &fragment, 0) == CURLUE_OK);
    curl_free(host);
    curl_free(user);
    curl_free(query);
    curl_free(fragment);
    curl_url_cleanup(u);
    if (!ok)
        return "not a URL that can be parsed";
    if (extra)
        return "credentials, a query or a fragment in it (each request's path is appended to the endpoint)";
    return local || !strncmp(url, "https://", 8) ? NULL
                                                 : "http:// only to this machine (127.0.0.1, localhost, [::1]); https:// elsewhere";
}

int gg_endpoint_check(const char *name, const char *value, gg_err *e)
{
    const char *why = value ? gg_endpoint_refused(value) : NULL;
    if (!why)
        return 0;
    char *shown = gg_url_display(value); /* (credentials stay out of the message) */
    gg_fail(e, GG_E_INVAL, "-o %s=%s: %s", name, shown ? shown : "(a URL)", why);
    free(shown);
    return -1;
}

void gg_resolved_free(gg_resolved *r)
{
    for (int i = 0; i < r->count; i++) {
        free(r->models[i].spec);
        free(r->models[i].path);
        free(r->models[i].refused);
        gg_side_specs_free(r->models[i].sides, r->models[i].nsides);
    }
    free(r->models);
    memset(r, 0, sizeof *r);
}
