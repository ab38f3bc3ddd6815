/* test_ahead - the read-ahead policy (src/base/ahead.h) with the two parameter
 * sets gguffs uses: the decoded view's (pages, a fixed window of 16, earned
 * once a stream covers two pages) and the remote source's (bytes in 1 MiB
 * blocks, earned after a block's worth, a window doubling from 16 MiB to
 * 32 MiB asked for in chunks of half of it, at most 16 MiB). The
 * expected ranges follow from those rules, worked out in the comments. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>

#include "base/ahead.h"

#include "testlib.h"

#define MIB ((uint64_t)1 << 20)

static const gg_ahead_params view = {.unit = 1, .slack = 1, .earn_span = 2, .min = 16, .max = 16};
static const gg_ahead_params remote = {.unit = MIB, .slack = MIB, .from_start = 1, .earn_bytes = MIB,
                                       .min = 16 * MIB, .max = 32 * MIB, .chunk_max = 16 * MIB, .chunk_div = 2};

/* One read: continue or start; returns the earned flag (-1: started). */
static int note(gg_ahead *s, const gg_ahead_params *p, uint64_t off, uint64_t len, uint64_t size, int grow,
                uint64_t *f, uint64_t *e)
{
    *f = *e = 0;
    if (!gg_ahead_continues(s, p, off)) {
        gg_ahead_start(s, p, off, len);
        return -1;
    }
    return gg_ahead_advance(s, p, off, len, size, grow, f, e);
}

static void test_view(void)
{
    gg_ahead s = {0};
    uint64_t f, e;
    /* Page 0 starts a stream; page 1 makes it two pages: pages [2, 18)
     * are queued; then each page read queues the one 16 ahead; at the end
     * of a 20-page tensor nothing more. */
    EXPECT(note(&s, &view, 0, 1, 20, 0, &f, &e) == -1 && f == e, "page 0 starts");
    EXPECT(note(&s, &view, 1, 1, 20, 0, &f, &e) == 1 && f == 2 && e == 18, "page 1: [%" PRIu64 ", %" PRIu64 ")", f, e);
    EXPECT(note(&s, &view, 2, 1, 20, 0, &f, &e) == 1 && f == 18 && e == 19, "page 2: [%" PRIu64 ", %" PRIu64 ")", f, e);
    EXPECT(note(&s, &view, 3, 1, 20, 0, &f, &e) == 1 && f == 19 && e == 20, "page 3: [%" PRIu64 ", %" PRIu64 ")", f, e);
    EXPECT(note(&s, &view, 4, 1, 20, 0, &f, &e) == 1 && f == e, "page 4: nothing left");
    /* Out of order within the slack (one page) continues: page 4 again,
     * not page 3 (the stream ends at 5); a jump starts anew. */
    EXPECT(note(&s, &view, 4, 1, 20, 0, &f, &e) == 1 && f == e, "page 4 again continues");
    EXPECT(!gg_ahead_continues(&s, &view, 3), "page 3 is too far back");
    EXPECT(note(&s, &view, 10, 1, 20, 0, &f, &e) == -1, "a jump starts a stream");
    EXPECT(note(&s, &view, 11, 1, 20, 0, &f, &e) == 1 && f == 12 && e == 20, "page 11: [%" PRIu64 ", %" PRIu64 ")",
           f, e);
    /* Never earned (-o readahead=0 sets earn_bytes to the maximum). */
    gg_ahead_params off = view;
    off.earn_bytes = UINT64_MAX;
    gg_ahead t = {0};
    note(&t, &off, 0, 1, 20, 0, &f, &e);
    EXPECT(note(&t, &off, 1, 1, 20, 0, &f, &e) == 0 && f == e, "no read-ahead when it can never be earned");
}

static void test_remote(int grow)
{
    gg_ahead s = {0};
    uint64_t f, e, size = 1024 * MIB, asked = 0, n = 128 << 10;
    int first_at = -1;
    for (int i = 0; i < 1024; i++) { /* 128 MiB in reads of 128 KiB */
        uint64_t off = (uint64_t)i * n;
        int rc = note(&s, &remote, off, n, size, grow, &f, &e);
        EXPECT(i == 0 ? rc == -1 : rc >= 0, "read %d continues", i);
        if (f == e)
            continue;
        /* Earned after a block's worth: the 8th read (1 MiB); the window
         * (16 MiB) is asked for at once, in whole chunks (8 MiB). */
        if (first_at < 0) {
            first_at = i;
            EXPECT(f == MIB && e == 17 * MIB, "first range [%" PRIu64 ", %" PRIu64 ")", f / MIB, e / MIB);
        } else {
            EXPECT(f == asked, "ranges follow each other (%" PRIu64 " after %" PRIu64 ")", f, asked);
        }
        /* Whole chunks of half the window, never past it. */
        uint64_t chunk = s.window / 2 < 16 * MIB ? s.window / 2 : 16 * MIB;
        EXPECT(chunk == gg_ahead_chunk(&s, &remote), "chunk %" PRIu64 " MiB", chunk / MIB);
        EXPECT((e - f) % chunk == 0, "range of %" PRIu64 " MiB in chunks of %" PRIu64, (e - f) / MIB, chunk / MIB);
        EXPECT(e <= off + n + s.window, "within the window");
        asked = e;
    }
    EXPECT(first_at == 7, "earned at read %d", first_at);
    /* 128 MiB read: the window doubled while the reader kept up (16, 32),
     * or stayed (disk-fed). */
    EXPECT(s.window == (grow ? 32 * MIB : 16 * MIB), "window %" PRIu64 " MiB", s.window / MIB);
    /* A read back inside the stream continues it; one past a block after
     * its end starts another. */
    EXPECT(gg_ahead_continues(&s, &remote, 5 * MIB), "a read from the stream's start on continues");
    EXPECT(!gg_ahead_continues(&s, &remote, s.next + MIB + 1), "past a block after the end: a new stream");
}

static void test_remote_end(void)
{
    /* A 20.5 MiB object: the first range stops at whole chunks (16 MiB
     * from 1 MiB); then less than a chunk (8 MiB) is due until the window
     * reaches the end: at the read ending at 4.5 MiB, [17, 20.5) is asked
     * for, short of a chunk. */
    gg_ahead s = {0};
    uint64_t f, e, size = 41 * MIB / 2;
    note(&s, &remote, 0, MIB / 2, size, 1, &f, &e);
    EXPECT(note(&s, &remote, MIB / 2, MIB / 2, size, 1, &f, &e) == 1 && f == MIB && e == 17 * MIB,
           "[%" PRIu64 ", %" PRIu64 ")", f, e);
    for (uint64_t at = 2; at < 8; at++)
        EXPECT(note(&s, &remote, at * MIB / 2, MIB / 2, size, 1, &f, &e) == 1 && f == e,
               "less than a chunk due at %" PRIu64 " MiB / 2", at);
    EXPECT(note(&s, &remote, 4 * MIB, MIB / 2, size, 1, &f, &e) == 1 && f == 17 * MIB && e == size,
           "to the end: [%" PRIu64 ", %" PRIu64 ")", f, e);
    EXPECT(note(&s, &remote, 9 * MIB / 2, MIB / 2, size, 1, &f, &e) == 1 && f == e, "nothing left");
    /* The header parser's stream (earn_bytes = maximum) never earns. */
    gg_ahead_params hdr = remote;
    hdr.earn_bytes = UINT64_MAX;
    gg_ahead h = {0};
    note(&h, &hdr, 0, MIB, size, 1, &f, &e);
    EXPECT(note(&h, &hdr, MIB, 2 * MIB, size, 1, &f, &e) == 0 && f == e, "the header parser gets none");
}

int main(void)
{
    test_view();
    test_remote(1);
    test_remote(0);
    test_remote_end();
    if (fails) {
        fprintf(stderr, "test_ahead: %d failure(s)\n", fails);
        return 1;
    }
    printf("test_ahead: ok\n");
    return 0;
}
