/* ahead.h - read-ahead: follow a sequential reader and say what to fetch
 * or decode ahead of it (src/base/).
 *
 * One policy, two users, in their own units: the decoded view (units are
 * pages; one stream per open file; a fixed window of -o readahead pages)
 * and the remote source (units are bytes in whole blocks; four streams per
 * source; a window that doubles from 16 MiB to 32 MiB, asked for in chunks
 * of half of it). The states stay separate because a decoded stream
 * of a remote tensor drives both at once, in different units.
 *
 * A read at [off, off + len) either continues a stream (gg_ahead_continues:
 * within slack of where it ended, or anywhere from its start) or starts
 * one (gg_ahead_start: nothing is read ahead yet). A stream earns
 * read-ahead once its reads asked for earn_bytes and span earn_span units;
 * then gg_ahead_advance keeps a window ahead of the reader asked for, in
 * whole chunks: the next range waits until a chunk's worth is due, so
 * requests stay big, except the last one, up to the end. */
#ifndef GGUFFS_AHEAD_H
#define GGUFFS_AHEAD_H
#include <stdint.h>

typedef struct gg_ahead_params {
    uint64_t unit;       /* ranges start on whole units (the reader fetches the one it is in) */
    uint64_t slack;      /* a read continues a stream starting at most this far past its end... */
    int from_start;      /* ...and anywhere from the stream's start (1), or at most slack before its end (0) */
    uint64_t earn_bytes; /* read-ahead after the stream's reads asked for this much (UINT64_MAX: never) */
    uint64_t earn_span;  /* and cover this much */
    uint64_t min, max;   /* the window: it doubles from min to max while the reader keeps up with it */
    uint64_t chunk_max;  /* ranges are whole chunks of min(window / chunk_div, chunk_max); 0: of one unit */
    uint64_t chunk_div;  /* 0: 4 */
} gg_ahead_params;

typedef struct gg_ahead {
    uint64_t start, next; /* the units it read: [start, next) */
    uint64_t bytes;       /* what its reads asked for */
    uint64_t window;      /* 0: no stream */
    uint64_t ahead_to;    /* below this was asked for */
} gg_ahead;

int gg_ahead_continues(const gg_ahead *s, const gg_ahead_params *p, uint64_t off);
void gg_ahead_start(gg_ahead *s, const gg_ahead_params *p, uint64_t off, uint64_t len);
/* The size of the chunks a stream's ranges are made of, now. */
uint64_t gg_ahead_chunk(const gg_ahead *s, const gg_ahead_params *p);
/* A read of a stream it continues. Returns 1 once the stream has earned
 * read-ahead (0 before); [*first, *end) is what to ask for now (often
 * empty). size: where the object ends; grow: may the window grow now (the
 * remote source: not while its blocks come from the disk cache). */
int gg_ahead_advance(gg_ahead *s, const gg_ahead_params *p, uint64_t off, uint64_t len, uint64_t size, int grow,
                     uint64_t *first, uint64_t *end);
#endif
