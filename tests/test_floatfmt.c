/* test_floatfmt - unit tests of the number text (floatfmt.h): layout edges,
 * the narrow gap below powers of two, exact ties, integers; and, on
 * pseudo-random floats, the three properties that define the digits, checked
 * with the C library's correctly rounded strtof/strtod: the text reads back,
 * neither neighbour with one digit less does, and the neighbour of the same
 * length is not closer (tests/check.d/12_floatfmt.sh compares with Python). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/floatfmt.h"

#include "testlib.h"

static void f32_case(float v, const char *want)
{
    char out[GG_FMT_BUF];
    int n = gg_fmt_f32(out, v);
    EXPECT(strcmp(out, want) == 0 && n == (int)strlen(out), "f32 %.9g -> \"%s\" (%d), want \"%s\"", v, out, n,
           want);
}

static void f64_case(double v, const char *want)
{
    char out[GG_FMT_BUF];
    int n = gg_fmt_f64(out, v);
    EXPECT(strcmp(out, want) == 0 && n == (int)strlen(out), "f64 %.17g -> \"%s\" (%d), want \"%s\"", v, out, n,
           want);
}

static void int_case(int64_t v, const char *want)
{
    char out[GG_FMT_BUF];
    int n = gg_fmt_i64(out, v);
    EXPECT(strcmp(out, want) == 0 && n == (int)strlen(out), "i64 -> \"%s\", want \"%s\"", out, want);
}

/* Significant digits of our text and the exponent of the first one:
 * |x| = 0.d1d2...dn * 10^(e+1). */
static int split(const char *s, char *digits, int *e)
{
    int n = 0, intlen = -1, zeros = 0;
    if (*s == '-')
        s++;
    for (; *s && *s != 'e'; s++) {
        if (*s == '.')
            intlen = zeros + n;
        else if (n == 0 && *s == '0')
            zeros++;
        else
            digits[n++] = *s;
    }
    if (intlen < 0)
        intlen = zeros + n;
    *e = intlen - zeros - 1 + (*s == 'e' ? atoi(s + 1) : 0);
    while (n > 1 && digits[n - 1] == '0')
        n--;
    digits[n] = 0;
    return n;
}

/* Reads "(-)0.DIGITS e(E+1)" back at f32 or f64 precision. */
static int reads_back(int neg, const char *digits, int e, int f64, const void *want)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s0.%se%d", neg ? "-" : "", digits, e + 1);
    if (f64) {
        double d = strtod(buf, NULL);
        return memcmp(&d, want, 8) == 0;
    }
    float f = strtof(buf, NULL);
    return memcmp(&f, want, 4) == 0;
}

/* digits (n of them) plus delta in the last place, as a digit string and
 * exponent; returns 0 if that leaves no digits (0). */
static int step(const char *digits, int n, int e, int delta, char *out, int *oe)
{
    char tmp[40];
    memcpy(tmp + 1, digits, (size_t)n);
    tmp[0] = '0';
    int i = n;
    if (delta > 0) {
        while (tmp[i] == '9')
            tmp[i--] = '0';
        tmp[i]++;
    } else {
        while (tmp[i] == '0')
            tmp[i--] = '9';
        tmp[i]--;
    }
    int start = tmp[0] == '0' ? 1 : 0;
    *oe = e + (start == 0);
    while (start <= n && tmp[start] == '0') { /* 1 - 1 in the first place: 0.9.. at the next exponent */
        start++;
        (*oe)--;
    }
    if (start > n)
        return 0;
    memcpy(out, tmp + start, (size_t)(n + 1 - start));
    out[n + 1 - start] = 0;
    return 1;
}

/* The defining properties for one value (see the top). */
static void properties(const char *text, int f64, const void *v)
{
    char d[40], t[40];
    int e, te;
    int neg = text[0] == '-';
    int n = split(text, d, &e);
    EXPECT(reads_back(neg, d, e, f64, v), "%s does not read back", text);
    if (n > 1) {
        /* One digit less: the truncation and the one above it. */
        char shorter[40];
        memcpy(shorter, d, (size_t)n - 1);
        shorter[n - 1] = 0;
        EXPECT(!reads_back(neg, shorter, e, f64, v), "%s: %.*s reads back too", text, n - 1, d);
        if (step(shorter, n - 1, e, 1, t, &te))
            EXPECT(!reads_back(neg, t, te, f64, v), "%s: %se%d (shorter) reads back too", text, t, te);
    }
    /* Same length, one unit each way: if it reads back it must not be closer. */
    double x = f64 ? *(const double *)v : (double)*(const float *)v;
    long double ours = strtold(text, NULL);
    for (int delta = -1; delta <= 1; delta += 2) {
        if (!step(d, n, e, delta, t, &te) || !reads_back(neg, t, te, f64, v))
            continue;
        char buf[64];
        snprintf(buf, sizeof buf, "%s0.%se%d", x < 0 ? "-" : "", t, te + 1);
        long double other = strtold(buf, NULL);
        /* long double carries 11 bits more than f64: enough to order the two
         * distances but for near-ties, which the margin lets through (the
         * Python suite checks those exactly). */
        long double dn = fabsl(ours - (long double)x), dt = fabsl(other - (long double)x);
        EXPECT(dn <= dt + fabsl((long double)x) * 0x1p-62L, "%s: %s is closer", text, buf);
    }
}

static void random_properties(void)
{
    uint64_t x = 0x243f6a8885a308d3ull;
    for (int i = 0; i < 200000 && fails < 10; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint32_t u = (uint32_t)(x >> 32);
        float f;
        memcpy(&f, &u, 4);
        double d;
        memcpy(&d, &x, 8);
        char out[GG_FMT_BUF];
        if (isfinite(f) && f != 0) {
            gg_fmt_f32(out, f);
            properties(out, 0, &f);
        }
        if (isfinite(d) && d != 0) {
            gg_fmt_f64(out, d);
            properties(out, 1, &d);
        }
    }
}

int main(void)
{
    /* Layout: plain for exponents -4..15, else scientific with 2+ digits. */
    f64_case(0.0001, "0.0001");
    f64_case(1e-5, "1e-05");
    f64_case(0.00012345678901234567, "0.00012345678901234567");
    f64_case(9999999999999998.0, "9999999999999998.0");
    f64_case(1e16, "1e+16");
    f64_case(123456789012345.6, "123456789012345.6");
    f64_case(123456789012345678.0, "1.2345678901234568e+17");
    f64_case(1e100, "1e+100");
    f64_case(-1.5e300, "-1.5e+300");
    f64_case(1e-300, "1e-300");
    f64_case(0.1 + 0.2, "0.30000000000000004");
    f64_case(1.0 / 3, "0.3333333333333333");
    f64_case(9007199254740994.0, "9007199254740994.0");
    f64_case(1e22, "1e+22");
    f64_case(1e23, "1e+23");
    f32_case(0.0001f, "0.0001"); /* by its digits, though the f32 is below 1e-4 */
    f32_case(1e-5f, "1e-05");
    f32_case(1e15f, "1000000000000000.0");
    f32_case(1e16f, "1e+16");
    f32_case(9999999.0f, "9999999.0");
    f32_case(123456789.0f, "123456790.0");
    f32_case(16777217.0f, "16777216.0");
    f32_case(100.0f, "100.0");
    f32_case(0.3f, "0.3");
    f32_case(-1.5f, "-1.5");
    /* Zeros, infinities, NaN (no sign), extremes, subnormals. */
    f32_case(0.0f, "0.0");
    f32_case(-0.0f, "-0.0");
    f32_case(INFINITY, "inf");
    f32_case(-INFINITY, "-inf");
    f32_case(NAN, "nan");
    f32_case(-NAN, "nan");
    f32_case(3.4028235e38f, "3.4028235e+38");
    f32_case(1.1754944e-38f, "1.1754944e-38");
    f32_case(1e-45f, "1e-45");
    f32_case(4e-45f, "4e-45");
    f64_case(-0.0, "-0.0");
    f64_case(-NAN, "nan");
    f64_case(-INFINITY, "-inf");
    f64_case(5e-324, "5e-324");
    f64_case(-1.5e-323, "-1.5e-323");
    f64_case(2.2250738585072014e-308, "2.2250738585072014e-308");
    f64_case(2.225073858507201e-308, "2.225073858507201e-308");
    f64_case(1.7976931348623157e308, "1.7976931348623157e+308");
    /* The narrow gap below a power of two (issue 12's examples). */
    f32_case(0x1p-96f, "1.2621775e-29");
    f32_case(0x1p86f, "7.7371252e+25");
    f64_case(0x1p-1017, "7.120236347223045e-307");
    /* Exact ties go to the even digit. */
    f32_case(2097152.25f, "2097152.2");
    f32_case(2097152.75f, "2097152.8");
    f64_case(4503599627370496.5, "4503599627370496.0");
    /* Integers. */
    int_case(0, "0");
    int_case(-1, "-1");
    int_case(9, "9");
    int_case(10, "10");
    int_case(INT64_MIN, "-9223372036854775808");
    int_case(INT64_MAX, "9223372036854775807");
    char out[GG_FMT_BUF];
    gg_fmt_u64(out, UINT64_MAX);
    EXPECT(strcmp(out, "18446744073709551615") == 0, "u64 max -> %s", out);
    for (uint64_t p = 1, i = 0; i < 20; i++, p *= 10) {
        char want[24];
        snprintf(want, sizeof want, "%llu", (unsigned long long)(p - 1));
        gg_fmt_u64(out, p - 1);
        EXPECT(strcmp(out, want) == 0, "u64 %s -> %s", want, out);
        snprintf(want, sizeof want, "%llu", (unsigned long long)p);
        gg_fmt_u64(out, p);
        EXPECT(strcmp(out, want) == 0, "u64 %s -> %s", want, out);
    }
    random_properties();

    printf("test_floatfmt: %s\n", fails ? "FAILED" : "all passed");
    return fails != 0;
}
