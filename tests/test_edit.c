/* test_edit - editing metadata, the pure parts: a value's text (and JSON)
 * parses back to the value it was rendered from, bit for bit, for every
 * type (random values and the edges: u64 max, i64 min, subnormals, -0.0,
 * inf, strings of any byte, arrays, arrays of arrays); what does not parse
 * is refused, saying where; the edits applied to a header (order kept, new
 * keys last, removed ones gone, a GGUF v1 header widened); value types by
 * name; and the JSON reader. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/jsonread.h"
#include "gguffs/kvedit.h"
#include "gguffs/kvparse.h"
#include "gguffs/render.h"

#include "gguf_build.h"
#include "rng.h"
#include "testlib.h"

#define next rng_next

/* A file of one key whose value (type, then encoded v3 bytes) is v. */
static int one_key(const char *k, uint32_t type, const buf *v, gg_file *f)
{
    buf b;
    head(&b, 3, 0, 1);
    key(&b, k, type);
    put(&b, v->p, v->n);
    gg_err e;
    int rc = gg_parse("t.gguf", b.p, b.n, b.n, f, NULL, &e);
    EXPECT(rc == 0, "parse: %s", e.msg);
    free(b.p);
    return rc;
}

/* NaNs come back as the quiet NaN: compare after making them so. */
static void canon_nans(uint32_t type, uint8_t *p, size_t n)
{
    size_t sz = type == GG_VT_F32 ? 4 : 8;
    for (size_t i = 0; i + sz <= n; i += sz) {
        if (sz == 4) {
            float f;
            memcpy(&f, p + i, 4);
            if (isnan(f))
                memcpy(p + i, &(uint32_t){0x7fc00000u}, 4);
        } else {
            double d;
            memcpy(&d, p + i, 8);
            if (isnan(d))
                memcpy(p + i, &(uint64_t){0x7ff8000000000000ull}, 8);
        }
    }
}

/* The value v of type `type`: its text and its JSON parse back to it. */
static void roundtrip(uint32_t type, const buf *v, int json_too, const char *what)
{
    gg_file f;
    if (one_key("k", type, v, &f))
        return;
    const gg_kv *kv = &f.kv[0];
    gg_vdesc d;
    gg_vdesc_of(&f, kv, &d);
    uint8_t *want = malloc(v->n + 1);
    memcpy(want, v->p, v->n);
    uint32_t et = type == GG_VT_ARR ? kv->arr_type : type;
    if ((et == GG_VT_F32 || et == GG_VT_F64))
        canon_nans(et, want + (type == GG_VT_ARR ? 12 : 0), v->n - (type == GG_VT_ARR ? 12 : 0));
    gg_buf text = {0}, out = {0};
    gg_err e;
    gg_render_kv_text(&f, kv, &text);
    int rc = gg_kv_from_text(&d, text.p ? text.p : "", text.len, &out, &e);
    CHECK(rc == 0 && out.len == v->n && !memcmp(out.p, want, v->n), "%s: text \"%.60s\" came back %s (%zu bytes, want %zu)",
          what, text.p ? text.p : "", rc ? e.msg : "different", out.len, v->n);
    if (json_too) {
        gg_buf js = {0};
        gg_render_value_json(&f, kv, UINT64_MAX, &js);
        gg_jval jv;
        char why[200];
        out.len = 0;
        rc = gg_json_parse(js.p, js.len, &jv, why, sizeof why);
        CHECK(rc == 0, "%s: JSON \"%.60s\" does not parse: %s", what, js.p, why);
        if (rc == 0) {
            rc = gg_kv_from_json(&d, &jv, &out, &e);
            CHECK(rc == 0 && out.len == v->n && !memcmp(out.p, want, v->n), "%s: JSON \"%.60s\" came back %s", what,
                  js.p, rc ? e.msg : "different");
        }
        gg_json_free(&jv);
        gg_buf_free(&js);
    }
    gg_buf_free(&text);
    gg_buf_free(&out);
    free(want);
    gg_file_free(&f);
}

static void scalar_bits(buf *v, uint32_t type, uint64_t bits)
{
    memset(v, 0, sizeof *v);
    for (size_t i = 0; i < gg_vtype_size(type); i++)
        u8(v, (uint8_t)(bits >> (8 * i)));
}

static void scalars(void)
{
    static const uint32_t types[] = {GG_VT_U8, GG_VT_I8, GG_VT_U16, GG_VT_I16, GG_VT_U32, GG_VT_I32,
                                     GG_VT_F32, GG_VT_U64, GG_VT_I64, GG_VT_F64};
    static const uint64_t edges[] = {0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000u,
                                     0xffffffffu, 0x7fffffffffffffffull, 0x8000000000000000ull, UINT64_MAX,
                                     0x00000001u /* f32 smallest subnormal */, 0x007fffffu, 0x7f7fffffu /* FLT_MAX */,
                                     0x7f800000u, 0xff800000u, 0x80000000u /* -0.0f */, 0x7fc00001u /* a NaN */,
                                     0x0000000000000001ull, 0x7ff0000000000000ull, 0x8000000000000000ull,
                                     0x7ff4000000000001ull, 0x3fb999999999999aull /* 0.1 */};
    buf v;
    char what[64];
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) {
            scalar_bits(&v, types[t], edges[i]);
            snprintf(what, sizeof what, "%s bits 0x%" PRIx64, gg_vtype_name(types[t]), edges[i]);
            roundtrip(types[t], &v, 1, what);
            free(v.p);
        }
        for (int i = 0; i < 3000; i++) {
            uint64_t x = next();
            scalar_bits(&v, types[t], x);
            snprintf(what, sizeof what, "%s bits 0x%" PRIx64, gg_vtype_name(types[t]), x);
            roundtrip(types[t], &v, 1, what);
            free(v.p);
            if (fails > 20)
                return;
        }
    }
    for (int b = 0; b < 2; b++) {
        scalar_bits(&v, GG_VT_BOOL, (uint64_t)b);
        roundtrip(GG_VT_BOOL, &v, 1, "bool");
        free(v.p);
    }
}

/* n random bytes, of which many are the ones the text rules escape. */
static void random_bytes(buf *v, size_t n, int utf8)
{
    static const char nasty[] = "\n\r\\\t\"%/ a\0";
    for (size_t i = 0; i < n; i++) {
        uint64_t x = next();
        uint8_t c = x % 3 == 0 ? (uint8_t)nasty[x / 3 % (sizeof nasty - 1)] : (uint8_t)(x >> 8);
        if (utf8 && c >= 0x80)
            c = (uint8_t)('A' + c % 26);
        u8(v, c);
    }
}

static void strings(void)
{
    buf v;
    for (int i = 0; i < 400; i++) {
        size_t n = i < 8 ? (size_t)i : next() % 300;
        buf s = {0};
        random_bytes(&s, n, i % 2);
        memset(&v, 0, sizeof v);
        u64(&v, s.n);
        put(&v, s.p, s.n);
        roundtrip(GG_VT_STR, &v, i % 2, "a string");
        free(v.p);
        free(s.p);
        if (fails > 20)
            return;
    }
    /* ends with newlines: one is the text's own */
    memset(&v, 0, sizeof v);
    u64(&v, 3);
    put(&v, "a\n\n", 3);
    roundtrip(GG_VT_STR, &v, 1, "a string ending with two newlines");
    free(v.p);
    /* the text as written by hand: no newline at the end, or one */
    gg_vdesc d;
    gg_vdesc_parse("str", &d);
    gg_buf out = {0};
    gg_err e;
    CHECK(gg_kv_from_text(&d, "abc", 3, &out, &e) == 0 && out.len == 11 && !memcmp(out.p + 8, "abc", 3),
          "a string without its newline");
    gg_buf_free(&out);
}

static void arrays(void)
{
    static const uint32_t types[] = {GG_VT_U8, GG_VT_I8, GG_VT_U16, GG_VT_I16, GG_VT_U32, GG_VT_I32, GG_VT_F32,
                                     GG_VT_BOOL, GG_VT_U64, GG_VT_I64, GG_VT_F64, GG_VT_STR};
    char what[64];
    for (size_t t = 0; t < sizeof types / sizeof *types; t++) {
        for (int k = 0; k < 40; k++) {
            uint64_t n = k < 3 ? (uint64_t)k : next() % 200;
            buf v = {0};
            u32(&v, types[t]);
            u64(&v, n);
            for (uint64_t i = 0; i < n; i++) {
                if (types[t] == GG_VT_STR) {
                    buf s = {0};
                    random_bytes(&s, next() % 20, k % 2);
                    u64(&v, s.n);
                    put(&v, s.p, s.n);
                    free(s.p);
                } else if (types[t] == GG_VT_BOOL) {
                    u8(&v, next() & 1);
                } else {
                    uint64_t x = next();
                    for (size_t b = 0; b < gg_vtype_size(types[t]); b++)
                        u8(&v, (uint8_t)(x >> (8 * b)));
                }
            }
            snprintf(what, sizeof what, "an array of %" PRIu64 " %s", n, gg_vtype_name(types[t]));
            roundtrip(GG_VT_ARR, &v, types[t] != GG_VT_STR || k % 2, what);
            free(v.p);
        }
    }
    /* arrays of arrays: each element one line of JSON */
    for (int k = 0; k < 30; k++) {
        buf v = {0};
        uint64_t n = k ? next() % 5 + 1 : 0;
        uint32_t et = k % 3 == 0 ? GG_VT_I32 : k % 3 == 1 ? GG_VT_STR : GG_VT_F64;
        u32(&v, GG_VT_ARR);
        u64(&v, n);
        for (uint64_t i = 0; i < n; i++) {
            uint64_t m = next() % 4;
            u32(&v, et);
            u64(&v, m);
            for (uint64_t j = 0; j < m; j++) {
                if (et == GG_VT_STR) {
                    buf s = {0};
                    random_bytes(&s, next() % 9, 1);
                    u64(&v, s.n);
                    put(&v, s.p, s.n);
                    free(s.p);
                } else {
                    uint64_t x = next();
                    for (size_t b = 0; b < gg_vtype_size(et); b++)
                        u8(&v, (uint8_t)(x >> (8 * b)));
                }
            }
        }
        snprintf(what, sizeof what, "an array of %" PRIu64 " arrays of %s", n, gg_vtype_name(et));
        if (et != GG_VT_F64) /* (NaNs inside: compared canonical only at the top) */
            roundtrip(GG_VT_ARR, &v, 1, what);
        free(v.p);
    }
}

/* A text that must be refused, with words of the message. */
static void refused(const char *type, const char *text, const char *says)
{
    gg_vdesc d;
    CHECK(gg_vdesc_parse(type, &d) == 0, "type %s", type);
    gg_buf out = {0};
    gg_err e = {0};
    int rc = gg_kv_from_text(&d, text, strlen(text), &out, &e);
    CHECK(rc != 0 && e.code == GG_E_INVAL && strstr(e.msg, says), "%s \"%s\": want refused saying \"%s\", got %s", type,
          text, says, rc ? e.msg : "accepted");
    gg_buf_free(&out);
}

static void accepted(const char *type, const char *text, const void *want, size_t n)
{
    gg_vdesc d;
    gg_vdesc_parse(type, &d);
    gg_buf out = {0};
    gg_err e;
    int rc = gg_kv_from_text(&d, text, strlen(text), &out, &e);
    CHECK(rc == 0 && out.len == n && !memcmp(out.p, want, n), "%s \"%s\": %s", type, text, rc ? e.msg : "other bytes");
    gg_buf_free(&out);
}

static void bad_texts(void)
{
    refused("u32", "abc", "not a whole number");
    /* a long text of control bytes is shown whole up to its 40th byte, then "..." */
    refused("u32", "\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01"
                   "\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01",
            "\\x01\\x01...\" is not a whole number");
    refused("u32", "4294967296", "out of the range of u32 (0 to 4294967295)");
    refused("u32", "-1", "out of the range");
    refused("u8", "", "not a number");
    refused("i8", "-129", "(-128 to 127)");
    refused("u64", "18446744073709551616", "out of the range");
    refused("i64", "-9223372036854775809", "out of the range");
    refused("f32", "1e40", "out of the range of f32");
    refused("f32", "0x1p3", "not a number");
    refused("f64", "1.5.2", "not a number");
    refused("f32", "infinity", "not a number");
    refused("bool", "yes", "neither true nor false");
    refused("arr[u32]", "1\n2\nx\n", "line 3: \"x\" is not a whole number");
    refused("arr[str]", "a\nb\\q\n", "line 2: a backslash");
    refused("arr[arr[i32]]", "[1, 2]\n[1, \"a\"]\n", "line 2: a string where a number belongs");
    refused("arr[arr[i32]]", "[1, 2\n", "line 1: not an array of JSON");
    /* what a person types */
    accepted("u32", " 151645 \n", (uint8_t[]){0x5d, 0x50, 0x02, 0x00}, 4);
    accepted("i8", "-128", (uint8_t[]){0x80}, 1);
    accepted("f32", "5", (uint8_t[]){0x00, 0x00, 0xa0, 0x40}, 4);
    accepted("f32", "-inf\n", (uint8_t[]){0x00, 0x00, 0x80, 0xff}, 4);
    accepted("bool", "true\n", (uint8_t[]){1}, 1);
    accepted("arr[u8]", "", (uint8_t[]){0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 12);
    accepted("arr[u8]", "1\n2", (uint8_t[]){0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 2}, 14);
    accepted("arr[str]", "\n", (uint8_t[]){8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 20);
}

static void vdescs(void)
{
    static const char *const names[] = {"u8", "str", "bool", "f64", "arr[u32]", "arr[str]", "arr[arr[i8]]",
                                        "arr[arr[arr[f32]]]"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        gg_vdesc d;
        char back[64];
        int rc = gg_vdesc_parse(names[i], &d);
        gg_vdesc_name(&d, back, sizeof back);
        CHECK(rc == 0 && !strcmp(back, names[i]), "type %s -> %s", names[i], rc ? "refused" : back);
    }
    static const char *const bad[] = {"arr", "u128", "arr[]", "arr[u8", "string", "", "arr[arr]"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gg_vdesc d;
        CHECK(gg_vdesc_parse(bad[i], &d) != 0, "type \"%s\" accepted", bad[i]);
    }
}

/* The keys of f in order, as "k1 k2 ...". */
static void key_list(const gg_file *f, char *out, size_t cap)
{
    size_t k = 0;
    out[0] = 0;
    for (uint64_t i = 0; i < f->n_kv && k < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s%.*s", i ? " " : "", (int)f->kv[i].key.len,
                              gg_str_ptr(f, f->kv[i].key));
}

static void apply(int version)
{
    buf b;
    head(&b, (uint32_t)version, 0, 4);
    key(&b, "a", GG_VT_U32);
    u32(&b, 7);
    key(&b, "b", GG_VT_STR);
    str(&b, "hello");
    key(&b, "c", GG_VT_ARR);
    u32(&b, GG_VT_STR);
    count(&b, 2);
    str(&b, "x");
    str(&b, "yz");
    key(&b, "d", GG_VT_F32);
    u32(&b, 0x3f800000u);
    gg_file f, g;
    gg_err e;
    if (gg_parse("t.gguf", b.p, b.n, b.n, &f, NULL, &e)) {
        EXPECT(0, "parse: %s", e.msg);
        free(b.p);
        return;
    }
    gg_edits ed = {0};
    gg_buf v = {0};
    gg_vdesc d;
    gg_vdesc_parse("u32", &d);
    gg_kv_from_text(&d, "9", 1, &v, &e);
    gg_edits_set(&ed, "a", 1, GG_VT_U32, v.p, v.len);    /* in place */
    gg_edits_remove(&ed, &f, "b", 1);                    /* gone */
    gg_edits_set(&ed, "new1", 4, GG_VT_U32, v.p, v.len); /* at the end */
    gg_edits_set(&ed, "new2", 4, GG_VT_U32, v.p, v.len);
    gg_edits_remove(&ed, &f, "new1", 4);                 /* never there */
    char keys[256];
    int rc = gg_edits_apply(&f, &ed, "t.gguf", &g, &e);
    CHECK(rc == 0, "apply (v%d): %s", version, e.msg);
    if (rc == 0) {
        key_list(&g, keys, sizeof keys);
        CHECK(!strcmp(keys, "a c d new2"), "v%d edited keys: %s", version, keys);
        gg_buf t = {0};
        gg_render_kv_text(&g, &g.kv[0], &t);
        gg_render_kv_text(&g, &g.kv[1], &t);
        gg_render_kv_text(&g, &g.kv[2], &t);
        CHECK(t.len == 11 && !memcmp(t.p, "9\nx\nyz\n1.0\n", t.len), "v%d edited values: %.*s", version, (int)t.len, t.p);
        CHECK(g.version == 3 && g.n_tensors == 0, "the edited header is v3, keys only");
        gg_buf_free(&t);
        gg_file_free(&g);
    }
    /* removed, then set again: back where it was */
    gg_edits_set(&ed, "b", 1, GG_VT_U32, v.p, v.len);
    if (gg_edits_apply(&f, &ed, "t.gguf", &g, &e) == 0) {
        key_list(&g, keys, sizeof keys);
        CHECK(!strcmp(keys, "a b c d new2"), "v%d set again: %s", version, keys);
        gg_file_free(&g);
    }
    /* general.alignment must stay a power of two, a u32 */
    gg_edits_set(&ed, "general.alignment", 17, GG_VT_U32, (uint8_t[]){3, 0, 0, 0}, 4);
    CHECK(gg_edits_apply(&f, &ed, "t.gguf", &g, &e) != 0 && strstr(e.msg, "not a power of two"), "alignment 3 refused");
    gg_edits_set(&ed, "general.alignment", 17, GG_VT_U32, (uint8_t[]){64, 0, 0, 0}, 4);
    rc = gg_edits_apply(&f, &ed, "t.gguf", &g, &e);
    CHECK(rc == 0, "alignment 64: %s", e.msg);
    if (rc == 0)
        gg_file_free(&g);
    gg_edits ed2;
    CHECK(gg_edits_copy(&ed2, &ed) == 0 && ed2.n == ed.n, "a copy of the edits");
    gg_edits_free(&ed2);
    gg_edits_free(&ed);
    gg_buf_free(&v);
    gg_file_free(&f);
    free(b.p);
}

static void json_reader(void)
{
    static const char *const good[] = {"{\"a\": [1, -0.5e+3, \"x\\u00e9\\ud83d\\ude00\\n\"], \"b\": {}, \"c\": null}",
                                       " [true,false] ", "\"\\u0000\"", "0", "-0.0", "[]"};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        gg_jval v;
        char why[200];
        CHECK(gg_json_parse(good[i], strlen(good[i]), &v, why, sizeof why) == 0, "JSON %s: %s", good[i], why);
        gg_json_free(&v);
    }
    gg_jval v;
    char why[200];
    const char *s = "{\"a\": [1, -0.5e+3, \"x\\u00e9\\ud83d\\ude00\"]}";
    if (gg_json_parse(s, strlen(s), &v, why, sizeof why) == 0) {
        const gg_jval *a = gg_json_get(&v, "a");
        CHECK(a && a->n == 3 && !strcmp(a->kids[1].s, "-0.5e+3") && a->kids[2].len == 7 &&
              !memcmp(a->kids[2].s, "x\xc3\xa9\xf0\x9f\x98\x80", 7), "JSON values kept exactly");
    }
    gg_json_free(&v);
    /* \u escapes of each UTF-8 length: A, é, €, U+10FFFF */
    s = "\"\\u0041\\u00e9\\u20ac\\udbff\\udfff\"";
    if (gg_json_parse(s, strlen(s), &v, why, sizeof why) == 0)
        CHECK(v.len == 10 && !memcmp(v.s, "A\xc3\xa9\xe2\x82\xac\xf4\x8f\xbf\xbf", 10), "\\u escapes as UTF-8");
    else
        CHECK(0, "\\u escapes: %s", why);
    gg_json_free(&v);
    static const char *const bad[] = {"[1,]", "{\"a\" 1}", "01", "\"\\ud800\"", "[1] 2", "\"a\nb\"", "tru", "1.",
                                      "\"\\x\"", ""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK(gg_json_parse(bad[i], strlen(bad[i]), &v, why, sizeof why) != 0, "JSON \"%s\" accepted", bad[i]);
        gg_json_free(&v);
    }
}

int main(void)
{
    rng_seed(35);
    scalars();
    strings();
    arrays();
    bad_texts();
    vdescs();
    apply(3);
    apply(1);
    json_reader();
    printf("test_edit: %ld passed, %d failed\n", checks - fails, fails);
    return fails != 0;
}
