/* test_remote.c - the remote source (src/remote/remote_source.c) over a
 * fetcher in memory (memfetch.h): no curl, no server, no FUSE. Blocks and
 * how many fetches they cost, a failed range not asked again at once, a
 * change of the object giving GG_E_STALE and never mixed bytes, a short
 * answer refused, and the disk cache: its object key and meta line (the
 * formats existing cache_dir folders hold) and an offline open. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

int main(void)
{
    for (size_t i = 0; i < sizeof obj; i++)
        obj[i] = (uint8_t)(i * 131 + (i >> 9));
    test_blocks();
    test_failures();
    test_disk_cache();
    if (fails)
        fprintf(stderr, "test_remote: %d failed\n", fails);
    else
        printf("test_remote: ok\n");
    return fails != 0;
}
