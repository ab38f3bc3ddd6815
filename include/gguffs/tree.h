/* tree.h - the virtual directory tree built from one or more models.
 *
 *   metadata/<key>          value as text (render.h)
 *   metadata.json           every key with its type
 *   tensors/<name>/raw      the stored bytes
 *   tensors/<name>/f32      decoded to little-endian float32
 *   tensors/<name>/info.json
 *   tensors/<name>/stats    count, min, max, mean, std, NaN/Inf/zero counts
 *   tensors.tsv             one line per tensor
 *   types.tsv               one line per type present
 *   .stats                  live counters of the decoded-page cache
 * With several models each gets a folder of its own holding this layout.
 *
 * Nodes are numbered from 0 (the root); the FUSE layer uses number + 1 as
 * the inode. Everything here is immutable after gg_tree_build() except the
 * lazily generated texts, so lookups need no lock. */
#ifndef GGUFFS_TREE_H
#define GGUFFS_TREE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "gguffs/model.h"
#include "gguffs/render.h"
#include "gguffs/view.h"

typedef enum gg_content {
    GG_C_DIR = 0,
    GG_C_TENSOR_DIR,    /* tensors/<name>/, arg: tensor index */
    GG_C_KV,            /* arg: KV index */
    GG_C_METADATA_JSON,
    GG_C_TENSORS_TSV,
    GG_C_TYPES_TSV,
    GG_C_INFO_JSON,     /* arg: tensor index */
    GG_C_RAW,           /* arg: tensor index */
    GG_C_F32,           /* arg: tensor index */
    GG_C_STATS,         /* arg: tensor index */
    GG_C_CACHE_STATS,   /* changes at every read (its size does not) */
} gg_content;

/* tensors/<name>/stats: 8 lines of "%-5s %24s\n". */
#define GG_STATS_WIDTH 24
#define GG_STATS_BYTES (8 * (5 + 1 + GG_STATS_WIDTH + 1))

typedef struct gg_text {
    size_t len;
    char data[];
} gg_text;

typedef struct gg_node {
    char *name;           /* escaped file name; "" for the root */
    uint32_t parent;
    uint32_t first_child; /* children are contiguous */
    uint32_t n_children;
    uint16_t model;       /* index into the tree's models */
    uint8_t content;      /* gg_content */
    uint64_t arg;
    _Atomic(gg_text *) text; /* generated content, once made */
} gg_node;

typedef struct gg_tree {
    gg_node *nodes;
    uint32_t n, cap;
    gg_model **models;
    char **model_dirs; /* folder names when there are several models */
    int n_models;
    uint32_t *uid_base; /* per model: cache id of its first tensor */
    uint32_t *hash;   /* (parent, name) -> node + 1; 0 = empty */
    uint32_t hash_cap;
    gg_reader *reader;        /* decoded reads (view.h) */
} gg_tree;

/* Build the tree. With one model its layout is at the root; with several,
 * each is under a folder named after its file (without .gguf and any
 * -NNNNN-of-NNNNN shard suffix; clashes get ~2, ~3, ...). Returns 0, or -1
 * with err set. */
int gg_tree_build(gg_tree *t, gg_model **models, int n_models, gg_reader *reader, char *err);
void gg_tree_free(gg_tree *t);

/* Child of dir `parent` named `name`, or UINT32_MAX. */
uint32_t gg_tree_lookup(const gg_tree *t, uint32_t parent, const char *name);

static inline int gg_node_is_dir(const gg_node *n)
{
    return n->content == GG_C_DIR || n->content == GG_C_TENSOR_DIR;
}

/* Size of a file node in bytes (generating its text if needed), or -errno. */
int64_t gg_tree_size(gg_tree *t, uint32_t node);

/* Read from a file node; returns bytes read (0 at the end) or -errno.
 * `ra` is per-open-file read-ahead state (may be NULL). */
ssize_t gg_tree_read(gg_tree *t, uint32_t node, char *buf, size_t size, uint64_t off,
                     gg_readahead *ra);

/* The cache id of the tensor behind a tensor file node: unique across the
 * models of the mount. */
uint32_t gg_tree_uid(const gg_tree *t, uint32_t node);

/* The model and tensor behind a tensor folder or file node; NULL otherwise. */
const gg_tensor *gg_tree_tensor(const gg_tree *t, uint32_t node, const gg_model **m);

/* info.json text of a tensor (also used by --dump). */
void gg_tensor_info_json(const gg_model *m, const gg_tensor *ts, gg_buf *out);

#endif
