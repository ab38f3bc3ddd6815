/* segread.c - the bytes of a composite file's segment that read gives (see
 * segread.h): a run of a view or a file, described where it lies; rows of
 * a view taken a stride apart and values with 1 taken off, made in the
 * caller's buffer. */
#include "segread.h"

#include <string.h>

#include "gguffs/halfconv.h"

/* Bytes [off, off+n) of s's view (or file) added to ref as read describes
 * them: a view may give fewer bytes per call, so ask until all are in. */
static int run_ref(const gg_segment *s, gg_reader *r, gg_seg_read_fn read, void *arg, char *buf, size_t n,
                   uint64_t off, gg_ref *ref, gg_err *e)
{
    for (size_t got = 0; got < n;) {
        gg_ref sub;
        gg_ref_init(&sub);
        ssize_t k = read(arg, s, buf + got, n - got, off + got, &sub, e);
        if (k <= 0)
            return k < 0 ? -1 : gg_fail(e, GG_E_IO, "a tensor view ended early");
        if (gg_ref_append(ref, &sub, e)) {
            gg_ref_release(r, &sub);
            return -1;
        }
        got += (size_t)k;
    }
    return 0;
}

/* The same bytes copied into buf (the pages let go at once). */
static int run_bytes(const gg_segment *s, gg_reader *r, gg_seg_read_fn read, void *arg, char *buf, size_t n,
                     uint64_t off, gg_err *e)
{
    gg_ref got;
    gg_ref_init(&got);
    int rc = run_ref(s, r, read, arg, buf, n, off, &got, e);
    if (rc == 0)
        gg_ref_gather(&got, buf);
    gg_ref_release(r, &got);
    return rc;
}

/* Bytes [off, off+n) of the view, its values minus one: read as f32,
 * shifted, then put in the segment's type (only the 1-D norms of gemma
 * take this path: a few thousand values). */
static int minus_one(const gg_segment *s, gg_reader *r, gg_seg_read_fn read, void *arg, char *buf, size_t n,
                     uint64_t off, gg_err *e)
{
    enum { CHUNK = 1024 };
    float v[CHUNK];
    uint16_t h[CHUNK];
    uint64_t es = gg_view_esize(s->view);
    gg_segment f32 = *s;
    f32.kind = GG_SEG_VIEW;
    f32.view = GG_VIEW_F32;
    while (n) {
        uint64_t e0 = off / es, skip = off - e0 * es;
        size_t ne = (size_t)((skip + n + es - 1) / es);
        if (ne > CHUNK)
            ne = CHUNK;
        if (run_bytes(&f32, r, read, arg, (char *)v, ne * 4, e0 * 4, e))
            return -1;
        for (size_t i = 0; i < ne; i++)
            v[i] -= 1.0f;
        const char *src = (const char *)v;
        if (s->view == GG_VIEW_F16)
            gg_f32_to_f16(v, h, ne), src = (const char *)h;
        else if (s->view == GG_VIEW_BF16)
            gg_f32_to_bf16(v, h, ne), src = (const char *)h;
        size_t k = (size_t)(ne * es - skip);
        if (k > n)
            k = n;
        memcpy(buf, src + skip, k);
        buf += k;
        off += k;
        n -= k;
    }
    return 0;
}

/* Bytes [off, off+n) of the run s stands for, made in buf. */
static int made(const gg_segment *s, gg_reader *r, gg_seg_read_fn read, void *arg, char *buf, size_t n, uint64_t off,
                gg_err *e)
{
    if (s->kind == GG_SEG_MINUS_ONE)
        return minus_one(s, r, read, arg, buf, n, off, e);
    return run_bytes(s, r, read, arg, buf, n, off, e);
}

int gg_segment_read(const gg_segment *s, gg_reader *r, gg_seg_read_fn read, void *arg, char *buf, size_t n,
                    uint64_t in, gg_ref *ref, gg_err *e)
{
    /* One run as it is: where it lies (cached pages need no copy). */
    if (!s->row && s->kind != GG_SEG_MINUS_ONE)
        return run_ref(s, r, read, arg, buf, n, s->from + in, ref, e);
    /* Rows a stride apart, or values changed: made in buf, a row at a time. */
    if (!s->row) {
        if (made(s, r, read, arg, buf, n, s->from + in, e))
            return -1;
    } else {
        for (size_t done = 0; done < n;) {
            uint64_t pos = in + done, row = pos / s->row, w = pos % s->row;
            size_t k = s->row - w < n - done ? (size_t)(s->row - w) : n - done;
            if (made(s, r, read, arg, buf + done, k, s->from + row * s->stride + w, e))
                return -1;
            done += k;
        }
    }
    return gg_ref_add(ref, buf, n, e);
}
