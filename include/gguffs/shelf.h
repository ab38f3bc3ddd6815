/* shelf.h - models by name: the files named on the command line, or every
 * model under a folder or a model store (Ollama's, the Hugging Face hub
 * cache, LM Studio's folder), kept current while it changes.
 *
 * A model has a name made of path components ("org/repo/model-Q4_K_M"),
 * shown as nested folders; components are escaped like every name
 * (names.h) and made distinct per folder. Models of a folder are opened
 * lazily: on first look into one, or by the background check, which opens
 * each model's header once to find malformed files (left out, logged once,
 * listed in gg_shelf_errors) and to know the figures of models.tsv, then
 * closes it again unless it is in use. With `live`, inotify watches the
 * folder: models added, removed or replaced appear and disappear (the
 * notify hook says which names changed, for the kernel's caches); a file
 * that a process has open for writing is not shown (nor, where a read
 * lease cannot tell, one that changed in the last second), nor one that
 * cannot open (a split set missing a shard: listed in the errors); a model
 * replaced under its name stays shown until the new file is checked, then
 * the name switches to it at once. A model whose file changed in place is
 * told to the changed hook (its reads fail from then on).
 *
 * Folders are numbered from 0 (the root) and models have ids from 1; both
 * stay valid (never reused) for the life of the shelf, also once removed,
 * so a reader holding a removed model keeps reading it (the old bytes). */
#ifndef GGUFFS_SHELF_H
#define GGUFFS_SHELF_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "gguffs/error.h"
#include "gguffs/model.h"
#include "gguffs/buf.h"
#include "gguffs/store.h"

typedef struct gg_shelf gg_shelf;
typedef struct gg_entry gg_entry;

gg_shelf *gg_shelf_new(const gg_open_opts *o, gg_err *e);
/* Stops the threads, closes every model; call the tree's teardown first. */
void gg_shelf_free(gg_shelf *s);

/* A model under `name` (components separated by '/', as raw names): opened
 * (taken over by the shelf) or, with opened NULL, spec opened on first use.
 * A name already taken gets ~2, ~3, ... */
int gg_shelf_add(gg_shelf *s, const char *name, const char *spec, gg_model *opened, gg_err *e);
/* The same, with side files shown beside the model (model.h: an Ollama
 * model's template, params, ...), loaded each time it is opened (an opened
 * model has them already). */
int gg_shelf_add_sides(gg_shelf *s, const char *name, const char *spec, gg_model *opened, const gg_side_spec *sides,
                       int nsides, gg_err *e);

/* Every model under dir. kind AUTO recognises an Ollama store (manifests/
 * and blobs/) and a Hugging Face cache (models--ORG--NAME/); otherwise the
 * folder is plain: every *.gguf file, named by its path without .gguf (a
 * split set once, by its name without the -NNNNN-of-NNNNN part). With as,
 * they go in a folder of the root named as (~2 if taken), shown also while
 * empty; else at the root. *found (if not NULL): what the folder holds
 * (models, and faults listed in the errors). */
int gg_shelf_add_dir(gg_shelf *s, const char *dir, gg_store kind, const char *as, size_t *found, gg_err *e);

/* Models given by gg_shelf_add that a folder also shows (the same file) go:
 * each is shown once, in its folder. Call once every model is added. */
void gg_shelf_drop_repeats(gg_shelf *s);

/* The mount's own device (call before gg_shelf_start): a mount point
 * inside a folder it shows is neither scanned nor watched, else every
 * rescan would walk (and open) every model of the mount itself. */
void gg_shelf_skip_dev(gg_shelf *s, dev_t dev);

/* Start the background work: the check of unopened models (if check), and
 * watching the folders given to gg_shelf_add_dir (if live). Threads start
 * here, so call it after the daemon forked. */
void gg_shelf_start(gg_shelf *s, int check, int live);

/* ---- what the tree asks ---- */

typedef enum gg_snode { GG_SN_NONE, GG_SN_DIR, GG_SN_MODEL } gg_snode;

/* The root's own files, in this order (the tree serves them; a model or a
 * folder at the root never takes one of these names). */
enum { GG_ROOT_MODELS_TSV, GG_ROOT_ERRORS, GG_ROOT_STATS, GG_N_ROOT_FILES };
extern const char *const gg_shelf_root_files[GG_N_ROOT_FILES];

/* Child `name` of folder `dir`: its kind, and *node. GG_SN_NONE if none. */
gg_snode gg_shelf_lookup(gg_shelf *s, uint32_t dir, const char *name, uint32_t *node);
/* Kind of a node now (GG_SN_NONE once removed). */
gg_snode gg_shelf_kind(gg_shelf *s, uint32_t node);
uint32_t gg_shelf_parent(gg_shelf *s, uint32_t node);
/* Children of dir from index `from`, in name order, until fn returns
 * non-zero. Returns -1 if dir is not a live folder. */
int gg_shelf_readdir(gg_shelf *s, uint32_t dir, uint64_t from,
                     int (*fn)(void *arg, const char *name, uint32_t node, gg_snode kind), void *arg);
/* Folders below dir (for nlink), and the newest time of what they hold. */
void gg_shelf_dir_info(gg_shelf *s, uint32_t dir, uint32_t *subdirs, struct timespec *mtime);

/* The model of a model node, and by id. */
gg_entry *gg_shelf_entry_at(gg_shelf *s, uint32_t node);
gg_entry *gg_shelf_entry(gg_shelf *s, uint32_t id);
uint32_t gg_entry_id(const gg_entry *en);
/* Its folder node (the last one it had, once removed). */
uint32_t gg_entry_node(gg_shelf *s, const gg_entry *en);
/* Its path in the tree ("org/repo/model-Q4_K_M", names as shown), malloc'd;
 * NULL when out of memory. */
char *gg_entry_path(gg_shelf *s, const gg_entry *en);
struct timespec gg_entry_mtime(const gg_entry *en);

/* What the tree keeps for a model (its subtree), made by make() from the
 * opened model on first use, under the entry's lock. Returns it, or NULL
 * with *e set (a model that fails to open is moved to the errors). The
 * caller uses it until gg_entry_put(), and no longer: */
void *gg_entry_tree(gg_shelf *s, gg_entry *en, void *(*make)(void *arg, gg_entry *en, gg_model *m, gg_err *e),
                    void *arg, void (*unmake)(void *tree), gg_err *e);
/* The same, only if the tree is made already (NULL otherwise). */
void *gg_entry_tree_if_open(gg_shelf *s, gg_entry *en);
void gg_entry_put(gg_shelf *s, gg_entry *en);
/* One more use of an entry in use already (until another gg_entry_put). */
void gg_entry_hold(gg_entry *en);
/* A word of the tree's, kept with the entry across closes (make() may use
 * it: it runs under the entry's lock). */
uint64_t *gg_entry_tag(gg_entry *en);

/* Opened models are kept within a memory budget: the trees add what they
 * hold to *gg_shelf_account(), and once it passes `bytes` (0: no bound) the
 * least recently used models of folders that nobody is using are closed,
 * to be opened again (the same file, or GG_E_STALE) when next looked at. */
void gg_shelf_set_budget(gg_shelf *s, uint64_t bytes);
_Atomic uint64_t *gg_shelf_account(gg_shelf *s);
/* Models open now, the bytes they hold, models closed while idle so far. */
void gg_shelf_open_stats(gg_shelf *s, uint64_t *models, uint64_t *bytes, uint64_t *closed);

/* The hook that hears of names added to or removed from folder dir, and of
 * models.tsv / .errors changing (dir UINT32_MAX). */
void gg_shelf_set_notify(gg_shelf *s, void (*fn)(void *arg, uint32_t dir, const char *name), void *arg);

/* The hook that hears that model id's file changed, or may have: seen by a
 * read (gg_shelf_model_changed), by a rescan of its folder, or by the look
 * at named files every 2 s. Called from the shelf's thread with no lock
 * held, never from the caller of gg_shelf_model_changed (a FUSE request:
 * the kernel's caches must not be told from one). */
void gg_shelf_set_changed(gg_shelf *s, void (*fn)(void *arg, uint32_t id), void *arg);
/* Model id was found changed (ESTALE): tell the hook, once. */
void gg_shelf_model_changed(gg_shelf *s, uint32_t id);

/* models.tsv and .errors; their text changes only when the shelf does. */
void gg_shelf_models_tsv(gg_shelf *s, gg_buf *out);
void gg_shelf_errors(gg_shelf *s, gg_buf *out);

/* Bytes of all visible models (statfs), and the number of models. */
void gg_shelf_totals(gg_shelf *s, uint64_t *bytes, uint64_t *models);

#endif
