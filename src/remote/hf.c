/* hf.c - hf:// names as URLs (see hf.h). */
#include "hf.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "gguffs/diskcache.h"
#include "gguffs/model.h"

#define MAX_PAGES 10000           /* of a tree listing: a loop guard */
#define MAX_PAGE_BYTES (64u << 20)

/* Percent-encode s for a URL path (keep unreserved characters and, if
 * keep_slash, '/'). */
static void url_escape(gg_buf *out, const char *s, int keep_slash)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' ||
            *p == '_' || *p == '.' || *p == '~' || (keep_slash && *p == '/'))
            gg_buf_put(out, p, 1);
        else
            gg_buf_printf(out, "%%%02X", *p);
    }
}

typedef struct hf_name {
    char org[256], repo[256], rev[256]; /* rev decoded: "refs/pr/1" */
    char path[4096];                    /* decoded; "" for a whole repo */
} hf_name;

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* n bytes of s, %XX-decoded once, into out (cap bytes). Returns -1 if too long. */
static int decode(const char *s, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int c = (unsigned char)s[i];
        if (c == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
            c = hexval(s[i + 1]) * 16 + hexval(s[i + 2]);
            i += 2;
        }
        if (k + 1 >= cap)
            return -1;
        out[k++] = (char)c;
    }
    out[k] = 0;
    return 0;
}

/* A file's path in a repository, from the command line or a listing: plain
 * segments (no empty one, no "." or "..", no control character) ending in
 * .gguf. NULL, or what is wrong with it. */
static const char *bad_path(const char *path)
{
    size_t n = strlen(path);
    if (!n)
        return "an empty path";
    for (const char *p = path; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '\\')
            return "a control character or a backslash in the path";
    for (const char *seg = path; seg;) {
        const char *end = strchr(seg, '/');
        size_t k = end ? (size_t)(end - seg) : strlen(seg);
        if (k == 0)
            return "an empty segment in the path ('//')";
        if ((k == 1 && seg[0] == '.') || (k == 2 && seg[0] == '.' && seg[1] == '.'))
            return "a '.' or '..' segment in the path";
        seg = end ? end + 1 : NULL;
    }
    if (n <= 5 || strcmp(path + n - 5, ".gguf"))
        return "not a .gguf file";
    return NULL;
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
    const char *rest = end;
    if (*rest == '@') {
        /* One segment, or refs/KIND/NAME (the hub's refs/pr/N, refs/convert/...) */
        const char *v = rest + 1, *vend = v + strcspn(v, "/");
        if (vend - v == 4 && !strncmp(v, "refs", 4)) {
            for (int k = 0; k < 2 && *vend == '/'; k++)
                vend += 1 + strcspn(vend + 1, "/");
        }
        if (vend == v || decode(v, (size_t)(vend - v), h->rev, sizeof h->rev) || !h->rev[0])
            return gg_fail(e, GG_E_INVAL, "%s: empty or overlong revision after '@'", spec);
        for (const char *q = h->rev; *q; q++)
            if ((unsigned char)*q < 0x20 || *q == 0x7f)
                return gg_fail(e, GG_E_INVAL, "%s: a control character in the revision", spec);
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
        if (decode(rest + 1, n - 1, h->path, sizeof h->path))
            return gg_fail(e, GG_E_INVAL, "%s: the path is too long", spec);
        const char *why = bad_path(h->path);
        if (why)
            return gg_fail(e, GG_E_INVAL, "%s: %s (" SYNTAX ")", spec, why);
    }
    return 0;
}

static char *resolve_url(gg_net *n, const hf_name *h, const char *path)
{
    gg_buf b = {0};
    gg_buf_printf(&b, "%s/", gg_net_hf_endpoint(n));
    url_escape(&b, h->org, 0);
    gg_buf_puts(&b, "/");
    url_escape(&b, h->repo, 0);
    gg_buf_puts(&b, "/resolve/");
    url_escape(&b, h->rev, 0); /* (refs/pr/1 as refs%2Fpr%2F1, as the hub's own client sends it) */
    gg_buf_puts(&b, "/");
    url_escape(&b, path, 1); /* (each segment once: bad_path() allows no "." or "..") */
    if (b.oom) {
        gg_buf_free(&b);
        return NULL;
    }
    return b.p;
}

static int is_gguf(const char *path)
{
    size_t n = strlen(path);
    return n > 5 && !strcmp(path + n - 5, ".gguf");
}

/* A shard other than the first of a gguf-split set (NAME-0000K-of-0000N.gguf, K > 1). */
static int later_shard(const char *path)
{
    int part;
    return gg_shard_suffix(path, strlen(path), &part) >= 0 && part > 1;
}

/* One more model: path in the repo, or (refused != NULL) a listed path that is not mounted, and why. */
static int add_model(gg_net *n, const hf_name *h, const char *path, const char *refused, gg_resolved *r, gg_err *e)
{
    char *url = refused ? NULL : resolve_url(n, h, path);
    int rc = !refused && !url ? gg_fail(e, GG_E_NOMEM, "out of memory") : gg_resolved_add(r, url, path, refused, e);
    free(url);
    return rc;
}

/* The .gguf paths of the tree listing at url, page after page, one a line
 * into paths; those that are no plain path into r as refused. */
static int fetch_listing(gg_net *n, const char *spec, const hf_name *h, const char *url, gg_buf *paths,
                         gg_resolved *r, gg_err *e)
{
    char *next = strdup(url);
    int rc = next ? 0 : gg_fail(e, GG_E_NOMEM, "out of memory");
    for (int page = 0; next && rc == 0; page++) {
        if (page >= MAX_PAGES) {
            rc = gg_fail(e, GG_E_IO, "%s: the tree listing goes on past %d pages", spec, MAX_PAGES);
            break;
        }
        gg_buf body = {0};
        gg_http_get g = {.url = next, .body = &body, .max_body = MAX_PAGE_BYTES};
        rc = gg_net_get(n, &g, e);
        free(next);
        next = NULL;
        free(g.final_url);
        if (rc) {
            gg_buf_free(&body);
            if (e)
                gg_err_prefix(e, "%s: listing the repository", spec);
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
                !is_gguf(path->valuestring) || later_shard(path->valuestring))
                continue;
            /* A hostile listing must not send us elsewhere ("../../other/repo/x.gguf"). */
            const char *why = bad_path(path->valuestring);
            if (why ? add_model(n, h, path->valuestring, why, r, e) != 0
                    : (gg_buf_printf(paths, "%s\n", path->valuestring), paths->oom)) {
                rc = gg_fail(e, GG_E_NOMEM, "out of memory");
                break;
            }
        }
        cJSON_Delete(j);
        if (g.next_link[0])
            next = strdup(g.next_link);
    }
    free(next);
    return rc;
}

/* Every GGUF file of the repo, through the tree API. With a disk cache the
 * listing is kept there too (by its URL, which holds the revision), so the
 * repository mounts when the hub cannot be reached. */
static int list_repo(gg_net *n, const char *spec, const hf_name *h, gg_resolved *r, gg_err *e)
{
    gg_buf url = {0}, paths = {0};
    gg_buf_printf(&url, "%s/api/models/", gg_net_hf_endpoint(n));
    url_escape(&url, h->org, 0);
    gg_buf_puts(&url, "/");
    url_escape(&url, h->repo, 0);
    gg_buf_puts(&url, "/tree/");
    url_escape(&url, h->rev, 0);
    gg_buf_puts(&url, "?recursive=true&expand=false");
    if (url.oom) {
        gg_buf_free(&url);
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    }
    gg_diskcache *d = gg_net_diskcache(n);
    char key[4200];
    snprintf(key, sizeof key, "hf-tree %s", url.p);
    gg_err le;
    int rc = fetch_listing(n, spec, h, url.p, &paths, r, &le);
    if (rc == 0 && d) {
        gg_buf meta = {0};
        gg_buf_printf(&meta, "rev %s\n%s", h->rev, paths.p ? paths.p : "");
        if (!meta.oom)
            gg_diskcache_put_meta(d, key, meta.p);
        gg_buf_free(&meta);
    } else if (rc && d && (le.code == GG_E_IO || le.code == GG_E_TIMEOUT)) {
        /* Unreachable: the listing cached before, if it is of this revision. */
        gg_buf meta = {0};
        char want[300];
        snprintf(want, sizeof want, "rev %s\n", h->rev);
        if (gg_diskcache_get_meta(d, key, &meta) == 0 && meta.p && !strncmp(meta.p, want, strlen(want))) {
            gg_log("%s; the listing from the disk cache", le.msg);
            gg_resolved_free(r);
            gg_buf_free(&paths);
            gg_buf_puts(&paths, meta.p + strlen(want));
            rc = paths.oom ? gg_fail(&le, GG_E_NOMEM, "out of memory") : 0;
        }
        gg_buf_free(&meta);
    }
    for (char *p = paths.p, *line; rc == 0 && p && (line = strsep(&p, "\n"));)
        if (*line && add_model(n, h, line, NULL, r, &le))
            rc = -1;
    gg_buf_free(&paths);
    gg_buf_free(&url);
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
static int hf_expand(gg_net *n, const char *spec, gg_resolved *r, gg_err *e)
{
    hf_name h;
    if (parse(spec, &h, e))
        return -1;
    if (*h.path)
        return add_model(n, &h, h.path, NULL, r, e);
    int rc = list_repo(n, spec, &h, r, e);
    r->collection = 1;
    return rc;
}

const gg_resolver gg_hf_resolver = {.scheme = "hf", .expand = hf_expand};
