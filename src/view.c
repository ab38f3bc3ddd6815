/* view.c - raw and decoded reads of tensors (see view.h). */
#include "gguffs/view.h"

#include <errno.h>
#include <inttypes.h>
#include <omp.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gguffs/log.h"

#define QUEUE_LEN 256

typedef struct ra_job {
    const gg_model *m;
    const gg_tensor *t;
    uint32_t uid;
    uint64_t page;
} ra_job;

struct gg_reader {
    gg_reader_opts o;
    gg_cache *cache;
    _Atomic uint64_t bytes_decoded, small_reads, page_reads, io_errors;
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
    o->readahead_pages = 8;
}

gg_reader *gg_reader_new(const gg_reader_opts *o)
{
    gg_reader *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->o = *o;
    if (r->o.page_bytes < 4096)
        r->o.page_bytes = 4096;
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

static int threads_of(const gg_reader *r)
{
    if (r->o.threads > 0)
        return r->o.threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

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

/* Source bytes of the calling thread: reused across calls. */
static _Thread_local uint8_t *scratch;
static _Thread_local size_t scratch_cap;

static uint8_t *scratch_get(size_t n)
{
    if (n > scratch_cap) {
        uint8_t *p = realloc(scratch, n);
        if (!p)
            return NULL;
        scratch = p;
        scratch_cap = n;
    }
    return scratch;
}

int gg_decode_elems(gg_reader *r, const gg_model *m, const gg_tensor *t, uint64_t e0, uint64_t e1,
                    float *dst)
{
    if (e0 >= e1)
        return 0;
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

/* Fill one pinned page: elements [p*pe, min((p+1)*pe, n)). */
static int fill_page(gg_reader *r, const gg_model *m, const gg_tensor *t, uint64_t pe, uint64_t p,
                     gg_page *pg)
{
    uint64_t e0 = p * pe, e1 = e0 + pe < t->layout.nelems ? e0 + pe : t->layout.nelems;
    int rc = gg_decode_elems(r, m, t, e0, e1, gg_page_data(pg));
    gg_cache_filled(r->cache, pg, rc == 0);
    return rc;
}

static size_t page_len(const gg_tensor *t, uint64_t pe, uint64_t p)
{
    uint64_t e0 = p * pe, e1 = e0 + pe < t->layout.nelems ? e0 + pe : t->layout.nelems;
    return (size_t)(e1 - e0) * 4;
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
        int fill;
        gg_page *pg = gg_cache_pin(r->cache, page_key(j.uid, j.page), page_len(j.t, pe, j.page), 1, &fill);
        if (pg) {
            if (fill)
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
        int n = threads_of(r);
        r->workers = calloc((size_t)n, sizeof *r->workers);
        for (int i = 0; r->workers && i < n; i++)
            if (pthread_create(&r->workers[i], NULL, ra_worker, r) == 0)
                r->n_workers++;
    }
    for (uint64_t p = first; p < end && r->q_len < QUEUE_LEN; p++) {
        r->queue[(r->q_head + r->q_len) % QUEUE_LEN] = (ra_job){m, t, uid, p};
        r->q_len++;
    }
    pthread_cond_broadcast(&r->q_cond);
    pthread_mutex_unlock(&r->q_lock);
}

/* Sequential-read detection: after two reads that continue each other,
 * queue the next pages. */
static void readahead(gg_reader *r, const gg_model *m, const gg_tensor *t, uint32_t uid,
                      gg_readahead *ra, uint64_t p0, uint64_t p1, uint64_t npages)
{
    if (!ra || r->o.readahead_pages <= 0)
        return;
    uint64_t first = 0, end = 0;
    pthread_mutex_lock(&ra->lock);
    if (p0 == ra->next_page || p0 + 1 == ra->next_page)
        ra->streak++;
    else
        ra->streak = 0, ra->ahead_to = 0;
    ra->next_page = p1 + 1;
    if (ra->streak >= 2) {
        end = p1 + 1 + (uint64_t)r->o.readahead_pages;
        if (end > npages)
            end = npages;
        first = ra->ahead_to > p1 + 1 ? ra->ahead_to : p1 + 1;
        if (first < end)
            ra->ahead_to = end;
    }
    pthread_mutex_unlock(&ra->lock);
    if (first < end)
        ra_enqueue(r, m, t, uid, first, end);
}

ssize_t gg_read_f32(gg_reader *r, const gg_model *m, const gg_tensor *t, uint32_t uid, char *buf,
                    size_t size, uint64_t off, gg_readahead *ra)
{
    if (!t->type || t->why) {
        log_once(r, m, t, uid, t->why ? t->why : "type unknown");
        return -EIO;
    }
    uint64_t total = t->layout.nelems * 4;
    if (off >= total || size == 0)
        return 0;
    if (size > total - off)
        size = (size_t)(total - off);
    uint64_t e0 = off / 4, e1 = (off + size + 3) / 4;
    uint64_t pe = page_elems(r, t);
    uint64_t p0 = e0 / pe, p1 = (e1 - 1) / pe, npages = (t->layout.nelems + pe - 1) / pe;

    if (size < r->o.page_bytes / 4) {
        /* Small read: from the cache if its page is there, else decode just
         * the blocks it touches. */
        if (p0 == p1) {
            gg_page *pg = gg_cache_peek(r->cache, page_key(uid, p0));
            if (pg) {
                memcpy(buf, (char *)gg_page_data(pg) + (off - p0 * pe * 4), size);
                gg_cache_unpin(r->cache, pg);
                return (ssize_t)size;
            }
        }
        atomic_fetch_add_explicit(&r->small_reads, 1, memory_order_relaxed);
        float stackbuf[1024];
        float *tmp = e1 - e0 <= 1024 ? stackbuf : malloc((e1 - e0) * 4);
        if (!tmp)
            return -ENOMEM;
        int rc = gg_decode_elems(r, m, t, e0, e1, tmp);
        if (rc == 0)
            memcpy(buf, (char *)tmp + (off - e0 * 4), size);
        if (tmp != stackbuf)
            free(tmp);
        if (rc < 0)
            log_once(r, m, t, uid, "read error (file truncated or changed?)");
        return rc < 0 ? rc : (ssize_t)size;
    }

    atomic_fetch_add_explicit(&r->page_reads, 1, memory_order_relaxed);
    uint64_t np = p1 - p0 + 1;
    gg_page *local[16];
    gg_page **pages = np <= 16 ? local : calloc(np, sizeof *pages);
    uint64_t *fill = malloc(np * sizeof *fill);
    if (!pages || !fill) {
        if (pages != local)
            free(pages);
        free(fill);
        return -ENOMEM;
    }
    uint64_t nfill = 0;
    int rc = 0;
    for (uint64_t i = 0; i < np; i++) {
        int must;
        pages[i] = gg_cache_pin(r->cache, page_key(uid, p0 + i), page_len(t, pe, p0 + i), 0, &must);
        if (!pages[i])
            rc = -ENOMEM;
        else if (must)
            fill[nfill++] = i;
    }
    /* Decode the missing pages, in parallel when there are several. */
    int nthreads = threads_of(r);
    if (nthreads > (int)nfill)
        nthreads = (int)nfill;
    if (nthreads < 1)
        nthreads = 1;
    int failed = 0;
#pragma omp parallel for num_threads(nthreads) schedule(dynamic, 1) reduction(|| : failed) if (nthreads > 1)
    for (uint64_t k = 0; k < nfill; k++) {
        uint64_t i = fill[k];
        if (fill_page(r, m, t, pe, p0 + i, pages[i]) != 0)
            failed = 1;
    }
    if (failed && rc == 0)
        rc = -EIO;
    for (uint64_t i = 0; i < np; i++) {
        if (!pages[i])
            continue;
        if (rc == 0) {
            /* Overlap of the request with page p0+i, in bytes of the tensor. */
            uint64_t ps = (p0 + i) * pe * 4, pend = ps + gg_page_bytes(pages[i]);
            uint64_t a = off > ps ? off : ps, b = off + size < pend ? off + size : pend;
            if (a < b)
                memcpy(buf + (a - off), (char *)gg_page_data(pages[i]) + (a - ps), b - a);
        }
        gg_cache_unpin(r->cache, pages[i]);
    }
    if (pages != local)
        free(pages);
    free(fill);
    if (rc == -EIO)
        log_once(r, m, t, uid, "read error (file truncated or changed?)");
    if (rc == 0)
        readahead(r, m, t, uid, ra, p0, p1, npages);
    return rc < 0 ? rc : (ssize_t)size;
}

void gg_reader_stats_text(gg_reader *r, gg_buf *out)
{
    gg_cache_stats s;
    gg_cache_get_stats(r->cache, &s);
    gg_buf_printf(out, "cache_hits %" PRIu64 "\n", s.hits);
    gg_buf_printf(out, "cache_misses %" PRIu64 "\n", s.misses);
    gg_buf_printf(out, "cache_evictions %" PRIu64 "\n", s.evictions);
    gg_buf_printf(out, "cache_resident_bytes %" PRIu64 "\n", s.resident_bytes);
    gg_buf_printf(out, "cache_resident_pages %" PRIu64 "\n", s.resident_pages);
    gg_buf_printf(out, "cache_budget_bytes %" PRIu64 "\n", s.budget_bytes);
    gg_buf_printf(out, "bytes_decoded %" PRIu64 "\n", atomic_load(&r->bytes_decoded));
    gg_buf_printf(out, "readahead_pages_decoded %" PRIu64 "\n", s.readahead_filled);
    gg_buf_printf(out, "readahead_hits %" PRIu64 "\n", s.readahead_hits);
    gg_buf_printf(out, "small_reads_decoded_directly %" PRIu64 "\n", atomic_load(&r->small_reads));
    gg_buf_printf(out, "page_reads %" PRIu64 "\n", atomic_load(&r->page_reads));
    gg_buf_printf(out, "io_errors %" PRIu64 "\n", atomic_load(&r->io_errors));
    gg_buf_printf(out, "page_bytes %" PRIu64 "\n", r->o.page_bytes);
    gg_buf_printf(out, "decode_threads %d\n", threads_of(r));
    gg_buf_printf(out, "simd %s\n", gg_isa_name(gg_isa_active()));
}
