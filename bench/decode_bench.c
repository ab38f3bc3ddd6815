/* decode_bench - single-thread decode throughput per type and instruction
 * set, against memcpy of the same output size measured in the same run.
 *
 *   decode_bench [--mb N] [--only TYPE[,TYPE...]] [--rounds N]
 *                DATA_OFFSET FILE.gguf MANIFEST.tsv [DATA_OFFSET FILE.gguf MANIFEST.tsv ...]
 *
 * Real quantized blocks are used (the reference tensors, tiled to fill the
 * buffer): speed depends on the data (subnormal scales are slow on x86), so
 * random bytes would measure the wrong thing. Figures are GB/s of float32
 * written, best of several rounds. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gguffs/layout.h"
#include "../tests/refset.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct sample {
    const gg_type *type;
    const uint8_t *bytes; /* one reference tensor */
    uint64_t ne0, nrows;
} sample;

static sample samples[512];
static int nsamples;

static void load_set(uint64_t data_off, const char *gguf, const char *manifest)
{
    size_t flen;
    uint8_t *file = rs_slurp(gguf, &flen);
    rs_manifest mf;
    if (!file || rs_open(&mf, manifest) != 0) {
        fprintf(stderr, "cannot read %s or %s\n", gguf, manifest);
        exit(2);
    }
    const char *base = strrchr(gguf, '/') ? strrchr(gguf, '/') + 1 : gguf;
    while (rs_next(&mf)) {
        const char *file_col = rs_get(&mf, "file");
        if (file_col && strcmp(file_col, base) != 0)
            continue;
        if (!strncmp(rs_get(&mf, "name"), "rand.", 5))
            continue; /* random bytes: subnormal scales, not representative */
        const gg_type *t = rs_type(rs_get(&mf, "type_name"));
        if (!t || !gg_type_kernel(t, GG_ISA_SCALAR))
            continue;
        int dup = 0;
        for (int i = 0; i < nsamples; i++)
            dup |= !strcmp(samples[i].type->name, t->name);
        if (dup)
            continue;
        uint64_t ne0, nrows;
        rs_dims(rs_get(&mf, "dims"), &ne0, &nrows);
        samples[nsamples++] = (sample){t, file + data_off + strtoull(rs_get(&mf, "offset"), NULL, 10), ne0, nrows};
    }
    rs_close(&mf);
}

static int wanted(const char *only, const char *name)
{
    if (!only)
        return 1;
    size_t n = strlen(name);
    for (const char *p = only; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len == n && !strncasecmp(p, name, n))
            return 1;
        p += len + (e != NULL);
    }
    return 0;
}

int main(int argc, char **argv)
{
    uint64_t mb = 16;
    int rounds = 5;
    const char *only = NULL;
    int i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "--mb") && i + 1 < argc)
            mb = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
    }
    if ((argc - i) % 3 != 0 || argc == i) {
        fprintf(stderr, "usage: decode_bench [--mb N] [--rounds N] [--only T,..] "
                        "DATA_OFFSET FILE.gguf MANIFEST.tsv ...\n");
        return 2;
    }
    for (; i < argc; i += 3)
        load_set(strtoull(argv[i], NULL, 0), argv[i + 1], argv[i + 2]);

    uint64_t out_bytes = mb << 20;
    float *out = aligned_alloc(64, out_bytes);
    float *src_f = aligned_alloc(64, out_bytes);
    memset(out, 1, out_bytes);
    memset(src_f, 2, out_bytes);
    double best_memcpy = 1e9;
    for (int r = 0; r < rounds * 2; r++) {
        double t0 = now();
        memcpy(out, src_f, out_bytes);
        double dt = now() - t0;
        if (dt < best_memcpy)
            best_memcpy = dt;
    }
    double memcpy_gbs = out_bytes / best_memcpy / 1e9;
    printf("memcpy %.1f MiB: %.2f GB/s (baseline; ratios below are to it)\n", out_bytes / 1048576.0,
           memcpy_gbs);
    /* One column per instruction set this CPU runs. */
    gg_isa isas[GG_ISA_COUNT];
    int nisa = 0;
    for (int k = 0; k < GG_ISA_COUNT; k++)
        if (gg_isa_supported((gg_isa)k))
            isas[nisa++] = (gg_isa)k;
    printf("%-12s", "type");
    for (int k = 0; k < nisa; k++)
        printf(" %10s", gg_isa_name(isas[k]));
    printf(" %8s %8s %8s %s\n", "s/mcpy", "best/mcpy", "best/s", "(GB/s of f32 written)");
    for (int s = 0; s < nsamples; s++) {
        sample *sm = &samples[s];
        if (!wanted(only, sm->type->name))
            continue;
        gg_layout l0;
        if (gg_layout_init(&l0, sm->type, sm->ne0, sm->nrows, NULL) != 0)
            continue;
        /* Tile the reference tensor until the output fills the buffer. */
        uint64_t reps = out_bytes / (l0.nelems * 4);
        if (reps == 0)
            reps = 1;
        gg_layout l;
        gg_layout_init(&l, sm->type, sm->ne0, sm->nrows * reps, NULL);
        uint8_t *src = malloc(l.nbytes);
        const uint8_t *tail = NULL;
        if (sm->type->flags & GG_TYPE_TRAILING_SCALE) {
            /* One scale for the whole tensor: tile the codes, keep one tail. */
            uint64_t codes = l0.nbytes - 32;
            for (uint64_t k = 0; k < reps; k++)
                memcpy(src + k * codes, sm->bytes, codes);
            memcpy(src + reps * codes, sm->bytes + codes, 32);
            tail = src + reps * codes;
        } else {
            for (uint64_t k = 0; k < reps; k++)
                memcpy(src + k * l0.nbytes, sm->bytes, l0.nbytes);
        }
        float *dst = aligned_alloc(64, (l.nelems * 4 + 63) / 64 * 64);
        double gbs[GG_ISA_COUNT] = {0};
        for (int j = 0; j < nisa; j++) {
            gg_isa isa = isas[j];
            if (isa != GG_ISA_SCALAR && gg_type_kernel_isa(sm->type, isa) != isa)
                continue;
            double best = 1e9;
            for (int r = 0; r < rounds; r++) {
                double t0 = now();
                gg_layout_decode(&l, isa, src, 0, tail, 0, l.nelems, dst);
                double dt = now() - t0;
                if (dt < best)
                    best = dt;
            }
            gbs[isa] = l.nelems * 4.0 / best / 1e9;
        }
        double bestv = 0;
        for (int k = 0; k < GG_ISA_COUNT; k++)
            if (gbs[k] > bestv)
                bestv = gbs[k];
        printf("%-12s", sm->type->name);
        for (int j = 0; j < nisa; j++) {
            char c[16];
            snprintf(c, sizeof c, gbs[isas[j]] > 0 ? "%.2f" : "-", gbs[isas[j]]);
            printf(" %10s", c);
        }
        printf(" %8.2f %8.2f %8.1f\n", gbs[0] / memcpy_gbs, bestv / memcpy_gbs, bestv / gbs[0]);
        free(src);
        free(dst);
    }
    free(out);
    free(src_f);
    return 0;
}
