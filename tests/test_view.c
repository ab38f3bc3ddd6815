/* test_view - the view layer (view.h) over a memory source (memsrc.h), no
 * FUSE: raw, f32, f16, bf16 and q8_0 of F32, F16 and Q8_0 tensors give the bytes
 * computed here; a small read decodes only the blocks it touches; an I/O
 * error or a read cut short gives GG_E_IO (EIO) and leaves no page behind,
 * so the next read succeeds; a changed object gives GG_E_STALE (ESTALE) for
 * every later read, cached pages included; gg_reader_forget drops pages;
 * sequential reads are decoded ahead. Pins today's behaviour (issue 19). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gguffs/quantize.h"
#include "gguffs/view.h"
#include "mem_model.h"
#include "testlib.h"

static uint64_t stat_of(gg_reader *r, const char *name)
{
    gg_buf b = {0};
    gg_reader_stats_text(r, &b);
    uint64_t v = UINT64_MAX;
    size_t n = strlen(name);
    for (char *p = b.p; p && *p;) {
        if (!strncmp(p, name, n) && p[n] == ' ')
            v = strtoull(p + n, NULL, 10);
        char *nl = strchr(p, '\n');
        p = nl ? nl + 1 : NULL;
    }
    gg_buf_free(&b);
    return v;
}

static gg_reader *new_reader(int readahead)
{
    gg_reader_opts o;
    mm_reader_opts(&o, 4096);
    o.readahead_pages = readahead;
    return gg_reader_new(&o);
}

/* Every view of every decodable tensor, read whole and in odd pieces. */
static void views(mem_model *mm, gg_model *m, gg_reader *r)
{
    for (int i = 0; i < MM_X; i++) {
        const gg_tensor *t = &m->t[i];
        uint64_t n = mm->nelems[i];
        char *got = malloc(n * 4 + 64);
        gg_err e;
        ssize_t k = gg_read_view_copy(r, m, t, 0, GG_VIEW_RAW, got, n * 4 + 64, 0, NULL, &e);
        EXPECT(gg_view_size(t, GG_VIEW_RAW) == mm->nbytes[i], "tensor %d raw size", i);
        EXPECT(k == (ssize_t)mm->nbytes[i] && !memcmp(got, mm->file.p + mm->data_at[i], (size_t)k),
               "tensor %d raw: %zd bytes", i, k);
        for (int v = 0; v < 3; v++) {
            int half = v > 0, bf16 = v == 2;
            uint64_t es = half ? 2 : 4;
            gg_view_kind vk = !half ? GG_VIEW_F32 : bf16 ? GG_VIEW_BF16 : GG_VIEW_F16;
            EXPECT(gg_view_size(t, vk) == n * es, "tensor %d view %d: size %" PRIu64, i, v, gg_view_size(t, vk));
            char *want = mm_view(mm, i, half, bf16);
            memset(got, 0xAA, n * 4 + 64);
            k = gg_read_view_copy(r, m, t, (uint32_t)i, vk, got, n * 4 + 64, 0, NULL, &e);
            EXPECT(k == (ssize_t)(n * es) && !memcmp(got, want, n * es), "tensor %d view %d whole: %zd (%s)", i, v,
                   k, k < 0 ? e.msg : "");
            /* Pieces that start and end inside elements and pages. */
            for (uint64_t at = 0; at < n * es; at += 1531) {
                size_t len = 1000 + at % 3000;
                k = gg_read_view_copy(r, m, t, (uint32_t)i, vk, got, len, at, NULL, &e);
                size_t exp = at + len <= n * es ? len : (size_t)(n * es - at);
                EXPECT(k == (ssize_t)exp && !memcmp(got, want + at, exp), "tensor %d view %d at %" PRIu64 ": %zd", i,
                       v, at, k);
            }
            k = gg_read_view_copy(r, m, t, (uint32_t)i, vk, got, 16, n * es, NULL, &e);
            EXPECT(k == 0, "tensor %d view %d at the end: %zd", i, v, k);
            free(want);
        }
        free(got);
    }
}

/* The quantized views: the blocks of the f32 values (quantize.h's kernels,
 * checked against ggml in 11_oracle), made in the view's own pages, whole
 * and in pieces that cut blocks and pages (of whole blocks, or not), twice
 * (the second time from the cache); a row its block does not divide is
 * refused, and so is a type no quantizer makes. */
static void quant_views(mem_model *mm, gg_model *m, gg_reader *r)
{
    static const gg_tid types[] = {GG_T_Q8_0, GG_T_Q4_0, GG_T_Q5_1, GG_T_Q1_0, GG_T_Q4_K, GG_T_Q6_K, GG_T_IQ4_XS};
    for (size_t ty = 0; ty < sizeof types / sizeof types[0]; ty++) {
        const gg_type *q = gg_type_mainline(types[ty]);
        gg_view_kind vk = gg_view_of(types[ty]);
        for (int i = 0; i < MM_X; i++) {
            const gg_tensor *t = &m->t[i];
            uint64_t n = mm->nelems[i], size = n / q->block_elems * q->block_bytes;
            uint32_t uid = 100 + (uint32_t)i;
            char *got = malloc(size + 64);
            gg_err e;
            if (!gg_quantize_has(types[ty]) || t->info->ne[0] % q->block_elems) {
                ssize_t k = gg_read_view_copy(r, m, t, uid, vk, got, 64, 0, NULL, &e);
                EXPECT(k == -1 && e.code == (gg_quantize_has(types[ty]) ? GG_E_INVAL : GG_E_UNSUPPORTED),
                       "tensor %d: %s of rows of %" PRIu64 ": %zd", i, q->name, t->info->ne[0], k);
                free(got);
                continue;
            }
            uint8_t *want = malloc(size);
            gg_quantize_rows(types[ty], mm->f32[i], want, (int64_t)(n / t->info->ne[0]), (int64_t)t->info->ne[0]);
            EXPECT(gg_view_size(t, vk) == size, "tensor %d: %s size %" PRIu64, i, q->name, gg_view_size(t, vk));
            for (int pass = 0; pass < 2; pass++) {
                ssize_t k = gg_read_view_copy(r, m, t, uid, vk, got, size + 64, 0, NULL, &e);
                EXPECT(k == (ssize_t)size && !memcmp(got, want, size), "tensor %d: %s whole: %zd", i, q->name, k);
                for (uint64_t at = 0; at < size; at += 517) {
                    size_t len = 1 + at % 2900;
                    k = gg_read_view_copy(r, m, t, uid, vk, got, len, at, NULL, &e);
                    size_t exp = at + len <= size ? len : (size_t)(size - at);
                    EXPECT(k == (ssize_t)exp && !memcmp(got, want + at, exp), "tensor %d: %s at %" PRIu64 ": %zd", i,
                           q->name, at, k);
                }
            }
            free(want);
            free(got);
        }
    }
}

/* Refs put end to end (composite files do): five reads of a tensor's f32,
 * 20 pieces and pages, more than a ref holds inline, give the bytes in
 * order; literal bytes between them stay where they lie. */
static void ref_append(mem_model *mm, gg_model *m, gg_reader *r)
{
    const gg_tensor *t = &m->t[MM_Q];
    size_t n = mm->nelems[MM_Q] * 4;
    char *bufs = malloc(5 * n), *got = malloc(5 * n + 8);
    gg_ref all, one;
    gg_err e;
    gg_ref_init(&all);
    int ok = 1;
    for (int k = 0; k < 5 && ok; k++) {
        ssize_t g = gg_read_view(r, m, t, 77, GG_VIEW_F32, bufs + k * n, n, 0, NULL, &one, &e);
        ok = g == (ssize_t)n && gg_ref_append(&all, &one, &e) == 0 && one.niov == 0 && one.npages == 0;
        ok = ok && (k != 2 || gg_ref_add(&all, "gap!", 4, &e) == 0);
    }
    EXPECT(ok && all.niov > GG_REF_INLINE && all.npages > GG_REF_INLINE, "five reads put together: %d pieces, %d pages",
           all.niov, all.npages);
    gg_ref_gather(&all, got);
    char *want = mm_view(mm, MM_Q, 0, 0);
    int same = 1;
    for (int k = 0, at = 0; k < 5; k++) {
        same &= !memcmp(got + at, want, n);
        at += (int)n;
        if (k == 2) {
            same &= !memcmp(got + at, "gap!", 4);
            at += 4;
        }
    }
    EXPECT(same, "five reads put together: not the bytes in order");
    gg_ref_release(r, &all);
    free(want);
    free(bufs);
    free(got);
}

/* A small read of a quantized tensor decodes the blocks it touches only. */
static void small_reads(mem_model *mm, gg_model *m, gg_reader *r)
{
    char got[8];
    gg_err e;
    uint64_t before = atomic_load(&mm->src.bytes_read), small = stat_of(r, "small_reads_decoded_directly");
    /* elements 1000 and 1001: block 31 (bytes 31*34 .. +34) */
    ssize_t k = gg_read_view_copy(r, m, &m->t[MM_Q], 100, GG_VIEW_F32, got, 8, 4000, NULL, &e);
    EXPECT(k == 8 && !memcmp(got, (char *)mm->f32[MM_Q] + 4000, 8), "small read: %zd", k);
    EXPECT(atomic_load(&mm->src.bytes_read) - before == 34, "a small read read %" PRIu64 " bytes, not one block",
           atomic_load(&mm->src.bytes_read) - before);
    EXPECT(stat_of(r, "small_reads_decoded_directly") == small + 1, "small read not counted");
    EXPECT(stat_of(r, "cache_resident_pages") == 0, "a small read left a page");
}

/* EIO and short reads: -1 with GG_E_IO, counted, no page kept; the next
 * read (fault gone) gives the right bytes. */
static void io_errors(mem_model *mm, gg_model *m, gg_reader *r, ms_kind kind)
{
    const gg_tensor *t = &m->t[MM_Q];
    char *got = malloc(MM_Q_N * 4);
    gg_err e = {GG_OK, ""};
    gg_reader_forget(r, 0, 1000);
    uint64_t io0 = stat_of(r, "io_errors"), pages0 = stat_of(r, "cache_resident_pages");
    memsrc_fault(&mm->src, mm->data_at[MM_Q] + 40 * 34 + 5, kind, 1); /* page 1 (blocks 32..63) */
    ssize_t k = gg_read_view_copy(r, m, t, 200, GG_VIEW_F32, got, 8192, 0, NULL, &e);     /* pages 0 and 1 */
    EXPECT(k == -1 && e.code == GG_E_IO && gg_code_errno(e.code) == EIO, "kind %d: read gave %zd, code %d", kind, k,
           e.code);
    EXPECT(strstr(e.msg, kind == MS_SHORT ? "cut short" : "injected I/O error") && strstr(e.msg, "http://mem/"),
           "kind %d: message \"%s\"", kind, e.msg);
    EXPECT(stat_of(r, "io_errors") == io0 + 1, "kind %d: io_errors %" PRIu64, kind, stat_of(r, "io_errors"));
    EXPECT(stat_of(r, "cache_resident_pages") <= pages0 + 1, "kind %d: the failed page stayed", kind);
    k = gg_read_view_copy(r, m, t, 200, GG_VIEW_F32, got, 8192, 0, NULL, &e);
    EXPECT(k == 8192 && !memcmp(got, mm->f32[MM_Q], 8192), "kind %d: the read after the fault: %zd (%s)", kind, k,
           k < 0 ? e.msg : "");
    /* raw reads fail alike */
    memsrc_fault(&mm->src, mm->data_at[MM_A] + 10, kind, 1);
    k = gg_read_view_copy(r, m, &m->t[MM_A], 0, GG_VIEW_RAW, got, 64, 0, NULL, &e);
    EXPECT(k == -1 && e.code == GG_E_IO, "kind %d: raw read gave %zd", kind, k);
    k = gg_read_view_copy(r, m, &m->t[MM_A], 0, GG_VIEW_RAW, got, 64, 0, NULL, &e);
    EXPECT(k == 64 && !memcmp(got, mm->f32[MM_A], 64), "kind %d: raw after the fault: %zd", kind, k);
    memsrc_clear(&mm->src);
    free(got);
}

/* Sequential reads through one open file's state queue the next pages,
 * which the workers decode (bounded wait). */
static void read_ahead(mem_model *mm, gg_model *m, gg_reader *r)
{
    gg_readahead ra;
    gg_readahead_init(&ra);
    char got[1024];
    gg_err e;
    for (uint64_t at = 0; at < 3 * 4096; at += sizeof got) {
        ssize_t k = gg_read_view_copy(r, m, &m->t[MM_Q], 300, GG_VIEW_F32, got, sizeof got, at, &ra, &e);
        EXPECT(k == (ssize_t)sizeof got && !memcmp(got, (char *)mm->f32[MM_Q] + at, sizeof got),
               "sequential read at %" PRIu64 ": %zd", at, k);
    }
    EXPECT(stat_of(r, "readahead_pages_queued") > 0, "no read-ahead queued");
    for (int i = 0; i < 500 && stat_of(r, "readahead_pages_decoded") == 0; i++)
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    EXPECT(stat_of(r, "readahead_pages_decoded") > 0, "no read-ahead page decoded in 5 s");
    gg_readahead_destroy(&ra);
}

/* The object changes: every later read is stale, cached pages included. */
static void stale(mem_model *mm, gg_model *m, gg_reader *r)
{
    char got[8192];
    gg_err e;
    ssize_t k = gg_read_view_copy(r, m, &m->t[MM_Q], 400, GG_VIEW_F32, got, 8192, 0, NULL, &e); /* cached now */
    EXPECT(k == 8192, "before the change: %zd", k);
    EXPECT(stat_of(r, "cache_resident_pages") >= 2, "pages not cached: %" PRIu64, stat_of(r, "cache_resident_pages"));
    uint64_t stale0 = stat_of(r, "stale_reads");
    memsrc_change(&mm->src);
    k = gg_read_view_copy(r, m, &m->t[MM_Q], 400, GG_VIEW_F32, got, 8192, 0, NULL, &e);
    EXPECT(k == -1 && e.code == GG_E_STALE && gg_code_errno(e.code) == ESTALE, "cached pages after a change: %zd %d",
           k, e.code);
    k = gg_read_view_copy(r, m, &m->t[MM_A], 0, GG_VIEW_RAW, got, 8, 0, NULL, &e);
    EXPECT(k == -1 && e.code == GG_E_STALE, "raw after a change: %zd %d", k, e.code);
    k = gg_read_view_copy(r, m, &m->t[MM_H], 401, GG_VIEW_F16, got, 8, 0, NULL, &e);
    EXPECT(k == -1 && e.code == GG_E_STALE, "f16 after a change: %zd %d", k, e.code);
    EXPECT(stat_of(r, "stale_reads") >= stale0 + 2, "stale reads not counted");
    k = gg_read_view_copy(r, m, &m->t[MM_A], 0, GG_VIEW_RAW, got, 8, 0, NULL, &e);
    EXPECT(k == -1 && e.code == GG_E_STALE, "stale for good: %zd", k);
    gg_reader_forget(r, 0, 1000);
    EXPECT(stat_of(r, "cache_resident_pages") == 0, "forget left %" PRIu64 " pages", stat_of(r, "cache_resident_pages"));
}

/* A changed validator met in the middle of a read (MS_CHANGE). */
static void change_mid_read(void)
{
    mem_model mm;
    mm_build(&mm, "mid.gguf");
    gg_model m;
    gg_err e;
    EXPECT(mm_open(&mm, &m, &e) == 0, "open: %s", e.msg);
    gg_reader *r = new_reader(0);
    char got[8192];
    memsrc_fault(&mm.src, mm.data_at[MM_Q] + 70 * 34, MS_CHANGE, 1);
    ssize_t k = gg_read_view_copy(r, &m, &m.t[MM_Q], 0, GG_VIEW_F32, got, 8192, 4096, NULL, &e);
    EXPECT(k == -1 && e.code == GG_E_STALE, "change mid-read: %zd %d", k, e.code);
    k = gg_read_view_copy(r, &m, &m.t[MM_Q], 0, GG_VIEW_F32, got, 16, 0, NULL, &e);
    EXPECT(k == -1 && e.code == GG_E_STALE, "the read after: %zd %d", k, e.code);
    gg_reader_free(r);
    gg_model_close(&m);
    mm_free(&mm);
}

int main(void)
{
    mem_model mm;
    mm_build(&mm, "view.gguf");
    gg_model m;
    gg_err e;
    int rc = mm_open(&mm, &m, &e);
    EXPECT(rc == 0, "open: %s", e.msg);
    if (rc == 0) {
        EXPECT(m.nt == MM_NT && !gg_tensor_decodable(&m.t[MM_X]), "tensors: %" PRIu64, m.nt);
        gg_reader *r = new_reader(0);
        views(&mm, &m, r);
        quant_views(&mm, &m, r);
        ref_append(&mm, &m, r);
        {
            /* f32 pages of 1025 floats: a quantized view rounds its pages to whole blocks */
            gg_reader_opts o;
            mm_reader_opts(&o, 4100);
            gg_reader *odd = gg_reader_new(&o);
            quant_views(&mm, &m, odd);
            gg_reader_free(odd);
        }
        gg_reader_forget(r, 0, 1000);
        small_reads(&mm, &m, r);
        io_errors(&mm, &m, r, MS_EIO);
        io_errors(&mm, &m, r, MS_SHORT);
        gg_reader_free(r);
        r = new_reader(4);
        read_ahead(&mm, &m, r);
        stale(&mm, &m, r);
        gg_reader_free(r);
        char got[16];
        r = new_reader(0);
        ssize_t k = gg_read_view_copy(r, &m, &m.t[MM_X], 0, GG_VIEW_F32, got, 16, 0, NULL, &e);
        EXPECT(k == -1 && e.code == GG_E_UNSUPPORTED, "f32 of an undecodable tensor: %zd %d", k, e.code);
        gg_reader_free(r);
    }
    gg_model_close(&m);
    mm_free(&mm);
    change_mid_read();
    if (fails) {
        fprintf(stderr, "test_view: %d failed\n", fails);
        return 1;
    }
    printf("test_view: all passed\n");
    return 0;
}
