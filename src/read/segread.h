/* segread.h - the bytes of one segment of a composite file that are not in
 * the composite itself (export.h): a run of a view or of a file, rows of a
 * view taken a stride apart, a view's values less one. */
#ifndef GGUFFS_SEGREAD_H
#define GGUFFS_SEGREAD_H

#include "gguffs/export.h"

/* Bytes [in, in+n) of segment s (a view or a file) added to ref as
 * gg_composite_read adds them: one run where read puts it (the cached pages,
 * or buf), rows and values less one made in buf (n bytes). Returns 0, or -1
 * with *e set (what it added to ref is let go with ref). */
int gg_segment_read(const gg_segment *s, gg_reader *r, gg_seg_read_fn read, void *arg, char *buf, size_t n,
                    uint64_t in, gg_ref *ref, gg_err *e);

#endif
