/* tree_int.h - the mount's tree, shared by its files (internal to tree*.c):
 *
 *   tree.c       inodes over the shelf and the models' trees, the root's files
 *   tree_vs.c    the folders of vs/: the mount's other models, as comparisons
 *   tree_edit.c  writing metadata/ (-o edits=)
 *
 * Inode numbers: (slot << 32) | (index + 1), see tree.c. */
#ifndef GGUFFS_TREE_INT_H
#define GGUFFS_TREE_INT_H

#include <pthread.h>
#include <stdatomic.h>

#include "gguffs/compare.h"
#include "gguffs/shelf.h"
#include "gguffs/tree.h"
#include "modeltree.h"
#include "mversion.h"

#define SPECIAL 0xffffffu   /* the root's files */
#define VS_BASE 0x1000000u  /* and up: vs/ records (tree_vs.c), slot VS_BASE + record */

typedef struct tree_vs tree_vs;

struct gg_tree {
    gg_shelf *shelf;
    int single;           /* one model, its tree at the root (shelf id 1) */
    int own_shelf;
    gg_reader *reader;
    gg_tree_opts o;
    _Atomic uint32_t next_uid; /* cache ids of tensors, handed out per model */
    void (*stats_hook)(void *, gg_buf *);
    void *stats_arg;
    void (*inval_entry)(void *arg, gg_ino parent, const char *name);
    void (*inval_inode)(void *arg, gg_ino ino);
    void *inval_arg;
    /* Files open now. At unmount the kernel may drop RELEASE requests still in
     * flight; gg_tree_free closes what they would have closed. */
    pthread_mutex_t open_lock;
    gg_open_file *open_files;
    tree_vs *vs;              /* the records of vs/ (tree_vs.c) */
    gg_cmp_stats cmp_stats;   /* its comparisons' counters (.stats) */
};

static inline gg_ino ino_of(uint32_t slot, uint32_t index) { return (gg_ino)slot << 32 | ((gg_ino)index + 1); }
static inline uint32_t slot_of(gg_ino ino) { return (uint32_t)(ino >> 32); }
static inline uint32_t index_of(gg_ino ino) { return (uint32_t)(ino & 0xffffffffu) - 1; }

/* tree.c: model id's tree (its newest version), held (*held) until
 * tree_put(); a file opened in it, held by it until closed. */
gg_mtree *tree_model(gg_tree *t, uint32_t id, gg_mver **held, gg_err *e);
void tree_put(gg_tree *t, gg_mver *held);
void tree_track_open(gg_tree *t, gg_open_file *of, gg_mver *held, uint32_t node);
/* The model tree and node behind an inode in a model's folder, held (see tree.c). */
int tree_model_node(gg_tree *t, gg_ino ino, gg_mtree **mt, uint32_t *node, gg_mver **held, gg_err *e);
/* The inode of node of version v (not the model's root). */
static inline gg_ino tree_node_ino(const gg_mver *v, uint32_t node) { return ino_of(v->st->id, gg_mver_ix(v, node)); }
/* The inode of inode index ix of model id (0: the model's root folder). */
gg_ino tree_ix_ino(gg_tree *t, uint32_t id, uint32_t ix);
/* Tell the kernel what a new version changed (no lock held). */
void tree_tell(gg_tree *t, uint32_t id, const gg_inval *iv);

/* tree_edit.c: is node metadata/ or a key in it? A read of a file opened
 * for writing: the text written so far. */
int tree_node_writable(const gg_mtree *mt, uint32_t node);
ssize_t tree_read_written(gg_open_file *of, char *buf, size_t size, uint64_t off, gg_ref *ref);

/* tree_vs.c */
int tree_vs_new(gg_tree *t);
void tree_vs_free(gg_tree *t);
/* Inodes of its slots (slot_of(ino) >= VS_BASE): as the gg_tree_* calls. */
int tree_vs_lookup(gg_tree *t, gg_ino dir, const char *name, gg_ino *out, gg_err *e);
int tree_vs_getattr(gg_tree *t, gg_ino ino, gg_attr *a, gg_err *e);
int tree_vs_readdir(gg_tree *t, gg_ino dir, uint64_t from, gg_dirent_fn fn, void *arg, gg_err *e);
gg_ino tree_vs_parent(gg_tree *t, gg_ino ino);
int tree_vs_open(gg_tree *t, gg_ino ino, gg_open_file **of, gg_err *e);
ssize_t tree_vs_read_ref(gg_tree *t, gg_ino ino, gg_open_file *of, char *buf, size_t size, uint64_t off,
                         gg_ref *ref, gg_err *e);
int tree_vs_getxattr(gg_tree *t, gg_ino ino, const char *name, char *val, size_t cap, gg_err *e);
int tree_vs_listxattr(gg_tree *t, gg_ino ino, char *list, size_t cap, gg_err *e);
/* Model a's own vs/ (inode self, in a's tree): the mount's root without a. */
int tree_vs_root_lookup(gg_tree *t, uint32_t a, gg_ino self, const char *name, gg_ino *out, gg_err *e);
int tree_vs_root_readdir(gg_tree *t, uint32_t a, gg_ino self, uint64_t from, gg_dirent_fn fn, void *arg,
                         gg_err *e);
/* The shelf changed: name appeared in or left shelf folder dir; model id's
 * file changed. The kernel forgets what it cached of the vs/ copies. */
void tree_vs_note(gg_tree *t, uint32_t dir, const char *name);
void tree_vs_changed(gg_tree *t, uint32_t id);

#endif
