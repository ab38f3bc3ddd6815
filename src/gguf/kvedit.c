/* kvedit.c - a model's metadata with edits applied (see kvedit.h). */
#include "gguffs/kvedit.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/buf.h"
#include "gguf_put.h"

/* ---- value types ---- */

/* The scalar type named s ("u32", "str", ...; not "arr"), or GG_VT_COUNT. */
static uint32_t vtype_by_name(const char *s)
{
    for (uint32_t t = 0; t < GG_VT_COUNT; t++)
        if (t != GG_VT_ARR && !strcmp(s, gg_vtype_name(t)))
            return t;
    return GG_VT_COUNT;
}

int gg_vdesc_parse(const char *s, gg_vdesc *d)
{
    memset(d, 0, sizeof *d);
    size_t n = strlen(s), depth = 0;
    /* "arr[" ... "]" around the innermost name, as many times as it nests */
    while (n >= 5 && !memcmp(s, "arr[", 4) && s[n - 1] == ']') {
        if (depth > GG_MAX_NESTING)
            return -1;
        d->t[depth++] = GG_VT_ARR;
        s += 4;
        n -= 5;
    }
    char name[8];
    if (n == 0 || n >= sizeof name)
        return -1;
    memcpy(name, s, n);
    name[n] = 0;
    d->t[depth] = vtype_by_name(name);
    return d->t[depth] == GG_VT_COUNT ? -1 : 0;
}

void gg_vdesc_name(const gg_vdesc *d, char *out, size_t cap)
{
    size_t depth = 0, k = 0;
    while (depth <= GG_MAX_NESTING && d->t[depth] == GG_VT_ARR)
        depth++;
    for (size_t i = 0; i < depth && k + 5 < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, "arr[");
    if (k < cap)
        k += (size_t)snprintf(out + k, cap - k, "%s", d->t[depth] < GG_VT_COUNT ? gg_vtype_name(d->t[depth]) : "?");
    for (size_t i = 0; i < depth && k + 1 < cap; i++)
        out[k++] = ']';
    out[k < cap ? k : cap - 1] = 0;
}

static uint64_t le(const uint8_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

void gg_vdesc_of(const gg_file *f, const gg_kv *kv, gg_vdesc *d)
{
    memset(d, 0, sizeof *d);
    d->t[0] = kv->type;
    if (kv->type != GG_VT_ARR)
        return;
    /* An array's element type, and an array of arrays' first element's. */
    const int cw = f->version == 1 ? 4 : 8;
    const uint8_t *p = f->hdr + kv->val;
    uint64_t n = kv->arr_n;
    d->t[1] = kv->arr_type;
    for (int depth = 1; d->t[depth] == GG_VT_ARR && depth <= GG_MAX_NESTING; depth++) {
        if (n == 0) {
            d->t[depth + 1] = GG_VT_COUNT;
            break;
        }
        p += 4 + cw; /* the outer array's type and count: its first element follows */
        d->t[depth + 1] = (uint32_t)le(p, 4);
        n = le(p + 4, cw);
    }
}

/* ---- the list of edits ---- */

void gg_edits_free(gg_edits *ed)
{
    for (size_t i = 0; i < ed->n; i++) {
        free(ed->e[i].key);
        free(ed->e[i].val);
    }
    free(ed->e);
    memset(ed, 0, sizeof *ed);
}

static int edit_fill(gg_edit *d, const char *key, size_t key_len, int removed, uint32_t type, const void *val,
                     uint64_t val_len)
{
    memset(d, 0, sizeof *d);
    d->key = malloc(key_len + 1);
    d->val = malloc(val_len ? val_len : 1);
    if (!d->key || !d->val) {
        free(d->key);
        free(d->val);
        return -1;
    }
    memcpy(d->key, key, key_len);
    d->key[key_len] = 0;
    if (val_len)
        memcpy(d->val, val, val_len);
    d->key_len = key_len;
    d->removed = removed;
    d->type = type;
    d->val_len = val_len;
    return 0;
}

int gg_edits_copy(gg_edits *dst, const gg_edits *src)
{
    memset(dst, 0, sizeof *dst);
    if (!src->n)
        return 0;
    dst->e = calloc(src->n, sizeof *dst->e);
    if (!dst->e)
        return -1;
    dst->cap = src->n;
    for (size_t i = 0; i < src->n; i++) {
        const gg_edit *s = &src->e[i];
        if (edit_fill(&dst->e[i], s->key, s->key_len, s->removed, s->type, s->val, s->val_len)) {
            gg_edits_free(dst);
            return -1;
        }
        dst->n++;
    }
    return 0;
}

static gg_edit *find(const gg_edits *ed, const char *key, size_t key_len)
{
    for (size_t i = 0; i < ed->n; i++)
        if (ed->e[i].key_len == key_len && !memcmp(ed->e[i].key, key, key_len))
            return &ed->e[i];
    return NULL;
}

/* The entry of key (made at the end if there is none). */
static int put(gg_edits *ed, const char *key, size_t key_len, int removed, uint32_t type, const void *val,
               uint64_t val_len)
{
    gg_edit fresh;
    if (edit_fill(&fresh, key, key_len, removed, type, val, val_len))
        return -1;
    gg_edit *old = find(ed, key, key_len);
    if (old) {
        free(old->key);
        free(old->val);
        *old = fresh;
        return 0;
    }
    if (gg_grow((void **)&ed->e, &ed->cap, ed->n, sizeof *ed->e, 8)) {
        free(fresh.key);
        free(fresh.val);
        return -1;
    }
    ed->e[ed->n++] = fresh;
    return 0;
}

int gg_edits_set(gg_edits *ed, const char *key, size_t key_len, uint32_t type, const void *val, uint64_t val_len)
{
    return put(ed, key, key_len, 0, type, val, val_len);
}

int gg_edits_remove(gg_edits *ed, const gg_file *f, const char *key, size_t key_len)
{
    if (gg_find_key_n(f, key, key_len) >= 0)
        return put(ed, key, key_len, 1, 0, NULL, 0);
    gg_edit *old = find(ed, key, key_len);
    if (old) { /* a key that was new: as if never set */
        free(old->key);
        free(old->val);
        memmove(old, old + 1, (size_t)(ed->e + ed->n - old - 1) * sizeof *old);
        ed->n--;
    }
    return 0;
}

/* Rules of keys a model's reader depends on: general.alignment a u32
 * power of two. 0, or -1 with *e (GG_E_INVAL) naming the key and why. */
static int check(const gg_edits *ed, gg_err *e)
{
    const gg_edit *a = find(ed, "general.alignment", 17);
    if (a && !a->removed) {
        if (a->type != GG_VT_U32)
            return gg_fail(e, GG_E_INVAL, "general.alignment: must be a u32 (not %s)", gg_vtype_name(a->type));
        uint64_t v = le(a->val, 4);
        if (v == 0 || (v & (v - 1)))
            return gg_fail(e, GG_E_INVAL, "general.alignment: %" PRIu64 " is not a power of two", v);
    }
    return 0;
}

/* ---- applying them ---- */

static void put_key(gg_buf *b, const char *key, uint64_t len)
{
    gg_put_u64(b, len);
    gg_buf_put(b, key, len);
}

int gg_edits_apply(const gg_file *f, const gg_edits *ed, const char *path, gg_file *out, gg_err *e)
{
    if (check(ed, e))
        return -1;
    gg_buf b = {0};
    uint64_t nkv = 0, room = f->hdr_len + 64;
    for (size_t i = 0; i < ed->n; i++)
        room += ed->e[i].key_len + ed->e[i].val_len + 16;
    gg_buf_room(&b, room); /* (once: a vocabulary's header is megabytes) */
    gg_buf_put(&b, "GGUF", 4);
    gg_put_u32(&b, 3);
    gg_put_u64(&b, 0);
    gg_put_u64(&b, 0); /* (the key count, below) */
    for (uint64_t i = 0; i < f->n_kv && !b.oom; i++) {
        const gg_kv *kv = &f->kv[i];
        const gg_edit *d = find(ed, gg_str_ptr(f, kv->key), kv->key.len);
        if (d && d->removed)
            continue;
        nkv++;
        put_key(&b, gg_str_ptr(f, kv->key), kv->key.len);
        if (d) {
            gg_put_u32(&b, d->type);
            gg_buf_put(&b, d->val, d->val_len);
        } else {
            gg_put_u32(&b, kv->type);
            if (f->version == 1)
                gg_put_v1_value(&b, f->hdr + kv->val, kv->type);
            else
                gg_buf_put(&b, f->hdr + kv->val, kv->val_len);
        }
    }
    for (size_t i = 0; i < ed->n && !b.oom; i++) {
        const gg_edit *d = &ed->e[i];
        if (d->removed || gg_find_key_n(f, d->key, d->key_len) >= 0)
            continue;
        nkv++;
        put_key(&b, d->key, d->key_len);
        gg_put_u32(&b, d->type);
        gg_buf_put(&b, d->val, d->val_len);
    }
    if (b.oom) {
        gg_buf_free(&b);
        return gg_fail(e, GG_E_NOMEM, "%s: out of memory for its edited header", path);
    }
    for (int k = 0; k < 8; k++)
        b.p[16 + k] = (char)(uint8_t)(nkv >> (8 * k));
    int rc = gg_parse(path, (const uint8_t *)b.p, b.len, b.len, out, NULL, e);
    gg_buf_free(&b);
    if (rc)
        gg_err_prefix(e, "the edited header");
    return rc;
}

/* ---- the edited model ---- */

gg_model *gg_kvedit_view(const gg_model *m, gg_file *f)
{
    gg_model *v = malloc(sizeof *v);
    gg_file *own = malloc(sizeof *own);
    if (!v || !own) {
        free(v);
        free(own);
        gg_file_free(f);
        return NULL;
    }
    *own = *f;
    *v = *m;
    v->f = own;
    return v;
}

void gg_kvedit_view_free(gg_model *v)
{
    if (!v)
        return;
    gg_file_free(v->f);
    free(v->f);
    free(v);
}
