/* halfconv_bench - float32 -> float16 / bfloat16 conversion speed on one
 * core, scalar path against the SIMD one, and memcpy of the same output size
 * measured in the same run.
 *
 *   halfconv_bench [--mb N] [--rounds N]
 *
 * The input is N MiB (default 64) of float32 like decoded weights: normal
 * values of magnitude 1e-4..1 and both signs, no NaN (a NaN sends its vector
 * to the scalar rule). Figures are GB/s of float32 read (best of the rounds)
 * and, in parentheses, of 16-bit values written. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gguffs/decode.h"
#include "gguffs/halfconv.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    size_t mb = 64;
    int rounds = 7;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--mb"))
            mb = (size_t)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--rounds"))
            rounds = atoi(argv[i + 1]);
    }
    size_t n = mb << 18; /* floats */
    float *src = malloc(n * 4);
    uint16_t *dst = malloc(n * 2);
    uint16_t *copy_src = malloc(n * 2);
    if (!src || !dst || !copy_src)
        return 1;
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < n; i++) {
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double mag = pow(10.0, -4.0 * (double)(s & 0xffff) / 65536.0);
        src[i] = (float)((s >> 63) ? -mag : mag);
    }
    memset(dst, 1, n * 2);
    memset(copy_src, 2, n * 2);
    gg_isa best = gg_isa_detect();
    printf("%zu MiB of float32, one core, best of %d rounds: GB/s of f32 in (of 16-bit out)\n", mb, rounds);
    double t_copy = 1e9;
    for (int r = 0; r < rounds; r++) {
        double t0 = now();
        memcpy(dst, copy_src, n * 2);
        double t = now() - t0;
        t_copy = t < t_copy ? t : t_copy;
    }
    printf("  %-6s %-7s %6s (%5.2f)\n", "memcpy", "-", "", n * 2 / t_copy / 1e9);
    for (int bf = 0; bf < 2; bf++) {
        for (int isa = GG_ISA_SCALAR; isa <= (best >= GG_ISA_AVX2 ? GG_ISA_AVX2 : 0); isa++) {
            double best_t = 1e9;
            for (int r = 0; r < rounds; r++) {
                double t0 = now();
                (bf ? gg_f32_to_bf16_isa : gg_f32_to_f16_isa)(src, dst, n, (gg_isa)isa);
                double t = now() - t0;
                best_t = t < best_t ? t : best_t;
            }
            printf("  %-6s %-7s %6.2f (%5.2f)   %.2fx memcpy of the output\n", bf ? "bf16" : "f16",
                   isa ? "avx2" : "scalar", n * 4 / best_t / 1e9, n * 2 / best_t / 1e9, t_copy / best_t);
        }
    }
    free(src);
    free(dst);
    free(copy_src);
    return 0;
}
