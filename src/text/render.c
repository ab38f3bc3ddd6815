/* render.c - key/value pairs to text and JSON (rules in render.h). */
#include "gguffs/render.h"
#include "numarray.h"

#include "gguffs/names.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Walking values in the header copy. */
typedef struct cursor {
    const gg_file *f;
    uint64_t pos;
} cursor;

static uint64_t cur_le(cursor *c, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)c->f->hdr[c->pos + i] << (8 * i);
    c->pos += n;
    return v;
}

static uint64_t cur_count(cursor *c) { return cur_le(c, c->f->version == 1 ? 4 : 8); }

/* Scalar (non-string, non-array) value at the cursor as text. */
static void scalar_text(cursor *c, uint32_t type, gg_buf *out)
{
    char num[48];
    size_t sz = gg_vtype_size(type);
    uint64_t v = cur_le(c, sz);
    switch (type) {
    case GG_VT_U8: case GG_VT_U16: case GG_VT_U32: case GG_VT_U64:
        gg_buf_printf(out, "%" PRIu64, v);
        break;
    case GG_VT_I8: case GG_VT_I16: case GG_VT_I32: case GG_VT_I64:
        if (sz < 8 && (v >> (8 * sz - 1)) & 1)
            v |= ~0ull << (8 * sz);
        gg_buf_printf(out, "%" PRId64, (int64_t)v);
        break;
    case GG_VT_F32: {
        uint32_t u = (uint32_t)v;
        float f;
        memcpy(&f, &u, 4);
        gg_buf_put(out, num, (size_t)gg_fmt_f32(num, f));
        break;
    }
    case GG_VT_F64: {
        double d;
        memcpy(&d, &v, 8);
        gg_buf_put(out, num, (size_t)gg_fmt_f64(num, d));
        break;
    }
    case GG_VT_BOOL:
        gg_buf_puts(out, v ? "true" : "false");
        break;
    }
}

/* Appends string bytes, escaping \ newline CR (array elements). */
static void escaped_line(gg_buf *out, const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        const char *esc = s[i] == '\\' ? "\\\\" : s[i] == '\n' ? "\\n" : s[i] == '\r' ? "\\r" : NULL;
        if (!esc)
            continue;
        gg_buf_put(out, s + run, i - run);
        gg_buf_puts(out, esc);
        run = i + 1;
    }
    gg_buf_put(out, s + run, n - run);
}

/* (see render.h) */
void gg_tsv_field(gg_buf *out, const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != 0x7f && c != '\\')
            continue;
        gg_buf_put(out, s + run, i - run);
        run = i + 1;
        if (c == '\\' || c == '\t' || c == '\n' || c == '\r')
            gg_buf_puts(out, c == '\\' ? "\\\\" : c == '\t' ? "\\t" : c == '\n' ? "\\n" : "\\r");
        else
            gg_buf_printf(out, "\\x%02x", c);
    }
    gg_buf_put(out, s + run, n - run);
}

/* One value as JSON text (nested arrays recursively); a top-level array
 * gives at most `max` elements. */
static void value_json_n(cursor *c, uint32_t type, uint64_t max, gg_buf *out)
{
    if (type == GG_VT_STR) {
        uint64_t len = cur_count(c);
        gg_json_string(out, (const char *)c->f->hdr + c->pos, len);
        c->pos += len;
        return;
    }
    if (type == GG_VT_ARR) {
        uint32_t et = (uint32_t)cur_le(c, 4);
        uint64_t n = cur_count(c), shown = n < max ? n : max;
        gg_buf_put(out, "[", 1);
        if (gg_numarray_type(et)) {
            gg_numarray_text(out, c->f->hdr + c->pos, et, shown, 1);
            c->pos += n * gg_vtype_size(et);
        } else {
            for (uint64_t i = 0; i < shown; i++) {
                if (i)
                    gg_buf_put(out, ", ", 2);
                value_json_n(c, et, UINT64_MAX, out);
            }
            /* (the cursor is not used after a cut array) */
        }
        gg_buf_put(out, "]", 1);
        return;
    }
    size_t before = out->len;
    scalar_text(c, type, out);
    /* JSON has no nan/inf: give them as strings. */
    if (!out->oom && (type == GG_VT_F32 || type == GG_VT_F64) && out->len > before &&
        (out->p[out->len - 1] == 'n' || out->p[out->len - 1] == 'f')) {
        char word[8];
        size_t n = out->len - before;
        memcpy(word, out->p + before, n);
        out->len = before;
        gg_buf_put(out, "\"", 1);
        gg_buf_put(out, word, n);
        gg_buf_put(out, "\"", 1);
    }
}

static void value_json(cursor *c, uint32_t type, gg_buf *out) { value_json_n(c, type, UINT64_MAX, out); }

void gg_render_value_json(const gg_file *f, const gg_kv *kv, uint64_t max, gg_buf *out)
{
    cursor c = {f, kv->val};
    value_json_n(&c, kv->type, max, out);
}

/* A KV's text: a string escaped by str (NULL: as it is), string elements
 * by elem, at most max elements. */
static void kv_text(const gg_file *f, const gg_kv *kv, uint64_t max, void (*str)(gg_buf *, const char *, size_t),
                    void (*elem)(gg_buf *, const char *, size_t), gg_buf *out)
{
    cursor c = {f, kv->val};
    if (kv->type == GG_VT_STR) {
        uint64_t len = cur_count(&c);
        if (str)
            str(out, (const char *)f->hdr + c.pos, len);
        else
            gg_buf_put(out, f->hdr + c.pos, len);
        gg_buf_put(out, "\n", 1);
        return;
    }
    if (kv->type != GG_VT_ARR) {
        scalar_text(&c, kv->type, out);
        gg_buf_put(out, "\n", 1);
        return;
    }
    uint32_t et = (uint32_t)cur_le(&c, 4);
    uint64_t n = cur_count(&c);
    if (n > max)
        n = max;
    if (gg_numarray_type(et)) {
        gg_numarray_text(out, f->hdr + c.pos, et, n, 0);
        return;
    }
    for (uint64_t i = 0; i < n && !out->oom; i++) {
        if (et == GG_VT_STR) {
            uint64_t len = cur_count(&c);
            elem(out, (const char *)f->hdr + c.pos, len);
            c.pos += len;
        } else if (et == GG_VT_ARR) {
            value_json(&c, et, out);
        } else {
            scalar_text(&c, et, out);
        }
        gg_buf_put(out, "\n", 1);
    }
}

void gg_render_kv_text(const gg_file *f, const gg_kv *kv, gg_buf *out)
{
    kv_text(f, kv, UINT64_MAX, NULL, escaped_line, out);
}

void gg_render_kv_text_n(const gg_file *f, const gg_kv *kv, uint64_t max, gg_buf *out)
{
    kv_text(f, kv, max, gg_tsv_field, gg_tsv_field, out);
}

/* (see render.h) */
char **gg_metadata_json_keys(const gg_file *f, int *oom)
{
    *oom = 0;
    uint64_t nbad = 0;
    for (uint64_t i = 0; i < f->n_kv; i++)
        nbad += !gg_utf8_valid(gg_str_ptr(f, f->kv[i].key), f->kv[i].key.len);
    if (!nbad)
        return NULL;
    char **alt = calloc(f->n_kv, sizeof *alt);
    char ***names = calloc(nbad, sizeof *names);
    const char **valid = calloc(f->n_kv - nbad + 1, sizeof *valid);
    char **valid_own = calloc(f->n_kv - nbad + 1, sizeof *valid_own);
    uint64_t nb = 0, nv = 0;
    if (!alt || !names || !valid || !valid_own)
        goto oom;
    for (uint64_t i = 0; i < f->n_kv; i++) {
        const char *k = gg_str_ptr(f, f->kv[i].key);
        size_t len = f->kv[i].key.len;
        if (gg_utf8_valid(k, len)) {
            /* (keys with a NUL byte compare up to it: that only adds ~N to a
             * replaced key that did not need it) */
            valid_own[nv] = strndup(k, len);
            if (!valid_own[nv])
                goto oom;
            valid[nv] = valid_own[nv];
            nv++;
            continue;
        }
        /* The replaced form, as text: the inside of its JSON literal. */
        gg_buf b = {0};
        gg_json_string(&b, k, len);
        if (b.oom) {
            gg_buf_free(&b);
            goto oom;
        }
        b.p[b.len - 1] = 0;
        alt[i] = strdup(b.p + 1);
        gg_buf_free(&b);
        if (!alt[i])
            goto oom;
        names[nb++] = &alt[i];
    }
    /* Valid keys are compared by their JSON literal form too. */
    for (uint64_t i = 0; i < nv; i++) {
        gg_buf b = {0};
        gg_json_string(&b, valid_own[i], strlen(valid_own[i]));
        if (b.oom) {
            gg_buf_free(&b);
            goto oom;
        }
        b.p[b.len - 1] = 0;
        free(valid_own[i]);
        valid_own[i] = strdup(b.p + 1);
        valid[i] = valid_own[i];
        gg_buf_free(&b);
        if (!valid_own[i])
            goto oom;
    }
    if (gg_names_unique_n(names, nb, valid, nv, 0))
        goto oom;
    for (uint64_t i = 0; i < nv; i++)
        free(valid_own[i]);
    free(valid_own);
    free(valid);
    free(names);
    return alt;
oom:
    *oom = 1;
    for (uint64_t i = 0; alt && i < f->n_kv; i++)
        free(alt[i]);
    for (uint64_t i = 0; valid_own && i < nv; i++)
        free(valid_own[i]);
    free(alt);
    free(names);
    free(valid);
    free(valid_own);
    return NULL;
}

void gg_render_metadata_json(const gg_file *f, gg_buf *out)
{
    /* Written directly, in cJSON_Print's layout, value by value into out:
     * cJSON numbers are doubles (they would lose 64-bit integers and the
     * shortest float forms), its keys are C strings (keys that differ after
     * a NUL byte would come out as one), and building a cJSON tree would
     * hold several copies of big arrays at once. */
    int oom;
    char **alt = gg_metadata_json_keys(f, &oom);
    if (oom) {
        out->oom = 1;
        return;
    }
    gg_buf_puts(out, "{\n");
    for (uint64_t i = 0; i < f->n_kv && !out->oom; i++) {
        const gg_kv *kv = &f->kv[i];
        gg_buf_put(out, "\t", 1);
        if (alt && alt[i]) {
            gg_buf_put(out, "\"", 1);
            gg_buf_puts(out, alt[i]);
            gg_buf_put(out, "\"", 1);
        } else {
            gg_json_string(out, gg_str_ptr(f, kv->key), kv->key.len);
        }
        gg_buf_printf(out, ":\t{\n\t\t\"type\":\t\"%s\",\n", gg_vtype_name(kv->type));
        if (alt && alt[i]) {
            gg_buf_puts(out, "\t\t\"key_hex\":\t\"");
            gg_hex(out, gg_str_ptr(f, kv->key), kv->key.len);
            gg_buf_puts(out, "\",\n");
        }
        if (kv->type == GG_VT_ARR)
            gg_buf_printf(out, "\t\t\"arr_type\":\t\"%s\",\n\t\t\"n\":\t%" PRIu64 ",\n",
                          gg_vtype_name(kv->arr_type), kv->arr_n);
        gg_buf_puts(out, "\t\t\"value\":\t");
        cursor c = {f, kv->val};
        value_json(&c, kv->type, out);
        gg_buf_puts(out, i + 1 < f->n_kv ? "\n\t},\n" : "\n\t}\n");
    }
    gg_buf_puts(out, "}\n");
    gg_metadata_json_keys_free(f, alt);
}

void gg_metadata_json_keys_free(const gg_file *f, char **keys)
{
    for (uint64_t i = 0; keys && i < f->n_kv; i++)
        free(keys[i]);
    free(keys);
}
