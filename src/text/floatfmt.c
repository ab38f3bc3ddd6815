/* floatfmt.c - shortest round-trip float text and integer text (rules in
 * floatfmt.h).
 *
 * The digits come from the Schubfach method (R. Giulietti, "The Schubfach
 * way to render doubles", 2020), written here from the paper's description:
 *
 * A finite v > 0 is c * 2^q (c the integer significand). Every real in its
 * rounding interval R reads back as v: R spans half an ulp each side,
 * (c -+ 1/2) * 2^q, except that the gap below a power of two (c = 2^(P-1),
 * not the least exponent) is half as wide, so R's lower end is (c - 1/4) 2^q.
 * R includes its ends when c is even (ties go to even on reading).
 *
 * Pick k with 10^k <= width(R) < 10^(k+1) (k = floor(log10(2^q)), or of
 * 3/4 * 2^q for the narrow case). In units of 10^k, R is then between 1 and
 * 10 long, so:
 *  - it holds at most one multiple of 10: if it does, that is the shortest
 *    decimal (any shorter decimal would be a multiple of 10 too);
 *  - otherwise it holds floor(v) or floor(v) + 1 (it is at least 1 long),
 *    and the shortest decimal is whichever of them is inside, the closer to
 *    v if both are (even on an exact tie).
 * Python's repr (David Gay's dtoa, mode 0) makes the same choice. Unlike
 * Java's Double.toString, which uses the same method, we look for the
 * shorter decimal whenever floor(v) has two digits or more: Java prefers a
 * closer 2-digit decimal to a 1-digit one, Python does not.
 *
 * The three scaled values 4 * {lower end, v, upper end} / 10^k are products
 * of a small integer with 10^-k, taken from a table of 128-bit
 * overestimates (src/floatfmt_tables.h). They are rounded "to odd": the
 * integer part, with the lowest bit set when the exact product is not an
 * integer, which keeps every comparison with 4 * candidate (an even number)
 * exact. Telling the two apart from the approximate product rests on the
 * paper's bound on how near such products come to an integer without being
 * one: the overestimate adds less than 2^-69 (f64) or 2^-33 (f32), and the
 * fraction bits looked at (64 and 32) are at least as many as in the
 * paper's own implementation, whose error is no smaller. Besides the tests,
 * every f32 and 1.5e9 f64 patterns were compared with an independent
 * implementation while this was written. */
#include "gguffs/floatfmt.h"

#include <string.h>

#include "floatfmt_tables.h"

typedef unsigned __int128 u128;

/* "00" "01" ... "99": two digits per table read. */
static const char pairs[201] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                               "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                               "8081828384858687888990919293949596979899";

/* floor(log10(2^q)), floor(log10(3/4 * 2^q)), floor(log2(10^e)); the
 * constants are checked over the whole f64 range by the generator. An
 * arithmetic right shift of a negative product is what gcc and clang do. */
static inline int flog10_pow2(int q) { return (int)(((int64_t)q * FF_L10_M + FF_L10_A) >> FF_L10_SHIFT); }
static inline int flog10_3q_pow2(int q) { return (int)(((int64_t)q * FF_L10Q_M + FF_L10Q_A) >> FF_L10_SHIFT); }
static inline int flog2_pow10(int e) { return (int)(((int64_t)e * FF_L2_M + FF_L2_A) >> FF_L2_SHIFT); }

/* cp * G / 2^128 rounded to odd, G = {hi, lo}; cp < 2^59. */
static inline uint64_t scale64(uint64_t hi, uint64_t lo, uint64_t cp)
{
    u128 top = (u128)hi * cp + (((u128)lo * cp) >> 64); /* the product >> 64 */
    return (uint64_t)(top >> 64) | ((uint64_t)top != 0);
}

/* cp * g / 2^64 rounded to odd, g = G >> 64 plus one; cp < 2^30. */
static inline uint64_t scale32(uint64_t g, uint64_t cp)
{
    u128 p = (u128)g * cp;
    return (uint64_t)(p >> 64) | (((uint64_t)p >> 32) != 0);
}

/* The choice described at the top, from the scaled values of R's ends and v
 * (vl, vr, vb, each 4 * x / 10^k rounded to odd). open: R excludes its ends.
 * Returns the decimal's digits; *k goes up by one when they lost a zero.
 * Written without branches: on random data each test is a coin toss. */
static inline uint64_t choose(uint64_t vl, uint64_t vb, uint64_t vr, unsigned open, int *k)
{
    uint64_t s = vb >> 2, s10 = s / 10;
    /* One digit less: 10 * s10 or 10 * (s10 + 1), if exactly one is in R. */
    unsigned lo_in = vl + open <= s10 * 40;
    unsigned hi_in = (s10 + 1) * 40 + open <= vr;
    unsigned shorter = (lo_in ^ hi_in) & (s >= 10);
    /* Else s or t = s + 1: the one in R, the closer to v if both are (vb ==
     * 4s + 2 only on an exact tie, which goes to the even one). */
    unsigned s_in = vl + open <= s << 2;
    unsigned t_in = ((s + 1) << 2) + open <= vr;
    uint64_t mid = (s << 2) + 2;
    unsigned t_closer = (vb > mid) | ((vb == mid) & (unsigned)s);
    uint64_t same = s + ((!s_in) | (t_in & t_closer));
    *k += (int)shorter;
    return shorter ? s10 + hi_in : same;
}

/* Shortest digits of c * 2^q (c > 0); narrow: R's lower gap is halved. */
static uint64_t shortest64(uint64_t c, int q, int narrow, int *k10)
{
    int k = narrow ? flog10_3q_pow2(q) : flog10_pow2(q);
    int h = q + flog2_pow10(-k) + 1; /* 0..4: cb << h keeps 2^127 scaling */
    uint64_t hi = ff_pow10[-k - FF_E_MIN].hi, lo = ff_pow10[-k - FF_E_MIN].lo;
    uint64_t cb = c << 2;
    uint64_t vb = scale64(hi, lo, cb << h);
    uint64_t vl = scale64(hi, lo, (cb - 2 + narrow) << h);
    uint64_t vr = scale64(hi, lo, (cb + 2) << h);
    *k10 = k;
    return choose(vl, vb, vr, (unsigned)c & 1, k10);
}

static uint64_t shortest32(uint32_t c, int q, int narrow, int *k10)
{
    int k = narrow ? flog10_3q_pow2(q) : flog10_pow2(q);
    int h = q + flog2_pow10(-k) + 1;
    uint64_t g = ff_pow10[-k - FF_E_MIN].hi + 1;
    uint64_t cb = (uint64_t)c << 2;
    uint64_t vb = scale32(g, cb << h);
    uint64_t vl = scale32(g, (cb - 2 + narrow) << h);
    uint64_t vr = scale32(g, (cb + 2) << h);
    *k10 = k;
    return choose(vl, vb, vr, c & 1, k10);
}

static const uint64_t pow10_u64[20] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
    1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
    100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
    1000000000000000000ull, 10000000000000000000ull,
};

/* Number of decimal digits of d (1 for 0). */
static inline int digit_count(uint64_t d)
{
    int bits = 64 - __builtin_clzll(d | 1);
    int n = (bits * 1233) >> 12; /* floor(bits * log10(2)): the count or one short */
    return d ? n + (d >= pow10_u64[n]) : 1;
}

/* Exactly 8 digits of v < 10^8 at o, leading zeros included: two levels of
 * independent divisions rather than a chain of eight. */
static inline void put8(char *o, uint32_t v)
{
    uint32_t a = v / 10000, b = v % 10000;
    memcpy(o, pairs + 2 * (a / 100), 2);
    memcpy(o + 2, pairs + 2 * (a % 100), 2);
    memcpy(o + 4, pairs + 2 * (b / 100), 2);
    memcpy(o + 6, pairs + 2 * (b % 100), 2);
}

/* The digits of d end at end (the 24 bytes before it are written, leading
 * zeros and all); returns where they start. */
static inline char *digits_before(char *end, uint64_t d)
{
    uint64_t hi = d / 100000000;
    put8(end - 8, (uint32_t)(d - hi * 100000000));
    if (hi) {
        uint64_t top = hi / 100000000; /* < 2^64 / 10^16 < 10^8 */
        put8(end - 16, (uint32_t)(hi - top * 100000000));
        put8(end - 24, (uint32_t)top);
    }
    return end - digit_count(d);
}

/* The same for the significands of floats, d < 10^17 (f64: s < 2^53 * 10;
 * f32: s < 2^24 * 10): a fixed number of steps whatever the length, as
 * branching on it mispredicts on mixed data. */
static inline char *sig_digits_before(char *end, uint64_t d, int f64)
{
    uint64_t hi = d / 100000000;
    put8(end - 8, (uint32_t)(d - hi * 100000000));
    if (f64) {
        uint64_t top = hi / 100000000;
        put8(end - 16, (uint32_t)(hi - top * 100000000));
        end[-17] = (char)('0' + top);
    } else {
        end[-9] = (char)('0' + hi);
    }
    return end - digit_count(d);
}

/* Python's layout of (-)digits * 10^k; digits > 0, at most 17 of them.
 * Digits move in fixed-size copies (8, 16 or 24 bytes, one or two moves
 * each) rather than copies of the exact length, whose size-dependent
 * branches mispredict on mixed data: bytes past the text, up to
 * GG_FMT_BUF, are scratch. */
static inline int layout(char *out, int neg, uint64_t digits, int k, int f64)
{
    char buf[48];
    char *end = buf + 24, *d = sig_digits_before(end, digits, f64);
    memset(end, '0', 24); /* what the fixed copies read past the digits */
    while (end[-1] == '0') { /* digits > 0, so *d != '0' stops this */
        end--;
        k++;
    }
    int n = (int)(end - d);
    int e = k + n - 1; /* exponent of the first digit */
    char *o = out;
    *o = '-';
    o += neg;
    if (e < -4 || e >= 16) { /* d.ddd e+XX: at most 1 + 1 + 16 + 5 bytes */
        o[0] = d[0];
        o[1] = '.';
        memcpy(o + 2, d + 1, 16);
        o += n + (n > 1); /* no point after a lone digit */
        o[0] = 'e';
        o[1] = e < 0 ? '-' : '+';
        unsigned a = (unsigned)(e < 0 ? -e : e);
        unsigned h = a >= 100;
        o[2] = (char)('0' + a / 100);
        o += 2 + h;
        memcpy(o, pairs + 2 * (a % 100), 2);
        o += 2;
    } else if (e < 0) { /* 0.000ddd: at most 5 + 24 bytes */
        memcpy(o, "0.000000", 8);
        o += 1 - e; /* "0." and -e - 1 zeros */
        memcpy(o, d, 24);
        o += n;
    } else if (n <= e + 1) { /* ddd000.0: at most 16 + 2 bytes */
        memcpy(o, d, 16);
        memset(o + n, '0', 16 - (size_t)n);
        o += e + 1;
        memcpy(o, ".0", 2);
        o += 2;
    } else { /* ddd.ddd: the point moves the fraction (n - e - 1 <= 16 - e bytes) */
        memcpy(o, d, 16);
        o[e + 1] = '.';
        memcpy(o + e + 2, d + e + 1, 8);
        if (n - e - 1 > 8) /* then e <= 7: ends before 7 + 2 + 16 */
            memcpy(o + e + 10, d + e + 9, 8);
        o += n + 1;
    }
    *o = 0;
    return (int)(o - out);
}

/* Zero, infinity and NaN; the sign of a NaN is not shown (as in Python). */
static int special(char *out, int neg, int nan, int inf)
{
    const char *s = nan ? "nan" : inf ? (neg ? "-inf" : "inf") : (neg ? "-0.0" : "0.0");
    size_t n = strlen(s);
    memcpy(out, s, n + 1);
    return (int)n;
}

int gg_fmt_f64(char *out, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    int neg = (int)(bits >> 63);
    uint64_t t = bits & ((1ull << 52) - 1);
    int bq = (int)(bits >> 52) & 0x7ff;
    if (bq == 0x7ff || (bq == 0 && t == 0))
        return special(out, neg, bq == 0x7ff && t, bq == 0x7ff && !t);
    int k;
    uint64_t d = bq ? shortest64(t | 1ull << 52, bq - 1075, t == 0 && bq > 1, &k)
                    : shortest64(t, -1074, 0, &k);
    return layout(out, neg, d, k, 1);
}

int gg_fmt_f32(char *out, float v)
{
    uint32_t bits;
    memcpy(&bits, &v, sizeof bits);
    int neg = (int)(bits >> 31);
    uint32_t t = bits & ((1u << 23) - 1);
    int bq = (int)(bits >> 23) & 0xff;
    if (bq == 0xff || (bq == 0 && t == 0))
        return special(out, neg, bq == 0xff && t, bq == 0xff && !t);
    int k;
    uint64_t d = bq ? shortest32(t | 1u << 23, bq - 150, t == 0 && bq > 1, &k)
                    : shortest32(t, -149, 0, &k);
    return layout(out, neg, d, k, 0);
}

int gg_fmt_u64(char *out, uint64_t v)
{
    char buf[24];
    char *end = buf + sizeof buf, *d = digits_before(end, v);
    size_t n = (size_t)(end - d);
    memcpy(out, d, n);
    out[n] = 0;
    return (int)n;
}

int gg_fmt_i64(char *out, int64_t v)
{
    uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    *out = '-';
    int neg = v < 0;
    return neg + gg_fmt_u64(out + neg, m);
}
