/* cache.h - a byte-budgeted LRU of decoded pages, shared by all tensors.
 *
 * Thread-safe without a global lock: keys hash to shards, each with its own
 * lock, LRU list and share of the budget. A page is pinned while in use and
 * never evicted then. Concurrent misses of one page decode it once: the
 * first caller fills it, the others wait for it. The cache knows nothing of
 * GGUF: a key is any 64-bit number and a page any block of bytes. */
#ifndef GGUFFS_CACHE_H
#define GGUFFS_CACHE_H

#include <stddef.h>
#include <stdint.h>

typedef struct gg_cache gg_cache;
typedef struct gg_page gg_page;

typedef struct gg_cache_stats {
    uint64_t hits, misses, evictions, fills_failed;
    uint64_t resident_bytes, resident_pages, budget_bytes;
    uint64_t readahead_filled, readahead_hits;
} gg_cache_stats;

gg_cache *gg_cache_new(uint64_t budget_bytes);
void gg_cache_free(gg_cache *c);

/* Pin the page of `key`, `bytes` long. If *must_fill is 1 on return, the
 * page is new and the caller must write its data and call gg_cache_filled();
 * otherwise it is ready to read (this waits while another thread fills it).
 * `readahead` marks a fill done ahead of any reader, for the statistics.
 * Returns NULL only if memory runs out. */
gg_page *gg_cache_pin(gg_cache *c, uint64_t key, size_t bytes, int readahead, int *must_fill);

/* Pin the page only if it is present and ready; never waits or inserts. */
gg_page *gg_cache_peek(gg_cache *c, uint64_t key);

/* Report the outcome of a fill (ok = 0: the page is dropped and waiters
 * retry). The caller still holds its pin. */
void gg_cache_filled(gg_cache *c, gg_page *p, int ok);
void gg_cache_unpin(gg_cache *c, gg_page *p);

void *gg_page_data(gg_page *p);
size_t gg_page_bytes(const gg_page *p);

void gg_cache_get_stats(gg_cache *c, gg_cache_stats *s);

#endif
