/* gguf_write.c - a GGUF header for a model's tensors stored anew (see
 * gguf_write.h). The bytes are those of the parsed header copy, which the
 * parser has bounds-checked: nothing here reads past what it validated. */
#include "gguffs/gguf_write.h"
#include "gguf_put.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void gg_put_u32(gg_buf *b, uint32_t v)
{
    uint8_t p[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    gg_buf_put(b, p, 4);
}

void gg_put_u64(gg_buf *b, uint64_t v)
{
    gg_put_u32(b, (uint32_t)v);
    gg_put_u32(b, (uint32_t)(v >> 32));
}

void gg_put_u64_at(gg_buf *b, size_t at, uint64_t v)
{
    for (int k = 0; k < 8; k++)
        b->p[at + k] = (char)(uint8_t)(v >> (8 * k));
}

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* (gguf_put.h) */
uint64_t gg_put_v1_value(gg_buf *out, const uint8_t *p, uint32_t type)
{
    if (type == GG_VT_STR) {
        uint64_t n = le(p, 4);
        gg_put_u64(out, n);
        gg_buf_put(out, p + 4, n);
        return 4 + n;
    }
    if (type != GG_VT_ARR) {
        gg_buf_put(out, p, gg_vtype_size(type));
        return gg_vtype_size(type);
    }
    uint32_t et = (uint32_t)le(p, 4);
    uint64_t n = le(p + 4, 4), at = 8;
    gg_put_u32(out, et);
    gg_put_u64(out, n);
    if (et != GG_VT_STR && et != GG_VT_ARR) {
        gg_buf_put(out, p + at, n * gg_vtype_size(et));
        return at + n * gg_vtype_size(et);
    }
    for (uint64_t i = 0; i < n && !out->oom; i++)
        at += gg_put_v1_value(out, p + at, et);
    return at;
}

static void put_key(gg_buf *out, const gg_file *f, const gg_kv *kv)
{
    gg_put_u64(out, kv->key.len);
    gg_buf_put(out, gg_str_ptr(f, kv->key), kv->key.len);
}

static int is_split_key(const gg_file *f, const gg_kv *kv)
{
    return kv->key.len > 6 && !memcmp(gg_str_ptr(f, kv->key), "split.", 6);
}

uint32_t gg_tinfo_ndims(const gg_tinfo *ti)
{
    uint32_t n = ti->n_dims < GG_MAX_DIMS ? ti->n_dims : GG_MAX_DIMS;
    while (n > 1 && ti->ne[n - 1] == 1)
        n--;
    return n ? n : 1;
}

/* A u32 key written anew. */
static void put_u32_kv(gg_buf *out, const char *key, uint32_t v)
{
    gg_put_u64(out, strlen(key));
    gg_buf_puts(out, key);
    gg_put_u32(out, GG_VT_U32);
    gg_put_u32(out, v);
}

/* n bytes of the model's header at p, as they are: into out, or a run of
 * form->share (one with the run before when they follow each other). */
static void put_as_is(gg_buf *out, size_t start, const gg_gguf_form *form, const uint8_t *p, uint64_t n)
{
    gg_gguf_runs *r = form->share;
    if (!r) {
        gg_buf_put(out, p, n);
        return;
    }
    uint64_t at = out->len - start + r->bytes;
    gg_gguf_run *last = r->n ? &r->run[r->n - 1] : NULL;
    if (last && last->at + last->len == at && last->src + last->len == p) {
        last->len += n;
    } else {
        if (r->n == r->cap) {
            size_t cap = r->cap ? 2 * r->cap : 8;
            gg_gguf_run *g = realloc(r->run, cap * sizeof *g);
            if (!g) {
                out->oom = 1;
                return;
            }
            r->run = g;
            r->cap = cap;
        }
        r->run[r->n++] = (gg_gguf_run){at, n, p};
    }
    r->bytes += n;
}

/* The keys of f (an edited model's are its edited header's): see
 * gguf_write.h, split.* left out unless keep_split; returns how many. */
static uint64_t put_keys(const gg_file *f, const gg_gguf_form *form, int keep_split, gg_buf *out, size_t start)
{
    int64_t ft = gg_find_key(f, "general.file_type");
    int64_t qv = form->quantized ? gg_find_key(f, "general.quantization_version") : -1;
    int set_ft = form->file_type != GG_FILE_TYPE_KEEP;
    uint64_t n = 0;
    for (uint64_t i = 0; i < f->n_kv; i++) {
        const gg_kv *kv = &f->kv[i];
        if ((!keep_split && is_split_key(f, kv)) || (int64_t)i == qv || ((int64_t)i == ft && form->quantized && set_ft))
            continue;
        n++;
        if ((int64_t)i == ft && set_ft) {
            put_key(out, f, kv);
            gg_put_u32(out, GG_VT_U32);
            gg_put_u32(out, (uint32_t)form->file_type);
        } else if (f->version == 1) {
            put_key(out, f, kv);
            gg_put_u32(out, kv->type);
            gg_put_v1_value(out, f->hdr + kv->val, kv->type);
        } else { /* key, type and value as they are */
            put_as_is(out, start, form, f->hdr + kv->at, kv->val + kv->val_len - kv->at);
        }
    }
    if (form->quantized) {
        n++;
        put_u32_kv(out, "general.quantization_version", GG_QNT_VERSION);
    }
    if (set_ft && (form->quantized || ft < 0)) {
        n++;
        put_u32_kv(out, "general.file_type", (uint32_t)form->file_type);
    }
    return n;
}

/* The header's start: magic, version, n_tensors and the keys of f after
 * put_keys (the key count written once they are counted); returns where
 * in out it starts. */
static size_t header_start(gg_buf *out, uint64_t n_tensors, const gg_file *f, const gg_gguf_form *form, int keep_split)
{
    size_t start = out->len;
    gg_buf_put(out, "GGUF", 4);
    gg_put_u32(out, 3);
    gg_put_u64(out, n_tensors);
    gg_put_u64(out, 0); /* (the key count, once put_keys has counted them) */
    uint64_t nkv = put_keys(f, form, keep_split, out, start);
    if (!out->oom)
        gg_put_u64_at(out, start + 16, nkv);
    return start;
}

/* One tensor info: its name, its first n_dims dimensions, type and offset. */
static void put_tensor_info(gg_buf *out, const char *name, uint64_t name_len, uint32_t n_dims, const uint64_t *ne,
                            uint32_t type_id, uint64_t offset)
{
    gg_put_u64(out, name_len);
    gg_buf_put(out, name, name_len);
    gg_put_u32(out, n_dims);
    for (uint32_t d = 0; d < n_dims; d++)
        gg_put_u64(out, ne[d]);
    gg_put_u32(out, type_id);
    gg_put_u64(out, offset);
}

/* The header's end: *data_start, the header's length (with the bytes
 * shared as they are) padded to the alignment. */
static int header_end(const gg_model *m, const gg_buf *out, size_t start, const gg_gguf_runs *share,
                      uint64_t n_tensors, uint64_t *data_start, gg_err *e)
{
    uint64_t len = out->len - start + (share ? share->bytes : 0), align = m->f->alignment;
    *data_start = n_tensors ? len + (align - len % align) % align : len; /* (no data: no padding before it) */
    return out->oom ? gg_fail(e, GG_E_NOMEM, "%s: out of memory for a GGUF header", m->path) : 0;
}

int gg_gguf_header(const gg_model *m, const gg_gguf_tensor *ts, const gg_gguf_form *form, gg_buf *out,
                   uint64_t *offset, uint64_t *data_start, uint64_t *data_bytes, gg_err *e)
{
    const uint64_t align = m->f->alignment;
    size_t start = header_start(out, m->nt, m->f, form, 0);
    uint64_t at = 0;
    for (uint64_t j = 0; j < m->nt; j++) {
        uint64_t i = form->order ? form->order[j] : j;
        const gg_tensor *t = &m->t[i];
        const gg_tinfo *ti = t->info;
        put_tensor_info(out, t->name, t->name_len, form->quantized ? gg_tinfo_ndims(ti) : ti->n_dims, ti->ne,
                        ts[i].type_id, at);
        offset[i] = at;
        uint64_t padded = ts[i].nbytes + (align - ts[i].nbytes % align) % align;
        if (padded < ts[i].nbytes || at > (uint64_t)INT64_MAX - padded)
            return gg_fail(e, GG_E_TOOBIG, "%s: the tensors would be more than 2^63 bytes", m->path);
        at += padded;
    }
    *data_bytes = at;
    return header_end(m, out, start, form->share, m->nt, data_start, e);
}

int gg_gguf_header_in_place(const gg_model *m, gg_buf *out, uint64_t *data_start, gg_err *e)
{
    const gg_file *sf = &m->shards[0].f;
    size_t start = header_start(out, sf->n_tensors, m->f, &(gg_gguf_form){.file_type = GG_FILE_TYPE_KEEP}, 1);
    for (uint64_t i = 0; i < sf->n_tensors; i++) {
        const gg_tinfo *ti = &sf->tensors[i];
        put_tensor_info(out, gg_str_ptr(sf, ti->name), ti->name.len, ti->n_dims, ti->ne, ti->type_id,
                        ti->offset);
    }
    return header_end(m, out, start, NULL, sf->n_tensors, data_start, e);
}
