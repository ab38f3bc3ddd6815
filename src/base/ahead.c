/* ahead.c - the read-ahead policy (see ahead.h; layer: base/). */
#include "base/ahead.h"

int gg_ahead_continues(const gg_ahead *s, const gg_ahead_params *p, uint64_t off)
{
    if (!s->window || off > s->next + p->slack)
        return 0;
    return p->from_start ? off >= s->start : off + p->slack >= s->next;
}

void gg_ahead_start(gg_ahead *s, const gg_ahead_params *p, uint64_t off, uint64_t len)
{
    *s = (gg_ahead){off, off + len, len, p->min ? p->min : 1, off + len};
}

uint64_t gg_ahead_chunk(const gg_ahead *s, const gg_ahead_params *p)
{
    uint64_t unit = p->unit ? p->unit : 1, div = p->chunk_div ? p->chunk_div : 4;
    uint64_t chunk = !p->chunk_max ? unit : s->window / div < p->chunk_max ? s->window / div : p->chunk_max;
    return chunk ? chunk : unit;
}

int gg_ahead_advance(gg_ahead *s, const gg_ahead_params *p, uint64_t off, uint64_t len, uint64_t size, int grow,
                     uint64_t *first, uint64_t *end)
{
    *first = *end = 0;
    s->bytes += len;
    if (off + len > s->next)
        s->next = off + len;
    if (s->bytes < p->earn_bytes || s->next - s->start < p->earn_span)
        return 0;
    /* The window grows to hide the latency while the reader keeps up. */
    if (grow && s->next - s->start >= s->window && s->window < p->max)
        s->window *= 2;
    uint64_t unit = p->unit ? p->unit : 1, chunk = gg_ahead_chunk(s, p);
    uint64_t target = s->next + s->window < size ? s->next + s->window : size;
    uint64_t from = s->ahead_to > s->next ? s->ahead_to : s->next;
    from = (from + unit - 1) / unit * unit;
    if (from < target && target - from >= chunk) {
        *first = from;
        *end = from + (target - from) / chunk * chunk;
        s->ahead_to = *end;
    } else if (from < target && target == size) {
        *first = from;
        *end = target;
        s->ahead_to = *end;
    }
    return 1;
}
