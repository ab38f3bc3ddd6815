/* kvget.c - typed reads of metadata values (see kvget.h). */
#include "gguffs/kvget.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Bytes of a length or count field: 4 in GGUF version 1, else 8. */
static size_t lenw(const gg_file *f) { return f->version == 1 ? 4 : 8; }

const gg_kv *gg_kv_get(const gg_file *f, const char *arch, const char *suffix)
{
    char key[256];
    if (snprintf(key, sizeof key, "%s%s%s", arch ? arch : "", arch ? "." : "", suffix) >= (int)sizeof key)
        return NULL;
    int64_t i = gg_find_key(f, key);
    return i < 0 ? NULL : &f->kv[i];
}

const gg_kv *gg_kv_named(const gg_file *f, const char *key, size_t n)
{
    int64_t i = gg_find_key_n(f, key, n);
    return i < 0 ? NULL : &f->kv[i];
}

static int is_int(uint32_t t)
{
    return t == GG_VT_U8 || t == GG_VT_I8 || t == GG_VT_U16 || t == GG_VT_I16 || t == GG_VT_U32 ||
           t == GG_VT_I32 || t == GG_VT_U64 || t == GG_VT_I64 || t == GG_VT_BOOL;
}

static int is_signed(uint32_t t) { return t == GG_VT_I8 || t == GG_VT_I16 || t == GG_VT_I32 || t == GG_VT_I64; }

int64_t gg_kv_arr_int(uint32_t type, const uint8_t *data, uint64_t i)
{
    size_t n = gg_vtype_size(type);
    uint64_t v = le(data + i * n, n);
    if (is_signed(type) && n < 8 && (v >> (8 * n - 1)) & 1)
        v |= ~0ull << (8 * n);
    return (int64_t)v;
}

double gg_kv_arr_double(uint32_t type, const uint8_t *data, uint64_t i)
{
    if (type == GG_VT_F32) {
        uint32_t b = (uint32_t)le(data + 4 * i, 4);
        float x;
        memcpy(&x, &b, 4);
        return x;
    }
    if (type == GG_VT_F64) {
        uint64_t b = le(data + 8 * i, 8);
        double x;
        memcpy(&x, &b, 8);
        return x;
    }
    if (type == GG_VT_U64)
        return (double)le(data + 8 * i, 8);
    return (double)gg_kv_arr_int(type, data, i);
}

int gg_kv_uint(const gg_file *f, const gg_kv *kv, uint64_t *v)
{
    if (!kv || !is_int(kv->type))
        return -1;
    const uint8_t *p = f->hdr + kv->val;
    if (kv->type == GG_VT_U64) {
        *v = le(p, 8);
        return 0;
    }
    int64_t x = gg_kv_arr_int(kv->type, p, 0);
    if (x < 0)
        return -1;
    *v = (uint64_t)x;
    return 0;
}

int gg_kv_double(const gg_file *f, const gg_kv *kv, double *v)
{
    if (!kv || !(is_int(kv->type) || kv->type == GG_VT_F32 || kv->type == GG_VT_F64))
        return -1;
    *v = gg_kv_arr_double(kv->type, f->hdr + kv->val, 0);
    return 0;
}

int gg_kv_bool(const gg_file *f, const gg_kv *kv, int *v)
{
    if (!kv || !is_int(kv->type))
        return -1;
    *v = gg_kv_arr_int(kv->type, f->hdr + kv->val, 0) != 0;
    return 0;
}

int gg_kv_str(const gg_file *f, const gg_kv *kv, const char **s, uint64_t *len)
{
    if (!kv || kv->type != GG_VT_STR)
        return -1;
    *len = le(f->hdr + kv->val, lenw(f));
    *s = (const char *)f->hdr + kv->val + lenw(f);
    return 0;
}

int gg_kv_str_is(const gg_file *f, const gg_kv *kv, const char *s)
{
    const char *v;
    uint64_t n;
    return gg_kv_str(f, kv, &v, &n) == 0 && n == strlen(s) && memcmp(v, s, n) == 0;
}

int gg_kv_arr(const gg_file *f, const gg_kv *kv, uint32_t *type, uint64_t *n, const uint8_t **data)
{
    if (!kv || kv->type != GG_VT_ARR || !gg_vtype_size(kv->arr_type))
        return -1;
    *type = kv->arr_type;
    *n = kv->arr_n;
    *data = f->hdr + kv->val + 4 + lenw(f);
    return 0;
}

uint64_t *gg_kv_str_index(const gg_file *f, const gg_kv *kv, uint64_t *n)
{
    if (!kv || kv->type != GG_VT_ARR || kv->arr_type != GG_VT_STR)
        return NULL;
    uint64_t *ix = malloc((kv->arr_n + 1) * sizeof *ix);
    if (!ix)
        return NULL;
    /* The parser checked that every element lies within the value. */
    uint64_t at = kv->val + 4 + lenw(f);
    for (uint64_t i = 0; i < kv->arr_n; i++) {
        ix[i] = at;
        at += lenw(f) + le(f->hdr + at, lenw(f));
    }
    ix[kv->arr_n] = at;
    *n = kv->arr_n;
    return ix;
}

const char *gg_kv_str_at(const gg_file *f, const uint64_t *index, uint64_t i, uint64_t *len)
{
    *len = index[i + 1] - index[i] - lenw(f);
    return (const char *)f->hdr + index[i] + lenw(f);
}
