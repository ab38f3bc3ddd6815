/* memsrc.h - a source (source.h) over bytes in memory, for the C unit tests:
 * it counts what is read and injects faults at chosen offsets, as
 * mountpoint-s3's tests do with their mock client. Header-only, like
 * testlib.h. Layer: a test double of source/.
 *
 *   MS_EIO     a read touching byte `at` fails: GG_E_IO "NAME: offset N: injected I/O error"
 *   MS_SHORT   a read touching `at` copies the bytes before it, then fails
 *              GG_E_IO "cut short" (as a file cut short does)
 *   MS_CHANGE  a read touching `at` finds the object changed: the validator
 *              moves on, and that read and every later one (checks too) give
 *              GG_E_STALE, as a file rewritten in place does
 * A fault hits `times` reads (0: every read); memsrc_clear() lifts them all.
 * memsrc_change() changes the object at once (the next check sees it).
 *
 * Models open as "http://mem/NAME" through memsrc_opener (the URL hook of
 * gg_open_opts), so no path on disk is involved. */
#ifndef GGUFFS_MEMSRC_H
#define GGUFFS_MEMSRC_H

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/error.h"
#include "gguffs/source.h"

typedef enum { MS_EIO = 1, MS_SHORT, MS_CHANGE } ms_kind;
typedef struct ms_fault {
    uint64_t at;
    ms_kind kind;
    int times; /* reads it hits; 0: every read */
} ms_fault;

#define MS_MAX_FAULTS 8
typedef struct memsrc {
    const char *name; /* opened as "http://mem/NAME" */
    const uint8_t *bytes;
    uint64_t size;
    pthread_mutex_t mu; /* guards the faults (read-ahead workers read too) */
    ms_fault fault[MS_MAX_FAULTS];
    int nfault;
    _Atomic uint64_t reads, bytes_read, checks;
    _Atomic int version; /* the validator: what "the same object" means */
} memsrc;

typedef struct ms_source {
    gg_source s;
    memsrc *m;
    int version; /* the object's validator when it was opened */
} ms_source;

static inline void memsrc_init(memsrc *m, const char *name, const void *bytes, uint64_t size)
{
    memset(m, 0, sizeof *m);
    m->name = name;
    m->bytes = bytes;
    m->size = size;
    pthread_mutex_init(&m->mu, NULL);
}

static inline void memsrc_fault(memsrc *m, uint64_t at, ms_kind kind, int times)
{
    pthread_mutex_lock(&m->mu);
    if (m->nfault < MS_MAX_FAULTS)
        m->fault[m->nfault++] = (ms_fault){at, kind, times};
    pthread_mutex_unlock(&m->mu);
}

static inline void memsrc_clear(memsrc *m)
{
    pthread_mutex_lock(&m->mu);
    m->nfault = 0;
    pthread_mutex_unlock(&m->mu);
}

static inline void memsrc_change(memsrc *m) { atomic_fetch_add(&m->version, 1); }

static inline int ms_stale(ms_source *s, gg_err *e)
{
    atomic_store(&s->s.stale, 1);
    return gg_fail(e, GG_E_STALE, "%s: changed since it was mounted", s->s.name);
}

static inline int ms_check(gg_source *src, gg_err *e)
{
    ms_source *s = (ms_source *)src;
    atomic_fetch_add(&s->m->checks, 1);
    if (atomic_load(&src->stale) || atomic_load(&s->m->version) != s->version)
        return ms_stale(s, e);
    return 0;
}

/* The fault a read of [off, off+n) meets first, taking one of its hits. */
static inline int ms_take_fault(memsrc *m, uint64_t off, size_t n, ms_fault *out)
{
    int found = 0;
    pthread_mutex_lock(&m->mu);
    for (int i = 0; i < m->nfault && !found; i++) {
        ms_fault *f = &m->fault[i];
        if (f->at < off || f->at >= off + n || f->times < 0)
            continue;
        *out = *f;
        found = 1;
        if (f->times > 0 && --f->times == 0)
            f->times = -1; /* spent */
    }
    pthread_mutex_unlock(&m->mu);
    return found;
}

static inline int ms_read(gg_source *src, void *buf, size_t n, uint64_t off, gg_err *e)
{
    ms_source *s = (ms_source *)src;
    memsrc *m = s->m;
    atomic_fetch_add(&m->reads, 1);
    if (ms_check(src, e))
        return -1;
    ms_fault f;
    if (ms_take_fault(m, off, n, &f)) {
        if (f.kind == MS_CHANGE) {
            memsrc_change(m);
            return ms_stale(s, e);
        }
        if (f.kind == MS_SHORT) {
            memcpy(buf, m->bytes + off, f.at - off);
            atomic_fetch_add(&m->bytes_read, f.at - off);
            return gg_fail(e, GG_E_IO, "%s: read of [%" PRIu64 ", +%zu): cut short at %" PRIu64, src->name, off, n,
                           f.at);
        }
        return gg_fail(e, GG_E_IO, "%s: offset %" PRIu64 ": injected I/O error", src->name, f.at);
    }
    memcpy(buf, m->bytes + off, n);
    atomic_fetch_add(&m->bytes_read, n);
    return 0;
}

static inline void ms_describe(gg_source *src, gg_buf *out) { gg_buf_puts(out, "\"memory\": true"); }

static inline void ms_close(gg_source *src)
{
    free(src->name);
    free(src->id);
    free(src);
}

static const gg_source_ops ms_ops = {ms_read, ms_check, ms_describe, ms_close};

static inline gg_source *memsrc_open(memsrc *m, gg_err *e)
{
    ms_source *s = calloc(1, sizeof *s);
    if (!s) {
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    s->m = m;
    s->version = atomic_load(&m->version);
    s->s.ops = &ms_ops;
    s->s.size = m->size;
    s->s.remote = 0;
    size_t len = strlen(m->name) + 32;
    s->s.name = malloc(len);
    s->s.id = malloc(len);
    if (!s->s.name || !s->s.id) {
        ms_close(&s->s);
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    snprintf(s->s.name, len, "http://mem/%s", m->name);
    snprintf(s->s.id, len, "mem:%s:v%d", m->name, s->version);
    return &s->s;
}

/* gg_url_opener over a NULL-terminated array of memsrc: "http://mem/NAME". */
static inline gg_source *memsrc_opener(void *table, const char *spec, gg_err *e)
{
    const char *pre = "http://mem/";
    if (!strncmp(spec, pre, strlen(pre)))
        for (memsrc **m = table; *m; m++)
            if (!strcmp((*m)->name, spec + strlen(pre)))
                return memsrc_open(*m, e);
    gg_fail(e, GG_E_NOTFOUND, "%s: no such memory source", spec);
    return NULL;
}

#endif
