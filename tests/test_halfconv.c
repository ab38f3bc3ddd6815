/* test_halfconv - float32 to float16 / bfloat16 (halfconv.h).
 *
 *   test_halfconv [--all]             the unit tests below (--all: part 3
 *                                     over all 2^32 patterns, ~10 s of CPU)
 *   test_halfconv --convert f16|bf16 [scalar|avx2|avx512 [FIRST COUNT]]
 *                                     little-endian u32 bit patterns on stdin
 *                                     (or FIRST, FIRST+1, ... COUNT of them)
 *                                     -> u16 results on stdout (for the
 *                                     comparison with numpy in check.d/65_export)
 *
 * 1. Fixed cases whose answers are worked out by hand.
 * 2. The scalar path against references written here from the IEEE rules on
 *    values (double arithmetic: the two neighbours, the distances, ties to
 *    even), not from bit tricks like the code under test: every positive
 *    f32 bit pattern of the exponents where the rules change (f32
 *    subnormals, the whole f16 subnormal range and its underflow boundary,
 *    1.0, the overflow boundary, infinity and NaN), plus 2^22 random ones.
 * 3. The array functions over the same exponents, both signs: scalar path
 *    == bit function, f(-x) == -f(x), SIMD path == scalar path (the one SIMD
 *    path, AVX2 + F16C, also serves -o simd=avx512).
 * 4. Random mixes of NaN and ordinary lanes (a SIMD vector holding a NaN
 *    takes the scalar rule), every start and length 0..63 (tails), guards
 *    around the output (nothing written outside [0, n)). */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gguffs/decode.h"
#include "gguffs/halfconv.h"
#include "testlib.h"
#include "rng.h"

static float f_of(uint32_t b)
{
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static uint32_t bits_of(float f)
{
    uint32_t b;
    memcpy(&b, &f, 4);
    return b;
}

/* IEEE binary16, round to nearest, ties to even, from the values: the result
 * is n quanta of 2^(e-10), e the exponent of |x| (at least -14, where the
 * subnormals are), and its encoding is ((e + 15) << 10) + n - 1024, which
 * also holds for subnormals (e = -14, n < 1024) and for a rounding that
 * carries into the next binade (n = 2048). NaN: numpy's rule, the top 10
 * payload bits, or 1 when they are all zero. */
static uint16_t ref_f16(uint32_t b)
{
    uint16_t sign = (b >> 31) ? 0x8000 : 0;
    if ((b & 0x7f800000u) == 0x7f800000u) {
        uint32_t payload = b & 0x7fffffu;
        if (!payload)
            return sign | 0x7c00;
        return sign | 0x7c00 | ((payload >> 13) ? (payload >> 13) : 1);
    }
    double d = fabs((double)f_of(b));
    if (d >= 65520.0) /* halfway between 65504 (odd) and 2^16: up, to infinity */
        return sign | 0x7c00;
    if (d == 0)
        return sign;
    int e = ilogb(d); /* 2^e <= d < 2^(e+1) */
    if (e < -14)
        e = -14;
    double k = ldexp(d, 10 - e), n = floor(k), frac = k - n;
    if (frac > 0.5 || (frac == 0.5 && ((int64_t)n & 1)))
        n += 1;
    return sign | (uint16_t)(((e + 15) << 10) + (int)n - 1024);
}

/* bfloat16, round to nearest, ties to even: the candidates are x cut to its
 * top 16 bits and the next bfloat16 away from zero (2^128 past the largest,
 * the value infinity stands for when rounding); the nearer wins, a tie goes
 * to the even one. NaN: sign and top payload bits, made quiet. */
static uint16_t ref_bf16(uint32_t b)
{
    uint16_t sign = (b >> 31) ? 0x8000 : 0;
    uint32_t mag = b & 0x7fffffffu;
    if (mag > 0x7f800000u)
        return (uint16_t)(b >> 16) | 0x0040;
    if (mag == 0x7f800000u)
        return sign | 0x7f80;
    uint32_t lo = mag & 0xffff0000u, hi = lo + 0x10000u;
    double d = f_of(mag), dl = f_of(lo), dh = hi == 0x7f800000u ? ldexp(1.0, 128) : f_of(hi);
    double below = d - dl, above = dh - d;
    int up = above < below || (above == below && ((lo >> 16) & 1));
    return sign | (uint16_t)((up ? hi : lo) >> 16);
}

static void fixed_cases(void)
{
    static const struct {
        uint32_t f;
        uint16_t h, bf;
    } c[] = {
        {0x00000000, 0x0000, 0x0000}, /* +0 */
        {0x80000000, 0x8000, 0x8000}, /* -0 */
        {0x3f800000, 0x3c00, 0x3f80}, /* 1 */
        {0xbfc00000, 0xbe00, 0xbfc0}, /* -1.5 */
        {0x477fe000, 0x7bff, 0x4780}, /* 65504, the largest half; bf16 rounds up (0x7fe000 > half of 0x10000 step) */
        {0x477fefff, 0x7bff, 0x4780}, /* just under 65520: down */
        {0x477ff000, 0x7c00, 0x4780}, /* 65520: tie, to even = infinity */
        {0x47800000, 0x7c00, 0x4780}, /* 65536 */
        {0x7f7fffff, 0x7c00, 0x7f80}, /* largest float: both overflow */
        {0x7f7f7fff, 0x7c00, 0x7f7f}, /* bf16: just under the tie, down */
        {0x7f7f8000, 0x7c00, 0x7f80}, /* bf16: tie, 0x7f7f is odd: up to infinity */
        {0x38800000, 0x0400, 0x3880}, /* 2^-14, the smallest normal half */
        {0x387fc000, 0x03ff, 0x3880}, /* the largest subnormal half */
        {0x387fe000, 0x0400, 0x3880}, /* tie between it and 2^-14: to even (0x400) */
        {0x33800000, 0x0001, 0x3380}, /* 2^-24, the smallest subnormal half */
        {0x33000000, 0x0000, 0x3300}, /* 2^-25: tie between 0 and 2^-24: to 0 */
        {0x33000001, 0x0001, 0x3300}, /* just above: up */
        {0x32ffffff, 0x0000, 0x3300}, /* just below 2^-25: 0 */
        {0x33c00000, 0x0002, 0x33c0}, /* 3 * 2^-25: tie between 1 and 2 quanta: to 2 */
        {0xb3c00000, 0x8002, 0xb3c0}, /* its negative */
        {0x3f808000, 0x3c04, 0x3f80}, /* bf16: tie, 0x3f80 even: down */
        {0x3f818000, 0x3c0c, 0x3f82}, /* bf16: tie, 0x3f81 odd: up */
        {0x3f808001, 0x3c04, 0x3f81}, /* bf16: above the tie: up */
        {0x3f801000, 0x3c00, 0x3f80}, /* f16: tie at bit 12, 0x3c00 even: down */
        {0x3f803000, 0x3c02, 0x3f80}, /* f16: tie, 0x3c01 odd: up */
        {0x00000001, 0x0000, 0x0000}, /* smallest f32 subnormal */
        {0x007fffff, 0x0000, 0x0080}, /* largest f32 subnormal: bf16 rounds up to 2^-126 */
        {0x00018000, 0x0000, 0x0002}, /* bf16 subnormal tie, odd: up */
        {0x7f800000, 0x7c00, 0x7f80}, /* +inf */
        {0xff800000, 0xfc00, 0xff80}, /* -inf */
        {0x7fc00000, 0x7e00, 0x7fc0}, /* quiet NaN */
        {0xffc00000, 0xfe00, 0xffc0}, /* negative quiet NaN */
        {0x7f800001, 0x7c01, 0x7fc0}, /* signalling NaN, low payload: f16 made non-zero, bf16 quiet */
        {0x7f802000, 0x7c01, 0x7fc0}, /* payload bit 13: f16 keeps it */
        {0x7fa00000, 0x7d00, 0x7fe0}, /* signalling NaN with a high payload: f16 keeps it signalling */
        {0x7fffffff, 0x7fff, 0x7fff}, /* all ones */
        {0xff800001, 0xfc01, 0xffc0}, /* negative signalling NaN */
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        CHECK(gg_f32_to_f16_bits(c[i].f) == c[i].h, "f16(%08x) = %04x, want %04x", c[i].f, gg_f32_to_f16_bits(c[i].f),
              c[i].h);
        CHECK(gg_f32_to_bf16_bits(c[i].f) == c[i].bf, "bf16(%08x) = %04x, want %04x", c[i].f,
              gg_f32_to_bf16_bits(c[i].f), c[i].bf);
        /* The hand-worked answers also check the references. */
        CHECK(ref_f16(c[i].f) == c[i].h, "ref_f16(%08x) = %04x, want %04x", c[i].f, ref_f16(c[i].f), c[i].h);
        CHECK(ref_bf16(c[i].f) == c[i].bf, "ref_bf16(%08x) = %04x, want %04x", c[i].f, ref_bf16(c[i].f), c[i].bf);
    }
}


/* The ranges where the rules change, as f32 exponent fields. f16: its
 * whole subnormal range with the underflow boundary below it (2^-25 is the
 * tie between 0 and the smallest subnormal) and the first normals above it;
 * around 1; the overflow boundary (65504, 65520); Inf/NaN. bf16: the f32
 * subnormals (bf16 has them too); around 1; the overflow boundary; Inf/NaN. */
static const unsigned f16_exps[] = {101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111,
                                    112, 113, 114, 127, 141, 142, 143, 255};
static const unsigned bf16_exps[] = {0, 1, 127, 254, 255};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* Scalar against the references: every pattern of an exponent field (the
 * positive ones: the sign is checked on all patterns below). */
static long ref_mismatch_exp(unsigned exp, int bf16)
{
    long bad = 0;
    for (uint32_t m = 0; m < (1u << 23); m++) {
        uint32_t b = (exp << 23) | m;
        uint16_t got = bf16 ? gg_f32_to_bf16_bits(b) : gg_f32_to_f16_bits(b);
        uint16_t want = bf16 ? ref_bf16(b) : ref_f16(b);
        if (got != want && bad++ < 5)
            fprintf(stderr, "%s(%08x) = %04x, reference %04x\n", bf16 ? "bf16" : "f16", b, got, want);
    }
    return bad;
}

static void against_reference(void)
{
    for (int bf = 0; bf < 2; bf++) {
        const unsigned *exps = bf ? bf16_exps : f16_exps;
        size_t ne = bf ? NELEM(bf16_exps) : NELEM(f16_exps);
        long bad = 0;
#pragma omp parallel for reduction(+ : bad) schedule(dynamic, 1)
        for (size_t i = 0; i < ne; i++)
            bad += ref_mismatch_exp(exps[i], bf);
        CHECK(bad == 0, "%s: %ld of %zu x 2^23 patterns differ from the reference", bf ? "bf16" : "f16", bad, ne);
        printf("%s vs reference: every positive pattern of %zu exponents (%zu x 2^23), %ld differ\n",
               bf ? "bf16" : "f16", ne, ne, bad);
    }
    /* Random patterns, any exponent and sign. */
    rng_seed(12);
    long bad16 = 0, badbf = 0;
    for (long i = 0; i < (1l << 22); i++) {
        uint32_t b = (uint32_t)rng_next();
        if (gg_f32_to_f16_bits(b) != ref_f16(b) && bad16++ < 5)
            fprintf(stderr, "f16(%08x) = %04x, reference %04x\n", b, gg_f32_to_f16_bits(b), ref_f16(b));
        if (gg_f32_to_bf16_bits(b) != ref_bf16(b) && badbf++ < 5)
            fprintf(stderr, "bf16(%08x) = %04x, reference %04x\n", b, gg_f32_to_bf16_bits(b), ref_bf16(b));
    }
    CHECK(bad16 == 0, "f16: %ld of 2^22 random patterns differ from the reference", bad16);
    CHECK(badbf == 0, "bf16: %ld of 2^22 random patterns differ from the reference", badbf);
    printf("f16, bf16 vs reference: 2^22 random patterns, %ld and %ld differ\n", bad16, badbf);
}

/* The array functions on chunks of consecutive patterns: the scalar path is
 * the bit function, negating the input negates the output (NaNs included),
 * and the SIMD path (AVX2 + F16C, which the AVX-512 setting also uses) gives
 * the scalar path's bytes. Over the ranges above, both signs, or with --all
 * over all 2^32 patterns (about 10 s of CPU). */
#define CHUNK (1u << 20)
static void consecutive(gg_isa best, int all)
{
    long bad[2][3] = {{0}}, n = 0; /* [bf][scalar vs bits, sign, simd vs scalar] */
    uint32_t nchunks = (uint32_t)((1ull << 32) / CHUNK);
#pragma omp parallel reduction(+ : n)
    {
        uint32_t *src = malloc(CHUNK * 4);
        uint16_t *ref = malloc(CHUNK * 2), *neg = malloc(CHUNK * 2), *got = malloc(CHUNK * 2);
        long mybad[2][3] = {{0}};
#pragma omp for schedule(dynamic, 4)
        for (uint32_t c = 0; c < nchunks; c++) {
            uint32_t first = c * CHUNK, exp = (first >> 23) & 0xff;
            for (int bf = 0; bf < 2; bf++) {
                int in = all;
                for (size_t i = 0; !in && i < (bf ? NELEM(bf16_exps) : NELEM(f16_exps)); i++)
                    in = exp == (bf ? bf16_exps : f16_exps)[i];
                if (!in)
                    continue;
                void (*conv)(const float *, uint16_t *, size_t, gg_isa) = bf ? gg_f32_to_bf16_isa : gg_f32_to_f16_isa;
                for (uint32_t i = 0; i < CHUNK; i++)
                    src[i] = first + i;
                conv((const float *)src, ref, CHUNK, GG_ISA_SCALAR);
                for (uint32_t i = 0; i < CHUNK; i += 4099)
                    if (ref[i] != (bf ? gg_f32_to_bf16_bits(src[i]) : gg_f32_to_f16_bits(src[i])))
                        mybad[bf][0]++;
                if (best >= GG_ISA_AVX2) {
                    conv((const float *)src, got, CHUNK, GG_ISA_AVX2);
                    if (memcmp(ref, got, CHUNK * 2))
                        for (uint32_t i = 0; i < CHUNK; i++)
                            if (ref[i] != got[i] && mybad[bf][2]++ < 3)
                                fprintf(stderr, "avx2 %s(%08x) = %04x, scalar %04x\n", bf ? "bf16" : "f16", src[i],
                                        got[i], ref[i]);
                }
                for (uint32_t i = 0; i < CHUNK; i++)
                    src[i] ^= 0x80000000u;
                conv((const float *)src, neg, CHUNK, GG_ISA_SCALAR);
                for (uint32_t i = 0; i < CHUNK; i++)
                    if ((neg[i] ^ 0x8000) != ref[i] && mybad[bf][1]++ < 3)
                        fprintf(stderr, "%s(%08x) = %04x, but %04x for its negative\n", bf ? "bf16" : "f16", src[i],
                                neg[i], ref[i]);
                if (best >= GG_ISA_AVX2) {
                    conv((const float *)src, got, CHUNK, GG_ISA_AVX2);
                    if (memcmp(neg, got, CHUNK * 2))
                        for (uint32_t i = 0; i < CHUNK; i++)
                            if (neg[i] != got[i] && mybad[bf][2]++ < 3)
                                fprintf(stderr, "avx2 %s(%08x) = %04x, scalar %04x\n", bf ? "bf16" : "f16", src[i],
                                        got[i], neg[i]);
                }
                n += 2 * CHUNK;
            }
        }
#pragma omp critical
        for (int bf = 0; bf < 2; bf++)
            for (int k = 0; k < 3; k++)
                bad[bf][k] += mybad[bf][k];
        free(src);
        free(ref);
        free(neg);
        free(got);
    }
    for (int bf = 0; bf < 2; bf++) {
        const char *k = bf ? "bf16" : "f16";
        CHECK(bad[bf][0] == 0, "%s: the scalar array path differs from the bit function %ld times", k, bad[bf][0]);
        CHECK(bad[bf][1] == 0, "%s: %ld results of negative inputs are not the negated results", k, bad[bf][1]);
        CHECK(bad[bf][2] == 0, "%s: avx2 differs from scalar on %ld patterns", k, bad[bf][2]);
    }
    printf("scalar == bits, sign symmetry%s: %s, %ld conversions, %ld + %ld differ\n",
           best >= GG_ISA_AVX2 ? ", avx2 == scalar" : " (no SIMD path here)",
           all ? "all 2^32 patterns" : "every pattern of those exponents, both signs", n,
           bad[0][0] + bad[0][1] + bad[0][2], bad[1][0] + bad[1][1] + bad[1][2]);
}

/* Random lanes where NaNs sit among ordinary values (the SIMD code sends a
 * vector holding a NaN to the scalar rule), at every start and length
 * 0..63, with guards around the output. */
static uint32_t mixed_pattern(void)
{
    uint64_t r = rng_next();
    switch (r & 7) {
    case 0: return 0x7f800000u | (uint32_t)(r >> 32) | 1u;         /* NaN, any payload */
    case 1: return (uint32_t)(r >> 63) << 31 | 0x7f800000u;        /* +-inf */
    case 2: return (uint32_t)(r >> 40) & 0x807fffffu;              /* f32 subnormal */
    case 3: return ((uint32_t)(r >> 32) & 0x80ffffffu) | (112u << 23); /* around 2^-14 */
    case 4: return ((uint32_t)(r >> 32) & 0x80ffffffu) | (142u << 23); /* around 65504 */
    default: return (uint32_t)(r >> 32);
    }
}

static void tails_and_mixes(gg_isa best)
{
    enum { N = 64, GUARD = 8 };
    uint32_t src[N + N];
    uint16_t out[GG_ISA_COUNT][N + 2 * GUARD];
    uint16_t want[2][N + N];
    rng_seed(7);
    long bad = 0, bad_guard = 0, runs = 0;
    for (int round = 0; round < 2000; round++) {
        for (int i = 0; i < 2 * N; i++) {
            src[i] = mixed_pattern();
            want[0][i] = ref_f16(src[i]);
            want[1][i] = ref_bf16(src[i]);
        }
        for (int start = 0; start < N; start++)
            /* every (start, n) in the first rounds, then one n per start */
            for (int n = round < 4 ? 0 : (int)(rng_next() % N), n_end = round < 4 ? N : n + 1; n < n_end; n++)
                for (int bf = 0; bf < 2; bf++)
                    for (int isa = 0; isa <= (best >= GG_ISA_AVX2 ? GG_ISA_AVX2 : 0); isa++) {
                        for (int i = 0; i < N + 2 * GUARD; i++)
                            out[isa][i] = 0xdead;
                        (bf ? gg_f32_to_bf16_isa : gg_f32_to_f16_isa)((const float *)(src + start), out[isa] + GUARD,
                                                                     (size_t)n, (gg_isa)isa);
                        for (int i = 0; i < GUARD; i++)
                            if (out[isa][i] != 0xdead || out[isa][GUARD + n + i] != 0xdead)
                                bad_guard++;
                        for (int i = 0; i < n; i++)
                            if (out[isa][GUARD + i] != want[bf][start + i] && bad++ < 5)
                                fprintf(stderr, "%s %s(%08x) at %d of %d = %04x, want %04x\n",
                                        gg_isa_name((gg_isa)isa), bf ? "bf16" : "f16", src[start + i], i, n,
                                        out[isa][GUARD + i], want[bf][start + i]);
                        runs++;
                    }
    }
    CHECK(bad == 0, "mixed lanes: %ld results differ from the reference", bad);
    CHECK(bad_guard == 0, "mixed lanes: %ld writes outside [0, n)", bad_guard);
    printf("mixed NaN/ordinary lanes, every start and length: %ld calls\n", runs);
}

/* A conversion of --convert: the function and its path. */
typedef struct half_conv {
    void (*conv)(const float *, uint16_t *, size_t, gg_isa);
    gg_isa isa;
} half_conv;

/* n floats into halves (2 bytes each) */
static size_t halves(const void *in, size_t n, void *out, void *arg)
{
    const half_conv *c = arg;
    c->conv(in, out, n, c->isa);
    return n * 2;
}

static int convert(int argc, char **argv)
{
    int bf = argc > 2 && !strcmp(argv[2], "bf16");
    gg_isa isa = gg_isa_detect();
    if (argc < 3 || (!bf && strcmp(argv[2], "f16")) || (argc > 3 && gg_isa_parse(argv[3], &isa)) ||
        isa > gg_isa_detect() || argc == 5 || argc > 6) {
        fprintf(stderr, "usage: test_halfconv --convert f16|bf16 [scalar|avx2|avx512 [FIRST COUNT]]\n"
                        "(this CPU has up to %s)\n", gg_isa_name(gg_isa_detect()));
        return 2;
    }
    void (*conv)(const float *, uint16_t *, size_t, gg_isa) = bf ? gg_f32_to_bf16_isa : gg_f32_to_f16_isa;
    enum { BATCH = 1 << 16 };
    static uint32_t in[BATCH];
    static uint16_t out[BATCH];
    if (argc == 6) { /* the patterns FIRST, FIRST + 1, ... (FIRST + COUNT wraps past 2^32) */
        uint32_t first = (uint32_t)strtoull(argv[4], NULL, 0);
        uint64_t count = strtoull(argv[5], NULL, 0);
        for (uint64_t done = 0; done < count;) {
            size_t n = count - done < BATCH ? (size_t)(count - done) : BATCH;
            for (size_t i = 0; i < n; i++)
                in[i] = first + (uint32_t)(done + i);
            conv((const float *)in, out, n, isa);
            if (write_all(out, n * 2))
                return 1;
            done += n;
        }
        return 0;
    }
    half_conv c = {conv, isa};
    return filter_stdin(in, sizeof in, 4, out, halves, &c, "4 bytes");
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--convert"))
        return convert(argc, argv);
    gg_isa best = gg_isa_detect();
    printf("SIMD paths here: up to %s\n", gg_isa_name(best));
    double t0 = omp_get_wtime();
    fixed_cases();
    against_reference();
    double t1 = omp_get_wtime();
    consecutive(best, argc > 1 && !strcmp(argv[1], "--all"));
    double t2 = omp_get_wtime();
    tails_and_mixes(best);
    double t3 = omp_get_wtime();
    printf("time: references %.1f s, all patterns %.1f s, tails %.1f s\n", t1 - t0, t2 - t1, t3 - t2);
    (void)bits_of;
    printf("test_halfconv: %ld passed, %d failed\n", checks - fails, fails);
    return fails != 0;
}
