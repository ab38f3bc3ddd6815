/* simd_prop - property test: every SIMD kernel equals its scalar twin, byte
 * for byte, on random blocks.
 *
 *   simd_prop [--bytes N] [--seed S] [--only TYPE]
 *
 * For every type with a scalar kernel and a kernel for another instruction
 * set this CPU has (AVX2, AVX-512, NEON), feeds random bytes (N per type, fixed seed) in calls of
 * random length and compares the outputs. Random bytes include every scale
 * bit pattern: NaN, infinity, subnormals. Two NaNs compare equal whatever
 * their payloads (C leaves the payload of x*NaN to the operand order the
 * compiler picks); every other value must match bit for bit, -0.0 included. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/types.h"
#include "rng.h"

static int same(float a, float b)
{
    if (isnan(a) && isnan(b))
        return 1;
    return memcmp(&a, &b, 4) == 0;
}

int main(int argc, char **argv)
{
    uint64_t bytes_per_type = 4u << 20, seed0 = 0x51AD0001;
    const char *only = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--bytes") && i + 1 < argc)
            bytes_per_type = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed0 = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else {
            fprintf(stderr, "usage: simd_prop [--bytes N] [--seed S] [--only TYPE]\n");
            return 2;
        }
    }
    int nfail = 0, ntypes = 0;
    for (size_t ti = 0; ti < gg_type_count(); ti++) {
        const gg_type *t = gg_type_at(ti);
        if (only && strcasecmp(only, t->name) != 0)
            continue;
        gg_kernel ref = gg_type_kernel(t, GG_ISA_SCALAR);
        if (!ref)
            continue;
        if (ti > 0 && gg_type_at(ti - 1)->name && !strcmp(gg_type_at(ti - 1)->name, t->name))
            continue; /* same type under a second id */
        for (int isa = GG_ISA_SCALAR + 1; isa < GG_ISA_COUNT; isa++) {
            if (!gg_isa_supported((gg_isa)isa) || gg_type_kernel_isa(t, (gg_isa)isa) != (gg_isa)isa)
                continue;
            gg_kernel k = gg_type_kernel(t, (gg_isa)isa);
            rng_seed(seed0 ^ ((uint64_t)ti << 32) ^ (uint64_t)isa);
            uint64_t R = t->rows_interleaved, M = t->row_meta_bytes;
            uint64_t done = 0;
            int bad = 0;
            ntypes++;
            while (done < bytes_per_type && !bad) {
                /* One call: up to 64 blocks (block columns for _Rn types). */
                uint64_t n = 1 + rng_next() % 64;
                uint64_t meta_len = (t->flags & GG_TYPE_TRAILING_SCALE) ? 4 : R * M;
                uint64_t src_len = n * R * t->block_bytes;
                uint64_t out_len = n * R * t->block_elems;
                uint8_t *meta = malloc(meta_len + 1), *src = malloc(src_len);
                float *a = malloc(out_len * sizeof(float)), *b = malloc(out_len * sizeof(float));
                for (uint64_t i = 0; i < meta_len; i++)
                    meta[i] = (uint8_t)rng_next();
                for (uint64_t i = 0; i < src_len; i++)
                    src[i] = (uint8_t)rng_next();
                int64_t stride = (int64_t)(n * t->block_elems);
                memset(a, 0xA5, out_len * sizeof(float));
                memset(b, 0x5A, out_len * sizeof(float));
                ref(meta_len ? meta : NULL, src, a, (int64_t)n, stride);
                k(meta_len ? meta : NULL, src, b, (int64_t)n, stride);
                for (uint64_t i = 0; i < out_len; i++) {
                    if (!same(a[i], b[i])) {
                        uint32_t x, y;
                        memcpy(&x, &a[i], 4);
                        memcpy(&y, &b[i], 4);
                        fprintf(stderr,
                                "%s: %s differs from scalar at element %" PRIu64 " of a %" PRIu64
                                "-block call: scalar 0x%08x (%.9g), %s 0x%08x (%.9g)\n",
                                t->name, gg_isa_name((gg_isa)isa), i, n, x, a[i],
                                gg_isa_name((gg_isa)isa), y, b[i]);
                        bad = 1;
                        break;
                    }
                }
                done += src_len + meta_len;
                free(meta), free(src), free(a), free(b);
            }
            nfail += bad;
        }
    }
    printf("simd_prop: %d type/instruction-set pairs, %d failed (%" PRIu64 " bytes each)\n", ntypes,
           nfail, bytes_per_type);
    return nfail ? 1 : 0;
}
