/* gguf_build.h - GGUF files built byte by byte in memory, for the C unit
 * tests (test_gguf, test_view, test_tree share this one copy). Header-only,
 * like testlib.h. Counts are u32 in a version 1 file, u64 otherwise. */
#ifndef GGUFFS_GGUF_BUILD_H
#define GGUFFS_GGUF_BUILD_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
    int v1;
} buf;

static inline void put(buf *b, const void *s, size_t n)
{
    if (!n)
        return;
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
static inline void u8(buf *b, uint8_t v) { put(b, &v, 1); }
static inline void u32(buf *b, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        u8(b, (uint8_t)(v >> (8 * i)));
}
static inline void u64(buf *b, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        u8(b, (uint8_t)(v >> (8 * i)));
}
static inline void count(buf *b, uint64_t n)
{
    if (b->v1)
        u32(b, (uint32_t)n);
    else
        u64(b, n);
}
static inline void str(buf *b, const char *s) { count(b, strlen(s)), put(b, s, strlen(s)); }
static inline void head(buf *b, uint32_t version, uint64_t n_tensors, uint64_t n_kv)
{
    memset(b, 0, sizeof *b);
    b->v1 = version == 1;
    put(b, "GGUF", 4);
    u32(b, version);
    count(b, n_tensors);
    count(b, n_kv);
}
static inline void key(buf *b, const char *k, uint32_t type) { str(b, k), u32(b, type); }
static inline void tensor(buf *b, const char *name, uint32_t n_dims, const uint64_t *ne, uint32_t type,
                          uint64_t off)
{
    str(b, name);
    u32(b, n_dims);
    for (uint32_t d = 0; d < n_dims; d++)
        count(b, ne[d]);
    u32(b, type);
    u64(b, off);
}
static inline void pad(buf *b, size_t a)
{
    while (b->n % a)
        u8(b, 0);
}

#endif
