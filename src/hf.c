/* hf.c - hf:// names as URLs (see hf.h). */
#include "gguffs/hf.h"
#include "gguffs/model.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PAGES 10000           /* of a tree listing: a loop guard */
#define MAX_PAGE_BYTES (64u << 20)

int gg_is_hf(const char *spec) { return !strncmp(spec, "hf://", 5); }

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
    char org[256], repo[256], rev[256];
    const char *path; /* into the spec; "" for a whole repo */
} hf_name;

static int parse(const char *spec, hf_name *h, gg_err *e)
{
    const char *p = spec + 5, *slash = strchr(p, '/');
    if (!slash || slash == p || (size_t)(slash - p) >= sizeof h->org)
        return gg_fail(e, GG_E_INVAL, "%s: expected hf://ORG/REPO[@REVISION][/FILE.gguf]", spec);
    memcpy(h->org, p, (size_t)(slash - p));
    h->org[slash - p] = 0;
    const char *r = slash + 1, *end = r + strcspn(r, "/");
    const char *at = memchr(r, '@', (size_t)(end - r));
    const char *repo_end = at ? at : end;
    if (repo_end == r || (size_t)(repo_end - r) >= sizeof h->repo)
        return gg_fail(e, GG_E_INVAL, "%s: expected hf://ORG/REPO[@REVISION][/FILE.gguf]", spec);
    memcpy(h->repo, r, (size_t)(repo_end - r));
    h->repo[repo_end - r] = 0;
    if (at) {
        if (end - at - 1 <= 0 || (size_t)(end - at - 1) >= sizeof h->rev)
            return gg_fail(e, GG_E_INVAL, "%s: empty or overlong revision after '@'", spec);
        memcpy(h->rev, at + 1, (size_t)(end - at - 1));
        h->rev[end - at - 1] = 0;
    } else {
        strcpy(h->rev, "main");
    }
    h->path = *end == '/' ? end + 1 : "";
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
    url_escape(&b, h->rev, 0);
    gg_buf_puts(&b, "/");
    url_escape(&b, path, 1);
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

static int add_model(gg_net *n, const hf_name *h, const char *path, gg_hf_model **ms, int *count, gg_err *e)
{
    gg_hf_model *p = realloc(*ms, (size_t)(*count + 1) * sizeof *p);
    if (!p)
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    *ms = p;
    p[*count].url = resolve_url(n, h, path);
    p[*count].path = strdup(path);
    if (!p[*count].url || !p[*count].path) {
        free(p[*count].url);
        free(p[*count].path);
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    }
    (*count)++;
    return 0;
}

/* Every GGUF file of the repo, through the tree API, page after page. */
static int list_repo(gg_net *n, const char *spec, const hf_name *h, gg_hf_model **ms, int *count, gg_err *e)
{
    gg_buf url = {0};
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
    char *next = url.p;
    int rc = 0;
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
            if (cJSON_IsString(type) && !strcmp(type->valuestring, "file") && cJSON_IsString(path) &&
                is_gguf(path->valuestring) && !later_shard(path->valuestring) &&
                add_model(n, h, path->valuestring, ms, count, e)) {
                rc = -1;
                break;
            }
        }
        cJSON_Delete(j);
        if (g.next_link[0])
            next = strdup(g.next_link);
    }
    free(next);
    if (rc == 0 && *count == 0)
        rc = gg_fail(e, GG_E_NOTFOUND, "%s: no GGUF file in the repository at %s", spec, h->rev);
    return rc;
}

int gg_hf_expand(gg_net *n, const char *spec, gg_hf_model **models, int *count, gg_err *e)
{
    hf_name h;
    *models = NULL;
    *count = 0;
    if (parse(spec, &h, e))
        return -1;
    int rc = *h.path ? add_model(n, &h, h.path, models, count, e) : list_repo(n, spec, &h, models, count, e);
    if (rc) {
        gg_hf_free(*models, *count);
        *models = NULL;
        *count = 0;
    }
    return rc;
}

void gg_hf_free(gg_hf_model *models, int count)
{
    for (int i = 0; i < count; i++) {
        free(models[i].url);
        free(models[i].path);
    }
    free(models);
}
