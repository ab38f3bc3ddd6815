/* cache.c - sharded LRU of pages with a global byte budget.
 *
 * Each shard has a lock, a hash table and an LRU list of the pages nobody
 * has pinned. The budget is global (an atomic count of resident bytes) so a
 * small budget is honoured however keys spread over shards; eviction takes
 * the least recently used unpinned page of any shard, one lock at a time.
 * Evicted buffers of the right size are reused: on this kind of VM first
 * touch of fresh memory is slower than decoding into it. */
#include "gguffs/cache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define NSHARDS 16

enum { FILLING, READY, DROPPED };

struct gg_page {
    uint64_t key;
    size_t bytes;
    int pins;
    int state;
    int readahead; /* filled ahead of a reader and not read yet */
    gg_page *hnext;
    gg_page *prev, *next; /* LRU links, only while unpinned and ready */
    void *data;
};

typedef struct shard {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    gg_page **buckets;
    size_t nbuckets, count;
    gg_page lru; /* sentinel: next = most recent, prev = least recent */
} shard;

struct gg_cache {
    shard shards[NSHARDS];
    uint64_t budget;
    _Atomic uint64_t resident, resident_pages;
    _Atomic uint64_t hits, misses, evictions, fills_failed, ra_filled, ra_hits;
    _Atomic unsigned evict_cursor;
};

static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return k;
}

static shard *shard_of(gg_cache *c, uint64_t key) { return &c->shards[mix(key) % NSHARDS]; }
static size_t bucket_of(const shard *s, uint64_t key) { return (mix(key) >> 8) & (s->nbuckets - 1); }

gg_cache *gg_cache_new(uint64_t budget)
{
    gg_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->budget = budget;
    for (int i = 0; i < NSHARDS; i++) {
        shard *s = &c->shards[i];
        pthread_mutex_init(&s->lock, NULL);
        pthread_cond_init(&s->changed, NULL);
        s->nbuckets = 256;
        s->buckets = calloc(s->nbuckets, sizeof *s->buckets);
        s->lru.next = s->lru.prev = &s->lru;
        if (!s->buckets) {
            gg_cache_free(c);
            return NULL;
        }
    }
    return c;
}

static void page_free(gg_page *p)
{
    free(p->data);
    free(p);
}

void gg_cache_free(gg_cache *c)
{
    if (!c)
        return;
    for (int i = 0; i < NSHARDS; i++) {
        shard *s = &c->shards[i];
        for (size_t b = 0; s->buckets && b < s->nbuckets; b++) {
            for (gg_page *p = s->buckets[b], *n; p; p = n) {
                n = p->hnext;
                page_free(p);
            }
        }
        free(s->buckets);
        pthread_mutex_destroy(&s->lock);
        pthread_cond_destroy(&s->changed);
    }
    free(c);
}

static void lru_remove(gg_page *p)
{
    p->prev->next = p->next;
    p->next->prev = p->prev;
    p->prev = p->next = NULL;
}

static void lru_push_front(shard *s, gg_page *p)
{
    p->next = s->lru.next;
    p->prev = &s->lru;
    s->lru.next->prev = p;
    s->lru.next = p;
}

static gg_page *find(shard *s, uint64_t key)
{
    for (gg_page *p = s->buckets[bucket_of(s, key)]; p; p = p->hnext)
        if (p->key == key)
            return p;
    return NULL;
}

static void unlink_hash(shard *s, gg_page *p)
{
    gg_page **pp = &s->buckets[bucket_of(s, p->key)];
    while (*pp && *pp != p)
        pp = &(*pp)->hnext;
    if (*pp)
        *pp = p->hnext;
    s->count--;
}

static void grow_hash(shard *s)
{
    size_t nb = s->nbuckets * 2;
    gg_page **b = calloc(nb, sizeof *b);
    if (!b)
        return; /* keep the old table: longer chains, still correct */
    gg_page **old = s->buckets;
    size_t oldn = s->nbuckets;
    s->buckets = b;
    s->nbuckets = nb;
    for (size_t i = 0; i < oldn; i++) {
        for (gg_page *p = old[i], *n; p; p = n) {
            n = p->hnext;
            size_t k = bucket_of(s, p->key);
            p->hnext = b[k];
            b[k] = p;
        }
    }
    free(old);
}

/* Evict the least recently used unpinned page of some shard. Returns the
 * evicted page (detached, caller frees or reuses it) or NULL if every page
 * is pinned. Takes one shard lock at a time; the caller holds none. */
static gg_page *evict_one(gg_cache *c)
{
    unsigned start = atomic_fetch_add_explicit(&c->evict_cursor, 1, memory_order_relaxed);
    for (unsigned i = 0; i < NSHARDS; i++) {
        shard *s = &c->shards[(start + i) % NSHARDS];
        pthread_mutex_lock(&s->lock);
        gg_page *p = s->lru.prev;
        if (p != &s->lru) {
            lru_remove(p);
            unlink_hash(s, p);
            p->state = DROPPED;
            pthread_mutex_unlock(&s->lock);
            atomic_fetch_sub(&c->resident, p->bytes);
            atomic_fetch_sub(&c->resident_pages, 1);
            atomic_fetch_add_explicit(&c->evictions, 1, memory_order_relaxed);
            return p;
        }
        pthread_mutex_unlock(&s->lock);
    }
    return NULL;
}

gg_page *gg_cache_peek(gg_cache *c, uint64_t key)
{
    shard *s = shard_of(c, key);
    pthread_mutex_lock(&s->lock);
    gg_page *p = find(s, key);
    if (p && p->state == READY) {
        if (p->pins++ == 0)
            lru_remove(p);
        if (p->readahead) {
            p->readahead = 0;
            atomic_fetch_add_explicit(&c->ra_hits, 1, memory_order_relaxed);
        }
        atomic_fetch_add_explicit(&c->hits, 1, memory_order_relaxed);
    } else {
        p = NULL;
    }
    pthread_mutex_unlock(&s->lock);
    return p;
}

gg_page *gg_cache_pin(gg_cache *c, uint64_t key, size_t bytes, int readahead, int *must_fill)
{
    shard *s = shard_of(c, key);
    *must_fill = 0;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        gg_page *p = find(s, key);
        if (!p)
            break;
        if (p->pins++ == 0 && p->state == READY)
            lru_remove(p);
        while (p->state == FILLING)
            pthread_cond_wait(&s->changed, &s->lock);
        if (p->state == READY) {
            if (p->readahead && !readahead) {
                p->readahead = 0;
                atomic_fetch_add_explicit(&c->ra_hits, 1, memory_order_relaxed);
            }
            atomic_fetch_add_explicit(&c->hits, 1, memory_order_relaxed);
            pthread_mutex_unlock(&s->lock);
            return p;
        }
        /* The fill failed and the page was dropped: let go and try again. */
        if (--p->pins == 0)
            page_free(p);
    }
    /* Miss: publish a FILLING page first so concurrent misses wait for us. */
    gg_page *p = calloc(1, sizeof *p);
    if (!p) {
        pthread_mutex_unlock(&s->lock);
        return NULL;
    }
    p->key = key;
    p->bytes = bytes;
    p->pins = 1;
    p->state = FILLING;
    p->readahead = readahead;
    size_t k = bucket_of(s, key);
    p->hnext = s->buckets[k];
    s->buckets[k] = p;
    if (++s->count > s->nbuckets)
        grow_hash(s);
    pthread_mutex_unlock(&s->lock);
    atomic_fetch_add_explicit(&c->misses, 1, memory_order_relaxed);
    atomic_fetch_add(&c->resident_pages, 1);

    /* Make room, reusing an evicted buffer of the same size when we can. */
    uint64_t now = atomic_fetch_add(&c->resident, bytes) + bytes;
    while (now > c->budget) {
        gg_page *v = evict_one(c);
        if (!v)
            break; /* everything is pinned: overshoot until pins drop */
        if (!p->data && v->bytes == bytes && v->pins == 0) {
            p->data = v->data;
            v->data = NULL;
        }
        if (v->pins == 0)
            page_free(v);
        now = atomic_load(&c->resident);
    }
    if (!p->data)
        p->data = aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!p->data) {
        gg_cache_filled(c, p, 0);
        gg_cache_unpin(c, p);
        return NULL;
    }
    *must_fill = 1;
    return p;
}

void gg_cache_filled(gg_cache *c, gg_page *p, int ok)
{
    shard *s = shard_of(c, p->key);
    pthread_mutex_lock(&s->lock);
    if (ok) {
        p->state = READY;
        if (p->readahead)
            atomic_fetch_add_explicit(&c->ra_filled, 1, memory_order_relaxed);
    } else {
        unlink_hash(s, p);
        p->state = DROPPED;
        atomic_fetch_sub(&c->resident, p->bytes);
        atomic_fetch_sub(&c->resident_pages, 1);
        atomic_fetch_add_explicit(&c->fills_failed, 1, memory_order_relaxed);
    }
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

void gg_cache_unpin(gg_cache *c, gg_page *p)
{
    shard *s = shard_of(c, p->key);
    pthread_mutex_lock(&s->lock);
    int last = --p->pins == 0;
    /* Decide under the lock: once on the LRU list another thread may evict
     * and free the page. */
    int drop = last && p->state == DROPPED;
    if (last && p->state == READY)
        lru_push_front(s, p);
    pthread_mutex_unlock(&s->lock);
    if (drop)
        page_free(p);
}

void *gg_page_data(gg_page *p) { return p->data; }
size_t gg_page_bytes(const gg_page *p) { return p->bytes; }

void gg_cache_get_stats(gg_cache *c, gg_cache_stats *st)
{
    st->hits = atomic_load(&c->hits);
    st->misses = atomic_load(&c->misses);
    st->evictions = atomic_load(&c->evictions);
    st->fills_failed = atomic_load(&c->fills_failed);
    st->resident_bytes = atomic_load(&c->resident);
    st->resident_pages = atomic_load(&c->resident_pages);
    st->budget_bytes = c->budget;
    st->readahead_filled = atomic_load(&c->ra_filled);
    st->readahead_hits = atomic_load(&c->ra_hits);
}
