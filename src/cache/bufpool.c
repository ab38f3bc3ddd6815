/* bufpool.c - big cache buffers from huge-page slabs, reused once freed
 * (see bufpool.h).
 *
 * Buffers of up to 1 MiB are cut from 2 MiB slabs of their own size (the
 * slab's tail that no buffer fits is never used); bigger ones are mapped
 * whole, rounded up to 2 MiB. A freed buffer goes on its size's free list
 * while that holds less than BUFPOOL_KEEP bytes, else back to the system
 * (munmap of a slab's piece splits its huge page: allowed). */
#include "bufpool.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/mman.h>

#define SLAB (2u << 20)
#define SIZES 32 /* caps of 64 KiB .. 2 MiB: one list each (bigger ones: big[]) */

typedef struct free_buf {
    struct free_buf *next;
} free_buf;

typedef struct size_class {
    free_buf *free;
    size_t free_bytes;
    char *slab;        /* the slab being cut, or NULL */
    size_t slab_left;  /* bytes of it not yet handed out */
} size_class;

static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static size_class classes[SIZES];
static size_class big[8]; /* caps above 2 MiB: a free list per size seen, by cap */
static size_t big_cap[8];

/* A fresh mapping of n bytes (a multiple of SLAB), SLAB-aligned, asking for
 * huge pages. */
static void *map_aligned(size_t n)
{
    char *p = mmap(NULL, n + SLAB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    char *a = (char *)(((uintptr_t)p + SLAB - 1) & ~(uintptr_t)(SLAB - 1));
    if (a > p)
        munmap(p, (size_t)(a - p));
    if (a + n < p + n + SLAB)
        munmap(a + n, (size_t)(p + n + SLAB - (a + n)));
#ifdef MADV_HUGEPAGE
    madvise(a, n, MADV_HUGEPAGE);
#endif
    return a;
}

/* The free list for cap (under pool_lock), or NULL: too many big sizes. */
static size_class *class_of(size_t cap)
{
    if (cap <= SLAB)
        return &classes[cap / BUFPOOL_MIN - 1];
    for (int i = 0; i < 8; i++) {
        if (big_cap[i] == cap)
            return &big[i];
        if (!big_cap[i]) {
            big_cap[i] = cap;
            return &big[i];
        }
    }
    return NULL;
}

void *gg_bufpool_get(size_t cap)
{
    pthread_mutex_lock(&pool_lock);
    size_class *c = class_of(cap);
    void *p = NULL;
    if (c && c->free) {
        p = c->free;
        c->free = c->free->next;
        c->free_bytes -= cap;
    } else if (c && cap <= SLAB / 2) {
        if (c->slab_left < cap) {
            c->slab = map_aligned(SLAB);
            c->slab_left = c->slab ? SLAB : 0;
        }
        if (c->slab) {
            p = c->slab + (SLAB - c->slab_left);
            c->slab_left -= cap;
        }
    }
    pthread_mutex_unlock(&pool_lock);
    if (!p && cap > SLAB / 2) /* (alone in its mapping: no slab to share) */
        p = map_aligned((cap + SLAB - 1) / SLAB * SLAB);
    return p;
}

void gg_bufpool_put(void *p, size_t cap)
{
    if (!p)
        return;
    pthread_mutex_lock(&pool_lock);
    size_class *c = class_of(cap);
    if (c && c->free_bytes + cap <= BUFPOOL_KEEP) {
        free_buf *f = p;
        f->next = c->free;
        c->free = f;
        c->free_bytes += cap;
        p = NULL;
    }
    pthread_mutex_unlock(&pool_lock);
    if (p)
        munmap(p, cap > SLAB / 2 ? (cap + SLAB - 1) / SLAB * SLAB : cap);
}
