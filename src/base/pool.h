/* pool.h - a pool of worker threads running background jobs (src/base/).
 *
 * Two users, two instances: the network's read-ahead (latency-bound: as many
 * requests in flight as bandwidth x latency) and the decoded view's
 * read-ahead (CPU-bound: one thread per core). One pool for both would let a
 * few slow fetches stall the decoding of local models.
 *
 * A job is fn(ctx, obj, a, b); obj names what it works for, so that
 * gg_pool_cancel(obj) can be called before obj is freed. Threads start on
 * the first submit (so after the daemon forked). A full queue drops the job:
 * jobs are hints. Forking is safe: the fork waits for the running jobs,
 * drops the queued ones, and the child starts without threads. */
#ifndef GGUFFS_POOL_H
#define GGUFFS_POOL_H
#include <stdint.h>

typedef struct gg_pool gg_pool;
typedef void (*gg_pool_fn)(void *ctx, void *obj, uint64_t a, uint64_t b);

/* threads <= 0: a pool that drops every job. NULL: out of memory. */
gg_pool *gg_pool_new(int threads, int queue_len, void *ctx);
/* Stops the threads (a running job finishes first) and frees the pool. */
void gg_pool_free(gg_pool *p);
/* 0: queued; -1: dropped (queue full, no thread, stopping or forking). */
int gg_pool_submit(gg_pool *p, gg_pool_fn fn, void *obj, uint64_t a, uint64_t b);
/* Drop obj's queued jobs and wait for its running ones. */
void gg_pool_cancel(gg_pool *p, void *obj);
/* Drop every queued job and wait for the running ones. */
void gg_pool_drain(gg_pool *p);
#endif
