/* diskcache.h - a persistent cache of remote blocks in a folder
 * (-o cache_dir=DIR), bounded in bytes with least-recently-used eviction.
 *
 * Blocks are kept per object, an object being a URL at one version (its
 * validator): a new version is a new object, so bytes of two versions are
 * never mixed. The caller names the URL by what is not secret in it
 * (net.h's gg_url_cache_key: no credentials, no query string): keys are
 * written into the folder as they are given. Each block file carries its object, number, length and a
 * checksum of its bytes, and is written under a temporary name then renamed:
 * a daemon killed mid-write leaves a stray temporary file (cleaned later),
 * never a torn block; a block damaged on disk fails its checksum, is
 * deleted and fetched again. Several mounts may share one folder.
 *
 * For a URL, the folder also remembers its newest object and what the first
 * answer said (size, validators), so a later mount can open the model with
 * the server down and read what was cached. */
#ifndef GGUFFS_DISKCACHE_H
#define GGUFFS_DISKCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "gguffs/error.h"
#include "gguffs/buf.h"

typedef struct gg_diskcache gg_diskcache;

gg_diskcache *gg_diskcache_open(const char *dir, uint64_t max_bytes, gg_err *e);
void gg_diskcache_close(gg_diskcache *d);

/* Block `block` (len bytes) of object `key` into dst. Returns 0 on a hit,
 * -1 on a miss, 1 when a damaged file was found (and deleted). */
int gg_diskcache_get(gg_diskcache *d, const char *key, uint64_t block, void *dst, size_t len);
/* Keep a block (errors are ignored: the cache is best effort). */
void gg_diskcache_put(gg_diskcache *d, const char *key, uint64_t block, const void *src, size_t len);

/* What is known of a URL, or of any key (text, up to 64 MiB: an hf://
 * repository's listing is kept this way too). */
void gg_diskcache_put_meta(gg_diskcache *d, const char *url, const char *meta);
int gg_diskcache_get_meta(gg_diskcache *d, const char *url, gg_buf *meta);

/* Bytes held (as this process counts them). */
uint64_t gg_diskcache_bytes(gg_diskcache *d);

#endif
