/* jsonread.c - a strict JSON reader (see jsonread.h). */
#include "gguffs/jsonread.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/buf.h"

typedef struct rd {
    const char *p;
    size_t n, pos;
    char *why;
    size_t cap;
} rd;

static int bad(rd *r, const char *fmt, ...)
{
    char msg[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* line and column, as editors count them */
    size_t line = 1, col = 1;
    for (size_t i = 0; i < r->pos && i < r->n; i++, col++)
        if (r->p[i] == '\n')
            line++, col = 0;
    snprintf(r->why, r->cap, "line %zu, column %zu: %s", line, col, msg);
    return -1;
}

static void skip_ws(rd *r)
{
    while (r->pos < r->n && (r->p[r->pos] == ' ' || r->p[r->pos] == '\t' || r->p[r->pos] == '\n' || r->p[r->pos] == '\r'))
        r->pos++;
}

static int hex4(rd *r, unsigned *v)
{
    *v = 0;
    for (int i = 0; i < 4; i++) {
        char c = r->pos < r->n ? r->p[r->pos] : 0;
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;
        if (d == 16)
            return bad(r, "\\u needs four hex digits");
        *v = *v * 16 + d;
        r->pos++;
    }
    return 0;
}

/* A string at r->pos (its opening quote): its bytes into *s (malloc'd). */
static int string(rd *r, char **s, size_t *len)
{
    gg_buf b = {0};
    r->pos++;
    for (;;) {
        if (r->pos >= r->n) {
            gg_buf_free(&b);
            return bad(r, "a string is not closed");
        }
        unsigned char c = (unsigned char)r->p[r->pos];
        if (c == '"')
            break;
        if (c < 0x20) {
            gg_buf_free(&b);
            return bad(r, "a control byte (0x%02x) in a string must be escaped", c);
        }
        if (c != '\\') {
            size_t run = r->pos;
            while (r->pos < r->n && r->p[r->pos] != '"' && r->p[r->pos] != '\\' && (unsigned char)r->p[r->pos] >= 0x20)
                r->pos++;
            gg_buf_put(&b, r->p + run, r->pos - run);
            continue;
        }
        r->pos++;
        char e = r->pos < r->n ? r->p[r->pos++] : 0;
        const char *plain = strchr("\"\\/bfnrt", e);
        if (e && plain) {
            static const char to[] = "\"\\/\b\f\n\r\t";
            gg_buf_put(&b, &to[plain - "\"\\/bfnrt"], 1);
            continue;
        }
        if (e != 'u') {
            gg_buf_free(&b);
            r->pos--;
            return bad(r, "\\%c is not an escape of JSON", e ? e : '?');
        }
        unsigned cp, lo;
        if (hex4(r, &cp)) {
            gg_buf_free(&b);
            return -1;
        }
        if (cp >= 0xd800 && cp < 0xdc00) { /* a surrogate pair */
            if (r->pos + 1 >= r->n || r->p[r->pos] != '\\' || r->p[r->pos + 1] != 'u') {
                gg_buf_free(&b);
                return bad(r, "a lone surrogate \\u%04x", cp);
            }
            r->pos += 2;
            if (hex4(r, &lo) || lo < 0xdc00 || lo > 0xdfff) {
                gg_buf_free(&b);
                return bad(r, "a lone surrogate \\u%04x", cp);
            }
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        } else if (cp >= 0xdc00 && cp < 0xe000) {
            gg_buf_free(&b);
            return bad(r, "a lone surrogate \\u%04x", cp);
        }
        gg_buf_put_utf8(&b, cp);
    }
    r->pos++;
    char *room = gg_buf_room(&b, 0); /* (a NUL after the bytes, even for "") */
    if (b.oom || !room) {
        gg_buf_free(&b);
        return bad(r, "out of memory");
    }
    b.p[b.len] = 0;
    *s = b.p;
    *len = b.len;
    return 0;
}

/* A number as JSON writes one: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? */
static int number(rd *r, gg_jval *v)
{
    size_t at = r->pos;
    const char *p = r->p;
    size_t i = r->pos, n = r->n;
    if (i < n && p[i] == '-')
        i++;
    if (i < n && p[i] == '0')
        i++;
    else if (i < n && p[i] >= '1' && p[i] <= '9')
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
    else
        return bad(r, "not a value");
    if (i < n && p[i] == '.') {
        size_t d = ++i;
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
        if (i == d)
            return bad(r, "a number's fraction needs digits");
    }
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        i++;
        if (i < n && (p[i] == '+' || p[i] == '-'))
            i++;
        size_t d = i;
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
        if (i == d)
            return bad(r, "a number's exponent needs digits");
    }
    v->type = GG_J_NUM;
    v->s = strndup(p + at, i - at);
    if (!v->s)
        return bad(r, "out of memory");
    v->len = i - at;
    r->pos = i;
    return 0;
}

static int value(rd *r, gg_jval *v, int depth);

static int word(rd *r, gg_jval *v, const char *w, gg_jtype t)
{
    size_t k = strlen(w);
    if (r->n - r->pos < k || memcmp(r->p + r->pos, w, k))
        return bad(r, "not a value");
    r->pos += k;
    v->type = t;
    return 0;
}

/* The elements of an array or the members of an object, up to `close`. */
static int items(rd *r, gg_jval *v, int depth, char close)
{
    size_t cap = 0, kcap = 0, lcap = 0;
    r->pos++;
    skip_ws(r);
    if (r->pos < r->n && r->p[r->pos] == close) {
        r->pos++;
        return 0;
    }
    for (;;) {
        if (gg_grow((void **)&v->kids, &cap, v->n, sizeof *v->kids, 4))
            return bad(r, "out of memory");
        if (close == '}') {
            if (gg_grow((void **)&v->keys, &kcap, v->n, sizeof *v->keys, 4) ||
                gg_grow((void **)&v->key_lens, &lcap, v->n, sizeof *v->key_lens, 4))
                return bad(r, "out of memory");
            skip_ws(r);
            if (r->pos >= r->n || r->p[r->pos] != '"')
                return bad(r, "a member's name must be a string");
            v->keys[v->n] = NULL;
            if (string(r, &v->keys[v->n], &v->key_lens[v->n]))
                return -1;
            skip_ws(r);
            if (r->pos >= r->n || r->p[r->pos] != ':') {
                free(v->keys[v->n]);
                return bad(r, "':' must follow a member's name");
            }
            r->pos++;
        }
        memset(&v->kids[v->n], 0, sizeof *v->kids);
        v->n++;
        if (value(r, &v->kids[v->n - 1], depth + 1))
            return -1;
        skip_ws(r);
        if (r->pos < r->n && r->p[r->pos] == ',') {
            r->pos++;
            continue;
        }
        if (r->pos < r->n && r->p[r->pos] == close) {
            r->pos++;
            return 0;
        }
        return bad(r, "',' or '%c' expected", close);
    }
}

static int value(rd *r, gg_jval *v, int depth)
{
    memset(v, 0, sizeof *v);
    skip_ws(r);
    if (depth > JSONR_MAX_DEPTH)
        return bad(r, "nested deeper than %d levels", JSONR_MAX_DEPTH);
    if (r->pos >= r->n)
        return bad(r, "a value is missing");
    switch (r->p[r->pos]) {
    case '{':
        v->type = GG_J_OBJ;
        return items(r, v, depth, '}');
    case '[':
        v->type = GG_J_ARR;
        return items(r, v, depth, ']');
    case '"':
        v->type = GG_J_STR;
        return string(r, &v->s, &v->len);
    case 't':
        return word(r, v, "true", GG_J_TRUE);
    case 'f':
        return word(r, v, "false", GG_J_FALSE);
    case 'n':
        return word(r, v, "null", GG_J_NULL);
    default:
        return number(r, v);
    }
}

int gg_json_parse(const char *text, size_t n, gg_jval *out, char *why, size_t cap)
{
    rd r = {text, n, 0, why, cap};
    if (value(&r, out, 0))
        return -1;
    skip_ws(&r);
    return r.pos < n ? bad(&r, "more after the value") : 0;
}

void gg_json_free(gg_jval *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        gg_json_free(&v->kids[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->kids);
    free(v->keys);
    free(v->key_lens);
    free(v->s);
    memset(v, 0, sizeof *v);
}

const gg_jval *gg_json_get(const gg_jval *obj, const char *key)
{
    if (!obj || obj->type != GG_J_OBJ)
        return NULL;
    size_t k = strlen(key);
    for (size_t i = 0; i < obj->n; i++)
        if (obj->key_lens[i] == k && !memcmp(obj->keys[i], key, k))
            return &obj->kids[i];
    return NULL;
}
