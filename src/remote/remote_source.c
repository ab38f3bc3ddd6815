/* remote_source.c - the one remote source (source.h): an object read by
 * byte ranges through any fetcher (fetch.h; http_fetch.c for http(s) URLs).
 *
 * Opening asks for the first block (one fetch of bytes 0 to 1 MiB): its
 * answer gives the size and the object's validator (ETag; else
 * Last-Modified; a scheme's own, such as the hub's X-Linked-Etag, and its
 * revision, X-Repo-Commit), and the first block, which holds most headers
 * whole.
 *
 * Reads go through blocks of 1 MiB (net.h's block size) in the net's block
 * cache (cache.h, shared by all remote sources), then the disk cache
 * (diskcache.h, if any), then the network. Consecutive missing blocks are
 * fetched with one range request. Every answer is checked against the
 * validator; once it differs the source is stale for good (GG_E_STALE).
 *
 * A range whose GET failed fails at once, without asking again, for a
 * moment (FAILED_KEEP_MS): the kernel repeats a failed read-ahead as a read
 * of its first page at once, and that must not wait for the server again.
 *
 * A sequential reader gets read-ahead: once a stream has read a block's
 * worth, the blocks of a window ahead of it are fetched by the net's
 * workers in parts (a GET each: half the window, 16 MiB at most), and the
 * reader takes each block as soon as its bytes are in, while the rest of
 * its GET comes (fetch.h's part_in): the round trip is paid once per part,
 * not once per block, so few big GETs keep up with the network (several
 * small ones in parallel cost more: 8 of 2 MiB took 1.5x one GET's time
 * through the bench's proxy). A GET that breaks, or whose 206 ends early,
 * is resumed after its bytes already in (net.h); a block is settled only
 * once all its bytes are in. The window starts at 16 MiB (8 MiB while blocks come
 * from the disk cache: no latency to hide) and doubles, up to 32 MiB,
 * only while the reader has to wait for its blocks (at most once per
 * window's worth read): each block of it is a buffer, and fresh memory is
 * slow to touch (on a virtual machine, slower than this loopback network).
 * Random reads fetch only their blocks, and so does the header parser
 * (reads from byte 0 in doubling ranges). */
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "remote_source.h"

#include "gguffs/diskcache.h"
#include "base/log.h"
#include "gguffs/net.h"
#include "gguffs/scope.h"
#include "base/ahead.h"
#include "base/sha256.h"
#include "gguffs/source.h"

#define WINDOW_MIN (16ull << 20)
#define WINDOW_DISK (8ull << 20) /* a stream's window while blocks come from the disk cache */
#define WINDOW_MAX (32ull << 20)
#define CHUNK_MAX (16ull << 20) /* bytes per read-ahead GET: a part */
#define STREAMS 4 /* sequential readers followed at once per source */
#define FAILED_KEEP_MS 1000 /* a range that failed fails at once for this long */
#define FAILED_RUNS 4       /* failed ranges remembered per source */

typedef struct stream {
    gg_ahead a;           /* in bytes (ahead.h) */
    uint64_t used;        /* for replacing the least recently used */
    int header;           /* from byte 0, each read where the last ended: the header parser */
    int starved;          /* a read since the last advance waited for a block of the window */
} stream;

typedef struct failed_run {
    uint64_t b0, b1;  /* blocks [b0, b1) */
    int64_t until;    /* gg_scope_now_ms() clock; 0: free */
    gg_err err;       /* why */
} failed_run;

typedef struct remote_source {
    gg_source s;
    gg_net *net;
    gg_fetcher *f;      /* where the bytes come from */
    gg_cache *cache;
    gg_diskcache *disk;
    char *okey;         /* the object for the disk cache: the fetcher's cache_key and the validator */
    uint32_t sid;       /* its number in the block cache's keys */
    uint64_t bsize;
    gg_validator v;     /* of the object; v.etag the strong ETag, or "" */
    char weak_etag[160];
    int offline;        /* opened from the disk cache: no network */
    int unvalidated;    /* no ETag, no Last-Modified: only the size is checked (-o unvalidated) */
    _Atomic int logged_stale;
    _Atomic int disk_fed;  /* the last blocks filled all came from the disk cache */
    _Atomic long long logged_io; /* when a failed read was last logged (s) */
    pthread_mutex_t lock; /* guards streams, use, failed */
    stream streams[STREAMS];
    uint64_t use;
    failed_run failed[FAILED_RUNS];
    /* The digest its name says (fetch.h's want_sha256), computed as its
     * blocks come, in order, and compared once the last one came. */
    pthread_mutex_t dg_lock; /* guards dg, dg_next */
    gg_sha256 dg;
    uint64_t dg_next;        /* the block it waits for (past the last: compared) */
    _Atomic int damaged;     /* it differs: every read fails */
} remote_source;

static uint64_t block_key(const remote_source *h, uint64_t b) { return (uint64_t)h->sid << 40 | b; }

static uint64_t block_len(const remote_source *h, uint64_t b)
{
    uint64_t lo = b * h->bsize;
    return h->s.size - lo < h->bsize ? h->s.size - lo : h->bsize;
}

/* Block b's bytes (data) are in: the digest goes on over them if b is the
 * block it waits for, then over the blocks after it that memory holds
 * already; after the last one it is compared with the name's. (A block
 * that came out of order and left memory before the ones ahead of it
 * came leaves the digest unfinished: it is checked when every block
 * passes once, in order.) */
static void digest_block(remote_source *h, uint64_t b, const void *data)
{
    if (!h->f->want_sha256[0])
        return;
    uint64_t last = (h->s.size + h->bsize - 1) / h->bsize;
    pthread_mutex_lock(&h->dg_lock);
    if (b == h->dg_next && b < last) {
        gg_sha256_update(&h->dg, data, block_len(h, b));
        h->dg_next++;
        for (gg_page *p; h->dg_next < last && (p = gg_cache_peek(h->cache, block_key(h, h->dg_next)));) {
            gg_sha256_update(&h->dg, gg_page_data(p), block_len(h, h->dg_next));
            gg_cache_unpin(h->cache, p);
            h->dg_next++;
        }
        char hex[65];
        if (h->dg_next == last) {
            h->dg_next++;
            gg_sha256_final_hex(&h->dg, hex);
            if (strcmp(hex, h->f->want_sha256)) {
                atomic_store(&h->damaged, 1);
                gg_log("%s: its bytes' sha256 is %s, not the %s it is named by: damaged, its reads fail with EIO",
                       h->s.name, hex, h->f->want_sha256);
            }
        }
    }
    pthread_mutex_unlock(&h->dg_lock);
}

static int damaged(remote_source *h, gg_err *e)
{
    return gg_fail(e, GG_E_IO, "%s: damaged: the sha256 of its bytes is not %s, the digest it is named by", h->s.name,
                   h->f->want_sha256);
}

static int stale(remote_source *h, gg_err *e, const char *why)
{
    atomic_store(&h->s.stale, 1);
    if (!atomic_exchange(&h->logged_stale, 1))
        gg_log("%s: changed on the server since it was mounted (%s): its reads fail with ESTALE", h->s.name, why);
    return gg_fail(e, GG_E_STALE, "%s: changed on the server since it was mounted (%s)", h->s.name, why);
}

static int remote_check(gg_source *s, gg_err *e)
{
    if (atomic_load_explicit(&s->stale, memory_order_relaxed))
        return gg_fail(e, GG_E_STALE, "%s: changed on the server since it was mounted", s->name);
    if (atomic_load_explicit(&((remote_source *)s)->damaged, memory_order_relaxed))
        return damaged((remote_source *)s, e);
    return 0;
}

/* Is the answer r from the object we opened? */
static int same_object(remote_source *h, const gg_range *r, gg_err *e)
{
    if (r->total != h->s.size) {
        char why[96];
        snprintf(why, sizeof why, "size %" PRIu64 " -> %" PRIu64, h->s.size, r->total);
        return stale(h, e, why);
    }
    if (h->f->content_addressed)
        return 0; /* (named by its digest: nothing else can differ) */
    const gg_validator *a = &h->v, *b = &r->v;
    if (a->etag[0] && b->etag[0] && strcmp(a->etag, b->etag))
        return stale(h, e, "new ETag");
    if (h->weak_etag[0] && b->etag[0] && strcmp(h->weak_etag, b->etag))
        return stale(h, e, "new ETag");
    if (!a->etag[0] && a->last_modified[0] && b->last_modified[0] && strcmp(a->last_modified, b->last_modified))
        return stale(h, e, "new Last-Modified");
    if (a->extra[0] && b->extra[0] && strcmp(a->extra, b->extra)) {
        char why[96];
        snprintf(why, sizeof why, "new %s", h->f->extra_name ? h->f->extra_name : "validator");
        return stale(h, e, why);
    }
    return 0;
}

/* A GET's blocks, each settled as soon as it is whole: a reader waiting
 * for one goes on while the rest of the GET comes. */
typedef struct run_fill {
    remote_source *h;
    uint64_t b0;       /* the GET's first block */
    gg_page **pg;      /* its pages from b0 (NULL: a block from the disk) */
    uint8_t *settled;  /* settled before the GET ended */
} run_fill;

static void put_block(remote_source *h, uint64_t b, gg_page *p)
{
    digest_block(h, b, gg_page_data(p));
    if (h->disk) {
        gg_diskcache_put(h->disk, h->okey, b, gg_page_data(p), block_len(h, b));
        gg_net_count(h->net, GG_NC_DISK_WRITES, 1);
    }
    gg_cache_filled(h->cache, p, 1);
}

static int block_in(void *arg, uint64_t k, const gg_range *r)
{
    run_fill *f = arg;
    if (same_object(f->h, r, NULL))
        return -1;
    if (f->pg[k]) {
        put_block(f->h, f->b0 + k, f->pg[k]);
        f->settled[k] = 1;
    }
    return 0;
}

/* Fetch bytes [off, off+len) into parts, checked; rf (or NULL): its blocks
 * settled as they come. */
static int fetch_checked(remote_source *h, uint64_t off, uint64_t len, uint8_t *const *parts, run_fill *rf,
                         gg_err *e)
{
    if (h->offline)
        return gg_fail(e, GG_E_IO, "%s: bytes %" PRIu64 "-%" PRIu64 " are not in the disk cache and the server "
                       "could not be reached when mounting", h->s.name, off, off + len - 1);
    gg_range r = {.off = off, .len = len, .parts = parts, .part_bytes = h->bsize,
                  .if_match = h->v.etag[0] ? h->v.etag : NULL, .part_in = rf ? block_in : NULL,
                  .part_arg = rf};
    gg_err fe;
    int rc = h->f->ops->fetch(h->f, &r, &fe);
    if (rc == 0 && (rc = same_object(h, &r, &fe)) == 0 && r.got != len)
        rc = gg_fail(&fe, GG_E_IO, "%s: bytes %" PRIu64 "-%" PRIu64 ": the answer was cut short (%" PRIu64 " bytes)",
                     h->s.name, off, off + len - 1, r.got);
    if (rc == 0)
        return 0;
    if (fe.code == GG_E_STALE)
        stale(h, NULL, fe.msg);
    /* An object gone from the server since it was mounted: its file is
     * still in the tree, so a read fails with EIO (ENOENT would say the
     * file is not there). */
    if (fe.code == GG_E_NOTFOUND)
        fe.code = GG_E_IO;
    /* The reader only sees EIO: say why in the log, at most once every 10 s
     * per model file (a reader retrying must not flood it). */
    long long now = (long long)time(NULL), last = atomic_load(&h->logged_io);
    if (fe.code != GG_E_STALE && now - last >= 10 && atomic_compare_exchange_strong(&h->logged_io, &last, now))
        gg_log("%s: reading bytes %" PRIu64 "-%" PRIu64 " failed: %s", h->s.name, off, off + len - 1, fe.msg);
    if (e)
        *e = fe;
    return -1;
}

/* The same within one deadline: the caller's (a FUSE
 * request's, scope.h), else -o timeout from now (read-ahead jobs, header
 * reads at mount): readers may wait for these blocks. */
static int fetch(remote_source *h, uint64_t off, uint64_t len, uint8_t *const *parts, run_fill *rf, gg_err *e)
{
    gg_scope own, *outer = gg_scope_get();
    if (!outer) {
        gg_scope_init(&own, (int64_t)gg_net_options(h->net)->timeout_s * 1000, NULL, NULL, NULL);
        gg_scope_set(&own);
    }
    int rc = fetch_checked(h, off, len, parts, rf, e);
    if (!outer)
        gg_scope_set(NULL);
    return rc;
}

/* Did a GET of blocks overlapping [b0, b1) fail a moment ago? Then fail
 * the same way now. */
static int known_failing(remote_source *h, uint64_t b0, uint64_t b1, gg_err *e)
{
    int64_t now = gg_scope_now_ms(), ago = -1;
    gg_err why;
    pthread_mutex_lock(&h->lock);
    for (int i = 0; i < FAILED_RUNS && ago < 0; i++) {
        const failed_run *f = &h->failed[i];
        if (f->until > now && f->b0 < b1 && b0 < f->b1) {
            ago = now - (f->until - FAILED_KEEP_MS);
            why = f->err;
        }
    }
    pthread_mutex_unlock(&h->lock);
    if (ago < 0)
        return 0;
    gg_net_count(h->net, GG_NC_KNOWN_FAILING, 1);
    gg_err_prefix(&why, "failed %lld ms ago, not asked again within %d ms", (long long)ago, FAILED_KEEP_MS);
    if (e)
        *e = why;
    return -1;
}

static void remember_failing(remote_source *h, uint64_t b0, uint64_t b1, const gg_err *why)
{
    pthread_mutex_lock(&h->lock);
    failed_run *f = &h->failed[0];
    for (int i = 1; i < FAILED_RUNS; i++)
        if (h->failed[i].until < f->until)
            f = &h->failed[i];
    *f = (failed_run){b0, b1, gg_scope_now_ms() + FAILED_KEEP_MS, *why};
    pthread_mutex_unlock(&h->lock);
}

/* Fill the claimed pages of blocks [b0, b1) (all FILL): disk first, then
 * one GET for what is left. Settles every page (filled or failed). */
static int fill_blocks(remote_source *h, uint64_t b0, uint64_t b1, gg_page **pg, gg_err *e)
{
    int rc = 0;
    uint64_t first_missing = b1, last_missing = b0;
    for (uint64_t b = b0; b < b1; b++) {
        int hit = -1;
        if (h->disk) {
            hit = gg_diskcache_get(h->disk, h->okey, b, gg_page_data(pg[b - b0]), block_len(h, b));
            gg_net_count(h->net, hit == 0 ? GG_NC_DISK_HITS : GG_NC_DISK_MISSES, 1);
            if (hit == 1)
                gg_net_count(h->net, GG_NC_DISK_CORRUPT, 1);
        }
        if (hit == 0) {
            digest_block(h, b, gg_page_data(pg[b - b0]));
            gg_cache_filled(h->cache, pg[b - b0], 1);
            pg[b - b0] = NULL;
        } else {
            if (b < first_missing)
                first_missing = b;
            last_missing = b;
        }
    }
    atomic_store_explicit(&h->disk_fed, first_missing == b1, memory_order_relaxed);
    if (first_missing < b1) {
        /* One GET for the run, straight into the blocks' pages (a block in
         * the middle that came from the disk gets a scratch buffer). */
        uint64_t lo = first_missing * h->bsize, hi = last_missing * h->bsize + block_len(h, last_missing);
        uint8_t *parts[64], *scratch = NULL, settled[64] = {0};
        run_fill rf = {h, first_missing, pg + (first_missing - b0), settled};
        for (uint64_t b = first_missing; b <= last_missing && rc == 0; b++) {
            if (pg[b - b0]) {
                parts[b - first_missing] = gg_page_data(pg[b - b0]);
            } else {
                if (!scratch && !(scratch = malloc(h->bsize)))
                    rc = gg_fail(e, GG_E_NOMEM, "out of memory for a block");
                parts[b - first_missing] = scratch;
            }
        }
        gg_err fe;
        if (rc == 0 && (rc = known_failing(h, first_missing, last_missing + 1, e)) == 0) {
            rc = fetch(h, lo, hi - lo, parts, &rf, &fe);
            /* (a read whose reader gave up, or a stale object, says nothing of the range) */
            if (rc && fe.code != GG_E_STALE && !h->offline && !gg_scope_stopped())
                remember_failing(h, first_missing, last_missing + 1, &fe);
            if (rc && e)
                *e = fe;
        }
        for (uint64_t b = first_missing; b <= last_missing; b++) {
            gg_page *p = pg[b - b0];
            if (!p || settled[b - first_missing])
                continue;
            if (rc == 0)
                put_block(h, b, p);
            else
                gg_cache_filled(h->cache, p, 0);
        }
        free(scratch);
    }
    return rc;
}

/* Read-ahead job: fetch blocks [b0, b1) that nobody has. */
static void prefetch_job(void *net, void *obj, uint64_t b0, uint64_t b1)
{
    remote_source *h = obj;
    if (atomic_load(&h->s.stale))
        return;
    gg_page *pg[64];
    if (b1 - b0 > 64)
        b1 = b0 + 64;
    /* Claim what is absent, in runs of consecutive blocks. */
    uint64_t b = b0;
    while (b < b1) {
        int st;
        gg_page *p = gg_cache_pin(h->cache, block_key(h, b), block_len(h, b), GG_PIN_READAHEAD | GG_PIN_IFABSENT, &st);
        if (!p) {
            b++;
            continue;
        }
        uint64_t r0 = b;
        pg[0] = p;
        for (b++; b < b1; b++) {
            p = gg_cache_pin(h->cache, block_key(h, b), block_len(h, b), GG_PIN_READAHEAD | GG_PIN_IFABSENT, &st);
            if (!p)
                break;
            pg[b - r0] = p;
        }
        gg_page *keep[64];
        memcpy(keep, pg, (b - r0) * sizeof *pg);
        fill_blocks(h, r0, b, pg, NULL); /* (within -o timeout: fetch) */
        gg_net_count(h->net, GG_NC_PREFETCHED, b - r0);
        for (uint64_t k = 0; k < b - r0; k++)
            gg_cache_unpin(h->cache, keep[k]);
    }
}

/* Follow sequential readers; ask for the blocks ahead of them. Returns the
 * stream this read continues (NULL: the header parser, or not yet a stream). */
static stream *read_ahead(remote_source *h, uint64_t off, uint64_t n)
{
    /* Within a block past where it ended, or anywhere from where it
     * started; read-ahead once it read a block's worth; the window grows to
     * hide the network's latency, but not while blocks come from the disk
     * cache: they need none, and a small window keeps a stream cycling
     * through a few warm buffers (fresh memory is slow to touch on a VM);
     * GETs of a chunk each (half the window, at most CHUNK_MAX), so they
     * stay big instead of one block each. */
    gg_ahead_params ap = {.unit = h->bsize, .slack = h->bsize, .from_start = 1, .earn_bytes = h->bsize,
                          .min = WINDOW_MIN, .max = WINDOW_MAX, .chunk_max = CHUNK_MAX, .chunk_div = 2};
    uint64_t first = 0, end = 0;
    pthread_mutex_lock(&h->lock);
    stream *s = NULL, *lru = &h->streams[0];
    for (int i = 0; i < STREAMS; i++) {
        stream *c = &h->streams[i];
        if (gg_ahead_continues(&c->a, &ap, off)) {
            s = c;
            break;
        }
        if (c->used < lru->used)
            lru = c;
    }
    if (s && s->header && (off != s->a.next || n <= h->bsize)) {
        /* The header is read: a reader of what follows it is another stream
         * (the parser's reads after the first are of 2 MiB and more; a
         * reader's are at most FUSE's max_read). */
        lru = s;
        s = NULL;
    }
    if (!s) {
        /* A new stream: no read-ahead until it reads on. */
        gg_ahead_start(&lru->a, &ap, off, n);
        lru->used = ++h->use;
        lru->header = off == 0;
        pthread_mutex_unlock(&h->lock);
        return NULL;
    }
    s->used = ++h->use;
    /* No read-ahead for the header parser: its reads double in size and
     * each asks for all it needs next, so read-ahead would only split them
     * into more requests. */
    if (s->header)
        ap.earn_bytes = UINT64_MAX;
    int disk_fed = atomic_load_explicit(&h->disk_fed, memory_order_relaxed);
    int grow = s->starved && !disk_fed;
    if (disk_fed && s->a.window > WINDOW_DISK)
        s->a.window = WINDOW_DISK; /* (no latency to hide: fewer buffers) */
    s->starved = 0;
    int earned = gg_ahead_advance(&s->a, &ap, off, n, h->s.size, grow, &first, &end);
    uint64_t chunk = gg_ahead_chunk(&s->a, &ap);
    pthread_mutex_unlock(&h->lock);
    if (!earned)
        return NULL;
    if (first >= end)
        return s;
    uint64_t cb = chunk / h->bsize ? chunk / h->bsize : 1;
    for (uint64_t b = first / h->bsize; b * h->bsize < end; b += cb) {
        uint64_t b1 = b + cb, last = (end - 1) / h->bsize + 1;
        gg_net_submit(h->net, prefetch_job, h, b, b1 < last ? b1 : last);
    }
    return s;
}

static int remote_read(gg_source *s, void *buf, size_t n, uint64_t off, gg_err *e)
{
    remote_source *h = (remote_source *)s;
    if (remote_check(s, e))
        return -1;
    if (n == 0)
        return 0;
    if (off > s->size || n > s->size - off)
        return gg_fail(e, GG_E_IO, "%s: read of [%" PRIu64 ", +%zu) past its %" PRIu64 " bytes", s->name, off, n,
                       s->size);
    uint64_t b0 = off / h->bsize, b1 = (off + n - 1) / h->bsize + 1;
    /* A stream lets go of its blocks as used once (cache.h): the cache then
     * reuses their buffers for the blocks ahead instead of touching fresh
     * memory, slow on a VM (a stream from a warm disk cache spent a third of
     * its time there). A block another reader comes back for stays. */
    stream *reader = read_ahead(h, off, n);
    int rc = 0, waited = 0;
    for (uint64_t b = b0; b < b1 && rc == 0;) {
        /* Pin a run: ready blocks are copied as they come; blocks to fill
         * are gathered so that consecutive ones share one GET. */
        gg_page *claimed[64];
        uint64_t c0 = 0, nclaimed = 0;
        for (; b < b1 && nclaimed < 64; b++) {
            int st;
            gg_page *p = gg_cache_pin(h->cache, block_key(h, b), block_len(h, b), GG_PIN_NOWAIT, &st);
            if (!p) {
                rc = gg_fail(e, GG_E_NOMEM, "out of memory for a block");
                break;
            }
            if (st == GG_PIN_BUSY && !nclaimed) {
                /* Its part is on its way: wait for it (a reader that waits
                 * makes its stream's window grow). A failed part: pin it
                 * again, to fetch it ourselves (or fail as it did). */
                waited = 1;
                if (gg_cache_wait(h->cache, p)) {
                    gg_cache_unpin(h->cache, p);
                    b--;
                    continue;
                }
                st = GG_PIN_READY;
            }
            if (st == GG_PIN_FILL) {
                waited = 1;
                if (!nclaimed)
                    c0 = b;
                claimed[nclaimed++] = p;
                continue;
            }
            if (nclaimed) {
                /* A block someone else has (or fills): end the run here. */
                gg_cache_unpin(h->cache, p);
                break;
            }
            gg_net_count(h->net, GG_NC_MEM_HITS, 1);
            uint64_t lo = b * h->bsize, a = off > lo ? off : lo;
            uint64_t z = off + n < lo + block_len(h, b) ? off + n : lo + block_len(h, b);
            memcpy((char *)buf + (a - off), (char *)gg_page_data(p) + (a - lo), z - a);
            gg_cache_release(h->cache, p, reader);
        }
        if (!nclaimed)
            continue;
        gg_net_count(h->net, GG_NC_MEM_MISSES, nclaimed);
        gg_page *keep[64];
        memcpy(keep, claimed, nclaimed * sizeof *claimed);
        rc = fill_blocks(h, c0, c0 + nclaimed, claimed, e);
        for (uint64_t k = 0; k < nclaimed; k++) {
            uint64_t bb = c0 + k, lo = bb * h->bsize, a = off > lo ? off : lo;
            uint64_t z = off + n < lo + block_len(h, bb) ? off + n : lo + block_len(h, bb);
            if (rc == 0)
                memcpy((char *)buf + (a - off), (char *)gg_page_data(keep[k]) + (a - lo), z - a);
            gg_cache_release(h->cache, keep[k], reader);
        }
    }
    if (waited && reader) {
        pthread_mutex_lock(&h->lock);
        reader->starved = 1;
        pthread_mutex_unlock(&h->lock);
    }
    if (rc == 0 && atomic_load(&h->damaged))
        rc = damaged(h, e); /* (its last block came with this read) */
    return rc;
}

static void remote_describe(gg_source *s, gg_buf *out)
{
    remote_source *h = (remote_source *)s;
    h->f->ops->describe(h->f, out);
    if (h->v.etag[0] || h->weak_etag[0]) {
        gg_buf_puts(out, ", \"etag\": ");
        const char *t = h->v.etag[0] ? h->v.etag : h->weak_etag;
        gg_json_string(out, t, strlen(t));
    }
    if (h->v.revision[0]) {
        gg_buf_puts(out, ", \"repo_commit\": ");
        gg_json_string(out, h->v.revision, strlen(h->v.revision));
    }
    if (h->unvalidated)
        gg_buf_puts(out, ", \"validated\": false, \"validation\": \"none: the server sends no ETag and no "
                         "Last-Modified (-o unvalidated); only the size is checked, so a new version of the "
                         "same size is not seen; not kept in the disk cache\"");
}

static void remote_close(gg_source *s)
{
    remote_source *h = (remote_source *)s;
    gg_net_cancel(h->net, h);
    gg_cache_drop_range(h->cache, block_key(h, 0), block_key(h, 0) + (1ull << 40));
    pthread_mutex_destroy(&h->lock);
    pthread_mutex_destroy(&h->dg_lock);
    if (h->f)
        h->f->ops->close(h->f);
    free(h->okey);
    free(s->name);
    free(s->id);
    free(h);
}

static const gg_source_ops remote_ops = {remote_read, remote_check, remote_describe, remote_close};

/* The object's validator, and its key for the caches. */
static int set_identity(remote_source *h, const gg_validator *v)
{
    h->v = *v;
    h->weak_etag[0] = 0;
    if (h->f->content_addressed) /* (its key names the bytes: no ETag to keep or send) */
        h->v.etag[0] = h->v.last_modified[0] = h->v.extra[0] = 0;
    if (!strncmp(h->v.etag, "W/", 2)) {
        snprintf(h->weak_etag, sizeof h->weak_etag, "%s", v->etag);
        h->v.etag[0] = 0;
    }
    free(h->okey);
    if (asprintf(&h->okey, "%s\n%s|%s|%s|%" PRIu64, h->f->cache_key, h->v.etag[0] ? h->v.etag : h->weak_etag,
                 h->v.last_modified, h->v.extra, h->s.size) < 0)
        h->okey = NULL;
    return h->okey ? 0 : -1;
}

/* Can a change of the object on the server be seen (or can it not change)? */
static int has_validator(const remote_source *h)
{
    return h->f->content_addressed || h->v.etag[0] || h->weak_etag[0] || h->v.last_modified[0] || h->v.extra[0];
}

/* The meta line kept in the disk cache for offline opens. */
static void save_meta(remote_source *h)
{
    if (!h->disk)
        return;
    char line[1024];
    snprintf(line, sizeof line, "%" PRIu64 "\t%s\t%s\t%s\t%s\t%s\t%lld", h->s.size, h->v.etag, h->weak_etag,
             h->v.last_modified, h->v.extra, h->v.revision, (long long)h->s.mtime.tv_sec);
    gg_diskcache_put_meta(h->disk, h->f->cache_key, line);
}

static int load_meta(remote_source *h)
{
    gg_buf m = {0};
    if (!h->disk || gg_diskcache_get_meta(h->disk, h->f->cache_key, &m)) {
        gg_buf_free(&m);
        return -1;
    }
    char *f[7] = {0};
    int k = 0;
    for (char *p = m.p, *t; k < 7 && (t = strsep(&p, "\t\n"));)
        f[k++] = t;
    int ok = k == 7;
    if (ok) {
        gg_validator v = {0};
        h->s.size = strtoull(f[0], NULL, 10);
        snprintf(v.etag, sizeof v.etag, "%s", f[1][0] ? f[1] : f[2]);
        snprintf(v.last_modified, sizeof v.last_modified, "%s", f[3]);
        snprintf(v.extra, sizeof v.extra, "%s", f[4]);
        snprintf(v.revision, sizeof v.revision, "%s", f[5]);
        h->s.mtime.tv_sec = (time_t)strtoll(f[6], NULL, 10);
        ok = set_identity(h, &v) == 0 && has_validator(h);
    }
    gg_buf_free(&m);
    return ok ? 0 : -1;
}

/* The first block into the caches. */
static void keep_first(remote_source *h, const uint8_t *first)
{
    digest_block(h, 0, first);
    int st;
    gg_page *p = gg_cache_pin(h->cache, block_key(h, 0), block_len(h, 0), 0, &st);
    if (p && st == GG_PIN_FILL) {
        memcpy(gg_page_data(p), first, block_len(h, 0));
        gg_cache_filled(h->cache, p, 1);
    }
    if (p)
        gg_cache_unpin(h->cache, p);
    if (h->disk) {
        gg_diskcache_put(h->disk, h->okey, 0, first, block_len(h, 0));
        gg_net_count(h->net, GG_NC_DISK_WRITES, 1);
    }
}

/* An object whose name says its size (an Ollama blob's manifest) and has
 * another is not the object named: 0, or -1 with *e set. */
static int wrong_size(const remote_source *h, gg_err *e)
{
    if (!h->f->want_sha256[0] || h->s.size == h->f->want_size)
        return 0;
    return gg_fail(e, GG_E_MALFORMED, "%s: %" PRIu64 " bytes, where its manifest's layer has %" PRIu64 ": not the blob "
                   "its digest names", h->s.name, h->s.size, h->f->want_size);
}

/* The first answer defines the object: its size, validator and first block. */
static int take_first(remote_source *h, const gg_range *r, const uint8_t *first, gg_err *e)
{
    h->s.size = r->total;
    struct tm tm = {0};
    if (r->v.last_modified[0] && strptime(r->v.last_modified, "%a, %d %b %Y %H:%M:%S GMT", &tm))
        h->s.mtime.tv_sec = timegm(&tm);
    if (set_identity(h, &r->v) != 0 || (r->got != block_len(h, 0) && h->s.size != 0))
        return gg_fail(e, GG_E_IO, "%s: the first answer was incomplete", h->s.name);
    if (wrong_size(h, e))
        return -1;
    if (!has_validator(h) && !gg_net_options(h->net)->unvalidated)
        return gg_fail(e, GG_E_UNSUPPORTED, "%s: the server sends no ETag and no Last-Modified: a new version "
                       "of the file on the server could not be told from the one mounted, and the bytes of "
                       "both would be mixed; -o unvalidated mounts it anyway (without the disk cache)",
                       h->s.name);
    if (!has_validator(h)) {
        h->unvalidated = 1;
        h->disk = NULL; /* (its blocks could not be told from another version's) */
    }
    save_meta(h);
    if (h->s.size)
        keep_first(h, first);
    return 0;
}

gg_source *gg_remote_open(gg_net *net, gg_fetcher *f, gg_err *e)
{
    if (!f)
        return NULL;
    remote_source *h = calloc(1, sizeof *h);
    if (!h || !(h->s.name = strdup(f->name)) || !(h->s.id = strdup(f->key))) {
        if (h)
            free(h->s.name);
        free(h);
        f->ops->close(f);
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    h->f = f;
    h->s.ops = &remote_ops;
    h->s.remote = 1;
    h->net = net;
    h->cache = gg_net_cache(net);
    h->disk = gg_net_diskcache(net);
    h->sid = gg_net_new_source_id(net) & 0xffffff;
    h->bsize = gg_net_options(net)->block_bytes;
    pthread_mutex_init(&h->lock, NULL);
    pthread_mutex_init(&h->dg_lock, NULL);
    gg_sha256_init(&h->dg);

    /* The first block: size, validator, and most headers whole. */
    uint8_t *first = malloc(h->bsize);
    gg_range r = {.off = 0, .len = h->bsize, .parts = &first, .part_bytes = h->bsize, .first = 1};
    gg_err ge;
    int rc = first ? f->ops->fetch(f, &r, &ge) : gg_fail(&ge, GG_E_NOMEM, "out of memory");
    if (rc == 0) {
        rc = take_first(h, &r, first, &ge);
    } else if ((ge.code == GG_E_IO || ge.code == GG_E_TIMEOUT) && load_meta(h) == 0) {
        /* Unreachable, but cached: serve what the disk cache holds. */
        gg_log("%s: %s; reading from the disk cache only", h->s.name, ge.msg);
        h->offline = 1;
        rc = wrong_size(h, &ge);
    }
    free(first);
    if (rc) {
        if (e)
            *e = ge;
        remote_close(&h->s);
        return NULL;
    }
    if (!h->s.mtime.tv_sec) /* (no Last-Modified: when it was mounted, not 1970) */
        clock_gettime(CLOCK_REALTIME, &h->s.mtime);
    return &h->s;
}
