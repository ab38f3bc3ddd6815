/* tlbuf.c - per-thread reusable buffers (see tlbuf.h). */
#include "tlbuf.h"

#include <stdlib.h>

typedef struct held {
    void *p;
    size_t cap;
} held;

static void held_free(void *v)
{
    held *h = v;
    free(h->p);
    free(h);
}

void *gg_tlbuf_get(gg_tlbuf *b, size_t n)
{
    int st = atomic_load_explicit(&b->state, memory_order_acquire);
    if (st == 0) {
        pthread_mutex_lock(&b->lock);
        if (atomic_load(&b->state) == 0)
            atomic_store_explicit(&b->state, pthread_key_create(&b->key, held_free) == 0 ? 1 : -1,
                                  memory_order_release);
        pthread_mutex_unlock(&b->lock);
        st = atomic_load(&b->state);
    }
    if (st < 0)
        return NULL;
    held *h = pthread_getspecific(b->key);
    if (!h) {
        h = calloc(1, sizeof *h);
        if (!h)
            return NULL;
        if (pthread_setspecific(b->key, h) != 0) {
            free(h);
            return NULL;
        }
    }
    if (n > h->cap || !h->p) {
        void *p = realloc(h->p, n ? n : 1);
        if (!p)
            return NULL;
        h->p = p;
        h->cap = n ? n : 1;
    }
    return h->p;
}
