/* tree_internal.h - the tree's nodes, shared by tree.c and tree_xattr.c
 * (and by tests that walk every node). Everything here is immutable after
 * gg_tree_new() except the lazily generated texts. */
#ifndef GGUFFS_TREE_INTERNAL_H
#define GGUFFS_TREE_INTERNAL_H

#include <stdatomic.h>

#include "gguffs/export.h"
#include "gguffs/tree.h"

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
    GG_C_F16,           /* arg: tensor index */
    GG_C_BF16,          /* arg: tensor index */
    GG_C_F32_NPY,       /* arg: tensor index (a composite file) */
    GG_C_F16_NPY,       /* arg: tensor index (a composite file) */
    GG_C_SAFETENSORS,   /* the model as safetensors (a composite file) */
    GG_C_CACHE_STATS,   /* changes at every read (its size does not) */
} gg_content;

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
    _Atomic(gg_composite *) comp; /* composite files: their segments, once made */
} gg_node;

struct gg_tree {
    gg_node *nodes;       /* node i has inode i + 1 */
    uint32_t n, cap;
    gg_model **models;
    char **model_dirs;    /* folder names when there are several models */
    int n_models;
    uint32_t *uid_base;   /* per model: cache id of its first tensor */
    _Atomic int *forgotten; /* per model: its cached pages were dropped (it changed) */
    uint32_t *hash;       /* (parent, name) -> node + 1; 0 = empty */
    uint32_t hash_cap;
    gg_reader *reader;    /* decoded reads (view.h) */
    gg_tree_opts o;
    void (*stats_hook)(void *, gg_buf *); /* more .stats lines */
    void *stats_arg;
};

/* Files holding tensor data (big, read in streams). */
static inline int gg_node_is_data(const gg_node *n)
{
    return n->content == GG_C_RAW || n->content == GG_C_F32 || n->content == GG_C_F16 || n->content == GG_C_BF16 ||
           n->content == GG_C_F32_NPY || n->content == GG_C_F16_NPY || n->content == GG_C_SAFETENSORS;
}

static inline int gg_node_is_dir(const gg_node *n)
{
    return n->content == GG_C_DIR || n->content == GG_C_TENSOR_DIR;
}

/* The node of an inode, or NULL if there is none. */
static inline gg_node *gg_tree_node(gg_tree *t, gg_ino ino)
{
    return ino >= 1 && ino <= t->n ? &t->nodes[ino - 1] : NULL;
}

/* The model and tensor behind a tensor folder or file node; NULL otherwise. */
const gg_tensor *gg_node_tensor(const gg_tree *t, const gg_node *n, const gg_model **m);

#endif
