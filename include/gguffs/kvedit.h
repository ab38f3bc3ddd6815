/* kvedit.h - a model's metadata with edits applied: keys set (a new value,
 * or a new key) and keys removed, without touching the file.
 *
 * The edits are a small list beside the parsed header. Applying them makes
 * a new header, GGUF version 3, holding the keys only (no tensor infos):
 *   - every key of the original in its order, a set key's value replaced
 *     where it stands, a removed key left out;
 *   - then the keys that are new, in the order they were first set.
 * That header is parsed again (gguf.h), so the result is checked as any
 * file is, and it is what every view of the edited model reads its keys
 * from (gg_kvedit_view). The tensors stay the original's.
 *
 * A value is held as GGUF encodes it after the type field (version 3: u64
 * lengths and counts): a string is its length and bytes, a scalar its
 * little-endian bytes, an array its element type, count and elements. Its
 * type is a gg_vdesc: the type, and for an array the element type (and for
 * an array of arrays, theirs), written "u32", "str", "arr[i32]",
 * "arr[arr[f32]]". Nothing here knows text: kvparse.h turns text into such
 * bytes. */
#ifndef GGUFFS_KVEDIT_H
#define GGUFFS_KVEDIT_H

#include <stddef.h>
#include <stdint.h>

#include "gguffs/error.h"
#include "gguffs/gguf.h"
#include "gguffs/model.h"

/* A value's type: t[0] the type; while t[i] is GG_VT_ARR, t[i+1] is its
 * elements' (GG_VT_COUNT: not known, an array of arrays that is empty). */
typedef struct gg_vdesc {
    uint32_t t[GG_MAX_NESTING + 2];
} gg_vdesc;

/* "u32", "arr[str]", "arr[arr[i8]]" (as gg_vdesc_name writes them) into
 * *d: 0, or -1 for a name that is not one. */
int gg_vdesc_parse(const char *s, gg_vdesc *d);
/* Its name into out (cap bytes, at least 64). */
void gg_vdesc_name(const gg_vdesc *d, char *out, size_t cap);
/* The type of a key of f; an array of arrays takes its first element's. */
void gg_vdesc_of(const gg_file *f, const gg_kv *kv, gg_vdesc *d);

typedef struct gg_edit {
    char *key;        /* its bytes (a key may hold any byte), NUL after them */
    size_t key_len;
    int removed;      /* a key of the original left out */
    uint32_t type;    /* else: its value's type (gg_vtype) ... */
    uint8_t *val;     /* ... and encoded value */
    uint64_t val_len;
} gg_edit;

/* The edits, in the order keys were first touched. */
typedef struct gg_edits {
    gg_edit *e;
    size_t n, cap;
} gg_edits;

void gg_edits_free(gg_edits *ed);
/* A copy of src into *dst: 0, or -1 out of memory. */
int gg_edits_copy(gg_edits *dst, const gg_edits *src);

/* Set key (of original f) to a value of `type` (its encoded bytes): the
 * entry of the key is replaced (a removed key comes back). 0, or -1 out of
 * memory. */
int gg_edits_set(gg_edits *ed, const char *key, size_t key_len, uint32_t type, const void *val, uint64_t val_len);
/* Remove key: a key of f is marked removed; a new one is forgotten.
 * 0, or -1 out of memory. */
int gg_edits_remove(gg_edits *ed, const gg_file *f, const char *key, size_t key_len);

/* The header of f with ed applied, parsed into *out (see above; path for
 * its messages). 0, or -1 with *e set: GG_E_INVAL naming the key and why
 * for edits that break a rule of keys a model's reader depends on
 * (general.alignment a u32 power of two), checked first. Free *out with
 * gg_file_free(). */
int gg_edits_apply(const gg_file *f, const gg_edits *ed, const char *path, gg_file *out, gg_err *e);

/* A view of model m whose metadata is f (taken over): it shares m's files
 * and tensors, so m must outlive it. NULL when out of memory (f is freed). */
gg_model *gg_kvedit_view(const gg_model *m, gg_file *f);
void gg_kvedit_view_free(gg_model *v);
/* Is m such a view (its keys are not its first file's)? */
static inline int gg_model_is_edited(const gg_model *m) { return m->f != &m->shards[0].f; }

#endif
