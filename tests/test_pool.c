/* test_pool - the worker pool (src/base/pool.h) on its own, and the decoded
 * view's read-ahead against a model that is closed while its jobs wait.
 *
 * Pool: jobs run with the pool's ctx; a pool without threads drops every
 * job; a full queue drops; cancel(obj) drops obj's queued jobs only and
 * waits for its running one; free joins.
 *
 * Close with read-ahead in flight: a sequential f32 reader of an F16 tensor
 * (4 KiB pages, one worker) queues the next pages; a gate holds the
 * worker's source read; the model's tree is freed and the model closed, as
 * the shelf's trim() and the unmount do; then the gate opens. No read of
 * the model's source may happen after its close (before gg_mtree_free
 * cancelled the reader's jobs, the held read returned into a closed model
 * and the queued jobs ran on freed memory: ASan in 35_sanitizers names
 * it). Every wait is bounded; a watchdog ends a deadlock (exit 3). */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gguffs/model.h"
#include "gguffs/source.h"
#include "gguffs/view.h"
#include "tree/modeltree.h"
#include "base/pool.h"

#include "testlib.h"

#define MODEL "tests/data/mainline/mainline.gguf"

static void on_alarm(int sig)
{
    (void)sig;
    static const char m[] = "test_pool: watchdog: still running after 20 s (deadlock?)\n";
    ssize_t r = write(2, m, sizeof m - 1);
    (void)r;
    _exit(3);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* ---- the pool ---- */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int hold_open, held, ran_a, ran_b;
static void *seen_ctx;

static void job(void *ctx, void *obj, uint64_t a, uint64_t b)
{
    pthread_mutex_lock(&mu);
    seen_ctx = ctx;
    if (a == 1) { /* the holding job: waits until let go */
        held = 1;
        pthread_cond_broadcast(&cv);
        while (!hold_open)
            pthread_cond_wait(&cv, &mu);
    }
    if (obj == (void *)&ran_a)
        ran_a += (int)b;
    else
        ran_b += (int)b;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
}

static void *let_go_later(void *arg)
{
    sleep_ms(100);
    pthread_mutex_lock(&mu);
    hold_open = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    return arg;
}

static void test_pool(void)
{
    gg_pool *none = gg_pool_new(0, 4, NULL);
    EXPECT(none && gg_pool_submit(none, job, &ran_a, 0, 1) == -1, "a pool without threads drops jobs");
    gg_pool_cancel(none, &ran_a);
    gg_pool_free(none);

    int ctx;
    gg_pool *p = gg_pool_new(1, 2, &ctx);
    EXPECT(p != NULL, "gg_pool_new");
    /* The one thread is held by a job of obj A; the queue (2) fills. */
    EXPECT(gg_pool_submit(p, job, &ran_a, 1, 1) == 0, "submit");
    pthread_mutex_lock(&mu);
    for (int i = 0; i < 500 && !held; i++) {
        pthread_mutex_unlock(&mu);
        sleep_ms(10);
        pthread_mutex_lock(&mu);
    }
    EXPECT(held, "the first job started");
    pthread_mutex_unlock(&mu);
    EXPECT(gg_pool_submit(p, job, &ran_a, 0, 10) == 0, "queued A");
    EXPECT(gg_pool_submit(p, job, &ran_b, 0, 100) == 0, "queued B");
    EXPECT(gg_pool_submit(p, job, &ran_b, 0, 1000) == -1, "a full queue drops");
    /* cancel(A) drops A's queued job, keeps B's, and waits for A's running
     * one (let go from another thread). */
    pthread_t t;
    pthread_create(&t, NULL, let_go_later, NULL);
    gg_pool_cancel(p, &ran_a);
    pthread_mutex_lock(&mu);
    EXPECT(ran_a == 1, "cancel waited for A's running job and dropped its queued one (ran_a %d)", ran_a);
    pthread_mutex_unlock(&mu);
    pthread_join(t, NULL);
    gg_pool_drain(p);
    pthread_mutex_lock(&mu);
    for (int i = 0; i < 500 && ran_b != 100; i++) {
        pthread_mutex_unlock(&mu);
        sleep_ms(10);
        pthread_mutex_lock(&mu);
    }
    EXPECT(ran_b == 100, "B's queued job ran once (ran_b %d)", ran_b);
    EXPECT(seen_ctx == &ctx, "jobs get the pool's ctx");
    pthread_mutex_unlock(&mu);
    gg_pool_free(p);
}

/* ---- a gated source: reads off the main thread wait for the gate ---- */

static pthread_t main_thread;
static int gate_open, gate_waiting, src_closed, reads_after_close;

typedef struct gated {
    gg_source s;
    gg_source *in;
} gated;

static int gated_read(gg_source *s, void *buf, size_t n, uint64_t off, gg_err *e)
{
    gg_source *in = ((gated *)s)->in;
    if (!pthread_equal(pthread_self(), main_thread)) {
        pthread_mutex_lock(&mu);
        gate_waiting++;
        pthread_cond_broadcast(&cv);
        while (!gate_open)
            pthread_cond_wait(&cv, &mu);
        int closed = src_closed;
        reads_after_close += closed;
        pthread_mutex_unlock(&mu);
        if (closed) /* (s is gone: touch nothing of it) */
            return gg_fail(e, GG_E_IO, "read after close");
    }
    return gg_source_read(in, buf, n, off, e);
}

static int gated_check(gg_source *s, gg_err *e) { return gg_source_check(((gated *)s)->in, e); }

static void gated_close(gg_source *s)
{
    pthread_mutex_lock(&mu);
    src_closed = 1;
    pthread_mutex_unlock(&mu);
    gg_source_close(((gated *)s)->in);
    free(s->name);
    free(s->id);
    free(s);
}

static const gg_source_ops gated_ops = {gated_read, gated_check, NULL, gated_close};

static gg_source *open_gated(void *arg, const char *url, gg_err *e)
{
    gated *g = calloc(1, sizeof *g);
    if (!g || !(g->in = gg_source_open_file(MODEL, e))) {
        free(g);
        return NULL;
    }
    g->s = *g->in;
    g->s.ops = &gated_ops;
    g->s.name = strdup(url);
    g->s.id = strdup(url);
    return &g->s;
}

typedef struct closer {
    gg_mtree *mt;
    gg_model *m;
    _Atomic int done;
} closer;

/* What the shelf's close_idle() does: the tree, then the model. */
static void *close_model(void *arg)
{
    closer *c = arg;
    gg_mtree_free(c->mt);
    gg_model_close(c->m);
    atomic_store(&c->done, 1);
    return NULL;
}

static void test_close_with_readahead(void)
{
    main_thread = pthread_self();
    gg_err e = {0};
    gg_open_opts oo = {0};
    oo.open_url = open_gated;
    gg_model *m = calloc(1, sizeof *m);
    if (gg_model_open(m, "http://gate/mainline.gguf", &oo, &e)) {
        EXPECT(0, "open: %s", e.msg);
        gg_model_close(m);
        free(m);
        return;
    }
    const gg_tensor *t = NULL;
    for (uint64_t i = 0; i < m->nt; i++)
        if (m->t[i].name_len == 3 && !memcmp(m->t[i].name, "F16", 3))
            t = &m->t[i];
    EXPECT(t != NULL, "the F16 tensor");
    gg_reader_opts ro;
    gg_reader_default_opts(&ro);
    ro.page_bytes = 4096; /* 5 pages of 1024 f32 */
    ro.threads = 1;
    gg_reader *r = gg_reader_new(&ro);
    gg_mtree *mt = gg_mtree_new(m, 0, r, NULL, NULL, &e);
    EXPECT(r && mt && t, "reader and tree");
    if (!r || !mt || !t)
        return;
    gg_readahead ra;
    gg_readahead_init(&ra);
    char buf[4096];
    /* Pages 0 and 1: a stream; pages 2, 3, 4 are queued, 2 is held. */
    for (int p = 0; p < 2; p++)
        EXPECT(gg_read_view_copy(r, m, t, 0, GG_VIEW_F32, buf, sizeof buf, (uint64_t)p * 4096, &ra, &e) == 4096,
               "read page %d: %s",
               p, e.msg);
    pthread_mutex_lock(&mu);
    for (int i = 0; i < 500 && !gate_waiting; i++) {
        pthread_mutex_unlock(&mu);
        sleep_ms(10);
        pthread_mutex_lock(&mu);
    }
    EXPECT(gate_waiting == 1, "a read-ahead job is held in the source (%d)", gate_waiting);
    pthread_mutex_unlock(&mu);
    /* Close while the job is held and two more are queued; give the close
     * a moment (a fixed close returns only once the held job is done). */
    closer c = {mt, m, 0};
    pthread_t ct;
    pthread_create(&ct, NULL, close_model, &c);
    for (int i = 0; i < 20 && !atomic_load(&c.done); i++)
        sleep_ms(10);
    pthread_mutex_lock(&mu);
    gate_open = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&mu);
    pthread_join(ct, NULL);
    gg_reader_free(r); /* joins the worker: whatever it still ran has run */
    pthread_mutex_lock(&mu);
    EXPECT(reads_after_close == 0, "%d read-ahead read(s) of the source after the model was closed",
           reads_after_close);
    EXPECT(gate_waiting == 1, "the queued jobs were dropped (%d source reads off the main thread)", gate_waiting);
    pthread_mutex_unlock(&mu);
    gg_readahead_destroy(&ra);
    free(m);
}

int main(void)
{
    signal(SIGALRM, on_alarm);
    alarm(20);
    test_pool();
    test_close_with_readahead();
    if (fails) {
        fprintf(stderr, "test_pool: %d failure(s)\n", fails);
        return 1;
    }
    printf("test_pool: ok\n");
    return 0;
}
