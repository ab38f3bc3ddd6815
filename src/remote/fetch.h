/* fetch.h - the range-fetch interface under the remote source
 * (remote_source.c): one object somewhere, read by byte ranges. HTTP is one
 * implementation (http_fetch.c); the tests' memory fetcher another
 * (tests/memfetch.h); the next schemes bring theirs or give http(s) URLs.
 *
 * A fetcher knows nothing of blocks, caches, read-ahead or what "the same
 * object" means: it delivers exactly the bytes asked for, with what the
 * answer said of the object (its size and validator), and the remote source
 * decides. Internal to remote/. */
#ifndef GGUFFS_REMOTE_FETCH_H
#define GGUFFS_REMOTE_FETCH_H

#include <stdint.h>

#include "gguffs/buf.h"
#include "gguffs/error.h"

/* What an answer says of the object ("" when it says nothing). */
typedef struct gg_validator {
    char etag[160];          /* as sent, "W/..." for a weak one */
    char last_modified[64];  /* an HTTP date */
    char extra[160];         /* a scheme's own validator (the hub's X-Linked-Etag) */
    char revision[64];       /* shown in info.json (the hub's X-Repo-Commit) */
} gg_validator;

typedef struct gg_range {
    /* request: len bytes at off, byte k to parts[k / part_bytes] + k % part_bytes */
    uint64_t off, len;
    uint8_t *const *parts;
    uint64_t part_bytes;
    int first;            /* the opening request: its answer defines the object */
    const char *if_match; /* later requests: the strong ETag to insist on, or NULL */
    /* Told of each part as soon as its bytes are all in, in order, with
     * total and v of the answer bringing it (so that a stream is served
     * while the rest comes); nonzero: not the object, tell no more. A part
     * told is not written again. NULL: a fetcher may not tell at all. */
    int (*part_in)(void *arg, uint64_t part, const struct gg_range *r);
    void *part_arg;
    /* answer */
    uint64_t total;       /* the object's size */
    uint64_t got;         /* bytes delivered (len, or less at the end of the object) */
    gg_validator v;
} gg_range;

typedef struct gg_fetcher gg_fetcher;
typedef struct gg_fetcher_ops {
    /* The bytes [off, off + min(len, total - off)), or -1 with *e set:
     * GG_E_IO (after the fetcher's own retries), GG_E_STALE (the object is
     * no longer the one insisted on), GG_E_NOTFOUND, GG_E_ACCESS, ... An
     * empty object answers its first request with 0 and total 0. Called from
     * several threads at once. */
    int (*fetch)(gg_fetcher *f, gg_range *r, gg_err *e);
    /* "url": ... for info.json (no credentials). */
    void (*describe)(gg_fetcher *f, gg_buf *json_fields);
    void (*close)(gg_fetcher *f);
} gg_fetcher_ops;

struct gg_fetcher {
    const gg_fetcher_ops *ops;
    char *name;             /* for messages: the URL without credentials */
    char *key;              /* gg_source.id: the URL as given (its credentials too, in memory only) */
    char *cache_key;        /* the object in the disk cache: never a secret (gg_url_cache_key) */
    const char *extra_name; /* what v.extra is called in messages ("X-Linked-Etag"), or NULL */
    int content_addressed;  /* its name is its digest (an Ollama blob): it never changes, so no
                             * If-Match and no validator is needed or compared (its CDN's
                             * ETags may differ by edge); its size is still checked */
    char want_sha256[65];   /* what its name says it is (an Ollama manifest's layer: its digest,
                             * 64 hex digits, and size), or "": nothing known. An object of
                             * another size is refused at open; its bytes are hashed as its
                             * blocks come, in order, and compared once the last one came */
    uint64_t want_size;
};

#endif
