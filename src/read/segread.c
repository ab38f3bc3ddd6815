/* segread.c - the bytes of a composite file's view segment (see export.h):
 * a run of a tensor's view, rows of it taken a stride apart, and values
 * with 1 taken off. */
#include <string.h>

#include "gguffs/export.h"
#include "gguffs/halfconv.h"

/* View bytes [off, off+n) into buf: a view may give fewer bytes per call,
 * so ask until all are in. */
static int view_bytes(const gg_segment *s, gg_view_read_fn view, void *arg, gg_view_kind kind, char *buf, size_t n,
                      uint64_t off, gg_err *e)
{
    for (size_t got = 0; got < n;) {
        ssize_t r = view(arg, s->tensor, kind, buf + got, n - got, off + got, e);
        if (r < 0)
            return -1;
        if (r == 0)
            return gg_fail(e, GG_E_IO, "a tensor view ended early");
        got += (size_t)r;
    }
    return 0;
}

/* Bytes [off, off+n) of the view, its values minus one: read as f32,
 * shifted, then put in the segment's type (only the 1-D norms of gemma
 * take this path: a few thousand values). */
static int minus_one(const gg_segment *s, gg_view_read_fn view, void *arg, char *buf, size_t n, uint64_t off,
                     gg_err *e)
{
    enum { CHUNK = 1024 };
    float v[CHUNK];
    uint16_t h[CHUNK];
    uint64_t es = gg_view_esize(s->view);
    while (n) {
        uint64_t e0 = off / es, skip = off - e0 * es;
        size_t ne = (size_t)((skip + n + es - 1) / es);
        if (ne > CHUNK)
            ne = CHUNK;
        if (view_bytes(s, view, arg, GG_VIEW_F32, (char *)v, ne * 4, e0 * 4, e))
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

static int run(const gg_segment *s, gg_view_read_fn view, void *arg, char *buf, size_t n, uint64_t off, gg_err *e)
{
    if (s->xform == GG_SEG_MINUS_ONE)
        return minus_one(s, view, arg, buf, n, off, e);
    return view_bytes(s, view, arg, s->view, buf, n, off, e);
}

ssize_t gg_segment_read(const gg_segment *s, gg_view_read_fn view, void *arg, char *buf, size_t n, uint64_t in,
                        gg_err *e)
{
    if (!s->row)
        return run(s, view, arg, buf, n, s->from + in, e) ? -1 : (ssize_t)n;
    for (size_t done = 0; done < n;) {
        uint64_t pos = in + done, r = pos / s->row, w = pos % s->row;
        size_t k = s->row - w < n - done ? (size_t)(s->row - w) : n - done;
        if (run(s, view, arg, buf + done, k, s->from + r * s->stride + w, e))
            return -1;
        done += k;
    }
    return (ssize_t)n;
}
