/* pool.c - worker threads for background jobs (see pool.h; layer: base/). */
#include "base/pool.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct job {
    gg_pool_fn fn;
    void *obj;
    uint64_t a, b;
} job;

struct gg_pool {
    void *ctx;
    int want;            /* threads to start */
    /* lock guards everything below. */
    pthread_mutex_t lock;
    pthread_cond_t work; /* a job was queued, or stop */
    pthread_cond_t idle; /* a job finished */
    job *q;
    int qcap, head, len;
    void **running;      /* per thread: the obj it works for, or NULL */
    pthread_t *threads;
    int nthreads, stop, paused;
    struct gg_pool *next; /* in the list the fork handlers walk */
};

typedef struct thread_arg {
    gg_pool *p;
    int index;
} thread_arg;

static void *worker(void *arg)
{
    thread_arg ta = *(thread_arg *)arg;
    free(arg);
    gg_pool *p = ta.p;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->stop && p->len == 0)
            pthread_cond_wait(&p->work, &p->lock);
        if (p->stop)
            break;
        job j = p->q[p->head];
        p->head = (p->head + 1) % p->qcap;
        p->len--;
        p->running[ta.index] = j.obj;
        pthread_mutex_unlock(&p->lock);
        j.fn(p->ctx, j.obj, j.a, j.b);
        pthread_mutex_lock(&p->lock);
        p->running[ta.index] = NULL;
        pthread_cond_broadcast(&p->idle);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Wait (p->lock held) until no thread runs a job for obj (NULL: any job). */
static void wait_idle(gg_pool *p, const void *obj)
{
    for (;;) {
        int busy = 0;
        for (int i = 0; i < p->nthreads; i++)
            busy |= obj ? p->running[i] == obj : p->running[i] != NULL;
        if (!busy)
            return;
        pthread_cond_wait(&p->idle, &p->lock);
    }
}

/* Fork safety. Threads do not survive a fork: the child would keep the
 * queue, the condition variables' waiter counts (a broadcast in
 * gg_pool_free then blocks for ever) and whatever their jobs had claimed
 * (the cache pages readers would wait for for ever). So a fork first pauses
 * every pool (no job starts, submits are dropped), waits for the running
 * jobs, and only then holds every pool's lock: a running job of one pool
 * may submit to another, which must not be held yet. The child starts
 * without threads; the next submit starts new ones. */
static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static gg_pool *pools;

static void fork_prepare(void)
{
    pthread_mutex_lock(&pools_lock);
    for (gg_pool *p = pools; p; p = p->next) {
        pthread_mutex_lock(&p->lock);
        p->paused = 1;
        p->len = 0;
        pthread_mutex_unlock(&p->lock);
    }
    for (gg_pool *p = pools; p; p = p->next) {
        pthread_mutex_lock(&p->lock);
        wait_idle(p, NULL);
        pthread_mutex_unlock(&p->lock);
    }
    for (gg_pool *p = pools; p; p = p->next)
        pthread_mutex_lock(&p->lock);
}

static void fork_parent(void)
{
    for (gg_pool *p = pools; p; p = p->next) {
        p->paused = 0;
        pthread_mutex_unlock(&p->lock);
    }
    pthread_mutex_unlock(&pools_lock);
}

static void fork_child(void)
{
    for (gg_pool *p = pools; p; p = p->next) {
        free(p->threads);
        free(p->running);
        p->threads = NULL;
        p->running = NULL;
        p->nthreads = 0;
        p->paused = 0;
        pthread_cond_init(&p->work, NULL);
        pthread_cond_init(&p->idle, NULL);
        pthread_mutex_unlock(&p->lock);
    }
    pthread_mutex_unlock(&pools_lock);
}

static void register_fork_handlers(void) { pthread_atfork(fork_prepare, fork_parent, fork_child); }

gg_pool *gg_pool_new(int threads, int queue_len, void *ctx)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_fork_handlers);
    gg_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->qcap = queue_len > 0 ? queue_len : 1;
    p->q = calloc((size_t)p->qcap, sizeof *p->q);
    if (!p->q) {
        free(p);
        return NULL;
    }
    p->ctx = ctx;
    p->want = threads;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->work, NULL);
    pthread_cond_init(&p->idle, NULL);
    pthread_mutex_lock(&pools_lock);
    p->next = pools;
    pools = p;
    pthread_mutex_unlock(&pools_lock);
    return p;
}

void gg_pool_free(gg_pool *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&pools_lock);
    for (gg_pool **pp = &pools; *pp; pp = &(*pp)->next)
        if (*pp == p) {
            *pp = p->next;
            break;
        }
    pthread_mutex_unlock(&pools_lock);
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    pthread_cond_broadcast(&p->work);
    pthread_mutex_unlock(&p->lock);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->threads[i], NULL);
    free(p->threads);
    free(p->running);
    free(p->q);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->work);
    pthread_cond_destroy(&p->idle);
    free(p);
}

/* (p->lock held) */
static void start_threads(gg_pool *p)
{
    p->threads = calloc((size_t)p->want, sizeof *p->threads);
    p->running = calloc((size_t)p->want, sizeof *p->running);
    for (int i = 0; p->threads && p->running && i < p->want; i++) {
        thread_arg *ta = malloc(sizeof *ta);
        if (!ta)
            break;
        *ta = (thread_arg){p, i};
        if (pthread_create(&p->threads[i], NULL, worker, ta) != 0) {
            free(ta);
            break;
        }
        p->nthreads++;
    }
}

int gg_pool_submit(gg_pool *p, gg_pool_fn fn, void *obj, uint64_t a, uint64_t b)
{
    pthread_mutex_lock(&p->lock);
    if (!p->threads && !p->stop && !p->paused && p->want > 0)
        start_threads(p);
    int ok = p->nthreads && !p->stop && !p->paused && p->len < p->qcap;
    if (ok) {
        p->q[(p->head + p->len) % p->qcap] = (job){fn, obj, a, b};
        p->len++;
        pthread_cond_signal(&p->work);
    }
    pthread_mutex_unlock(&p->lock);
    return ok ? 0 : -1;
}

void gg_pool_cancel(gg_pool *p, void *obj)
{
    pthread_mutex_lock(&p->lock);
    int k = 0;
    for (int i = 0; i < p->len; i++) {
        job j = p->q[(p->head + i) % p->qcap];
        if (j.obj != obj)
            p->q[(p->head + k++) % p->qcap] = j;
    }
    p->len = k;
    wait_idle(p, obj);
    pthread_mutex_unlock(&p->lock);
}

void gg_pool_drain(gg_pool *p)
{
    pthread_mutex_lock(&p->lock);
    p->len = 0;
    wait_idle(p, NULL);
    pthread_mutex_unlock(&p->lock);
}
