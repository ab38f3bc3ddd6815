/* cpu.c - which instruction set decodes: detected once, or forced for tests
 * and bug reports with -o simd= or $GGUFFS_SIMD. */
#include "gguffs/decode.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) && defined(__clang__)
#include <cpuid.h>
#endif

static const char *const isa_names[GG_ISA_COUNT] = {"scalar", "avx2", "avx512", "neon"};

const char *gg_isa_name(gg_isa isa) { return isa < GG_ISA_COUNT ? isa_names[isa] : "?"; }

int gg_isa_parse(const char *s, gg_isa *out)
{
    for (int i = 0; i < GG_ISA_COUNT; i++) {
        if (strcmp(s, isa_names[i]) == 0) {
            *out = (gg_isa)i;
            return 0;
        }
    }
    return -1;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* Older clang (14) does not know "f16c" in __builtin_cpu_supports: ask CPUID. */
static int has_f16c(void)
{
#ifdef __clang__
    unsigned a, b, c, d;
    return __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C);
#else
    return __builtin_cpu_supports("f16c");
#endif
}
#endif

gg_isa gg_isa_detect(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    /* libgcc also checks that the OS saves the wider registers (XGETBV). */
    int avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && has_f16c() &&
               __builtin_cpu_supports("bmi2");
    int avx512 = avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                 __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq") &&
                 __builtin_cpu_supports("avx512cd");
    if (avx512)
        return GG_ISA_AVX512;
    if (avx2)
        return GG_ISA_AVX2;
#elif defined(__aarch64__)
    return GG_ISA_NEON; /* Advanced SIMD is part of every aarch64 CPU */
#endif
    return GG_ISA_SCALAR;
}

gg_isa gg_isa_fallback(gg_isa isa)
{
    return isa == GG_ISA_AVX512 ? GG_ISA_AVX2 : GG_ISA_SCALAR;
}

int gg_isa_supported(gg_isa isa)
{
    if (isa >= GG_ISA_COUNT)
        return 0;
    /* The detected path and those it falls back to. */
    for (gg_isa k = gg_isa_detect();; k = gg_isa_fallback(k)) {
        if (k == isa)
            return 1;
        if (k == GG_ISA_SCALAR)
            return 0;
    }
}

static gg_isa active;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void init_active(void)
{
    active = gg_isa_detect();
    const char *env = getenv("GGUFFS_SIMD");
    gg_isa want;
    if (env && *env && gg_isa_parse(env, &want) == 0 && gg_isa_supported(want))
        active = want;
}

gg_isa gg_isa_active(void)
{
    pthread_once(&once, init_active);
    return active;
}

int gg_isa_set(gg_isa isa)
{
    pthread_once(&once, init_active);
    if (!gg_isa_supported(isa))
        return -1;
    active = isa;
    return 0;
}
