/* test_quantize - float32 to quantized blocks (quantize.h).
 *
 *   test_quantize                   the unit tests below
 *   test_quantize --q8_0 [ISA]      little-endian float32 on stdin (a multiple
 *                                   of 32 values) -> Q8_0 blocks on stdout, on
 *                                   path ISA (default: the best here), for the
 *                                   comparison with ggml in check.d/11_oracle
 *   test_quantize --paths TYPE      the SIMD paths this CPU has that quantize
 *                                   TYPE with a kernel of their own (scalar first)
 *   test_quantize --rows TYPE N [f32]
 *                                   float32 rows of N values on stdin -> TYPE's
 *                                   blocks (gg_quantize_rows), or with f32 the
 *                                   values gguffs' decoder reads from those
 *                                   blocks, for check.d/13_quantize; exit 3
 *                                   if TYPE is not made
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
#include "gguffs/types.h"
#include "decode/blocks.h"
#include "decode/quantize_kernels.h"
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
        gg_quantize_rows_isa(GG_T_Q8_0, x, y, 1, 32, (gg_isa)isa);
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
                gg_quantize_rows_isa(GG_T_Q8_0, xs + align, want, 1, (int64_t)nb * 32, GG_ISA_SCALAR);
                memset(got, 0xa5, sizeof got);
                gg_quantize_rows_isa(GG_T_Q8_0, xs + align, got + GUARD, 1, (int64_t)nb * 32, (gg_isa)isa);
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
    return gg_quantize_rows_isa(GG_T_Q8_0, in, out, 1, (int64_t)n * 32, *(gg_isa *)isa);
}

/* gg_quantize_rows: Q8_0 rows are the blocks of the rows laid end to end;
 * a type it cannot make, or a row that is not whole blocks, gives 0 bytes. */
static void rows_api(void)
{
    enum { ROWS = 3, N = 64 };
    float x[ROWS * N];
    uint8_t want[ROWS * N / 32 * 34], got[sizeof want + 1];
    for (int i = 0; i < ROWS * N; i++)
        x[i] = (float)(i % 37) - 18.25f;
    gg_quantize_rows(GG_T_Q8_0, x, want, 1, ROWS * N);
    got[sizeof want] = 0xa5;
    CHECK(gg_quantize_has(GG_T_Q8_0), "Q8_0 is made");
    CHECK(gg_quantize_rows(GG_T_Q8_0, x, got, ROWS, N) == sizeof want, "Q8_0: bytes written");
    CHECK(!memcmp(got, want, sizeof want) && got[sizeof want] == 0xa5, "Q8_0 rows equal one row of them all");
    CHECK(gg_quantize_rows(GG_T_Q8_0, x, got, 2, 48) == 0, "a row of 48 is no whole Q8_0 blocks");
    CHECK(!gg_quantize_has(GG_T_IQ2_XXS) && gg_quantize_rows(GG_T_IQ2_XXS, x, got, 1, 256) == 0,
          "IQ2_XXS (it needs an importance matrix) is not made");
    CHECK(!gg_quantize_has(GG_T_NONE) && !gg_quantize_has(GG_T_COUNT), "no type out of range");
}

static const gg_type *type_of(gg_tid t)
{
    for (size_t i = 0; i < gg_type_count(); i++)
        if (gg_type_at(i)->tid == t)
            return gg_type_at(i);
    return NULL;
}

/* The inline roundings (quantize_kernels.h) against libm's roundf and
 * lroundf, on every sign and exponent with random mantissas, the ties
 * below 2^23 and the ends of the ranges. */
static void roundings(void)
{
    rng_seed(0x36B0);
    long bad = 0;
    for (long i = 0; i < 2000000; i++) {
        uint32_t b = (uint32_t)rng_next();
        if (i % 4 == 1) /* a tie: an integer and a half */
            b = gg_f32_to_bits((float)(int32_t)(b >> 9) * (b & 1 ? 1.0f : -1.0f) + 0.5f);
        float v = gg_bits_to_f32(b);
        int32_t want = gg_q_trunc(roundf(v));
        long lwant = fabsf(v) < 0x1p63f ? lroundf(v) : LONG_MIN;
        bad += gg_q_round_i32(v) != want || gg_q_lroundf(v) != lwant;
    }
    const float ends[] = {0x1p23f, -0x1p23f, 0x1p23f - 0.5f, 2147483520.0f, -2147483648.0f, 2147483648.0f,
                          0x1p63f, -0x1p63f, 0x1p62f, INFINITY, -INFINITY, NAN, -0.5f, 0.5f, -0.0f, 0x1p-149f};
    for (size_t i = 0; i < sizeof ends / sizeof *ends; i++) {
        float v = ends[i];
        bad += gg_q_round_i32(v) != gg_q_trunc(roundf(v)) ||
               gg_q_lroundf(v) != (fabsf(v) < 0x1p63f ? lroundf(v) : LONG_MIN);
    }
    CHECK(bad == 0, "%ld roundings differ from roundf / lroundf", bad);
}

/* One block of x quantized to t must be want (bytes bytes). */
static void by_hand(const char *what, gg_tid t, const float *x, const uint8_t *want, size_t bytes)
{
    uint8_t got[512];
    const gg_type *ty = type_of(t);
    size_t n = gg_quantize_rows(t, x, got, 1, ty ? ty->block_elems : 0);
    size_t at = 0;
    while (at < bytes && got[at] == want[at])
        at++;
    CHECK(n == bytes && at == bytes, "%s: byte %zu is 0x%02x, expected 0x%02x", what, at, got[at], want[at]);
}

/* The legacy types' answers worked out from ggml's rules (quantize_legacy.c). */
static void legacy_by_hand(void)
{
    float x[128];
    uint8_t w[24];
    /* Q4_0 zeros: max 0, d = 0 / -8 = -0 (0x8000), codes 0 * 0 + 8.5 -> 8 */
    memset(x, 0, sizeof x);
    memset(w, 0x88, 18), w[0] = 0x00, w[1] = 0x80;
    by_hand("Q4_0 zeros", GG_T_Q4_0, x, w, 18);
    /* Q4_0 -2, NaN, 1, 0...: max -2, d = 0.25 (0x3400), id 4: -2 -> 0,
     * NaN -> 0 (x86's conversion of NaN, low byte), 1 -> 12, 0 -> 8 */
    x[0] = -2, x[1] = NAN, x[2] = 1;
    memset(w, 0x88, 18), w[0] = 0x00, w[1] = 0x34, w[2] = 0x80, w[3] = 0x80, w[4] = 0x8c;
    by_hand("Q4_0 with a NaN", GG_T_Q4_0, x, w, 18);
    /* Q4_1 all NaN: min stays FLT_MAX, max -FLT_MAX, d = -2 FLT_MAX / 15 =
     * -inf (0xfc00), m = FLT_MAX -> f16 inf (0x7c00), id -0, codes 0 */
    for (int j = 0; j < 32; j++)
        x[j] = NAN;
    memset(w, 0, 20), w[0] = 0x00, w[1] = 0xfc, w[2] = 0x00, w[3] = 0x7c;
    by_hand("Q4_1 all NaN", GG_T_Q4_1, x, w, 20);
    /* Q5_0 inf, then ones: d = inf / -16 = -inf, id = -0: 1 * -0 + 16.5 ->
     * 16 (qh bit set, nibble 0), inf * -0 = NaN -> 0 */
    for (int j = 0; j < 32; j++)
        x[j] = 1;
    x[0] = INFINITY;
    memset(w, 0, 22), w[0] = 0x00, w[1] = 0xfc, w[2] = 0xfe, w[3] = w[4] = w[5] = 0xff;
    by_hand("Q5_0 with an infinity", GG_T_Q5_0, x, w, 22);
    /* Q5_1 0, 1, ..., 31: m 0, d 1 (0x3c00), code j: nibbles j | j << 4 for
     * j < 16, qh bits 16..31 */
    for (int j = 0; j < 32; j++)
        x[j] = (float)j;
    memset(w, 0, 24), w[1] = 0x3c, w[6] = w[7] = 0xff;
    for (int j = 0; j < 16; j++)
        w[8 + j] = (uint8_t)(j | j << 4);
    by_hand("Q5_1 0..31", GG_T_Q5_1, x, w, 24);
    /* Q1_0 -0, -1.5, then 0.5s: d = (1.5 + 126 * 0.5) / 128 = 0.50390625
     * (0x3808); bit set for x >= 0, -0 included */
    for (int j = 0; j < 128; j++)
        x[j] = 0.5f;
    x[0] = -0.0f, x[1] = -1.5f;
    memset(w, 0xff, 18), w[0] = 0x08, w[1] = 0x38, w[2] = 0xfd;
    by_hand("Q1_0 signs", GG_T_Q1_0, x, w, 18);
    /* Q2_0 NaN, 1, -1, 0.5, -0.5, 2, zeros: d = max 2 (0x4000), id 0.5,
     * q = roundf(x / 2) + 1: NaN -> INT32_MIN + 1 -> 0, 1 -> 2, -1 -> 0,
     * 0.5 -> 1, -0.5 -> 1, 2 -> 2, 0 -> 1 */
    memset(x, 0, sizeof x);
    x[0] = NAN, x[1] = 1, x[2] = -1, x[3] = 0.5f, x[4] = -0.5f, x[5] = 2;
    memset(w, 0x55, 18), w[0] = 0x00, w[1] = 0x40, w[2] = 0x48, w[3] = 0x59;
    by_hand("Q2_0 codes", GG_T_Q2_0, x, w, 18);
}

/* TQ1_0, TQ2_0 and MXFP4 worked out from ggml's rules. */
static void ternary_fp4_by_hand(void)
{
    static float x[256];
    uint8_t w[66];
    /* TQ2_0 x[0] 1, x[32] -1, x[64] 0.5, x[96] -0.5, zeros: d 1 (0x3c00),
     * trits lroundf + 1 (half away from zero): 2, 0, 2, 0 in byte 0's bits
     * 0-1, 2-3, 4-5, 6-7; the zeros are 1s */
    x[0] = 1, x[32] = -1, x[64] = 0.5f, x[96] = -0.5f;
    memset(w, 0x55, 64), w[0] = 0x22, w[64] = 0x00, w[65] = 0x3c;
    by_hand("TQ2_0 trits", GG_T_TQ2_0, x, w, 66);
    /* TQ2_0 4, NaN, then ones: the running max goes 4, NaN, 1: d 1, so 4
     * gives lroundf 4 + 1 = 5, low bits 1; NaN gives LONG_MIN + 1 -> 1 */
    for (int j = 0; j < 256; j++)
        x[j] = 1;
    x[0] = 4, x[1] = NAN;
    memset(w, 0xaa, 64), w[0] = w[1] = 0xa9, w[64] = 0x00, w[65] = 0x3c;
    by_hand("TQ2_0 after a NaN", GG_T_TQ2_0, x, w, 66);
    /* TQ1_0 x[0] 1, zeros: qs[0] holds trits 2,1,1,1,1 = 202 -> ceil(202 *
     * 256 / 243) = 213; other qs bytes 121 -> 128; qh bytes 40 * 3 -> 127 */
    memset(x, 0, sizeof x);
    x[0] = 1;
    memset(w, 0x80, 48), memset(w + 48, 0x7f, 4), w[0] = 0xd5, w[52] = 0x00, w[53] = 0x3c;
    by_hand("TQ1_0 trits", GG_T_TQ1_0, x, w, 54);
    /* MXFP4 max 1: e = 0 - 2 + 127 = 125, d = 2^-3: 1 -> 8 (index 6),
     * 0.3 -> 2.4 -> 2 (index 2), -0.75 -> -6 (index 13), 0 -> index 0 */
    memset(x, 0, 32 * sizeof *x);
    x[0] = 1, x[16] = 0.3f, x[1] = -0.75f;
    memset(w, 0, 17), w[0] = 125, w[1] = 0x26, w[2] = 0x0d;
    by_hand("MXFP4 codes", GG_T_MXFP4, x, w, 17);
    /* MXFP4 max 2^-149: e = -149 - 2 + 127 = -24 as x86 makes a uint8_t:
     * 232, d = 2^103; every value codes 0 */
    memset(x, 0, 32 * sizeof *x);
    x[5] = 0x1p-149f;
    memset(w, 0, 17), w[0] = 232;
    by_hand("MXFP4 subnormal max", GG_T_MXFP4, x, w, 17);
}

/* IQ3_S's quirk kept from ggml: a sub-block of zeros takes no qs and signs
 * bytes, so a super-block of zeros then v has v's qs and signs where a
 * super-block of v then zeros has them (and its grid's 9th bits and its
 * scale one sub-block later). */
static void iq3_s_zero_sub_block(void)
{
    static float a[256], b[256];
    uint8_t qa[110], qb[110];
    for (int j = 0; j < 32; j++)
        b[j] = a[32 + j] = (float)((j * 7) % 11) - 5.0f;
    gg_quantize_rows(GG_T_IQ3_S, a, qa, 1, 256);
    gg_quantize_rows(GG_T_IQ3_S, b, qb, 1, 256);
    const blk_iq3_s *ba = (const blk_iq3_s *)qa, *bb = (const blk_iq3_s *)qb;
    CHECK(!memcmp(ba->qs, bb->qs, 8) && !memcmp(ba->signs, bb->signs, 4) && ba->qh[1] == bb->qh[0] &&
              ba->scales[0] >> 4 == (bb->scales[0] & 15) && !memcmp(ba->d, bb->d, 2),
          "IQ3_S: zeros then v puts v's codes where v then zeros does");
}

/* ---- every type gg_quantize_rows makes ---- */

/* The types, each with a bound on |x - decoded| over a block, as a
 * fraction of the block's largest |x|, from its format: half a step of its
 * codes (a whole one where the top code is clamped), plus the float16
 * rounding of its scales, loosely. */
static const struct made {
    gg_tid t;
    double err;
} made[] = {
    {GG_T_Q4_0, 1 / 8.0 + 0.002},  /* codes -8..7 of max/8: -max clamps to 7 */
    {GG_T_Q4_1, 1 / 15.0 + 0.004}, /* half of (max-min)/15, min rounded to f16 */
    {GG_T_Q5_0, 1 / 16.0 + 0.002},
    {GG_T_Q5_1, 1 / 31.0 + 0.004},
    {GG_T_Q8_0, 0.5 / 127 + 0.001},
    {GG_T_Q1_0, 1.0 + 0.002}, /* +-mean|x|: off by |x| or the mean at most */
    {GG_T_Q2_0, 0.5 + 0.002}, /* codes -1..2 of max */
    /* K-quants: the step of a sub-block's codes (its range over 3, 7, 15,
     * 31, 63), at worst the whole range when its scale is rounded to 4 or 6
     * bits and the top codes clamp */
    {GG_T_Q2_K, 2 / 3.0},
    {GG_T_Q3_K, 2 / 7.0},
    {GG_T_Q4_K, 2 / 15.0},
    {GG_T_Q5_K, 2 / 31.0},
    {GG_T_Q6_K, 2 / 63.0},
    /* levels -127 .. 113 of max / -127: the widest gap (24) */
    {GG_T_IQ4_NL, 24 / 127.0},
    {GG_T_IQ4_XS, 24 / 127.0},
    {GG_T_TQ1_0, 0.5 + 0.002}, /* -1, 0, 1 of max */
    {GG_T_TQ2_0, 0.5 + 0.002},
    /* max / d is 8..16 and the levels 0..4, 6, 8, 12: 12 for 16, or half of 8 -> 12 */
    {GG_T_MXFP4, 0.25},
    /* levels 1, 3 .. 15 (a step of 2/15), but 4 values at a time on a grid
     * of 512 of the 4096 points: coarse, half the maximum at worst */
    {GG_T_IQ3_S, 0.5},
};

/* n values of x quantized by gg_quantize_rows as one row, then decoded. */
static size_t quant_dequant(const gg_type *ty, const float *x, size_t n, uint8_t *q, float *y)
{
    size_t bytes = gg_quantize_rows(ty->tid, x, q, 1, (int64_t)n);
    gg_type_kernel(ty, GG_ISA_SCALAR)(NULL, q, y, (int64_t)(n / ty->block_elems), 0);
    return bytes;
}

static float normal(void)
{
    double u = ((rng_next() >> 11) + 1) * 0x1p-53, v = (rng_next() >> 11) * 0x1p-53;
    return (float)(sqrt(-2 * log(u)) * cos(6.283185307179586 * v));
}

/* For each type: (1) decoded values within the type's bound of the block
 * maximum; (2) x * 2^k decodes to (decoded x) * 2^k exactly (every step of
 * the reference quantizers is a product, quotient, sum or comparison, so
 * scaling by a power of two, away from over- and underflow, scales the
 * answer; for these k every float16 scale stays a normal number); (3) a
 * block of zeros decodes to zeros; (4) the rows quantized by 4 threads at
 * once, from an unaligned input, give the bytes of one call, and nothing is
 * written past them; (5) blocks of NaN, infinities, huge and subnormal
 * values quantize (ggml itself aborts on some of them, for IQ3_S) to the
 * bytes of the blocks, nothing past them. */
static void every_type(void)
{
    enum { N = 256 * 64, GUARD = 64 };
    static float x[N + 1], x2[N], y[N], y2[N];
    static uint8_t q[N * 2 + GUARD], q2[N * 2 + GUARD];
    rng_seed(0x36A11);
    for (size_t m = 0; m < sizeof made / sizeof *made; m++) {
        const gg_type *ty = type_of(made[m].t);
        CHECK(ty && gg_quantize_has(made[m].t), "%s is made", ty ? ty->name : "?");
        if (!ty || !gg_quantize_has(made[m].t))
            continue;
        const size_t be = ty->block_elems, nb = N / be;
        for (size_t i = 0; i < N; i++)
            x[i] = normal() * (i / be % 7 == 3 ? 100.0f : 1.0f); /* a block of outliers now and then */
        size_t bytes = quant_dequant(ty, x, N, q, y);
        CHECK(bytes == nb * ty->block_bytes, "%s: %zu bytes for %zu blocks", ty->name, bytes, nb);
        double worst = 0;
        for (size_t b = 0; b < nb; b++) {
            double amax = 0, err = 0;
            for (size_t j = b * be; j < (b + 1) * be; j++)
                amax = fmax(amax, fabs(x[j])), err = fmax(err, fabs((double)x[j] - y[j]));
            worst = fmax(worst, err / amax);
        }
        CHECK(worst <= made[m].err, "%s: error %.4f of the block maximum, over %.4f", ty->name, worst, made[m].err);
        for (int k = -2; k <= 5; k += 7) { /* (2^-6 makes Q6_K's d a float16 subnormal) */
            for (size_t i = 0; i < N; i++)
                x2[i] = ldexpf(x[i], k);
            quant_dequant(ty, x2, N, q2, y2);
            size_t bad = 0;
            for (size_t i = 0; i < N; i++)
                bad += y2[i] != ldexpf(y[i], k);
            CHECK(bad == 0, "%s: x * 2^%d decodes to %zu values that are not 2^%d times x's", ty->name, k, bad, k);
        }
        memset(x2, 0, be * sizeof *x2);
        quant_dequant(ty, x2, be, q2, y2);
        size_t nonzero = 0;
        for (size_t j = 0; j < be; j++)
            nonzero += y2[j] != 0;
        CHECK(nonzero == 0, "%s: a block of zeros decodes to %zu non-zero values", ty->name, nonzero);
        memmove(x + 1, x, N * sizeof *x);
        memset(q2, 0xa5, sizeof q2);
        const int64_t rows = 16, n = (int64_t)(N / 16);
#pragma omp parallel for num_threads(4)
        for (int64_t r = 0; r < rows; r++)
            gg_quantize_rows(ty->tid, x + 1 + r * n, q2 + (size_t)r * (size_t)(n / be) * ty->block_bytes, 1, n);
        int guard = 1;
        for (size_t g = bytes; g < bytes + GUARD; g++)
            guard &= q2[g] == 0xa5;
        CHECK(!memcmp(q, q2, bytes) && guard, "%s: rows in 4 threads, unaligned, differ from one call", ty->name);
        for (size_t i = 0; i < N; i++)
            x[i] = draw(1);
        memset(q2, 0xa5, sizeof q2);
        guard = gg_quantize_rows(ty->tid, x, q2, 1, N) == bytes;
        for (size_t g = bytes; g < bytes + GUARD; g++)
            guard &= q2[g] == 0xa5;
        CHECK(guard, "%s: odd values quantize to other than their blocks", ty->name);
    }
}

/* Every SIMD path gives the scalar path's bytes, for every type: rows of
 * normal values, of outliers, of the odd mix (NaN, infinities, huge,
 * subnormal, zeros, ties), runs of blocks of each kind, and runs of 32
 * equal values (a sub-block with nothing to search). Lengths cover
 * every way a path groups super-blocks (1 to 5 of them, and more). */
static void simd_paths(void)
{
    enum { N = 256 * 37 };
    static float x[N];
    static uint8_t want[N * 2], got[N * 2];
    rng_seed(0x36517D);
    for (size_t m = 0; m < sizeof made / sizeof *made; m++) {
        const gg_type *ty = type_of(made[m].t);
        if (!ty || !gg_quantize_has(ty->tid))
            continue;
        for (int kind = 0; kind < 5; kind++) {
            for (size_t i = 0; i < N; i++)
                x[i] = kind == 0   ? normal()
                       : kind == 1 ? normal() * (rng_next() % 50 ? 1.0f : 300.0f)
                       : kind == 2 ? draw(1)
                       : kind == 3 ? (i / 64 % 3 == 0 ? draw(1) : i / 64 % 3 == 1 ? 0.0f : normal())
                       : i % 32    ? x[i - 1]
                                   : normal();
            for (int isa = 1; isa < GG_ISA_COUNT; isa++) {
                if (!gg_isa_supported((gg_isa)isa))
                    continue;
                for (size_t n = ty->block_elems; n <= N; n += n < 256 * 6 ? ty->block_elems : 256 * 13) {
                    size_t a = gg_quantize_rows_isa(ty->tid, x, want, 1, (int64_t)n, GG_ISA_SCALAR);
                    size_t b = gg_quantize_rows_isa(ty->tid, x, got, 1, (int64_t)n, (gg_isa)isa);
                    if (a != b || memcmp(want, got, a)) {
                        size_t at = 0;
                        while (at < a && want[at] == got[at])
                            at++;
                        CHECK(0, "%s on %s, kind %d, %zu values: byte %zu (block %zu) differs from scalar", ty->name,
                              gg_isa_name((gg_isa)isa), kind, n, at, at / ty->block_bytes);
                        break;
                    }
                    checks++;
                }
            }
        }
    }
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

struct rows_arg {
    const gg_type *t;
    int64_t n;
    gg_kernel decode; /* NULL: write the blocks */
    float *f32;
};

/* n rows of a->n floats into blocks, or into their decoded values */
static size_t rows_blocks(const void *in, size_t n, void *out, void *arg)
{
    struct rows_arg *a = arg;
    size_t bytes = gg_quantize_rows(a->t->tid, in, out, (int64_t)n, a->n);
    if (!a->decode || !bytes)
        return bytes;
    int64_t nblocks = (int64_t)n * (a->n / a->t->block_elems);
    a->decode(NULL, out, a->f32, nblocks, 0);
    memcpy(out, a->f32, (size_t)nblocks * a->t->block_elems * 4);
    return (size_t)nblocks * a->t->block_elems * 4;
}

static int rows_stdin(int argc, char **argv)
{
    struct rows_arg a = {0};
    a.t = argc > 3 ? gg_type_by_name(argv[2]) : NULL;
    a.n = argc > 3 ? atoll(argv[3]) : 0;
    int f32 = argc > 4 && !strcmp(argv[4], "f32");
    if (!a.t || a.n <= 0 || argc > 5 || (argc == 5 && !f32)) {
        fprintf(stderr, "usage: test_quantize --rows TYPE N [f32]\n");
        return 2;
    }
    if (!gg_quantize_has(a.t->tid) || a.n % a.t->block_elems) {
        fprintf(stderr, "test_quantize: %s rows of %lld are not made\n", a.t->name, (long long)a.n);
        return 3;
    }
    if (f32 && !(a.decode = gg_type_kernel(a.t, gg_isa_active())))
        return fprintf(stderr, "test_quantize: %s is not decoded\n", a.t->name), 2;
    size_t rows = (size_t)(1 << 20) / (size_t)a.n + 1, unit = (size_t)a.n * 4;
    float *in = malloc(rows * unit);
    uint8_t *out = malloc(rows * unit * 2);
    a.f32 = malloc(rows * unit);
    int rc = in && out && a.f32 ? filter_stdin(in, rows * unit, unit, out, rows_blocks, &a, "a row") : 2;
    free(in), free(out), free(a.f32);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--q8_0"))
        return quantize_stdin(argc, argv);
    if (argc > 1 && !strcmp(argv[1], "--rows"))
        return rows_stdin(argc, argv);
    if (argc == 3 && !strcmp(argv[1], "--paths")) {
        const gg_type *t = gg_type_by_name(argv[2]);
        if (!t)
            return fprintf(stderr, "test_quantize: no type %s\n", argv[2]), 2;
        printf("scalar");
        for (int isa = 1; isa < GG_ISA_COUNT; isa++)
            if (gg_isa_supported((gg_isa)isa) && gg_quantize_path(t->tid, (gg_isa)isa) == (gg_isa)isa)
                printf(" %s", gg_isa_name((gg_isa)isa));
        printf("\n");
        return 0;
    }
    printf("SIMD paths here: up to %s\n", gg_isa_name(gg_isa_detect()));
    fixed_cases();
    simd_equals_scalar();
    rows_api();
    roundings();
    legacy_by_hand();
    ternary_fp4_by_hand();
    iq3_s_zero_sub_block();
    every_type();
    simd_paths();
    printf("test_quantize: %ld passed, %d failed\n", checks - fails, fails);
    return fails != 0;
}
