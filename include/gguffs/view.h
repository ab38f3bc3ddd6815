/* view.h - reading a tensor's raw or decoded bytes at any offset.
 *
 * f32 reads map the byte range to pages of decoded floats (aligned to whole
 * blocks, or whole row groups for interleaved types), take them from the
 * cache or decode them, and hand them out without copying where the caller
 * can send straight from the cache (gg_read_view). A read that misses
 * several pages decodes them in parallel (OpenMP); pages another thread is
 * decoding are waited for only after the reader's own are done.
 * Small reads that miss the cache decode only the blocks they touch.
 * Sequential readers get the next pages decoded in the background by a pool
 * of worker threads (started on first use, so after the daemon forked), and
 * the pages they have gone past are evicted first (see cache.h).
 * F32 tensors need no decoding: their f32 file is read like raw.
 * Bytes come from the tensor's source (source.h): a file cut short gives
 * GG_E_IO, a file or object changed since it was opened GG_E_STALE for every
 * later read of it, cached pages included; its decoded pages are dropped. */
#ifndef GGUFFS_VIEW_H
#define GGUFFS_VIEW_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "gguffs/cache.h"
#include "gguffs/error.h"
#include "gguffs/model.h"
#include "gguffs/buf.h"

typedef struct gg_reader gg_reader;

/* The views of a tensor: its values as float32, float16 or bfloat16
 * (halfconv.h), or quantized to a type of ggml's (quantize.h; rows a
 * multiple of its block), or its stored bytes. 0 is F32, the default of -o
 * safetensors_dtype (gg_tree_opts), whose choices are the first three. A
 * quantized view is GG_VIEW_QUANT plus the type's identity (gg_view_of). */
typedef enum gg_view_kind { GG_VIEW_F32 = 0, GG_VIEW_F16, GG_VIEW_BF16, GG_VIEW_RAW, GG_VIEW_QUANT = 8 } gg_view_kind;

/* The view holding a tensor's values in type t (F32, F16, BF16 or a
 * quantized type), and the quantized type of a view (GG_T_NONE: none). */
static inline gg_view_kind gg_view_of(gg_tid t)
{
    return t == GG_T_F32 ? GG_VIEW_F32 : t == GG_T_F16 ? GG_VIEW_F16 : t == GG_T_BF16 ? GG_VIEW_BF16
                                                                                       : (gg_view_kind)(GG_VIEW_QUANT + t);
}
static inline gg_tid gg_view_qtype(gg_view_kind k) { return k > GG_VIEW_QUANT ? (gg_tid)(k - GG_VIEW_QUANT) : GG_T_NONE; }

/* Bytes per element of a decoded view (F32, F16, BF16). */
static inline uint64_t gg_view_esize(gg_view_kind k) { return k == GG_VIEW_F32 ? 4 : 2; }

/* Bytes of a tensor's view: its stored bytes for RAW, whole blocks of its
 * type for a quantized view (0 when mainline ggml has no such type), else
 * elements x esize. */
static inline uint64_t gg_view_size(const gg_tensor *t, gg_view_kind k)
{
    if (gg_view_qtype(k)) {
        const gg_type *q = gg_type_mainline(gg_view_qtype(k));
        return q ? t->info->nelems / q->block_elems * q->block_bytes : 0;
    }
    return k == GG_VIEW_RAW ? t->nbytes : t->info->nelems * gg_view_esize(k);
}

typedef struct gg_reader_opts {
    uint64_t cache_bytes; /* decoded-page budget */
    uint64_t page_bytes;  /* target page size (rounded to whole blocks / row groups) */
    int threads;          /* decode threads for big reads and read-ahead; 0 = cores */
    int readahead_pages;  /* pages decoded ahead of a sequential reader; 0 = off */
} gg_reader_opts;

/* Per-open-file state for read-ahead (several FUSE threads may read one
 * open file at once, hence the lock). */
typedef struct gg_readahead {
    pthread_mutex_t lock;
    uint64_t first_page; /* where the current sequential stream started */
    uint64_t next_page;  /* page after the furthest one read */
    uint64_t ahead_to;   /* pages below this were already queued */
    int started;         /* a read happened */
} gg_readahead;

void gg_readahead_init(gg_readahead *ra);
void gg_readahead_destroy(gg_readahead *ra);

void gg_reader_default_opts(gg_reader_opts *o);
gg_reader *gg_reader_new(const gg_reader_opts *o);
void gg_reader_free(gg_reader *r);
/* The decode threads (-o threads; the cores by default). */
int gg_reader_threads(const gg_reader *r);
/* Drop m's queued read-ahead and wait for its running jobs: before m is closed. */
void gg_reader_cancel(gg_reader *r, const gg_model *m);

/* Bytes described without copying: on success iov[0..niov) hold the bytes,
 * in cached pages (pinned until gg_ref_release) or in the caller's buffer. */
#define GG_REF_INLINE 8
typedef struct gg_ref {
    struct iovec *iov;
    int niov;
    gg_page **pages;
    int npages;
    int cap_iov, cap_pages; /* room in iov and pages */
    const void *stream; /* release the pages as used once by this stream */
    void *held;         /* what the owner keeps alive until it is let go (tree.c) */
    struct iovec iov_local[GG_REF_INLINE];
    gg_page *pages_local[GG_REF_INLINE];
} gg_ref;

void gg_ref_init(gg_ref *ref);
void gg_ref_release(gg_reader *r, gg_ref *ref);
/* Copy the bytes into buf, in order (parts already in buf stay put). */
void gg_ref_gather(const gg_ref *ref, char *buf);
/* Bytes after those of dst: n at p (memory that outlives dst), or src's
 * bytes and pages (src is left empty; dst takes its stream if it has none).
 * Returns 0, or -1 with *e set (out of memory; dst keeps what it had, src
 * too). */
int gg_ref_add(gg_ref *dst, const void *p, size_t n, gg_err *e);
int gg_ref_append(gg_ref *dst, gg_ref *src, gg_err *e);

/* Bytes [off, off+size) of a view of the tensor, described in ref (buf, of
 * size bytes, is used where the bytes are not in the cache: f32 and
 * quantized pages are handed out as they are, raw, f16 and bf16 bytes are
 * put in buf). `uid` identifies the tensor in the cache (unique per mounted
 * tensor), ra is per-open-file read-ahead state (may be NULL). Returns the
 * byte count (0 at the end), or -1 with *e set (GG_E_UNSUPPORTED for a
 * decoded view of a tensor that cannot be decoded, logged once per tensor);
 * on error there is nothing to release. f16 and bf16 are made from the f32
 * pages; a quantized view has pages of its own in the same cache, of whole
 * blocks quantized from the tensor's float32 values (GG_E_INVAL for rows
 * that are not a multiple of its block, GG_E_UNSUPPORTED for a type no
 * quantizer makes). */
ssize_t gg_read_view(gg_reader *r, const gg_model *m, const gg_tensor *t, uint32_t uid, gg_view_kind k, char *buf,
                     size_t size, uint64_t off, gg_readahead *ra, gg_ref *ref, gg_err *e);

/* The same, copied into buf. */
ssize_t gg_read_view_copy(gg_reader *r, const gg_model *m, const gg_tensor *t, uint32_t uid, gg_view_kind k,
                          char *buf, size_t size, uint64_t off, gg_readahead *ra, gg_err *e);

/* Decode elements [e0, e1) of a tensor into dst, bypassing the cache (used by
 * --verify and stats). Returns 0, or -1 with *e set. */
int gg_decode_elems(gg_reader *r, const gg_model *m, const gg_tensor *t, uint64_t e0, uint64_t e1,
                    float *dst, gg_err *e);

/* Drop the cached pages of tensors uid_lo <= uid < uid_hi (their model changed). */
void gg_reader_forget(gg_reader *r, uint32_t uid_lo, uint32_t uid_hi);

/* The .stats text: one "key value" per line, in fixed widths: its size
 * (gg_reader_stats_size) never changes. */
void gg_reader_stats_text(gg_reader *r, gg_buf *out);
size_t gg_reader_stats_size(gg_reader *r);

#endif
