/* mversion.h - a model's versions (internal to tree/). With -o edits=,
 * every accepted change of a model's metadata makes a new version of its
 * tree: the edited header (kvedit.h) as a model of its own (sharing the
 * files and tensors) and a gg_mtree built from it. Calls use the newest
 * version; a file keeps the version it was opened in until it is closed,
 * so its reader gets the bytes of that version only, as with a file
 * replaced by a rename. A version nobody holds any longer is freed.
 *
 * Inodes across versions: each node of a version has an inode index (the
 * low half of its inode number, tree.c). A node keeps the index it had in
 * the version before (same parent, same name) unless its bytes changed:
 *   - folders, and everything under tensors/ and blocks/ (their bytes do
 *     not depend on the metadata; tensors' info.json does on the
 *     prism.hadamard.* keys: when those change, they change too), and
 *     metadata/<key> (opened with direct_io and told to the kernel when
 *     they change: the kernel's rename and unlink see them as theirs) keep it;
 *   - every other file (metadata.json, summary, model.gguf, as/..., as/hf/...)
 *     gets a new index when the header changed, and the kernel is told to
 *     forget its name: the next lookup gets the new file, while a reader
 *     holding the old inode keeps its pages, which only ever held the old
 *     bytes.
 * The first version's indices are its node numbers. */
#ifndef GGUFFS_MVERSION_H
#define GGUFFS_MVERSION_H

#include <pthread.h>
#include <stdatomic.h>

#include "gguffs/editfile.h"
#include "gguffs/shelf.h"
#include "modeltree.h"

typedef struct gg_mstate gg_mstate;

typedef struct gg_mver {
    gg_mstate *st;
    gg_mtree *mt;
    gg_model *view;   /* the edited model it shows (owned), or NULL: the model itself */
    uint32_t *ix;     /* node -> inode index; NULL: the node's own number */
    uint32_t *byix;   /* inode index -> node + 1 (open addressing; with ix) */
    uint32_t bycap;
    _Atomic int refs; /* holders: calls in progress, open files, references to its texts */
} gg_mver;

/* What the kernel must forget after a new version: names (in the folder
 * of inode index parent: 0 is the model's root folder) and inodes. */
typedef struct gg_inval {
    uint32_t *parent;
    char **name;
    size_t n, cap;
    uint32_t *inode;
    size_t ni, capi;
} gg_inval;
void gg_inval_free(gg_inval *iv);

struct gg_mstate {
    gg_entry *en;
    uint32_t id;            /* the model's shelf id */
    gg_model *m;            /* as opened */
    gg_reader *reader;      /* what its trees are made with */
    uint32_t uid;
    gg_tree_opts o;
    _Atomic uint64_t *account;
    pthread_mutex_t mu;     /* cur, old, a version's last reference */
    gg_mver *cur;
    gg_mver **old;          /* retired versions still held */
    size_t nold, capold;
    /* editing: edit_mu serializes changes (and guards what follows) */
    pthread_mutex_t edit_mu;
    uint32_t next_ix;       /* the next inode index never given */
    char *path;             /* the edits file; NULL: not edited */
    int writable;           /* metadata/ may be written (a mount; --cat only reads) */
    gg_model_ident ident;   /* worked out when first needed (editfile.h) */
    gg_edits ed;
    gg_newkey *newkeys;     /* made, not written yet */
    size_t nnew;
    gg_newkey *gone;        /* keys removed or moved away, with the type they had */
    size_t ngone;
};

/* Model m's state, its first version built with the edits of path (NULL:
 * none), checked to be m's. NULL with *e set. */
gg_mstate *gg_mstate_new(gg_model *m, uint32_t id, uint32_t uid, gg_reader *r, const gg_tree_opts *o,
                         _Atomic uint64_t *account, const char *path, int writable, gg_err *e);
void gg_mstate_free(gg_mstate *st);

/* The newest version, held until gg_mver_put. */
gg_mver *gg_mstate_hold(gg_mstate *st);
/* The newest version that has inode index ix, held (*node: its node), or NULL. */
gg_mver *gg_mstate_hold_ix(gg_mstate *st, uint32_t ix, uint32_t *node);
void gg_mver_put(gg_mver *v);
/* Another hold of a version already held. */
static inline void gg_mver_get(gg_mver *v) { atomic_fetch_add(&v->refs, 1); }

/* Node of inode index ix in v (UINT32_MAX: none), and node's inode index. */
uint32_t gg_mver_node(const gg_mver *v, uint32_t ix);
static inline uint32_t gg_mver_ix(const gg_mver *v, uint32_t node) { return v->ix ? v->ix[node] : node; }
/* The model a version shows. */
static inline gg_model *gg_mver_model(const gg_mver *v) { return v->mt->m; }

/* A new version (edit_mu held): edits st->ed applied to the model (in
 * *edited, taken, when they are already; the header has changed if
 * header_changed), with st->newkeys; a key moved from one name of
 * metadata/ to another (escaped, or NULL) keeps its inode under the new
 * name. What the kernel must forget goes to *iv. 0, or -1 with *e (the
 * version before stays). */
int gg_mstate_install(gg_mstate *st, gg_file *edited, int header_changed, const char *moved_from,
                      const char *moved_to, gg_inval *iv, gg_err *e);

#endif
