/* view.c - raw and decoded reads of tensors (see view.h).
 *
 * An f32 read of bytes [off, off+size):
 *  1. F32 tensors: pread into the caller's buffer, nothing to decode.
 *  2. Read-ahead bookkeeping (per open file): a read that continues the
 *     previous one queues the next pages for the workers, before this read
 *     does any work of its own, so they decode while it does.
 *  3. Small reads (< page/4) of a non-sequential reader: served from the
 *     cache if their page is there, else only their blocks are decoded.
 *  4. Otherwise every page the range touches is pinned without waiting:
 *     pages present are used, missing ones are claimed and decoded by this
 *     thread (several at once with OpenMP), and only then does it wait for
 *     pages other threads were decoding.
 * The caller either gets the bytes copied (gg_read_f32) or pointers into the
 * pinned pages (gg_read_f32_ref), which the FUSE layer sends as they are. */
#include "gguffs/view.h"

#include <errno.h>
#include <inttypes.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gguffs/log.h"

#define QUEUE_LEN 1024
/* Source bytes decoded per pread: bounds the per-thread scratch buffer and
 * keeps the source in L2 while it is decoded. */
#define CHUNK_SRC (64u << 10)

typedef struct ra_job {
    const gg_model *m;
    const gg_tensor *t;
    uint32_t uid;
    uint64_t page;
} ra_job;

struct gg_reader {
    gg_reader_opts o;
    int nthreads;
    gg_cache *cache;
    _Atomic uint64_t bytes_decoded, small_reads, page_reads, io_errors, passthrough_reads;
    _Atomic uint64_t ra_queued, ra_dropped, parallel_fills;
    /* Read-ahead workers, started on first use (after the daemon forked). */
    pthread_mutex_t q_lock;
    pthread_cond_t q_cond;
    ra_job queue[QUEUE_LEN];
    unsigned q_head, q_len;
    pthread_t *workers;
    int n_workers, stop;
    /* Tensors whose decode failure was already logged. */
    pthread_mutex_t log_lock;
    uint32_t *logged;
    size_t n_logged;
};

void gg_reader_default_opts(gg_reader_opts *o)
{
    o->cache_bytes = 256ull << 20;
    o->page_bytes = 256u << 10;
    o->threads = 0;
    o->readahead_pages = 16;
}

gg_reader *gg_reader_new(const gg_reader_opts *o)
{
    gg_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->o = *o;
    if (r->o.page_bytes < 4096)
        r->o.page_bytes = 4096;
    r->nthreads = o->threads;
    if (r->nthreads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        r->nthreads = n > 0 ? (int)n : 1;
    }
    r->cache = gg_cache_new(o->cache_bytes);
    if (!r->cache) {
        free(r);
        return NULL;
    }
    pthread_mutex_init(&r->q_lock, NULL);
    pthread_cond_init(&r->q_cond, NULL);
    pthread_mutex_init(&r->log_lock, NULL);
    return r;
}

void gg_reader_free(gg_reader *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->q_lock);
    r->stop = 1;
    pthread_cond_broadcast(&r->q_cond);
    pthread_mutex_unlock(&r->q_lock);
    for (int i = 0; i < r->n_workers; i++)
        pthread_join(r->workers[i], NULL);
    free(r->workers);
    gg_cache_free(r->cache);
    pthread_mutex_destroy(&r->q_lock);
    pthread_cond_destroy(&r->q_cond);
    pthread_mutex_destroy(&r->log_lock);
    free(r->logged);
    free(r);
}

void gg_readahead_init(gg_readahead *ra)
{
    memset(ra, 0, sizeof *ra);
    pthread_mutex_init(&ra->lock, NULL);
}

void gg_readahead_destroy(gg_readahead *ra) { pthread_mutex_destroy(&ra->lock); }

/* pread all of [off, off+n) or fail: a short read means the file shrank. */
static int read_exact(gg_reader *r, int fd, void *buf, size_t n, uint64_t off)
{
    char *p = buf;
    while (n) {
        ssize_t k = pread(fd, p, n, (off_t)off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            atomic_fetch_add_explicit(&r->io_errors, 1, memory_order_relaxed);
            return -EIO;
        }
        p += k;
        n -= (size_t)k;
        off += (uint64_t)k;
    }
    return 0;
}

ssize_t gg_read_raw(gg_reader *r, const gg_model *m, const gg_tensor *t, char *buf, size_t size,
                    uint64_t off)
{
    if (off >= t->nbytes)
        return 0;
    if (size > t->nbytes - off)
        size = t->nbytes - off;
    int rc = read_exact(r, t->fd, buf, size, t->abs_offset + off);
    return rc < 0 ? rc : (ssize_t)size;
}

static void log_once(gg_reader *r, const gg_model *m, const gg_tensor *t, uint32_t uid, const char *what)
{
    pthread_mutex_lock(&r->log_lock);
    for (size_t i = 0; i < r->n_logged; i++) {
        if (r->logged[i] == uid) {
            pthread_mutex_unlock(&r->log_lock);
            return;
        }
    }
    uint32_t *n = realloc(r->logged, (r->n_logged + 1) * sizeof *n);
    if (n) {
        r->logged = n;
        r->logged[r->n_logged++] = uid;
    }
    pthread_mutex_unlock(&r->log_lock);
    gg_log("%s: tensor \"%.*s\" (type id %" PRIu32 "): f32 not readable: %s", m->path,
           (int)(t->name_len > 200 ? 200 : t->name_len), t->name, t->info->type_id, what);
}

/* Source bytes of the calling thread: reused across calls, at most about
 * CHUNK_SRC (or one row group of an interleaved type, if larger). Held
 * through a thread key so the buffer is freed when the thread ends (the
 * FUSE loop and OpenMP retire threads; a _Thread_local pointer would leak). */
typedef struct tbuf {
    uint8_t *p;
    size_t cap;
} tbuf;

static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static int scratch_key_ok;

static void tbuf_free(void *v)
{
    tbuf *b = v;
    free(b->p);
    free(b);
}

static void scratch_key_init(void) { scratch_key_ok = pthread_key_create(&scratch_key, tbuf_free) == 0; }

static uint8_t *scratch_get(size_t n)
{
    pthread_once(&scratch_once, scratch_key_init);
    if (!scratch_key_ok)
        return NULL;
    tbuf *b = pthread_getspecific(scratch_key);
    if (!b) {
        b = calloc(1, sizeof *b);
        if (!b)
            return NULL;
        if (pthread_setspecific(scratch_key, b) != 0) {
            free(b);
            return NULL;
        }
    }
    if (n > b->cap) {
        uint8_t *p = realloc(b->p, n);
        if (!p)
            return NULL;
        b->p = p;
        b->cap = n;
    }
    return b->p;
}

/* Decode [e0, e1) (any range) with one pread. */
static int decode_range(gg_reader *r, const gg_tensor *t, uint64_t e0, uint64_t e1, float *dst)
{
    uint64_t lo, hi, tail;
    gg_layout_bytes(&t->layout, e0, e1, &lo, &hi, &tail);
    uint8_t tailbuf[4];
    uint8_t *src = scratch_get(hi - lo ? hi - lo : 1);
    if (!src)
        return -ENOMEM;
    int rc = read_exact(r, t->fd, src, hi - lo, t->abs_offset + lo);
    if (rc == 0 && tail != UINT64_MAX)
        rc = read_exact(r, t->fd, tailbuf, 4, t->abs_offset + tail);
    if (rc < 0)
        return rc;
    if (gg_layout_decode(&t->layout, gg_isa_active(), src, lo, tail != UINT64_MAX ? tailbuf : NULL,
                         e0, e1, dst) != 0)
        return -EIO;
    return 0;
}

int gg_decode_elems(gg_reader *r, const gg_model *m, const gg_tensor *t, uint64_t e0, uint64_t e1,
                    float *dst)
{
    (void)m;
    if (e0 >= e1)
        return 0;
    /* Chunks of about CHUNK_SRC source bytes, on granule boundaries. */
    const gg_layout *l = &t->layout;
    uint64_t g = gg_layout_granule(l);
    uint64_t chunk = l->nbytes ? (uint64_t)((double)CHUNK_SRC * (double)l->nelems / (double)l->nbytes) : 0;
    chunk = chunk / g * g;
    if (chunk < g)
        chunk = g;
    for (uint64_t e = e0; e < e1;) {
        uint64_t ce = (e / chunk + 1) * chunk;
        if (ce > e1)
            ce = e1;
        int rc = decode_range(r, t, e, ce, dst + (e - e0));
        if (rc < 0)
            return rc;
        e = ce;
    }
    atomic_fetch_add_explicit(&r->bytes_decoded, (e1 - e0) * 4, memory_order_relaxed);
    return 0;
}

/* Elements per page for this tensor: the target size rounded to whole
 * blocks / row groups. */
static uint64_t page_elems(const gg_reader *r, const gg_tensor *t)
{
    uint64_t g = gg_layout_granule(&t->layout);
    uint64_t want = r->o.page_bytes / 4;
    uint64_t pe = (want + g - 1) / g * g;
    return pe ? pe : g;
}

static uint64_t page_key(uint32_t uid, uint64_t page) { return (uint64_t)uid << 40 | page; }

static size_t page_len(const gg_tensor *t, uint64_t pe, uint64_t p)
{
    uint64_t e0 = p * pe, e1 = e0 + pe < t->layout.nelems ? e0 + pe : t->layout.nelems;
    return (size_t)(e1 - e0) * 4;
}

/* Fill one pinned page: elements [p*pe, min((p+1)*pe, n)). */
static int fill_page(gg_reader *r, const gg_model *m, const gg_tensor *t, uint64_t pe, uint64_t p,
                     gg_page *pg)
{
    uint64_t e0 = p * pe, e1 = e0 + pe < t->layout.nelems ? e0 + pe : t->layout.nelems;
    int rc = gg_decode_elems(r, m, t, e0, e1, gg_page_data(pg));
    gg_cache_filled(r->cache, pg, rc == 0);
    return rc;
}

static void *ra_worker(void *arg)
{
    gg_reader *r = arg;
    pthread_mutex_lock(&r->q_lock);
    for (;;) {
        while (!r->stop && r->q_len == 0)
            pthread_cond_wait(&r->q_cond, &r->q_lock);
        if (r->stop)
            break;
        ra_job j = r->queue[r->q_head];
        r->q_head = (r->q_head + 1) % QUEUE_LEN;
        r->q_len--;
        pthread_mutex_unlock(&r->q_lock);
        uint64_t pe = page_elems(r, j.t);
        int st;
        gg_page *pg = gg_cache_pin(r->cache, page_key(j.uid, j.page), page_len(j.t, pe, j.page),
                                   GG_PIN_READAHEAD | GG_PIN_IFABSENT, &st);
        if (pg) {
            fill_page(r, j.m, j.t, pe, j.page, pg);
            gg_cache_unpin(r->cache, pg);
        }
        pthread_mutex_lock(&r->q_lock);
    }
    pthread_mutex_unlock(&r->q_lock);
    return NULL;
}

static void ra_enqueue(gg_reader *r, const gg_model *m, const gg_tensor *t, uint32_t uid,
                       uint64_t first, uint64_t end)
{
    pthread_mutex_lock(&r->q_lock);
    if (!r->workers && !r->stop) {
        int n = r->nthreads;
        r->workers = calloc((size_t)n, sizeof *r->workers);
        for (int i = 0; r->workers && i < n; i++)
            if (pthread_create(&r->workers[i], NULL, ra_worker, r) == 0)
                r->n_workers++;
    }
    uint64_t queued = 0;
    for (uint64_t p = first; p < end && r->q_len < QUEUE_LEN; p++, queued++) {
        r->queue[(r->q_head + r->q_len) % QUEUE_LEN] = (ra_job){m, t, uid, p};
        r->q_len++;
    }
    if (queued)
        pthread_cond_broadcast(&r->q_cond);
    pthread_mutex_unlock(&r->q_lock);
    atomic_fetch_add_explicit(&r->ra_queued, queued, memory_order_relaxed);
    atomic_fetch_add_explicit(&r->ra_dropped, end - first - queued, memory_order_relaxed);
}

/* Sequential-read detection. A read continues the stream when it starts
 * near the furthest page read so far (within a request's worth either way:
 * concurrent requests of one reader may arrive slightly out of order; small
 * reads must start in that page or the next). Once a stream covers two
 * pages, the pages after it are queued for the workers. Returns 1 for a
 * read that continues a stream. */
static int readahead(gg_reader *r, const gg_model *m, const gg_tensor *t, uint32_t uid,
                     gg_readahead *ra, uint64_t p0, uint64_t p1, uint64_t npages, uint64_t pe, size_t size)
{
    if (!ra)
        return 0;
    uint64_t first = 0, end = 0;
    uint64_t slack = size < r->o.page_bytes / 4 ? 1 : (1u << 20) / 4 / pe + 1;
    pthread_mutex_lock(&ra->lock);
    int seq = ra->started && p0 + slack >= ra->next_page && p0 <= ra->next_page + slack;
    if (seq) {
        if (p1 + 1 > ra->next_page)
            ra->next_page = p1 + 1;
    } else {
        ra->first_page = p0;
        ra->next_page = p1 + 1;
        ra->ahead_to = 0;
    }
    ra->started = 1;
    if (seq && ra->next_page >= ra->first_page + 2 && r->o.readahead_pages > 0) {
        end = ra->next_page + (uint64_t)r->o.readahead_pages;
        if (end > npages)
            end = npages;
        first = ra->ahead_to > ra->next_page ? ra->ahead_to : ra->next_page;
        if (first < end)
            ra->ahead_to = end;
    }
    pthread_mutex_unlock(&ra->lock);
    if (first < end)
        ra_enqueue(r, m, t, uid, first, end);
    return seq;
}

static int is_passthrough(const gg_tensor *t)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return t->type->block_elems == 1 && t->type->block_bytes == 4 && !strcmp(t->type->name, "F32") &&
           t->nbytes == t->layout.nelems * 4;
#else
    return 0;
#endif
}

static void ref_init(gg_f32_ref *ref)
{
    ref->iov = ref->iov_local;
    ref->pages = ref->pages_local;
    ref->niov = ref->npages = 0;
    ref->stream = NULL;
}

void gg_f32_ref_release(gg_reader *r, gg_f32_ref *ref)
{
    for (int i = 0; i < ref->npages; i++)
        if (ref->pages[i])
            gg_cache_release(r->cache, ref->pages[i], ref->stream);
    if (ref->pages != ref->pages_local)
        free(ref->pages);
    if (ref->iov != ref->iov_local)
        free(ref->iov);
    ref_init(ref);
}

/* Small read of elements [e0, e1) decoded straight into buf (bytes from off). */
static ssize_t read_small(gg_reader *r, const gg_model *m, const gg_tensor *t, char *buf, size_t size,
                          uint64_t off, uint64_t e0, uint64_t e1)
{
    atomic_fetch_add_explicit(&r->small_reads, 1, memory_order_relaxed);
    if (off % 4 == 0 && size % 4 == 0)
        return gg_decode_elems(r, m, t, e0, e1, (float *)(void *)buf) < 0 ? -EIO : (ssize_t)size;
    float stackbuf[1024];
    float *tmp = e1 - e0 <= 1024 ? stackbuf : malloc((e1 - e0) * 4);
    if (!tmp)
        return -ENOMEM;
    int rc = gg_decode_elems(r, m, t, e0, e1, tmp);
    if (rc == 0)
        memcpy(buf, (char *)tmp + (off - e0 * 4), size);
    if (tmp != stackbuf)
        free(tmp);
    return rc < 0 ? rc : (ssize_t)size;
}

ssize_t gg_read_f32_ref(gg_reader *r, const gg_model *m, const gg_tensor *t, uint32_t uid, char *buf,
                        size_t size, uint64_t off, gg_readahead *ra, gg_f32_ref *ref)
{
    ref_init(ref);
    if (!t->type || t->why) {
        log_once(r, m, t, uid, t->why ? t->why : "type unknown");
        return -EIO;
    }
    uint64_t total = t->layout.nelems * 4;
    if (off >= total || size == 0)
        return 0;
    if (size > total - off)
        size = (size_t)(total - off);

    if (is_passthrough(t)) {
        atomic_fetch_add_explicit(&r->passthrough_reads, 1, memory_order_relaxed);
        int rc = read_exact(r, t->fd, buf, size, t->abs_offset + off);
        if (rc < 0) {
            log_once(r, m, t, uid, "read error (file truncated or changed?)");
            return rc;
        }
        ref->iov[0] = (struct iovec){buf, size};
        ref->niov = 1;
        return (ssize_t)size;
    }

    uint64_t e0 = off / 4, e1 = (off + size + 3) / 4;
    uint64_t pe = page_elems(r, t);
    uint64_t p0 = e0 / pe, p1 = (e1 - 1) / pe, npages = (t->layout.nelems + pe - 1) / pe;
    /* Keys hold 24 bits of tensor number and 40 of page: beyond that (only
     * in absurd files) reads bypass the cache. */
    int cacheable = uid < (1u << 24) && npages <= (1ull << 40);
    int seq = cacheable ? readahead(r, m, t, uid, ra, p0, p1, npages, pe, size) : 0;

    if (!cacheable || (size < page_len(t, pe, p0) / 4 && !seq)) {
        /* Small read (a quarter of its page or less): from the cache if its
         * page is there, else decode just the blocks it touches. */
        if (p0 == p1 && cacheable) {
            gg_page *pg = gg_cache_peek(r->cache, page_key(uid, p0));
            if (pg) {
                ref->pages[0] = pg;
                ref->npages = 1;
                ref->iov[0] = (struct iovec){(char *)gg_page_data(pg) + (off - p0 * pe * 4), size};
                ref->niov = 1;
                return (ssize_t)size;
            }
        }
        ssize_t got = read_small(r, m, t, buf, size, off, e0, e1);
        if (got < 0) {
            log_once(r, m, t, uid, "read error (file truncated or changed?)");
            return got;
        }
        ref->iov[0] = (struct iovec){buf, size};
        ref->niov = 1;
        return got;
    }

    atomic_fetch_add_explicit(&r->page_reads, 1, memory_order_relaxed);
    uint64_t np = p1 - p0 + 1;
    unsigned char st_local[GG_REF_INLINE], *st = st_local;
    if (np > GG_REF_INLINE) {
        ref->pages = calloc(np, sizeof *ref->pages);
        ref->iov = malloc(np * sizeof *ref->iov);
        st = malloc(np);
        if (!ref->pages || !ref->iov || !st) {
            if (st != st_local)
                free(st);
            gg_f32_ref_release(r, ref);
            return -ENOMEM;
        }
    }
    ref->stream = seq ? ra : NULL;
    int rc = 0;
    uint64_t nfill = 0;
    for (uint64_t i = 0; i < np; i++) {
        int s;
        gg_page *pg = gg_cache_pin(r->cache, page_key(uid, p0 + i), page_len(t, pe, p0 + i), GG_PIN_NOWAIT, &s);
        if (!pg) {
            rc = -ENOMEM;
            break;
        }
        ref->pages[ref->npages++] = pg;
        st[i] = (unsigned char)s;
        nfill += s == GG_PIN_FILL;
    }
    if (rc < 0) {
        /* Pages claimed must still be settled, or their waiters would hang. */
        for (int i = 0; i < ref->npages; i++)
            if (st[i] == GG_PIN_FILL)
                gg_cache_filled(r->cache, ref->pages[i], 0);
        nfill = 0;
    }
    /* Decode the pages this thread claimed, in parallel when there are several. */
    int failed = 0;
    if (nfill) {
        int nth = r->nthreads < (int)nfill ? r->nthreads : (int)nfill;
        if (nth > 1)
            atomic_fetch_add_explicit(&r->parallel_fills, 1, memory_order_relaxed);
#pragma omp parallel for num_threads(nth) schedule(dynamic, 1) reduction(|| : failed) if (nth > 1)
        for (uint64_t i = 0; i < np; i++) {
            if (st[i] == GG_PIN_FILL && fill_page(r, m, t, pe, p0 + i, ref->pages[i]) != 0)
                failed = 1;
        }
    }
    if (failed && rc == 0)
        rc = -EIO;
    /* Then the pages other threads were decoding. */
    for (uint64_t i = 0; rc == 0 && i < np; i++) {
        while (st[i] == GG_PIN_BUSY) {
            if (gg_cache_wait(r->cache, ref->pages[i]) == 0) {
                st[i] = GG_PIN_READY;
                break;
            }
            /* Its filler failed: try ourselves. */
            gg_cache_unpin(r->cache, ref->pages[i]);
            int s;
            ref->pages[i] = gg_cache_pin(r->cache, page_key(uid, p0 + i), page_len(t, pe, p0 + i), 0, &s);
            if (!ref->pages[i]) {
                rc = -ENOMEM;
                break;
            }
            st[i] = (unsigned char)s;
            if (s == GG_PIN_FILL && fill_page(r, m, t, pe, p0 + i, ref->pages[i]) != 0)
                rc = -EIO;
        }
    }
    if (st != st_local)
        free(st);
    if (rc < 0) {
        gg_f32_ref_release(r, ref);
        if (rc == -EIO)
            log_once(r, m, t, uid, "read error (file truncated or changed?)");
        return rc;
    }
    for (uint64_t i = 0; i < np; i++) {
        /* Overlap of the request with page p0+i, in bytes of the tensor. */
        uint64_t ps = (p0 + i) * pe * 4, pend = ps + gg_page_bytes(ref->pages[i]);
        uint64_t a = off > ps ? off : ps, b = off + size < pend ? off + size : pend;
        if (a < b)
            ref->iov[ref->niov++] = (struct iovec){(char *)gg_page_data(ref->pages[i]) + (a - ps), b - a};
    }
    return (ssize_t)size;
}

ssize_t gg_read_f32(gg_reader *r, const gg_model *m, const gg_tensor *t, uint32_t uid, char *buf,
                    size_t size, uint64_t off, gg_readahead *ra)
{
    gg_f32_ref ref;
    ssize_t got = gg_read_f32_ref(r, m, t, uid, buf, size, off, ra, &ref);
    if (got <= 0)
        return got;
    size_t at = 0;
    for (int i = 0; i < ref.niov; i++) {
        if (ref.iov[i].iov_base != buf + at)
            memcpy(buf + at, ref.iov[i].iov_base, ref.iov[i].iov_len);
        at += ref.iov[i].iov_len;
    }
    gg_f32_ref_release(r, &ref);
    return got;
}

/* One .stats line: fixed widths, so the file keeps one size while its
 * numbers change. */
static void stat_u64(gg_buf *out, const char *key, uint64_t v)
{
    gg_buf_printf(out, "%-28s %20" PRIu64 "\n", key, v);
}

void gg_reader_stats_text(gg_reader *r, gg_buf *out)
{
    gg_cache_stats s;
    gg_cache_get_stats(r->cache, &s);
    stat_u64(out, "cache_hits", s.hits);
    stat_u64(out, "cache_misses", s.misses);
    stat_u64(out, "cache_evictions", s.evictions);
    stat_u64(out, "cache_waits", s.waits);
    stat_u64(out, "cache_resident_bytes", s.resident_bytes);
    stat_u64(out, "cache_resident_pages", s.resident_pages);
    stat_u64(out, "cache_budget_bytes", s.budget_bytes);
    stat_u64(out, "bytes_decoded", atomic_load(&r->bytes_decoded));
    stat_u64(out, "readahead_pages_queued", atomic_load(&r->ra_queued));
    stat_u64(out, "readahead_pages_decoded", s.readahead_filled);
    stat_u64(out, "readahead_hits", s.readahead_hits);
    stat_u64(out, "small_reads_decoded_directly", atomic_load(&r->small_reads));
    stat_u64(out, "page_reads", atomic_load(&r->page_reads));
    stat_u64(out, "parallel_decodes", atomic_load(&r->parallel_fills));
    stat_u64(out, "f32_passthrough_reads", atomic_load(&r->passthrough_reads));
    stat_u64(out, "io_errors", atomic_load(&r->io_errors));
    stat_u64(out, "page_bytes", r->o.page_bytes);
    stat_u64(out, "readahead_depth_pages", (uint64_t)r->o.readahead_pages);
    stat_u64(out, "decode_threads", (uint64_t)r->nthreads);
    gg_buf_printf(out, "%-28s %20s\n", "simd", gg_isa_name(gg_isa_active()));
}

size_t gg_reader_stats_size(gg_reader *r)
{
    gg_buf b = {0};
    gg_reader_stats_text(r, &b);
    size_t n = b.len;
    gg_buf_free(&b);
    return n;
}
