/* ollama.c - ollama:// names as blob URLs, and the registry's policy for
 * its requests (see ollama.h). */
#include "ollama.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_REGISTRY "https://registry.ollama.ai"
#define DEFAULT_HOST "registry.ollama.ai"
#define MAX_MANIFEST (4u << 20)
#define MAX_ORIGINS 16
/* The registry answers 412 to a client whose user agent is not Ollama's. */
#define USER_AGENT "ollama/0.12.0 (amd64 linux) gguffs/0.2"
#define MANIFEST_TYPE "application/vnd.docker.distribution.manifest.v2+json"
#define LAYER "application/vnd.ollama.image."

/* The registries of a net: its state in the resolver table, and its policy. */
typedef struct registry {
    gg_net_policy p;   /* (first: the policy is the registry) */
    char *url;         /* -o ollama_registry=, or the default, without a trailing '/' */
    pthread_mutex_t mu; /* guards adding origins (names are resolved before any read) */
    char *origins[MAX_ORIGINS]; /* scheme://host:port of the registries in use */
    _Atomic int norigins;
    struct blob {               /* the model and projector layers of the manifests read (mu) */
        char hex[65];
        uint64_t size;
    } *blobs;
    int nblobs;
    size_t capblobs;
} registry;

static int at_registry(const registry *r, const char *url)
{
    char *o = gg_url_origin(url);
    int yes = 0;
    for (int i = 0; o && i < atomic_load(&r->norigins) && !yes; i++)
        yes = !strcmp(o, r->origins[i]);
    free(o);
    return yes;
}

/* Ollama's user agent to the registry; the manifest type it asks for. */
static void registry_hop(const gg_net_policy *p, gg_net_hop *hop)
{
    const registry *r = (const registry *)p;
    if (!at_registry(r, hop->url))
        return;
    curl_easy_setopt(hop->curl, CURLOPT_USERAGENT, USER_AGENT);
    if (strstr(hop->url, "/manifests/"))
        gg_net_hop_header(hop, "Accept: " MANIFEST_TYPE);
}

/* Blobs are named by their digest. */
static int registry_content_addressed(const gg_net_policy *p, const char *url)
{
    (void)p;
    return strstr(url, "/blobs/sha256:") != NULL;
}

/* A blob URL's digest (.../blobs/sha256:HEX), into hex: 1, or 0. */
static int blob_digest(const char *url, char hex[65])
{
    const char *d = strstr(url, "/blobs/sha256:");
    if (!d || strlen(d + 14) < 64 || strspn(d + 14, "0123456789abcdef") < 64 || (d[78] && d[78] != '?'))
        return 0;
    memcpy(hex, d + 14, 64);
    hex[64] = 0;
    return 1;
}

/* The blob of digest hex the manifests read gave, or NULL (r->mu held). */
static const struct blob *find_blob(const registry *r, const char *hex)
{
    for (int i = 0; i < r->nblobs; i++)
        if (!strcmp(r->blobs[i].hex, hex))
            return &r->blobs[i];
    return NULL;
}

/* A blob is what its manifest's layer says: that size, that digest. */
static int registry_identity(const gg_net_policy *p, const char *url, uint64_t *size, char sha256[65])
{
    registry *r = (registry *)p;
    char hex[65];
    if (!blob_digest(url, hex))
        return 0;
    pthread_mutex_lock(&r->mu);
    const struct blob *b = find_blob(r, hex);
    int found = b != NULL;
    if (found) {
        *size = b->size;
        memcpy(sha256, hex, 65);
    }
    pthread_mutex_unlock(&r->mu);
    return found;
}

/* The size a manifest gives the blob of digest hex: 0, or -1 with *e set
 * (out of memory, or another manifest gave it another size). */
static int note_blob(registry *r, const char *spec, const char *hex, uint64_t size, gg_err *e)
{
    int rc = 0;
    pthread_mutex_lock(&r->mu);
    const struct blob *b = find_blob(r, hex);
    if (b && b->size != size) {
        rc = gg_fail(e, GG_E_MALFORMED, "%s: the manifest gives blob sha256:%s %" PRIu64 " bytes, another one %"
                     PRIu64, spec, hex, size, b->size);
    } else if (!b) {
        if (gg_grow((void **)&r->blobs, &r->capblobs, (size_t)r->nblobs, sizeof *r->blobs, 8)) {
            rc = gg_fail(e, GG_E_NOMEM, "out of memory");
        } else {
            r->blobs[r->nblobs] = (struct blob){.size = size};
            memcpy(r->blobs[r->nblobs++].hex, hex, 65);
        }
    }
    pthread_mutex_unlock(&r->mu);
    return rc;
}

/* {"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]} */
static int registry_refusal(const gg_net_policy *p, const char *body, size_t len, char *out, size_t cap)
{
    (void)p;
    cJSON *j = cJSON_ParseWithLength(body, len);
    const cJSON *e0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "errors"), 0);
    const cJSON *code = cJSON_GetObjectItemCaseSensitive(e0, "code");
    const cJSON *msg = cJSON_GetObjectItemCaseSensitive(e0, "message");
    int ok = cJSON_IsString(code) || cJSON_IsString(msg);
    if (ok) {
        snprintf(out, cap, "%.64s%s%.200s", cJSON_IsString(code) ? code->valuestring : "",
                 cJSON_IsString(code) && cJSON_IsString(msg) ? ": " : "", cJSON_IsString(msg) ? msg->valuestring : "");
        for (char *c = out; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = ' ';
    }
    cJSON_Delete(j);
    return ok;
}

static const gg_net_policy *registry_policy_for(void *state, const char *url)
{
    registry *r = state;
    return at_registry(r, url) ? &r->p : NULL;
}

/* Read url's (and its hops') requests with the policy from now on. */
static int add_origin(registry *r, const char *url)
{
    char *o = gg_url_origin(url);
    if (!o)
        return -1;
    pthread_mutex_lock(&r->mu);
    int n = atomic_load(&r->norigins), have = 0;
    for (int i = 0; i < n && !have; i++)
        have = !strcmp(r->origins[i], o);
    if (!have && n < MAX_ORIGINS) {
        r->origins[n] = o;
        o = NULL;
        atomic_store(&r->norigins, n + 1);
    }
    pthread_mutex_unlock(&r->mu);
    free(o);
    return 0;
}

static void registry_free(void *state)
{
    registry *r = state;
    if (!r)
        return;
    for (int i = 0; i < atomic_load(&r->norigins); i++)
        free(r->origins[i]);
    pthread_mutex_destroy(&r->mu);
    free(r->blobs);
    free(r->url);
    free(r);
}

static int registry_check(const gg_net_opts *o, gg_err *e)
{
    return gg_endpoint_check("ollama_registry", o->ollama_registry, e);
}

static int registry_init(const gg_net_opts *o, void **state, gg_err *e)
{
    registry *r = calloc(1, sizeof *r);
    if (!r || !(r->url = strdup(o->ollama_registry ? o->ollama_registry : DEFAULT_REGISTRY))) {
        free(r);
        return gg_fail(e, GG_E_NOMEM, "out of memory setting up the HTTP client");
    }
    pthread_mutex_init(&r->mu, NULL);
    size_t l = strlen(r->url);
    while (l > 0 && r->url[l - 1] == '/')
        r->url[--l] = 0;
    if (add_origin(r, r->url)) { /* (a refused -o ollama_registry= never gets here: registry_check) */
        registry_free(r);
        return gg_fail(e, GG_E_NOMEM, "out of memory setting up the HTTP client");
    }
    r->p = (gg_net_policy){.hop = registry_hop, .refusal = registry_refusal,
                           .content_addressed = registry_content_addressed, .identity = registry_identity};
    *state = r;
    return 0;
}

/* ---- names ---- */

#define SYNTAX "expected ollama://[HOST/][NAMESPACE/]MODEL[:TAG]"

typedef struct ollama_name {
    char host[256]; /* "" for the registry of -o ollama_registry= */
    char ns[128], model[128], tag[128];
} ollama_name;

static int plain(const char *s, size_t n, const char *extra)
{
    if (!n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') ||
              strchr("._-", s[i]) || (extra && strchr(extra, s[i]))) || !s[i])
            return 0;
    return s[0] != '.';
}

static int parse(const char *spec, ollama_name *n, gg_err *e)
{
    memset(n, 0, sizeof *n);
    const char *p = spec + 9; /* "ollama://" */
    const char *c[4];
    size_t len[4];
    int k = 0;
    for (const char *s = p; k < 4;) {
        const char *slash = strchr(s, '/');
        c[k] = s;
        len[k++] = slash ? (size_t)(slash - s) : strlen(s);
        if (!slash)
            break;
        s = slash + 1;
    }
    if (k > 3)
        return gg_fail(e, GG_E_INVAL, "%s: " SYNTAX, spec);
    /* MODEL[:TAG] */
    const char *last = c[k - 1], *colon = memchr(last, ':', len[k - 1]);
    size_t ml = colon ? (size_t)(colon - last) : len[k - 1], tl = colon ? len[k - 1] - ml - 1 : 6;
    const char *tag = colon ? colon + 1 : "latest";
    if (!plain(last, ml, NULL) || !plain(tag, tl, NULL) || ml >= sizeof n->model || tl >= sizeof n->tag)
        return gg_fail(e, GG_E_INVAL, "%s: the model and tag are letters, digits, '.', '_' and '-' (" SYNTAX ")",
                       spec);
    memcpy(n->model, last, ml);
    memcpy(n->tag, tag, tl);
    const char *ns = k >= 2 ? c[k - 2] : "library";
    size_t nl = k >= 2 ? len[k - 2] : 7;
    if (!plain(ns, nl, NULL) || nl >= sizeof n->ns)
        return gg_fail(e, GG_E_INVAL, "%s: the namespace is letters, digits, '.', '_' and '-' (" SYNTAX ")", spec);
    memcpy(n->ns, ns, nl);
    if (k == 3) {
        if (!plain(c[0], len[0], ":") || len[0] >= sizeof n->host)
            return gg_fail(e, GG_E_INVAL, "%s: the host is a host name and port (" SYNTAX ")", spec);
        memcpy(n->host, c[0], len[0]);
    }
    return 0;
}

/* The nth layer of mediaType LAYER + kind: its digest (64 hex digits) and
 * size; 1, 0 if there is none, -1 if its digest is no sha256 one. */
static int layer(const cJSON *m, const char *kind, int nth, char hex[65], uint64_t *size)
{
    const cJSON *it;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(m, "layers"))
    {
        const cJSON *mt = cJSON_GetObjectItemCaseSensitive(it, "mediaType");
        if (!cJSON_IsString(mt) || strncmp(mt->valuestring, LAYER, strlen(LAYER)) ||
            strcmp(mt->valuestring + strlen(LAYER), kind) || nth-- > 0)
            continue;
        const cJSON *dg = cJSON_GetObjectItemCaseSensitive(it, "digest");
        const cJSON *sz = cJSON_GetObjectItemCaseSensitive(it, "size");
        const char *d = cJSON_IsString(dg) ? dg->valuestring : "";
        if (strncmp(d, "sha256:", 7) || strlen(d + 7) != 64 || strspn(d + 7, "0123456789abcdef") != 64 ||
            !cJSON_IsNumber(sz) || sz->valuedouble < 0)
            return -1;
        memcpy(hex, d + 7, 65);
        *size = (uint64_t)sz->valuedouble;
        return 1;
    }
    return 0;
}

/* What the manifest's layers are, for the message of a tag with no GGUF. */
static void layer_kinds(const cJSON *m, char *out, size_t cap)
{
    const cJSON *it;
    out[0] = 0;
    cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(m, "layers"))
    {
        const cJSON *mt = cJSON_GetObjectItemCaseSensitive(it, "mediaType");
        if (cJSON_IsString(mt) && !strstr(out, mt->valuestring) && strlen(out) + strlen(mt->valuestring) + 3 < cap)
            snprintf(out + strlen(out), cap - strlen(out), "%s%.100s", out[0] ? ", " : "", mt->valuestring);
    }
}

static const char *const side_layers[] = {"template", "system", "params", "license"};

/* The model's side files: the blob of each small layer. */
static int add_sides(gg_resolved *res, const cJSON *m, const char *base, gg_err *e)
{
    gg_resolved_model *rm = &res->models[res->count - 1];
    for (size_t k = 0; k < sizeof side_layers / sizeof *side_layers; k++) {
        char hex[65];
        uint64_t size;
        int got, nth = 0;
        while ((got = layer(m, side_layers[k], nth++, hex, &size)) > 0) {
            gg_side_spec *v = realloc(rm->sides, (size_t)(rm->nsides + 1) * sizeof *v);
            if (!v)
                return gg_fail(e, GG_E_NOMEM, "out of memory");
            rm->sides = v;
            gg_side_spec *sp = &v[rm->nsides++];
            memset(sp, 0, sizeof *sp);
            sp->name = strdup(side_layers[k]);
            if (asprintf(&sp->spec, "%s/blobs/sha256:%s", base, hex) < 0)
                sp->spec = NULL;
            sp->size = size;
            memcpy(sp->sha256, hex, 65);
            if (!sp->name || !sp->spec)
                return gg_fail(e, GG_E_NOMEM, "out of memory");
        }
        if (got < 0)
            return gg_fail(e, GG_E_MALFORMED, "the manifest's %s layer has no sha256 digest and size", side_layers[k]);
    }
    return 0;
}

static int ollama_expand(gg_net *net, void *state, const char *spec, gg_resolved *res, gg_err *e)
{
    registry *r = state;
    ollama_name n;
    if (parse(spec, &n, e))
        return -1;
    char reg[600], base[1200], url[1400], name[800];
    if (n.host[0] && strcmp(n.host, DEFAULT_HOST))
        snprintf(reg, sizeof reg, "https://%s", n.host);
    else
        snprintf(reg, sizeof reg, "%s", r->url);
    if (add_origin(r, reg))
        return gg_fail(e, GG_E_INVAL, "%s: %s is not a registry's URL", spec, reg);
    snprintf(base, sizeof base, "%s/v2/%s/%s", reg, n.ns, n.model);
    snprintf(url, sizeof url, "%s/manifests/%s", base, n.tag);
    /* Named as the local store names it. */
    if (n.host[0])
        snprintf(name, sizeof name, "%s/%s/%s:%s", n.host, n.ns, n.model, n.tag);
    else if (strcmp(n.ns, "library"))
        snprintf(name, sizeof name, "%s/%s:%s", n.ns, n.model, n.tag);
    else
        snprintf(name, sizeof name, "%s:%s", n.model, n.tag);

    gg_buf body = {0};
    gg_http_get g = {.url = url, .body = &body, .max_body = MAX_MANIFEST, .policy = &r->p};
    int rc = gg_net_get(net, &g, e);
    free(g.final_url);
    if (rc) {
        gg_buf_free(&body);
        gg_err_prefix(e, "%s: the manifest", spec);
        return -1;
    }
    cJSON *m = cJSON_ParseWithLength(body.p ? body.p : "", body.len);
    gg_buf_free(&body);
    if (!cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(m, "layers"))) {
        cJSON_Delete(m);
        return gg_fail(e, GG_E_MALFORMED, "%s: %s: not an Ollama manifest (no \"layers\" array)", spec, url);
    }
    char hex[65], blob[1400], kinds[600];
    uint64_t size;
    int got = layer(m, "model", 0, hex, &size);
    if (got <= 0) {
        layer_kinds(m, kinds, sizeof kinds);
        rc = got < 0 ? gg_fail(e, GG_E_MALFORMED, "%s: the manifest's model layer has no sha256 digest and size", spec)
                     : gg_fail(e, GG_E_UNSUPPORTED, "%s: the tag's layers are not GGUF (%s): only models with an "
                               "application/vnd.ollama.image.model layer (a GGUF file) can be mounted; Ollama's "
                               "safetensors-layer models cannot", spec, kinds[0] ? kinds : "no layers");
        cJSON_Delete(m);
        return rc;
    }
    snprintf(blob, sizeof blob, "%s/blobs/sha256:%s", base, hex);
    rc = note_blob(r, spec, hex, size, e) || gg_resolved_add(res, blob, name, NULL, e) || add_sides(res, m, base, e)
             ? -1 : 0;
    if (rc == 0 && (got = layer(m, "projector", 0, hex, &size)) != 0) {
        char pname[900];
        snprintf(blob, sizeof blob, "%s/blobs/sha256:%s", base, hex);
        snprintf(pname, sizeof pname, "%s.projector", name);
        rc = got < 0 ? gg_fail(e, GG_E_MALFORMED, "%s: the manifest's projector layer has no sha256 digest", spec)
             : note_blob(r, spec, hex, size, e) ? -1
                                                 : gg_resolved_add(res, blob, pname, NULL, e);
    }
    cJSON_Delete(m);
    res->named = 1;
    return rc;
}

const gg_resolver gg_ollama_resolver = {.scheme = "ollama", .check = registry_check, .init = registry_init,
                                        .free = registry_free, .expand = ollama_expand,
                                        .policy_for = registry_policy_for};
