/* test_quantize - float32 to Q8_0 blocks (quantize.h).
 *
 *   test_quantize                   the unit tests below
 *   test_quantize --q8_0 [ISA]      little-endian float32 on stdin (a multiple
 *                                   of 32 values) -> Q8_0 blocks on stdout, on
 *                                   path ISA (default: the best here), for the
 *                                   comparison with ggml in check.d/11_oracle
 *
 * 1. Cases worked out by hand from ggml's rules (quantize.h): zeros, one
 *    value, a NaN last, a NaN that restarts the running max so that values
 *    past 127 wrap to their low byte, or convert to 0 past 2^31.
 * 2. Every SIMD path equals the scalar path on random blocks drawn from a
 *    mix of ordinary values, NaN, infinities, huge and subnormal values,
 *    zeros of both signs and values at a rounding tie (and the same mix
 *    without NaN, whose groups of 8 blocks take the AVX2 path's fast
 *    lane), at every alignment of the input and with guards around the
 *    output. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gguffs/decode.h"
#include "gguffs/quantize.h"
#include "rng.h"
#include "testlib.h"

static uint16_t scale_of(const uint8_t *b) { return (uint16_t)(b[0] | b[1] << 8); }

/* One block of x on every path: all must give d and q (q NULL: not checked). */
static void hand(const char *what, const float *x, uint16_t d, const int8_t *q)
{
    for (int isa = 0; isa < GG_ISA_COUNT; isa++) {
        if (!gg_isa_supported((gg_isa)isa))
            continue;
        uint8_t y[GG_Q8_0_BYTES];
        gg_quantize_q8_0_isa(x, y, 1, (gg_isa)isa);
        CHECK(scale_of(y) == d, "%s (%s): d 0x%04x, expected 0x%04x", what, gg_isa_name((gg_isa)isa), scale_of(y), d);
        for (int j = 0; q && j < 32; j++)
            CHECK((int8_t)y[2 + j] == q[j], "%s (%s): q[%d] %d, expected %d", what, gg_isa_name((gg_isa)isa), j,
                  (int8_t)y[2 + j], q[j]);
    }
}

static void fixed_cases(void)
{
    float x[32];
    int8_t q[32];
    /* zeros (and -0): d 0, id 0 */
    for (int j = 0; j < 32; j++)
        x[j] = j & 1 ? -0.0f : 0.0f, q[j] = 0;
    hand("zeros", x, 0x0000, q);
    /* ones: d = 1/127 = 0.0078740157 = 2^-7 * 1.00787, f16 exponent 8, mantissa 8.06 -> 8 */
    for (int j = 0; j < 32; j++)
        x[j] = 1.0f, q[j] = 127;
    hand("ones", x, 0x2008, q);
    /* -ones: q -127, d positive (amax is |x|) */
    for (int j = 0; j < 32; j++)
        x[j] = -1.0f, q[j] = -127;
    hand("minus ones", x, 0x2008, q);
    /* a NaN last: amax NaN, d NaN (0x7e00), id NaN, every q 0 */
    for (int j = 0; j < 32; j++)
        x[j] = 1.0f, q[j] = 0;
    x[31] = NAN;
    hand("NaN last", x, 0x7e00, q);
    /* 4, NaN, then ones: amax 4 -> NaN -> 1, d = 1/127; 4 * 127 = 508 keeps
     * its low byte 0xfc (-4); the NaN gives 0 */
    for (int j = 0; j < 32; j++)
        x[j] = 1.0f, q[j] = 127;
    x[0] = 4.0f, q[0] = -4;
    x[1] = NAN, q[1] = 0;
    hand("NaN restarts the max", x, 0x2008, q);
    /* 1e7 * 127 = 1270000000 = 0x4bb2b580: low byte 0x80 (-128) */
    x[0] = 1e7f, q[0] = -128;
    hand("wrap to the low byte", x, 0x2008, q);
    /* 1e8 * 127 is past 2^31: INT32_MIN, low byte 0 */
    x[0] = 1e8f, q[0] = 0;
    hand("past int32", x, 0x2008, q);
    /* infinity: d inf (0x7c00), id 0: inf * 0 is NaN -> 0, the rest 0 */
    for (int j = 0; j < 32; j++)
        x[j] = 1.0f, q[j] = 0;
    x[7] = -INFINITY;
    hand("infinity", x, 0x7c00, q);
    /* a tiny amax: d = 1e-36 / 127 is a float subnormal whose f16 is 0, but
     * id = 1/d is finite: 1e-36 * id is 127, 3e-39 * id is 0.38 -> 0 */
    for (int j = 0; j < 32; j++)
        x[j] = 3e-39f, q[j] = 0;
    x[3] = -1e-36f, q[3] = -127;
    hand("tiny", x, 0x0000, q);
    /* tinier: d = 1e-40 / 127 is so small that 1/d is inf: x * inf is inf
     * (and 0 * inf NaN), all 0 */
    x[3] = 1e-40f, q[3] = 0;
    hand("subnormal", x, 0x0000, q);
}

/* A value from the mix (with NaN or not: without, whole groups of blocks
 * of infinities, huge and subnormal values take the SIMD path). */
static float draw(int nan)
{
    uint64_t r = rng_next();
    float u = (float)((r >> 11) & 0xffffff) / 16777216.0f * 2.0f - 1.0f;
    switch ((r >> 56) % 24) {
    case 0: return nan ? NAN : u * 1e30f;
    case 1: return (r >> 40) & 1 ? INFINITY : -INFINITY;
    case 2: return u * 1e38f;
    case 3: return u * 1e-39f; /* subnormal */
    case 4: return (r >> 40) & 1 ? 0.0f : -0.0f;
    case 5: return u * 3e9f;
    case 6: return (float)((int)(u * 200)) + 0.5f; /* a tie once scaled by 1 */
    default: return u;
    }
}

static void simd_equals_scalar(void)
{
    enum { NB = 4096, GUARD = 64 };
    static float xs[NB * 32 + 8];
    static uint8_t want[NB * 34], got[NB * 34 + 2 * GUARD];
    rng_seed(0x51AD0020);
    for (int round = 0; round < 8; round++) {
        /* blocks of one kind each now and then, so that a whole block may be clean */
        for (size_t i = 0; i < sizeof xs / sizeof *xs; i++)
            xs[i] = round & 1 ? draw(round & 2) : (float)(((rng_next() >> 11) & 0xffffff) / 16777216.0) - 0.5f;
        for (int j = 0; j < 64 && round & 1; j++) { /* some clean blocks among the mixed ones */
            size_t b = rng_next() % NB;
            for (int k = 0; k < 32; k++)
                xs[b * 32 + k] = (float)(k - 16) / 7.0f;
        }
        for (int isa = 1; isa < GG_ISA_COUNT; isa++) {
            if (!gg_isa_supported((gg_isa)isa))
                continue;
            for (int align = 0; align < 8; align++) {
                size_t nb = NB - (size_t)(rng_next() % 16);
                gg_quantize_q8_0_isa(xs + align, want, nb, GG_ISA_SCALAR);
                memset(got, 0xa5, sizeof got);
                gg_quantize_q8_0_isa(xs + align, got + GUARD, nb, (gg_isa)isa);
                size_t bad = 0;
                for (size_t b = 0; b < nb; b++) {
                    if (memcmp(want + b * 34, got + GUARD + b * 34, 34) && bad++ < 3)
                        fprintf(stderr, "block %zu (%s, align %d) differs from scalar: d 0x%04x vs 0x%04x\n", b,
                                gg_isa_name((gg_isa)isa), align, scale_of(got + GUARD + b * 34),
                                scale_of(want + b * 34));
                }
                CHECK(bad == 0, "%s: %zu of %zu blocks differ from the scalar path", gg_isa_name((gg_isa)isa), bad, nb);
                int guards = 1;
                for (int g = 0; g < GUARD; g++)
                    guards &= got[g] == 0xa5 && got[GUARD + nb * 34 + (size_t)g] == 0xa5;
                CHECK(guards, "%s: wrote outside its blocks", gg_isa_name((gg_isa)isa));
            }
        }
    }
}

/* n blocks of 32 floats into Q8_0 (34 bytes each) */
static size_t q8_0_blocks(const void *in, size_t n, void *out, void *isa)
{
    gg_quantize_q8_0_isa(in, out, n, *(gg_isa *)isa);
    return n * 34;
}

/* gg_quantize_rows: Q8_0 is gg_quantize_q8_0 on the rows laid end to end;
 * a type it cannot make, or a row that is not whole blocks, gives 0 bytes. */
static void rows_api(void)
{
    enum { ROWS = 3, N = 64 };
    float x[ROWS * N];
    uint8_t want[ROWS * N / 32 * 34], got[sizeof want + 1];
    for (int i = 0; i < ROWS * N; i++)
        x[i] = (float)(i % 37) - 18.25f;
    gg_quantize_q8_0(x, want, ROWS * N / 32);
    got[sizeof want] = 0xa5;
    CHECK(gg_quantize_has(GG_T_Q8_0), "Q8_0 is made");
    CHECK(gg_quantize_rows(GG_T_Q8_0, x, got, ROWS, N) == sizeof want, "Q8_0: bytes written");
    CHECK(!memcmp(got, want, sizeof want) && got[sizeof want] == 0xa5, "Q8_0 rows equal gg_quantize_q8_0");
    CHECK(gg_quantize_rows(GG_T_Q8_0, x, got, 2, 48) == 0, "a row of 48 is no whole Q8_0 blocks");
    CHECK(!gg_quantize_has(GG_T_IQ2_XXS) && gg_quantize_rows(GG_T_IQ2_XXS, x, got, 1, 256) == 0,
          "IQ2_XXS (it needs an importance matrix) is not made");
    CHECK(!gg_quantize_has(GG_T_NONE) && !gg_quantize_has(GG_T_COUNT), "no type out of range");
}

static int quantize_stdin(int argc, char **argv)
{
    gg_isa isa = gg_isa_detect();
    if ((argc > 2 && gg_isa_parse(argv[2], &isa)) || !gg_isa_supported(isa) || argc > 3) {
        fprintf(stderr, "usage: test_quantize --q8_0 [scalar|avx2|avx512] (this CPU has up to %s)\n",
                gg_isa_name(gg_isa_detect()));
        return 2;
    }
    enum { BATCH = 1 << 12 };
    static float in[BATCH * 32];
    static uint8_t out[BATCH * 34];
    return filter_stdin(in, sizeof in, 128, out, q8_0_blocks, &isa, "32 floats");
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--q8_0"))
        return quantize_stdin(argc, argv);
    printf("SIMD paths here: up to %s\n", gg_isa_name(gg_isa_detect()));
    fixed_cases();
    simd_equals_scalar();
    rows_api();
    printf("test_quantize: %ld passed, %d failed\n", checks - fails, fails);
    return fails != 0;
}
