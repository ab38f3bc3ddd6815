/* cache.h - a byte-budgeted LRU of decoded pages, shared by all tensors.
 *
 * Thread-safe without a global lock: keys hash to shards, each with its own
 * lock, hash table and LRU lists; the budget is one atomic count. A page is
 * pinned while in use and never evicted then. Concurrent misses of one page
 * decode it once: the first caller fills it, the others wait for it (or, with
 * GG_PIN_NOWAIT, get it back BUSY and wait later with gg_cache_wait(), so a
 * reader can fill its own pages before waiting on another thread's).
 *
 * Two lists per shard: the LRU, and a "used once" list for pages a
 * sequential reader has gone past (released with cold = 1). Eviction takes
 * used-once pages first, oldest first, and they may hold only 1/32 of the
 * budget (beyond it a miss evicts them even under budget), so streaming a
 * tensor recycles a few warm buffers instead of flushing the pages random
 * readers keep coming back to, or touching fresh memory. A used-once page
 * that another stream comes back for (two readers of one tensor) goes to
 * the LRU instead.
 *
 * Page buffers of 64 KiB and more are mapped directly (not malloc'ed), so
 * evicted memory goes back to the system and never strands in a malloc
 * arena; an evicted buffer of a fitting size is reused as is.
 *
 * The cache knows nothing of GGUF: a key is any 64-bit number and a page any
 * block of bytes. */
#ifndef GGUFFS_CACHE_H
#define GGUFFS_CACHE_H

#include <stddef.h>
#include <stdint.h>

typedef struct gg_cache gg_cache;
typedef struct gg_page gg_page;

typedef struct gg_cache_stats {
    uint64_t hits, misses, evictions, fills_failed;
    uint64_t resident_bytes, resident_pages, budget_bytes;
    uint64_t readahead_filled, readahead_hits, waits;
} gg_cache_stats;

gg_cache *gg_cache_new(uint64_t budget_bytes);
void gg_cache_free(gg_cache *c);

/* gg_cache_pin flags */
enum {
    GG_PIN_READAHEAD = 1, /* a fill ahead of any reader (statistics, and the
                             first real reader counts a read-ahead hit) */
    GG_PIN_NOWAIT = 2,    /* return a page another thread is filling as BUSY */
    GG_PIN_IFABSENT = 4,  /* only a miss is pinned: present pages give NULL
                             with *status = GG_PIN_READY */
};
/* gg_cache_pin status */
enum {
    GG_PIN_READY = 0, /* data is there to read */
    GG_PIN_FILL = 1,  /* new page: write its data, then gg_cache_filled() */
    GG_PIN_BUSY = 2,  /* another thread fills it: gg_cache_wait() before reading */
};

/* Pin the page of `key`, `bytes` long, and say in *status what to do with
 * it. Without GG_PIN_NOWAIT this waits while another thread fills the page
 * (never BUSY). Returns NULL when memory runs out (or see GG_PIN_IFABSENT). */
gg_page *gg_cache_pin(gg_cache *c, uint64_t key, size_t bytes, int flags, int *status);

/* Wait for a BUSY page. Returns 0 when it is ready, -1 when its fill failed:
 * then unpin it and pin the key again. */
int gg_cache_wait(gg_cache *c, gg_page *p);

/* Pin the page only if it is present and ready; never waits or inserts. */
gg_page *gg_cache_peek(gg_cache *c, uint64_t key);

/* Report the outcome of a fill (ok = 0: the page is dropped and waiters
 * retry). The caller still holds its pin. */
void gg_cache_filled(gg_cache *c, gg_page *p, int ok);

/* Let go of a pin. stream != NULL: the caller, a sequential reader that
 * `stream` identifies, is done with the page (used once; see above).
 * gg_cache_unpin is release with stream = NULL. */
void gg_cache_release(gg_cache *c, gg_page *p, const void *stream);
void gg_cache_unpin(gg_cache *c, gg_page *p);

/* Drop every ready page with lo <= key < hi (pinned ones once let go). */
void gg_cache_drop_range(gg_cache *c, uint64_t lo, uint64_t hi);

void *gg_page_data(gg_page *p);
size_t gg_page_bytes(const gg_page *p);

void gg_cache_get_stats(gg_cache *c, gg_cache_stats *s);

#endif
