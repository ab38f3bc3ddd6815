/* memfetch.h - a fetcher (src/remote/fetch.h) over bytes in memory, for
 * tests/test_remote.c: the remote source over it needs no curl and no
 * server. Header-only, like memsrc.h. Layer: a test double of remote/.
 *
 * The object's ETag is "\"vN\"" (N = its version; weak "W/\"vN\"" with
 * mf->weak), its Last-Modified fixed. A request with an If-Match of an old
 * version fails GG_E_STALE, as a server's 412 does. Faults, at chosen
 * offsets (a request whose range touches byte `at`):
 *   MF_EIO     fails GG_E_IO, as the HTTP client after its retries
 *   MF_SHORT   answers 0 with fewer bytes than asked for (a broken fetcher)
 *   MF_CHANGE  the object changes first (the version moves on)
 *   MF_DOWN    (any offset) every request fails GG_E_IO: unreachable
 *   MF_SLOW_EIO  fails GG_E_IO after 200 ms (a reader waits on it meanwhile)
 * A fault hits `times` requests (0: every one). Every request is logged.
 * mf->delay_ms makes every request take that long (a network's latency);
 * mf->max_inflight is the most requests that were ever running at once. */
#ifndef GGUFFS_MEMFETCH_H
#define GGUFFS_MEMFETCH_H

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "remote/fetch.h"

typedef enum { MF_EIO = 1, MF_SHORT, MF_CHANGE, MF_DOWN, MF_SLOW_EIO } mf_kind;
#define MF_MAX_FAULTS 8
#define MF_LOG 256
typedef struct memfetch {
    const char *name; /* key "mem://NAME" */
    const uint8_t *bytes;
    uint64_t size;
    int weak;
    pthread_mutex_t mu;
    struct { uint64_t at; mf_kind kind; int times; } fault[MF_MAX_FAULTS];
    int nfault, version, nlog;
    int delay_ms, inflight, max_inflight;
    uint64_t hit_off, hit_len; /* the request the last fault taken was injected into */
    struct { uint64_t off, len; int first; } log[MF_LOG];
} memfetch;

typedef struct mf_fetcher {
    gg_fetcher f;
    memfetch *m;
} mf_fetcher;

static inline void memfetch_init(memfetch *m, const char *name, const void *bytes, uint64_t size)
{
    memset(m, 0, sizeof *m);
    m->name = name;
    m->bytes = bytes;
    m->size = size;
    pthread_mutex_init(&m->mu, NULL);
}

static inline void memfetch_fault(memfetch *m, uint64_t at, mf_kind kind, int times)
{
    pthread_mutex_lock(&m->mu);
    if (m->nfault < MF_MAX_FAULTS) {
        m->fault[m->nfault].at = at;
        m->fault[m->nfault].kind = kind;
        m->fault[m->nfault++].times = times;
    }
    pthread_mutex_unlock(&m->mu);
}

static inline void memfetch_clear(memfetch *m)
{
    pthread_mutex_lock(&m->mu);
    m->nfault = 0;
    pthread_mutex_unlock(&m->mu);
}

static inline int memfetch_requests(memfetch *m)
{
    pthread_mutex_lock(&m->mu);
    int n = m->nlog;
    pthread_mutex_unlock(&m->mu);
    return n;
}

static inline void mf_etag(const memfetch *m, int version, char *out, size_t cap)
{
    snprintf(out, cap, "%s\"v%d\"", m->weak ? "W/" : "", version);
}

/* The fault a request of [off, off+len) meets first, taking one hit (under mu). */
static inline mf_kind mf_take(memfetch *m, uint64_t off, uint64_t len)
{
    for (int i = 0; i < m->nfault; i++) {
        if (m->fault[i].times < 0 ||
            (m->fault[i].kind != MF_DOWN && (m->fault[i].at < off || m->fault[i].at >= off + len)))
            continue;
        mf_kind k = m->fault[i].kind;
        if (m->fault[i].times > 0 && --m->fault[i].times == 0)
            m->fault[i].times = -1;
        return k;
    }
    return 0;
}

static inline int mf_fetch(gg_fetcher *f, gg_range *r, gg_err *e)
{
    memfetch *m = ((mf_fetcher *)f)->m;
    pthread_mutex_lock(&m->mu);
    if (m->nlog < MF_LOG) {
        m->log[m->nlog].off = r->off;
        m->log[m->nlog].len = r->len;
        m->log[m->nlog].first = r->first;
    }
    m->nlog++;
    if (++m->inflight > m->max_inflight)
        m->max_inflight = m->inflight;
    int delay = m->delay_ms;
    pthread_mutex_unlock(&m->mu);
    if (delay) {
        struct timespec ts = {delay / 1000, (long)(delay % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    pthread_mutex_lock(&m->mu);
    m->inflight--;
    mf_kind k = mf_take(m, r->off, r->len);
    if (k) {
        m->hit_off = r->off;
        m->hit_len = r->len;
    }
    if (k == MF_CHANGE)
        m->version++;
    char now[32];
    mf_etag(m, m->version, now, sizeof now);
    pthread_mutex_unlock(&m->mu);
    if (k == MF_SLOW_EIO) {
        struct timespec ts = {0, 200 * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (k == MF_EIO || k == MF_DOWN || k == MF_SLOW_EIO)
        return gg_fail(e, GG_E_IO, "%s: offset %" PRIu64 ": injected I/O error", f->name, r->off);
    if (r->if_match && strcmp(r->if_match, now))
        return gg_fail(e, GG_E_STALE, "%s: changed on the server (If-Match failed: HTTP 412)", f->name);
    uint64_t want = r->off >= m->size ? 0 : m->size - r->off < r->len ? m->size - r->off : r->len;
    uint64_t n = k == MF_SHORT ? want / 2 : want;
    r->total = m->size;
    memset(&r->v, 0, sizeof r->v);
    snprintf(r->v.etag, sizeof r->v.etag, "%s", now);
    snprintf(r->v.last_modified, sizeof r->v.last_modified, "Tue, 01 Dec 2026 10:00:00 GMT");
    /* Each part told as soon as it is whole, as the HTTP fetcher does. */
    int telling = r->part_in != NULL;
    for (uint64_t k2 = 0; k2 < n;) {
        uint64_t at = k2 % r->part_bytes, c = r->part_bytes - at < n - k2 ? r->part_bytes - at : n - k2;
        memcpy(r->parts[k2 / r->part_bytes] + at, m->bytes + r->off + k2, c);
        k2 += c;
        if (telling && (k2 % r->part_bytes == 0 || k2 == want))
            telling = r->part_in(r->part_arg, (k2 - 1) / r->part_bytes, r) == 0;
    }
    r->got = n;
    return 0;
}

static inline void mf_describe(gg_fetcher *f, gg_buf *out)
{
    gg_buf_puts(out, "\"url\": ");
    gg_json_string(out, f->name, strlen(f->name));
}

static inline void mf_close(gg_fetcher *f)
{
    free(f->name);
    free(f->key);
    free(f->cache_key);
    free(f);
}

static const gg_fetcher_ops mf_ops = {mf_fetch, mf_describe, mf_close};

static inline gg_fetcher *memfetch_open(memfetch *m)
{
    mf_fetcher *h = calloc(1, sizeof *h);
    char key[256];
    snprintf(key, sizeof key, "mem://%s", m->name);
    h->m = m;
    h->f.ops = &mf_ops;
    h->f.name = strdup(key);
    h->f.key = strdup(key);
    h->f.cache_key = strdup(key);
    return &h->f;
}

#endif
