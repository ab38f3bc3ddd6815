/* cache.c - sharded LRU of pages with a global byte budget (see cache.h).
 *
 * Each shard has a lock, a hash table, an LRU list and a used-once list of
 * the pages nobody has pinned (FILLING and pinned pages are on no list).
 * The budget is global (an atomic count of resident bytes) so a small
 * budget is honoured however keys spread over shards; eviction takes the
 * oldest used-once page of all shards (in the order they were let go),
 * else the least recently used page of some shard, one lock at a time. The
 * evicting thread owns the victim (it is out of the hash table and
 * unpinned) and reuses its buffer when the sizes match: on this kind of VM
 * first touch of fresh memory is slower than decoding into it. */
#include "gguffs/cache.h"

#include "base/hash.h"
#include "bufpool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define NSHARDS 16
#define MAP_MIN BUFPOOL_MIN /* buffers this big come from the pool */
#define COLD_SHARE 32       /* used-once pages keep at most budget/32 */

enum { FILLING, READY, DROPPED };
enum { ON_NONE, ON_LRU, ON_COLD };

struct gg_page {
    uint64_t key;
    size_t bytes, cap;
    int pins;
    unsigned char state;
    unsigned char list;      /* ON_*: which list holds it (unpinned READY pages only) */
    unsigned char readahead; /* filled ahead of a reader and not read yet */
    unsigned char from_cold; /* was on the used-once list when pinned */
    unsigned char from_lru;  /* was an established LRU page when pinned */
    unsigned char shared;    /* a second stream came back for it */
    const void *stream;      /* the stream that last let it go as used once */
    uint64_t cold_seq;       /* when it went on the used-once list (c->cold_clock) */
    gg_page *hnext;
    gg_page *prev, *next;
    void *data;
};

typedef struct shard {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    gg_page **buckets;
    size_t nbuckets, count;
    gg_page lru;  /* sentinel: next = most recent, prev = least recent */
    gg_page cold; /* sentinel: next = newest, prev = oldest */
} shard;

struct gg_cache {
    shard shards[NSHARDS];
    uint64_t budget, cold_cap;
    _Atomic uint64_t resident, resident_pages, cold_pages, cold_bytes;
    _Atomic uint64_t hits, misses, evictions, fills_failed, ra_filled, ra_hits, waits;
    _Atomic unsigned evict_cursor;
    _Atomic uint64_t cold_clock; /* orders the used-once pages of all shards */
};

static uint64_t mix(uint64_t k) { return gg_hash_mix(k); }

static shard *shard_of(gg_cache *c, uint64_t key) { return &c->shards[mix(key) % NSHARDS]; }
static size_t bucket_of(const shard *s, uint64_t key) { return (mix(key) >> 8) & (s->nbuckets - 1); }

static size_t cap_of(size_t bytes)
{
    if (bytes >= MAP_MIN)
        return (bytes + MAP_MIN - 1) / MAP_MIN * MAP_MIN;
    return bytes ? (bytes + 63) / 64 * 64 : 64;
}

static void *buf_alloc(size_t cap)
{
    if (cap >= MAP_MIN)
        return gg_bufpool_get(cap);
    return aligned_alloc(64, cap);
}

static void buf_free(void *p, size_t cap)
{
    if (!p)
        return;
    if (cap >= MAP_MIN)
        gg_bufpool_put(p, cap);
    else
        free(p);
}

gg_cache *gg_cache_new(uint64_t budget)
{
    gg_cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->budget = budget;
    c->cold_cap = budget / COLD_SHARE;
    for (int i = 0; i < NSHARDS; i++) {
        shard *s = &c->shards[i];
        pthread_mutex_init(&s->lock, NULL);
        pthread_cond_init(&s->changed, NULL);
        s->nbuckets = 256;
        s->buckets = calloc(s->nbuckets, sizeof *s->buckets);
        s->lru.next = s->lru.prev = &s->lru;
        s->cold.next = s->cold.prev = &s->cold;
        if (!s->buckets) {
            gg_cache_free(c);
            return NULL;
        }
    }
    return c;
}

static void page_free(gg_page *p)
{
    buf_free(p->data, p->cap);
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

static void list_remove(gg_cache *c, gg_page *p)
{
    if (p->list == ON_NONE)
        return;
    if (p->list == ON_COLD) {
        atomic_fetch_sub_explicit(&c->cold_pages, 1, memory_order_relaxed);
        atomic_fetch_sub_explicit(&c->cold_bytes, p->cap, memory_order_relaxed);
    }
    p->prev->next = p->next;
    p->next->prev = p->prev;
    p->prev = p->next = NULL;
    p->list = ON_NONE;
}

static void list_push_front(gg_cache *c, gg_page *head, gg_page *p, int which)
{
    p->next = head->next;
    p->prev = head;
    head->next->prev = p;
    head->next = p;
    p->list = (unsigned char)which;
    if (which == ON_COLD) {
        p->cold_seq = atomic_fetch_add_explicit(&c->cold_clock, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&c->cold_pages, 1, memory_order_relaxed);
        atomic_fetch_add_explicit(&c->cold_bytes, p->cap, memory_order_relaxed);
    }
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
    if (*pp) {
        *pp = p->hnext;
        s->count--;
    }
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

/* The shard whose oldest used-once page is the oldest of all, or -1: the
 * used-once list is one queue across the shards, so that a page a stream
 * let go a moment ago (it may read the rest of it next) is not evicted
 * before the ones it went past long ago. */
static int oldest_cold_shard(gg_cache *c)
{
    int best = -1;
    uint64_t best_seq = UINT64_MAX;
    for (int i = 0; i < NSHARDS; i++) {
        shard *s = &c->shards[i];
        pthread_mutex_lock(&s->lock);
        if (s->cold.prev != &s->cold && s->cold.prev->cold_seq < best_seq) {
            best_seq = s->cold.prev->cold_seq;
            best = i;
        }
        pthread_mutex_unlock(&s->lock);
    }
    return best;
}

/* Detach the oldest page of one list of some shard: the oldest used-once
 * page of all first, then the LRU lists. Returns the page (unpinned, out of the hash
 * table: the caller frees or reuses it) or NULL if every page is pinned.
 * Takes one shard lock at a time; the caller holds none. */
static gg_page *evict_one(gg_cache *c)
{
    unsigned start = atomic_fetch_add_explicit(&c->evict_cursor, 1, memory_order_relaxed);
    int cold = atomic_load_explicit(&c->cold_pages, memory_order_relaxed) ? oldest_cold_shard(c) : -1;
    if (cold >= 0)
        start = (unsigned)cold; /* (another thread may take it first: then the next shard's) */
    for (int pass = atomic_load_explicit(&c->cold_pages, memory_order_relaxed) ? 0 : 1; pass < 2; pass++) {
        for (unsigned i = 0; i < NSHARDS; i++) {
            shard *s = &c->shards[(start + i) % NSHARDS];
            gg_page *head = pass == 0 ? &s->cold : &s->lru;
            pthread_mutex_lock(&s->lock);
            gg_page *p = head->prev;
            if (p != head) {
                list_remove(c, p);
                unlink_hash(s, p);
                p->state = DROPPED;
                pthread_mutex_unlock(&s->lock);
                atomic_fetch_sub(&c->resident, p->cap);
                atomic_fetch_sub(&c->resident_pages, 1);
                atomic_fetch_add_explicit(&c->evictions, 1, memory_order_relaxed);
                return p;
            }
            pthread_mutex_unlock(&s->lock);
        }
    }
    return NULL;
}

/* Where a page was when taken off its list (for gg_cache_release). */
static void note_list(gg_page *p)
{
    if (p->list == ON_COLD)
        p->from_cold = 1;
    else if (p->list == ON_LRU && !p->readahead)
        p->from_lru = 1;
}

/* A READY page was found by a reader (shard locked, page pinned by us). */
static void count_hit(gg_cache *c, gg_page *p, int flags)
{
    if (p->readahead && !(flags & GG_PIN_READAHEAD)) {
        p->readahead = 0;
        atomic_fetch_add_explicit(&c->ra_hits, 1, memory_order_relaxed);
    }
    atomic_fetch_add_explicit(&c->hits, 1, memory_order_relaxed);
}

gg_page *gg_cache_peek(gg_cache *c, uint64_t key)
{
    shard *s = shard_of(c, key);
    pthread_mutex_lock(&s->lock);
    gg_page *p = find(s, key);
    if (p && p->state == READY) {
        note_list(p);
        if (p->pins++ == 0)
            list_remove(c, p);
        count_hit(c, p, 0);
    } else {
        p = NULL;
    }
    pthread_mutex_unlock(&s->lock);
    return p;
}

gg_page *gg_cache_pin(gg_cache *c, uint64_t key, size_t bytes, int flags, int *status)
{
    shard *s = shard_of(c, key);
    *status = GG_PIN_READY;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        gg_page *p = find(s, key);
        if (!p)
            break;
        if (flags & GG_PIN_IFABSENT) {
            pthread_mutex_unlock(&s->lock);
            return NULL;
        }
        note_list(p);
        if (p->pins++ == 0)
            list_remove(c, p);
        if (p->state == FILLING) {
            if (flags & GG_PIN_NOWAIT) {
                *status = GG_PIN_BUSY;
                pthread_mutex_unlock(&s->lock);
                return p;
            }
            atomic_fetch_add_explicit(&c->waits, 1, memory_order_relaxed);
            while (p->state == FILLING)
                pthread_cond_wait(&s->changed, &s->lock);
        }
        if (p->state == READY) {
            count_hit(c, p, flags);
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
    p->cap = cap_of(bytes);
    p->pins = 1;
    p->state = FILLING;
    p->readahead = (flags & GG_PIN_READAHEAD) != 0;
    size_t k = bucket_of(s, key);
    p->hnext = s->buckets[k];
    s->buckets[k] = p;
    if (++s->count > s->nbuckets)
        grow_hash(s);
    pthread_mutex_unlock(&s->lock);
    atomic_fetch_add_explicit(&c->misses, 1, memory_order_relaxed);
    atomic_fetch_add(&c->resident_pages, 1);

    /* Make room, reusing an evicted buffer of the same size when we can.
     * Used-once pages beyond their share go too, budget or not: a stream
     * then cycles through a few warm buffers instead of touching new memory
     * (slower than decoding on a VM) until the whole budget is used. */
    uint64_t now = atomic_fetch_add(&c->resident, p->cap) + p->cap;
    int cold_over = atomic_load_explicit(&c->cold_bytes, memory_order_relaxed) > c->cold_cap;
    while (now > c->budget || cold_over) {
        gg_page *v = evict_one(c);
        if (!v)
            break; /* everything is pinned: overshoot until pins drop */
        if (!p->data && v->cap == p->cap) {
            p->data = v->data;
            v->data = NULL;
        }
        page_free(v);
        now = atomic_load(&c->resident);
        cold_over = 0; /* one used-once page per miss: its buffer is the one we reuse */
    }
    if (!p->data)
        p->data = buf_alloc(p->cap);
    if (!p->data) {
        gg_cache_filled(c, p, 0);
        gg_cache_unpin(c, p);
        return NULL;
    }
    *status = GG_PIN_FILL;
    return p;
}

int gg_cache_wait(gg_cache *c, gg_page *p)
{
    shard *s = shard_of(c, p->key);
    pthread_mutex_lock(&s->lock);
    if (p->state == FILLING)
        atomic_fetch_add_explicit(&c->waits, 1, memory_order_relaxed);
    while (p->state == FILLING)
        pthread_cond_wait(&s->changed, &s->lock);
    int ok = p->state == READY;
    if (ok)
        count_hit(c, p, 0);
    pthread_mutex_unlock(&s->lock);
    return ok ? 0 : -1;
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
        atomic_fetch_sub(&c->resident, p->cap);
        atomic_fetch_sub(&c->resident_pages, 1);
        atomic_fetch_add_explicit(&c->fills_failed, 1, memory_order_relaxed);
    }
    pthread_cond_broadcast(&s->changed);
    pthread_mutex_unlock(&s->lock);
}

void gg_cache_release(gg_cache *c, gg_page *p, const void *stream)
{
    shard *s = shard_of(c, p->key);
    pthread_mutex_lock(&s->lock);
    int last = --p->pins == 0;
    /* Decide under the lock: once on a list another thread may evict and
     * free the page. */
    int drop = last && p->state == DROPPED;
    if (last && p->state == READY) {
        /* Used once: a page this stream decoded or had read ahead. Not a
         * page filled ahead and not read yet, one the LRU already held, or
         * one that a second stream came back for. */
        if (stream && p->from_cold && p->stream != stream)
            p->shared = 1;
        int keep = p->from_lru || p->shared || p->readahead;
        p->from_cold = p->from_lru = 0;
        if (stream && !keep) {
            p->stream = stream;
            list_push_front(c, &s->cold, p, ON_COLD);
        } else {
            list_push_front(c, &s->lru, p, ON_LRU);
        }
    }
    pthread_mutex_unlock(&s->lock);
    if (drop)
        page_free(p);
    /* Pages pinned all at once may have pushed the cache over its budget:
     * once they are let go, shrink back. */
    while (last && atomic_load_explicit(&c->resident, memory_order_relaxed) > c->budget) {
        gg_page *v = evict_one(c);
        if (!v)
            break;
        page_free(v);
    }
}

void gg_cache_unpin(gg_cache *c, gg_page *p) { gg_cache_release(c, p, NULL); }

void gg_cache_drop_range(gg_cache *c, uint64_t lo, uint64_t hi)
{
    for (int i = 0; i < NSHARDS; i++) {
        shard *s = &c->shards[i];
        gg_page *freed = NULL;
        pthread_mutex_lock(&s->lock);
        for (size_t b = 0; b < s->nbuckets; b++) {
            for (gg_page *p = s->buckets[b], *n; p; p = n) {
                n = p->hnext;
                /* A page being filled is settled by its filler. */
                if (p->key < lo || p->key >= hi || p->state != READY)
                    continue;
                unlink_hash(s, p);
                list_remove(c, p);
                p->state = DROPPED;
                atomic_fetch_sub(&c->resident, p->cap);
                atomic_fetch_sub(&c->resident_pages, 1);
                if (p->pins == 0) { /* else the last release frees it */
                    p->hnext = freed;
                    freed = p;
                }
            }
        }
        pthread_mutex_unlock(&s->lock);
        while (freed) {
            gg_page *n = freed->hnext;
            page_free(freed);
            freed = n;
        }
    }
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
    st->waits = atomic_load(&c->waits);
}
