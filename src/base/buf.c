/* buf.c - the growable byte buffer, growing arrays, and asprintf that returns (see buf.h). */
#include "gguffs/buf.h"
#include "gguffs/scope.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *gg_buf_room(gg_buf *b, size_t n)
{
    if (b->oom)
        return NULL;
    if (b->max && n > b->max - (b->len < b->max ? b->len : b->max)) {
        b->over = b->oom = 1;
        return NULL;
    }
    if (b->stoppable && (b->len >> 20) != ((b->len + n) >> 20) && gg_scope_stopped()) {
        b->stopped = b->oom = 1;
        return NULL;
    }
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->len + n + 1)
            nc *= 2;
        char *p = realloc(b->p, nc);
        if (!p) {
            b->oom = 1;
            return NULL;
        }
        b->p = p;
        b->cap = nc;
    }
    return b->p + b->len;
}

int gg_grow(void **arr, size_t *cap, size_t n, size_t elem, size_t first)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : first;
    void *p = realloc(*arr, nc * elem);
    if (!p)
        return -1;
    *arr = p;
    *cap = nc;
    return 0;
}

void gg_buf_put(gg_buf *b, const void *s, size_t n)
{
    char *at = gg_buf_room(b, n);
    if (!at)
        return;
    memcpy(at, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

void gg_buf_puts(gg_buf *b, const char *s) { gg_buf_put(b, s, strlen(s)); }

void gg_buf_printf(gg_buf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
    if (b->oom) /* (a renderer's loop over a huge array goes on cheaply) */
        return;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof tmp) {
        gg_buf_put(b, tmp, (size_t)n);
        return;
    }
    char *big = malloc((size_t)n + 1);
    if (!big) {
        b->oom = 1;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    gg_buf_put(b, big, (size_t)n);
    free(big);
}

void gg_buf_put_utf8(gg_buf *b, unsigned long cp)
{
    char u[4];
    size_t n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (n == 1) {
        u[0] = (char)cp;
    } else {
        for (size_t i = n - 1; i > 0; i--, cp >>= 6)
            u[i] = (char)(0x80 | (cp & 0x3f));
        u[0] = (char)((n == 2 ? 0xc0 : n == 3 ? 0xe0 : 0xf0) | cp);
    }
    gg_buf_put(b, u, n);
}

void gg_buf_free(gg_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

char *gg_vxprintf(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    return s;
}

char *gg_xprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = gg_vxprintf(fmt, ap);
    va_end(ap);
    return s;
}
