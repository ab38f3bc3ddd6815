/* test_remote.c - the remote source (src/remote/remote_source.c) over a
 * fetcher in memory (memfetch.h): no curl, no server, no FUSE. Blocks and
 * how many fetches they cost, a failed range not asked again at once, a
 * change of the object giving GG_E_STALE and never mixed bytes, a short
 * answer refused, and the disk cache: its object key and meta line (the
 * formats existing cache_dir folders hold) and an offline open; and a
 * sequential reader's read-ahead in parts, several in flight, over a
 * fetcher with latency, failing parts and an object that changes. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/sha256.h"
#include "gguffs/diskcache.h"
#include "gguffs/net.h"
#include "memfetch.h"
#include "remote/remote_source.h"
#include "testlib.h"

#define BS 4096u
#define NBLOCKS 16
static uint8_t obj[NBLOCKS * BS + 100]; /* a last block that is short */

static gg_net *new_net(const char *cache_dir)
{
    gg_net_opts o;
    gg_net_default_opts(&o);
    o.block_bytes = BS;
    o.mem_cache_bytes = 1 << 20;
    o.prefetch_threads = 0; /* read-ahead jobs queue and never run: fetch counts stay exact */
    o.cache_dir = cache_dir;
    o.hf_token = "";
    gg_err e;
    gg_net *n = gg_net_new(&o, &e);
    EXPECT(n, "gg_net_new: %s", e.msg);
    return n;
}

/* Read [off, off+n) and compare with the object's bytes. */
static int read_ok(gg_source *s, uint64_t off, size_t n, gg_err *e)
{
    uint8_t *buf = malloc(n);
    int rc = s->ops->read(s, buf, n, off, e);
    if (rc == 0 && memcmp(buf, obj + off, n))
        rc = gg_fail(e, GG_E_IO, "wrong bytes at %" PRIu64, off);
    free(buf);
    return rc;
}

static void test_blocks(void)
{
    memfetch m;
    memfetch_init(&m, "blocks", obj, sizeof obj);
    gg_net *n = new_net(NULL);
    gg_err e;
    gg_source *s = gg_remote_open(n, memfetch_open(&m), &e);
    EXPECT(s, "open: %s", s ? "" : e.msg);
    if (!s)
        return;
    EXPECT(s->size == sizeof obj && s->remote, "size %" PRIu64, s->size);
    EXPECT(memfetch_requests(&m) == 1 && m.log[0].first && m.log[0].off == 0 && m.log[0].len == BS,
           "open: one first fetch of a block, got %d", memfetch_requests(&m));
    gg_buf d = {0};
    s->ops->describe(s, &d);
    EXPECT(d.p && !strcmp(d.p, "\"url\": \"mem://blocks\", \"etag\": \"\\\"v0\\\"\""), "describe: %s", d.p);
    gg_buf_free(&d);
    EXPECT(read_ok(s, 10, 100, &e) == 0 && memfetch_requests(&m) == 1, "block 0 comes from the open");
    EXPECT(read_ok(s, 9 * BS + 5, 50, &e) == 0 && memfetch_requests(&m) == 2, "block 9: one fetch");
    EXPECT(read_ok(s, 9 * BS + 5, 50, &e) == 0 && memfetch_requests(&m) == 2, "block 9 again: none");
    int before = memfetch_requests(&m);
    EXPECT(read_ok(s, 3 * BS + 1, 3 * BS, &e) == 0 && memfetch_requests(&m) == before + 1 &&
               m.log[before].off == 3 * BS && m.log[before].len == 4 * BS,
           "blocks 3-6 missing: one fetch of all four (%d fetches)", memfetch_requests(&m) - before);
    EXPECT(read_ok(s, sizeof obj - 30, 30, &e) == 0, "the short last block: %s", e.msg);
    /* A fetcher that answers short is refused, and the block is not kept. */
    memfetch_fault(&m, 12 * BS, MF_SHORT, 1);
    EXPECT(read_ok(s, 12 * BS, 10, &e) == -1 && e.code == GG_E_IO && strstr(e.msg, "cut short"),
           "short answer: %s", e.msg);
    EXPECT(s->ops->check(s, &e) == 0, "a short answer is no change of the object");
    gg_source_close(s);
    gg_net_free(n);
}

static void test_failures(void)
{
    memfetch m;
    memfetch_init(&m, "faults", obj, sizeof obj);
    gg_net *n = new_net(NULL);
    gg_err e;
    gg_source *s = gg_remote_open(n, memfetch_open(&m), &e);
    if (!s) {
        EXPECT(0, "open: %s", e.msg);
        return;
    }
    /* EIO: the read fails, the block is not cached, and the range is not
     * asked for again at once (a failed read-ahead repeated by the kernel). */
    memfetch_fault(&m, 5 * BS + 7, MF_EIO, 1);
    EXPECT(read_ok(s, 5 * BS, 100, &e) == -1 && e.code == GG_E_IO && strstr(e.msg, "injected I/O error"),
           "EIO: %s", e.msg);
    int before = memfetch_requests(&m);
    EXPECT(read_ok(s, 5 * BS, 100, &e) == -1 && strstr(e.msg, "not asked again") && memfetch_requests(&m) == before,
           "failed a moment ago: %s", e.msg);
    struct timespec ts = {1, 100 * 1000000L}; /* (FAILED_KEEP_MS is 1 s) */
    nanosleep(&ts, NULL);
    EXPECT(read_ok(s, 5 * BS, 100, &e) == 0 && memfetch_requests(&m) == before + 1, "after the fault: %s", e.msg);
    EXPECT(read_ok(s, 2 * BS, 100, &e) == 0, "block 2 cached");
    /* The object changes under block 8: that read, every later one (cached
     * blocks included) and the check give GG_E_STALE; no byte is copied. */
    memfetch_fault(&m, 8 * BS, MF_CHANGE, 1);
    uint8_t buf[200];
    memset(buf, 0xAA, sizeof buf);
    EXPECT(s->ops->read(s, buf, 200, 8 * BS, &e) == -1 && e.code == GG_E_STALE, "change: %s", e.msg);
    int untouched = 1;
    for (size_t i = 0; i < sizeof buf; i++)
        untouched &= buf[i] == 0xAA;
    EXPECT(untouched, "a stale read copies nothing");
    EXPECT(read_ok(s, 2 * BS, 100, &e) == -1 && e.code == GG_E_STALE, "cached block after the change: %s", e.msg);
    EXPECT(read_ok(s, 5 * BS, 100, &e) == -1 && e.code == GG_E_STALE, "and block 5");
    EXPECT(s->ops->check(s, &e) == -1 && e.code == GG_E_STALE && strstr(e.msg, "changed on the server"),
           "check: %s", e.msg);
    gg_source_close(s);

    /* A weak ETag is not sent as If-Match: the new ETag of the answer says it. */
    memfetch_init(&m, "weak", obj, sizeof obj);
    m.weak = 1;
    s = gg_remote_open(n, memfetch_open(&m), &e);
    if (s) {
        memfetch_fault(&m, 4 * BS, MF_CHANGE, 1);
        EXPECT(read_ok(s, 4 * BS, 10, &e) == -1 && e.code == GG_E_STALE && strstr(e.msg, "(new ETag)"),
               "weak: %s", e.msg);
        gg_source_close(s);
    }
    gg_net_free(n);
}

static void test_disk_cache(void)
{
    char dir[] = "/tmp/gguffs-test-remote-XXXXXX";
    EXPECT(mkdtemp(dir), "mkdtemp");
    memfetch m;
    memfetch_init(&m, "disk", obj, sizeof obj);
    gg_net *n = new_net(dir);
    gg_err e;
    gg_source *s = n ? gg_remote_open(n, memfetch_open(&m), &e) : NULL;
    if (!s) {
        EXPECT(0, "open with a disk cache: %s", e.msg);
        gg_net_free(n);
        return;
    }
    EXPECT(read_ok(s, 1 * BS, 2 * BS, &e) == 0, "blocks 1-2: %s", e.msg);
    /* The meta line and the object key, as cache_dir folders hold them. */
    gg_buf meta = {0};
    char want[256];
    snprintf(want, sizeof want, "%zu\t\"v0\"\t\tTue, 01 Dec 2026 10:00:00 GMT\t\t\t%lld", sizeof obj,
             (long long)s->mtime.tv_sec);
    EXPECT(gg_diskcache_get_meta(gg_net_diskcache(n), "mem://disk", &meta) == 0 && meta.p && !strcmp(meta.p, want),
           "meta line: [%s], want [%s]", meta.p ? meta.p : "", want);
    gg_buf_free(&meta);
    char key[256];
    snprintf(key, sizeof key, "mem://disk\n\"v0\"|Tue, 01 Dec 2026 10:00:00 GMT||%zu", sizeof obj);
    uint8_t blk[BS];
    EXPECT(gg_diskcache_get(gg_net_diskcache(n), key, 2, blk, BS) == 0 && !memcmp(blk, obj + 2 * BS, BS),
           "block 2 under the object key");
    gg_source_close(s);
    gg_net_free(n);

    /* Unreachable: opened from the meta line, cached blocks served, the others refused. */
    memfetch_fault(&m, 0, MF_DOWN, 0);
    n = new_net(dir);
    s = n ? gg_remote_open(n, memfetch_open(&m), &e) : NULL;
    EXPECT(s, "offline open: %s", s ? "" : e.msg);
    if (s) {
        EXPECT(s->size == sizeof obj, "offline size");
        EXPECT(read_ok(s, 1 * BS + 3, 2 * BS - 3, &e) == 0, "offline, cached blocks: %s", e.msg);
        EXPECT(read_ok(s, 7 * BS, 10, &e) == -1 && strstr(e.msg, "are not in the disk cache"), "offline, block 7: %s",
               e.msg);
        gg_source_close(s);
    }
    gg_net_free(n);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    EXPECT(system(cmd) == 0, "rm");
}

/* A sequential reader over a fetcher with latency: parts of at most
 * 16 MiB, more than one in flight, every byte right; a part that fails makes the
 * reads of its blocks fail (EIO, at once), never wrong; the object changed
 * under a part: ESTALE from then on, never bytes of two versions. */
#define BIG_BLOCKS 96
static void test_parts(void)
{
    uint64_t bs = 1u << 20, size = BIG_BLOCKS * bs + 1000;
    uint8_t *big = malloc(size), *buf = malloc(256 << 10);
    for (uint64_t i = 0; i < size; i++)
        big[i] = (uint8_t)(i * 7 + (i >> 12) * 13 + (i >> 20));
    gg_net_opts o;
    gg_net_default_opts(&o);
    o.hf_token = "";
    gg_err e;
    gg_net *n = gg_net_new(&o, &e);
    EXPECT(n, "gg_net_new: %s", e.msg);
    memfetch m;
    memfetch_init(&m, "parts", big, size);
    m.delay_ms = 5;
    gg_source *s = n ? gg_remote_open(n, memfetch_open(&m), &e) : NULL;
    EXPECT(s, "open: %s", s ? "" : e.msg);
    int wrong = 0, failed = 0;
    for (uint64_t off = 0; s && off < size; off += 256 << 10) {
        size_t k = size - off < (256u << 10) ? (size_t)(size - off) : 256u << 10;
        if (s->ops->read(s, buf, k, off, &e))
            failed++;
        else
            wrong += memcmp(buf, big + off, k) != 0;
    }
    EXPECT(!wrong && !failed, "a sequential read: %d reads wrong, %d failed (%s)", wrong, failed, failed ? e.msg : "");
    uint64_t biggest = 0;
    for (int i = 0; i < m.nlog && i < MF_LOG; i++)
        biggest = m.log[i].len > biggest ? m.log[i].len : biggest;
    EXPECT(m.max_inflight >= 2, "parts in flight at once: %d", m.max_inflight);
    EXPECT(biggest <= 16 * bs && m.nlog < BIG_BLOCKS / 4, "%d requests, the biggest %" PRIu64 " bytes", m.nlog,
           biggest);
    if (s)
        gg_source_close(s);

    /* Faults under parts in flight: a part that fails (its blocks' reads
     * fail, those of no other block), then an object that changes. */
    for (int pass = 0; pass < 2 && n; pass++) {
        memfetch_init(&m, pass ? "parts-change" : "parts-eio", big, size);
        m.delay_ms = 2;
        /* (slow to fail: the reader waits on the failing part) */
        memfetch_fault(&m, (pass ? 70 : 40) * bs + 5, pass ? MF_CHANGE : MF_SLOW_EIO, 1);
        s = gg_remote_open(n, memfetch_open(&m), &e);
        EXPECT(s, "open: %s", s ? "" : e.msg);
        int eio = 0, other = 0, stale_from = -1, served_after = 0;
        uint64_t f0 = 40, f1 = 41; /* the blocks of the failing part: read from the log below */
        for (uint64_t off = 0; s && off < size; off += 256 << 10) {
            size_t k = size - off < (256u << 10) ? (size_t)(size - off) : 256u << 10;
            memset(buf, 0xAA, k);
            uint64_t blk = off / bs;
            if (s->ops->read(s, buf, k, off, &e) == 0) {
                wrong += memcmp(buf, big + off, k) != 0;
                served_after += stale_from >= 0;
            } else if (pass == 1 && e.code == GG_E_STALE) {
                stale_from = stale_from < 0 ? (int)blk : stale_from;
            } else if (pass == 0 && e.code == GG_E_IO) {
                eio += blk == 40;
                pthread_mutex_lock(&m.mu);
                for (int i = 0; i < m.nlog && i < MF_LOG; i++)
                    if (m.log[i].off <= 40 * bs + 5 && 40 * bs + 5 < m.log[i].off + m.log[i].len) {
                        f0 = m.log[i].off / bs;
                        f1 = (m.log[i].off + m.log[i].len + bs - 1) / bs;
                    }
                pthread_mutex_unlock(&m.mu);
                if (blk < f0 || blk >= f1) {
                    other++;
                    fprintf(stderr, "  block %" PRIu64 ": %s\n", blk, e.msg);
                }
            } else {
                other++;
                fprintf(stderr, "  block %" PRIu64 ": %s\n", blk, e.msg);
            }
        }
        EXPECT(!wrong && !other, "pass %d: %d reads gave wrong bytes, %d failed unexpectedly", pass, wrong, other);
        if (pass == 0)
            EXPECT(eio >= 1, "the failed part's block: EIO (%d reads)", eio);
        else
            EXPECT(stale_from >= 0 && stale_from <= 70 && !served_after,
                   "ESTALE from block %d on (read-ahead met the change at 70), %d reads served after", stale_from,
                   served_after);
        if (s)
            gg_source_close(s);
    }
    gg_net_free(n);
    free(big);
    free(buf);
}

/* A read-ahead GET cut short: the blocks that came whole before the break
 * are served (each block is settled as soon as it is in, not when its GET
 * ends); only the ones after it fail. */
static void test_parts_cut_short(void)
{
    uint64_t bs = 1u << 20, size = 48 * bs;
    uint8_t *big = malloc(size), *buf = malloc(256 << 10);
    for (uint64_t i = 0; i < size; i++)
        big[i] = (uint8_t)(i * 5 + (i >> 20));
    gg_net_opts o;
    gg_net_default_opts(&o); /* (1 MiB blocks) */
    o.hf_token = "";
    gg_net *n = gg_net_new(&o, NULL);
    memfetch m;
    memfetch_init(&m, "cut", big, size);
    m.delay_ms = 2;
    memfetch_fault(&m, 20 * bs + 5, MF_SHORT, 1);
    gg_err e;
    gg_source *s = n ? gg_remote_open(n, memfetch_open(&m), &e) : NULL;
    EXPECT(s, "open: %s", s ? "" : e.msg);
    uint64_t g0 = 0, g1 = 0; /* the GET that was cut: its blocks [g0, g1) */
    int wrong = 0, failed_first_half = 0, failed_second_half = 0;
    for (uint64_t off = 0; s && off < size; off += 256 << 10) {
        int rc = s->ops->read(s, buf, 256 << 10, off, &e);
        if (!g1) {
            pthread_mutex_lock(&m.mu);
            g0 = m.hit_off / bs;
            g1 = (m.hit_off + m.hit_len) / bs;
            pthread_mutex_unlock(&m.mu);
        }
        uint64_t b = off / bs;
        if (rc == 0)
            wrong += memcmp(buf, big + off, 256 << 10) != 0;
        else if (g1 && b >= g0 && b < g0 + (g1 - g0) / 2)
            failed_first_half++;
        else if (g1 && b >= g0 + (g1 - g0) / 2 && b < g1)
            failed_second_half++;
    }
    EXPECT(g1 > g0 + 1 && !wrong && !failed_first_half,
           "a GET of blocks %" PRIu64 "-%" PRIu64 " cut in half: %d reads of its first half failed, %d wrong",
           g0, g1, failed_first_half, wrong);
    EXPECT(failed_second_half > 0, "its second half failed (%d reads)", failed_second_half);
    if (s)
        gg_source_close(s);
    gg_net_free(n);
    free(big);
    free(buf);
}

/* An object named by its digest (an Ollama blob): no If-Match, and an
 * ETag that differs (another CDN edge) is no change; its size still is.
 * And SHA-256, which checks the small blobs read whole, against FIPS
 * 180-4's examples. */
static void test_content_addressed(void)
{
    memfetch m;
    memfetch_init(&m, "blob", obj, sizeof obj);
    gg_net *n = new_net(NULL);
    gg_err e;
    gg_fetcher *f = memfetch_open(&m);
    f->content_addressed = 1;
    gg_source *s = gg_remote_open(n, f, &e);
    EXPECT(s, "open: %s", s ? "" : e.msg);
    if (s) {
        memfetch_fault(&m, 6 * BS, MF_CHANGE, 1); /* (the memory fetcher's ETag moves on) */
        EXPECT(read_ok(s, 6 * BS, 100, &e) == 0 && read_ok(s, 9 * BS, 100, &e) == 0,
               "a new ETag of a content-addressed object: still read (%s)", e.msg);
        gg_source_close(s);
    }
    gg_net_free(n);
    static const char *const v[][2] = {
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        char hex[65];
        gg_sha256_hex(v[i][0], strlen(v[i][0]), hex);
        EXPECT(!strcmp(hex, v[i][1]), "sha256(\"%s\") = %s", v[i][0], hex);
    }
    /* In pieces of any size, the same digest as in one. */
    char whole[65], pieces[65];
    gg_sha256_hex(obj, sizeof obj, whole);
    static const size_t sizes[] = {1, 3, 63, 64, 65, 127, 4096, 5000};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        gg_sha256 h;
        gg_sha256_init(&h);
        for (size_t at = 0; at < sizeof obj; at += sizes[k])
            gg_sha256_update(&h, obj + at, sizeof obj - at < sizes[k] ? sizeof obj - at : sizes[k]);
        gg_sha256_final_hex(&h, pieces);
        EXPECT(!strcmp(pieces, whole), "sha256 in pieces of %zu: %s, in one: %s", sizes[k], pieces, whole);
    }
}

/* A fetcher of obj whose name says its size and sha256 (an Ollama blob). */
static gg_fetcher *named_blob(memfetch *m, uint64_t size, const char *sha256)
{
    memfetch_init(m, "blob", obj, sizeof obj);
    gg_fetcher *f = memfetch_open(m);
    f->content_addressed = 1;
    f->want_size = size;
    snprintf(f->want_sha256, sizeof f->want_sha256, "%s", sha256);
    return f;
}

/* An object named by its size and digest: another size is refused at
 * open; read whole in order, its digest is compared with its name's, and
 * when it differs the read that brings the last block fails, and every read
 * after it. */
static void test_named_blob(void)
{
    char hex[65], other[65];
    gg_sha256_hex(obj, sizeof obj, hex);
    memcpy(other, hex, 65);
    other[0] = other[0] == '0' ? '1' : '0';
    gg_net *n = new_net(NULL);
    memfetch m;
    gg_err e;
    gg_source *s = gg_remote_open(n, named_blob(&m, sizeof obj + 4096, hex), &e);
    EXPECT(!s && e.code == GG_E_MALFORMED && strstr(e.msg, "where its manifest's layer has"),
           "another size than the manifest's: refused (%s)", s ? "opened" : e.msg);
    gg_source_close(s);
    for (int bad = 0; bad < 2; bad++) {
        s = gg_remote_open(n, named_blob(&m, sizeof obj, bad ? other : hex), &e);
        EXPECT(s, "open: %s", s ? "" : e.msg);
        if (!s)
            continue;
        int rc = 0;
        for (uint64_t off = 0; off < sizeof obj && rc == 0; off += 3 * BS)
            rc = read_ok(s, off, sizeof obj - off < 3 * BS ? sizeof obj - off : 3 * BS, &e);
        if (bad)
            EXPECT(rc == -1 && e.code == GG_E_IO && strstr(e.msg, "damaged") && read_ok(s, 0, 10, &e) == -1,
                   "a digest that differs: the read of the last block fails, and every one after (%s)",
                   rc ? e.msg : "read");
        else
            EXPECT(rc == 0 && read_ok(s, 0, 10, &e) == 0, "the digest its name says: read (%s)", rc ? e.msg : "");
        gg_source_close(s);
    }
    gg_net_free(n);
}

int main(void)
{
    for (size_t i = 0; i < sizeof obj; i++)
        obj[i] = (uint8_t)(i * 131 + (i >> 9));
    test_blocks();
    test_failures();
    test_disk_cache();
    test_parts();
    test_parts_cut_short();
    test_content_addressed();
    test_named_blob();
    if (fails)
        fprintf(stderr, "test_remote: %d failed\n", fails);
    else
        printf("test_remote: ok\n");
    return fails != 0;
}
