/* s3.c - s3:// names as URLs, and an S3 store's policy for its requests:
 * SigV4 through libcurl (see s3.h). */
#include "s3.h"

#include "aws_config.h"

#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_PAGE_BYTES (16u << 20)
#define MAX_KEY 1024              /* S3's own limit, in bytes */

/* The store of a net: its state in the resolver table, and its policy. */
typedef struct store {
    gg_net_policy p;  /* (first: the policy is the store) */
    char *endpoint;   /* a custom one (path-style), without a trailing '/'; NULL: AWS */
    char *origin;     /* its scheme://host:port */
    char *region;
    char *aws_suffix; /* ".s3.REGION.amazonaws.com": AWS's hosts for the region */
    char sigv4[160];  /* "aws:amz:REGION:s3" */
    char *userpwd;    /* "KEY:SECRET", or NULL: requests go unsigned */
    char *token;      /* "x-amz-security-token: ...", or NULL */
    char *bad;        /* a setting that is wrong, said when s3:// is used; NULL: none */
    char *hint;       /* what would let us in, for a refusal's message (where the key pair came
                       * from, or where none was found: aws_config.h) */
} store;

/* ---- settings: the environment, and the profile (aws_config.c) ---- */

#define env gg_aws_env

static void store_free(void *state)
{
    store *s = state;
    if (!s)
        return;
    free(s->endpoint);
    free(s->origin);
    free(s->region);
    free(s->aws_suffix);
    if (s->userpwd)
        memset(s->userpwd, 0, strlen(s->userpwd));
    if (s->token)
        memset(s->token, 0, strlen(s->token));
    free(s->userpwd);
    free(s->token);
    free(s->bad);
    free(s->hint);
    free(s);
}

/* A setting that is wrong: kept, and said when an s3:// name is used (a
 * bad $AWS_ENDPOINT_URL must not stop a mount of something else); the
 * first one found. */
static void bad_setting(store *s, const char *what, const char *why)
{
    if (!s->bad && asprintf(&s->bad, "%s: %s", what, why) < 0)
        s->bad = NULL;
}

/* The profile's part (aws_config.h): the key pair and token for libcurl,
 * what a refusal's message says of them, what is wrong with them. 0, or -1
 * (out of memory). */
static int take_profile(store *s, const gg_aws *a)
{
    if (a->bad && !(s->bad = strdup(a->bad)))
        return -1;
    if (a->key_id && asprintf(&s->userpwd, "%s:%s", a->key_id, a->secret) < 0)
        return s->userpwd = NULL, -1;
    if (a->key_id && a->token && asprintf(&s->token, "x-amz-security-token: %s", a->token) < 0)
        return s->token = NULL, -1;
    int n = a->key_id ? asprintf(&s->hint, "the key pair of %s; the region: -o s3_region=", a->source)
                      : asprintf(&s->hint, "no credentials were found: %s", a->source ? a->source : "");
    return n < 0 ? (s->hint = NULL, -1) : 0;
}

/* The endpoint: -o s3_endpoint=, else the environment's; none: AWS. (A
 * refused -o s3_endpoint= never gets here: store_check; only the
 * environment's can be refused here.) */
static int take_endpoint(store *s, const gg_net_opts *o)
{
    const char *ep = o->s3_endpoint        ? o->s3_endpoint
                     : env("AWS_ENDPOINT_URL_S3") ? env("AWS_ENDPOINT_URL_S3")
                                                  : env("AWS_ENDPOINT_URL");
    const char *from = env("AWS_ENDPOINT_URL_S3") ? "$AWS_ENDPOINT_URL_S3" : "$AWS_ENDPOINT_URL";
    if (!ep)
        return 0;
    const char *why = gg_endpoint_refused(ep);
    if (!(s->endpoint = strdup(ep)) || (!why && !(s->origin = gg_url_origin(ep))))
        return -1;
    if (why)
        bad_setting(s, from, why);
    size_t l = strlen(s->endpoint);
    while (l > 0 && s->endpoint[l - 1] == '/')
        s->endpoint[--l] = 0;
    return 0;
}

/* A region as AWS spells them (us-east-1): NULL, or why not (it goes into
 * host names and the signature's scope). */
static const char *region_refused(const char *r)
{
    size_t n = strlen(r);
    return n && n < 64 && strspn(r, "abcdefghijklmnopqrstuvwxyz0123456789-") == n
               ? NULL
               : "not a region name (letters, digits and '-', as us-east-1)";
}

/* The options of the store, whether or not an s3:// name comes. */
static int store_check(const gg_net_opts *o, gg_err *e)
{
    const char *why = o->s3_region ? region_refused(o->s3_region) : NULL;
    if (why)
        return gg_fail(e, GG_E_INVAL, "-o s3_region=%s: %s", o->s3_region, why);
    return gg_endpoint_check("s3_endpoint", o->s3_endpoint, e);
}

static void store_hop(const gg_net_policy *p, gg_net_hop *hop);
static void store_header(const gg_net_policy *p, gg_http_get *g, const char *name, const char *value);
static const char *store_access_hint(const gg_net_policy *p, const char *url);
static int store_refusal(const gg_net_policy *p, const char *body, size_t len, char *out, size_t cap);

static int store_init(const gg_net_opts *o, void **state, gg_err *e)
{
    store *s = calloc(1, sizeof *s);
    if (!s)
        return gg_fail(e, GG_E_NOMEM, "out of memory setting up the HTTP client");
    s->p = (gg_net_policy){.hop = store_hop, .header = store_header, .access_hint = store_access_hint,
                           .refusal = store_refusal};
    gg_aws aws;
    int rc = gg_aws_load(&aws);
    const char *region = o->s3_region              ? o->s3_region
                         : env("AWS_REGION")         ? env("AWS_REGION")
                         : env("AWS_DEFAULT_REGION") ? env("AWS_DEFAULT_REGION")
                         : aws.region                ? aws.region
                                                     : "us-east-1";
    if (rc == 0 && (!(s->region = strdup(region)) || take_profile(s, &aws) || take_endpoint(s, o)))
        rc = -1;
    gg_aws_free(&aws);
    if (rc == 0 && !region_refused(s->region)) {
        snprintf(s->sigv4, sizeof s->sigv4, "aws:amz:%s:s3", s->region);
        if (asprintf(&s->aws_suffix, ".s3.%s.amazonaws.com", s->region) < 0)
            s->aws_suffix = NULL, rc = -1;
    } else if (rc == 0) {
        bad_setting(s, s->region, region_refused(s->region));
    }
    if (rc) {
        store_free(s);
        return gg_fail(e, GG_E_NOMEM, "out of memory setting up the HTTP client");
    }
    *state = s;
    return 0;
}

/* ---- the policy ---- */

/* Is url the store's (at its endpoint, or one of AWS's S3 hosts of the
 * region), and not presigned? */
static int at_store(const store *s, const char *url)
{
    size_t q = strcspn(url, "?#");
    if (url[q] == '?' && (strstr(url + q, "?X-Amz-Signature=") || strstr(url + q, "&X-Amz-Signature=")))
        return 0; /* presigned: its query is its credentials; never signed again */
    char *o = gg_url_origin(url);
    int yes = 0;
    if (o && s->origin) {
        yes = !strcmp(o, s->origin);
    } else if (o && s->aws_suffix && !strncmp(o, "https://", 8)) {
        /* https://BUCKET.s3.REGION.amazonaws.com:443 or https://s3.REGION.amazonaws.com:443 */
        char *host = o + 8, *colon = strrchr(host, ':');
        size_t hl = colon ? (size_t)(colon - host) : strlen(host), sl = strlen(s->aws_suffix);
        yes = (hl > sl && !strncmp(host + hl - sl, s->aws_suffix, sl)) ||
              (hl == sl - 1 && !strncmp(host, s->aws_suffix + 1, hl));
    }
    free(o);
    return yes;
}

/* Each hop to the store is signed; a redirect elsewhere is not. */
static void store_hop(const gg_net_policy *p, gg_net_hop *hop)
{
    const store *s = (const store *)p;
    if (!s->userpwd || !at_store(s, hop->url))
        return;
    curl_easy_setopt(hop->curl, CURLOPT_AWS_SIGV4, s->sigv4);
    curl_easy_setopt(hop->curl, CURLOPT_USERPWD, s->userpwd);
    /* libcurl 7.88 signs this header's value as the payload's hash; a GET
     * has none worth hashing. */
    gg_net_hop_header(hop, "x-amz-content-sha256: UNSIGNED-PAYLOAD");
    if (s->token)
        gg_net_hop_header(hop, s->token);
}

/* A bucket in another region than ours: AWS answers 301 PermanentRedirect
 * with no Location (or 400 AuthorizationHeaderMalformed), and names the
 * bucket's region in x-amz-bucket-region: the message says which option
 * reads it. */
static void store_header(const gg_net_policy *p, gg_http_get *g, const char *name, const char *value)
{
    const store *s = (const store *)p;
    if (!strcasecmp(name, "x-amz-bucket-region") && !region_refused(value) && strcmp(value, s->region))
        snprintf(g->hint, sizeof g->hint, "the bucket is in %s: -o s3_region=%s", value, value);
}

static const char *store_access_hint(const gg_net_policy *p, const char *url)
{
    const store *s = (const store *)p;
    if (!at_store(s, url))
        return NULL;
    return s->bad ? s->bad : s->hint;
}

/* The text of the first <tag>...</tag> at or after *p (before end), XML
 * entities decoded, into out; *p moves past it. 1, or 0 if there is none. */
static int xml_next(const char **p, const char *end, const char *tag, gg_buf *out)
{
    char open[64], close[64];
    snprintf(open, sizeof open, "<%s>", tag);
    snprintf(close, sizeof close, "</%s>", tag);
    size_t ol = strlen(open), cl = strlen(close);
    const char *a = *p;
    for (; a + ol <= end && memcmp(a, open, ol); a++)
        ;
    if (a + ol > end)
        return 0;
    a += ol;
    const char *b = a;
    for (; b + cl <= end && memcmp(b, close, cl); b++)
        ;
    if (b + cl > end)
        return 0;
    out->len = 0;
    for (const char *c = a; c < b; c++) {
        if (*c != '&') {
            gg_buf_put(out, c, 1);
            continue;
        }
        static const struct { const char *name; char ch; } ents[] = {
            {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
        size_t k = 0;
        for (; k < sizeof ents / sizeof *ents; k++)
            if ((size_t)(b - c) >= strlen(ents[k].name) && !memcmp(c, ents[k].name, strlen(ents[k].name)))
                break;
        if (k < sizeof ents / sizeof *ents) {
            gg_buf_put(out, &ents[k].ch, 1);
            c += strlen(ents[k].name) - 1;
        } else if (c + 2 < b && c[1] == '#') {
            /* &#NN; or &#xHH;: as UTF-8 */
            char *stop;
            unsigned long v = c[2] == 'x' ? strtoul(c + 3, &stop, 16) : strtoul(c + 2, &stop, 10);
            if (stop < b && *stop == ';' && v > 0 && v < 0x110000) {
                gg_buf_put_utf8(out, v);
                c = stop;
            } else {
                gg_buf_put(out, c, 1);
            }
        } else {
            gg_buf_put(out, c, 1);
        }
    }
    gg_buf_put(out, "", 1);
    out->len--;
    *p = b + cl;
    return !out->oom;
}

/* S3's error body: <Error><Code>...</Code><Message>...</Message>... Only
 * those two, printable: the rest (CanonicalRequest, StringToSign) may
 * carry the session token. */
static int store_refusal(const gg_net_policy *p, const char *body, size_t len, char *out, size_t cap)
{
    (void)p;
    gg_buf code = {0}, msg = {0};
    const char *a = body, *b = body;
    int ok = xml_next(&a, body + len, "Code", &code) && code.len && code.len < 64;
    if (ok && !xml_next(&b, body + len, "Message", &msg))
        gg_buf_free(&msg);
    if (ok) {
        size_t o = 0;
        for (const char *t = code.p; *t && o + 1 < cap; t++)
            out[o++] = *t > 0x20 && *t < 0x7f ? *t : '?';
        if (msg.p && o + 3 < cap) {
            out[o++] = ':';
            out[o++] = ' ';
            for (const char *t = msg.p; *t && o + 1 < cap && o < 240; t++)
                out[o++] = *t >= 0x20 && *t < 0x7f ? *t : ' ';
        }
        out[o] = 0;
    }
    gg_buf_free(&code);
    gg_buf_free(&msg);
    return ok;
}

static const gg_net_policy *store_policy_for(void *state, const char *url)
{
    store *s = state;
    return at_store(s, url) ? &s->p : NULL;
}

/* ---- names ---- */

#define SYNTAX "expected s3://BUCKET/KEY.gguf or s3://BUCKET[/PREFIX/]"

typedef struct s3_name {
    char bucket[256];
    char key[MAX_KEY + 2]; /* a key, or a prefix ("" or ending in '/') */
} s3_name;

static int parse(const char *spec, s3_name *n, gg_err *e)
{
    memset(n, 0, sizeof *n);
    const char *b = spec + 5, *slash = strchr(b, '/');
    size_t bl = slash ? (size_t)(slash - b) : strlen(b);
    if (!bl || bl >= sizeof n->bucket || strspn(b, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") < bl)
        return gg_fail(e, GG_E_INVAL, "%s: the bucket must be letters, digits, '.', '-' or '_' (" SYNTAX ")", spec);
    memcpy(n->bucket, b, bl);
    const char *k = slash ? slash + 1 : "";
    if (strlen(k) > MAX_KEY)
        return gg_fail(e, GG_E_INVAL, "%s: a key is at most %d bytes", spec, MAX_KEY);
    for (const char *c = k; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            return gg_fail(e, GG_E_INVAL, "%s: a control character in the key", spec);
    snprintf(n->key, sizeof n->key, "%s", k);
    size_t kl = strlen(n->key);
    if (kl && !gg_is_gguf_name(n->key) && n->key[kl - 1] != '/')
        strcat(n->key, "/"); /* a prefix names a folder */
    return 0;
}

/* The URL of key (encoded) in the bucket: path-style at a custom endpoint
 * (or for a bucket AWS cannot put in a host name), else AWS's virtual
 * host. query: sorted and encoded already, or NULL. NULL: out of memory. */
static char *object_url(const store *s, const char *bucket, const char *key, const char *query)
{
    gg_buf u = {0};
    if (s->endpoint)
        gg_buf_printf(&u, "%s/%s/", s->endpoint, bucket);
    else if (strchr(bucket, '.') || strchr(bucket, '_'))
        gg_buf_printf(&u, "https://%s/%s/", s->aws_suffix + 1, bucket);
    else
        gg_buf_printf(&u, "https://%s%s/", bucket, s->aws_suffix);
    gg_url_escape(&u, key, 1);
    if (query)
        gg_buf_printf(&u, "?%s", query);
    if (u.oom) {
        gg_buf_free(&u);
        return NULL;
    }
    return u.p;
}

/* One page of the listing: its keys into paths (those below the prefix
 * that are models, one a line) or r (refused ones); *next: the
 * continuation token (empty: the last page). */
static int list_page(gg_net *net, const store *s, const char *spec, const s3_name *n, const char *token,
                     gg_buf *paths, gg_resolved *r, gg_buf *next, gg_err *e)
{
    /* Parameters in name order, values encoded: SigV4's canonical query
     * (libcurl 7.88 signs the query as it is). */
    gg_buf q = {0};
    if (*token) {
        gg_buf_puts(&q, "continuation-token=");
        gg_url_escape(&q, token, 0);
        gg_buf_puts(&q, "&");
    }
    gg_buf_puts(&q, "list-type=2&prefix=");
    gg_url_escape(&q, n->key, 0);
    char *url = q.oom ? NULL : object_url(s, n->bucket, "", q.p);
    gg_buf_free(&q);
    if (!url)
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    gg_buf body = {0}, key = {0};
    gg_http_get g = {.url = url, .body = &body, .max_body = MAX_PAGE_BYTES, .policy = &s->p};
    int rc = gg_net_get(net, &g, e);
    free(g.final_url);
    free(url);
    if (rc) {
        gg_buf_free(&body);
        gg_err_prefix(e, "%s: listing the bucket", spec);
        return -1;
    }
    const char *p = body.p ? body.p : "", *end = p + body.len;
    if (!strstr(p, "<ListBucketResult")) {
        gg_buf_free(&body);
        return gg_fail(e, GG_E_IO, "%s: the listing is not a ListBucketResult", spec);
    }
    size_t pl = strlen(n->key);
    for (const char *c = p; rc == 0 && xml_next(&c, end, "Key", &key);) {
        const char *rel = key.p + (strncmp(key.p, n->key, pl) ? 0 : pl);
        if (strncmp(key.p, n->key, pl) || !gg_is_gguf_name(rel) || gg_later_shard(rel))
            continue;
        const char *why = gg_bad_listed_path(rel);
        if (why ? gg_resolved_add(r, NULL, rel, why, e) != 0 : (gg_buf_printf(paths, "%s\n", rel), paths->oom))
            rc = gg_fail(e, GG_E_NOMEM, "out of memory");
    }
    gg_buf t = {0};
    const char *c = p;
    next->len = 0;
    if (rc == 0 && strstr(p, "<IsTruncated>true</IsTruncated>")) {
        if (!xml_next(&c, end, "NextContinuationToken", &t) || !t.len)
            rc = gg_fail(e, GG_E_IO, "%s: a listing page says there is more but gives no continuation token", spec);
        else
            gg_buf_printf(next, "%s", t.p);
    }
    gg_buf_free(&t);
    gg_buf_free(&key);
    gg_buf_free(&body);
    return rc;
}

/* Every model under the prefix: ListObjectsV2, page after page (made to
 * end: gg_listing). */
static int list_prefix(gg_net *net, const store *s, const char *spec, const s3_name *n, gg_resolved *r, gg_err *e)
{
    gg_buf paths = {0}, token = {0};
    gg_buf_puts(&token, "");
    gg_listing l;
    gg_listing_begin(&l, net, spec, "continuation token");
    int rc = 0;
    do {
        const char *t = token.p ? token.p : "";
        rc = gg_listing_next(&l, t, e);
        if (rc == 0 && list_page(net, s, spec, n, t, &paths, r, &token, e))
            rc = gg_listing_failed(&l, e);
    } while (rc == 0 && token.len);
    gg_listing_end(&l);
    for (char *p = paths.p, *line; rc == 0 && p && (line = strsep(&p, "\n"));) {
        if (!*line)
            continue;
        char full[2 * MAX_KEY + 4];
        snprintf(full, sizeof full, "%s%s", n->key, line);
        char *url = object_url(s, n->bucket, full, NULL);
        rc = url ? gg_resolved_add(r, url, line, NULL, e) : gg_fail(e, GG_E_NOMEM, "out of memory");
        free(url);
    }
    gg_buf_free(&paths);
    gg_buf_free(&token);
    int mounted = 0;
    for (int i = 0; i < r->count; i++)
        mounted += !r->models[i].refused;
    if (rc == 0 && !mounted)
        rc = gg_fail(e, GG_E_NOTFOUND, "%s: no .gguf object under s3://%s/%s", spec, n->bucket, n->key);
    return rc;
}

static int s3_expand(gg_net *net, void *state, const char *spec, gg_resolved *r, gg_err *e)
{
    store *s = state;
    if (s->bad)
        return gg_fail(e, GG_E_INVAL, "%s: %s", spec, s->bad);
    s3_name n;
    if (parse(spec, &n, e))
        return -1;
    if (gg_is_gguf_name(n.key)) {
        char *url = object_url(s, n.bucket, n.key, NULL);
        int rc = url ? gg_resolved_add(r, url, url, NULL, e) : gg_fail(e, GG_E_NOMEM, "out of memory");
        free(url);
        return rc;
    }
    r->collection = 1;
    return list_prefix(net, s, spec, &n, r, e);
}

const gg_resolver gg_s3_resolver = {.scheme = "s3", .check = store_check, .init = store_init, .free = store_free,
                                    .expand = s3_expand, .policy_for = store_policy_for};
