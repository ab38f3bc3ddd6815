/* source.h - where a model's bytes come from: a local file, or an object
 * behind an http(s) URL. Everything above (the header parser, the tensor
 * views) reads only through this.
 *
 * A source knows its size and its identity (for a file: device, inode, size,
 * modification and change times; for a URL: its validator, the ETag) and
 * reads exact byte ranges. Every read checks the identity: once the file or
 * object has changed since it was opened, reads fail with GG_E_STALE (and
 * keep failing), so bytes of two versions are never mixed. */
#ifndef GGUFFS_SOURCE_H
#define GGUFFS_SOURCE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "gguffs/error.h"
#include "gguffs/buf.h"

typedef struct gg_source gg_source;
/* Opens an http(s) URL; the HTTP layer (http_fetch.c) provides one, so the
 * core builds and runs without libcurl. */
typedef gg_source *(*gg_url_opener)(void *arg, const char *url, gg_err *e);

typedef struct gg_source_ops {
    /* Exactly n bytes at off (off + n <= size), or -1. */
    int (*read)(gg_source *s, void *buf, size_t n, uint64_t off, gg_err *e);
    /* Still the object that was opened? 0, or -1 with GG_E_STALE. Cheap. */
    int (*check)(gg_source *s, gg_err *e);
    /* Where it came from, for info.json ("file" / "url"), or NULL. */
    void (*describe)(gg_source *s, gg_buf *json_fields);
    void (*close)(gg_source *s);
} gg_source_ops;

struct gg_source {
    const gg_source_ops *ops;
    char *name;             /* path as given, or the URL without credentials */
    char *id;               /* what it is, for "is it the same object?": "file:DEV:INO", the URL */
    uint64_t size;
    struct timespec mtime;  /* modification time (Last-Modified for URLs) */
    int remote;             /* fetched over the network */
    _Atomic int stale;      /* it changed: every read fails */
};

/* Open a path, or an http:// / https:// URL through open_url (NULL refuses
 * URLs); another scheme's name is refused (GG_E_INVAL: resolve it into
 * URLs first, gguffs/resolver.h). Returns NULL with
 * *e set: GG_E_NOTFOUND, GG_E_ACCESS, GG_E_NOTREG, GG_E_IO, ... */
gg_source *gg_source_open(const char *spec, gg_url_opener open_url, void *url_arg, gg_err *e);
void gg_source_close(gg_source *s);

/* What a spec names: a path, an http:// or https:// URL (lowercase, as
 * given), or a name of another scheme ("hf://...": scheme [a-z][a-z0-9+.-]*
 * then "://"), which a resolver turns into URLs. The one test of "is it a
 * URL" in the program. */
typedef enum gg_spec_kind { GG_SPEC_PATH, GG_SPEC_URL, GG_SPEC_NAME } gg_spec_kind;
gg_spec_kind gg_spec_kind_of(const char *spec);
/* Its length without a URL's ?query and #fragment (strlen for the others). */
size_t gg_spec_path_len(const char *spec);

/* A URL for others' eyes (messages, info.json, models.tsv, the mount's
 * source in /proc/mounts, the daemon's command line): scheme, host, port
 * and path as given, without user:password@, fragment or query string
 * (presigned URLs carry credentials there), "?..." marking where a query
 * was. Malloc'ed (NULL: out of memory). */
char *gg_url_display(const char *url);

static inline int gg_source_read(gg_source *s, void *buf, size_t n, uint64_t off, gg_err *e)
{
    return s->ops->read(s, buf, n, off, e);
}
static inline int gg_source_check(gg_source *s, gg_err *e) { return s->ops->check(s, e); }

/* Open a local file (used by gg_source_open). */
gg_source *gg_source_open_file(const char *path, gg_err *e);

#endif
