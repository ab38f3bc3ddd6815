/* gguf.c - the GGUF header parser.
 *
 * File layout (little-endian):
 *   "GGUF" u32 version, n_tensors, n_kv      (counts are u32 in v1, u64 since v2)
 *   n_kv x  { string key, u32 type, value }
 *   n_tensors x { string name, u32 n_dims, n_dims x dim, u32 type, u64 offset }
 *   padding to general.alignment (default 32), then the tensor data.
 * A string is a length (u32 in v1, u64 since v2) and that many bytes; an
 * array is u32 element type, a count, and the elements (arrays may nest).
 *
 * Hostile headers cannot make us allocate much: every length is checked
 * against the bytes left in the file before anything is reserved, and the
 * index arrays grow with what was actually parsed, not with the counts the
 * header claims. */
#include "gguffs/gguf.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "gguffs/buf.h"

typedef struct reader {
    const uint8_t *p;
    uint64_t size;  /* bytes of the whole file */
    uint64_t avail; /* bytes of it at p (the start of the file) */
    uint64_t pos;
    int v1; /* 32-bit counts and lengths */
    const char *path;
    gg_err *err;
    uint64_t *want; /* more bytes needed: how many, at least, in all */
} reader;

static int fail(reader *r, uint64_t at, const char *fmt, ...)
{
    char msg[GG_ERR_LEN / 2];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gg_fail(r->err, GG_E_MALFORMED, "%s: offset %" PRIu64 ": %s", r->path, at, msg);
}

/* n more bytes from pos: past the end of the file is an error; past what
 * the caller gave us (but within the file) asks for more bytes. */
static int need(reader *r, uint64_t n, const char *what)
{
    if (n > r->size - r->pos)
        return fail(r, r->pos, "%s needs %" PRIu64 " bytes but the file ends at %" PRIu64
                    " (truncated?)", what, n, r->size);
    if (n > r->avail - r->pos) {
        if (r->want)
            *r->want = r->pos + n;
        return gg_fail(r->err, GG_E_AGAIN, "%s: the header goes on past byte %" PRIu64, r->path, r->avail);
    }
    return 0;
}

static int rd_u32(reader *r, uint32_t *v, const char *what)
{
    if (need(r, 4, what))
        return -1;
    const uint8_t *p = r->p + r->pos;
    *v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    r->pos += 4;
    return 0;
}

static int rd_u64(reader *r, uint64_t *v, const char *what)
{
    uint32_t lo, hi;
    if (need(r, 8, what) || rd_u32(r, &lo, what) || rd_u32(r, &hi, what))
        return -1;
    *v = (uint64_t)hi << 32 | lo;
    return 0;
}

/* A count or length: u32 in GGUF v1, u64 later. */
static int rd_count(reader *r, uint64_t *v, const char *what)
{
    if (r->v1) {
        uint32_t x;
        if (rd_u32(r, &x, what))
            return -1;
        *v = x;
        return 0;
    }
    return rd_u64(r, v, what);
}

static int rd_str(reader *r, gg_bytes *s, const char *what)
{
    uint64_t at = r->pos, len;
    if (rd_count(r, &len, what))
        return -1;
    if (len > GG_MAX_STRING)
        return fail(r, at, "%s: length %" PRIu64 " is over the 1 GiB limit", what, len);
    if (len > r->size - r->pos)
        return fail(r, at, "%s: length %" PRIu64 " runs past the end of the file (%" PRIu64
                    " bytes left)", what, len, r->size - r->pos);
    if (need(r, len, what))
        return -1;
    s->off = r->pos;
    s->len = len;
    r->pos += len;
    return 0;
}

static const char *const vtype_names[GG_VT_COUNT] = {
    "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "str", "arr", "u64", "i64", "f64"};
static const uint8_t vtype_sizes[GG_VT_COUNT] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

const char *gg_vtype_name(uint32_t t) { return t < GG_VT_COUNT ? vtype_names[t] : "?"; }
size_t gg_vtype_size(uint32_t t) { return t < GG_VT_COUNT ? vtype_sizes[t] : 0; }

/* Skip over one value of type `type` (validating it), depth = array nesting. */
static int skip_value(reader *r, uint32_t type, int depth, const char *what)
{
    if (type >= GG_VT_COUNT)
        return fail(r, r->pos, "%s: unknown value type %" PRIu32, what, type);
    if (type == GG_VT_STR) {
        gg_bytes s;
        return rd_str(r, &s, what);
    }
    if (type != GG_VT_ARR) {
        if (need(r, vtype_sizes[type], what))
            return -1;
        if (type == GG_VT_BOOL && r->p[r->pos] > 1)
            return fail(r, r->pos, "%s: bool value %u is neither 0 nor 1", what, r->p[r->pos]);
        r->pos += vtype_sizes[type];
        return 0;
    }
    if (depth >= GG_MAX_NESTING)
        return fail(r, r->pos, "%s: arrays nested deeper than %d levels", what, GG_MAX_NESTING);
    uint64_t at = r->pos, n;
    uint32_t et;
    if (rd_u32(r, &et, what) || rd_count(r, &n, what))
        return -1;
    if (et >= GG_VT_COUNT)
        return fail(r, at, "%s: unknown array element type %" PRIu32, what, et);
    /* Every element takes at least this many bytes: refuse counts the file
     * cannot hold before walking them. */
    uint64_t min = et == GG_VT_STR ? (r->v1 ? 4 : 8) : et == GG_VT_ARR ? (r->v1 ? 8 : 12) : vtype_sizes[et];
    if (n > (r->size - r->pos) / min)
        return fail(r, at, "%s: array of %" PRIu64 " %s elements cannot fit in the %" PRIu64
                    " bytes left", what, n, vtype_names[et], r->size - r->pos);
    if (et != GG_VT_STR && et != GG_VT_ARR && et != GG_VT_BOOL) {
        if (need(r, n * min, what))
            return -1;
        r->pos += n * min;
        return 0;
    }
    for (uint64_t i = 0; i < n; i++)
        if (skip_value(r, et, depth + 1, what))
            return -1;
    return 0;
}

static int bytes_eq(const reader *r, gg_bytes a, gg_bytes b)
{
    return a.len == b.len && memcmp(r->p + a.off, r->p + b.off, a.len) == 0;
}

/* Returns the index of an earlier item with the same name, or -1; adds this
 * one. Open addressing over indices, table sized 2x the items. */
typedef struct dupset {
    int64_t *slot;
    uint64_t cap;
} dupset;

static int64_t dup_check(reader *r, dupset *d, const gg_bytes *names, size_t stride, uint64_t i)
{
    const gg_bytes *me = (const gg_bytes *)((const char *)names + i * stride);
    uint64_t h = gg_hash64(r->p + me->off, me->len, 0);
    for (uint64_t k = h & (d->cap - 1);; k = (k + 1) & (d->cap - 1)) {
        if (d->slot[k] < 0) {
            d->slot[k] = (int64_t)i;
            return -1;
        }
        const gg_bytes *o = (const gg_bytes *)((const char *)names + (uint64_t)d->slot[k] * stride);
        if (bytes_eq(r, *o, *me))
            return d->slot[k];
    }
}

static int dupset_init(dupset *d, uint64_t n)
{
    d->cap = 16;
    while (d->cap < 2 * n)
        d->cap *= 2;
    d->slot = malloc(d->cap * sizeof *d->slot);
    if (!d->slot)
        return -1;
    memset(d->slot, 0xff, d->cap * sizeof *d->slot);
    return 0;
}

/* Printable form of a name for messages: at most 80 bytes, control bytes as '?'. */
static const char *shown(const reader *r, gg_bytes b, char *out, size_t outsz)
{
    size_t n = b.len < outsz - 4 ? b.len : outsz - 4;
    if (n > 80)
        n = 80;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = r->p[b.off + i];
        out[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    strcpy(out + n, n < b.len ? "..." : "");
    return out;
}

static int parse_kvs(reader *r, gg_file *f)
{
    size_t cap = 0;
    char what[160], nm[96];
    for (uint64_t i = 0; i < f->n_kv; i++) {
        if (gg_grow((void **)&f->kv, &cap, i, sizeof *f->kv, 64))
            return fail(r, r->pos, "out of memory");
        gg_kv *kv = &f->kv[i];
        memset(kv, 0, sizeof *kv);
        kv->at = r->pos;
        snprintf(what, sizeof what, "key %" PRIu64, i);
        if (rd_str(r, &kv->key, what))
            return -1;
        snprintf(what, sizeof what, "key %" PRIu64 " \"%.40s\"", i, shown(r, kv->key, nm, sizeof nm));
        if (rd_u32(r, &kv->type, what))
            return -1;
        if (kv->type >= GG_VT_COUNT)
            return fail(r, r->pos - 4, "%s: unknown value type %" PRIu32, what, kv->type);
        kv->val = r->pos;
        if (kv->type == GG_VT_ARR) {
            /* Peek the element type and count; skip_value validates them. */
            reader peek = *r;
            if (rd_u32(&peek, &kv->arr_type, what) || rd_count(&peek, &kv->arr_n, what))
                return -1;
        }
        if (skip_value(r, kv->type, 0, what))
            return -1;
        kv->val_len = r->pos - kv->val;
    }
    dupset d;
    if (dupset_init(&d, f->n_kv))
        return fail(r, 0, "out of memory");
    for (uint64_t i = 0; i < f->n_kv; i++) {
        int64_t j = dup_check(r, &d, &f->kv[0].key, sizeof *f->kv, i);
        if (j >= 0) {
            free(d.slot);
            return fail(r, f->kv[i].at, "key %" PRIu64 " \"%s\" duplicates key %" PRId64, i,
                        shown(r, f->kv[i].key, nm, sizeof nm), j);
        }
    }
    free(d.slot);
    return 0;
}

static int parse_tensor_infos(reader *r, gg_file *f)
{
    size_t cap = 0;
    char what[160], nm[96];
    for (uint64_t i = 0; i < f->n_tensors; i++) {
        if (gg_grow((void **)&f->tensors, &cap, i, sizeof *f->tensors, 64))
            return fail(r, r->pos, "out of memory");
        gg_tinfo *t = &f->tensors[i];
        memset(t, 0, sizeof *t);
        t->at = r->pos;
        snprintf(what, sizeof what, "tensor %" PRIu64 " name", i);
        if (rd_str(r, &t->name, what))
            return -1;
        snprintf(what, sizeof what, "tensor %" PRIu64 " \"%s\"", i, shown(r, t->name, nm, sizeof nm));
        uint64_t at = r->pos;
        if (rd_u32(r, &t->n_dims, what))
            return -1;
        if (t->n_dims > GG_MAX_DIMS)
            return fail(r, at, "%s: %" PRIu32 " dimensions (ggml allows at most %d)", what,
                        t->n_dims, GG_MAX_DIMS);
        t->nelems = 1;
        for (int d = 0; d < GG_MAX_DIMS; d++)
            t->ne[d] = 1;
        uint64_t rows = 1; /* product of ne[1..]: with ne[0] = 0 it is not bounded by nelems */
        for (uint32_t d = 0; d < t->n_dims; d++) {
            at = r->pos;
            if (rd_count(r, &t->ne[d], what))
                return -1;
            if (t->ne[d] > (uint64_t)INT64_MAX)
                return fail(r, at, "%s: dimension %" PRIu32 " is negative (%" PRId64 ")", what, d,
                            (int64_t)t->ne[d]);
            /* The f32 file of the tensor is n_elements * 4 bytes: that must
             * be a valid file size (63 bits) too. */
            if (t->ne[d] && t->nelems > (uint64_t)(INT64_MAX / 4) / t->ne[d])
                return fail(r, at, "%s: element count overflows (n_elements * 4 must fit in 63 bits)",
                            what);
            t->nelems *= t->ne[d];
            if (d > 0 && t->ne[d] && rows > (uint64_t)INT64_MAX / t->ne[d])
                return fail(r, at, "%s: row count overflows 63 bits", what);
            if (d > 0)
                rows *= t->ne[d];
        }
        if (rd_u32(r, &t->type_id, what))
            return -1;
        if (rd_u64(r, &t->offset, what))
            return -1;
    }
    dupset d;
    if (dupset_init(&d, f->n_tensors))
        return fail(r, 0, "out of memory");
    for (uint64_t i = 0; i < f->n_tensors; i++) {
        int64_t j = dup_check(r, &d, &f->tensors[0].name, sizeof *f->tensors, i);
        if (j >= 0) {
            free(d.slot);
            return fail(r, f->tensors[i].at, "tensor %" PRIu64 " \"%s\" has the same name as tensor %"
                        PRId64, i, shown(r, f->tensors[i].name, nm, sizeof nm), j);
        }
    }
    free(d.slot);
    return 0;
}

int64_t gg_find_key_n(const gg_file *f, const char *key, size_t n)
{
    for (uint64_t i = 0; i < f->n_kv; i++)
        if (f->kv[i].key.len == n && memcmp(f->hdr + f->kv[i].key.off, key, n) == 0)
            return (int64_t)i;
    return -1;
}

int64_t gg_find_key(const gg_file *f, const char *key) { return gg_find_key_n(f, key, strlen(key)); }

static uint64_t load_le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

uint64_t gg_kv_u64(const gg_file *f, const gg_kv *kv)
{
    return load_le(f->hdr + kv->val, gg_vtype_size(kv->type));
}

int64_t gg_kv_i64(const gg_file *f, const gg_kv *kv)
{
    size_t n = gg_vtype_size(kv->type);
    uint64_t v = load_le(f->hdr + kv->val, n);
    int signed_type = kv->type == GG_VT_I8 || kv->type == GG_VT_I16 || kv->type == GG_VT_I32 ||
                      kv->type == GG_VT_I64;
    if (signed_type && n < 8 && (v >> (8 * n - 1)) & 1)
        v |= ~0ull << (8 * n);
    return (int64_t)v;
}

static int read_alignment(reader *r, gg_file *f)
{
    f->alignment = GG_DEFAULT_ALIGNMENT;
    int64_t i = gg_find_key(f, "general.alignment");
    if (i < 0)
        return 0;
    const gg_kv *kv = &f->kv[i];
    if (kv->type != GG_VT_U32)
        return fail(r, kv->at, "general.alignment has type %s (must be u32)", gg_vtype_name(kv->type));
    uint64_t a = gg_kv_u64(f, kv);
    if (a == 0 || (a & (a - 1)))
        return fail(r, kv->at, "general.alignment %" PRIu64 " is not a power of two", a);
    f->alignment = (uint32_t)a;
    return 0;
}

int gg_parse(const char *path, const uint8_t *bytes, uint64_t avail, uint64_t size, gg_file *f,
             uint64_t *want, gg_err *err)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    f->size = size;
    if (avail > size)
        avail = size;
    reader r = {bytes, size, avail, 0, 0, path, err, want};
    /* The header copy is the file's own bytes; parse in place, copy at the end. */
    f->hdr = (uint8_t *)bytes;

    if (size >= 4 && avail < 4) {
        need(&r, 4, "magic");
        goto bad;
    }
    if (size < 4 || memcmp(bytes, "GGUF", 4) != 0) {
        if (size >= 4 && memcmp(bytes, "FUGG", 4) == 0)
            fail(&r, 0, "magic \"FUGG\": a byte-swapped (big-endian) GGUF file, which is not supported");
        else
            fail(&r, 0, "not a GGUF file (magic %s)", size < 4 ? "missing: file shorter than 4 bytes" :
                 "is not \"GGUF\"");
        goto bad;
    }
    r.pos = 4;
    if (rd_u32(&r, &f->version, "version"))
        goto bad;
    /* A big-endian writer keeps the magic's bytes but byte-swaps the version:
     * version 3 reads as 0x03000000 here. */
    if ((f->version & 0xffffff) == 0 && f->version >> 24 >= 1 && f->version >> 24 <= 3) {
        fail(&r, 4, "version field 0x%08" PRIx32 " is GGUF version %" PRIu32
             " written big-endian; big-endian GGUF files are not supported",
             f->version, f->version >> 24);
        goto bad;
    }
    if (f->version < 1 || f->version > 3) {
        fail(&r, 4, "GGUF version %" PRIu32 " is not supported (versions 1 to 3 are)", f->version);
        goto bad;
    }
    r.v1 = f->version == 1;
    if (rd_count(&r, &f->n_tensors, "tensor count") || rd_count(&r, &f->n_kv, "key/value count"))
        goto bad;
    /* Cheap early refusals of counts the file cannot hold (minimum sizes:
     * KV len+4+1 bytes, tensor info len+4+4+8 bytes). */
    uint64_t len_bytes = r.v1 ? 4 : 8;
    if (f->n_kv > (size - r.pos) / (len_bytes + 5)) {
        fail(&r, r.v1 ? 12 : 16, "key/value count %" PRIu64 " cannot fit in a %" PRIu64 "-byte file",
             f->n_kv, size);
        goto bad;
    }
    if (f->n_tensors > (size - r.pos) / (len_bytes + 16)) {
        fail(&r, 8, "tensor count %" PRIu64 " cannot fit in a %" PRIu64 "-byte file", f->n_tensors,
             size);
        goto bad;
    }
    if (parse_kvs(&r, f) || read_alignment(&r, f) || parse_tensor_infos(&r, f))
        goto bad;
    f->hdr_len = r.pos;
    uint64_t a = f->alignment;
    f->data_offset = (r.pos + a - 1) / a * a;
    if (f->n_tensors && f->data_offset > size) {
        fail(&r, r.pos, "data section would start at %" PRIu64 " but the file ends at %" PRIu64,
             f->data_offset, size);
        goto bad;
    }
    /* Keep our own copy of the header: the file may change under us later. */
    f->hdr = malloc(f->hdr_len ? f->hdr_len : 1);
    if (!f->hdr) {
        fail(&r, 0, "out of memory for a %" PRIu64 "-byte header", f->hdr_len);
        goto bad;
    }
    memcpy(f->hdr, bytes, f->hdr_len);
    return 0;
bad:
    f->hdr = NULL;
    gg_file_free(f);
    return -1;
}

void gg_file_free(gg_file *f)
{
    free(f->hdr);
    free(f->kv);
    free(f->tensors);
    f->hdr = NULL;
    f->kv = NULL;
    f->tensors = NULL;
}
