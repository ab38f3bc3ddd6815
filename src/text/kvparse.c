/* kvparse.c - a value's text back into the value (rules in kvparse.h). */
#include "gguffs/kvparse.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/kvget.h"
#include "gguffs/render.h"

static void put_le(gg_buf *b, uint64_t v, size_t n)
{
    uint8_t p[8];
    for (size_t i = 0; i < n; i++)
        p[i] = (uint8_t)(v >> (8 * i));
    gg_buf_put(b, p, n);
}

/* (see kvparse.h) */
const char *gg_text_shown(const char *s, size_t n, size_t max, char *out, size_t cap)
{
    /* byte by byte, so that a cut falls between two bytes' escapes */
    gg_buf b = {0};
    size_t k = 0, len = 0, m = n < max ? n : max;
    for (; k < m; k++, len = b.len) {
        gg_tsv_field(&b, s + k, 1);
        if (b.oom || b.len + (k + 1 < n ? sizeof "\"...\"" : sizeof "\"\"") > cap)
            break;
    }
    snprintf(out, cap, "\"%.*s%s\"", (int)len, b.p ? b.p : "", k < n ? "..." : "");
    gg_buf_free(&b);
    return out;
}

/* What a bad text shows of itself: at most SHOWN_BYTES bytes. */
#define SHOWN_BYTES 40
#define SHOWN_CAP GG_SHOWN_CAP(SHOWN_BYTES)
static const char *shown(const char *s, size_t n, char *out, size_t cap)
{
    return gg_text_shown(s, n, SHOWN_BYTES, out, cap);
}

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* s[0..n) without blanks around it. */
static void trim(const char **s, size_t *n)
{
    while (*n && is_blank(**s))
        (*s)++, (*n)--;
    while (*n && is_blank((*s)[*n - 1]))
        (*n)--;
}

/* ---- scalars ---- */

static int is_int_type(uint32_t t) { return t <= GG_VT_I32 || t == GG_VT_U64 || t == GG_VT_I64; }
static int is_signed(uint32_t t) { return t == GG_VT_I8 || t == GG_VT_I16 || t == GG_VT_I32 || t == GG_VT_I64; }

/* An integer of type t: its bits, or -1 with why. */
static int int_value(uint32_t t, const char *s, size_t n, uint64_t *bits, char *why, size_t cap)
{
    char sh[SHOWN_CAP];
    int neg = n && s[0] == '-';
    size_t i = neg;
    if (i == n) {
        snprintf(why, cap, "%s is not a number", shown(s, n, sh, sizeof sh));
        return -1;
    }
    uint64_t v = 0;
    int over = 0;
    for (; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') {
            snprintf(why, cap, "%s is not a whole number", shown(s, n, sh, sizeof sh));
            return -1;
        }
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            over = 1;
        else
            v = v * 10 + d;
    }
    size_t sz = gg_vtype_size(t);
    uint64_t max = is_signed(t) ? (1ull << (8 * sz - 1)) - 1 : sz == 8 ? UINT64_MAX : (1ull << (8 * sz)) - 1;
    uint64_t nmax = is_signed(t) ? max + 1 : 0; /* the magnitude of the most negative */
    if (over || (!neg && v > max) || (neg && v > nmax)) {
        if (is_signed(t))
            snprintf(why, cap, "%s is out of the range of %s (%" PRId64 " to %" PRIu64 ")", shown(s, n, sh, sizeof sh),
                     gg_vtype_name(t), -(int64_t)(nmax - 1) - 1, max);
        else
            snprintf(why, cap, "%s is out of the range of %s (0 to %" PRIu64 ")", shown(s, n, sh, sizeof sh),
                     gg_vtype_name(t), max);
        return -1;
    }
    *bits = neg ? (uint64_t)0 - v : v;
    if (sz < 8)
        *bits &= (1ull << (8 * sz)) - 1;
    return 0;
}

/* A float of type t (f32 or f64): its bits. */
static int float_value(uint32_t t, const char *s, size_t n, uint64_t *bits, char *why, size_t cap)
{
    char sh[SHOWN_CAP], num[400];
    if (n == 0 || n >= sizeof num || is_blank(s[0])) {
        snprintf(why, cap, "%s is not a number", shown(s, n, sh, sizeof sh));
        return -1;
    }
    memcpy(num, s, n);
    num[n] = 0;
    if (!strcmp(num, "nan") || !strcmp(num, "-nan")) {
        *bits = t == GG_VT_F32 ? 0x7fc00000u : 0x7ff8000000000000ull;
        return 0;
    }
    /* (hex floats and "infinity" are strtod's, not ours) */
    if (strpbrk(num, "xXpP") || (strpbrk(num, "iInN") && strcmp(num, "inf") && strcmp(num, "-inf"))) {
        snprintf(why, cap, "%s is not a number", shown(s, n, sh, sizeof sh));
        return -1;
    }
    char *end;
    errno = 0;
    if (t == GG_VT_F32) {
        float f = strtof(num, &end);
        if (*end || end == num) {
            snprintf(why, cap, "%s is not a number", shown(s, n, sh, sizeof sh));
            return -1;
        }
        if (isinf(f) && !strpbrk(num, "iI")) {
            snprintf(why, cap, "%s is out of the range of f32 (about 3.4e+38)", shown(s, n, sh, sizeof sh));
            return -1;
        }
        uint32_t u;
        memcpy(&u, &f, 4);
        *bits = u;
        return 0;
    }
    double d = strtod(num, &end);
    if (*end || end == num) {
        snprintf(why, cap, "%s is not a number", shown(s, n, sh, sizeof sh));
        return -1;
    }
    if (isinf(d) && !strpbrk(num, "iI")) {
        snprintf(why, cap, "%s is out of the range of f64 (about 1.8e+308)", shown(s, n, sh, sizeof sh));
        return -1;
    }
    memcpy(bits, &d, 8);
    return 0;
}

/* A number or bool of type t from its text (no blanks around it). */
static int scalar(uint32_t t, const char *s, size_t n, gg_buf *out, char *why, size_t cap)
{
    uint64_t bits = 0;
    char sh[SHOWN_CAP];
    if (t == GG_VT_BOOL) {
        if (n == 4 && !memcmp(s, "true", 4))
            bits = 1;
        else if (!(n == 5 && !memcmp(s, "false", 5))) {
            snprintf(why, cap, "%s is neither true nor false", shown(s, n, sh, sizeof sh));
            return -1;
        }
    } else if (is_int_type(t) ? int_value(t, s, n, &bits, why, cap) : float_value(t, s, n, &bits, why, cap)) {
        return -1;
    }
    put_le(out, bits, gg_vtype_size(t));
    return 0;
}

/* ---- JSON ---- */

/* The type below an array's: d without its first level. */
static gg_vdesc inner(const gg_vdesc *d)
{
    gg_vdesc s = {{0}};
    memcpy(s.t, d->t + 1, sizeof s.t - sizeof s.t[0]);
    s.t[GG_MAX_NESTING + 1] = GG_VT_COUNT;
    return s;
}

static const char *jtype_name(gg_jtype t)
{
    static const char *const n[] = {"null", "false", "true", "a number", "a string", "an array", "an object"};
    return n[t];
}

static int from_json(const gg_vdesc *d, const gg_jval *v, gg_buf *out, char *why, size_t cap)
{
    uint32_t t = d->t[0];
    if (t == GG_VT_COUNT) {
        snprintf(why, cap, "the elements' type of this array of arrays is not known (it was empty)");
        return -1;
    }
    if (t == GG_VT_STR) {
        if (v->type != GG_J_STR) {
            snprintf(why, cap, "%s where a string belongs", jtype_name(v->type));
            return -1;
        }
        put_le(out, v->len, 8);
        gg_buf_put(out, v->s, v->len);
        return 0;
    }
    if (t == GG_VT_ARR) {
        if (v->type != GG_J_ARR) {
            snprintf(why, cap, "%s where an array belongs", jtype_name(v->type));
            return -1;
        }
        gg_vdesc sub = inner(d);
        put_le(out, sub.t[0] == GG_VT_COUNT ? GG_VT_ARR : sub.t[0], 4);
        put_le(out, v->n, 8);
        for (size_t i = 0; i < v->n && !out->oom; i++) {
            if (from_json(&sub, &v->kids[i], out, why, cap)) {
                size_t k = strlen(why);
                snprintf(why + k, cap - k, " (element %zu)", i);
                return -1;
            }
        }
        return 0;
    }
    if (t == GG_VT_BOOL) {
        if (v->type != GG_J_TRUE && v->type != GG_J_FALSE) {
            snprintf(why, cap, "%s where true or false belongs", jtype_name(v->type));
            return -1;
        }
        put_le(out, v->type == GG_J_TRUE, 1);
        return 0;
    }
    /* numbers; a float may be "nan", "inf" or "-inf" (JSON has no word for them) */
    int word = v->type == GG_J_STR && (t == GG_VT_F32 || t == GG_VT_F64) &&
               (!strcmp(v->s, "nan") || !strcmp(v->s, "inf") || !strcmp(v->s, "-inf"));
    if (v->type != GG_J_NUM && !word) {
        snprintf(why, cap, "%s where a number belongs", jtype_name(v->type));
        return -1;
    }
    return scalar(t, v->s, v->len, out, why, cap);
}

int gg_kv_from_json(const gg_vdesc *d, const gg_jval *v, gg_buf *out, gg_err *e)
{
    char why[GG_ERR_LEN / 2];
    if (from_json(d, v, out, why, sizeof why))
        return gg_fail(e, GG_E_INVAL, "%s", why);
    return out->oom ? gg_fail(e, GG_E_NOMEM, "out of memory") : 0;
}

/* ---- text ---- */

/* A string element of an array: \\ \n \r undone. */
static int unescape_line(const char *s, size_t n, gg_buf *tmp, char *why, size_t cap)
{
    tmp->len = 0;
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\')
            continue;
        gg_buf_put(tmp, s + run, i - run);
        char c = i + 1 < n ? s[i + 1] : 0;
        if (c != '\\' && c != 'n' && c != 'r') {
            snprintf(why, cap, "a backslash must be followed by \\, n or r (\\\\ is one backslash)");
            return -1;
        }
        gg_buf_put(tmp, c == '\\' ? "\\" : c == 'n' ? "\n" : "\r", 1);
        run = ++i + 1;
    }
    gg_buf_put(tmp, s + run, n - run);
    return 0;
}

static int array_text(const gg_vdesc *d, const char *text, size_t n, gg_buf *out, char *why, size_t cap)
{
    gg_vdesc sub = inner(d);
    uint32_t et = sub.t[0];
    put_le(out, et == GG_VT_COUNT ? GG_VT_ARR : et, 4);
    size_t count_at = out->len;
    put_le(out, 0, 8);
    uint64_t count = 0;
    gg_buf tmp = {0};
    int rc = 0;
    for (size_t pos = 0, line = 1; pos < n && !rc && !out->oom; line++) {
        const char *nl = memchr(text + pos, '\n', n - pos);
        size_t len = nl ? (size_t)(nl - (text + pos)) : n - pos;
        const char *s = text + pos;
        pos += len + (nl != NULL);
        count++;
        if (et == GG_VT_STR) {
            rc = unescape_line(s, len, &tmp, why, cap);
            if (!rc) {
                put_le(out, tmp.len, 8);
                gg_buf_put(out, tmp.p, tmp.len);
            }
        } else if (et == GG_VT_ARR || et == GG_VT_COUNT) {
            gg_jval v;
            char jwhy[200];
            if (gg_json_parse(s, len, &v, jwhy, sizeof jwhy)) {
                snprintf(why, cap, "not an array of JSON (%s)", jwhy);
                rc = -1;
            } else {
                rc = from_json(&sub, &v, out, why, cap);
            }
            gg_json_free(&v);
        } else {
            trim(&s, &len);
            rc = scalar(et, s, len, out, why, cap);
        }
        if (rc) {
            size_t k = strlen(why);
            char tail[sizeof "line 18446744073709551615: "];
            snprintf(tail, sizeof tail, "line %zu: ", line);
            if (k + strlen(tail) < cap) {
                memmove(why + strlen(tail), why, k + 1);
                memcpy(why, tail, strlen(tail));
            }
        }
    }
    gg_buf_free(&tmp);
    if (!rc && !out->oom)
        for (int k = 0; k < 8; k++)
            out->p[count_at + (size_t)k] = (char)(uint8_t)(count >> (8 * k));
    return rc;
}

int gg_kv_from_text(const gg_vdesc *d, const char *text, size_t n, gg_buf *out, gg_err *e)
{
    char why[GG_ERR_LEN / 2];
    int rc;
    if (d->t[0] == GG_VT_STR) {
        if (n && text[n - 1] == '\n')
            n--;
        put_le(out, n, 8);
        gg_buf_put(out, text, n);
        rc = 0;
    } else if (d->t[0] == GG_VT_ARR) {
        rc = array_text(d, text, n, out, why, sizeof why);
    } else if (d->t[0] < GG_VT_COUNT) {
        trim(&text, &n);
        rc = scalar(d->t[0], text, n, out, why, sizeof why);
    } else {
        rc = -1;
        snprintf(why, sizeof why, "its type is not known");
    }
    if (rc)
        return gg_fail(e, GG_E_INVAL, "%s", why);
    return out->oom ? gg_fail(e, GG_E_NOMEM, "out of memory") : 0;
}

/* ---- editing by text ---- */

int gg_edits_set_text(gg_edits *ed, const gg_file *edited, const char *key, size_t key_len, const gg_vdesc *fresh,
                      const char *text, size_t n, int *changed, gg_err *e)
{
    *changed = 0;
    const gg_kv *kv = gg_kv_named(edited, key, key_len);
    gg_vdesc d;
    if (kv) {
        gg_vdesc_of(edited, kv, &d);
        gg_buf shown = {0};
        gg_render_kv_text(edited, kv, &shown);
        int same = !shown.oom && (shown.len == n || shown.len == n + 1) && !memcmp(shown.p, text, n) &&
                   (shown.len == n || shown.p[n] == '\n');
        gg_buf_free(&shown);
        if (same)
            return 0;
    } else if (fresh) {
        d = *fresh;
    } else {
        gg_vdesc_parse("str", &d);
    }
    gg_buf v = {0};
    if (gg_kv_from_text(&d, text, n, &v, e)) {
        gg_buf_free(&v);
        return -1;
    }
    int rc = 0;
    if (!kv || kv->val_len != v.len || memcmp(edited->hdr + kv->val, v.p, v.len)) {
        rc = gg_edits_set(ed, key, key_len, d.t[0], v.p, v.len) ? gg_fail(e, GG_E_NOMEM, "out of memory") : 0;
        *changed = rc == 0;
    }
    gg_buf_free(&v);
    return rc;
}

int gg_edits_rename(gg_edits *ed, const gg_file *f, const gg_file *edited, const char *from, size_t from_len,
                    const char *to, size_t to_len, gg_err *e)
{
    const gg_kv *src = gg_kv_named(edited, from, from_len), *dst = gg_kv_named(edited, to, to_len);
    if (!src)
        return gg_fail(e, GG_E_NOENT, "no key %.*s", (int)(from_len < 200 ? from_len : 200), from);
    if (from_len == to_len && !memcmp(from, to, to_len))
        return 0;
    gg_buf v = {0};
    uint32_t type = src->type;
    int rc = 0;
    gg_vdesc ds, d;
    gg_vdesc_of(edited, src, &ds);
    if (dst)
        gg_vdesc_of(edited, dst, &d);
    if (dst && memcmp(&d, &ds, sizeof d)) {
        /* its text, read as the type of the key it replaces */
        gg_buf text = {0};
        gg_render_kv_text(edited, src, &text);
        rc = gg_kv_from_text(&d, text.p ? text.p : "", text.len, &v, e);
        gg_buf_free(&text);
        type = dst->type;
    } else {
        gg_buf_put(&v, edited->hdr + src->val, src->val_len);
    }
    if (!rc && (v.oom || gg_edits_set(ed, to, to_len, type, v.p, v.len) || gg_edits_remove(ed, f, from, from_len)))
        rc = gg_fail(e, GG_E_NOMEM, "out of memory");
    gg_buf_free(&v);
    return rc;
}
