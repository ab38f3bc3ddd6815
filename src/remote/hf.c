/* hf.c - hf:// names as URLs, and the hub's policy for its requests (see
 * hf.h). */
#include "hf.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"
#include "gguffs/diskcache.h"
#include "gguffs/model.h"

#define MAX_PAGE_BYTES (64u << 20)

/* The hub of a net: its state in the resolver table, and its policy. */
typedef struct hub {
    gg_net_policy p; /* (first: the policy is the hub) */
    char *endpoint;  /* without a trailing '/' */
    char *origin;    /* its scheme://host:port: where the token may go */
    char *token;     /* or NULL */
} hub;

/* Is url at the hub (not at the CDN it sends downloads to)? */
static int at_hub(const hub *h, const char *url)
{
    char *o = gg_url_origin(url);
    int yes = o && !strcmp(o, h->origin);
    free(o);
    return yes;
}

/* The token goes to the hub only, never to where it redirects. */
static void hub_hop(const gg_net_policy *p, gg_net_hop *hop)
{
    const hub *h = (const hub *)p;
    if (!h->token || !at_hub(h, hop->url))
        return;
    char auth[1200];
    snprintf(auth, sizeof auth, "Authorization: Bearer %s", h->token);
    gg_net_hop_header(hop, auth);
}

/* The resolve redirect names the file's own validator (its sha256 for
 * LFS files) and the commit the revision stands for. */
static void hub_header(const gg_net_policy *p, gg_http_get *g, const char *name, const char *value)
{
    if (!strcasecmp(name, "X-Linked-Etag"))
        snprintf(g->extra, sizeof g->extra, "%s", value); /* (cut if absurdly long) */
    else if (!strcasecmp(name, "X-Repo-Commit"))
        snprintf(g->revision, sizeof g->revision, "%s", value);
}

/* $HF_TOKEN is sent to the hub only: only the hub's refusal is helped by it. */
static const char *hub_access_hint(const gg_net_policy *p, const char *url)
{
    return at_hub((const hub *)p, url) ? "a token: $HF_TOKEN, or -o header='Authorization: ...'" : NULL;
}

/* The token: $HF_TOKEN, else the first line of the token file. */
static char *read_token(void)
{
    const char *env = getenv("HF_TOKEN");
    if (env && *env)
        return strdup(env);
    char path[4096];
    const char *tp = getenv("HF_TOKEN_PATH"), *home = getenv("HOME");
    if (tp && *tp)
        snprintf(path, sizeof path, "%s", tp);
    else if (home && *home)
        snprintf(path, sizeof path, "%s/.cache/huggingface/token", home);
    else
        return NULL;
    FILE *f = fopen(path, "re");
    if (!f)
        return NULL;
    char line[1024];
    char *tok = NULL;
    if (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = 0;
        if (*line)
            tok = strdup(line);
    }
    fclose(f);
    return tok;
}

static void hub_free(void *state)
{
    hub *h = state;
    if (!h)
        return;
    free(h->endpoint);
    free(h->origin);
    free(h->token);
    free(h);
}

static int hub_init(const gg_net_opts *o, void **state, gg_err *e)
{
    hub *h = calloc(1, sizeof *h);
    const char *ep = o->hf_endpoint ? o->hf_endpoint : getenv("HF_ENDPOINT");
    if (!h || !(h->endpoint = strdup(ep && *ep ? ep : "https://huggingface.co"))) {
        free(h);
        return gg_fail(e, GG_E_NOMEM, "out of memory setting up the HTTP client");
    }
    size_t l = strlen(h->endpoint);
    while (l > 0 && h->endpoint[l - 1] == '/')
        h->endpoint[--l] = 0;
    if (!(h->origin = gg_url_origin(h->endpoint))) {
        gg_fail(e, GG_E_INVAL, "HF_ENDPOINT %s is not a URL", h->endpoint);
        hub_free(h);
        return -1;
    }
    h->token = o->hf_token ? strdup(o->hf_token) : read_token();
    h->p = (gg_net_policy){.hop = hub_hop, .header = hub_header, .access_hint = hub_access_hint,
                           .extra_name = "X-Linked-Etag"};
    *state = h;
    return 0;
}

static const gg_net_policy *hub_policy_for(void *state, const char *url)
{
    hub *h = state;
    return at_hub(h, url) ? &h->p : NULL;
}

typedef struct hf_name {
    char org[256], repo[256], rev[256]; /* rev decoded: "refs/pr/1" */
    char path[4096];                    /* decoded; "" for a whole repo */
} hf_name;

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* n bytes of s, %XX-decoded once, into out (cap bytes). NULL, or what is
 * wrong: too long, or a %00 (it would end the name there: "a%00b" would
 * quietly be "a"). */
static const char *decode(const char *s, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)s[i];
        if (c == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
            c = hexval(s[i + 1]) * 16 + hexval(s[i + 2]);
            i += 2;
        }
        if (!c)
            return "a control character (%00)";
        if (k + 1 >= cap)
            return "too long";
        out[k++] = (char)c;
    }
    out[k] = 0;
    return NULL;
}

/* An organization's or repository's name as the hub makes them: letters,
 * digits, '-', '_' and '.', and no ".." (so neither "." nor ".." segment
 * can take a URL out of /ORG/REPO/). */
static int repo_part(const char *s, size_t n)
{
    if (!n || (n == 1 && s[0] == '.'))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '-' || s[i] == '_' || s[i] == '.') ||
            (s[i] == '.' && i + 1 < n && s[i + 1] == '.'))
            return 0;
    return 1;
}

/* A revision: its segments (one, or refs/KIND/NAME) plain, none empty, "."
 * or "..", no control character. NULL, or what is wrong. */
static const char *bad_revision(const char *rev)
{
    int fault = gg_segments_fault(rev, "");
    return fault == GG_SEG_CONTROL ? "a control character in the revision"
           : fault                 ? "an empty, '.' or '..' segment in the revision"
                                   : NULL;
}

#define SYNTAX "expected hf://ORG/REPO[@REVISION][/FILE.gguf] (a revision with slashes: @refs/pr/N, or %%2F for each '/')"

static int parse(const char *spec, hf_name *h, gg_err *e)
{
    memset(h, 0, sizeof *h);
    const char *p = spec + 5, *slash = strchr(p, '/');
    if (!slash || slash == p || (size_t)(slash - p) >= sizeof h->org || memchr(p, '@', (size_t)(slash - p)))
        return gg_fail(e, GG_E_INVAL, "%s: " SYNTAX, spec);
    memcpy(h->org, p, (size_t)(slash - p));
    const char *r = slash + 1, *end = r + strcspn(r, "/@");
    if (end == r || (size_t)(end - r) >= sizeof h->repo)
        return gg_fail(e, GG_E_INVAL, "%s: " SYNTAX, spec);
    memcpy(h->repo, r, (size_t)(end - r));
    if (!repo_part(h->org, strlen(h->org)) || !repo_part(h->repo, strlen(h->repo)))
        return gg_fail(e, GG_E_INVAL, "%s: an organization or repository name is letters, digits, '-', '_' and '.', "
                       "not '.' and without '..' (" SYNTAX ")", spec);
    const char *rest = end;
    if (*rest == '@') {
        /* One segment, or refs/KIND/NAME (the hub's refs/pr/N, refs/convert/...) */
        const char *v = rest + 1, *vend = v + strcspn(v, "/");
        if (vend - v == 4 && !strncmp(v, "refs", 4)) {
            for (int k = 0; k < 2 && *vend == '/'; k++)
                vend += 1 + strcspn(vend + 1, "/");
        }
        const char *why = vend == v ? "empty" : decode(v, (size_t)(vend - v), h->rev, sizeof h->rev);
        if (why || (why = bad_revision(h->rev)))
            return gg_fail(e, GG_E_INVAL, "%s: the revision after '@': %s (" SYNTAX ")", spec, why);
        rest = vend;
    } else {
        strcpy(h->rev, "main");
    }
    if (*rest && *rest != '/')
        return gg_fail(e, GG_E_INVAL, "%s: " SYNTAX, spec);
    /* hf://ORG/REPO/ (trailing slashes) is the repository too. */
    size_t n = strlen(rest);
    while (n && rest[n - 1] == '/')
        n--;
    if (n > 1) {
        const char *why = decode(rest + 1, n - 1, h->path, sizeof h->path);
        if (why)
            return gg_fail(e, GG_E_INVAL, "%s: the path: %s", spec, why);
        why = gg_bad_listed_path(h->path);
        if (why)
            return gg_fail(e, GG_E_INVAL, "%s: %s (" SYNTAX ")", spec, why);
    }
    return 0;
}

static char *resolve_url(const hub *hb, const hf_name *h, const char *path)
{
    gg_buf b = {0};
    gg_buf_printf(&b, "%s/", hb->endpoint);
    gg_url_escape(&b, h->org, 0);
    gg_buf_puts(&b, "/");
    gg_url_escape(&b, h->repo, 0);
    gg_buf_puts(&b, "/resolve/");
    gg_url_escape(&b, h->rev, 0); /* (refs/pr/1 as refs%2Fpr%2F1, as the hub's own client sends it) */
    gg_buf_puts(&b, "/");
    gg_url_escape(&b, path, 1); /* (each segment once: gg_bad_listed_path() allows no "." or "..") */
    if (b.oom) {
        gg_buf_free(&b);
        return NULL;
    }
    return b.p;
}

/* One more model: path in the repo, or (refused != NULL) a listed path that is not mounted, and why. */
static int add_model(const hub *hb, const hf_name *h, const char *path, const char *refused, gg_resolved *r,
                     gg_err *e)
{
    char *url = refused ? NULL : resolve_url(hb, h, path);
    int rc = !refused && !url ? gg_fail(e, GG_E_NOMEM, "out of memory") : gg_resolved_add(r, url, path, refused, e);
    free(url);
    return rc;
}

/* The .gguf paths of the tree listing at url, page after page (made to
 * end: gg_listing), one a line into paths; those that are no plain path
 * into r as refused. */
static int fetch_listing(gg_net *n, const hub *hb, const char *spec, const hf_name *h, const char *url,
                         gg_buf *paths, gg_resolved *r, gg_err *e)
{
    char *next = strdup(url);
    int rc = next ? 0 : gg_fail(e, GG_E_NOMEM, "out of memory");
    gg_listing l;
    gg_listing_begin(&l, n, spec, "Link: rel=\"next\"");
    for (int page = 0; next && rc == 0; page++) {
        if ((rc = gg_listing_next(&l, next, e)))
            break;
        gg_buf body = {0};
        gg_http_get g = {.url = next, .body = &body, .max_body = MAX_PAGE_BYTES, .policy = &hb->p};
        rc = gg_net_get(n, &g, e);
        free(next);
        next = NULL;
        free(g.final_url);
        if (rc) {
            gg_buf_free(&body);
            if (e)
                gg_err_prefix(e, "%s: listing the repository", spec);
            gg_listing_failed(&l, e);
            break;
        }
        cJSON *j = cJSON_ParseWithLength(body.p ? body.p : "", body.len);
        gg_buf_free(&body);
        if (!cJSON_IsArray(j)) {
            cJSON_Delete(j);
            rc = gg_fail(e, GG_E_IO, "%s: the tree listing (page %d) is not a JSON array", spec, page + 1);
            break;
        }
        cJSON *it;
        cJSON_ArrayForEach(it, j)
        {
            const cJSON *type = cJSON_GetObjectItemCaseSensitive(it, "type");
            const cJSON *path = cJSON_GetObjectItemCaseSensitive(it, "path");
            if (!cJSON_IsString(type) || strcmp(type->valuestring, "file") || !cJSON_IsString(path) ||
                !gg_is_gguf_name(path->valuestring) || gg_later_shard(path->valuestring))
                continue;
            /* A hostile listing must not send us elsewhere ("../../other/repo/x.gguf"). */
            const char *why = gg_bad_listed_path(path->valuestring);
            if (why ? add_model(hb, h, path->valuestring, why, r, e) != 0
                    : (gg_buf_printf(paths, "%s\n", path->valuestring), paths->oom)) {
                rc = gg_fail(e, GG_E_NOMEM, "out of memory");
                break;
            }
        }
        cJSON_Delete(j);
        if (g.next_link[0])
            next = strdup(g.next_link);
    }
    gg_listing_end(&l);
    free(next);
    return rc;
}

/* The tree API's URL of h's repository at its revision (NULL: out of memory). */
static char *tree_url(const hub *hb, const hf_name *h)
{
    gg_buf url = {0};
    gg_buf_printf(&url, "%s/api/models/", hb->endpoint);
    gg_url_escape(&url, h->org, 0);
    gg_buf_puts(&url, "/");
    gg_url_escape(&url, h->repo, 0);
    gg_buf_puts(&url, "/tree/");
    gg_url_escape(&url, h->rev, 0);
    gg_buf_puts(&url, "?recursive=true&expand=false");
    if (url.oom) {
        gg_buf_free(&url);
        return NULL;
    }
    return url.p;
}

/* With a disk cache, the listing at url is kept there (by its URL's
 * gg_url_cache_key, which holds the revision): a listing fetched (rc 0) is put there; when the hub
 * could not be reached (*le), the one kept for this revision replaces
 * paths and r's refused entries. Returns rc, or 0 for the kept listing. */
static int listing_cache(gg_net *n, const hf_name *h, const char *url, int rc, gg_err *le, gg_buf *paths,
                         gg_resolved *r)
{
    gg_diskcache *d = gg_net_diskcache(n);
    if (!d)
        return rc;
    char key[4200], want[300], *name = gg_url_cache_key(url); /* (no credentials of $HF_ENDPOINT) */
    if (!name)
        return rc;
    snprintf(key, sizeof key, "hf-tree %s", name);
    free(name);
    snprintf(want, sizeof want, "rev %s\n", h->rev);
    gg_buf meta = {0};
    if (rc == 0) {
        gg_buf_printf(&meta, "%s%s", want, paths->p ? paths->p : "");
        if (!meta.oom)
            gg_diskcache_put_meta(d, key, meta.p);
    } else if ((le->code == GG_E_IO || le->code == GG_E_TIMEOUT) && gg_diskcache_get_meta(d, key, &meta) == 0 &&
               meta.p && !strncmp(meta.p, want, strlen(want))) {
        gg_log("%s; the listing from the disk cache", le->msg);
        gg_resolved_free(r);
        gg_buf_free(paths);
        gg_buf_puts(paths, meta.p + strlen(want));
        rc = paths->oom ? gg_fail(le, GG_E_NOMEM, "out of memory") : 0;
    }
    gg_buf_free(&meta);
    return rc;
}

/* Every GGUF file of the repo, through the tree API; with a disk cache,
 * also when the hub cannot be reached, if it was listed before. */
static int list_repo(gg_net *n, const hub *hb, const char *spec, const hf_name *h, gg_resolved *r, gg_err *e)
{
    char *url = tree_url(hb, h);
    if (!url)
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    gg_buf paths = {0};
    gg_err le;
    int rc = fetch_listing(n, hb, spec, h, url, &paths, r, &le);
    rc = listing_cache(n, h, url, rc, &le, &paths, r);
    for (char *p = paths.p, *line; rc == 0 && p && (line = strsep(&p, "\n"));)
        if (*line && add_model(hb, h, line, NULL, r, &le))
            rc = -1;
    gg_buf_free(&paths);
    free(url);
    if (rc && e)
        *e = le;
    int mounted = 0;
    for (int i = 0; i < r->count; i++)
        mounted += !r->models[i].refused;
    if (rc == 0 && !mounted)
        rc = gg_fail(e, GG_E_NOTFOUND, "%s: no GGUF file in the repository at %s", spec, h->rev);
    return rc;
}

/* hf://ORG/REPO[@REV]/PATH: one model; hf://ORG/REPO[@REV]: the repository's. */
static int hf_expand(gg_net *n, void *state, const char *spec, gg_resolved *r, gg_err *e)
{
    hf_name h;
    if (parse(spec, &h, e))
        return -1;
    if (*h.path)
        return add_model(state, &h, h.path, NULL, r, e);
    int rc = list_repo(n, state, spec, &h, r, e);
    r->collection = 1;
    return rc;
}

const gg_resolver gg_hf_resolver = {.scheme = "hf", .init = hub_init, .free = hub_free, .expand = hf_expand,
                                    .policy_for = hub_policy_for};
