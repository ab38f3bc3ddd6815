/* fuzz_common.h - shared by the libFuzzer targets and their replayers.
 *
 * A target is one LLVMFuzzerTestOneInput(); built with -fsanitize=fuzzer it
 * is a libFuzzer program (make fuzz), linked with replay_main.c it runs
 * given files once each (make check replays the seeds, the regression
 * inputs and the malformed suite under ASan + UBSan). */
#ifndef GGUFFS_FUZZ_COMMON_H
#define GGUFFS_FUZZ_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A property the code must keep whatever the input: report and abort, so
 * libFuzzer saves the input as a crasher. */
#define FUZZ_ASSERT(cond, ...)                                                       \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: property failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                            \
            fputc('\n', stderr);                                                     \
            abort();                                                                 \
        }                                                                            \
    } while (0)

/* Equal floats, any two NaNs being equal (their payloads may legitimately
 * differ between the scalar and SIMD kernels). */
static inline int fuzz_same_float(float a, float b)
{
    if (isnan(a) && isnan(b))
        return 1;
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Little-endian field of the input, 0 past its end. */
static inline uint64_t fuzz_take(const uint8_t *d, size_t size, size_t at, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        if (at + (size_t)i < size)
            v |= (uint64_t)d[at + (size_t)i] << (8 * i);
    return v;
}

#endif
