/* attr.h - what a file of the tree is, as its stat() shows it, and the
 * options of the tree's files: shared by the whole mount's tree (tree.h)
 * and each model's tree below it (modeltree.h). */
#ifndef GGUFFS_ATTR_H
#define GGUFFS_ATTR_H

#include <stdint.h>
#include <time.h>

typedef enum gg_kind { GG_K_DIR, GG_K_FILE, GG_K_LINK } gg_kind;

typedef struct gg_attr {
    gg_kind kind;
    uint64_t size;   /* bytes a read of the whole file gives */
    uint64_t blocks; /* 512-byte blocks it takes on disk: stored bytes only */
    uint32_t nlink;
    struct timespec mtime;
    int live;        /* new content at every read (its size does not change) */
    int tensor_data; /* a view of tensor data (raw, f32, ...): big, read in streams */
    int mapped;      /* a whole file loaders memory-map (model.gguf, as/, model.safetensors, .npy) */
    int writable;    /* metadata/ and its keys with -o edits= (a mount) */
} gg_attr;

typedef struct gg_tree_opts {
    int safetensors_dtype; /* gg_view_kind of model.safetensors (export.h): F32 by default */
    const struct gg_imatrix *imatrix; /* weighs the comparisons of vs/ (imatrix.h); NULL: none */
    int vs;                /* (the tree sets it) a mount of several models: each has vs/ */
    int novs;              /* -o novs: no vs/ even then (a walk of N models visits N(N-1) of them) */
    const char *as;        /* the recipes as/ lists (-o as=, recipe.h's gg_recipe_list); NULL: the default */
    /* -o edits=: the models' edits files (editfile.h): this file for one
     * model, or in this folder, named after each model's path in the tree
     * (PATH.edits.json); NULL: none. edits_write: metadata/ is writable and
     * accepted changes are saved (a mount; --cat only reads them). */
    const char *edits;
    int edits_dir;
    int edits_write;
} gg_tree_opts;

/* Per-open-file state of the tree (tree.h's gg_tree_open). */
typedef struct gg_open_file gg_open_file;

#endif
