/* mem_model.h - the small model the view and tree unit tests read through a
 * memory source (memsrc.h): an F32, an F16 and a Q8_0 tensor of a few pages
 * each, a tensor of a type nothing decodes, two KVs, and the values every
 * view must give, computed here from the stored bytes; and the reader those
 * tests read it with. Header-only. */
#ifndef GGUFFS_MEM_MODEL_H
#define GGUFFS_MEM_MODEL_H

#include <string.h>

#include "gguf_build.h"
#include "gguffs/halfconv.h"
#include "gguffs/model.h"
#include "gguffs/view.h"
#include "memsrc.h"

enum { MM_A, MM_H, MM_Q, MM_X, MM_NT }; /* blk.0.a F32, blk.0.h F16, q Q8_0, x undecodable */
#define MM_A_N 3000u
#define MM_H_N 2048u
#define MM_Q_N 4096u
#define MM_X_BYTES 100u

typedef struct mem_model {
    buf file;
    uint64_t data_at[MM_NT];          /* where each tensor's bytes start in the file */
    uint64_t nbytes[MM_NT], nelems[MM_NT];
    float *f32[MM_NT];                /* the decoded values (NULL for x) */
    memsrc src;
    memsrc *table[2];
} mem_model;

static inline void mm_build(mem_model *mm, const char *name)
{
    memset(mm, 0, sizeof *mm);
    static const char *const names[MM_NT] = {"blk.0.a", "blk.0.h", "q", "x"};
    const uint32_t types[MM_NT] = {0, 1, 8, 9999};
    mm->nelems[MM_A] = MM_A_N, mm->nbytes[MM_A] = MM_A_N * 4;
    mm->nelems[MM_H] = MM_H_N, mm->nbytes[MM_H] = MM_H_N * 2;
    mm->nelems[MM_Q] = MM_Q_N, mm->nbytes[MM_Q] = MM_Q_N / 32 * 34;
    mm->nelems[MM_X] = MM_X_BYTES, mm->nbytes[MM_X] = MM_X_BYTES;
    buf *b = &mm->file;
    head(b, 3, MM_NT, 2);
    key(b, "general.architecture", 8), str(b, "llama");
    key(b, "general.name", 8), str(b, "memory model");
    uint64_t off = 0, rel[MM_NT];
    for (int i = 0; i < MM_NT; i++) {
        uint64_t ne = mm->nelems[i];
        rel[i] = off;
        tensor(b, names[i], 1, &ne, types[i], off);
        off += (mm->nbytes[i] + 31) / 32 * 32;
    }
    pad(b, 32);
    for (int i = 0; i < MM_NT; i++)
        mm->data_at[i] = b->n + rel[i];
    for (uint32_t i = 0; i < MM_A_N; i++) {
        float v = (float)((int)(i % 97) - 48) + 0.25f * (float)(i % 4);
        put(b, &v, 4);
    }
    pad(b, 32);
    for (uint32_t i = 0; i < MM_H_N; i++) {
        float v = (float)((int)(i % 61) - 30) * 0.5f;
        uint32_t bits;
        memcpy(&bits, &v, 4);
        uint16_t h = gg_f32_to_f16_bits(bits);
        put(b, &h, 2);
    }
    pad(b, 32);
    for (uint32_t k = 0; k < MM_Q_N / 32; k++) {
        uint16_t d = 0x3800; /* 0.5 */
        put(b, &d, 2);
        for (uint32_t j = 0; j < 32; j++) {
            int8_t q = (int8_t)((int)((k * 7 + j * 3) % 255) - 127);
            put(b, &q, 1);
        }
    }
    pad(b, 32);
    for (uint32_t i = 0; i < MM_X_BYTES; i++)
        u8(b, (uint8_t)i);
    pad(b, 32);
    /* The values, from the stored bytes */
    for (int i = 0; i < MM_X; i++)
        mm->f32[i] = malloc(mm->nelems[i] * 4);
    memcpy(mm->f32[MM_A], b->p + mm->data_at[MM_A], MM_A_N * 4);
    for (uint32_t i = 0; i < MM_H_N; i++) {
        float v = (float)((int)(i % 61) - 30) * 0.5f;
        mm->f32[MM_H][i] = v; /* exact in float16 */
    }
    for (uint32_t k = 0; k < MM_Q_N / 32; k++)
        for (uint32_t j = 0; j < 32; j++)
            mm->f32[MM_Q][k * 32 + j] = 0.5f * (float)(int8_t)b->p[mm->data_at[MM_Q] + k * 34 + 2 + j];
    memsrc_init(&mm->src, name, b->p, b->n);
    mm->table[0] = &mm->src;
}

static inline int mm_open(mem_model *mm, gg_model *m, gg_err *e)
{
    gg_open_opts o;
    memset(&o, 0, sizeof o);
    o.open_url = memsrc_opener;
    o.url_arg = mm->table;
    char spec[256];
    snprintf(spec, sizeof spec, "http://mem/%s", mm->src.name);
    return gg_model_open(m, spec, &o, e);
}

/* Tensor i's view k bytes: f32 (4 per element), f16 or bf16 (2). */
static inline void *mm_view(const mem_model *mm, int i, int half, int bf16)
{
    uint64_t n = mm->nelems[i];
    if (!half) {
        void *p = malloc(n * 4);
        memcpy(p, mm->f32[i], n * 4);
        return p;
    }
    uint16_t *h = malloc(n * 2);
    for (uint64_t k = 0; k < n; k++) {
        uint32_t bits;
        memcpy(&bits, &mm->f32[i][k], 4);
        h[k] = bf16 ? gg_f32_to_bf16_bits(bits) : gg_f32_to_f16_bits(bits);
    }
    return h;
}

static inline void mm_free(mem_model *mm)
{
    for (int i = 0; i < MM_NT; i++)
        free(mm->f32[i]);
    free(mm->file.p);
}

/* The reader options of these tests: 1 MiB of cache, 2 threads, pages of
 * page_bytes (4096: 1024 floats, so the tensors have 2 to 4 pages). */
static inline void mm_reader_opts(gg_reader_opts *o, uint64_t page_bytes)
{
    gg_reader_default_opts(o);
    o->cache_bytes = 1u << 20;
    o->page_bytes = page_bytes;
    o->threads = 2;
}

#endif
