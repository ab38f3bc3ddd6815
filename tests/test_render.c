/* test_render - unit tests of the text rules (floats, strings, arrays, JSON)
 * and of name escaping. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/names.h"
#include "gguffs/render.h"

#include "testlib.h"

static void f32_case(float v, const char *want)
{
    char out[48];
    gg_fmt_f32(out, v);
    EXPECT(strcmp(out, want) == 0, "f32 %.9g -> \"%s\", want \"%s\"", v, out, want);
}

static void f64_case(double v, const char *want)
{
    char out[48];
    gg_fmt_f64(out, v);
    EXPECT(strcmp(out, want) == 0, "f64 %.17g -> \"%s\", want \"%s\"", v, out, want);
}

/* Round trip: every printed f32 parses back to the same bits. */
static void f32_roundtrip(void)
{
    uint32_t x = 0x12345678;
    for (int i = 0; i < 200000; i++) {
        x = x * 1664525u + 1013904223u;
        float v;
        memcpy(&v, &x, 4);
        if (isnan(v))
            continue;
        char out[48];
        gg_fmt_f32(out, v);
        float back = strtof(out, NULL);
        EXPECT(memcmp(&back, &v, 4) == 0, "f32 bits 0x%08x printed \"%s\" reads back differently", x, out);
        if (fails > 10)
            return;
    }
}

static void f64_roundtrip(void)
{
    uint64_t x = 0x123456789abcdefull;
    for (int i = 0; i < 100000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        double v;
        memcpy(&v, &x, 8);
        if (isnan(v))
            continue;
        char out[48];
        gg_fmt_f64(out, v);
        double back = strtod(out, NULL);
        EXPECT(memcmp(&back, &v, 8) == 0, "f64 printed \"%s\" reads back differently", out);
        if (fails > 10)
            return;
    }
}

static void json_case(const char *in, size_t n, const char *want)
{
    gg_buf b = {0};
    gg_json_string(&b, in, n);
    EXPECT(b.p && strcmp(b.p, want) == 0, "json of %zu bytes -> %s, want %s", n, b.p ? b.p : "(null)", want);
    gg_buf_free(&b);
}

static void name_case(const char *in, size_t n, const char *want)
{
    char *e = gg_name_escape(in, n);
    EXPECT(e && strcmp(e, want) == 0, "escape -> \"%s\", want \"%s\"", e ? e : "(null)", want);
    if (e && strlen(e) <= 255 && !strstr(e, "%~")) {
        char back[1024];
        long k = gg_name_unescape(e, back);
        EXPECT(k == (long)n && memcmp(back, in, n) == 0, "unescape of \"%s\" does not give the name back", e);
    }
    free(e);
}

int main(void)
{
    f32_case(1e-5f, "1e-05");
    f32_case(10000.0f, "10000.0");
    f32_case(0.1f, "0.1");
    f32_case(-0.0f, "-0.0");
    f32_case(0.0f, "0.0");
    f32_case(3.1415927f, "3.1415927");
    f32_case(3.4028235e38f, "3.4028235e+38");
    f32_case(1e-45f, "1e-45");
    f32_case(1.1754944e-38f, "1.1754944e-38");
    f32_case(INFINITY, "inf");
    f32_case(-INFINITY, "-inf");
    f32_case(NAN, "nan");
    f32_case(0.0001f, "0.0001");
    f32_case(123456.0f, "123456.0");
    f32_case(1e16f, "1e+16");
    f64_case(0.1, "0.1");
    f64_case(2.718281828459045, "2.718281828459045");
    f64_case(1e300, "1e+300");
    f64_case(5e-324, "5e-324");
    f64_case(-1e-310, "-1e-310");
    f64_case(1.7976931348623157e308, "1.7976931348623157e+308");
    f64_case(1234567890123456.0, "1234567890123456.0");
    f64_case(1e16, "1e+16");
    f32_roundtrip();
    f64_roundtrip();

    json_case("a\"b\\c", 5, "\"a\\\"b\\\\c\"");
    json_case("x\ny\tz\r", 6, "\"x\\ny\\tz\\r\"");
    json_case("a\0b", 3, "\"a\\u0000b\"");
    json_case("h\xc3\xa9", 3, "\"h\xc3\xa9\"");
    json_case("bad\xff!", 5, "\"bad\xef\xbf\xbd!\"");
    json_case("\xed\xa0\x80", 3, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\""); /* a surrogate is not UTF-8 */
    json_case("\xf0\x9f\xa6\x99", 4, "\"\xf0\x9f\xa6\x99\"");

    name_case("blk.0.attn_q.weight", 19, "blk.0.attn_q.weight");
    name_case("a/b%c", 5, "a%2Fb%25c");
    name_case(".", 1, "%2E");
    name_case("..", 2, "%2E%2E");
    name_case("...", 3, "...");
    name_case("", 0, "%");
    name_case("%", 1, "%25");
    name_case("a\0b", 3, "a%00b");
    name_case("%2E", 3, "%252E");
    char longname[400];
    memset(longname, 'x', sizeof longname);
    char *e = gg_name_escape(longname, sizeof longname);
    EXPECT(e && strlen(e) <= 255 && strstr(e, "%~"), "long name not shortened: %zu bytes", e ? strlen(e) : 0);
    char *e2 = gg_name_escape(longname, sizeof longname - 1);
    EXPECT(e && e2 && strcmp(e, e2) != 0, "two long names shortened to the same file name");
    free(e);
    free(e2);

    /* Folder names made distinct in order; reserved names taken first; cut to 255. */
    char *n[5] = {strdup("a"), strdup("a"), strdup("a~2"), strdup(".stats"), malloc(256)};
    memset(n[4], 'y', 255);
    n[4][255] = 0;
    char *n5 = strdup(n[4]);
    char **pn[6] = {&n[0], &n[1], &n[2], &n[3], &n[4], &n5};
    const char *reserved[] = {".stats"};
    EXPECT(gg_names_unique(pn, 6, reserved, 1) == 0, "gg_names_unique failed");
    EXPECT(!strcmp(n[0], "a") && !strcmp(n[1], "a~2") && !strcmp(n[2], "a~2~2") && !strcmp(n[3], ".stats~2"),
           "unique names: %s %s %s %s", n[0], n[1], n[2], n[3]);
    EXPECT(strlen(n[4]) == 255 && strlen(n5) == 255 && !strcmp(n5 + 253, "~2") && strncmp(n5, n[4], 253) == 0,
           "cut for a suffix: %zu %s", strlen(n5), n5 + 250);
    for (int i = 0; i < 5; i++)
        free(n[i]);
    free(n5);

    printf("test_render: %s\n", fails ? "FAILED" : "all passed");
    return fails != 0;
}
