/* net.h - the HTTP client under remote sources: libcurl, one GET at a time
 * per calling thread, connections shared between threads and kept alive;
 * and the net, what the remote sources share: the client, the block cache,
 * the disk cache, the read-ahead workers, the counters, and the state of
 * each scheme of the resolver table (resolver.h).
 *
 * What it promises:
 *  - a GET of a byte range gives exactly those bytes or fails: a 206 must
 *    carry a Content-Range that starts where the request does and the exact
 *    body length; a 206 that ends early (HTTP allows a server to send less)
 *    and an answer that breaks are taken for what came, and the rest is
 *    asked for, from an answer that says the same of the object (size,
 *    ETag, Last-Modified: else GG_E_STALE); a 200 with the whole body (a
 *    server that ignores Range) is read for the wanted bytes only, never
 *    taken as the range;
 *  - redirects are followed here, not by libcurl, at most GG_NET_MAX_REDIRECTS
 *    of them and only to http/https; the -o header headers go to the host
 *    (and port) of the URL they were given for only, never to a host a
 *    redirect points at (the hub sends downloads to a CDN); what a scheme
 *    adds to a request (the hub's token) is its policy's to decide, hop by
 *    hop (gg_net_policy);
 *  - connection errors, connections that make no progress for half of the
 *    timeout, 408, 429 (its Retry-After honoured) and 5xx are retried with
 *    exponential backoff and jitter, then the request fails (GG_E_IO, also
 *    for timeouts); a refused connection is tried once more only; 412
 *    (If-Match failed) is GG_E_STALE; 404 GG_E_NOTFOUND; 401/403
 *    GG_E_ACCESS; a certificate that does not verify, or a TLS handshake the
 *    two sides cannot agree on, fails at once, with libcurl's reason; a 401
 *    or 403 says what would let us in (the policy's hint, else -o header=);
 *  - no request waits for ever: each one, its redirects, retries and
 *    backoff included, ends within the timeout, or by the deadline of the
 *    calling thread's scope (scope.h: a FUSE read's) if that comes first; it
 *    stops early when that scope's caller gives up, and gg_net_abort() makes
 *    all of them stop at once.
 * It knows nothing of GGUF, caches or validators' meaning: callers say which
 * If-Match to send and check what comes back (remote_source.c); nor of any
 * scheme: the hub's token and headers are hf.c's. */
#ifndef GGUFFS_NET_H
#define GGUFFS_NET_H

#include <stddef.h>
#include <stdint.h>

#include "gguffs/cache.h"
#include "gguffs/diskcache.h"
#include "gguffs/error.h"
#include "gguffs/buf.h"
#include "gguffs/source.h"

#define GG_NET_MAX_REDIRECTS 8
#define GG_NET_MAX_HEADERS 16

typedef struct gg_net gg_net;

typedef struct gg_net_opts {
    int timeout_s;            /* the longest a request takes, retries included, seconds (default 30) */
    int retries;              /* tries after the first for transient failures (default 5) */
    const char *cafile;       /* CA bundle; NULL: $CURL_CA_BUNDLE, else the system store */
    const char *headers[GG_NET_MAX_HEADERS]; /* "Name: value", sent to the URLs' own hosts */
    int n_headers;
    const char *hf_endpoint;  /* the hub (hf.c); NULL: $HF_ENDPOINT, else https://huggingface.co */
    const char *hf_token;     /* its token; NULL: $HF_TOKEN, else $HF_TOKEN_PATH or ~/.cache/huggingface/token */
    const char *s3_region;    /* s3.c: NULL: $AWS_REGION, $AWS_DEFAULT_REGION, the profile's, else us-east-1 */
    const char *s3_endpoint;  /* NULL: $AWS_ENDPOINT_URL_S3, $AWS_ENDPOINT_URL, else AWS's */
    const char *ollama_registry; /* ollama.c: NULL: https://registry.ollama.ai */
    uint64_t mem_cache_bytes; /* block cache in memory (default 256M) */
    uint64_t block_bytes;     /* block of the caches (default 1M) */
    const char *cache_dir;    /* persistent block cache; NULL: none */
    uint64_t cache_dir_bytes; /* its bound (default 10G) */
    int prefetch_threads;     /* range requests in flight for read-ahead (default 8) */
    int unvalidated;          /* open objects without ETag and Last-Modified too (only their size is
                               * checked; never in the disk cache); else they are refused */
} gg_net_opts;

void gg_net_default_opts(gg_net_opts *o);
/* Every value of o a scheme reads (the endpoints, the region), checked as
 * it would be when used, whether or not a name of that scheme comes: 0, or
 * -1 with *e set (GG_E_INVAL, naming the option and why). gg_net_new
 * checks them first. (The environment's settings are checked when their
 * scheme is used: a bad $AWS_ENDPOINT_URL must not stop a mount of
 * something else.) */
int gg_net_check_opts(const gg_net_opts *o, gg_err *e);

/* Returns NULL with *e set (libcurl missing pieces, a bad option, a
 * scheme's bad setting: HF_ENDPOINT not a URL). */
gg_net *gg_net_new(const gg_net_opts *o, gg_err *e);
void gg_net_free(gg_net *n);

/* Every transfer in progress and to come fails at once (unmounting).
 * Safe to call from a signal handler. */
void gg_net_abort(gg_net *n);
/* The same whenever probe(arg) says so (checked while transfers run). */
void gg_net_set_probe(gg_net *n, int (*probe)(void *), void *arg);
const gg_net_opts *gg_net_options(const gg_net *n);
/* The states of the resolver table's schemes, made with the net (resolver.c). */
struct gg_schemes *gg_net_schemes(gg_net *n);

/* "scheme://host:port" of a URL, host in lowercase, default port filled in
 * (malloc'ed), or NULL: whom a header may go to. */
char *gg_url_origin(const char *url);
/* What names url's object in the disk cache: "scheme://host:port/path",
 * as gg_url_origin and the path as given (malloc'ed), or NULL: never its
 * credentials (user:password@) or its query (a presigned URL's signature
 * and token, which change at each signing anyway). */
char *gg_url_cache_key(const char *url);

typedef struct gg_http_get gg_http_get;
struct curl_slist;

/* A hop of a request: one request to one URL (the first, or a redirect's). */
typedef struct gg_net_hop {
    const char *url;             /* this hop's */
    const char *home;            /* the request's own URL, as its caller gave it */
    void *curl;                  /* the libcurl easy handle, its options set; what the policy
                                  * sets on it lasts this hop only */
    struct curl_slist **headers; /* the request headers (add with gg_net_hop_header) */
} gg_net_hop;
/* Add "Name: value" to the hop's request headers: 0, or -1 (out of memory). */
int gg_net_hop_header(gg_net_hop *hop, const char *line);

/* A scheme's policy for the requests of its objects: what each hop carries
 * besides the client's own headers, and what the answers tell the scheme.
 * The client calls it and knows nothing of the scheme. A scheme's state
 * embeds it (first member); it does not change once made, as many threads'
 * requests use it at once. Every member may be NULL.
 *  - hf.c's: its token to the hub's origin only, never to the CDN a
 *    redirect leads to; X-Linked-Etag and X-Repo-Commit as extra and
 *    revision; a hint naming $HF_TOKEN when the hub refuses us;
 *  - a signing scheme (s3://) would set its options on hop->curl
 *    (CURLOPT_AWS_SIGV4, CURLOPT_USERPWD) and add its x-amz-* headers, for
 *    hops to its endpoint; another (ollama://) its own user agent. */
typedef struct gg_net_policy {
    /* Before each hop, once the client has set up the handle and headers. */
    void (*hop)(const struct gg_net_policy *p, gg_net_hop *hop);
    /* Each header of each answer, the redirects' too ("Name", "value"
     * trimmed): what the scheme keeps of it, into g->extra and g->revision,
     * and what a message of a failure should say, into g->hint. */
    void (*header)(const struct gg_net_policy *p, gg_http_get *g, const char *name, const char *value);
    /* A 401 or 403 from url: what would let us in ("a token: $HF_TOKEN, or
     * ..."), or NULL for the client's own hint (-o header=). */
    const char *(*access_hint)(const struct gg_net_policy *p, const char *url);
    /* The body of a 4xx or 5xx answer (its first 2 KiB): what the store says
     * of its refusal, for the message (S3's "SignatureDoesNotMatch: ..."),
     * into out: 1, or 0 (nothing to say). Never a secret: a store may echo
     * what was signed. */
    int (*refusal)(const struct gg_net_policy *p, const char *body, size_t len, char *out, size_t cap);
    const char *extra_name; /* what g->extra is called in messages ("X-Linked-Etag") */
    /* Is url's object named by its digest (it never changes: an Ollama blob)? */
    int (*content_addressed)(const struct gg_net_policy *p, const char *url);
    /* What url's object is, as the scheme knows it (an Ollama blob: the
     * size its manifest gives the layer, the sha256 it is named by): 1 with
     * *size and sha256 (64 hex digits), else 0. */
    int (*identity)(const struct gg_net_policy *p, const char *url, uint64_t *size, char sha256[65]);
} gg_net_policy;

/* One GET. The caller fills the first part; gg_net_get fills the rest. */
struct gg_http_get {
    const char *url;       /* where to start (redirects are followed) */
    uint64_t off, len;     /* the byte range; len 0: the whole body, no Range */
    uint8_t *dst;          /* len bytes (range GETs) */
    uint8_t *const *parts; /* or, with dst NULL: byte k of the range goes to */
    uint64_t part_bytes;   /* parts[k / part_bytes] + k % part_bytes (no copy in between) */
    /* With parts: told of each part as soon as all its bytes are in, in
     * order, from the thread in gg_net_get, with g's total and validators
     * those of the answer that brought its last byte (a 206 from the byte
     * asked for, or a 200 with a Content-Length). A part is whole when all
     * its bytes came, or the answer says the object ends in it: never a part
     * a short answer left partly unwritten. A part told is never written
     * again: a retry asks for the bytes after it. Nonzero: the answer is not
     * the object wanted; no part is told again. NULL: none told. */
    int (*part_in)(void *arg, uint64_t part, const gg_http_get *g);
    void *part_arg;
    uint64_t parts_in;     /* in: parts of the range already in (not asked for); out: and told */
    gg_buf *body;          /* whole-body GETs: the body is appended here */
    uint64_t max_body;     /* whole-body GETs: refuse longer bodies */
    const char *if_match;  /* an ETag for If-Match, sent to `url`'s host only; NULL: none */
    const char *home;      /* the URL as the user gave it: -o header goes to its host only
                            * (url may be where it redirected to); NULL: url */
    int no_retry;          /* fail on the first transient error (probing) */
    int parts_refused;     /* (internal) part_in said no: tell no more */
    uint64_t parts_base;   /* (internal) the part this try's bytes begin in: parts starts there */
    uint64_t part_skew;    /* (internal) bytes of that part in before this try */
    const gg_net_policy *policy; /* its scheme's, or NULL */

    int status;            /* of the last hop */
    uint64_t total;        /* size of the object: Content-Range's total, or Content-Length of a 200 */
    uint64_t got;          /* bytes delivered to dst */
    int whole_body;        /* the server answered 200 to a range request */
    char etag[160];        /* ETag of the final response ("" if none) */
    char last_modified[64];
    char extra[160];       /* what the policy took from any hop's answer: a scheme's own */
    char revision[64];     /* validator and revision (the hub's X-Linked-Etag, X-Repo-Commit) */
    char hint[160];        /* what the policy made of the last answer's headers for a message
                            * ("the bucket is in eu-west-1: -o s3_region=eu-west-1"), or "" */
    char next_link[1024];  /* Link: <...>; rel="next" */
    char *final_url;       /* where the bytes came from (malloc'ed; free it) */
};

/* Perform g. Returns 0, or -1 with *e set; in both cases free(g->final_url). */
int gg_net_get(gg_net *n, gg_http_get *g, gg_err *e);
/* A try needs this long at least: gg_net_get starts none with less time
 * left (it would only be one more request cut at the deadline). */
#define GG_NET_TRY_MIN_MS 100

/* Open an http(s) URL as a source (http_fetch.c, remote_source.c), read with
 * the policy of the scheme that claims it (the hub's URLs: hf.c's), else
 * with none. gg_net_url_opener has the shape of gg_url_opener (source.h):
 * pass it with the net as its argument. */
gg_source *gg_source_open_http(gg_net *net, const char *url, gg_err *e);
gg_source *gg_net_url_opener(void *net, const char *url, gg_err *e);

/* The net's block cache (cache.h) and its counters, shared by every remote
 * source: keys are (source number << 40 | block number). */
gg_cache *gg_net_cache(gg_net *n);
uint32_t gg_net_new_source_id(gg_net *n);
/* The persistent block cache, or NULL (no -o cache_dir). */
gg_diskcache *gg_net_diskcache(gg_net *n);

/* Background jobs of remote sources (read-ahead): fn(net, obj, a, b) runs on one
 * of the prefetch_threads workers (started on first use, so after the
 * daemon forked). A full queue drops the job (read-ahead is a hint). */
typedef void (*gg_net_job_fn)(void *net, void *obj, uint64_t a, uint64_t b);
void gg_net_submit(gg_net *n, gg_net_job_fn fn, void *obj, uint64_t a, uint64_t b);
/* Drop obj's queued jobs and wait for its running ones (before freeing obj). */
void gg_net_cancel(gg_net *n, void *obj);

/* Counters for .stats. */
typedef enum gg_net_counter {
    GG_NC_REQUESTS, GG_NC_BYTES, GG_NC_RETRIES, GG_NC_REDIRECTS, GG_NC_FAILED,
    GG_NC_S2XX, GG_NC_S3XX, GG_NC_S404, GG_NC_S408, GG_NC_S412, GG_NC_S416, GG_NC_S429, GG_NC_S4XX,
    GG_NC_S5XX, GG_NC_CONNECT_ERRORS, GG_NC_TIMEOUTS, GG_NC_SHORT_BODIES, GG_NC_BAD_RANGES,
    GG_NC_WHOLE_BODIES, GG_NC_MEM_HITS, GG_NC_MEM_MISSES, GG_NC_DISK_HITS, GG_NC_DISK_MISSES,
    GG_NC_DISK_WRITES, GG_NC_DISK_CORRUPT, GG_NC_PREFETCHED, GG_NC_STALE, GG_NC_KNOWN_FAILING,
    GG_NC_COUNT
} gg_net_counter;
void gg_net_count(gg_net *n, gg_net_counter c, uint64_t by);
/* .stats lines (fixed widths, a fixed set of lines). */
void gg_net_stats_text(gg_net *n, gg_buf *out);

#endif
