/* net.c - the HTTP client (see net.h).
 *
 * Every GET runs on the calling thread with an easy handle from a pool;
 * the handles share one connection cache, DNS cache and TLS sessions
 * (CURLSH), so a connection opened by one thread is reused by the next
 * request of any thread. libcurl does not follow redirects here: each hop is
 * a request of its own, so that which headers go where, how many hops, and
 * to which schemes, is decided in one place (next_hop); a request's policy
 * (its scheme's: net.h) adds its own to each hop. */
#include "gguffs/net.h"

#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "gguffs/diskcache.h"
#include "base/log.h"
#include "gguffs/scope.h"
#include "base/pool.h"
#include "scheme.h"

/* A range request answered with the whole body is read up to the wanted
 * bytes; beyond this offset that costs too much and the read fails. */
#define WHOLE_BODY_SKIP_MAX (256ull << 20)
#define BACKOFF_FIRST_MS 200
#define BACKOFF_MAX_MS 5000
#define RETRY_AFTER_MAX_S 60
/* A refused connection (or a host that does not resolve) is tried this many
 * times more, quickly: a server that is down does not come back within the
 * backoff of a read, and a reader must not wait for it. */
#define REFUSED_RETRIES 1
#define JOBS_MAX 256

struct gg_net {
    gg_net_opts o;
    gg_pool *jobs; /* read-ahead workers (pool.h) */
    char *cafile;
    gg_schemes *schemes; /* the resolver table's states (scheme.h) */
    struct curl_slist *fixed;
    CURLSH *share;
    pthread_mutex_t share_locks[CURL_LOCK_DATA_LAST];
    pthread_mutex_t pool_lock; /* guards pool, npool */
    CURL **pool;
    int npool, cap;
    _Atomic int aborted;
    int (*probe)(void *);
    void *probe_arg;
    _Atomic uint32_t next_source;
    gg_cache *cache;
    gg_diskcache *disk;
    _Atomic uint64_t counters[GG_NC_COUNT];
};

void gg_net_default_opts(gg_net_opts *o)
{
    memset(o, 0, sizeof *o);
    o->timeout_s = 30;
    o->retries = 5;
    o->mem_cache_bytes = 256ull << 20;
    o->block_bytes = 1u << 20;
    o->cache_dir_bytes = 10ull << 30;
    o->prefetch_threads = 8;
}

void gg_net_count(gg_net *n, gg_net_counter c, uint64_t by)
{
    atomic_fetch_add_explicit(&n->counters[c], by, memory_order_relaxed);
}

static void share_lock(CURL *h, curl_lock_data d, curl_lock_access a, void *p)
{
    (void)h;
    (void)a;
    gg_net *n = p;
    pthread_mutex_lock(&n->share_locks[d]);
}

static void share_unlock(CURL *h, curl_lock_data d, void *p)
{
    (void)h;
    gg_net *n = p;
    pthread_mutex_unlock(&n->share_locks[d]);
}

/* (see net.h) */
char *gg_url_origin(const char *url)
{
    CURLU *u = curl_url();
    char *scheme = NULL, *host = NULL, *port = NULL, *out = NULL;
    if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK) {
        for (char *p = host; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        if (asprintf(&out, "%s://%s:%s", scheme, host, port) < 0)
            out = NULL;
    }
    curl_free(scheme);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
    return out;
}

/* (see net.h) */
char *gg_url_cache_key(const char *url)
{
    char *origin = gg_url_origin(url), *path = NULL, *out = NULL;
    CURLU *u = curl_url();
    if (origin && u && curl_url_set(u, CURLUPART_URL, url, CURLU_PATH_AS_IS) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_PATH, &path, 0) == CURLUE_OK && asprintf(&out, "%s%s", origin, path) < 0)
        out = NULL;
    curl_free(path);
    curl_url_cleanup(u);
    free(origin);
    return out;
}

static int same_origin(const char *a, const char *b)
{
    char *x = gg_url_origin(a), *y = gg_url_origin(b);
    int same = x && y && !strcmp(x, y);
    free(x);
    free(y);
    return same;
}

static void init_curl(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

gg_net *gg_net_new(const gg_net_opts *o, gg_err *e)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, init_curl);
    gg_net *n = calloc(1, sizeof *n);
    if (!n) {
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    n->o = *o;
    const char *ca = o->cafile ? o->cafile : getenv("CURL_CA_BUNDLE");
    n->cafile = ca && *ca ? strdup(ca) : NULL;
    for (int i = 0; i < o->n_headers; i++)
        n->fixed = curl_slist_append(n->fixed, o->headers[i]);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_init(&n->share_locks[i], NULL);
    pthread_mutex_init(&n->pool_lock, NULL);
    n->share = curl_share_init();
    n->cache = gg_cache_new(o->mem_cache_bytes);
    n->jobs = gg_pool_new(o->prefetch_threads, JOBS_MAX, n);
    if (!n->share || !n->cache || !n->jobs || (o->n_headers && !n->fixed)) {
        gg_fail(e, GG_E_NOMEM, "out of memory setting up the HTTP client");
        gg_net_free(n);
        return NULL;
    }
    if (!(n->schemes = gg_schemes_new(o, e))) {
        gg_net_free(n);
        return NULL;
    }
    if (o->cache_dir && !(n->disk = gg_diskcache_open(o->cache_dir, o->cache_dir_bytes, e))) {
        /* (a folder that cannot be made or written is a bad option value) */
        if (e && e->code != GG_E_NOMEM) {
            e->code = GG_E_INVAL;
            gg_err_prefix(e, "-o cache_dir=%s", o->cache_dir);
        }
        gg_net_free(n);
        return NULL;
    }
    curl_share_setopt(n->share, CURLSHOPT_LOCKFUNC, share_lock);
    curl_share_setopt(n->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
    curl_share_setopt(n->share, CURLSHOPT_USERDATA, n);
    curl_share_setopt(n->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(n->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
    curl_share_setopt(n->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    return n;
}

void gg_net_free(gg_net *n)
{
    if (!n)
        return;
    gg_pool_free(n->jobs);
    for (int i = 0; i < n->npool; i++)
        curl_easy_cleanup(n->pool[i]);
    free(n->pool);
    if (n->share)
        curl_share_cleanup(n->share);
    for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
        pthread_mutex_destroy(&n->share_locks[i]);
    pthread_mutex_destroy(&n->pool_lock);
    curl_slist_free_all(n->fixed);
    gg_cache_free(n->cache);
    gg_diskcache_close(n->disk);
    gg_schemes_free(n->schemes);
    free(n->cafile);
    free(n);
}

void gg_net_abort(gg_net *n) { atomic_store(&n->aborted, 1); }

static int thread_stopped(void) { return gg_scope_stopped(); }

void gg_net_set_probe(gg_net *n, int (*probe)(void *), void *arg)
{
    n->probe_arg = arg;
    n->probe = probe;
}
const gg_net_opts *gg_net_options(const gg_net *n) { return &n->o; }
gg_schemes *gg_net_schemes(gg_net *n) { return n->schemes; }
gg_cache *gg_net_cache(gg_net *n) { return n->cache; }
gg_diskcache *gg_net_diskcache(gg_net *n) { return n->disk; }
uint32_t gg_net_new_source_id(gg_net *n) { return atomic_fetch_add(&n->next_source, 1); }

static CURL *handle_get(gg_net *n)
{
    CURL *h = NULL;
    pthread_mutex_lock(&n->pool_lock);
    if (n->npool)
        h = n->pool[--n->npool];
    pthread_mutex_unlock(&n->pool_lock);
    if (h)
        curl_easy_reset(h);
    else
        h = curl_easy_init();
    return h;
}

static void handle_put(gg_net *n, CURL *h)
{
    pthread_mutex_lock(&n->pool_lock);
    if (n->npool == n->cap) {
        int nc = n->cap ? n->cap * 2 : 8;
        CURL **p = realloc(n->pool, (size_t)nc * sizeof *p);
        if (p) {
            n->pool = p;
            n->cap = nc;
        }
    }
    if (n->npool < n->cap) {
        n->pool[n->npool++] = h;
        h = NULL;
    }
    pthread_mutex_unlock(&n->pool_lock);
    if (h)
        curl_easy_cleanup(h);
}

/* ---- one response ---- */

/* A range GET is resumed after the bytes that came (net.h): each try asks
 * for the rest only, from an answer that says the same of the object as
 * the one that brought the bytes before. */
typedef struct resume {
    uint64_t off, len; /* the range as asked */
    uint8_t *dst;
    uint8_t *const *parts;
    uint64_t in;       /* its bytes in, from its first one, after the tries so far */
    int on;
    int64_t start_ms;  /* when the request began (gg_scope_now_ms() clock) */
    int have_v;        /* what the answer that brought them said of the object: */
    uint64_t total;
    char etag[160], last_modified[64];
} resume;

typedef struct xfer {
    gg_net *n;
    gg_http_get *g;
    const resume *rs;   /* what the request's earlier tries brought */
    int status;
    int have_cl, have_cr; /* have_cr: 1 bytes A-B/T, 2 bytes *\/T, 3 bytes A-B/\* (no size) */
    uint64_t cl, cr_a, cr_b, cr_total;
    char cr_text[96];   /* the Content-Range as sent, for messages */
    int fit;            /* a 2xx with the range's bytes from its first one, and the object's size */
    uint64_t want;      /* then: the bytes of the range it brings */
    int checked;        /* it was compared with what the earlier tries' answers said */
    int changed;        /* and it says another object: stopped */
    uint64_t body;      /* body bytes of this response seen */
    int overflow;       /* more body than the range */
    int done;           /* we stopped the transfer on purpose: we have our bytes */
    int too_big;        /* whole-body GET over max_body */
    long retry_after;   /* seconds, -1 if none */
    int refused;        /* the connection was refused (or the host unknown) */
    int64_t stall_ms;   /* give up once no byte came for this long */
    int64_t moved_ms;   /* when a byte last came (gg_scope_now_ms() clock) */
    curl_off_t moved;   /* bytes by then */
    int stalled;        /* given up for that */
    char location[4096];
    char why[CURL_ERROR_SIZE]; /* libcurl's own words for a failure */
    char refusal[2048];        /* the start of a 4xx or 5xx answer's body, for the policy to read */
    size_t refusal_len;
} xfer;

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\r' || s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = 0;
}

/* "Name: value" -> value if the name matches (case-insensitive). */
static const char *header_value(const char *line, size_t len, const char *name, char *buf, size_t cap)
{
    size_t nl = strlen(name);
    if (len <= nl || strncasecmp(line, name, nl) || line[nl] != ':')
        return NULL;
    const char *v = line + nl + 1;
    while (v < line + len && (*v == ' ' || *v == '\t'))
        v++;
    size_t k = (size_t)(line + len - v);
    if (k >= cap)
        k = cap - 1;
    memcpy(buf, v, k);
    buf[k] = 0;
    trim(buf);
    return buf;
}

/* (headers longer than their field are cut: an ETag of 160 bytes is absurd) */
static void copy_field(char *dst, size_t cap, const char *v)
{
    size_t n = strnlen(v, cap - 1);
    memcpy(dst, v, n);
    dst[n] = 0;
}

/* Link: <URL>; rel="next" (possibly among other links) -> g->next_link */
static void take_next_link(gg_http_get *g, char *v)
{
    for (char *s = v; (s = strchr(s, '<'));) {
        char *end = strchr(s, '>');
        if (!end)
            break;
        const char *rest = end + 1;
        const char *comma = strchr(rest, ',');
        const char *rel = strstr(rest, "rel=\"next\"");
        if (rel && (!comma || rel < comma)) {
            size_t k = (size_t)(end - s - 1);
            if (k < sizeof g->next_link) {
                memcpy(g->next_link, s + 1, k);
                g->next_link[k] = 0;
            }
            break;
        }
        s = end + 1;
    }
}

/* A header line of an answer, for the request's policy (net.h). */
static void tell_policy(gg_http_get *g, const char *line, size_t len)
{
    const gg_net_policy *pol = g->policy;
    const char *colon = memchr(line, ':', len);
    char name[128], v[4096];
    size_t nl = colon ? (size_t)(colon - line) : 0;
    if (!pol || !pol->header || !nl || nl >= sizeof name)
        return;
    memcpy(name, line, nl);
    name[nl] = 0;
    if (header_value(line, len, name, v, sizeof v))
        pol->header(pol, g, name, v);
}

static size_t on_header(char *p, size_t size, size_t nmemb, void *arg)
{
    xfer *x = arg;
    size_t len = size * nmemb;
    char v[4096];
    if (len >= 5 && !strncmp(p, "HTTP/", 5)) {
        /* A status line starts a response: forget an earlier one's headers. */
        const char *sp = memchr(p, ' ', len);
        x->status = sp ? atoi(sp + 1) : 0;
        x->have_cl = x->have_cr = 0;
        x->cr_text[0] = 0;
        x->retry_after = -1;
        x->location[0] = 0;
        x->refusal_len = 0;
        x->g->etag[0] = x->g->last_modified[0] = x->g->hint[0] = 0;
        return len;
    }
    if (header_value(p, len, "Content-Length", v, sizeof v)) {
        x->cl = strtoull(v, NULL, 10);
        x->have_cl = 1;
    } else if (header_value(p, len, "Content-Range", v, sizeof v)) {
        unsigned long long a, b, t;
        int k = 0;
        copy_field(x->cr_text, sizeof x->cr_text, v);
        x->have_cr = 0;
        if (sscanf(v, "bytes %llu-%llu/%llu%n", &a, &b, &t, &k) == 3 && !v[k]) {
            x->cr_a = a, x->cr_b = b, x->cr_total = t;
            x->have_cr = a <= b ? 1 : 0;
        } else if (sscanf(v, "bytes %llu-%llu/*%n", &a, &b, &k) == 2 && k && !v[k]) {
            x->cr_a = a, x->cr_b = b;
            x->have_cr = 3; /* no size: the object's size must be known */
        } else if (sscanf(v, "bytes */%llu%n", &t, &k) == 1 && !v[k]) {
            x->cr_total = t;
            x->have_cr = 2; /* unsatisfiable range: only the size */
        }
    } else if (header_value(p, len, "ETag", v, sizeof v)) {
        copy_field(x->g->etag, sizeof x->g->etag, v);
    } else if (header_value(p, len, "Last-Modified", v, sizeof v)) {
        copy_field(x->g->last_modified, sizeof x->g->last_modified, v);
    } else if (header_value(p, len, "Location", v, sizeof v)) {
        copy_field(x->location, sizeof x->location, v);
    } else if (header_value(p, len, "Retry-After", v, sizeof v)) {
        if (v[0] >= '0' && v[0] <= '9') {
            x->retry_after = atol(v);
        } else {
            struct tm tm = {0};
            if (strptime(v, "%a, %d %b %Y %H:%M:%S GMT", &tm)) {
                long d = (long)(timegm(&tm) - time(NULL));
                x->retry_after = d > 0 ? d : 0;
            }
        }
    } else if (header_value(p, len, "Link", v, sizeof v)) {
        take_next_link(x->g, v);
    }
    tell_policy(x->g, p, len);
    return len;
}

/* Bytes [at, at + len) of this try's range, to where the caller wants them. */
static void put_range(gg_http_get *g, uint64_t at, const char *p, uint64_t len)
{
    if (g->dst) {
        memcpy(g->dst + at, p, len);
        return;
    }
    at += g->part_skew;
    while (len) {
        uint64_t o = at % g->part_bytes, k = g->part_bytes - o < len ? g->part_bytes - o : len;
        memcpy(g->parts[at / g->part_bytes] + o, p, k);
        at += k;
        p += k;
        len -= k;
    }
}

/* The bytes of g's range that an object of total bytes holds. */
static uint64_t range_in(const gg_http_get *g, uint64_t total)
{
    return g->off >= total ? 0 : total - g->off < g->len ? total - g->off : g->len;
}

/* Does a 2xx answer bring this try's bytes from its first one, and say the
 * object's size (a 206 with a Content-Range that starts there and ends
 * within it, a 200 with a Content-Length)? Then x->fit, x->want (its
 * bytes of the range) and g->total; the rest of its checks (answer_ok)
 * come at its end. */
static void fits(xfer *x)
{
    gg_http_get *g = x->g;
    if (x->status == 206 && x->have_cr == 1 && x->cr_a == g->off && x->cr_b < g->off + g->len &&
        x->cr_b < x->cr_total) {
        g->total = x->cr_total;
        x->want = x->cr_b - x->cr_a + 1;
        x->fit = 1;
    } else if (x->status == 200 && x->have_cl) {
        g->total = x->cl;
        x->want = range_in(g, g->total);
        x->fit = 1;
    }
}

/* Does the answer say the same of the object as the one that brought the
 * bytes of the earlier tries (its size, ETag and Last-Modified)? */
static int same_as_before(const xfer *x)
{
    const resume *r = x->rs;
    const gg_http_get *g = x->g;
    return !r->have_v || !x->fit || /* (an answer that does not fit is refused for that) */
           (g->total == r->total && !strcmp(g->etag, r->etag) && !strcmp(g->last_modified, r->last_modified));
}

/* The first look at a 2xx answer (at its first body byte, or at its end if
 * it had none): does a range's answer fit (fits), and does it say the same
 * object as the earlier tries' answers? 0 if it says another; 1 if the
 * same, or if it was looked at already. */
static int first_look(xfer *x)
{
    if (x->checked)
        return 1;
    x->checked = 1;
    if (x->g->len)
        fits(x);
    return same_as_before(x);
}

/* Tell g->part_in of the parts now whole (see net.h): those all of whose
 * bytes are in, and the object's last one once the answer has brought the
 * object's end. */
static void tell_parts(xfer *x)
{
    gg_http_get *g = x->g;
    if (!g->part_in || g->parts_refused || !x->fit)
        return;
    uint64_t end = g->part_skew + g->got; /* from the start of parts[0] */
    int at_end = g->got >= x->want && g->off + x->want >= g->total;
    uint64_t whole = at_end ? (end + g->part_bytes - 1) / g->part_bytes : end / g->part_bytes;
    while (g->parts_in < g->parts_base + whole && !g->parts_refused) {
        if (g->part_in(g->part_arg, g->parts_in, g))
            g->parts_refused = 1;
        else
            g->parts_in++;
    }
}

static size_t on_body(char *p, size_t size, size_t nmemb, void *arg)
{
    xfer *x = arg;
    gg_http_get *g = x->g;
    size_t len = size * nmemb;
    uint64_t at = x->body;
    x->body += len;
    if (x->status >= 300 && x->refusal_len < sizeof x->refusal) {
        /* (what a store says of its refusal, or of a redirect with no
         * Location: S3's <Code>) */
        size_t k = sizeof x->refusal - x->refusal_len < len ? sizeof x->refusal - x->refusal_len : len;
        memcpy(x->refusal + x->refusal_len, p, k);
        x->refusal_len += k;
    }
    if (x->status < 200 || x->status >= 300)
        return len; /* an error page or a redirect's body: not ours */
    if (!first_look(x)) { /* (its headers are all in: the first byte of its body) */
        x->changed = 1;
        return 0;
    }
    if (g->len == 0) {
        if (g->body->len + len > g->max_body) {
            x->too_big = 1;
            return 0;
        }
        gg_buf_put(g->body, p, len);
        return g->body->oom ? 0 : len;
    }
    if (x->status == 206) {
        if (at + len > g->len) {
            x->overflow = 1;
            return 0;
        }
        if (x->fit) /* (else the bytes are not those asked for: answer_ok says so) */
            put_range(g, at, p, len);
        g->got = at + len;
        tell_parts(x);
        return len;
    }
    /* 200 to a range request: the wanted bytes are somewhere in the body. */
    uint64_t lo = at > g->off ? at : g->off, hi = at + len < g->off + g->len ? at + len : g->off + g->len;
    if (lo < hi) {
        put_range(g, lo - g->off, p + (lo - at), hi - lo);
        g->got = hi - g->off;
        tell_parts(x);
    }
    if (g->got == g->len) {
        x->done = 1;
        return 0; /* stop: the rest of the body is not needed */
    }
    if (at + len > g->off && g->off > WHOLE_BODY_SKIP_MAX)
        return 0;
    return len;
}

/* (libcurl calls it at least once a second) */
static int on_progress(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
    (void)dt, (void)ut, (void)un;
    xfer *x = arg;
    gg_net *n = x->n;
    if (n->probe && n->probe(n->probe_arg))
        atomic_store(&n->aborted, 1);
    if (atomic_load_explicit(&n->aborted, memory_order_relaxed) || thread_stopped())
        return 1;
    /* No byte for stall_ms (libcurl's low-speed check averages over
     * seconds, so a burst before a stall hides it for that long). */
    int64_t now = gg_scope_now_ms();
    if (dn != x->moved) {
        x->moved = dn;
        x->moved_ms = now;
    } else if (now - x->moved_ms >= x->stall_ms) {
        x->stalled = 1;
        return 1;
    }
    return 0;
}

/* ---- a request with its hops and retries ---- */

typedef enum { OUTCOME_OK, OUTCOME_HOP, OUTCOME_RETRY, OUTCOME_FAIL } outcome;

static int transient_curl(CURLcode c)
{
    switch (c) {
    case CURLE_COULDNT_CONNECT: case CURLE_COULDNT_RESOLVE_HOST: case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR: case CURLE_PARTIAL_FILE: case CURLE_GOT_NOTHING:
    case CURLE_OPERATION_TIMEDOUT: case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: case CURLE_WEIRD_SERVER_REPLY:
        return 1;
    default:
        return 0;
    }
}

/* The server's certificate, or the CA to check it with, is not right:
 * trying again gives the same answer. */
static int certificate_curl(CURLcode c)
{
    switch (c) {
    case CURLE_PEER_FAILED_VERIFICATION: case CURLE_SSL_CACERT_BADFILE: case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_ISSUER_ERROR: case CURLE_SSL_PINNEDPUBKEYNOTMATCH: case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CRL_BADFILE:
        return 1;
    default:
        return 0;
    }
}

/* A TLS handshake that failed because the connection broke (worth another
 * try), not because the two sides disagree (a server that does not speak
 * TLS: "wrong version number"; no common cipher or version; an alert). */
static int handshake_broke(const char *why)
{
    return strstr(why, "SSL_ERROR_SYSCALL") || strstr(why, "reset") || strstr(why, "unexpected eof") ||
           strstr(why, "timed out") || strstr(why, "Broken pipe");
}

int gg_net_hop_header(gg_net_hop *hop, const char *line)
{
    struct curl_slist *l = curl_slist_append(*hop->headers, line);
    if (!l)
        return -1;
    *hop->headers = l;
    return 0;
}

/* The request headers of a hop to `url` (the range is libcurl's: see
 * hop_setup). If-Match only to where the validator came from; the user's
 * headers only to the host of the URL they were given with (not to where it
 * redirects, even when later GETs go there directly). */
static struct curl_slist *hop_headers(gg_net *n, const gg_http_get *g, const char *url, int first_hop)
{
    struct curl_slist *hdr = NULL;
    char line[512];
    if (g->if_match && first_hop) {
        snprintf(line, sizeof line, "If-Match: %s", g->if_match);
        hdr = curl_slist_append(hdr, line);
    }
    if (same_origin(url, g->home ? g->home : g->url))
        for (struct curl_slist *s = n->fixed; s; s = s->next)
            hdr = curl_slist_append(hdr, s->data);
    return hdr;
}

/* The handle's options for a hop to `url`, its answer going to x, done by
 * deadline (gg_scope_now_ms() clock). From scratch: what a policy set on
 * the handle for the hop before (credentials) does not go on to this one. */
static void hop_setup(gg_net *n, CURL *h, const gg_http_get *g, const char *url, int64_t deadline, xfer *x)
{
    curl_easy_reset(h); /* (the connections, DNS and TLS sessions stay: the share has them) */
    curl_easy_setopt(h, CURLOPT_URL, url);
    /* The path as it is: a segment "." or ".." of an S3 key (or of any URL
     * given) is a name, not a step up ("a/../x.gguf" is that key, not
     * "x.gguf"); libcurl signs what it sends (SigV4's canonical URI). */
    curl_easy_setopt(h, CURLOPT_PATH_AS_IS, 1L);
    if (g->len) {
        /* "Range: bytes=A-B" from libcurl, not among the custom headers: a
         * scheme's signature (SigV4 in libcurl 7.88) signs every custom one. */
        char range[48];
        snprintf(range, sizeof range, "%" PRIu64 "-%" PRIu64, g->off, g->off + g->len - 1);
        curl_easy_setopt(h, CURLOPT_RANGE, range);
        /* Big parts come in big reads: a tenth of the system calls and
         * callbacks of libcurl's 16 KiB (its most is 512 KiB). */
        if (g->len >= (1u << 20))
            curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 512L << 10);
    }
    curl_easy_setopt(h, CURLOPT_SHARE, n->share);
    curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    /* The whole hop ends by the deadline; a connection that brings no byte
     * for half of -o timeout is given up early (on_progress), so that a
     * retry still fits in the deadline. */
    int64_t left = deadline - gg_scope_now_ms();
    if (left < 1)
        left = 1;
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, (long)left);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)left);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, x->why);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, x);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, x);
    curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(h, CURLOPT_XFERINFODATA, x);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "gguffs/0.2");
    curl_easy_setopt(h, CURLOPT_ACCEPT_ENCODING, NULL);
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
    curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
    if (n->cafile)
        curl_easy_setopt(h, CURLOPT_CAINFO, n->cafile);
}

/* What a transfer that libcurl ended with rc (not CURLE_OK) means. */
static outcome transfer_failed(gg_net *n, const gg_http_get *g, xfer *x, CURLcode rc, const char *shown, gg_err *e)
{
    if (rc == CURLE_ABORTED_BY_CALLBACK && x->stalled && !atomic_load(&n->aborted)) {
        gg_net_count(n, GG_NC_TIMEOUTS, 1);
        gg_fail(e, GG_E_IO, "%s: no progress for %g s (-o timeout=)", shown, (double)x->stall_ms / 1000);
        return OUTCOME_RETRY;
    }
    if (rc == CURLE_ABORTED_BY_CALLBACK || atomic_load(&n->aborted)) {
        gg_fail(e, GG_E_IO, "%s: stopped (%s)", shown, atomic_load(&n->aborted) ? "unmounting" : "the read was interrupted");
        return OUTCOME_FAIL;
    }
    if (rc == CURLE_WRITE_ERROR && x->changed) {
        gg_fail(e, GG_E_STALE, "%s: changed on the server between two answers of one request (%s)", shown,
                g->total != x->rs->total ? "another size" : "another ETag or Last-Modified");
        return OUTCOME_FAIL;
    }
    if (rc == CURLE_WRITE_ERROR && x->too_big) {
        gg_fail(e, GG_E_TOOBIG, "%s: answer longer than %" PRIu64 " bytes", shown, g->max_body);
        return OUTCOME_FAIL;
    }
    if (rc == CURLE_WRITE_ERROR && x->overflow) {
        gg_net_count(n, GG_NC_BAD_RANGES, 1);
        gg_fail(e, GG_E_IO, "%s: more bytes than the range asked for", shown);
        return OUTCOME_RETRY;
    }
    if (rc == CURLE_WRITE_ERROR && g->len && x->status == 200) {
        gg_fail(e, GG_E_IO, "%s: the server ignores range requests and the bytes wanted are %" PRIu64
                " bytes in (more than %llu MiB to skip)", shown, g->off, WHOLE_BODY_SKIP_MAX >> 20);
        return OUTCOME_FAIL;
    }
    if (certificate_curl(rc)) {
        gg_fail(e, GG_E_ACCESS, "%s: TLS: %s (-o cafile=PATH names the CA to trust)", shown,
                x->why[0] ? x->why : curl_easy_strerror(rc));
        return OUTCOME_FAIL;
    }
    if (rc == CURLE_SSL_CONNECT_ERROR && !handshake_broke(x->why)) {
        gg_fail(e, GG_E_IO, "%s: TLS handshake failed: %s (is it an https server?)", shown,
                x->why[0] ? x->why : curl_easy_strerror(rc));
        return OUTCOME_FAIL;
    }
    if (!transient_curl(rc) && rc != CURLE_SSL_CONNECT_ERROR) {
        gg_fail(e, GG_E_IO, "%s: %s", shown, curl_easy_strerror(rc));
        return OUTCOME_FAIL;
    }
    gg_net_count(n, rc == CURLE_OPERATION_TIMEDOUT ? GG_NC_TIMEOUTS
                    : rc == CURLE_PARTIAL_FILE ? GG_NC_SHORT_BODIES : GG_NC_CONNECT_ERRORS, 1);
    x->refused = rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST;
    /* A timeout is an I/O error for the reader (EIO), as any other failure
     * to get the bytes; what came by then, over the request's tries, says
     * why. */
    const resume *r = x->rs;
    uint64_t came = (r->on ? r->in : 0) + (g->len ? g->got : x->body), of = r->on ? r->len : x->have_cl ? x->cl : 0;
    double took = (double)(gg_scope_now_ms() - r->start_ms) / 1000;
    if (rc == CURLE_OPERATION_TIMEDOUT && came && of)
        gg_fail(e, GG_E_IO, "%s: the answer came too slowly: %" PRIu64 " of %" PRIu64 " bytes in %.1f s (-o timeout=%d)",
                shown, came, of, took, n->o.timeout_s);
    else if (rc == CURLE_OPERATION_TIMEDOUT && came)
        gg_fail(e, GG_E_IO, "%s: the answer came too slowly: %" PRIu64 " bytes in %.1f s (-o timeout=%d)", shown, came,
                took, n->o.timeout_s);
    else if (rc == CURLE_OPERATION_TIMEDOUT && x->status)
        gg_fail(e, GG_E_IO, "%s: HTTP %d, then no byte of its body within the -o timeout= of %d s", shown, x->status,
                n->o.timeout_s);
    else if (rc == CURLE_OPERATION_TIMEDOUT)
        gg_fail(e, GG_E_IO, "%s: no answer within the -o timeout= of %d s", shown, n->o.timeout_s);
    else
        gg_fail(e, GG_E_IO, "%s: %s", shown, curl_easy_strerror(rc));
    return OUTCOME_RETRY;
}

/* A 2xx answer: the bytes (or body) asked for, checked. */
static outcome answer_ok(gg_net *n, gg_http_get *g, xfer *x, const char *shown, gg_err *e)
{
    gg_net_count(n, GG_NC_S2XX, 1);
    if (g->len == 0) {
        g->total = x->have_cl ? x->cl : g->body->len;
        return OUTCOME_OK;
    }
    if (!first_look(x)) { /* (no body: nothing was compared yet) */
        gg_fail(e, GG_E_STALE, "%s: changed on the server between two answers of one request", shown);
        return OUTCOME_FAIL;
    }
    if (x->status == 206) {
        /* The range asked for from its first byte: all of it, or up to the
         * end of the object, or less (then the rest is asked for next). */
        uint64_t want_b = g->off + g->len - 1;
        if (!x->fit) {
            gg_net_count(n, GG_NC_BAD_RANGES, 1);
            gg_fail(e, GG_E_IO, "%s: asked for bytes %" PRIu64 "-%" PRIu64 ", got %s%s%s", shown, g->off, want_b,
                    x->cr_text[0] ? "Content-Range: " : "no Content-Range", x->cr_text,
                    x->have_cr == 3 ? " (it does not say the object's size)" : "");
            return OUTCOME_RETRY;
        }
        if (g->got != x->want) {
            gg_net_count(n, GG_NC_SHORT_BODIES, 1);
            gg_fail(e, GG_E_IO, "%s: body of %" PRIu64 " bytes for a range of %" PRIu64, shown, g->got, x->want);
            return OUTCOME_RETRY;
        }
        if (x->cr_b < want_b && x->cr_b + 1 < x->cr_total) {
            gg_net_count(n, GG_NC_SHORT_BODIES, 1);
            gg_fail(e, GG_E_IO, "%s: asked for bytes %" PRIu64 "-%" PRIu64 ", the server sent %" PRIu64 "-%" PRIu64
                    " of them (Content-Range: %s), and no more", shown, g->off, want_b, x->cr_a, x->cr_b, x->cr_text);
            return OUTCOME_RETRY;
        }
        return OUTCOME_OK;
    }
    if (x->status == 200) {
        /* The whole object: its bytes at the range's place were taken. */
        gg_net_count(n, GG_NC_WHOLE_BODIES, 1);
        g->whole_body = 1;
        g->total = x->have_cl ? x->cl : x->body;
        uint64_t want = range_in(g, g->total);
        if (g->got != want) {
            gg_net_count(n, GG_NC_SHORT_BODIES, 1);
            gg_fail(e, GG_E_IO, "%s: the whole body ended before the bytes wanted", shown);
            return OUTCOME_RETRY;
        }
        return OUTCOME_OK;
    }
    gg_fail(e, GG_E_IO, "%s: unexpected status %d", shown, x->status);
    return OUTCOME_FAIL;
}

/* What an answer says of a failure, for its message: the store's own words
 * (its policy reads them in the body: S3's error code and message) and
 * what the policy made of its headers (the region S3 names). */
static void answer_words(const gg_http_get *g, const xfer *x, char *out, size_t cap)
{
    const gg_net_policy *pol = g->policy;
    out[0] = 0;
    if (pol && pol->refusal && pol->refusal(pol, x->refusal, x->refusal_len, out + 2, cap - 2))
        memcpy(out, ": ", 2);
    if (g->hint[0])
        snprintf(out + strlen(out), cap - strlen(out), " (%s)", g->hint);
}

/* What the answer's status says: the bytes, a redirect, try again, or why not. */
static outcome answer_status(gg_net *n, gg_http_get *g, xfer *x, const char *url, const char *shown, gg_err *e)
{
    int s = x->status;
    g->status = s;
    char said[480] = "";
    if (s >= 400)
        answer_words(g, x, said, sizeof said);
    if (s >= 300 && s < 400 && s != 304) {
        gg_net_count(n, GG_NC_S3XX, 1);
        return OUTCOME_HOP;
    }
    if (s >= 200 && s < 300)
        return answer_ok(n, g, x, shown, e);
    if (s == 408 || s == 429 || s >= 500) {
        gg_net_count(n, s == 408 ? GG_NC_S408 : s == 429 ? GG_NC_S429 : GG_NC_S5XX, 1);
        gg_fail(e, GG_E_IO, "%s: HTTP %d%s", shown, s, said);
        return OUTCOME_RETRY;
    }
    if (s == 412 && g->if_match) {
        gg_net_count(n, GG_NC_S412, 1);
        gg_fail(e, GG_E_STALE, "%s: changed on the server (If-Match failed: HTTP 412)", shown);
        return OUTCOME_FAIL;
    }
    if (s == 416) {
        gg_net_count(n, GG_NC_S416, 1);
        g->total = x->have_cr == 2 ? x->cr_total : 0;
        gg_fail(e, GG_E_STALE, "%s: range not satisfiable (HTTP 416): the object is %s%" PRIu64 " bytes now",
                shown, x->have_cr == 2 ? "" : "of unknown size, not ", x->cr_total);
        return OUTCOME_FAIL;
    }
    if (s == 404 || s == 410) {
        gg_net_count(n, GG_NC_S404, 1);
        gg_fail(e, GG_E_NOTFOUND, "%s: not found (HTTP %d%s)", shown, s, said);
        return OUTCOME_FAIL;
    }
    gg_net_count(n, GG_NC_S4XX, 1);
    if (s == 401 || s == 403) {
        const gg_net_policy *p = g->policy;
        const char *hint = p && p->access_hint ? p->access_hint(p, url) : NULL;
        gg_fail(e, GG_E_ACCESS, "%s: HTTP %d%s (%s)", shown, s, said,
                hint ? hint : "credentials: -o header='Authorization: ...'");
    } else {
        gg_fail(e, GG_E_IO, "%s: HTTP %d%s", shown, s, said);
    }
    return OUTCOME_FAIL;
}

/* Run one hop to `url`, done by deadline (gg_scope_now_ms() clock): set up
 * the handle, perform, and say what the answer means. */
static outcome one_hop(gg_net *n, CURL *h, gg_http_get *g, const resume *rs, const char *url, int first_hop,
                       int64_t deadline, xfer *x, gg_err *e)
{
    memset(x, 0, sizeof *x);
    x->n = n;
    x->g = g;
    x->rs = rs;
    x->retry_after = -1;
    x->stall_ms = n->o.timeout_s >= 2 ? (int64_t)n->o.timeout_s * 500 : 1000;
    x->moved_ms = gg_scope_now_ms();
    if (g->len)
        g->got = 0;
    struct curl_slist *hdr = hop_headers(n, g, url, first_hop);
    hop_setup(n, h, g, url, deadline, x);
    /* A request that reaches a scheme's endpoint by a redirect (an hf.co
     * link to the hub) follows that scheme's policy from there on. */
    if (!g->policy)
        g->policy = gg_policy_for(n, url);
    if (g->policy && g->policy->hop) {
        gg_net_hop hop = {.url = url, .home = g->home ? g->home : g->url, .curl = h, .headers = &hdr};
        g->policy->hop(g->policy, &hop);
    }
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdr);
    gg_net_count(n, GG_NC_REQUESTS, 1);
    CURLcode rc = curl_easy_perform(h);
    curl_slist_free_all(hdr);
    gg_net_count(n, GG_NC_BYTES, x->body);
    char *shown = gg_url_display(url);
    /* (a stop for unmounting wins over an answer that came in time) */
    int failed = (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && x->done)) || atomic_load(&n->aborted);
    outcome out = failed ? transfer_failed(n, g, x, rc, shown, e) : answer_status(n, g, x, url, shown, e);
    free(shown);
    return out;
}

/* Nap up to ms, in slices, unless the net is aborted. */
static void nap(gg_net *n, long ms)
{
    while (ms > 0 && !atomic_load(&n->aborted) && !thread_stopped()) {
        long s = ms < 50 ? ms : 50;
        struct timespec ts = {0, s * 1000000L};
        nanosleep(&ts, NULL);
        ms -= s;
    }
}

static long backoff_ms(int attempt, long retry_after)
{
    if (retry_after >= 0)
        return (retry_after > RETRY_AFTER_MAX_S ? RETRY_AFTER_MAX_S : retry_after) * 1000L;
    long d = BACKOFF_FIRST_MS << (attempt < 10 ? attempt : 10);
    if (d > BACKOFF_MAX_MS)
        d = BACKOFF_MAX_MS;
    /* Jitter: somewhere in [d/2, d], so that retries of many readers spread. */
    static _Thread_local unsigned seed;
    if (!seed)
        seed = (unsigned)time(NULL) ^ (unsigned)(uintptr_t)&seed;
    return d / 2 + (long)((unsigned long)rand_r(&seed) % (unsigned long)(d / 2 + 1));
}

/* Where a redirect goes: an absolute http(s) URL, or NULL. An absolute
 * Location is taken as it is (its path's dot segments too, as every URL
 * here); a relative one is resolved against base, as RFC 3986 says. */
static char *next_hop(const char *base, const char *location)
{
    CURLU *u = curl_url();
    char *out = NULL;
    int absolute = gg_spec_kind_of(location) == GG_SPEC_URL;
    if (u && (absolute ? curl_url_set(u, CURLUPART_URL, location, CURLU_PATH_AS_IS) == CURLUE_OK
                       : curl_url_set(u, CURLUPART_URL, base, CURLU_PATH_AS_IS) == CURLUE_OK &&
                             curl_url_set(u, CURLUPART_URL, location, 0) == CURLUE_OK))
        curl_url_get(u, CURLUPART_URL, &out, 0);
    curl_url_cleanup(u);
    /* (curl writes the scheme in lowercase: "HTTPS://h/" is followed too) */
    char *r = out && gg_spec_kind_of(out) == GG_SPEC_URL ? strdup(out) : NULL;
    curl_free(out);
    return r;
}

/* Before a try: is the request to end now (unmounting, its reader gone,
 * its deadline passed)? 1 with *e set. */
static int stopped(gg_net *n, const gg_http_get *g, int64_t deadline, gg_err *e)
{
    int aborted = atomic_load(&n->aborted), gone = !aborted && thread_stopped();
    if (!aborted && !gone && gg_scope_now_ms() < deadline)
        return 0;
    char *shown = gg_url_display(g->url);
    if (aborted || gone)
        gg_fail(e, GG_E_IO, "%s: stopped (%s)", shown, aborted ? "unmounting" : "the read was interrupted");
    else
        gg_fail(e, GG_E_IO, "%s: no answer within the -o timeout= of %d s", shown, n->o.timeout_s);
    free(shown);
    return 1;
}

/* One try of g: its first hop, then the redirects, each a hop of its own.
 * *url: where the last hop went (malloc'ed, or NULL). */
static outcome follow(gg_net *n, CURL *h, gg_http_get *g, const resume *rs, int64_t deadline, xfer *x, char **url,
                      gg_err *e)
{
    outcome out = OUTCOME_FAIL;
    x->refused = 0;
    x->retry_after = -1;
    if (!(*url = strdup(g->url)))
        gg_fail(e, GG_E_NOMEM, "out of memory");
    for (int hop = 0; *url; hop++) {
        out = one_hop(n, h, g, rs, *url, hop == 0, deadline, x, e);
        if (out != OUTCOME_HOP)
            break;
        gg_net_count(n, GG_NC_REDIRECTS, 1);
        char *next = hop < GG_NET_MAX_REDIRECTS && x->location[0] ? next_hop(*url, x->location) : NULL;
        if (!next) {
            char *shown = gg_url_display(*url), said[480];
            answer_words(g, x, said, sizeof said);
            gg_fail(e, GG_E_IO, "%s: HTTP %d, %s%s", shown, x->status,
                    hop >= GG_NET_MAX_REDIRECTS ? "too many redirects"
                    : x->location[0]            ? "a redirect to something that is not http(s)"
                                                : "a redirect without a Location",
                    said);
            free(shown);
            return OUTCOME_FAIL;
        }
        free(*url);
        *url = next;
    }
    return out;
}

/* A range GET starts after the parts already in (net.h's parts_in). */
static void resume_begin(resume *r, gg_http_get *g)
{
    memset(r, 0, sizeof *r);
    r->start_ms = gg_scope_now_ms();
    g->parts_refused = 0;
    g->part_skew = g->parts_base = 0;
    r->off = g->off;
    r->len = g->len;
    r->dst = g->dst;
    r->parts = g->parts;
    r->on = g->len && (g->dst || (g->parts && g->part_bytes));
    if (r->on && !g->dst)
        r->in = g->parts_in * g->part_bytes < g->len ? g->parts_in * g->part_bytes : g->len;
}

/* Point g at the bytes not in yet. 1: none is left. */
static int resume_next(const resume *r, gg_http_get *g)
{
    if (!r->on)
        return 0;
    g->off = r->off + r->in;
    g->len = r->len - r->in;
    if (r->dst) {
        g->dst = r->dst + r->in;
    } else {
        g->parts_base = r->in / g->part_bytes;
        g->part_skew = r->in % g->part_bytes;
        g->parts = r->parts + g->parts_base;
    }
    return g->len == 0 || (r->have_v && g->off >= r->total);
}

/* After a try that failed: what it brought of the range from its first
 * byte, and what its answer said of the object, are kept. 1 if it brought
 * some. */
static int resume_took(resume *r, const gg_http_get *g, const xfer *x)
{
    if (!r->on || !x->fit || x->changed || x->overflow || !g->got)
        return 0;
    r->in += g->got < g->len ? g->got : g->len;
    if (!r->have_v) {
        r->have_v = 1;
        r->total = g->total;
        memcpy(r->etag, g->etag, sizeof r->etag);
        memcpy(r->last_modified, g->last_modified, sizeof r->last_modified);
    }
    return 1;
}

/* Back to the range as asked; got counts the bytes that came before the
 * last try too. */
static void resume_end(const resume *r, gg_http_get *g, int rc)
{
    if (!r->on)
        return;
    g->got = rc == 0 ? r->in + g->got : r->in;
    g->off = r->off;
    g->len = r->len;
    g->dst = r->dst;
    g->parts = r->parts;
    g->part_skew = g->parts_base = 0;
}

int gg_net_get(gg_net *n, gg_http_get *g, gg_err *e)
{
    gg_err local;
    gg_err *ep = e ? e : &local;
    g->final_url = NULL;
    g->etag[0] = g->last_modified[0] = g->extra[0] = g->revision[0] = g->next_link[0] = g->hint[0] = 0;
    g->got = g->total = 0;
    g->whole_body = 0;
    CURL *h = handle_get(n);
    if (!h)
        return gg_fail(ep, GG_E_NOMEM, "out of memory for an HTTP handle");
    /* One deadline for the request, its redirects, retries and backoff
     * included: -o timeout from now, or the calling thread's scope's (a
     * FUSE read's) if that comes first. */
    int64_t limit = (int64_t)n->o.timeout_s * 1000, left = gg_scope_left_ms();
    int64_t deadline = gg_scope_now_ms() + (left < limit ? left : limit);
    int rc = -1, refused = 0;
    size_t body_start = g->body ? g->body->len : 0;
    resume rs;
    resume_begin(&rs, g);
    for (int attempt = 0;; attempt++) {
        if (resume_next(&rs, g)) {
            rc = 0; /* (all in: the answer broke after its last byte) */
            break;
        }
        if (stopped(n, g, deadline, ep))
            break;
        xfer x;
        if (g->body)
            g->body->len = body_start;
        char *url = NULL;
        outcome out = follow(n, h, g, &rs, deadline, &x, &url, ep);
        if (out == OUTCOME_OK) {
            g->final_url = url;
            rc = 0;
            break;
        }
        free(url);
        /* A try that brought bytes made progress (an answer cut short, or
         * a 206 that ends early): the next one asks for the rest at once and
         * is not counted against -o retries (a server that keeps cutting
         * answers short still ends: each try brings more, within the
         * deadline). */
        int progressed = resume_took(&rs, g, &x);
        long wait = progressed ? 0 : out == OUTCOME_RETRY ? backoff_ms(attempt, x.refused ? -1 : x.retry_after) : 0;
        int again = out == OUTCOME_RETRY && !g->no_retry && (progressed || attempt < n->o.retries) &&
                    !(x.refused && refused++ >= REFUSED_RETRIES);
        if (again && gg_scope_now_ms() + wait + GG_NET_TRY_MIN_MS >= deadline) {
            /* No time left for the next try: fail now, not at the deadline. */
            gg_err_prefix(ep, "after %d %s (no time left in the -o timeout= of %d s)", attempt + 1,
                          attempt ? "tries" : "try", n->o.timeout_s);
            break;
        }
        if (!again) {
            if (out == OUTCOME_RETRY)
                gg_err_prefix(ep, "after %d %s", attempt + 1, attempt ? "tries" : "try");
            break;
        }
        gg_net_count(n, GG_NC_RETRIES, 1);
        nap(n, wait);
        if (progressed)
            attempt--;
    }
    resume_end(&rs, g, rc);
    if (rc)
        gg_net_count(n, ep->code == GG_E_STALE ? GG_NC_STALE : GG_NC_FAILED, 1);
    handle_put(n, h);
    return rc;
}

/* ---- read-ahead workers ---- */

void gg_net_submit(gg_net *n, gg_net_job_fn fn, void *obj, uint64_t a, uint64_t b)
{
    if (!atomic_load(&n->aborted))
        gg_pool_submit(n->jobs, fn, obj, a, b);
}

void gg_net_cancel(gg_net *n, void *obj) { gg_pool_cancel(n->jobs, obj); }

void gg_net_stats_text(gg_net *n, gg_buf *out)
{
    static const char *const names[GG_NC_COUNT] = {
        "http_requests", "http_bytes_fetched", "http_retries", "http_redirects", "http_failed_reads",
        "http_status_2xx", "http_status_3xx", "http_status_404", "http_status_408", "http_status_412",
        "http_status_416", "http_status_429", "http_status_4xx_other", "http_status_5xx",
        "http_connect_errors", "http_timeouts", "http_short_bodies", "http_wrong_ranges",
        "http_whole_bodies", "net_mem_cache_hits", "net_mem_cache_misses", "net_disk_cache_hits",
        "net_disk_cache_misses", "net_disk_cache_writes", "net_disk_cache_corrupt", "net_blocks_prefetched",
        "http_stale", "http_known_failing"};
    for (int i = 0; i < GG_NC_COUNT; i++)
        gg_buf_printf(out, "%-28s %20" PRIu64 "\n", names[i], atomic_load(&n->counters[i]));
    gg_cache_stats s;
    gg_cache_get_stats(n->cache, &s);
    gg_buf_printf(out, "%-28s %20" PRIu64 "\n", "net_mem_cache_bytes", s.resident_bytes);
    gg_buf_printf(out, "%-28s %20" PRIu64 "\n", "net_disk_cache_bytes", n->disk ? gg_diskcache_bytes(n->disk) : 0);
}
