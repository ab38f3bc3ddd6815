/* quantize_bench - quantization speed per type: gguffs' gg_quantize_rows
 * against the real ggml's ggml_quantize_chunk (libggml-base.so, opened with
 * dlopen: a bench-only dependency, never linked into gguffs) on the same
 * data in the same run, on one thread and on all of them (OpenMP over
 * chunks of rows, the way llama_model_quantize spreads a tensor's rows over
 * its threads).
 *
 *   quantize_bench LIBGGML_BASE [--mb N] [--only T1,T2] [--threads N]
 *
 * The input is N MiB (default 16) of normal float32 values in rows of 4096.
 * Each figure is M values per second, the best of 3 rounds of at least
 * 0.2 s, the two quantizers taking turns; time is the CPU time of the
 * busiest thread (static shares of the rows), which on a shared machine
 * stands for the wall clock of one core each; the bytes of both must be equal
 * (a mismatch is printed, and the exit status is 1). */
#include <dlfcn.h>
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "gguffs/decode.h"
#include "gguffs/quantize.h"
#include "gguffs/types.h"

enum { ROW = 4096, CHUNK_ROWS = 16 };

static struct {
    const char *(*type_name)(int);
    void (*init)(int);
    size_t (*chunk)(int, const float *, void *, int64_t, int64_t, int64_t, const float *);
} gl;

/* This thread's CPU time. The machine may be shared, so a quantizer is
 * timed by the CPU its threads used, not by the wall clock (which counts
 * the time they waited for a CPU): all threads together take as long as
 * the busiest of them. */
static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ggml's id of our type: the one with its name (ggml_type_name reads past
 * its table for ids from GGML_TYPE_COUNT, 43 in this ggml, on). */
static int ggml_id(const gg_type *t)
{
    for (int id = 0; id < 43; id++) {
        const char *n = gl.type_name(id);
        if (n && !strcasecmp(n, t->name))
            return id;
    }
    return -1;
}

/* All rows in chunks of CHUNK_ROWS over `threads` threads, by ggml or by
 * us; returns the CPU time of the busiest thread. */
static double quantize_all(const gg_type *t, int id, int by_ggml, const float *x, uint8_t *y, int64_t rows,
                           int threads)
{
    const size_t row_bytes = ROW / t->block_elems * t->block_bytes;
    double busiest = 0;
#pragma omp parallel num_threads(threads) reduction(max : busiest)
    {
        double t0 = now();
#pragma omp for schedule(static)
        for (int64_t r = 0; r < rows; r += CHUNK_ROWS) {
            int64_t n = rows - r < CHUNK_ROWS ? rows - r : CHUNK_ROWS;
            if (by_ggml)
                gl.chunk(id, x + r * ROW, y + (size_t)r * row_bytes, 0, n, ROW, NULL);
            else
                gg_quantize_rows(t->tid, x + r * ROW, y + (size_t)r * row_bytes, n, ROW);
        }
        busiest = now() - t0;
    }
    return busiest;
}

/* M values per second, the best round of each, taking turns. */
static void measure(const gg_type *t, int id, const float *x, uint8_t *ya, uint8_t *yb, int64_t rows, int threads,
                    double *ours, double *theirs)
{
    double best[2] = {1e30, 1e30};
    for (int round = 0; round < 3; round++)
        for (int g = 0; g < 2; g++) {
            int reps = 0;
            double dt = 0;
            do
                dt += quantize_all(t, id, g, x, g ? yb : ya, rows, threads), reps++;
            while (dt < 0.2);
            best[g] = fmin(best[g], dt / reps);
        }
    *ours = (double)rows * ROW / best[0] / 1e6;
    *theirs = (double)rows * ROW / best[1] / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: quantize_bench LIBGGML_BASE [--mb N] [--only T1,T2] [--threads N]\n");
        return 2;
    }
    size_t mb = 16;
    const char *only = NULL;
    int threads = omp_get_num_procs();
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--mb"))
            mb = (size_t)atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--only"))
            only = argv[i + 1];
        else if (!strcmp(argv[i], "--threads"))
            threads = atoi(argv[i + 1]);
    }
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return fprintf(stderr, "quantize_bench: %s\n", dlerror()), 2;
    *(void **)&gl.type_name = dlsym(lib, "ggml_type_name");
    *(void **)&gl.init = dlsym(lib, "ggml_quantize_init");
    *(void **)&gl.chunk = dlsym(lib, "ggml_quantize_chunk");
    if (!gl.type_name || !gl.init || !gl.chunk)
        return fprintf(stderr, "quantize_bench: %s lacks ggml_quantize_chunk\n", argv[1]), 2;

    const int64_t rows = (int64_t)(mb << 20) / 4 / ROW;
    float *x = malloc((size_t)rows * ROW * 4);
    uint8_t *ya = malloc((size_t)rows * ROW * 2), *yb = malloc((size_t)rows * ROW * 2);
    if (!x || !ya || !yb)
        return 1;
    uint64_t s = 88172645463325252ull;
    for (int64_t i = 0; i < rows * ROW; i++) { /* normal values (Box-Muller on xorshift) */
        s ^= s << 13, s ^= s >> 7, s ^= s << 17;
        double u = ((s >> 11) + 1) * 0x1p-53, v = (double)(s & 0xffff) / 65536.0;
        x[i] = (float)(sqrt(-2 * log(u)) * cos(6.283185307179586 * v));
    }
    printf("%zu MiB of normal float32 in rows of %d: M values/s, best of 3 (ggml = ggml_quantize_chunk)\n", mb, ROW);
    printf("  %-8s %9s %9s %6s   %9s %9s %6s  (%d threads)\n", "type", "1 thread", "ggml", "ratio", "all", "ggml",
           "ratio", threads);
    int bad = 0;
    for (size_t i = 0; i < gg_type_count(); i++) {
        const gg_type *t = gg_type_at(i);
        int id = ggml_id(t);
        if (!gg_quantize_has(t->tid) || id < 0 || (only && !strcasestr(only, t->name)))
            continue;
        gl.init(id);
        gg_quantize_rows(t->tid, x, ya, 1, ROW); /* (our first-use tables) */
        double o1, g1, on, gn;
        measure(t, id, x, ya, yb, rows, 1, &o1, &g1);
        if (threads > 1)
            measure(t, id, x, ya, yb, rows, threads, &on, &gn);
        else
            on = o1, gn = g1;
        size_t bytes = (size_t)rows * (ROW / t->block_elems * t->block_bytes);
        int same = !memcmp(ya, yb, bytes);
        bad += !same;
        printf("  %-8s %9.1f %9.1f %5.2fx   %9.1f %9.1f %5.2fx%s\n", t->name, o1, g1, o1 / g1, on, gn, on / gn,
               same ? "" : "  BYTES DIFFER");
        fflush(stdout);
    }
    free(x), free(ya), free(yb);
    return bad != 0;
}
