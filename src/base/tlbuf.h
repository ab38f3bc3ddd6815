/* tlbuf.h - a buffer per thread, reused across calls and freed when its
 * thread ends (the FUSE loop and OpenMP retire threads; a _Thread_local
 * pointer would leak what it points to).
 *
 *   static gg_tlbuf scratch = GG_TLBUF_INIT;
 *   uint8_t *p = gg_tlbuf_get(&scratch, n);   // NULL if out of memory
 */
#ifndef GGUFFS_TLBUF_H
#define GGUFFS_TLBUF_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>

typedef struct gg_tlbuf {
    pthread_mutex_t lock; /* guards the key's creation */
    pthread_key_t key;
    _Atomic int state;    /* 0 not made, 1 made, -1 could not be made */
} gg_tlbuf;

#define GG_TLBUF_INIT {PTHREAD_MUTEX_INITIALIZER, 0, 0}

/* At least n bytes for the calling thread (contents not kept across growth). */
void *gg_tlbuf_get(gg_tlbuf *b, size_t n);

#endif
