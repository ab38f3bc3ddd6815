/* files.h - the kinds of file in a model's tree, one row each (files.c).
 * layer: tree/ (internal to it)
 *
 * A row says where a file lies (a model's root, every tensors/<name>/, each
 * metadata/<key>, as/, a comparison's vs/<ref>/ and its tensors/<name>/),
 * its name, and how it is made:
 *   DIR        a folder whose children `build` adds (metadata/, tensors/, blocks/,
 *              as/: a file per recipe and the rows of its scope, as/hf/: the
 *              rows of a scope of its own, gg_mtree_build_rows; vs/: none, its
 *              folders are the mount's other models, tree_vs.c)
 *   VIEW       a tensor read as `view` (view.h): its size and bytes come from the view layer
 *   TEXT       text made whole on first use by `text`, or `render` for a text of
 *              the model alone, a text/ function bound as it is (at most `bound` bytes; a
 *              `fixed_size`, or what `sized` says, is its size before it is made)
 *   COMPOSITE  segments laid end to end (export.h), listed by `segments`: bytes
 *              made in memory (a header) and ranges of tensor views read on demand
 * A new file under tensors/<name>/, in as/ or at a model's root is one row
 * here plus its reader: a text function, a segment list, or nothing for a
 * view; a new folder of files is a DIR row and a scope for its files. Rows
 * are listed in table order within their scope, so inode numbers and listings
 * follow the table. */
#ifndef GGUFFS_FILES_H
#define GGUFFS_FILES_H

#include <stddef.h>
#include <stdint.h>

#include "gguffs/error.h"
#include "gguffs/export.h"
#include "gguffs/model.h"
#include "gguffs/render.h"
#include "gguffs/view.h"

typedef struct gg_mtree gg_mtree;

/* Generated texts are made whole in memory. A hostile header can make them
 * many times its own size (a 1 GiB array of bools is 6 GiB of text): none
 * is made past this size (EFBIG). A row's `bound` is a quick estimate: a
 * text under it surely fits; the texts a header alone makes (metadata.json,
 * metadata/<key>, the tokenizer files) are made once when their folder is
 * built when their estimate is over, and listed only if they fit. */
#define GG_MAX_TEXT (256ull << 20)

typedef enum gg_fshape { GG_FS_DIR, GG_FS_VIEW, GG_FS_TEXT, GG_FS_COMPOSITE } gg_fshape;
typedef enum gg_fscope {
    GG_FK_MODEL,     /* at a model's root (arg 0) */
    GG_FK_TENSOR,    /* in every tensors/<name>/ (arg: the tensor's index) */
    GG_FK_KV,        /* metadata/<key>, named by its key (arg: the KV's index) */
    GG_FK_NEWKEY,    /* metadata/<key> made (-o edits=) but not written yet (arg: its index in the tree's) */
    GG_FK_SIDE,      /* a model's side files at its root, named by theirs (arg: the side's index) */
    GG_FK_AS,        /* in as/, beside the recipes' files (arg 0) */
    GG_FK_RECIPE,    /* as/<recipe>.gguf, named by its recipe (arg: the recipe's index, recipe.h) */
    GG_FK_HF,        /* in as/hf/, the model as a Hugging Face folder (arg 0) */
    GG_FK_VS,        /* at the root of a comparison, vs/<ref>/ (arg 0) */
    GG_FK_VS_TENSOR, /* in vs/<ref>/tensors/<name>/ (arg: this model's tensor index) */
} gg_fscope;
enum {
    GG_FF_DATA = 1,   /* tensor data: big, read in streams (gg_attr.tensor_data; read-ahead) */
    GG_FF_STORED = 2, /* the stored bytes: counted in st_blocks (du shows the model, not views) */
    GG_FF_CHECK = 4,  /* made from tensor data: the source must be unchanged before it is served */
    GG_FF_VS = 8,     /* vs/: only in a mount of several models, its folders served by tree_vs.c */
};

typedef struct gg_file_kind gg_file_kind;
struct gg_file_kind {
    const char *name; /* NULL for metadata/<key> */
    uint8_t scope, shape, flags;
    gg_view_kind view;   /* VIEW: which view; COMPOSITE: the view of its tensor segments */
    uint64_t fixed_size; /* TEXT: its size, known before it is made; 0: the text's length */
    int (*text)(gg_mtree *t, uint64_t arg, gg_buf *out, gg_err *e);                         /* TEXT */
    void (*render)(const gg_model *m, gg_buf *out); /* TEXT, instead of `text`: a text of the model alone */
    uint64_t (*bound)(const gg_mtree *t, uint64_t arg); /* TEXT: bytes at most, an estimate (NULL: 4096) */
    int (*sized)(gg_mtree *t, uint64_t arg, uint64_t *size, gg_err *e); /* TEXT: its size, before it is made */
    gg_composite *(*segments)(const gg_mtree *t, const gg_file_kind *k, uint64_t arg, gg_err *e); /* COMPOSITE */
    int (*build)(gg_mtree *t, uint32_t dir);                                                /* DIR */
    uint8_t holds; /* DIR built by gg_mtree_build_rows: the scope of its rows */
    int (*present)(const gg_model *m, uint64_t arg); /* NULL: always there */
};

extern const gg_file_kind gg_files[];
extern const size_t gg_n_files;

/* Does the file of row k exist for arg (a tensor that cannot be decoded has
 * only raw and info.json)? */
static inline int gg_file_present(const gg_file_kind *k, const gg_model *m, uint64_t arg)
{
    return !k->present || k->present(m, arg);
}

/* The number of rows of a scope (tensor folders: the files each may hold),
 * and of its folders (a model folder's link count, before it is opened). */
size_t gg_files_in_scope(gg_fscope scope);
size_t gg_files_dirs_in_scope(gg_fscope scope);

#endif
