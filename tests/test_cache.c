/* test_cache - unit tests of the page cache on its own (no model, no mount):
 * the pin -> fill/busy -> filled -> release cycle and its counters, the pin
 * flags and gg_cache_peek, the byte budget and LRU order, the used-once
 * list, failed fills (waiters woken, pages freed at their last release),
 * gg_cache_drop_range, then threads pinning random keys of a small key space
 * under a small budget, some fills failing on purpose, every page read
 * checked against its key's pattern, counters reconciled at the end.
 *
 * Every case runs under a watchdog: a deadlock ends the program (exit 3)
 * instead of hanging make check. Run it under ASan and LeakSanitizer too
 * (make sanitize): a dropped page freed early is a use after free there,
 * one never freed a leak. */
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gguffs/cache.h"
#include "base/hash.h"

#include "testlib.h"

#define PG 4096u        /* a small page (a malloc'ed buffer) */
#define BIG (64u << 10) /* a mapped page */
#define COLD_SHARE 32   /* used-once pages hold at most budget/32 (cache.h) */
#define WATCHDOG_S 10   /* seconds a case may take before we call it a deadlock */

/* ---- helpers ---- */

static const char *current_case = "";

static void on_alarm(int sig)
{
    (void)sig;
    static const char m1[] = "test_cache: watchdog: case '";
    static const char m2[] = "' still running after 10 s (deadlock?)\n";
    ssize_t r = write(2, m1, sizeof m1 - 1);
    r = write(2, current_case, strlen(current_case));
    r = write(2, m2, sizeof m2 - 1);
    (void)r;
    _exit(3);
}

static void begin(const char *name)
{
    current_case = name;
    alarm(WATCHDOG_S);
}

/* The bytes of key's page: words derived from the key, so a page holding
 * another key's data, stale data or nothing is seen. */
static uint64_t seed_of(uint64_t key) { return gg_hash_mix(key ^ 0x5bd1e9955bd1e995ull); }

static void pattern(void *data, size_t n, uint64_t key)
{
    unsigned char *b = data;
    uint64_t x = seed_of(key);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = x + i * 0x9e3779b97f4a7c15ull;
        memcpy(b + i, &w, 8);
    }
    for (; i < n; i++)
        b[i] = (unsigned char)(x >> (i & 7) * 8) ^ (unsigned char)i;
}

static int pattern_ok(const void *data, size_t n, uint64_t key)
{
    const unsigned char *b = data;
    uint64_t x = seed_of(key);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = x + i * 0x9e3779b97f4a7c15ull, got;
        memcpy(&got, b + i, 8);
        if (got != w)
            return 0;
    }
    for (; i < n; i++)
        if (b[i] != ((unsigned char)(x >> (i & 7) * 8) ^ (unsigned char)i))
            return 0;
    return 1;
}

static gg_cache_stats stats(gg_cache *c)
{
    gg_cache_stats s;
    gg_cache_get_stats(c, &s);
    return s;
}

/* Pin a missing key, write its pattern, publish it and let it go. */
static void add(gg_cache *c, uint64_t key, size_t bytes, int flags, const void *stream)
{
    int st = -1;
    gg_page *p = gg_cache_pin(c, key, bytes, flags, &st);
    EXPECT(p && st == GG_PIN_FILL, "[%s] key %" PRIu64 ": pin gives %p, status %d; want a page to fill",
           current_case, key, (void *)p, st);
    if (!p)
        return;
    if (st == GG_PIN_FILL) {
        pattern(gg_page_data(p), bytes, key);
        gg_cache_filled(c, p, 1);
    }
    gg_cache_release(c, p, stream);
}

/* Read a present key's page (a hit) and let it go as `stream`. */
static void reread(gg_cache *c, uint64_t key, const void *stream)
{
    int st = -1;
    gg_page *p = gg_cache_pin(c, key, PG, 0, &st);
    EXPECT(p && st == GG_PIN_READY, "[%s] key %" PRIu64 ": pin gives status %d, want READY", current_case,
           key, st);
    if (!p)
        return;
    if (st == GG_PIN_FILL) { /* keep the cache consistent after the failure */
        pattern(gg_page_data(p), gg_page_bytes(p), key);
        gg_cache_filled(c, p, 1);
    } else {
        EXPECT(pattern_ok(gg_page_data(p), gg_page_bytes(p), key), "[%s] key %" PRIu64 ": wrong data",
               current_case, key);
    }
    gg_cache_release(c, p, stream);
}

/* Is key's page there, with the right data? gg_cache_peek counts a hit and
 * makes the page the most recent, so cases look only at their end. */
static int present(gg_cache *c, uint64_t key)
{
    gg_page *p = gg_cache_peek(c, key);
    if (!p)
        return 0;
    EXPECT(pattern_ok(gg_page_data(p), gg_page_bytes(p), key), "[%s] key %" PRIu64 ": wrong data",
           current_case, key);
    gg_cache_unpin(c, p);
    return 1;
}

/* Keys of one shard, for the cases about eviction order. The cache picks a
 * key's shard from the low bits of gg_hash_mix(key) (16 shards today): keys
 * whose mix ends in eight zero bits share a shard for any power of two up to
 * 256. Used-once pages go in the order they were let go, across shards;
 * LRU pages in exact order within a shard, and across shards the least
 * recent of whichever shard the eviction cursor is at. */
#define NSK 400
static uint64_t shard_keys[NSK];

static void init_shard_keys(void)
{
    int n = 0;
    for (uint64_t k = 1; n < NSK; k++)
        if ((gg_hash_mix(k) & 0xff) == 0)
            shard_keys[n++] = k;
}
#define SK(i) shard_keys[i]

static void sleep_us(long us)
{
    struct timespec ts = {us / 1000000, us % 1000000 * 1000};
    nanosleep(&ts, NULL);
}

/* Wait until the cache has counted n waits: a thread is then blocked on a
 * page (it counts the wait and sleeps under one shard lock, which the
 * filler needs to publish the page). */
static void until_waits(gg_cache *c, uint64_t n)
{
    while (stats(c).waits < n)
        sleep_us(100);
}

/* ---- the cycle: pin, fill, filled, release, pin again ---- */

static void cycle(void)
{
    begin("cycle");
    gg_cache *c = gg_cache_new(64ull << 20);
    EXPECT(c != NULL, "gg_cache_new failed");
    gg_cache_stats s = stats(c);
    EXPECT(s.hits == 0 && s.misses == 0 && s.resident_bytes == 0 && s.resident_pages == 0 &&
               s.budget_bytes == 64ull << 20,
           "new cache: hits %" PRIu64 " misses %" PRIu64 " resident %" PRIu64 "/%" PRIu64 " budget %" PRIu64,
           s.hits, s.misses, s.resident_bytes, s.resident_pages, s.budget_bytes);

    /* Sizes on both sides of the mapped-buffer threshold, odd ones too, and
     * keys at the ends of the range. */
    static const size_t sizes[] = {1, 63, 64, 1000, PG, BIG - 1, BIG, BIG + 1, 300000};
    static const uint64_t keys[] = {0, 1, 2, 3, UINT64_MAX, UINT64_MAX - 1, 1ull << 63, 77, 12345};
    enum { N = sizeof sizes / sizeof *sizes };
    uint64_t sum = 0;
    for (int i = 0; i < N; i++) {
        int st = -1;
        gg_page *p = gg_cache_pin(c, keys[i], sizes[i], 0, &st);
        EXPECT(p && st == GG_PIN_FILL, "missing key %" PRIu64 ": status %d, want FILL", keys[i], st);
        if (!p)
            continue;
        EXPECT(gg_page_bytes(p) == sizes[i], "page bytes %zu, want %zu", gg_page_bytes(p), sizes[i]);
        pattern(gg_page_data(p), sizes[i], keys[i]); /* writable for all its bytes (ASan checks) */
        s = stats(c);
        sum += sizes[i];
        EXPECT(s.misses == (uint64_t)i + 1 && s.hits == 0, "after %d misses: misses %" PRIu64 " hits %" PRIu64,
               i + 1, s.misses, s.hits);
        EXPECT(s.resident_pages == (uint64_t)i + 1 && s.resident_bytes >= sum,
               "a page being filled counts as resident: %" PRIu64 " pages %" PRIu64 " bytes, want %d, >= %" PRIu64,
               s.resident_pages, s.resident_bytes, i + 1, sum);
        gg_cache_filled(c, p, 1);
        gg_cache_unpin(c, p);
    }
    /* Every page again: READY, same size, same bytes; a hit each. */
    for (int i = 0; i < N; i++) {
        int st = -1;
        gg_page *p = gg_cache_pin(c, keys[i], sizes[i], 0, &st);
        EXPECT(p && st == GG_PIN_READY, "filled key %" PRIu64 ": status %d, want READY", keys[i], st);
        if (!p)
            continue;
        EXPECT(gg_page_bytes(p) == sizes[i] && pattern_ok(gg_page_data(p), sizes[i], keys[i]),
               "key %" PRIu64 ": %zu bytes, want %zu with its pattern", keys[i], gg_page_bytes(p), sizes[i]);
        /* A second pin of a pinned page: the same page. */
        int st2 = -1;
        gg_page *q = gg_cache_pin(c, keys[i], sizes[i], 0, &st2);
        EXPECT(q == p && st2 == GG_PIN_READY, "second pin: %p status %d, want %p READY", (void *)q, st2, (void *)p);
        if (q)
            gg_cache_unpin(c, q);
        gg_cache_unpin(c, p);
    }
    s = stats(c);
    EXPECT(s.hits == 2 * N && s.misses == N, "hits %" PRIu64 " misses %" PRIu64 ", want %d and %d", s.hits,
           s.misses, 2 * N, N);
    EXPECT(s.resident_pages == N && s.evictions == 0 && s.fills_failed == 0 && s.waits == 0,
           "resident pages %" PRIu64 " evictions %" PRIu64 " failed %" PRIu64 " waits %" PRIu64, s.resident_pages,
           s.evictions, s.fills_failed, s.waits);
    gg_cache_free(c);
}

/* ---- BUSY, gg_cache_wait, peek and IFABSENT on a page being filled ---- */

static void busy_one_thread(void)
{
    begin("busy, one thread");
    gg_cache *c = gg_cache_new(1 << 20);
    int st = -1, st2 = -1;

    /* A fill that succeeds. */
    gg_page *p = gg_cache_pin(c, 10, PG, 0, &st);
    EXPECT(p && st == GG_PIN_FILL, "status %d, want FILL", st);
    gg_page *b = gg_cache_pin(c, 10, PG, GG_PIN_NOWAIT, &st2);
    EXPECT(b == p && st2 == GG_PIN_BUSY, "NOWAIT pin of a page being filled: %p status %d, want %p BUSY",
           (void *)b, st2, (void *)p);
    EXPECT(gg_cache_peek(c, 10) == NULL, "peek gives a page being filled");
    st2 = -1;
    EXPECT(gg_cache_pin(c, 10, PG, GG_PIN_IFABSENT, &st2) == NULL && st2 == GG_PIN_READY,
           "IFABSENT pin of a page being filled: status %d, want NULL and READY", st2);
    gg_cache_stats s = stats(c);
    EXPECT(s.hits == 0 && s.misses == 1, "hits %" PRIu64 " misses %" PRIu64 ", want 0 and 1", s.hits, s.misses);
    pattern(gg_page_data(p), PG, 10);
    gg_cache_filled(c, p, 1);
    EXPECT(gg_cache_wait(c, b) == 0, "wait on a filled page is not 0");
    EXPECT(pattern_ok(gg_page_data(b), PG, 10), "the waiter does not see the data");
    s = stats(c);
    EXPECT(s.hits == 1 && s.waits == 0, "a wait that found the page filled: hits %" PRIu64 " waits %" PRIu64
           ", want 1 and 0", s.hits, s.waits);
    gg_cache_unpin(c, b);
    gg_cache_unpin(c, p);

    /* A fill that fails while another pin holds the page: the holder's wait
     * fails, the page leaves at once (resident) and is freed at its last
     * release, whichever comes last (LeakSanitizer and ASan check both). */
    for (int order = 0; order < 2; order++) {
        uint64_t key = 20 + (uint64_t)order;
        gg_cache_stats s0 = stats(c);
        p = gg_cache_pin(c, key, PG, 0, &st);
        b = gg_cache_pin(c, key, PG, GG_PIN_NOWAIT, &st2);
        EXPECT(p && st == GG_PIN_FILL && b == p && st2 == GG_PIN_BUSY, "statuses %d %d, want FILL and BUSY", st,
               st2);
        memset(gg_page_data(p), 0xee, PG); /* half-written garbage nobody may read */
        gg_cache_filled(c, p, 0);
        s = stats(c);
        EXPECT(s.fills_failed == s0.fills_failed + 1, "fills_failed %" PRIu64 ", want %" PRIu64, s.fills_failed,
               s0.fills_failed + 1);
        EXPECT(s.resident_pages == s0.resident_pages && s.resident_bytes == s0.resident_bytes,
               "a failed page still counts: %" PRIu64 " pages %" PRIu64 " bytes, want %" PRIu64 " %" PRIu64,
               s.resident_pages, s.resident_bytes, s0.resident_pages, s0.resident_bytes);
        EXPECT(gg_cache_peek(c, key) == NULL, "peek finds a failed page");
        if (order == 0) {
            gg_cache_unpin(c, p);
            EXPECT(gg_cache_wait(c, b) == -1, "wait on a failed page is not -1");
            gg_cache_unpin(c, b);
        } else {
            EXPECT(gg_cache_wait(c, b) == -1, "wait on a failed page is not -1");
            gg_cache_unpin(c, b);
            gg_cache_unpin(c, p);
        }
        /* Pin again: a new page to fill. */
        p = gg_cache_pin(c, key, PG, 0, &st);
        EXPECT(p && st == GG_PIN_FILL, "pin after a failed fill: status %d, want FILL", st);
        pattern(gg_page_data(p), PG, key);
        gg_cache_filled(c, p, 1);
        gg_cache_unpin(c, p);
        EXPECT(present(c, key), "key %" PRIu64 " missing after its second fill", key);
    }
    s = stats(c);
    EXPECT(s.misses == 5 && s.fills_failed == 2 && s.resident_pages == 3 && s.resident_bytes == 3 * PG,
           "misses %" PRIu64 " failed %" PRIu64 " resident %" PRIu64 " pages %" PRIu64 " bytes", s.misses,
           s.fills_failed, s.resident_pages, s.resident_bytes);
    gg_cache_free(c);
}

typedef struct pinner {
    gg_cache *c;
    uint64_t key;
    int flags;
    int fill; /* fill the page if we get FILL */
    int status, wait_rc, data_ok;
    gg_page *p;
} pinner;

/* Pin (waiting unless NOWAIT); if BUSY, gg_cache_wait; if FILL and asked
 * to, fill. Keeps the pin. */
static void *pin_thread(void *arg)
{
    pinner *a = arg;
    a->status = -1;
    a->wait_rc = 99;
    a->p = gg_cache_pin(a->c, a->key, PG, a->flags, &a->status);
    if (a->p && a->status == GG_PIN_BUSY)
        a->wait_rc = gg_cache_wait(a->c, a->p);
    if (a->p && a->status == GG_PIN_FILL && a->fill) {
        pattern(gg_page_data(a->p), PG, a->key);
        gg_cache_filled(a->c, a->p, 1);
    }
    if (a->p && (a->status == GG_PIN_READY || a->wait_rc == 0))
        a->data_ok = pattern_ok(gg_page_data(a->p), PG, a->key);
    return NULL;
}

static void busy_threads(void)
{
    begin("busy, threads");
    gg_cache *c = gg_cache_new(1 << 20);
    int st = -1;
    pthread_t t;
    uint64_t waits = 0;

    /* A pin that waits gets the page READY once it is filled. */
    pinner a = {.c = c, .key = 1};
    gg_page *p = gg_cache_pin(c, 1, PG, 0, &st);
    EXPECT(p && st == GG_PIN_FILL, "status %d, want FILL", st);
    pthread_create(&t, NULL, pin_thread, &a);
    until_waits(c, ++waits);
    pattern(gg_page_data(p), PG, 1);
    gg_cache_filled(c, p, 1);
    pthread_join(t, NULL);
    EXPECT(a.p == p && a.status == GG_PIN_READY && a.data_ok, "waiting pin: %p status %d data ok %d, want READY",
           (void *)a.p, a.status, a.data_ok);
    if (a.p)
        gg_cache_unpin(c, a.p);
    gg_cache_unpin(c, p);
    gg_cache_stats s = stats(c);
    EXPECT(s.hits == 1 && s.misses == 1 && s.waits == 1, "hits %" PRIu64 " misses %" PRIu64 " waits %" PRIu64,
           s.hits, s.misses, s.waits);

    /* The fill fails under a waiting pin: the waiter retries and fills. */
    a = (pinner){.c = c, .key = 2};
    p = gg_cache_pin(c, 2, PG, 0, &st);
    pthread_create(&t, NULL, pin_thread, &a);
    until_waits(c, ++waits);
    gg_cache_filled(c, p, 0);
    pthread_join(t, NULL);
    gg_cache_unpin(c, p); /* the failed page goes now: the waiter has let go of it */
    EXPECT(a.p && a.p != p && a.status == GG_PIN_FILL,
           "waiter of a failed fill: status %d, want FILL of a new page", a.status);
    if (a.p) {
        pattern(gg_page_data(a.p), PG, 2);
        gg_cache_filled(c, a.p, 1);
        gg_cache_unpin(c, a.p);
    }
    EXPECT(present(c, 2), "key 2 missing after the waiter filled it");

    /* The fill fails under a BUSY holder waiting in gg_cache_wait; the
     * filler lets go first, the waiter frees it. */
    a = (pinner){.c = c, .key = 3, .flags = GG_PIN_NOWAIT};
    p = gg_cache_pin(c, 3, PG, 0, &st);
    pthread_create(&t, NULL, pin_thread, &a);
    until_waits(c, ++waits);
    gg_cache_filled(c, p, 0);
    gg_cache_unpin(c, p);
    pthread_join(t, NULL);
    EXPECT(a.p == p && a.status == GG_PIN_BUSY && a.wait_rc == -1,
           "BUSY holder of a failed fill: status %d wait %d, want BUSY and -1", a.status, a.wait_rc);
    if (a.p)
        gg_cache_unpin(c, a.p);
    p = gg_cache_pin(c, 3, PG, 0, &st);
    EXPECT(p && st == GG_PIN_FILL, "pin after a failed fill: status %d, want FILL", st);
    pattern(gg_page_data(p), PG, 3);
    gg_cache_filled(c, p, 1);
    gg_cache_unpin(c, p);

    /* Several waiters of one failed fill: one of them fills, the others get it. */
    enum { W = 4 };
    pinner w[W];
    pthread_t wt[W];
    p = gg_cache_pin(c, 4, PG, 0, &st);
    for (int i = 0; i < W; i++) {
        w[i] = (pinner){.c = c, .key = 4, .fill = 1};
        pthread_create(&wt[i], NULL, pin_thread, &w[i]);
    }
    waits += W;
    until_waits(c, waits);
    gg_cache_filled(c, p, 0);
    gg_cache_unpin(c, p);
    int fillers = 0;
    for (int i = 0; i < W; i++) {
        pthread_join(wt[i], NULL);
        fillers += w[i].status == GG_PIN_FILL;
    }
    EXPECT(fillers == 1, "%d of %d waiters of a failed fill got FILL, want 1", fillers, W);
    for (int i = 0; i < W; i++) {
        EXPECT(w[i].p && (w[i].status == GG_PIN_FILL || (w[i].status == GG_PIN_READY && w[i].data_ok)),
               "waiter %d: status %d data ok %d", i, w[i].status, w[i].data_ok);
        if (w[i].p)
            gg_cache_unpin(c, w[i].p);
    }
    s = stats(c);
    EXPECT(s.fills_failed == 3 && s.resident_pages == 4 && s.resident_bytes == 4 * PG,
           "failed %" PRIu64 " resident %" PRIu64 " pages %" PRIu64 " bytes, want 3, 4 pages", s.fills_failed,
           s.resident_pages, s.resident_bytes);
    gg_cache_free(c);
}

/* ---- IFABSENT, peek, READAHEAD ---- */

static void flags(void)
{
    begin("flags");
    gg_cache *c = gg_cache_new(1 << 20);
    int st = -1;

    /* IFABSENT: a miss is pinned to fill like any other... */
    gg_page *p = gg_cache_pin(c, 1, PG, GG_PIN_IFABSENT, &st);
    EXPECT(p && st == GG_PIN_FILL, "IFABSENT pin of a missing key: status %d, want FILL", st);
    if (p) {
        pattern(gg_page_data(p), PG, 1);
        gg_cache_filled(c, p, 1);
        gg_cache_unpin(c, p);
    }
    /* ...a present page is not pinned. */
    gg_cache_stats s0 = stats(c);
    st = -1;
    EXPECT(gg_cache_pin(c, 1, PG, GG_PIN_IFABSENT, &st) == NULL && st == GG_PIN_READY,
           "IFABSENT pin of a present page: status %d, want NULL and READY", st);
    gg_cache_stats s = stats(c);
    EXPECT(s.misses == s0.misses && s.resident_pages == s0.resident_pages, "IFABSENT of a present page counts a miss");

    /* peek: NULL for a missing key, nothing inserted or counted. */
    EXPECT(gg_cache_peek(c, 2) == NULL, "peek of a missing key gives a page");
    s = stats(c);
    EXPECT(s.misses == s0.misses && s.resident_pages == s0.resident_pages && s.hits == s0.hits,
           "peek of a missing key: misses %" PRIu64 " pages %" PRIu64 " hits %" PRIu64, s.misses,
           s.resident_pages, s.hits);
    p = gg_cache_pin(c, 2, PG, 0, &st);
    EXPECT(st == GG_PIN_FILL, "peek inserted key 2 (status %d)", st);
    pattern(gg_page_data(p), PG, 2);
    gg_cache_filled(c, p, 1);
    gg_cache_unpin(c, p);
    /* peek of a present page: a hit, pinned with its data. */
    s0 = stats(c);
    p = gg_cache_peek(c, 2);
    EXPECT(p && pattern_ok(gg_page_data(p), PG, 2), "peek of a present page");
    EXPECT(stats(c).hits == s0.hits + 1, "peek of a present page is not a hit");
    if (p)
        gg_cache_unpin(c, p);
    gg_cache_free(c);

    /* An IFABSENT miss of a present page leaves it unpinned: the budget can
     * evict it (a pinned page would stay and B go instead). */
    c = gg_cache_new(2 * PG);
    add(c, SK(0), PG, 0, NULL);
    add(c, SK(1), PG, 0, NULL);
    EXPECT(gg_cache_pin(c, SK(0), PG, GG_PIN_IFABSENT, &st) == NULL, "IFABSENT pin of a present page");
    add(c, SK(2), PG, 0, NULL);
    EXPECT(!present(c, SK(0)) && present(c, SK(1)) && present(c, SK(2)),
           "IFABSENT pinned the page it found (or eviction is not LRU)");
    gg_cache_free(c);

    /* READAHEAD: filled ahead counts readahead_filled; the first real reader
     * (a pin, a wait or a peek) counts a read-ahead hit, later ones and other
     * read-ahead pins do not; a failed read-ahead fill is not counted. */
    c = gg_cache_new(1 << 20);
    add(c, 1, PG, GG_PIN_READAHEAD, NULL);
    s = stats(c);
    EXPECT(s.readahead_filled == 1 && s.readahead_hits == 0, "read ahead: filled %" PRIu64 " hits %" PRIu64,
           s.readahead_filled, s.readahead_hits);
    p = gg_cache_pin(c, 1, PG, GG_PIN_READAHEAD, &st); /* read ahead again: a hit, not a read-ahead hit */
    EXPECT(p && st == GG_PIN_READY, "read-ahead pin of a present page: status %d", st);
    gg_cache_unpin(c, p);
    s = stats(c);
    EXPECT(s.readahead_hits == 0 && s.hits == 1, "second read ahead: ra hits %" PRIu64 " hits %" PRIu64,
           s.readahead_hits, s.hits);
    reread(c, 1, NULL);
    reread(c, 1, NULL);
    s = stats(c);
    EXPECT(s.readahead_hits == 1 && s.hits == 3, "two reads of a read-ahead page: ra hits %" PRIu64
           " hits %" PRIu64 ", want 1 and 3", s.readahead_hits, s.hits);
    add(c, 2, PG, GG_PIN_READAHEAD, NULL);
    EXPECT(present(c, 2) && stats(c).readahead_hits == 2, "peek of a read-ahead page is not a read-ahead hit");
    /* Waiting on a read-ahead fill: the waiter is its first reader. */
    gg_page *f = gg_cache_pin(c, 3, PG, GG_PIN_READAHEAD, &st);
    gg_page *b = gg_cache_pin(c, 3, PG, GG_PIN_NOWAIT, &st);
    EXPECT(st == GG_PIN_BUSY, "status %d, want BUSY", st);
    pattern(gg_page_data(f), PG, 3);
    gg_cache_filled(c, f, 1);
    EXPECT(gg_cache_wait(c, b) == 0, "wait");
    gg_cache_unpin(c, b);
    gg_cache_unpin(c, f);
    s = stats(c);
    EXPECT(s.readahead_filled == 3 && s.readahead_hits == 3, "after a wait: ra filled %" PRIu64 " hits %" PRIu64
           ", want 3 and 3", s.readahead_filled, s.readahead_hits);
    p = gg_cache_pin(c, 4, PG, GG_PIN_READAHEAD, &st);
    gg_cache_filled(c, p, 0);
    gg_cache_unpin(c, p);
    s = stats(c);
    EXPECT(s.readahead_filled == 3 && s.fills_failed == 1, "failed read ahead: ra filled %" PRIu64
           " failed %" PRIu64, s.readahead_filled, s.fills_failed);
    gg_cache_free(c);
}

/* ---- the byte budget ---- */

static void budget(void)
{
    begin("budget");
    /* Keys over every shard: released pages never exceed the budget; each
     * miss over it evicts exactly one page of the same size. */
    enum { B = 16, N = 200 };
    gg_cache *c = gg_cache_new(B * PG);
    for (int i = 0; i < N; i++) {
        add(c, 1000 + (uint64_t)i, PG, 0, NULL);
        gg_cache_stats s = stats(c);
        uint64_t want = i + 1 < B ? (uint64_t)i + 1 : B;
        EXPECT(s.resident_bytes <= B * PG && s.resident_pages == want && s.resident_bytes == want * PG,
               "after %d pages: resident %" PRIu64 " bytes %" PRIu64 " pages, want %" PRIu64 " pages", i + 1,
               s.resident_bytes, s.resident_pages, want);
    }
    gg_cache_stats s = stats(c);
    EXPECT(s.evictions == N - B && s.misses == N, "evictions %" PRIu64 " misses %" PRIu64 ", want %d %d",
           s.evictions, s.misses, N - B, N);
    int n = 0;
    for (int i = 0; i < N; i++)
        n += present(c, 1000 + (uint64_t)i);
    EXPECT(n == B, "%d pages present, want %d", n, B);
    gg_cache_free(c);

    /* Mapped pages: evicted buffers are reused, and hold the new key's data.
     * (Which pages stay depends on the shards: see the one-shard case.) */
    c = gg_cache_new(4 * BIG);
    for (int i = 0; i < 12; i++)
        add(c, 50 + (uint64_t)i, BIG, 0, NULL);
    s = stats(c);
    EXPECT(s.resident_bytes == 4 * BIG && s.evictions == 8, "mapped pages: resident %" PRIu64 " evictions %" PRIu64,
           s.resident_bytes, s.evictions);
    n = 0;
    for (int i = 0; i < 12; i++) {
        gg_page *p = gg_cache_peek(c, 50 + (uint64_t)i);
        if (!p)
            continue;
        n++;
        EXPECT(gg_page_bytes(p) == BIG && pattern_ok(gg_page_data(p), BIG, 50 + (uint64_t)i),
               "mapped page %d has wrong data", i);
        gg_cache_unpin(c, p);
    }
    EXPECT(n == 4, "%d mapped pages present, want 4", n);
    gg_cache_free(c);

    /* LRU order (one shard): a page used again goes last. */
    begin("LRU order");
    c = gg_cache_new(8 * PG);
    for (int i = 0; i < 8; i++)
        add(c, SK(i), PG, 0, NULL);
    reread(c, SK(0), NULL); /* touched by a pin */
    gg_page *p = gg_cache_peek(c, SK(2)); /* and by a peek */
    gg_cache_unpin(c, p);
    add(c, SK(8), PG, 0, NULL); /* evicts 1 */
    add(c, SK(9), PG, 0, NULL); /* evicts 3 */
    reread(c, SK(4), NULL);
    add(c, SK(10), PG, 0, NULL); /* evicts 5 */
    EXPECT(stats(c).evictions == 3, "evictions %" PRIu64 ", want 3", stats(c).evictions);
    static const int kept[] = {0, 2, 4, 6, 7, 8, 9, 10}, gone[] = {1, 3, 5};
    for (size_t i = 0; i < sizeof kept / sizeof *kept; i++)
        EXPECT(present(c, SK(kept[i])), "LRU: page %d evicted, it was used more recently", kept[i]);
    for (size_t i = 0; i < sizeof gone / sizeof *gone; i++)
        EXPECT(!present(c, SK(gone[i])), "LRU: page %d kept, it was the least recently used", gone[i]);
    gg_cache_free(c);

    /* Pinned pages are never evicted: the cache goes over its budget while
     * they are pinned, and back under as they are let go. */
    begin("overshoot");
    enum { P = 12, PB = 4 };
    c = gg_cache_new(PB * PG);
    gg_page *pins[P];
    for (int i = 0; i < P; i++) {
        int st;
        pins[i] = gg_cache_pin(c, 500 + (uint64_t)i, PG, 0, &st);
        EXPECT(pins[i] && st == GG_PIN_FILL, "pin %d over the budget: status %d", i, st);
        pattern(gg_page_data(pins[i]), PG, 500 + (uint64_t)i);
        gg_cache_filled(c, pins[i], 1);
    }
    s = stats(c);
    EXPECT(s.resident_bytes == P * PG && s.evictions == 0,
           "%d pinned pages: resident %" PRIu64 " evictions %" PRIu64, P, s.resident_bytes, s.evictions);
    for (int i = 0; i < P; i++) {
        EXPECT(pattern_ok(gg_page_data(pins[i]), PG, 500 + (uint64_t)i), "pinned page %d overwritten", i);
        gg_cache_unpin(c, pins[i]);
        s = stats(c);
        uint64_t want = P - i - 1 > PB ? (uint64_t)(P - i - 1) : PB;
        EXPECT(s.resident_pages == want, "%d let go: %" PRIu64 " pages, want %" PRIu64, i + 1, s.resident_pages,
               want);
    }
    s = stats(c);
    EXPECT(s.resident_bytes == PB * PG && s.evictions == P - PB, "after the pins: resident %" PRIu64
           " evictions %" PRIu64, s.resident_bytes, s.evictions);
    for (int i = 0; i < P; i++)
        EXPECT(present(c, 500 + (uint64_t)i) == (i >= P - PB), "page %d: the last %d let go should stay", i, PB);
    gg_cache_free(c);

    /* A bigger page evicts as many smaller ones as it needs, at once. */
    c = gg_cache_new(8 * PG);
    for (int i = 0; i < 8; i++)
        add(c, 600 + (uint64_t)i, PG, 0, NULL);
    int st;
    p = gg_cache_pin(c, 700, 4 * PG, 0, &st);
    s = stats(c);
    EXPECT(p && st == GG_PIN_FILL && s.resident_bytes == 8 * PG && s.evictions == 4,
           "a page of 4 over a full budget: resident %" PRIu64 " evictions %" PRIu64 ", want 8 pages and 4",
           s.resident_bytes, s.evictions);
    if (p) {
        pattern(gg_page_data(p), 4 * PG, 700);
        gg_cache_filled(c, p, 1);
        gg_cache_unpin(c, p);
    }
    gg_cache_free(c);

    /* A page bigger than the whole budget: filled, read, gone once let go. */
    c = gg_cache_new(2 * PG);
    add(c, 1, PG, 0, NULL);
    p = gg_cache_pin(c, 2, 4 * PG, 0, &st);
    EXPECT(p && st == GG_PIN_FILL, "page over the budget: status %d", st);
    pattern(gg_page_data(p), 4 * PG, 2);
    gg_cache_filled(c, p, 1);
    gg_cache_unpin(c, p);
    s = stats(c);
    EXPECT(s.resident_bytes <= 2 * PG && s.resident_pages == 0, "after a page over the budget: resident %" PRIu64
           " bytes %" PRIu64 " pages", s.resident_bytes, s.resident_pages);
    gg_cache_free(c);

    /* Many pages in one shard: its hash table grows, every page is found. */
    c = gg_cache_new(1ull << 30);
    for (int i = 0; i < NSK; i++)
        add(c, SK(i), 64, 0, NULL);
    n = 0;
    for (int i = 0; i < NSK; i++)
        n += present(c, SK(i));
    EXPECT(n == NSK && stats(c).resident_pages == NSK, "%d of %d pages of one shard found", n, NSK);
    gg_cache_free(c);
}

/* ---- the used-once list ---- */

static void used_once(void)
{
    begin("used once");
    enum { B = 128, CAP = B / COLD_SHARE }; /* pages: the budget and the used-once share */
    static const char stream_a, stream_b;
    const void *A = &stream_a, *Bs = &stream_b;

    /* A stream alone, far under the budget: a miss evicts a used-once page
     * when they hold more than budget/32, so they hold that much after each
     * miss and one page more after its release. */
    gg_cache *c = gg_cache_new(B * PG);
    for (int i = 0; i < 40; i++) {
        int st;
        gg_page *p = gg_cache_pin(c, 7000 + (uint64_t)i, PG, 0, &st);
        uint64_t want = i < CAP ? (uint64_t)i + 1 : CAP + 1;
        gg_cache_stats s = stats(c);
        EXPECT(s.resident_pages == want, "stream, miss %d: %" PRIu64 " pages, want %" PRIu64, i, s.resident_pages,
               want);
        pattern(gg_page_data(p), PG, 7000 + (uint64_t)i);
        gg_cache_filled(c, p, 1);
        gg_cache_release(c, p, A);
        s = stats(c);
        EXPECT(s.resident_pages == want, "stream, release %d: %" PRIu64 " pages, want %" PRIu64, i,
               s.resident_pages, want);
    }
    EXPECT(stats(c).evictions == 40 - CAP - 1, "stream: evictions %" PRIu64 ", want %d", stats(c).evictions,
           40 - CAP - 1);
    /* The used-once pages of all shards are one queue: the ones left are
     * the stream's newest (a block it let go a moment ago may be read on). */
    int newest = 0;
    for (int i = 40 - CAP - 1; i < 40; i++)
        newest += present(c, 7000 + (uint64_t)i);
    EXPECT(newest == CAP + 1, "stream: %d of its %d newest pages kept, across shards", newest, CAP + 1);
    gg_cache_free(c);

    /* Pages random readers use (released without a stream) outlive a stream
     * of many times their number. */
    c = gg_cache_new(B * PG);
    for (int i = 0; i < 20; i++)
        add(c, 100 + (uint64_t)i, PG, 0, NULL);
    for (int i = 0; i < 300; i++)
        add(c, 9000 + (uint64_t)i, PG, 0, A);
    int n = 0;
    for (int i = 0; i < 20; i++)
        n += present(c, 100 + (uint64_t)i);
    EXPECT(n == 20, "a stream evicted %d of 20 random readers' pages", 20 - n);
    EXPECT(stats(c).resident_pages == 20 + CAP + 1, "%" PRIu64 " pages, want %d", stats(c).resident_pages,
           20 + CAP + 1);
    gg_cache_free(c);

    /* Over the budget, used-once pages go first, oldest first (one shard),
     * before the least recently used page. */
    begin("used once before LRU");
    c = gg_cache_new(B * PG);
    for (int i = 0; i < B - CAP; i++)
        add(c, SK(i), PG, 0, NULL);
    for (int i = 0; i < CAP; i++)
        add(c, SK(200 + i), PG, 0, A);
    EXPECT(stats(c).resident_bytes == B * PG && stats(c).evictions == 0, "setup: %" PRIu64 " bytes",
           stats(c).resident_bytes);
    add(c, SK(300), PG, 0, NULL);
    add(c, SK(301), PG, 0, NULL);
    EXPECT(stats(c).evictions == 2, "evictions %" PRIu64 ", want 2", stats(c).evictions);
    n = 0;
    for (int i = 0; i < B - CAP; i++)
        n += present(c, SK(i));
    EXPECT(n == B - CAP, "%d LRU pages evicted while used-once pages were there", B - CAP - n);
    for (int i = 0; i < CAP; i++)
        EXPECT(present(c, SK(200 + i)) == (i >= 2), "used-once page %d: %s", i,
               i >= 2 ? "evicted before older ones" : "kept, it was the oldest");
    EXPECT(present(c, SK(300)) && present(c, SK(301)), "new pages missing");
    gg_cache_free(c);

    /* What goes to the LRU instead: a page a second stream came back for, a
     * page a random reader came back for, an LRU page a stream read, a page
     * read ahead and not read yet. A page its own stream reads again stays
     * used once. A stream going on then recycles only its own pages. */
    begin("used once, who comes back");
    c = gg_cache_new(B * PG);
    add(c, SK(0), PG, 0, A); /* second stream */
    reread(c, SK(0), Bs);
    add(c, SK(1), PG, 0, A); /* random reader */
    reread(c, SK(1), NULL);
    add(c, SK(2), PG, 0, NULL); /* LRU page read by a stream */
    reread(c, SK(2), A);
    add(c, SK(3), PG, GG_PIN_READAHEAD, A); /* read ahead, not read */
    add(c, SK(4), PG, 0, A);                /* same stream again: used once */
    reread(c, SK(4), A);
    add(c, SK(5), PG, GG_PIN_READAHEAD, A); /* read ahead, then read by the stream: used once */
    reread(c, SK(5), A);
    for (int i = 0; i < 50; i++)
        add(c, SK(100 + i), PG, 0, A);
    static const char *what[] = {"a page a second stream read", "a page a random reader read",
                                 "an LRU page a stream read", "a page read ahead, not read yet",
                                 "a page its own stream read twice", "a page read ahead, then by the stream"};
    for (int i = 0; i < 6; i++)
        EXPECT(present(c, SK(i)) == (i < 4), "%s: %s", what[i], i < 4 ? "evicted by a stream" : "kept as LRU");
    gg_cache_free(c);
}

/* ---- gg_cache_drop_range ---- */

static void drop_range(void)
{
    begin("drop range");
    gg_cache *c = gg_cache_new(1 << 20);
    for (uint64_t k = 10; k < 30; k++)
        add(c, k, PG, 0, NULL);
    gg_cache_drop_range(c, 15, 20);
    gg_cache_stats s = stats(c);
    EXPECT(s.resident_pages == 15 && s.resident_bytes == 15 * PG, "after dropping 5 of 20: %" PRIu64 " pages",
           s.resident_pages);
    for (uint64_t k = 10; k < 30; k++)
        EXPECT(present(c, k) == (k < 15 || k >= 20), "key %" PRIu64 " %s", k,
               k < 15 || k >= 20 ? "dropped outside the range" : "kept inside the range");

    /* A pinned page: out of the cache at once, its memory freed at the last
     * release (LeakSanitizer), readable until then (ASan). */
    int st;
    gg_page *p = gg_cache_pin(c, 12, PG, 0, &st);
    gg_page *q = gg_cache_pin(c, 12, PG, 0, &st);
    EXPECT(p && p == q && st == GG_PIN_READY, "pin of key 12");
    gg_cache_drop_range(c, 12, 13);
    s = stats(c);
    EXPECT(s.resident_pages == 14 && s.resident_bytes == 14 * PG, "pinned page dropped: %" PRIu64 " pages",
           s.resident_pages);
    EXPECT(gg_cache_peek(c, 12) == NULL, "peek finds a dropped page");
    gg_page *r = gg_cache_pin(c, 12, PG, 0, &st);
    EXPECT(r && r != p && st == GG_PIN_FILL, "pin of a dropped key: status %d, want a new page to fill", st);
    pattern(gg_page_data(r), PG, 1012); /* other bytes: they must not land in the old page */
    gg_cache_filled(c, r, 1);
    gg_cache_unpin(c, r);
    EXPECT(pattern_ok(gg_page_data(p), PG, 12), "a dropped page changed under its pin");
    gg_cache_unpin(c, p);
    EXPECT(pattern_ok(gg_page_data(q), PG, 12), "a dropped page changed under its pin");
    gg_cache_unpin(c, q);
    s = stats(c);
    EXPECT(s.resident_pages == 15, "%" PRIu64 " pages, want 15", s.resident_pages);

    /* A page being filled is left to its filler. */
    p = gg_cache_pin(c, 40, PG, 0, &st);
    gg_cache_drop_range(c, 0, UINT64_MAX);
    s = stats(c);
    EXPECT(s.resident_pages == 1 && s.resident_bytes == PG, "after dropping all but a page being filled: %" PRIu64
           " pages", s.resident_pages);
    pattern(gg_page_data(p), PG, 40);
    gg_cache_filled(c, p, 1);
    gg_cache_unpin(c, p);
    EXPECT(present(c, 40), "a page being filled was dropped");
    gg_cache_free(c);

    /* Dropped used-once pages leave the used-once share: pages filled next
     * do not evict each other under the budget. */
    static const char stream;
    c = gg_cache_new(128 * PG);
    for (uint64_t k = 0; k < 10; k++)
        add(c, k, PG, 0, &stream);
    gg_cache_drop_range(c, 0, 10);
    uint64_t ev = stats(c).evictions;
    for (uint64_t k = 100; k < 110; k++)
        add(c, k, PG, 0, NULL);
    s = stats(c);
    EXPECT(s.evictions == ev && s.resident_pages == 10, "after dropping used-once pages: %" PRIu64
           " evictions under the budget, %" PRIu64 " pages", s.evictions - ev, s.resident_pages);
    gg_cache_free(c);
}

/* ---- threads ---- */

enum { THREADS = 8, NKEYS = 96, KEY0 = 1u << 20 };

static size_t size_of_key(uint64_t k)
{
    return k % 16 == 15 ? BIG : (size_t)(k % 4 + 1) * 1024; /* multiples of 64: bytes counted as they are */
}

typedef struct worker {
    gg_cache *c;
    uint64_t rng;
    int drops, ops;
    const void *shared_stream;
    char stream; /* its own stream: its address */
    /* what it saw, to reconcile with the counters */
    uint64_t fills, failed, ra_filled, ready, waited_ok, waited_bad, peek_hits, absent_null;
    uint64_t max_resident;
    int errors;
    char first_error[200];
} worker;

static uint64_t rnd(worker *w)
{
    w->rng ^= w->rng << 13;
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    return w->rng;
}

#define WFAIL(w, ...)                                                                                              \
    do {                                                                                                           \
        if ((w)->errors++ == 0)                                                                                    \
            snprintf((w)->first_error, sizeof (w)->first_error, __VA_ARGS__);                                      \
    } while (0)

static void check_page(worker *w, gg_page *p, uint64_t key)
{
    if (gg_page_bytes(p) != size_of_key(key))
        WFAIL(w, "key %" PRIu64 ": %zu bytes, want %zu", key, gg_page_bytes(p), size_of_key(key));
    else if (!pattern_ok(gg_page_data(p), gg_page_bytes(p), key))
        WFAIL(w, "key %" PRIu64 ": a READY page with wrong data", key);
}

/* Fill a page we got FILL for; one fill in 8 fails after writing garbage. */
static int fill(worker *w, gg_page *p, uint64_t key, int flags)
{
    w->fills++;
    size_t n = gg_page_bytes(p);
    if (n != size_of_key(key))
        WFAIL(w, "key %" PRIu64 ": FILL page of %zu bytes, want %zu", key, n, size_of_key(key));
    int fail = rnd(w) % 8 == 0;
    if (fail)
        memset(gg_page_data(p), 0xa5, n);
    else
        pattern(gg_page_data(p), n, key);
    if (rnd(w) % 4 == 0)
        sched_yield(); /* stay FILLING a little longer: more BUSY pages and waits */
    gg_cache_filled(w->c, p, !fail);
    if (fail)
        w->failed++;
    else if (flags & GG_PIN_READAHEAD)
        w->ra_filled++;
    return !fail;
}

static const void *pick_stream(worker *w)
{
    switch (rnd(w) % 4) {
    case 0:
        return &w->stream;
    case 1:
        return w->shared_stream;
    default:
        return NULL;
    }
}

static uint64_t pick_key(worker *w)
{
    /* a quarter of the reads on 8 hot keys: more pages filled under readers */
    return KEY0 + (rnd(w) % 4 == 0 ? rnd(w) % 8 : rnd(w) % NKEYS);
}

static void note_resident(worker *w)
{
    uint64_t r = stats(w->c).resident_bytes;
    if (r > w->max_resident)
        w->max_resident = r;
}

/* One page, pinned waiting (or NOWAIT then gg_cache_wait), or peeked;
 * a failed wait is retried with a waiting pin. */
static void one(worker *w)
{
    uint64_t key = pick_key(w);
    unsigned r = (unsigned)(rnd(w) % 16);
    if (r == 0) {
        gg_page *p = gg_cache_peek(w->c, key);
        if (p) {
            w->peek_hits++;
            check_page(w, p, key);
            gg_cache_release(w->c, p, pick_stream(w));
        }
        return;
    }
    int flags = r == 1 ? GG_PIN_IFABSENT : r == 2 ? GG_PIN_READAHEAD : r < 8 ? GG_PIN_NOWAIT : 0;
    for (;;) {
        int st = -1;
        gg_page *p = gg_cache_pin(w->c, key, size_of_key(key), flags, &st);
        if (!p) {
            if ((flags & GG_PIN_IFABSENT) && st == GG_PIN_READY)
                w->absent_null++;
            else
                WFAIL(w, "key %" PRIu64 ": pin gives NULL (status %d)", key, st);
            return;
        }
        if (st == GG_PIN_FILL) {
            fill(w, p, key, flags);
            note_resident(w);
        } else if (st == GG_PIN_BUSY) {
            if (!(flags & GG_PIN_NOWAIT))
                WFAIL(w, "key %" PRIu64 ": BUSY without NOWAIT", key);
            if (gg_cache_wait(w->c, p) != 0) {
                w->waited_bad++;
                gg_cache_unpin(w->c, p);
                flags = 0; /* retry, waiting */
                continue;
            }
            w->waited_ok++;
            check_page(w, p, key);
        } else if (st == GG_PIN_READY) {
            w->ready++;
            check_page(w, p, key);
        } else {
            WFAIL(w, "key %" PRIu64 ": status %d", key, st);
        }
        gg_cache_release(w->c, p, pick_stream(w));
        return;
    }
}

/* A read of a few consecutive pages as view.c does it: pin all NOWAIT, fill
 * ours, then wait for the others' (never waiting while holding a page we
 * have not filled), check them all while all are pinned, let go. */
static void batch(worker *w)
{
    enum { MAXB = 3 };
    uint64_t k0 = pick_key(w);
    int n = 1 + (int)(rnd(w) % MAXB);
    int flags = GG_PIN_NOWAIT | (rnd(w) % 8 == 0 ? GG_PIN_READAHEAD : 0);
    gg_page *pg[MAXB];
    int st[MAXB], good[MAXB];
    uint64_t key[MAXB];
    for (int i = 0; i < n; i++) {
        key[i] = KEY0 + (k0 - KEY0 + (uint64_t)i) % NKEYS;
        pg[i] = gg_cache_pin(w->c, key[i], size_of_key(key[i]), flags, &st[i]);
        good[i] = 0;
        if (!pg[i])
            WFAIL(w, "key %" PRIu64 ": pin gives NULL (status %d)", key[i], st[i]);
        else if (st[i] == GG_PIN_FILL)
            good[i] = fill(w, pg[i], key[i], flags);
        else if (st[i] == GG_PIN_READY)
            w->ready++, good[i] = 1;
    }
    note_resident(w);
    for (int i = 0; i < n; i++) {
        while (pg[i] && st[i] == GG_PIN_BUSY) {
            if (gg_cache_wait(w->c, pg[i]) == 0) {
                w->waited_ok++;
                good[i] = 1;
                break;
            }
            w->waited_bad++;
            gg_cache_unpin(w->c, pg[i]);
            pg[i] = gg_cache_pin(w->c, key[i], size_of_key(key[i]), GG_PIN_NOWAIT, &st[i]);
            if (!pg[i])
                WFAIL(w, "key %" PRIu64 ": pin gives NULL (status %d)", key[i], st[i]);
            else if (st[i] == GG_PIN_FILL)
                good[i] = fill(w, pg[i], key[i], 0);
            else if (st[i] == GG_PIN_READY)
                w->ready++, good[i] = 1;
        }
    }
    for (int i = 0; i < n; i++)
        if (pg[i] && good[i])
            check_page(w, pg[i], key[i]);
    const void *stream = pick_stream(w);
    for (int i = 0; i < n; i++)
        if (pg[i])
            gg_cache_release(w->c, pg[i], stream);
}

static void *work(void *arg)
{
    worker *w = arg;
    for (int i = 0; i < w->ops; i++) {
        if (rnd(w) % 2)
            one(w);
        else
            batch(w);
        if (w->drops && rnd(w) % 64 == 0) {
            uint64_t k = pick_key(w);
            gg_cache_drop_range(w->c, k, k + 1 + rnd(w) % 4);
        }
        if (i % 64 == 0)
            note_resident(w);
    }
    return NULL;
}

static void threads(int drops, int ops)
{
    begin(drops ? "threads, with drop_range" : "threads");
    const uint64_t budget = 3 * BIG;
    static const char shared_stream;
    gg_cache *c = gg_cache_new(budget);
    worker w[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        w[i] = (worker){.c = c, .rng = 0x9e3779b97f4a7c15ull * (uint64_t)(i + 1 + 100 * drops), .drops = drops,
                        .ops = ops, .shared_stream = &shared_stream};
        if (pthread_create(&t[i], NULL, work, &w[i])) {
            perror("pthread_create");
            exit(1);
        }
    }
    worker sum = {0};
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        if (w[i].errors)
            EXPECT(0, "[%s] thread %d: %d errors, the first: %s", current_case, i, w[i].errors, w[i].first_error);
        sum.fills += w[i].fills;
        sum.failed += w[i].failed;
        sum.ra_filled += w[i].ra_filled;
        sum.ready += w[i].ready;
        sum.waited_ok += w[i].waited_ok;
        sum.waited_bad += w[i].waited_bad;
        sum.peek_hits += w[i].peek_hits;
        sum.absent_null += w[i].absent_null;
        if (w[i].max_resident > sum.max_resident)
            sum.max_resident = w[i].max_resident;
    }
    gg_cache_stats s = stats(c);
    const char *cs = current_case;
    /* Every miss, hit and fill as the threads saw them. */
    EXPECT(s.misses == sum.fills, "[%s] misses %" PRIu64 ", the threads filled %" PRIu64, cs, s.misses, sum.fills);
    EXPECT(s.fills_failed == sum.failed, "[%s] fills_failed %" PRIu64 ", the threads failed %" PRIu64, cs,
           s.fills_failed, sum.failed);
    EXPECT(s.hits == sum.ready + sum.waited_ok + sum.peek_hits,
           "[%s] hits %" PRIu64 ", the threads got %" PRIu64 " READY pins, %" PRIu64 " waits, %" PRIu64 " peeks", cs,
           s.hits, sum.ready, sum.waited_ok, sum.peek_hits);
    EXPECT(s.readahead_filled == sum.ra_filled, "[%s] readahead_filled %" PRIu64 ", want %" PRIu64, cs,
           s.readahead_filled, sum.ra_filled);
    /* The budget: over it only by what was pinned or being filled. */
    EXPECT(s.resident_bytes <= budget, "[%s] %" PRIu64 " bytes resident with nothing pinned, budget %" PRIu64, cs,
           s.resident_bytes, budget);
    uint64_t bound = budget + (uint64_t)THREADS * 5 * BIG;
    EXPECT(sum.max_resident <= bound, "[%s] %" PRIu64 " bytes resident at a time, more than %" PRIu64, cs,
           sum.max_resident, bound);
    /* Pages in: every miss that did not fail, less the evicted ones. */
    if (!drops)
        EXPECT(s.resident_pages == s.misses - s.fills_failed - s.evictions,
               "[%s] %" PRIu64 " pages resident, %" PRIu64 " misses - %" PRIu64 " failed - %" PRIu64 " evicted", cs,
               s.resident_pages, s.misses, s.fills_failed, s.evictions);
    /* What is left: the pages counted, with their keys' data. */
    uint64_t pages = 0, bytes = 0;
    for (uint64_t k = KEY0; k < KEY0 + NKEYS; k++) {
        gg_page *p = gg_cache_peek(c, k);
        if (!p)
            continue;
        pages++;
        bytes += gg_page_bytes(p);
        EXPECT(gg_page_bytes(p) == size_of_key(k) && pattern_ok(gg_page_data(p), gg_page_bytes(p), k),
               "[%s] key %" PRIu64 " left with wrong data", cs, k);
        gg_cache_unpin(c, p);
    }
    EXPECT(pages == s.resident_pages && bytes == s.resident_bytes,
           "[%s] %" PRIu64 " pages of %" PRIu64 " bytes left, counted %" PRIu64 " of %" PRIu64, cs, pages, bytes,
           s.resident_pages, s.resident_bytes);
    gg_cache_drop_range(c, 0, UINT64_MAX);
    gg_cache_stats e = stats(c);
    EXPECT(e.resident_pages == 0 && e.resident_bytes == 0, "[%s] after dropping all: %" PRIu64 " pages %" PRIu64
           " bytes", cs, e.resident_pages, e.resident_bytes);
    printf("%s: %d threads x %d reads: %" PRIu64 " misses, %" PRIu64 " hits, %" PRIu64 " failed fills, %" PRIu64
           " waits (%" PRIu64 " on failed fills), %" PRIu64 " evictions\n",
           cs, THREADS, ops, s.misses, s.hits, s.fills_failed, s.waits, sum.waited_bad, s.evictions);
    gg_cache_free(c);
}

int main(int argc, char **argv)
{
    int ops = argc > 1 ? atoi(argv[1]) : 1000;
    signal(SIGALRM, on_alarm);
    init_shard_keys();
    cycle();
    busy_one_thread();
    busy_threads();
    flags();
    budget();
    used_once();
    drop_range();
    threads(0, ops);
    threads(1, ops);
    alarm(0);
    if (fails) {
        fprintf(stderr, "test_cache: %d failures\n", fails);
        return 1;
    }
    printf("test_cache: all passed\n");
    return 0;
}
