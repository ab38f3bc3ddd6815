/* test_gguf - unit tests of the GGUF header parser: every value type (as
 * scalar and array, nested arrays, v1 and v3 files), each limit against
 * hostile headers right at its edge, the malformed cases with their exact
 * message and offset; plus the layout and model checks those limits protect
 * (empty tensors, byte-size overflow, big files of tiny tensors, types.tsv). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gguffs/gguf.h"
#include "gguffs/layout.h"
#include "gguffs/model.h"
#include "gguffs/types.h"
#include "gguffs/modeltext.h"
#include "gguffs/tree.h"
#include "gguffs/render.h"
#include "gguffs/stats.h"
#include "gguffs/modeltext.h"
#include "gguffs/tree.h"
#include "gguffs/view.h"

#include "gguf_build.h"
#include "testlib.h"

/* Parse b; expect success. */
static int parse_ok(buf *b, gg_file *f, const char *what)
{
    gg_err e;
    int rc = gg_parse("t.gguf", b->p, b->n, b->n, f, NULL, &e);
    EXPECT(rc == 0, "%s: parse failed: %s", what, e.msg);
    if (rc == 0 && b->n > 1) {
        /* Given fewer bytes than the header, the parser asks for more (how
         * many), and never reads past what it was given. */
        gg_file g;
        uint64_t want = 0, avail = f->hdr_len / 2;
        uint8_t *part = malloc(avail ? avail : 1);
        memcpy(part, b->p, avail);
        int r2 = gg_parse("t.gguf", part, avail, b->n, &g, &want, &e);
        EXPECT(f->hdr_len <= 4 || (r2 == -1 && e.code == GG_E_AGAIN && want > avail && want <= f->hdr_len),
               "%s: half a header: rc %d code %d want %" PRIu64 " of %" PRIu64, what, r2, e.code, want, f->hdr_len);
        if (r2 == 0)
            gg_file_free(&g);
        free(part);
    }
    return rc;
}

/* Parse b; expect failure with `want` (a substring) in the message. */
static void parse_bad(buf *b, const char *want, const char *what)
{
    gg_err e = {GG_OK, ""};
    const char *err = e.msg;
    gg_file f;
    int rc = gg_parse("t.gguf", b->p, b->n, b->n, &f, NULL, &e);
    EXPECT(rc == -1, "%s: parsed, expected \"%s\"", what, want);
    if (rc == 0)
        gg_file_free(&f);
    else
        EXPECT(e.code == GG_E_MALFORMED && strstr(err, want) && strncmp(err, "t.gguf: offset ", 15) == 0,
               "%s: message \"%s\", expected \"%s\"", what, err, want);
    free(b->p);
}

static char *text_of(const gg_file *f, const char *k)
{
    int64_t i = gg_find_key(f, k);
    if (i < 0)
        return strdup("(missing)");
    gg_buf out = {0};
    gg_render_kv_text(f, &f->kv[i], &out);
    return out.p ? out.p : strdup("");
}

static void expect_text(const gg_file *f, const char *k, const char *want)
{
    char *got = text_of(f, k);
    EXPECT(strcmp(got, want) == 0, "key %s: \"%s\", want \"%s\"", k, got, want);
    free(got);
}

/* ---- every value type ---- */

static void value_types(uint32_t version)
{
    buf b;
    head(&b, version, 0, 18);
    key(&b, "u8", 0), u8(&b, 200);
    key(&b, "i8", 1), u8(&b, 0x80);
    key(&b, "u16", 2), u8(&b, 0xff), u8(&b, 0xff);
    key(&b, "i16", 3), u8(&b, 0xfe), u8(&b, 0xff);
    key(&b, "u32", 4), u32(&b, 4000000000u);
    key(&b, "i32", 5), u32(&b, (uint32_t)-123456);
    float f = 0.1f;
    uint32_t fb;
    memcpy(&fb, &f, 4);
    key(&b, "f32", 6), u32(&b, fb);
    key(&b, "bool", 7), u8(&b, 1);
    key(&b, "str", 8), str(&b, "a\nb");
    key(&b, "u64", 10), u64(&b, UINT64_MAX);
    key(&b, "i64", 11), u64(&b, (uint64_t)INT64_MIN);
    double d = -0.0;
    uint64_t db;
    memcpy(&db, &d, 8);
    key(&b, "f64", 12), u64(&b, db);
    key(&b, "arr.u8", 9), u32(&b, 0), count(&b, 3), u8(&b, 1), u8(&b, 2), u8(&b, 255);
    key(&b, "arr.i16", 9), u32(&b, 3), count(&b, 2), u8(&b, 0xff), u8(&b, 0xff), u8(&b, 5), u8(&b, 0);
    key(&b, "arr.bool", 9), u32(&b, 7), count(&b, 2), u8(&b, 0), u8(&b, 1);
    key(&b, "arr.str", 9), u32(&b, 8), count(&b, 3), str(&b, "x"), str(&b, "y\\z\r"), str(&b, "");
    key(&b, "arr.nested", 9), u32(&b, 9), count(&b, 2);
    u32(&b, 4), count(&b, 1), u32(&b, 7);
    u32(&b, 8), count(&b, 1), str(&b, "q\"");
    key(&b, "arr.empty", 9), u32(&b, 12), count(&b, 0);
    gg_file gf;
    char what[32];
    snprintf(what, sizeof what, "value types v%u", version);
    if (parse_ok(&b, &gf, what) == 0) {
        EXPECT(gf.version == version && gf.n_kv == 18 && gf.n_tensors == 0, "%s: counts", what);
        EXPECT(gf.alignment == GG_DEFAULT_ALIGNMENT, "%s: default alignment", what);
        static const uint32_t types[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 9, 9, 9, 9, 9, 9};
        for (int i = 0; i < 18; i++)
            EXPECT(gf.kv[i].type == types[i], "%s: kv %d type %u", what, i, gf.kv[i].type);
        EXPECT(gg_kv_u64(&gf, &gf.kv[0]) == 200 && gg_kv_i64(&gf, &gf.kv[1]) == -128 &&
               gg_kv_u64(&gf, &gf.kv[2]) == 65535 && gg_kv_i64(&gf, &gf.kv[3]) == -2 &&
               gg_kv_u64(&gf, &gf.kv[4]) == 4000000000u && gg_kv_i64(&gf, &gf.kv[5]) == -123456 &&
               gg_kv_u64(&gf, &gf.kv[9]) == UINT64_MAX && gg_kv_i64(&gf, &gf.kv[10]) == INT64_MIN,
               "%s: integer values", what);
        expect_text(&gf, "u8", "200\n");
        expect_text(&gf, "i8", "-128\n");
        expect_text(&gf, "u16", "65535\n");
        expect_text(&gf, "i16", "-2\n");
        expect_text(&gf, "u32", "4000000000\n");
        expect_text(&gf, "i32", "-123456\n");
        expect_text(&gf, "f32", "0.1\n");
        expect_text(&gf, "bool", "true\n");
        expect_text(&gf, "str", "a\nb\n");
        expect_text(&gf, "u64", "18446744073709551615\n");
        expect_text(&gf, "i64", "-9223372036854775808\n");
        expect_text(&gf, "f64", "-0.0\n");
        expect_text(&gf, "arr.u8", "1\n2\n255\n");
        expect_text(&gf, "arr.i16", "-1\n5\n");
        expect_text(&gf, "arr.bool", "false\ntrue\n");
        expect_text(&gf, "arr.str", "x\ny\\\\z\\r\n\n");
        expect_text(&gf, "arr.nested", "[7]\n[\"q\\\"\"]\n");
        expect_text(&gf, "arr.empty", "");
        const gg_kv *a = &gf.kv[gg_find_key(&gf, "arr.str")];
        EXPECT(a->arr_type == 8 && a->arr_n == 3, "%s: arr.str is %u x %" PRIu64, what, a->arr_type, a->arr_n);
        gg_buf j = {0};
        gg_render_metadata_json(&gf, &j);
        EXPECT(j.p && strstr(j.p, "\"arr.nested\":\t{\n\t\t\"type\":\t\"arr\",\n\t\t\"arr_type\":\t\"arr\",\n"
                                  "\t\t\"n\":\t2,\n\t\t\"value\":\t[[7], [\"q\\\"\"]]\n\t}"),
               "%s: metadata.json entry of arr.nested: %s", what, j.p ? j.p : "(none)");
        gg_buf_free(&j);
        gg_file_free(&gf);
    }
    free(b.p);
}

/* ---- limits, each at its edge ---- */

static void limits(void)
{
    buf b;
    /* String: 1 GiB is allowed (if the file holds it), one byte more is not. */
    head(&b, 3, 0, 1);
    key(&b, "k", 8), u64(&b, 1u << 30);
    parse_bad(&b, "key 0 \"k\": length 1073741824 runs past the end of the file", "string of 1 GiB");
    head(&b, 3, 0, 1);
    key(&b, "k", 8), u64(&b, (1u << 30) + 1);
    parse_bad(&b, "offset 37: key 0 \"k\": length 1073741825 is over the 1 GiB limit", "string over 1 GiB");
    /* Array elements: as many as the bytes left can hold. */
    head(&b, 3, 0, 1);
    key(&b, "k", 9), u32(&b, 4), u64(&b, 2), u32(&b, 1), u32(&b, 2);
    gg_file f;
    if (parse_ok(&b, &f, "array that fits") == 0)
        gg_file_free(&f);
    b.n -= 1;
    parse_bad(&b, "offset 37: key 0 \"k\": array of 2 u32 elements cannot fit in the 7 bytes left",
              "array one byte short");
    head(&b, 3, 0, 1);
    key(&b, "k", 9), u32(&b, 8), u64(&b, 3), u64(&b, 0), u64(&b, 0);
    parse_bad(&b, "array of 3 str elements cannot fit in the 16 bytes left", "strings: 8 bytes each at least");
    /* Nesting: 8 levels of arrays, not 9. */
    for (int depth = 8; depth <= 9; depth++) {
        head(&b, 3, 0, 1);
        key(&b, "deep", 9);
        for (int i = 1; i < depth; i++)
            u32(&b, 9), u64(&b, 1);
        u32(&b, 0), u64(&b, 1), u8(&b, 42);
        if (depth == 8) {
            if (parse_ok(&b, &f, "nesting 8") == 0) {
                expect_text(&f, "deep", "[[[[[[[42]]]]]]]\n");
                gg_file_free(&f);
            }
            free(b.p);
        } else {
            parse_bad(&b, "key 0 \"deep\": arrays nested deeper than 8 levels", "nesting 9");
        }
    }
    /* KV and tensor counts: what the bytes after the counts can hold
     * (13 bytes per KV, 24 per tensor info at least). */
    head(&b, 3, 0, 2);
    key(&b, "a", 0), u8(&b, 1);
    for (int i = 0; i < 12; i++)
        u8(&b, 0);
    parse_bad(&b, "offset 50: key 1 \"\" needs 1 bytes but the file ends at 50",
              "two KVs in 26 bytes: the count passes, the second KV is cut");
    head(&b, 3, 0, 2);
    key(&b, "a", 0), u8(&b, 1);
    for (int i = 0; i < 11; i++)
        u8(&b, 0);
    parse_bad(&b, "offset 16: key/value count 2 cannot fit in a 49-byte file", "two KVs in 25 bytes");
    head(&b, 3, 3, 0);
    for (int i = 0; i < 71; i++)
        u8(&b, 0);
    parse_bad(&b, "offset 8: tensor count 3 cannot fit in a 95-byte file", "three tensor infos in 71 bytes");
    /* Dimensions: 4, not 5. */
    uint64_t ones[5] = {1, 1, 1, 1, 1};
    head(&b, 3, 1, 0);
    tensor(&b, "t", 4, ones, 0, 0);
    pad(&b, 32), u32(&b, 0);
    if (parse_ok(&b, &f, "4 dims") == 0)
        gg_file_free(&f);
    free(b.p);
    head(&b, 3, 1, 0);
    tensor(&b, "t", 5, ones, 0, 0);
    parse_bad(&b, "offset 33: tensor 0 \"t\": 5 dimensions (ggml allows at most 4)", "5 dims");
    /* Element count: n_elements * 4 must fit in 63 bits. */
    uint64_t edge[2] = {(UINT64_C(1) << 61) - 1, 1};
    head(&b, 3, 1, 0);
    tensor(&b, "t", 2, edge, 9999, 0);
    pad(&b, 32);
    if (parse_ok(&b, &f, "2^61 - 1 elements") == 0) {
        EXPECT(f.tensors[0].nelems == (UINT64_C(1) << 61) - 1, "nelems");
        gg_file_free(&f);
    }
    free(b.p);
    uint64_t over[2] = {UINT64_C(1) << 31, UINT64_C(1) << 30};
    head(&b, 3, 1, 0);
    tensor(&b, "t", 2, over, 0, 0);
    parse_bad(&b, "offset 45: tensor 0 \"t\": element count overflows (n_elements * 4 must fit in 63 bits)",
              "2^61 elements");
    uint64_t rows[3] = {0, UINT64_C(1) << 62, 4};
    head(&b, 3, 1, 0);
    tensor(&b, "t", 3, rows, 0, 0);
    parse_bad(&b, "offset 53: tensor 0 \"t\": row count overflows 63 bits", "0 x 2^62 x 4");
    uint64_t neg[1] = {UINT64_MAX};
    head(&b, 3, 1, 0);
    tensor(&b, "t", 1, neg, 0, 0);
    parse_bad(&b, "offset 37: tensor 0 \"t\": dimension 0 is negative (-1)", "negative dimension");
}

/* ---- malformed headers ---- */

static void malformed(void)
{
    buf b;
    head(&b, 3, 0, 0);
    b.n = 3;
    parse_bad(&b, "offset 0: not a GGUF file (magic missing: file shorter than 4 bytes)", "3 bytes");
    head(&b, 3, 0, 0);
    memcpy(b.p, "GGUG", 4);
    parse_bad(&b, "offset 0: not a GGUF file (magic is not \"GGUF\")", "bad magic");
    head(&b, 3, 0, 0);
    memcpy(b.p, "FUGG", 4);
    parse_bad(&b, "offset 0: magic \"FUGG\": a byte-swapped (big-endian) GGUF file", "FUGG");
    for (uint32_t v = 1; v <= 3; v++) {
        head(&b, 3, 0, 0);
        b.p[4] = 0, b.p[7] = (uint8_t)v;
        char want[96];
        snprintf(want, sizeof want, "offset 4: version field 0x0%u000000 is GGUF version %u written big-endian", v, v);
        parse_bad(&b, want, "big-endian version");
    }
    head(&b, 4, 0, 0);
    parse_bad(&b, "offset 4: GGUF version 4 is not supported (versions 1 to 3 are)", "version 4");
    head(&b, 0, 0, 0);
    parse_bad(&b, "offset 4: GGUF version 0 is not supported", "version 0");
    head(&b, 3, 0, 0);
    b.n = 20;
    parse_bad(&b, "offset 16: key/value count needs 8 bytes but the file ends at 20 (truncated?)", "cut count");
    /* Value types. */
    head(&b, 3, 0, 1);
    key(&b, "k", 13), u64(&b, 0);
    parse_bad(&b, "offset 33: key 0 \"k\": unknown value type 13", "value type 13");
    head(&b, 3, 0, 1);
    key(&b, "k", 9), u32(&b, 13), u64(&b, 0), u64(&b, 0);
    parse_bad(&b, "offset 37: key 0 \"k\": unknown array element type 13", "element type 13");
    head(&b, 3, 0, 1);
    key(&b, "k", 7), u8(&b, 2), u32(&b, 0), u64(&b, 0);
    parse_bad(&b, "offset 37: key 0 \"k\": bool value 2 is neither 0 nor 1", "bool 2");
    head(&b, 3, 0, 1);
    key(&b, "k", 9), u32(&b, 7), u64(&b, 2), u8(&b, 1), u8(&b, 0xff), u64(&b, 0);
    parse_bad(&b, "offset 50: key 0 \"k\": bool value 255 is neither 0 nor 1", "bool 255 in an array");
    /* Names that need showing: control bytes as '?', long ones cut. */
    head(&b, 3, 0, 1);
    key(&b, "a\tb\x7f", 13), u64(&b, 0);
    parse_bad(&b, "key 0 \"a?b?\": unknown value type 13", "control bytes in a key");
    char longk[200];
    memset(longk, 'k', sizeof longk - 1);
    longk[sizeof longk - 1] = 0;
    head(&b, 3, 0, 1);
    key(&b, longk, 13), u64(&b, 0);
    parse_bad(&b, "key 0 \"kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk\": unknown value type 13", "long key");
    /* Alignment. */
    static const struct {
        uint32_t type;
        uint64_t value;
        const char *want;
    } al[] = {{4, 0, "offset 24: general.alignment 0 is not a power of two"},
              {4, 96, "offset 24: general.alignment 96 is not a power of two"},
              {4, 0x80000001u, "general.alignment 2147483649 is not a power of two"},
              {10, 32, "offset 24: general.alignment has type u64 (must be u32)"},
              {5, 32, "general.alignment has type i32 (must be u32)"},
              {2, 32, "general.alignment has type u16 (must be u32)"}};
    for (size_t i = 0; i < sizeof al / sizeof al[0]; i++) {
        head(&b, 3, 0, 1);
        key(&b, "general.alignment", al[i].type);
        if (al[i].type == 10)
            u64(&b, al[i].value);
        else if (al[i].type == 2)
            u8(&b, (uint8_t)al[i].value), u8(&b, 0);
        else
            u32(&b, (uint32_t)al[i].value);
        parse_bad(&b, al[i].want, "alignment");
    }
    for (uint32_t a = 1; a; a <<= 1) {
        head(&b, 3, 0, 1);
        key(&b, "general.alignment", 4), u32(&b, a);
        gg_file f;
        if (parse_ok(&b, &f, "power-of-two alignment") == 0) {
            EXPECT(f.alignment == a && f.data_offset % a == 0 && f.data_offset >= f.hdr_len, "alignment %u", a);
            gg_file_free(&f);
        }
        free(b.p);
    }
    /* Duplicates (also among many names, through the hash). */
    head(&b, 3, 0, 3);
    key(&b, "a", 0), u8(&b, 1);
    key(&b, "b", 0), u8(&b, 1);
    key(&b, "a", 8), str(&b, "x");
    parse_bad(&b, "offset 52: key 2 \"a\" duplicates key 0", "duplicate key");
    head(&b, 3, 1000, 0);
    uint64_t one = 1;
    char nm[16];
    for (int i = 0; i < 1000; i++) {
        snprintf(nm, sizeof nm, "t%d", i == 999 ? 500 : i);
        tensor(&b, nm, 1, &one, 0, 0);
    }
    parse_bad(&b, "tensor 999 \"t500\" has the same name as tensor 500", "duplicate tensor name");
    head(&b, 3, 2, 0);
    tensor(&b, "", 1, &one, 0, 0);
    tensor(&b, "", 1, &one, 0, 0);
    parse_bad(&b, "tensor 1 \"\" has the same name as tensor 0", "two empty names");
    /* Data section past the end. */
    head(&b, 3, 1, 0);
    tensor(&b, "t", 1, &one, 0, 0);
    parse_bad(&b, "offset 57: data section would start at 64 but the file ends at 57", "no data section");
}

/* ---- layout and model ---- */

static void layout_edges(void)
{
    gg_err e = {GG_OK, ""};
    gg_layout l;
    const gg_type *r8 = gg_type_by_name("Q4_0_R8"), *bn = gg_type_by_name("IQ2_BN");
    EXPECT(gg_layout_init(&l, r8, 0, 8, &e) == 0 && l.nelems == 0 && gg_layout_granule(&l) == 32,
           "Q4_0_R8 0 x 8: granule %" PRIu64, gg_layout_granule(&l));
    EXPECT(gg_layout_init(&l, r8, UINT64_C(1) << 40, 0, &e) == 0 && gg_layout_granule(&l) == 32,
           "Q4_0_R8 2^40 x 0: granule %" PRIu64 " (callers allocate it)", gg_layout_granule(&l));
    EXPECT(gg_layout_init(&l, r8, 64, 8, &e) == 0 && gg_layout_granule(&l) == 512, "Q4_0_R8 64 x 8");
    e.msg[0] = 0;
    EXPECT(gg_layout_init(&l, bn, 0, (UINT64_C(1) << 63) - 1, &e) == -1 && e.code == GG_E_UNSUPPORTED &&
               strstr(e.msg, "overflows"),
           "IQ2_BN 0 x 2^63-1: row metadata overflows (%s)", e.msg);
    uint64_t nb = 0;
    EXPECT(gg_type_nbytes(bn, 0, 3, &nb, &e) == 0 && nb == 12, "IQ2_BN 0 x 3 is 3 rows of metadata");
}

static char tmpdir[] = "/tmp/test_gguf.XXXXXX";

static const char *write_tmp(const char *name, buf *b)
{
    static char path[256];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "wb");
    fwrite(b->p, 1, b->n, f);
    fclose(f);
    free(b->p);
    return path;
}

/* types.tsv groups by (type, id) in order of first appearance, linearly. */
static void model_types_tsv(void)
{
    buf b;
    const int n = 20000;
    head(&b, 3, (uint64_t)n + 3, 0);
    uint64_t four = 4;
    tensor(&b, "a", 1, &four, 0, 0);
    tensor(&b, "b", 1, &four, 777, 0);
    tensor(&b, "c", 1, &four, 0, 0);
    char nm[16];
    for (int i = 0; i < n; i++) { /* distinct unknown ids: quadratic before */
        snprintf(nm, sizeof nm, "u%d", i);
        tensor(&b, nm, 1, &four, 100000 + (uint32_t)i, 0);
    }
    pad(&b, 32);
    for (int i = 0; i < 16; i++)
        u8(&b, 0);
    const char *path = write_tmp("types.gguf", &b);
    gg_model m;
    gg_err e = {GG_OK, ""};
    const char *err = e.msg;
    int rc = gg_model_open(&m, path, NULL, &e);
    EXPECT(rc == 0, "open: %s", err);
    if (rc == 0) {
        gg_reader_opts ro;
        gg_reader_default_opts(&ro);
        gg_reader *r = gg_reader_new(&ro);
        /* The tree takes the model over. */
        gg_model *mp = malloc(sizeof *mp);
        *mp = m;
        memset(&m, 0, sizeof m);
        gg_tree *t = gg_tree_new(&mp, 1, r, NULL, &e);
        if (t) {
            gg_ino node = 0;
            gg_tree_lookup(t, GG_ROOT, "types.tsv", &node, NULL);
            char *txt = malloc(1 << 22);
            ssize_t k = gg_tree_read(t, node, NULL, txt, (1 << 22) - 1, 0, NULL);
            EXPECT(k > 0, "types.tsv read %zd", k);
            if (k > 0) {
                txt[k] = 0;
                EXPECT(strncmp(txt, "type\ttype_id\tdialect\ttensors\tbytes\nF32\t0\tmainline\t2\t32\n"
                                    "unknown\t777\t-\t1\t16\nunknown\t100000\t-\t1\t16\n", 85) == 0,
                       "types.tsv begins:\n%.200s", txt);
                int lines = 0;
                for (ssize_t i = 0; i < k; i++)
                    lines += txt[i] == '\n';
                EXPECT(lines == n + 3, "types.tsv has %d lines", lines);
            }
            free(txt);
            gg_tree_free(t);
        } else {
            EXPECT(0, "tree: %s", err);
        }
        gg_reader_free(r);
    }
    gg_model_close(&m);
    unlink(path);
}

/* Zero-element tensors of every layout family: stats and f32 work. */
static void model_empty_tensors(void)
{
    buf b;
    head(&b, 3, 4, 0);
    uint64_t r8[2] = {0, 8}, r4[2] = {32, 0}, bn[2] = {0, 3}, one[1] = {4};
    tensor(&b, "r8", 2, r8, 202, 0);
    tensor(&b, "r4", 2, r4, 220, 0);
    tensor(&b, "bn", 2, bn, 134, 0);
    tensor(&b, "x", 1, one, 0, 32);
    pad(&b, 32);
    for (int i = 0; i < 64; i++)
        u8(&b, 0);
    const char *path = write_tmp("empty.gguf", &b);
    gg_model m;
    gg_err e = {GG_OK, ""};
    int rc = gg_model_open(&m, path, NULL, &e);
    EXPECT(rc == 0, "open: %s", e.msg);
    if (rc == 0) {
        gg_reader_opts ro;
        gg_reader_default_opts(&ro);
        gg_reader *r = gg_reader_new(&ro);
        /* The tree takes the model over. */
        gg_model *mp = malloc(sizeof *mp);
        *mp = m;
        memset(&m, 0, sizeof m);
        gg_tree *t = gg_tree_new(&mp, 1, r, NULL, &e);
        if (t) {
            gg_ino tens = 0;
            gg_tree_lookup(t, GG_ROOT, "tensors", &tens, NULL);
            const char *names[] = {"r8", "r4", "bn"};
            for (int i = 0; i < 3; i++) {
                gg_ino d = 0, st = 0, f32 = 0;
                gg_tree_lookup(t, tens, names[i], &d, NULL);
                gg_tree_lookup(t, d, "stats", &st, NULL);
                gg_tree_lookup(t, d, "f32", &f32, NULL);
                char txt[512];
                gg_attr sa, fa;
                ssize_t k = gg_tree_read(t, st, NULL, txt, sizeof txt - 1, 0, NULL);
                txt[k > 0 ? k : 0] = 0;
                EXPECT(k == GG_STATS_BYTES && strncmp(txt, "count ", 6) == 0 && strtoull(txt + 6, NULL, 10) == 0 &&
                           gg_tree_getattr(t, st, &sa, NULL) == 0 && sa.size == (uint64_t)k,
                       "%s: stats %zd", names[i], k);
                EXPECT(gg_tree_getattr(t, f32, &fa, NULL) == 0 && fa.size == 0 &&
                           gg_tree_read(t, f32, NULL, txt, 16, 0, NULL) == 0,
                       "%s: f32 empty", names[i]);
            }
            EXPECT(mp->t[2].nbytes == 6, "bn: 3 rows of 2 bytes of metadata, got %" PRIu64, mp->t[2].nbytes);
            gg_tree_free(t);
        }
        gg_reader_free(r);
    }
    gg_model_close(&m);
    unlink(path);
}

/* ---- the type table (src/gguf/types.c) ---- */

/* Every row is whole, and an id means one layout per dialect (a variant aside: it is only
 * chosen when forced). */
static void type_table(void)
{
    size_t n = gg_type_count();
    EXPECT(n > 0, "empty type table");
    for (size_t i = 0; i < n; i++) {
        const gg_type *t = gg_type_at(i);
        EXPECT(t->name && t->name[0], "row %zu: no name", i);
        EXPECT(t->tid > GG_T_NONE && t->tid < GG_T_COUNT, "%s: identity %d", t->name, (int)t->tid);
        EXPECT(t->block_elems >= 1 && t->block_bytes >= 1 && t->rows_interleaved >= 1,
               "%s: block %u elems / %u bytes, %u rows interleaved", t->name, t->block_elems,
               t->block_bytes, t->rows_interleaved);
        EXPECT(t->dialects != 0 && (t->dialects & ~(uint32_t)GG_DIALECT_ALL) == 0, "%s: dialects %#x",
               t->name, t->dialects);
        EXPECT(gg_type_index(t) == i, "%s: index %zu, not %zu", t->name, gg_type_index(t), i);
        for (size_t j = 0; j < i; j++) {
            const gg_type *u = gg_type_at(j);
            EXPECT(u->id != t->id || !(u->dialects & t->dialects) ||
                       ((u->flags | t->flags) & GG_TYPE_VARIANT),
                   "%s and %s share id %u in dialects %#x", u->name, t->name, t->id,
                   u->dialects & t->dialects);
        }
    }
}

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    value_types(3);
    value_types(2);
    value_types(1);
    limits();
    malformed();
    layout_edges();
    model_types_tsv();
    model_empty_tensors();
    type_table();
    rmdir(tmpdir);
    if (fails) {
        fprintf(stderr, "test_gguf: %d failures\n", fails);
        return 1;
    }
    printf("test_gguf: all passed\n");
    return 0;
}
