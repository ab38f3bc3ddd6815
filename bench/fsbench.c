/* fsbench - helpers for bench/fs.sh: synthetic models and latency probes.
 *
 *   fsbench gen OUT.gguf NAME:TYPE:NE0:NROWS [...]
 *       a dense model; TYPE is q4_k, q8_0, iq4_xs or f32. Blocks are random but
 *       valid: every fp16 scale is finite, positive, normal and small
 *       (2^-10 .. 2^-3), so decoding runs at its real speed (subnormal
 *       scales are slow on x86) and yields finite values. Fixed seed.
 *   fsbench sparse OUT.gguf NTENSORS NE0 NROWS NTOKENS
 *       NTENSORS Q8_0 tensors of NE0 x NROWS named blk.N.ffn_{up,gate,down}.weight
 *       (llama.block_count: the layers), and a vocabulary of NTOKENS strings;
 *       the data is a hole (ftruncate), so the file costs no disk.
 *   fsbench rand FILE COUNT SEED
 *       COUNT preads of 4 KiB at random 4 KiB-aligned offsets (fixed seed;
 *       with $FSBENCH_FADV_RANDOM set, after posix_fadvise(RANDOM));
 *       prints "p50_us P p99_us Q mean_us M p90_us .. p999_us .. max_us ..".
 *
 * Independent of the gguffs sources (nothing shared to hide a bug). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "../tests/rng.h"

#define ALIGN 32

static void die(const char *what)
{
    fprintf(stderr, "fsbench: %s: %s\n", what, errno ? strerror(errno) : "failed");
    exit(1);
}

/* A growing byte buffer for the header. */
typedef struct hbuf {
    uint8_t *p;
    size_t len, cap;
} hbuf;

static void put(hbuf *b, const void *src, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 4096;
        b->p = realloc(b->p, b->cap);
        if (!b->p)
            die("out of memory");
    }
    memcpy(b->p + b->len, src, n);
    b->len += n;
}
static void put_u32(hbuf *b, uint32_t v) { put(b, &v, 4); }
static void put_u64(hbuf *b, uint64_t v) { put(b, &v, 8); }
static void put_str(hbuf *b, const char *s)
{
    put_u64(b, strlen(s));
    put(b, s, strlen(s));
}

typedef struct tdesc {
    char name[128];
    uint32_t type_id, block_elems, block_bytes;
    uint64_t ne0, nrows, nbytes, offset;
} tdesc;

static int type_of(const char *s, tdesc *t)
{
    if (!strcmp(s, "q4_k"))
        t->type_id = 12, t->block_elems = 256, t->block_bytes = 144;
    else if (!strcmp(s, "q8_0"))
        t->type_id = 8, t->block_elems = 32, t->block_bytes = 34;
    else if (!strcmp(s, "iq4_xs"))
        t->type_id = 23, t->block_elems = 256, t->block_bytes = 136;
    else if (!strcmp(s, "f32"))
        t->type_id = 0, t->block_elems = 1, t->block_bytes = 4;
    else
        return -1;
    return 0;
}

/* Header: magic, version 3, counts, KVs, tensor infos, padding. Fills each
 * tensor's offset; returns the header (its length is the data start).
 * layers: llama.block_count (0: none), which llama-quantize's recipes read. */
static hbuf header(tdesc *t, int nt, uint64_t ntokens, uint32_t layers)
{
    hbuf b = {0};
    put(&b, "GGUF", 4);
    put_u32(&b, 3);
    put_u64(&b, (uint64_t)nt);
    put_u64(&b, 2 + (ntokens > 0) + (layers > 0));
    put_str(&b, "general.architecture");
    put_u32(&b, 8);
    put_str(&b, "llama");
    put_str(&b, "general.name");
    put_u32(&b, 8);
    put_str(&b, "gguffs synthetic benchmark model");
    if (layers) {
        put_str(&b, "llama.block_count");
        put_u32(&b, 4);
        put_u32(&b, layers);
    }
    if (ntokens) {
        put_str(&b, "tokenizer.ggml.tokens");
        put_u32(&b, 9);
        put_u32(&b, 8);
        put_u64(&b, ntokens);
        char tok[32];
        for (uint64_t i = 0; i < ntokens; i++) {
            snprintf(tok, sizeof tok, "tok%" PRIu64, i);
            put_str(&b, tok);
        }
    }
    uint64_t pos = 0;
    for (int i = 0; i < nt; i++) {
        t[i].offset = pos;
        pos = (pos + t[i].nbytes + ALIGN - 1) / ALIGN * ALIGN;
        put_str(&b, t[i].name);
        put_u32(&b, 2);
        put_u64(&b, t[i].ne0);
        put_u64(&b, t[i].nrows);
        put_u32(&b, t[i].type_id);
        put_u64(&b, t[i].offset);
    }
    static const uint8_t zero[ALIGN];
    put(&b, zero, (ALIGN - b.len % ALIGN) % ALIGN);
    return b;
}

/* A random normal fp16 in [2^-10, 2^-3). */
static uint16_t small_half(void)
{
    uint64_t r = rng_next();
    uint16_t exp = (uint16_t)(5 + (r >> 40) % 7); /* biased exponent 5..11 */
    return (uint16_t)(exp << 10 | (r & 0x3ff));
}

static void fill_block(const tdesc *t, uint8_t *blk)
{
    if (t->type_id == 0) { /* F32: a small normal float */
        uint64_t r = rng_next();
        uint32_t f = (uint32_t)(r >> 63) << 31 | (uint32_t)(110 + (r >> 40) % 16) << 23 | (uint32_t)(r & 0x7fffff);
        memcpy(blk, &f, 4);
        return;
    }
    for (uint32_t k = 0; k < t->block_bytes; k += 8) {
        uint64_t r = rng_next();
        memcpy(blk + k, &r, t->block_bytes - k < 8 ? t->block_bytes - k : 8);
    }
    uint16_t h = small_half();
    memcpy(blk, &h, 2); /* d: first field of all three types */
    if (t->type_id == 12) {
        h = small_half();
        memcpy(blk + 2, &h, 2); /* Q4_K dmin */
    }
}

static int cmd_gen(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    int nt = argc - 3;
    tdesc *t = calloc((size_t)nt, sizeof *t);
    for (int i = 0; i < nt; i++) {
        char type[32];
        if (sscanf(argv[3 + i], "%127[^:]:%31[^:]:%" SCNu64 ":%" SCNu64, t[i].name, type, &t[i].ne0,
                   &t[i].nrows) != 4 ||
            type_of(type, &t[i]) || t[i].ne0 % t[i].block_elems) {
            fprintf(stderr, "fsbench gen: bad tensor spec %s\n", argv[3 + i]);
            return 2;
        }
        t[i].nbytes = t[i].ne0 * t[i].nrows / t[i].block_elems * t[i].block_bytes;
    }
    hbuf h = header(t, nt, 0, 0);
    int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        die(argv[2]);
    if (write(fd, h.p, h.len) != (ssize_t)h.len)
        die("write");
    size_t chunk = 8u << 20;
    uint8_t *buf = malloc(chunk);
    for (int i = 0; i < nt; i++) {
        rng_seed(0x9E3779B97F4A7C15ull + (uint64_t)i * 7919); /* fixed per tensor */
        uint64_t nblocks = t[i].nbytes / t[i].block_bytes, done = 0;
        size_t per = chunk / t[i].block_bytes;
        while (done < nblocks) {
            size_t n = nblocks - done < per ? (size_t)(nblocks - done) : per;
            for (size_t k = 0; k < n; k++)
                fill_block(&t[i], buf + k * t[i].block_bytes);
            size_t len = n * t[i].block_bytes;
            if (pwrite(fd, buf, len, (off_t)(h.len + t[i].offset + done * t[i].block_bytes)) != (ssize_t)len)
                die("write");
            done += n;
        }
    }
    uint64_t end = h.len + t[nt - 1].offset + t[nt - 1].nbytes;
    if (ftruncate(fd, (off_t)((end + ALIGN - 1) / ALIGN * ALIGN)) || close(fd))
        die("close");
    return 0;
}

static int cmd_sparse(int argc, char **argv)
{
    if (argc != 7)
        return 2;
    int nt = atoi(argv[3]);
    uint64_t ne0 = strtoull(argv[4], NULL, 10), nrows = strtoull(argv[5], NULL, 10);
    uint64_t ntok = strtoull(argv[6], NULL, 10);
    if (nt <= 0 || ne0 % 32)
        return 2;
    tdesc *t = calloc((size_t)nt, sizeof *t);
    for (int i = 0; i < nt; i++) {
        snprintf(t[i].name, sizeof t[i].name, "blk.%d.ffn_%s.weight", i / 3,
                 i % 3 == 0 ? "up" : i % 3 == 1 ? "gate" : "down");
        type_of("q8_0", &t[i]);
        t[i].ne0 = ne0;
        t[i].nrows = nrows;
        t[i].nbytes = ne0 * nrows / 32 * 34;
    }
    hbuf h = header(t, nt, ntok, (uint32_t)((nt + 2) / 3));
    int fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0)
        die(argv[2]);
    if (write(fd, h.p, h.len) != (ssize_t)h.len)
        die("write");
    uint64_t end = h.len + t[nt - 1].offset + t[nt - 1].nbytes;
    if (ftruncate(fd, (off_t)((end + ALIGN - 1) / ALIGN * ALIGN)) || close(fd))
        die("ftruncate");
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t ns_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmd_rand(int argc, char **argv)
{
    if (argc != 5)
        return 2;
    int fd = open(argv[2], O_RDONLY);
    if (fd < 0)
        die(argv[2]);
    struct stat st;
    fstat(fd, &st);
    if (getenv("FSBENCH_FADV_RANDOM")) /* no kernel read-ahead: 4 KiB requests */
        posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
    long count = atol(argv[3]);
    rng_seed(strtoull(argv[4], NULL, 10) * 0x9E3779B97F4A7C15ull + 1);
    uint64_t npages = (uint64_t)st.st_size / 4096;
    if (count <= 0 || npages == 0)
        return 2;
    uint64_t *lat = malloc((size_t)count * sizeof *lat);
    char buf[4096];
    for (long i = 0; i < count; i++) {
        uint64_t off = rng_next() % npages * 4096;
        uint64_t t0 = ns_now();
        if (pread(fd, buf, sizeof buf, (off_t)off) != (ssize_t)sizeof buf)
            die("pread");
        lat[i] = ns_now() - t0;
    }
    double sum = 0;
    for (long i = 0; i < count; i++)
        sum += (double)lat[i];
    qsort(lat, (size_t)count, sizeof *lat, cmp_u64);
    printf("p50_us %.1f p99_us %.1f mean_us %.1f p90_us %.1f p999_us %.1f max_us %.1f\n", lat[count / 2] / 1e3,
           lat[count * 99 / 100] / 1e3, sum / count / 1e3, lat[count * 9 / 10] / 1e3,
           lat[count * 999 / 1000] / 1e3, lat[count - 1] / 1e3);
    return 0;
}

int main(int argc, char **argv)
{
    int rc = 2;
    if (argc > 1 && !strcmp(argv[1], "gen"))
        rc = cmd_gen(argc, argv);
    else if (argc > 1 && !strcmp(argv[1], "sparse"))
        rc = cmd_sparse(argc, argv);
    else if (argc > 1 && !strcmp(argv[1], "rand"))
        rc = cmd_rand(argc, argv);
    if (rc == 2)
        fprintf(stderr, "usage: fsbench gen OUT NAME:TYPE:NE0:NROWS... | sparse OUT N NE0 NROWS NTOK | "
                        "rand FILE COUNT SEED\n");
    return rc;
}
