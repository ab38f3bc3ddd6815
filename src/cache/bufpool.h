/* bufpool.h - the big buffers of the caches (64 KiB and more), carved from
 * 2 MiB-aligned slabs backed by transparent huge pages, and kept for reuse
 * once freed (up to BUFPOOL_KEEP bytes of each size).
 *
 * Why: on a virtual machine the first touch of fresh memory is slower than
 * decoding into it or copying the network's bytes into it (measured here:
 * 2.7 ms per MiB in 4 KiB pages, 1.5 ms in huge pages, against 0.07 ms to
 * rewrite warm memory). A buffer that was touched once stays warm as long
 * as the process keeps it. Thread-safe. Internal to cache/. */
#ifndef GGUFFS_CACHE_BUFPOOL_H
#define GGUFFS_CACHE_BUFPOOL_H

#include <stddef.h>

#define BUFPOOL_MIN (64u << 10)  /* smaller buffers are the caller's (malloc) */
#define BUFPOOL_KEEP (64u << 20) /* freed bytes kept per buffer size */

/* A buffer of cap bytes (cap >= BUFPOOL_MIN, a multiple of 64 KiB), or
 * NULL when memory runs out. Its contents are undefined. */
void *gg_bufpool_get(size_t cap);

/* Give back a buffer that gg_bufpool_get(cap) returned. */
void gg_bufpool_put(void *p, size_t cap);

#endif
