/* view.c - raw, decoded and quantized reads of tensors (see view.h).
 *
 * An f32 read of bytes [off, off+size) (a quantized view's is the same, in
 * pages of its own blocks, each made from the decoded values of its
 * elements):
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
 * The caller either gets the bytes copied (gg_read_view_copy) or pointers into
 * the pinned pages (gg_read_view), which the FUSE layer sends as they are. */
#include "gguffs/view.h"

#include <errno.h>
#include <inttypes.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gguffs/halfconv.h"
#include "gguffs/quantize.h"
#include "base/log.h"
#include "gguffs/scope.h"
#include "base/tlbuf.h"
#include "base/ahead.h"
#include "base/pool.h"

#define QUEUE_LEN 1024
/* Source bytes decoded per pread: bounds the per-thread scratch buffer and
 * keeps the source in L2 while it is decoded. */
#define CHUNK_SRC (64u << 10)

struct gg_reader {
    gg_reader_opts o;
    int nthreads;
    gg_cache *cache;
    _Atomic uint64_t bytes_decoded, bytes_quantized, small_reads, page_reads, io_errors, stale_reads, passthrough_reads;
    _Atomic uint64_t ra_queued, ra_dropped, parallel_fills;
    /* Read-ahead workers (pool.h): a job is (model, uid << 32 | tensor index, page). */
    gg_pool *pool;
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
    r->pool = gg_pool_new(r->nthreads, QUEUE_LEN, r);
    if (!r->cache || !r->pool) {
        gg_cache_free(r->cache);
        gg_pool_free(r->pool);
        free(r);
        return NULL;
    }
    pthread_mutex_init(&r->log_lock, NULL);
    return r;
}

void gg_reader_free(gg_reader *r)
{
    if (!r)
        return;
    gg_pool_free(r->pool);
    gg_cache_free(r->cache);
    pthread_mutex_destroy(&r->log_lock);
    free(r->logged);
    free(r);
}

int gg_reader_threads(const gg_reader *r) { return r->nthreads; }

void gg_reader_cancel(gg_reader *r, const gg_model *m)
{
    if (r)
        gg_pool_cancel(r->pool, (void *)m);
}

void gg_readahead_init(gg_readahead *ra)
{
    memset(ra, 0, sizeof *ra);
    pthread_mutex_init(&ra->lock, NULL);
}

void gg_readahead_destroy(gg_readahead *ra) { pthread_mutex_destroy(&ra->lock); }

/* Read tensor bytes [off, off + n) from its source; counts failures. */
static int read_bytes(gg_reader *r, const gg_model *m, const gg_tensor *t, void *buf, size_t n, uint64_t off,
                      gg_err *e)
{
    gg_err local;
    gg_err *ep = e ? e : &local;
    if (gg_source_read(gg_tensor_source(m, t), buf, n, t->abs_offset + off, ep) == 0)
        return 0;
    atomic_fetch_add_explicit(ep->code == GG_E_STALE ? &r->stale_reads : &r->io_errors, 1, memory_order_relaxed);
    return -1;
}

static ssize_t read_raw(gg_reader *r, const gg_model *m, const gg_tensor *t, char *buf, size_t size, uint64_t off,
                        gg_err *e)
{
    if (off >= t->nbytes)
        return gg_source_check(gg_tensor_source(m, t), e) ? -1 : 0;
    if (size > t->nbytes - off)
        size = t->nbytes - off;
    return read_bytes(r, m, t, buf, size, off, e) ? -1 : (ssize_t)size;
}

/* One log line per tensor and kind of failure (a broken tensor read in a
 * loop must not flood the log). */
static void log_once(gg_reader *r, const gg_model *m, const gg_tensor *t, uint32_t uid, const gg_err *e)
{
    uint32_t key = uid ^ (uint32_t)e->code << 26;
    pthread_mutex_lock(&r->log_lock);
    for (size_t i = 0; i < r->n_logged; i++) {
        if (r->logged[i] == key) {
            pthread_mutex_unlock(&r->log_lock);
            return;
        }
    }
    uint32_t *n = realloc(r->logged, (r->n_logged + 1) * sizeof *n);
    if (n) {
        r->logged = n;
        r->logged[r->n_logged++] = key;
    }
    pthread_mutex_unlock(&r->log_lock);
    gg_log("%s: tensor \"%.*s\" (type id %" PRIu32 "): f32 not readable: %s", m->path,
           (int)(t->name_len > 200 ? 200 : t->name_len), t->name, t->info->type_id, e->msg);
}

/* Source bytes of the calling thread: at most about CHUNK_SRC (or one row
 * group of an interleaved type, if larger). */
static gg_tlbuf scratch = GG_TLBUF_INIT;

/* Decode [e0, e1) (any range) with one read of its bytes. */
static int decode_range(gg_reader *r, const gg_model *m, const gg_tensor *t, uint64_t e0, uint64_t e1,
                        float *dst, gg_err *e)
{
    uint64_t lo, hi, tail;
    gg_layout_bytes(&t->layout, e0, e1, &lo, &hi, &tail);
    uint8_t tailbuf[4];
    uint8_t *src = gg_tlbuf_get(&scratch, hi - lo ? hi - lo : 1);
    if (!src)
        return gg_fail(e, GG_E_NOMEM, "out of memory for %" PRIu64 " bytes of source", hi - lo);
    if (read_bytes(r, m, t, src, hi - lo, lo, e) ||
        (tail != UINT64_MAX && read_bytes(r, m, t, tailbuf, 4, tail, e)))
        return -1;
    if (gg_layout_decode(&t->layout, gg_isa_active(), src, lo, tail != UINT64_MAX ? tailbuf : NULL, e0, e1,
                         dst) != 0)
        return gg_fail(e, GG_E_UNSUPPORTED, "no decoder for %s", t->type->name);
    return 0;
}

int gg_decode_elems(gg_reader *r, const gg_model *m, const gg_tensor *t, uint64_t e0, uint64_t e1, float *dst,
                    gg_err *e)
{
    if (e0 >= e1)
        return 0;
    /* Chunks of about CHUNK_SRC source bytes, on granule boundaries. */
    const gg_layout *l = &t->layout;
    uint64_t g = gg_layout_granule(l);
    uint64_t chunk = l->nbytes ? (uint64_t)((double)CHUNK_SRC * (double)l->nelems / (double)l->nbytes) : 0;
    chunk = chunk / g * g;
    if (chunk < g)
        chunk = g;
    for (uint64_t at = e0; at < e1;) {
        uint64_t ce = (at / chunk + 1) * chunk;
        if (ce > e1)
            ce = e1;
        if (decode_range(r, m, t, at, ce, dst + (at - e0), e))
            return -1;
        at = ce;
    }
    atomic_fetch_add_explicit(&r->bytes_decoded, (e1 - e0) * 4, memory_order_relaxed);
    return 0;
}

/* How a view's pages are cut. A page holds pe elements (the target size
 * rounded to whole blocks / row groups of the tensor's type and, for a
 * quantized view, of its own type's blocks), as units of be elements in bb
 * bytes: f32 one element in 4 bytes, a quantized view one block. qtype is
 * also the view's part of the cache key: 0 for f32, the quantized type for
 * the others (below 256). */
typedef struct geom {
    gg_tid qtype; /* GG_T_NONE (0): f32 */
    uint64_t be, bb, pe;
} geom;

static uint64_t gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The geometry of view k (f32 or quantized) of t; -1 with *e set when t's
 * rows do not fit the quantized type. */
static int geom_of(const gg_reader *r, const gg_model *m, const gg_tensor *t, gg_view_kind k, geom *g, gg_err *e)
{
    uint64_t unit = gg_layout_granule(&t->layout);
    *g = (geom){.qtype = GG_T_NONE, .be = 1, .bb = 4};
    if (gg_view_qtype(k)) {
        const gg_type *q = gg_type_mainline(gg_view_qtype(k));
        if (!q || !gg_quantize_has(q->tid) || q->tid >= 256)
            return gg_fail(e, GG_E_UNSUPPORTED, "%s: no quantizer makes %s", m->path, q ? q->name : "this type");
        if (t->info->ne[0] % q->block_elems)
            return gg_fail(e, GG_E_INVAL, "%s: %s needs rows of a multiple of %u values (this one has %" PRIu64 ")",
                           m->path, q->name, q->block_elems, t->info->ne[0]);
        *g = (geom){.qtype = q->tid, .be = q->block_elems, .bb = q->block_bytes};
        unit = unit / gcd64(unit, g->be) * g->be;
    }
    uint64_t want = r->o.page_bytes / 4;
    g->pe = (want + unit - 1) / unit * unit;
    if (!g->pe)
        g->pe = unit;
    return 0;
}

/* Bytes of the view up to element n (a multiple of be, or the end). */
static uint64_t geom_bytes(const geom *g, uint64_t n) { return n / g->be * g->bb; }

/* Cache keys: 24 bits of tensor number, 8 of view, 32 of page. */
#define UID_BITS 24
#define PAGE_BITS 32
static uint64_t page_key(uint32_t uid, const geom *g, uint64_t page)
{
    return (uint64_t)uid << 40 | (uint64_t)g->qtype << PAGE_BITS | page;
}

/* Elements [*e0, *e1) of page p. */
static void page_range(const gg_tensor *t, const geom *g, uint64_t p, uint64_t *e0, uint64_t *e1)
{
    *e0 = p * g->pe;
    *e1 = *e0 + g->pe < t->layout.nelems ? *e0 + g->pe : t->layout.nelems;
}

static size_t page_len(const gg_tensor *t, const geom *g, uint64_t p)
{
    uint64_t e0, e1;
    page_range(t, g, p, &e0, &e1);
    return (size_t)geom_bytes(g, e1 - e0);
}

/* float32 values of the calling thread, quantized into a page. */
static gg_tlbuf quant_f32 = GG_TLBUF_INIT;

/* Elements [e0, e1) of the view into dst: decoded, then quantized when
 * the view is (whole blocks: e0 and e1 multiples of be, or e1 the end). */
static int make_elems(gg_reader *r, const gg_model *m, const gg_tensor *t, const geom *g, uint64_t e0, uint64_t e1,
                      void *dst, gg_err *e)
{
    if (!g->qtype)
        return gg_decode_elems(r, m, t, e0, e1, dst, e);
    float *x = gg_tlbuf_get(&quant_f32, (e1 - e0) * 4);
    if (!x)
        return gg_fail(e, GG_E_NOMEM, "out of memory for %" PRIu64 " values", e1 - e0);
    if (gg_decode_elems(r, m, t, e0, e1, x, e))
        return -1;
    /* blocks are made from their own values alone: one run of them */
    gg_quantize_rows(g->qtype, x, dst, (int64_t)((e1 - e0) / g->be), (int64_t)g->be);
    atomic_fetch_add_explicit(&r->bytes_quantized, geom_bytes(g, e1 - e0), memory_order_relaxed);
    return 0;
}

/* Fill one pinned page. */
static int fill_page(gg_reader *r, const gg_model *m, const gg_tensor *t, const geom *g, uint64_t p, gg_page *pg,
                     gg_err *e)
{
    uint64_t e0, e1;
    page_range(t, g, p, &e0, &e1);
    int rc = make_elems(r, m, t, g, e0, e1, gg_page_data(pg), e);
    gg_cache_filled(r->cache, pg, rc == 0);
    return rc;
}

/* A read-ahead job: (model, view << 56 | uid << 32 | tensor index, page). */
static void ra_job(void *ctx, void *obj, uint64_t a, uint64_t page)
{
    gg_reader *r = ctx;
    const gg_model *m = obj;
    const gg_tensor *t = &m->t[(uint32_t)a];
    uint32_t uid = (uint32_t)(a >> 32) & ((1u << UID_BITS) - 1);
    uint8_t code = (uint8_t)(a >> 56);
    geom g;
    if (geom_of(r, m, t, code ? gg_view_of((gg_tid)code) : GG_VIEW_F32, &g, NULL))
        return;
    int st;
    gg_page *pg = gg_cache_pin(r->cache, page_key(uid, &g, page), page_len(t, &g, page),
                               GG_PIN_READAHEAD | GG_PIN_IFABSENT, &st);
    if (pg) {
        fill_page(r, m, t, &g, page, pg, NULL);
        gg_cache_unpin(r->cache, pg);
    }
}

static void ra_enqueue(gg_reader *r, const gg_model *m, const gg_tensor *t, uint32_t uid, const geom *g,
                       uint64_t first, uint64_t end)
{
    uint64_t queued = 0, ti = (uint64_t)(t - m->t);
    uint64_t a = (uint64_t)g->qtype << 56 | (uint64_t)uid << 32 | ti;
    for (uint64_t p = first; p < end && ti <= UINT32_MAX; p++, queued++)
        if (gg_pool_submit(r->pool, ra_job, (void *)m, a, p))
            break;
    atomic_fetch_add_explicit(&r->ra_queued, queued, memory_order_relaxed);
    atomic_fetch_add_explicit(&r->ra_dropped, end - first - queued, memory_order_relaxed);
}

/* Sequential-read detection. A read continues the stream when it starts
 * near the furthest page read so far (within a request's worth either way:
 * concurrent requests of one reader may arrive slightly out of order; small
 * reads must start in that page or the next). Once a stream covers two
 * pages, the pages after it are queued for the workers. Returns 1 for a
 * read that continues a stream. */
static int readahead(gg_reader *r, const gg_model *m, const gg_tensor *t, uint32_t uid, const geom *g,
                     gg_readahead *ra, uint64_t p0, uint64_t p1, uint64_t npages, size_t size)
{
    if (!ra)
        return 0;
    uint64_t first = 0, end = 0, w = (uint64_t)r->o.readahead_pages;
    /* A request's worth: 1 MiB of the view's pages, or this read's pages
     * when it asks for more. */
    uint64_t per_mib = (1u << 20) / geom_bytes(g, g->pe);
    uint64_t request = per_mib > p1 + 1 - p0 ? per_mib : p1 + 1 - p0;
    /* In pages: a fixed window; a stream earns it once it covers two pages. */
    gg_ahead_params ap = {.unit = 1,
                          .slack = size < r->o.page_bytes / 4 ? 1 : request + 1,
                          .earn_bytes = w ? 0 : UINT64_MAX,
                          .earn_span = 2,
                          .min = w ? w : 1,
                          .max = w ? w : 1};
    pthread_mutex_lock(&ra->lock);
    gg_ahead a = {ra->first_page, ra->next_page, 0, ra->started ? ap.min : 0, ra->ahead_to};
    int seq = gg_ahead_continues(&a, &ap, p0);
    if (seq)
        gg_ahead_advance(&a, &ap, p0, p1 + 1 - p0, npages, 0, &first, &end);
    else
        gg_ahead_start(&a, &ap, p0, p1 + 1 - p0);
    ra->first_page = a.start;
    ra->next_page = a.next;
    ra->ahead_to = a.ahead_to;
    ra->started = 1;
    pthread_mutex_unlock(&ra->lock);
    if (first < end)
        ra_enqueue(r, m, t, uid, g, first, end);
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

void gg_ref_gather(const gg_ref *ref, char *buf)
{
    size_t at = 0;
    for (int i = 0; i < ref->niov; i++) {
        if (ref->iov[i].iov_base != buf + at)
            memmove(buf + at, ref->iov[i].iov_base, ref->iov[i].iov_len);
        at += ref->iov[i].iov_len;
    }
}

/* Room for more iovecs and pages in ref (the inline arrays, then the heap). */
static int ref_room(gg_ref *ref, int iovs, int pages)
{
    if (ref->niov + iovs > ref->cap_iov) {
        int n = 2 * (ref->niov + iovs);
        struct iovec *v = malloc((size_t)n * sizeof *v);
        if (!v)
            return -1;
        memcpy(v, ref->iov, (size_t)ref->niov * sizeof *v);
        if (ref->iov != ref->iov_local)
            free(ref->iov);
        ref->iov = v;
        ref->cap_iov = n;
    }
    if (ref->npages + pages > ref->cap_pages) {
        int n = 2 * (ref->npages + pages);
        gg_page **g = malloc((size_t)n * sizeof *g);
        if (!g)
            return -1;
        memcpy(g, ref->pages, (size_t)ref->npages * sizeof *g);
        if (ref->pages != ref->pages_local)
            free(ref->pages);
        ref->pages = g;
        ref->cap_pages = n;
    }
    return 0;
}

int gg_ref_add(gg_ref *dst, const void *p, size_t n, gg_err *e)
{
    if (!n)
        return 0;
    if (ref_room(dst, 1, 0))
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    dst->iov[dst->niov++] = (struct iovec){(void *)p, n};
    return 0;
}

int gg_ref_append(gg_ref *dst, gg_ref *src, gg_err *e)
{
    if (ref_room(dst, src->niov, src->npages))
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    memcpy(dst->iov + dst->niov, src->iov, (size_t)src->niov * sizeof *src->iov);
    memcpy(dst->pages + dst->npages, src->pages, (size_t)src->npages * sizeof *src->pages);
    dst->niov += src->niov;
    dst->npages += src->npages;
    if (!dst->stream)
        dst->stream = src->stream;
    if (src->pages != src->pages_local)
        free(src->pages);
    if (src->iov != src->iov_local)
        free(src->iov);
    gg_ref_init(src);
    return 0;
}

void gg_ref_init(gg_ref *ref)
{
    ref->iov = ref->iov_local;
    ref->pages = ref->pages_local;
    ref->niov = ref->npages = 0;
    ref->cap_iov = ref->cap_pages = GG_REF_INLINE;
    ref->stream = NULL;
    ref->held = NULL;
}

void gg_ref_release(gg_reader *r, gg_ref *ref)
{
    for (int i = 0; i < ref->npages; i++)
        if (ref->pages[i])
            gg_cache_release(r->cache, ref->pages[i], ref->stream);
    if (ref->pages != ref->pages_local)
        free(ref->pages);
    if (ref->iov != ref->iov_local)
        free(ref->iov);
    gg_ref_init(ref);
}

/* The bytes are all in buf. */
static ssize_t reply_from_buf(gg_ref *ref, char *buf, size_t size)
{
    ref->iov[0] = (struct iovec){buf, size};
    ref->niov = 1;
    return (ssize_t)size;
}

/* Small read of elements [e0, e1) made straight into buf (bytes from off):
 * only the blocks it touches are decoded (and quantized). */
static int read_small(gg_reader *r, const gg_model *m, const gg_tensor *t, const geom *g, char *buf, size_t size,
                      uint64_t off, uint64_t e0, uint64_t e1, gg_err *e)
{
    atomic_fetch_add_explicit(&r->small_reads, 1, memory_order_relaxed);
    uint64_t b0 = geom_bytes(g, e0), n = geom_bytes(g, e1 - e0);
    if (b0 == off && n == size)
        return make_elems(r, m, t, g, e0, e1, buf, e);
    char stackbuf[4096];
    char *tmp = n <= sizeof stackbuf ? stackbuf : malloc(n);
    if (!tmp)
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    int rc = make_elems(r, m, t, g, e0, e1, tmp, e);
    if (rc == 0)
        memcpy(buf, tmp + (off - b0), size);
    if (tmp != stackbuf)
        free(tmp);
    return rc;
}

/* ---- A read that goes through pages, step by step ---- */

/* What a read covers: elements, pages, and whether it goes through the cache. */
typedef struct page_plan {
    geom g;
    uint64_t off, e0, e1;     /* bytes from off; elements [e0, e1) */
    uint64_t p0, p1, np;      /* pages p0..p1 (np of them) */
    uint64_t npages;          /* pages of the whole tensor */
    size_t size;
    int cacheable, seq;
    uint32_t uid;
} page_plan;

static void plan_read(gg_reader *r, const gg_model *m, const gg_tensor *t, uint32_t uid, size_t size, uint64_t off,
                      gg_readahead *ra, page_plan *p)
{
    const geom *g = &p->g;
    p->off = off;
    p->size = size;
    p->uid = uid;
    p->e0 = off / g->bb * g->be;
    p->e1 = (off + size + g->bb - 1) / g->bb * g->be;
    if (p->e1 > t->layout.nelems)
        p->e1 = t->layout.nelems;
    p->p0 = p->e0 / g->pe;
    p->p1 = (p->e1 - 1) / g->pe;
    p->np = p->p1 - p->p0 + 1;
    p->npages = (t->layout.nelems + g->pe - 1) / g->pe;
    /* Beyond the key's bits (only absurd files) reads bypass the cache. */
    p->cacheable = uid < (1u << UID_BITS) && p->npages <= (1ull << PAGE_BITS);
    p->seq = p->cacheable ? readahead(r, m, t, uid, g, ra, p->p0, p->p1, p->npages, size) : 0;
}

/* Pin every page of the plan without waiting; st[i] says what to do with
 * each (fill it, wait for it, or read it). */
static int pin_pages(gg_reader *r, const gg_tensor *t, const page_plan *p, gg_ref *ref, unsigned char *st,
                     uint64_t *nfill, gg_err *e)
{
    *nfill = 0;
    for (uint64_t i = 0; i < p->np; i++) {
        int s;
        gg_page *pg = gg_cache_pin(r->cache, page_key(p->uid, &p->g, p->p0 + i), page_len(t, &p->g, p->p0 + i),
                                   GG_PIN_NOWAIT, &s);
        if (!pg) {
            /* Pages claimed must still be settled, or their waiters would hang. */
            for (int k = 0; k < ref->npages; k++)
                if (st[k] == GG_PIN_FILL)
                    gg_cache_filled(r->cache, ref->pages[k], 0);
            return gg_fail(e, GG_E_NOMEM, "out of memory for a decoded page");
        }
        ref->pages[ref->npages++] = pg;
        st[i] = (unsigned char)s;
        *nfill += s == GG_PIN_FILL;
    }
    return 0;
}

/* Make the pages this thread claimed, in parallel when there are several. */
static int fill_claimed(gg_reader *r, const gg_model *m, const gg_tensor *t, const page_plan *p, gg_ref *ref,
                        const unsigned char *st, uint64_t nfill, gg_err *e)
{
    if (!nfill)
        return 0;
    int nth = r->nthreads < (int)nfill ? r->nthreads : (int)nfill;
    if (nth > 1)
        atomic_fetch_add_explicit(&r->parallel_fills, 1, memory_order_relaxed);
    int failed = 0;
    gg_err first = {GG_OK, ""};
    gg_scope *scope = gg_scope_get(); /* the caller's bound holds in every thread */
#pragma omp parallel for num_threads(nth) schedule(dynamic, 1) if (nth > 1)
    for (uint64_t i = 0; i < p->np; i++) {
        gg_err fe;
        gg_scope *own = gg_scope_get();
        gg_scope_set(scope);
        if (st[i] == GG_PIN_FILL && fill_page(r, m, t, &p->g, p->p0 + i, ref->pages[i], &fe) != 0) {
#pragma omp critical(gg_fill_error)
            if (!failed++)
                first = fe;
        }
        gg_scope_set(own);
    }
    if (failed && e)
        *e = first;
    return failed ? -1 : 0;
}

/* Then the pages other threads were making: wait, and refill any whose
 * filler failed. */
static int wait_busy(gg_reader *r, const gg_model *m, const gg_tensor *t, const page_plan *p, gg_ref *ref,
                     unsigned char *st, gg_err *e)
{
    for (uint64_t i = 0; i < p->np; i++) {
        while (st[i] == GG_PIN_BUSY) {
            if (gg_cache_wait(r->cache, ref->pages[i]) == 0) {
                st[i] = GG_PIN_READY;
                break;
            }
            gg_cache_unpin(r->cache, ref->pages[i]);
            int s;
            ref->pages[i] =
                gg_cache_pin(r->cache, page_key(p->uid, &p->g, p->p0 + i), page_len(t, &p->g, p->p0 + i), 0, &s);
            if (!ref->pages[i])
                return gg_fail(e, GG_E_NOMEM, "out of memory for a decoded page");
            st[i] = (unsigned char)s;
            if (s == GG_PIN_FILL && fill_page(r, m, t, &p->g, p->p0 + i, ref->pages[i], e) != 0)
                return -1;
        }
    }
    return 0;
}

/* The reply: the overlap of the request with each page, in order. */
static ssize_t build_reply(const page_plan *p, gg_ref *ref)
{
    for (uint64_t i = 0; i < p->np; i++) {
        uint64_t ps = geom_bytes(&p->g, (p->p0 + i) * p->g.pe), pend = ps + gg_page_bytes(ref->pages[i]);
        uint64_t a = p->off > ps ? p->off : ps, b = p->off + p->size < pend ? p->off + p->size : pend;
        if (a < b)
            ref->iov[ref->niov++] = (struct iovec){(char *)gg_page_data(ref->pages[i]) + (a - ps), b - a};
    }
    return (ssize_t)p->size;
}

static ssize_t read_pages(gg_reader *r, const gg_model *m, const gg_tensor *t, const page_plan *p,
                          gg_readahead *ra, gg_ref *ref, gg_err *e)
{
    atomic_fetch_add_explicit(&r->page_reads, 1, memory_order_relaxed);
    unsigned char st_local[GG_REF_INLINE], *st = st_local;
    if (p->np > GG_REF_INLINE) {
        ref->pages = calloc(p->np, sizeof *ref->pages);
        ref->iov = malloc(p->np * sizeof *ref->iov);
        ref->cap_iov = ref->cap_pages = (int)p->np;
        st = malloc(p->np);
        if (!ref->pages || !ref->iov || !st) {
            if (st != st_local)
                free(st);
            gg_ref_release(r, ref);
            return gg_fail(e, GG_E_NOMEM, "out of memory");
        }
    }
    ref->stream = p->seq ? ra : NULL;
    uint64_t nfill;
    int rc = pin_pages(r, t, p, ref, st, &nfill, e);
    if (rc == 0)
        rc = fill_claimed(r, m, t, p, ref, st, nfill, e);
    if (rc == 0)
        rc = wait_busy(r, m, t, p, ref, st, e);
    if (st != st_local)
        free(st);
    if (rc) {
        gg_ref_release(r, ref);
        return -1;
    }
    return build_reply(p, ref);
}

/* The f32 or a quantized view (see the steps at the top). */
static ssize_t read_paged(gg_reader *r, const gg_model *m, const gg_tensor *t, uint32_t uid, gg_view_kind k,
                          char *buf, size_t size, uint64_t off, gg_readahead *ra, gg_ref *ref, gg_err *e)
{
    gg_err local;
    gg_err *ep = e ? e : &local;
    gg_ref_init(ref);
    if (!t->type || t->err) {
        gg_fail(ep, t->err ? t->err->code : GG_E_UNSUPPORTED, "%s", t->err ? t->err->msg : "type unknown");
        log_once(r, m, t, uid, ep);
        return -1;
    }
    page_plan p;
    if (geom_of(r, m, t, k, &p.g, ep))
        return -1;
    /* Cached pages hold what the source held: serve them only while it is
     * the same object. */
    if (gg_source_check(gg_tensor_source(m, t), ep)) {
        atomic_fetch_add_explicit(&r->stale_reads, 1, memory_order_relaxed);
        return -1;
    }
    uint64_t total = geom_bytes(&p.g, t->layout.nelems);
    if (off >= total || size == 0)
        return 0;
    if (size > total - off)
        size = (size_t)(total - off);

    ssize_t got;
    if (!p.g.qtype && is_passthrough(t)) {
        atomic_fetch_add_explicit(&r->passthrough_reads, 1, memory_order_relaxed);
        got = read_bytes(r, m, t, buf, size, off, ep) ? -1 : reply_from_buf(ref, buf, size);
    } else {
        plan_read(r, m, t, uid, size, off, ra, &p);
        if (!p.cacheable || (size < page_len(t, &p.g, p.p0) / 4 && !p.seq)) {
            /* Small read (a quarter of its page or less): from the cache if
             * its page is there, else make just the blocks it touches. */
            gg_page *pg = p.p0 == p.p1 && p.cacheable ? gg_cache_peek(r->cache, page_key(uid, &p.g, p.p0)) : NULL;
            if (pg) {
                ref->pages[0] = pg;
                ref->npages = 1;
                ref->iov[0] = (struct iovec){(char *)gg_page_data(pg) + (off - geom_bytes(&p.g, p.p0 * p.g.pe)), size};
                ref->niov = 1;
                return (ssize_t)size;
            }
            got = read_small(r, m, t, &p.g, buf, size, off, p.e0, p.e1, ep) ? -1 : reply_from_buf(ref, buf, size);
        } else {
            got = read_pages(r, m, t, &p, ra, ref, ep);
        }
    }
    if (got < 0 && ep->code != GG_E_STALE)
        log_once(r, m, t, uid, ep);
    return got;
}

/* f32 bytes of the calling thread, for the conversions below. */
static gg_tlbuf conv_f32 = GG_TLBUF_INIT, conv_16 = GG_TLBUF_INIT;

/* f16 or bf16 (view): the f32 view's values converted, into buf. */
static ssize_t read_half(gg_reader *r, const gg_model *m, const gg_tensor *t, uint32_t uid, gg_view_kind view,
                         char *buf, size_t size, uint64_t off, gg_readahead *ra, gg_err *e)
{
    uint64_t total = t->info->nelems * 2;
    if (off >= total || size == 0)
        return 0;
    if (size > total - off)
        size = (size_t)(total - off);
    uint64_t e0 = off / 2, e1 = (off + size + 1) / 2, n = e1 - e0;
    /* Whole values into a buffer that holds them aligned: converted in place. */
    int direct = off % 2 == 0 && size % 2 == 0 && (uintptr_t)buf % 2 == 0;
    char *f32 = gg_tlbuf_get(&conv_f32, n * 4);
    uint16_t *h = direct ? (uint16_t *)(void *)buf : gg_tlbuf_get(&conv_16, n * 2);
    if (!f32 || !h)
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    /* The float32 values through the same pages and cache as f32, then
     * converted as they come. */
    gg_ref ref;
    ssize_t got = read_paged(r, m, t, uid, GG_VIEW_F32, f32, n * 4, e0 * 4, ra, &ref, e);
    if (got < 0)
        return -1;
    uint64_t at = 0;
    for (int i = 0; i < ref.niov; i++) {
        size_t k = ref.iov[i].iov_len / 4;
        if (view == GG_VIEW_BF16)
            gg_f32_to_bf16(ref.iov[i].iov_base, h + at, k);
        else
            gg_f32_to_f16(ref.iov[i].iov_base, h + at, k);
        at += k;
    }
    gg_ref_release(r, &ref);
    if (!direct)
        memcpy(buf, (char *)h + (off - e0 * 2), size);
    return (ssize_t)size;
}

ssize_t gg_read_view(gg_reader *r, const gg_model *m, const gg_tensor *t, uint32_t uid, gg_view_kind k, char *buf,
                     size_t size, uint64_t off, gg_readahead *ra, gg_ref *ref, gg_err *e)
{
    if (k == GG_VIEW_F32 || gg_view_qtype(k))
        return read_paged(r, m, t, uid, k, buf, size, off, ra, ref, e);
    gg_ref_init(ref);
    ssize_t got = k == GG_VIEW_RAW ? read_raw(r, m, t, buf, size, off, e)
                                   : read_half(r, m, t, uid, k, buf, size, off, ra, e);
    if (got > 0) {
        ref->iov[0] = (struct iovec){buf, (size_t)got};
        ref->niov = 1;
    }
    return got;
}

ssize_t gg_read_view_copy(gg_reader *r, const gg_model *m, const gg_tensor *t, uint32_t uid, gg_view_kind k,
                          char *buf, size_t size, uint64_t off, gg_readahead *ra, gg_err *e)
{
    gg_ref ref;
    ssize_t got = gg_read_view(r, m, t, uid, k, buf, size, off, ra, &ref, e);
    if (got <= 0)
        return got;
    gg_ref_gather(&ref, buf);
    gg_ref_release(r, &ref);
    return got;
}
void gg_reader_forget(gg_reader *r, uint32_t uid_lo, uint32_t uid_hi)
{
    if (uid_lo >= (1u << UID_BITS))
        return;
    if (uid_hi > (1u << UID_BITS))
        uid_hi = 1u << UID_BITS;
    gg_cache_drop_range(r->cache, (uint64_t)uid_lo << 40, (uint64_t)uid_hi << 40);
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
    stat_u64(out, "bytes_quantized", atomic_load(&r->bytes_quantized));
    stat_u64(out, "readahead_pages_queued", atomic_load(&r->ra_queued));
    stat_u64(out, "readahead_pages_decoded", s.readahead_filled);
    stat_u64(out, "readahead_hits", s.readahead_hits);
    stat_u64(out, "small_reads_decoded_directly", atomic_load(&r->small_reads));
    stat_u64(out, "page_reads", atomic_load(&r->page_reads));
    stat_u64(out, "parallel_decodes", atomic_load(&r->parallel_fills));
    stat_u64(out, "f32_passthrough_reads", atomic_load(&r->passthrough_reads));
    stat_u64(out, "io_errors", atomic_load(&r->io_errors));
    stat_u64(out, "stale_reads", atomic_load(&r->stale_reads));
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
