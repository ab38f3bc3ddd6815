/* render.c - key/value pairs to text and JSON (rules in render.h). */
#include "gguffs/render.h"
#include "numarray.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void gg_buf_put(gg_buf *b, const void *s, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->len + n + 1)
            nc *= 2;
        char *p = realloc(b->p, nc);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = nc;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = 0;
}

void gg_buf_puts(gg_buf *b, const char *s) { gg_buf_put(b, s, strlen(s)); }

void gg_buf_printf(gg_buf *b, const char *fmt, ...)
{
    char tmp[256];
    va_list ap;
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

void gg_buf_free(gg_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

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
static void escaped_line(gg_buf *out, const char *s, uint64_t n)
{
    uint64_t run = 0;
    for (uint64_t i = 0; i < n; i++) {
        const char *esc = s[i] == '\\' ? "\\\\" : s[i] == '\n' ? "\\n" : s[i] == '\r' ? "\\r" : NULL;
        if (!esc)
            continue;
        gg_buf_put(out, s + run, i - run);
        gg_buf_puts(out, esc);
        run = i + 1;
    }
    gg_buf_put(out, s + run, n - run);
}

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0 if invalid. */
static int utf8_len(const unsigned char *s, uint64_t n)
{
    unsigned c = s[0];
    int len = c < 0x80 ? 1 : (c & 0xe0) == 0xc0 ? 2 : (c & 0xf0) == 0xe0 ? 3 : (c & 0xf8) == 0xf0 ? 4 : 0;
    if (len == 0 || (uint64_t)len > n)
        return 0;
    uint32_t cp = len == 1 ? c : len == 2 ? c & 0x1f : len == 3 ? c & 0x0f : c & 0x07;
    for (int i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

void gg_json_string(gg_buf *out, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    gg_buf_put(out, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        int len = utf8_len(u + i, n - i);
        const char *esc = NULL;
        char hex[8];
        if (len == 0)
            esc = "\xef\xbf\xbd"; /* U+FFFD for a byte that is not UTF-8 */
        else if (c == '"')
            esc = "\\\"";
        else if (c == '\\')
            esc = "\\\\";
        else if (c == '\n')
            esc = "\\n";
        else if (c == '\r')
            esc = "\\r";
        else if (c == '\t')
            esc = "\\t";
        else if (c < 0x20 || c == 0x7f) {
            snprintf(hex, sizeof hex, "\\u%04x", c);
            esc = hex;
        }
        if (!esc) {
            i += (size_t)len;
            continue;
        }
        gg_buf_put(out, s + run, i - run);
        gg_buf_puts(out, esc);
        i += len ? (size_t)len : 1;
        run = i;
    }
    gg_buf_put(out, s + run, n - run);
    gg_buf_put(out, "\"", 1);
}

/* One value as JSON text (nested arrays recursively). */
static void value_json(cursor *c, uint32_t type, gg_buf *out)
{
    if (type == GG_VT_STR) {
        uint64_t len = cur_count(c);
        gg_json_string(out, (const char *)c->f->hdr + c->pos, len);
        c->pos += len;
        return;
    }
    if (type == GG_VT_ARR) {
        uint32_t et = (uint32_t)cur_le(c, 4);
        uint64_t n = cur_count(c);
        gg_buf_put(out, "[", 1);
        if (gg_numarray_type(et)) {
            c->pos += gg_numarray_text(out, c->f->hdr + c->pos, et, n, 1);
        } else {
            for (uint64_t i = 0; i < n; i++) {
                if (i)
                    gg_buf_put(out, ", ", 2);
                value_json(c, et, out);
            }
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

void gg_render_kv_text(const gg_file *f, const gg_kv *kv, gg_buf *out)
{
    cursor c = {f, kv->val};
    if (kv->type == GG_VT_STR) {
        uint64_t len = cur_count(&c);
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
    if (gg_numarray_type(et)) {
        gg_numarray_text(out, f->hdr + c.pos, et, n, 0);
        return;
    }
    for (uint64_t i = 0; i < n && !out->oom; i++) {
        if (et == GG_VT_STR) {
            uint64_t len = cur_count(&c);
            escaped_line(out, (const char *)f->hdr + c.pos, len);
            c.pos += len;
        } else if (et == GG_VT_ARR) {
            value_json(&c, et, out);
        } else {
            scalar_text(&c, et, out);
        }
        gg_buf_put(out, "\n", 1);
    }
}

void gg_render_metadata_json(const gg_file *f, gg_buf *out)
{
    /* Written directly, in cJSON_Print's layout, value by value into out:
     * cJSON numbers are doubles (they would lose 64-bit integers and the
     * shortest float forms), its keys are C strings (keys that differ after
     * a NUL byte would come out as one), and building a cJSON tree would
     * hold several copies of big arrays at once. */
    gg_buf_puts(out, "{\n");
    for (uint64_t i = 0; i < f->n_kv && !out->oom; i++) {
        const gg_kv *kv = &f->kv[i];
        gg_buf_put(out, "\t", 1);
        gg_json_string(out, gg_str_ptr(f, kv->key), kv->key.len);
        gg_buf_printf(out, ":\t{\n\t\t\"type\":\t\"%s\",\n", gg_vtype_name(kv->type));
        if (kv->type == GG_VT_ARR)
            gg_buf_printf(out, "\t\t\"arr_type\":\t\"%s\",\n\t\t\"n\":\t%" PRIu64 ",\n",
                          gg_vtype_name(kv->arr_type), kv->arr_n);
        gg_buf_puts(out, "\t\t\"value\":\t");
        cursor c = {f, kv->val};
        value_json(&c, kv->type, out);
        gg_buf_puts(out, i + 1 < f->n_kv ? "\n\t},\n" : "\n\t}\n");
    }
    gg_buf_puts(out, "}\n");
}
