/* modeltree.h - the tree of one model (internal to the core: tree.c serves
 * it under the mount's root, or under the model's folder of a shelf):
 *
 *   metadata/<key>  metadata.json  tensors.tsv  types.tsv  summary  summary.json
 *   model.safetensors  model.gguf
 *   tensors/<name>/{raw, f32, f32.npy, f16, f16.npy, bf16, info.json, stats}
 *                   (raw and info.json only, for a tensor that cannot be decoded)
 *   blocks/<N>/<rest of name> -> ../../tensors/blk.N.<rest of name>
 *   as/<recipe>.gguf   (f32, q4_k_m, ...: -o as= listed; as/why for those it cannot take)
 *   vs/            (a mount of several models: its folders are tree_vs.c's)
 *
 * or of a comparison of the model against another one, vs/<ref>/ (its
 * `ref`; made by gg_mtree_vs and kept with the model's tree):
 *
 *   tensors.tsv  summary  summary.json  tensors/<name>/{diff, diff.npy}
 *
 * Its files and folders are the rows of files.c, in table order; the links
 * of blocks/ are the only nodes no row describes.
 * Nodes are numbered from 0 (the model's root folder); children of a folder
 * are contiguous. The shape is fixed once built; generated texts and
 * composite files are made once, on first use, so reads need no lock. */
#ifndef GGUFFS_MODELTREE_H
#define GGUFFS_MODELTREE_H

#include <pthread.h>
#include <stdatomic.h>

#include "files.h"
#include "gguffs/compare.h"
#include "gguffs/attr.h"
#include "gguffs/export.h"
#include "gguffs/kvedit.h"
#include "gguffs/view.h"

/* What a node is, for the tree's shape; what a file holds is its row in
 * the table of file kinds (files.h). */
typedef enum gg_content {
    GG_C_DIR = 0,       /* a folder of a row (metadata/, tensors/, blocks/) or blocks/<N>/ */
    GG_C_TENSOR_DIR,    /* tensors/<name>/, arg: tensor index */
    GG_C_FILE,          /* a file of row gg_files[file]; arg: tensor or KV index (its scope's) */
    GG_C_LINK,          /* blocks/<N>/<name>: arg: tensor index */
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
    uint8_t content;      /* gg_content */
    uint8_t file;         /* GG_C_FILE (and a row's folder): its row in gg_files */
    uint64_t arg;
    _Atomic(gg_text *) text;      /* generated content, once made */
    _Atomic(gg_composite *) comp; /* composite files: their segments, once made */
} gg_node;

typedef struct gg_vs_tree gg_vs_tree;

/* A key made in metadata/ (-o edits=) that holds no value yet: its name
 * (the key's bytes) and the type it will take. */
typedef struct gg_newkey {
    char *key;
    size_t len;
    gg_vdesc type;
} gg_newkey;
/* n of them, their keys and the array freed. */
void gg_newkeys_free(gg_newkey *k, size_t n);

typedef struct gg_mtree {
    gg_node *nodes;
    uint32_t n;
    size_t cap;
    gg_model *m;
    uint32_t uid_base;     /* cache id of its first tensor (view.h) */
    _Atomic int forgotten; /* its cached pages were dropped (it changed) */
    uint32_t tensors_dir;  /* node of tensors/ */
    uint32_t *hash;        /* (parent, name) -> node + 1; 0 = empty */
    uint32_t hash_cap;
    gg_reader *reader;
    gg_tree_opts o;
    /* Memory it and its model hold (nodes, texts made, composites, the
     * model's header), added to *account as it grows and taken off when it
     * is freed, so the shelf knows what opened models cost. */
    _Atomic uint64_t held;
    _Atomic uint64_t *account;
    uint64_t gen;          /* made once: no two trees share it */
    /* A comparison: the reference model (m is this model), its tensors'
     * cache ids, and the pairs and their figures (kept by the mount). */
    gg_model *ref;
    uint32_t ref_uid_base;
    gg_cmp *cmp;
    /* Keys made but not written yet (metadata/ lists them), owned. */
    gg_newkey *newkeys;
    size_t nnewkeys;
    /* A model's tree: its comparisons made so far, by the reference's id (vs_lock). */
    pthread_mutex_t vs_lock;
    gg_vs_tree *vs;
    size_t nvs;
} gg_mtree;

/* Per-open-file state: read-ahead of tensor views; the model it belongs
 * to, held open (tree.c) until the file is closed. */
struct gg_open_file {
    gg_readahead ra;
    gg_readahead ra_ref; /* a comparison's diff: the reference's stream */
    void *held;
    uint32_t node;    /* the file, in the tree of the version it opened (tree.c) */
    int stale;        /* its model had changed when it was opened */
    gg_open_file *prev, *next; /* in its tree's list of open files (tree.c) */
    /* Opened for writing (metadata/<key>, -o edits=): the key, the text
     * written so far (the whole new value, taken at flush), and whether it
     * was changed since the last time it was taken. */
    int writer;
    char *key;
    size_t key_len;
    gg_buf text;
    int dirty;        /* truncated or written since taken */
    int wrote;        /* written (not only truncated) since taken */
    int refused;      /* a write was refused: its close fails too, taking nothing */
    gg_vdesc type;    /* the key's type at the open */
};

gg_mtree *gg_mtree_new(gg_model *m, uint32_t uid_base, gg_reader *r, const gg_tree_opts *o,
                       _Atomic uint64_t *account, gg_err *e);
/* The same with keys made but not written yet (copied): metadata/ lists them too. */
gg_mtree *gg_mtree_new_keys(gg_model *m, uint32_t uid_base, gg_reader *r, const gg_tree_opts *o,
                            _Atomic uint64_t *account, const gg_newkey *keys, size_t nkeys, gg_err *e);
void gg_mtree_free(gg_mtree *t);

static inline int gg_node_is_dir(const gg_node *n) { return n->content == GG_C_DIR || n->content == GG_C_TENSOR_DIR; }

/* The row of a file node; NULL for folders and links. */
static inline const gg_file_kind *gg_node_file(const gg_node *n)
{
    return n->content == GG_C_FILE ? &gg_files[n->file] : NULL;
}

/* Files holding tensor data (big, read in streams). */
static inline int gg_node_is_data(const gg_node *n)
{
    return n->content == GG_C_FILE && (gg_files[n->file].flags & GG_FF_DATA);
}

/* metadata/<key> */
static inline int gg_node_is_kv(const gg_node *n)
{
    return n->content == GG_C_FILE && gg_files[n->file].scope == GG_FK_KV;
}

/* metadata/<key>, or one made and not written yet */
static inline int gg_node_is_key(const gg_node *n)
{
    return n->content == GG_C_FILE && (gg_files[n->file].scope == GG_FK_KV || gg_files[n->file].scope == GG_FK_NEWKEY);
}

/* The key a node of metadata/ stands for (its bytes), or NULL. */
const char *gg_mtree_key(const gg_mtree *t, uint32_t node, size_t *len);
/* The type of the key of a node of metadata/ (gg_node_is_key): a key's
 * (gg_vdesc_of), or the one a key made and not written yet will take. */
void gg_mtree_key_type(const gg_mtree *t, uint32_t node, gg_vdesc *d);

/* The builders of the table's folders (files.c): metadata/ (a file per
 * KV), tensors/ (a folder per tensor, holding the tensor rows), blocks/,
 * and a folder of the rows of the scope its row `holds` (as/). */
int gg_mtree_build_kvs(gg_mtree *t, uint32_t dir);
int gg_mtree_build_tensors(gg_mtree *t, uint32_t dir);
int gg_mtree_build_blocks(gg_mtree *t, uint32_t dir);
int gg_mtree_build_rows(gg_mtree *t, uint32_t dir);
/* as/: a file per recipe the model can take, those of -o as= listed
 * first, then the rows of its scope; the other recipes' files follow the
 * folder's children: found by name, not listed. */
int gg_mtree_build_as(gg_mtree *t, uint32_t dir);
/* A folder no row fills (vs/); a comparison's tensors/: a folder per pair. */
int gg_mtree_build_none(gg_mtree *t, uint32_t dir);
int gg_mtree_build_vs_tensors(gg_mtree *t, uint32_t dir);

/* t's comparison against ref (whose shelf id is ref_id): made on first use
 * from cmp (which must outlive it) and kept with t, made again once ref's
 * tree is another one (ref was closed and opened again). The caller holds
 * both models while it uses the result. NULL with *e set. */
gg_mtree *gg_mtree_vs(gg_mtree *t, uint32_t ref_id, gg_mtree *ref, gg_cmp *cmp, gg_err *e);

/* Is node the model's vs/ folder? */
static inline int gg_mtree_is_vs(const gg_mtree *t, uint32_t node)
{
    const gg_node *n = &t->nodes[node];
    return node && n->parent == 0 && n->content == GG_C_DIR && (gg_files[n->file].flags & GG_FF_VS);
}

/* Child of dir named name, or UINT32_MAX. */
uint32_t gg_mtree_find(const gg_mtree *t, uint32_t dir, const char *name);

/* Is the model still the file it was made of (every shard)? 0, or -1 with
 * GG_E_STALE for good: its decoded pages are dropped, and the reads of its
 * tensors' files fail from then on (every shard's alike). */
int gg_mtree_check(gg_mtree *t, gg_err *e);

int gg_mtree_getattr(gg_mtree *t, uint32_t node, gg_attr *a, gg_err *e);
int gg_mtree_open(gg_mtree *t, uint32_t node, gg_open_file **of, gg_err *e);
ssize_t gg_mtree_read_ref(gg_mtree *t, uint32_t node, gg_open_file *of, char *buf, size_t size, uint64_t off,
                          gg_ref *ref, gg_err *e);
int gg_mtree_readlink(gg_mtree *t, uint32_t node, char *buf, size_t cap, gg_err *e);

/* The tensor behind a tensor folder or file node; NULL otherwise. */
const gg_tensor *gg_mtree_tensor(const gg_mtree *t, uint32_t node);

/* tree_xattr.c */
int gg_mtree_getxattr(gg_mtree *t, uint32_t node, const char *name, char *val, size_t cap, gg_err *e);
int gg_mtree_listxattr(gg_mtree *t, uint32_t node, char *list, size_t cap, gg_err *e);

#endif
