/* tree.h - the mount's tree: what the FUSE layer (or any other front end)
 * serves. One model's tree at the root, or a shelf of models (shelf.h),
 * each in its folder, with models.tsv and .errors beside them:
 *
 *   metadata/<key>          value as text (render.h); writable with edits (below)
 *   metadata.json           every key with its type
 *   tensors/<name>/raw      the stored bytes
 *   tensors/<name>/f32      decoded to little-endian float32
 *   tensors/<name>/f16, bf16          the same values as float16 / bfloat16
 *   tensors/<name>/f32.npy, f16.npy   .npy files of them (export.h)
 *   tensors/<name>/info.json, stats
 *   tensors.tsv, types.tsv  one line per tensor / per type present
 *   summary, summary.json   the model at a glance (summary.h)
 *   model.safetensors       every decodable tensor (export.h)
 *   model.gguf              the model as one GGUF file (export.h)
 *   as/f32.gguf, f16, bf16, q8_0   ... in other types (or as/why, if they cannot be made)
 *   blocks/<N>/<name>       links to layer N's tensors
 *   vs/<other>/             (several models) the model against each other one:
 *                           tensors.tsv, summary, summary.json,
 *                           tensors/<name>/diff, diff.npy (compare.h)
 *   .stats                  live counters of the caches (at the root)
 *
 * Nodes are named by inode numbers (gg_ino, the root is GG_ROOT), each
 * meaning one thing for the life of the tree. Calls need no lock of the
 * caller's; a shelf may change between calls (see gg_tree_set_invalidate). */
#ifndef GGUFFS_TREE_H
#define GGUFFS_TREE_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "gguffs/attr.h"
#include "gguffs/error.h"
#include "gguffs/model.h"
#include "gguffs/buf.h"
#include "gguffs/view.h"

typedef struct gg_tree gg_tree;
typedef struct gg_shelf gg_shelf;
typedef uint64_t gg_ino;
#define GG_ROOT ((gg_ino)1)

/* The models given: one at the root, several each in a folder named after
 * its file (without .gguf and a -NNNNN-of-NNNNN shard suffix; clashes get
 * ~2, ~3, ...). The tree takes the models over. Returns NULL with *e set. */
gg_tree *gg_tree_new(gg_model **models, int n_models, gg_reader *reader, const gg_tree_opts *o, gg_err *e);
/* A shelf's models (the shelf outlives the tree); single: its one model's
 * tree at the root. */
gg_tree *gg_tree_new_shelf(gg_shelf *s, int single, gg_reader *reader, const gg_tree_opts *o, gg_err *e);
void gg_tree_free(gg_tree *t);

/* Who to tell when names appear or vanish (a live shelf): the kernel's
 * caches of entries and of inodes. Called from a thread of the shelf's. */
void gg_tree_set_invalidate(gg_tree *t, void (*entry)(void *arg, gg_ino parent, const char *name),
                            void (*inode)(void *arg, gg_ino ino), void *arg);

/* Child of dir named name: 0 and *out, or -1 (GG_E_NOENT, GG_E_NOTDIR). */
int gg_tree_lookup(gg_tree *t, gg_ino dir, const char *name, gg_ino *out, gg_err *e);

/* Attributes of a node (generating a text file's content if its size needs it). */
int gg_tree_getattr(gg_tree *t, gg_ino ino, gg_attr *a, gg_err *e);

/* Entries of dir from index `from` on (0 is the first child; "." and ".."
 * are the caller's): fn(arg, name, ino, kind) for each until it returns
 * non-zero. Returns 0, or -1 (GG_E_NOTDIR, ...). */
typedef int (*gg_dirent_fn)(void *arg, const char *name, gg_ino ino, gg_kind kind);
int gg_tree_readdir(gg_tree *t, gg_ino dir, uint64_t from, gg_dirent_fn fn, void *arg, gg_err *e);

/* The parent of a node (the root's is the root). */
gg_ino gg_tree_parent(gg_tree *t, gg_ino ino);

/* Per-open-file state (read-ahead of tensor views; gg_open_file, attr.h);
 * NULL for files that need none. gg_tree_open fails with GG_E_ISDIR on a
 * folder. */
int gg_tree_open(gg_tree *t, gg_ino ino, gg_open_file **of, gg_err *e);
void gg_tree_close(gg_tree *t, gg_open_file *of);
/* Its model had changed when it was opened (its reads fail with ESTALE):
 * what the kernel cached of the file must go, not be served. */
int gg_tree_open_stale(const gg_open_file *of);

/* Bytes [off, off+size) of a file, described in ref without copying where
 * they already are in memory (cached pages, texts), else in buf (size bytes
 * the caller provides). Returns the byte count (0 at the end), or -1 with *e
 * set. Let go of ref with gg_tree_read_done() after a success. */
ssize_t gg_tree_read_ref(gg_tree *t, gg_ino ino, gg_open_file *of, char *buf, size_t size, uint64_t off,
                         gg_ref *ref, gg_err *e);
void gg_tree_read_done(gg_tree *t, gg_ref *ref);

/* The same, copied into buf. */
ssize_t gg_tree_read(gg_tree *t, gg_ino ino, gg_open_file *of, char *buf, size_t size, uint64_t off, gg_err *e);

/* A symbolic link's target into buf (cap bytes): its length, or -1. */
int gg_tree_readlink(gg_tree *t, gg_ino ino, char *buf, size_t cap, gg_err *e);

/* Extended attributes (user.gguf.*): the value into val (cap bytes),
 * returning its length; or the NUL-separated names. -1 with GG_E_NOATTR
 * or GG_E_RANGE (cap too small). */
int gg_tree_getxattr(gg_tree *t, gg_ino ino, const char *name, char *val, size_t cap, gg_err *e);
int gg_tree_listxattr(gg_tree *t, gg_ino ino, char *list, size_t cap, gg_err *e);

/* More lines for .stats (a fixed set: its size must not change), e.g. the
 * HTTP client's counters. */
void gg_tree_set_stats_hook(gg_tree *t, void (*fn)(void *arg, gg_buf *out), void *arg);

/* For statfs: bytes of all models and a count of nodes. */
void gg_tree_totals(gg_tree *t, uint64_t *bytes, uint64_t *nodes);

/* ---- writing metadata/ (gg_tree_opts.edits and edits_write) ----
 *
 * A model's metadata/ and its keys are the only writable nodes (their
 * gg_attr says writable); anything else fails with GG_E_ROFS. A key's file
 * opened for writing holds the text written (the key's text at the open,
 * or none when truncated); the text becomes the key's value (kvparse.h) at
 * a flush after a write, or at the last close after a truncation: then the
 * edits file is saved and every view of the model shows the new version,
 * while files open already keep the one they opened. A text that is no
 * value of the key's type fails (GG_E_INVAL, also logged with the key) and
 * the key keeps its value. A key made (create) holds no value until it is
 * written; user.gguf.type set on it before says its type (default str; a
 * key removed or moved away in this mount and made again: the type it
 * had). Removing a file removes its key; renaming one renames the key, and
 * onto a key that is there, its text becomes that key's value in that key's
 * type (editors that save through a temporary file and a rename). Every
 * change that makes a new version tells the kernel (gg_tree_set_invalidate)
 * to forget the names and inodes it changed, before the call returns. */
int gg_tree_open_write(gg_tree *t, gg_ino ino, int trunc, gg_open_file **of, gg_err *e);
ssize_t gg_tree_write(gg_tree *t, gg_open_file *of, const char *buf, size_t n, uint64_t off, gg_err *e);
/* A truncation through an open file (its text), or of the key itself (of NULL: at once). */
int gg_tree_truncate(gg_tree *t, gg_ino ino, gg_open_file *of, uint64_t size, gg_err *e);
/* The size a file opened for writing has (its text), or -1 for other files. */
int64_t gg_tree_written_size(const gg_open_file *of);
/* Take what was written: a flush (closing 0) or the last close (1). */
int gg_tree_flush(gg_tree *t, gg_open_file *of, int closing, gg_err *e);
/* Make key name in metadata/ dir, opened for writing: *ino and *of. */
int gg_tree_create(gg_tree *t, gg_ino dir, const char *name, gg_ino *ino, gg_open_file **of, gg_err *e);
int gg_tree_unlink(gg_tree *t, gg_ino dir, const char *name, gg_err *e);
/* noreplace: fail with GG_E_EXIST when newname is taken. */
int gg_tree_rename(gg_tree *t, gg_ino dir, const char *name, gg_ino newdir, const char *newname, int noreplace,
                   gg_err *e);
/* user.gguf.type of a key made and not written yet ("u32", "arr[str]", ...). */
int gg_tree_setxattr(gg_tree *t, gg_ino ino, const char *name, const char *val, size_t n, gg_err *e);
/* Is dir a writable folder (metadata/ with edits)? */
int gg_tree_dir_writable(gg_tree *t, gg_ino dir);

#endif
