/* tree.c - the mount's tree (tree.h): the shelf's folders (shelf.h) with a
 * model's tree (modeltree.h) under each model folder, or one model's tree
 * at the root; and the root's own files: models.tsv, .errors, .stats.
 *
 * Inode numbers: (slot << 32) | (index + 1). Slot 0 is the shelf's folders
 * (index = folder node; the root is node 0, inode 1); slot N >= 1 the nodes
 * of the model whose shelf id is N (index = node of its tree; a model's
 * root folder is the shelf's node, or the mount's root for one model);
 * slot SPECIAL the root's files; slots from VS_BASE the folders of vs/
 * (tree_vs.c). Shelf nodes and ids are never reused, so an inode always
 * means the same thing. */
#include "gguffs/tree.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/shelf.h"
#include "modeltree.h"
#include "tree_int.h"

enum { F_MODELS_TSV = GG_ROOT_MODELS_TSV, F_ERRORS = GG_ROOT_ERRORS, F_STATS = GG_ROOT_STATS, F_COUNT = GG_N_ROOT_FILES };
#define special_names gg_shelf_root_files

/* ---- model trees, made on first use ---- */

/* Where model en's edits are kept (editfile.h): the file of -o edits=, or
 * its folder's PATH.edits.json. 0 (*path malloc'd, NULL: no edits), or -1. */
static int edits_path(gg_tree *t, gg_entry *en, char **path, gg_err *e)
{
    *path = NULL;
    if (!t->o.edits)
        return 0;
    if (!t->o.edits_dir) {
        *path = strdup(t->o.edits);
    } else {
        char *name = gg_entry_path(t->shelf, en);
        *path = name ? gg_xprintf("%s/%s.edits.json", t->o.edits, name) : NULL;
        free(name);
    }
    return *path ? 0 : gg_fail(e, GG_E_NOMEM, "out of memory");
}

/* A model's state (mversion.h): its versions, and its edits. */
static void *make_mstate(void *arg, gg_entry *en, gg_model *m, gg_err *e)
{
    gg_tree *t = arg;
    /* A model closed while idle and opened again (the same file) keeps its
     * cache ids, so its decoded pages still count. */
    uint64_t *tag = gg_entry_tag(en);
    if (!*tag)
        *tag = atomic_fetch_add(&t->next_uid, (uint32_t)m->nt + 1);
    char *path;
    if (edits_path(t, en, &path, e))
        return NULL;
    gg_mstate *st = gg_mstate_new(m, gg_entry_id(en), (uint32_t)*tag, t->reader, &t->o, gg_shelf_account(t->shelf),
                                  path, t->o.edits_write, e);
    free(path);
    if (st)
        st->en = en;
    return st;
}

static void unmake_mstate(void *st) { gg_mstate_free(st); }

/* Model id's state, its entry in use until gg_entry_put. */
static gg_mstate *state_of(gg_tree *t, uint32_t id, gg_err *e)
{
    gg_entry *en = gg_shelf_entry(t->shelf, id);
    if (!en) {
        gg_fail(e, GG_E_NOENT, "no model %" PRIu32, id);
        return NULL;
    }
    return gg_entry_tree(t->shelf, en, make_mstate, t, unmake_mstate, e);
}

/* Model id's tree, its newest version held (*held) until done_with(). */
static gg_mtree *mtree_of(gg_tree *t, uint32_t id, gg_mver **held, gg_err *e)
{
    gg_mstate *st = state_of(t, id, e);
    *held = st ? gg_mstate_hold(st) : NULL;
    return st ? (*held)->mt : NULL;
}

static void done_with(gg_tree *t, gg_mver *held)
{
    if (!held)
        return;
    gg_entry *en = held->st->en;
    gg_mver_put(held);
    gg_entry_put(t->shelf, en);
}

gg_mtree *tree_model(gg_tree *t, uint32_t id, gg_mver **held, gg_err *e) { return mtree_of(t, id, held, e); }
void tree_put(gg_tree *t, gg_mver *held) { done_with(t, held); }

gg_ino tree_ix_ino(gg_tree *t, uint32_t id, uint32_t ix)
{
    if (ix)
        return ino_of(id, ix);
    if (t->single)
        return GG_ROOT;
    gg_entry *en = gg_shelf_entry(t->shelf, id);
    return en ? ino_of(0, gg_entry_node(t->shelf, en)) : GG_ROOT; /* the model's folder */
}

/* The model tree and node behind an inode that is a model's folder or
 * below it; 0 (with *mt, held in *held until done_with()) or -1 when the
 * inode is a shelf folder or a root file (with *mt NULL) or unknown (*e
 * set). An inode of an older version (a file still open, a name the kernel
 * kept) is that version's node. */
static int model_node(gg_tree *t, gg_ino ino, gg_mtree **mt, uint32_t *node, gg_mver **held, gg_err *e)
{
    uint32_t slot = slot_of(ino), idx = index_of(ino);
    *mt = NULL;
    *held = NULL;
    if (slot == 0) {
        if (t->single && idx == 0) {
            *node = 0;
            *mt = mtree_of(t, 1, held, e);
            return *mt ? 0 : -1;
        }
        if (!t->single && gg_shelf_kind(t->shelf, idx) == GG_SN_MODEL) {
            gg_entry *en = gg_shelf_entry_at(t->shelf, idx);
            *node = 0;
            *mt = en ? mtree_of(t, gg_entry_id(en), held, e) : NULL;
            return *mt ? 0 : -1;
        }
        return -1;
    }
    if (slot == SPECIAL)
        return -1;
    gg_mstate *st = state_of(t, slot, e);
    if (!st)
        return -1;
    *held = gg_mstate_hold_ix(st, idx, node);
    if (!*held) {
        gg_entry_put(t->shelf, st->en);
        return gg_fail(e, GG_E_NOENT, "no inode %" PRIu64, ino);
    }
    *mt = (*held)->mt;
    return 0;
}

int tree_model_node(gg_tree *t, gg_ino ino, gg_mtree **mt, uint32_t *node, gg_mver **held, gg_err *e)
{
    return model_node(t, ino, mt, node, held, e);
}

void tree_tell(gg_tree *t, uint32_t id, const gg_inval *iv)
{
    for (size_t i = 0; t->inval_entry && i < iv->n; i++)
        t->inval_entry(t->inval_arg, tree_ix_ino(t, id, iv->parent[i]), iv->name[i]);
    for (size_t i = 0; t->inval_inode && i < iv->ni; i++)
        t->inval_inode(t->inval_arg, tree_ix_ino(t, id, iv->inode[i]));
}

/* ---- building ---- */

static void shelf_note(void *arg, uint32_t dir, const char *name)
{
    gg_tree *t = arg;
    if (dir == UINT32_MAX) {
        /* models.tsv and .errors changed */
        if (t->inval_inode) {
            t->inval_inode(t->inval_arg, ino_of(SPECIAL, F_MODELS_TSV));
            t->inval_inode(t->inval_arg, ino_of(SPECIAL, F_ERRORS));
        }
        return;
    }
    if (t->inval_entry)
        t->inval_entry(t->inval_arg, ino_of(0, dir), name);
    if (t->inval_inode)
        t->inval_inode(t->inval_arg, ino_of(0, dir));
    tree_vs_note(t, dir, name);
}

/* Model id's file changed, or may have (on the shelf's thread): if it did,
 * the kernel drops every page and attribute it cached of the model's files,
 * so that all of them fail alike from now on (files held open, mappings:
 * their next reads reach gguffs and give ESTALE; files opened again drop
 * their pages at the open, see gg_tree_open_stale). */
static void model_changed(void *arg, uint32_t id)
{
    gg_tree *t = arg;
    gg_entry *en = gg_shelf_entry(t->shelf, id);
    gg_mstate *st = en ? gg_entry_tree_if_open(t->shelf, en) : NULL;
    if (!st)
        return; /* (not open: nothing of it is cached, and it opens again only if unchanged) */
    gg_mver *v = gg_mstate_hold(st);
    gg_mtree *mt = v->mt;
    if (gg_mtree_check(mt, NULL) && t->inval_inode) {
        for (uint32_t k = 1; k < mt->n; k++)
            if (!gg_node_is_dir(&mt->nodes[k]) && mt->nodes[k].content != GG_C_LINK)
                t->inval_inode(t->inval_arg, tree_node_ino(v, k));
        tree_vs_changed(t, id); /* (its comparisons, both ways) */
    }
    gg_mver_put(v);
    gg_entry_put(t->shelf, en);
}

/* A request found the model held stale: the shelf's thread tells the kernel. */
static void note_stale(gg_tree *t, gg_mver *held, const gg_err *e)
{
    if (held && e && e->code == GG_E_STALE)
        gg_shelf_model_changed(t->shelf, held->st->id);
}

gg_tree *gg_tree_new_shelf(gg_shelf *s, int single, gg_reader *reader, const gg_tree_opts *o, gg_err *e)
{
    gg_tree *t = calloc(1, sizeof *t);
    if (!t) {
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    t->shelf = s;
    t->single = single;
    pthread_mutex_init(&t->open_lock, NULL);
    t->reader = reader;
    if (o)
        t->o = *o;
    t->o.vs = !single && !t->o.novs;
    if (tree_vs_new(t)) {
        pthread_mutex_destroy(&t->open_lock);
        free(t);
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    gg_shelf_set_notify(s, shelf_note, t);
    gg_shelf_set_changed(s, model_changed, t);
    gg_mver *held;
    if (single && !mtree_of(t, 1, &held, e)) {
        tree_vs_free(t);
        pthread_mutex_destroy(&t->open_lock);
        free(t);
        return NULL;
    }
    if (single)
        done_with(t, held);
    return t;
}

gg_tree *gg_tree_new(gg_model **models, int n_models, gg_reader *reader, const gg_tree_opts *o, gg_err *e)
{
    gg_shelf *s = gg_shelf_new(NULL, e);
    if (!s)
        return NULL;
    for (int i = 0; i < n_models; i++) {
        char name[4096];
        gg_model_folder_name(models[i], name, sizeof name);
        if (gg_shelf_add(s, name, models[i]->path, models[i], e)) {
            gg_shelf_free(s);
            return NULL;
        }
    }
    gg_tree *t = gg_tree_new_shelf(s, n_models == 1, reader, o, e);
    if (!t) {
        /* the shelf owns the models now: give them back before freeing it */
        gg_shelf_free(s);
        return NULL;
    }
    t->own_shelf = 1;
    return t;
}

void gg_tree_free(gg_tree *t)
{
    if (!t)
        return;
    while (t->open_files)
        gg_tree_close(t, t->open_files);
    tree_vs_free(t);
    pthread_mutex_destroy(&t->open_lock);
    if (t->own_shelf)
        gg_shelf_free(t->shelf);
    free(t);
}

void gg_tree_set_stats_hook(gg_tree *t, void (*fn)(void *arg, gg_buf *out), void *arg)
{
    t->stats_hook = fn;
    t->stats_arg = arg;
}

void gg_tree_set_invalidate(gg_tree *t, void (*entry)(void *arg, gg_ino parent, const char *name),
                            void (*inode)(void *arg, gg_ino ino), void *arg)
{
    t->inval_arg = arg;
    t->inval_entry = entry;
    t->inval_inode = inode;
}

/* ---- the root's files ---- */

static int special_text(gg_tree *t, int which, gg_buf *out, gg_err *e)
{
    if (which == F_STATS) {
        gg_reader_stats_text(t->reader, out);
        uint64_t open, bytes, closed;
        gg_shelf_open_stats(t->shelf, &open, &bytes, &closed);
        gg_buf_printf(out, "%-28s %20" PRIu64 "\n", "models_open", open);
        gg_buf_printf(out, "%-28s %20" PRIu64 "\n", "models_open_bytes", bytes);
        gg_buf_printf(out, "%-28s %20" PRIu64 "\n", "models_closed_idle", closed);
        gg_buf_printf(out, "%-28s %20" PRIu64 "\n", "compare_tensors", atomic_load(&t->cmp_stats.tensors));
        gg_buf_printf(out, "%-28s %20" PRIu64 "\n", "compare_elements", atomic_load(&t->cmp_stats.elements));
        gg_buf_printf(out, "%-28s %20" PRIu64 "\n", "compare_waits", atomic_load(&t->cmp_stats.waits));
        if (t->stats_hook)
            t->stats_hook(t->stats_arg, out);
    } else if (which == F_MODELS_TSV) {
        gg_shelf_models_tsv(t->shelf, out);
    } else {
        gg_shelf_errors(t->shelf, out);
    }
    return out->oom ? gg_fail(e, GG_E_NOMEM, "out of memory") : 0;
}

/* The root's own files: .stats always, models.tsv and .errors for a shelf. */
static int special_here(const gg_tree *t, int which) { return which == F_STATS || !t->single; }

/* ---- the operations ---- */

int gg_tree_lookup(gg_tree *t, gg_ino dir, const char *name, gg_ino *out, gg_err *e)
{
    if (dir == GG_ROOT) {
        for (int k = 0; k < F_COUNT; k++) {
            if (special_here(t, k) && !strcmp(name, special_names[k])) {
                *out = ino_of(SPECIAL, (uint32_t)k);
                return 0;
            }
        }
    }
    uint32_t slot = slot_of(dir);
    if (slot == SPECIAL)
        return gg_fail(e, GG_E_NOTDIR, "%s: not a folder", special_names[index_of(dir) % F_COUNT]);
    if (slot >= VS_BASE)
        return tree_vs_lookup(t, dir, name, out, e);
    gg_mtree *mt;
    uint32_t node;
    gg_mver *held;
    if (model_node(t, dir, &mt, &node, &held, e) == 0) {
        int rc = 0;
        uint32_t k = UINT32_MAX;
        if (gg_mtree_is_vs(mt, node))
            rc = tree_vs_root_lookup(t, held->st->id, dir, name, out, e);
        else if (!gg_node_is_dir(&mt->nodes[node]))
            rc = gg_fail(e, GG_E_NOTDIR, "%s: not a folder", mt->nodes[node].name);
        else if ((k = gg_mtree_find(mt, node, name)) == UINT32_MAX)
            rc = gg_fail(e, GG_E_NOENT, "%s: no such entry", name);
        else /* (k > 0: a model's root is its folder's inode) */
            *out = tree_node_ino(held, k);
        done_with(t, held);
        return rc;
    }
    if (mt == NULL && slot != 0)
        return -1;
    if (slot != 0)
        return -1;
    if (t->single)
        return -1; /* (model_node failed: *e says why) */
    uint32_t child;
    gg_snode k = gg_shelf_lookup(t->shelf, index_of(dir), name, &child);
    if (k == GG_SN_NONE) {
        if (gg_shelf_kind(t->shelf, index_of(dir)) == GG_SN_MODEL)
            return -1; /* its model failed to open: *e says why */
        return gg_fail(e, GG_E_NOENT, "%s: no such entry", name);
    }
    *out = ino_of(0, child);
    return 0;
}

gg_ino gg_tree_parent(gg_tree *t, gg_ino ino)
{
    uint32_t slot = slot_of(ino), idx = index_of(ino);
    if (slot == SPECIAL || ino == GG_ROOT)
        return GG_ROOT;
    if (slot >= VS_BASE)
        return tree_vs_parent(t, ino);
    if (slot == 0)
        return t->single ? GG_ROOT : ino_of(0, gg_shelf_parent(t->shelf, idx));
    gg_mver *held;
    gg_mtree *mt;
    uint32_t node;
    if (model_node(t, ino, &mt, &node, &held, NULL))
        return GG_ROOT;
    uint32_t p = gg_mver_ix(held, mt->nodes[node].parent);
    done_with(t, held);
    return tree_ix_ino(t, slot, p);
}

int gg_tree_getattr(gg_tree *t, gg_ino ino, gg_attr *a, gg_err *e)
{
    memset(a, 0, sizeof *a);
    uint32_t slot = slot_of(ino), idx = index_of(ino);
    if (slot == SPECIAL) {
        if (idx >= F_COUNT || !special_here(t, (int)idx))
            return gg_fail(e, GG_E_NOENT, "no inode %" PRIu64, ino);
        gg_buf b = {0};
        int rc = special_text(t, (int)idx, &b, e);
        a->kind = GG_K_FILE;
        a->nlink = 1;
        a->size = b.len;
        a->live = idx == F_STATS;
        clock_gettime(CLOCK_REALTIME, &a->mtime);
        gg_buf_free(&b);
        return rc;
    }
    if (slot >= VS_BASE)
        return tree_vs_getattr(t, ino, a, e);
    if (slot == 0 && !t->single) {
        gg_snode k = gg_shelf_kind(t->shelf, idx);
        if (k == GG_SN_NONE)
            return gg_fail(e, GG_E_NOENT, "no inode %" PRIu64 " (removed)", ino);
        a->kind = GG_K_DIR;
        if (k == GG_SN_DIR) {
            uint32_t sub;
            gg_shelf_dir_info(t->shelf, idx, &sub, &a->mtime);
            a->nlink = 2 + sub;
        } else {
            /* A model's folder, without opening the model. */
            gg_entry *en = gg_shelf_entry_at(t->shelf, idx);
            /* (metadata, tensors, blocks, as, and vs: a shelf of models) */
            a->nlink = 2 + (uint32_t)gg_files_dirs_in_scope(GG_FK_MODEL);
            if (en)
                a->mtime = gg_entry_mtime(en);
        }
        return 0;
    }
    gg_mtree *mt;
    uint32_t node;
    gg_mver *held;
    if (model_node(t, ino, &mt, &node, &held, e))
        return -1;
    int rc = gg_mtree_getattr(mt, node, a, e);
    a->writable = held->st->writable && held->st->path && tree_node_writable(mt, node);
    done_with(t, held);
    return rc;
}

typedef struct rd_ctx {
    gg_dirent_fn fn;
    void *arg;
    uint32_t id;
    int stop;
} rd_ctx;

static int shelf_entry_cb(void *arg, const char *name, uint32_t node, gg_snode kind)
{
    rd_ctx *c = arg;
    (void)kind;
    return c->stop = c->fn(c->arg, name, ino_of(0, node), GG_K_DIR);
}

int gg_tree_readdir(gg_tree *t, gg_ino dir, uint64_t from, gg_dirent_fn fn, void *arg, gg_err *e)
{
    /* The root's own files come first. */
    if (dir == GG_ROOT) {
        for (int k = 0; k < F_COUNT; k++) {
            if (!special_here(t, k))
                continue;
            if (from > 0) {
                from--;
                continue;
            }
            if (fn(arg, special_names[k], ino_of(SPECIAL, (uint32_t)k), GG_K_FILE))
                return 0;
        }
    }
    uint32_t slot = slot_of(dir);
    if (slot == SPECIAL)
        return gg_fail(e, GG_E_NOTDIR, "not a folder");
    if (slot >= VS_BASE)
        return tree_vs_readdir(t, dir, from, fn, arg, e);
    if (slot == 0 && !t->single && gg_shelf_kind(t->shelf, index_of(dir)) == GG_SN_DIR) {
        rd_ctx c = {fn, arg, 0, 0};
        return gg_shelf_readdir(t->shelf, index_of(dir), from, shelf_entry_cb, &c) == 0
                   ? 0
                   : gg_fail(e, GG_E_NOENT, "folder removed");
    }
    gg_mtree *mt;
    uint32_t node;
    gg_mver *held;
    if (model_node(t, dir, &mt, &node, &held, e))
        return -1;
    const gg_node *d = &mt->nodes[node];
    int rc = 0;
    if (gg_mtree_is_vs(mt, node)) {
        rc = tree_vs_root_readdir(t, held->st->id, dir, from, fn, arg, e);
        done_with(t, held);
        return rc;
    }
    if (!gg_node_is_dir(d))
        rc = gg_fail(e, GG_E_NOTDIR, "%s: not a folder", d->name);
    for (uint64_t k = from; rc == 0 && k < d->n_children; k++) {
        uint32_t c = d->first_child + (uint32_t)k;
        const gg_node *cn = &mt->nodes[c];
        gg_kind kind = gg_node_is_dir(cn) ? GG_K_DIR : cn->content == GG_C_LINK ? GG_K_LINK : GG_K_FILE;
        if (fn(arg, cn->name, tree_node_ino(held, c), kind))
            break;
    }
    done_with(t, held);
    return rc;
}

void tree_track_open(gg_tree *t, gg_open_file *of, gg_mver *held, uint32_t node)
{
    of->held = held; /* its read-ahead state refers to the model: kept open until closed */
    of->node = node; /* (in the version it opened: its reads are of that version) */
    pthread_mutex_lock(&t->open_lock);
    of->next = t->open_files;
    if (t->open_files)
        t->open_files->prev = of;
    t->open_files = of;
    pthread_mutex_unlock(&t->open_lock);
}

int gg_tree_open(gg_tree *t, gg_ino ino, gg_open_file **of, gg_err *e)
{
    *of = NULL;
    if (slot_of(ino) == SPECIAL)
        return 0;
    if (slot_of(ino) >= VS_BASE)
        return tree_vs_open(t, ino, of, e);
    gg_mtree *mt;
    uint32_t node;
    gg_mver *held;
    if (model_node(t, ino, &mt, &node, &held, e))
        return mt || slot_of(ino) ? -1 : gg_fail(e, GG_E_ISDIR, "a folder");
    int rc = gg_mtree_open(mt, node, of, e);
    if (rc == 0 && *of) {
        tree_track_open(t, *of, held, node);
        if ((*of)->stale)
            gg_shelf_model_changed(t->shelf, held->st->id);
    } else {
        done_with(t, held);
    }
    return rc;
}

int gg_tree_open_stale(const gg_open_file *of) { return of && of->stale; }

void gg_tree_close(gg_tree *t, gg_open_file *of)
{
    if (!of)
        return;
    pthread_mutex_lock(&t->open_lock);
    if (of->prev)
        of->prev->next = of->next;
    else
        t->open_files = of->next;
    if (of->next)
        of->next->prev = of->prev;
    pthread_mutex_unlock(&t->open_lock);
    gg_readahead_destroy(&of->ra);
    gg_readahead_destroy(&of->ra_ref);
    done_with(t, of->held);
    free(of->key);
    gg_buf_free(&of->text);
    free(of);
}

ssize_t gg_tree_read_ref(gg_tree *t, gg_ino ino, gg_open_file *of, char *buf, size_t size, uint64_t off,
                         gg_ref *ref, gg_err *e)
{
    gg_ref_init(ref);
    if (slot_of(ino) == SPECIAL) {
        uint32_t idx = index_of(ino);
        if (idx >= F_COUNT)
            return gg_fail(e, GG_E_NOENT, "no inode %" PRIu64, ino);
        gg_buf b = {0};
        if (special_text(t, (int)idx, &b, e)) {
            gg_buf_free(&b);
            return -1;
        }
        ssize_t got = off < b.len ? (ssize_t)(size < b.len - off ? size : b.len - off) : 0;
        if (got > 0) {
            memcpy(buf, b.p + off, (size_t)got);
            ref->iov[0] = (struct iovec){buf, (size_t)got};
            ref->niov = 1;
        }
        gg_buf_free(&b);
        return got;
    }
    if (slot_of(ino) >= VS_BASE)
        return tree_vs_read_ref(t, ino, of, buf, size, off, ref, e);
    gg_mtree *mt;
    uint32_t node;
    gg_mver *held;
    if (of && of->writer)
        return tree_read_written(of, buf, size, off, ref);
    if (of && of->held) {
        /* the version it was opened in, held once more for the reply */
        held = of->held;
        mt = held->mt;
        node = of->node;
        gg_mver_get(held);
        gg_entry_hold(held->st->en);
    } else if (model_node(t, ino, &mt, &node, &held, e)) {
        return mt || slot_of(ino) ? -1 : gg_fail(e, GG_E_ISDIR, "a folder");
    }
    ssize_t got = gg_mtree_read_ref(mt, node, of, buf, size, off, ref, e);
    if (got > 0) {
        ref->held = held; /* the bytes may lie in the tree's texts */
    } else {
        if (got < 0)
            note_stale(t, held, e);
        done_with(t, held);
    }
    return got;
}

void gg_tree_read_done(gg_tree *t, gg_ref *ref)
{
    void *held = ref->held;
    gg_ref_release(t->reader, ref);
    done_with(t, held);
}

ssize_t gg_tree_read(gg_tree *t, gg_ino ino, gg_open_file *of, char *buf, size_t size, uint64_t off, gg_err *e)
{
    gg_ref ref;
    ssize_t got = gg_tree_read_ref(t, ino, of, buf, size, off, &ref, e);
    if (got <= 0)
        return got;
    gg_ref_gather(&ref, buf);
    gg_tree_read_done(t, &ref);
    return got;
}

int gg_tree_readlink(gg_tree *t, gg_ino ino, char *buf, size_t cap, gg_err *e)
{
    if (slot_of(ino) >= VS_BASE)
        return gg_fail(e, GG_E_INVAL, "not a symbolic link");
    gg_mtree *mt;
    uint32_t node;
    gg_mver *held;
    if (model_node(t, ino, &mt, &node, &held, e))
        return mt || slot_of(ino) ? -1 : gg_fail(e, GG_E_INVAL, "not a symbolic link");
    int rc = gg_mtree_readlink(mt, node, buf, cap, e);
    done_with(t, held);
    return rc;
}

int gg_tree_getxattr(gg_tree *t, gg_ino ino, const char *name, char *val, size_t cap, gg_err *e)
{
    if (slot_of(ino) >= VS_BASE)
        return tree_vs_getxattr(t, ino, name, val, cap, e);
    gg_mtree *mt;
    uint32_t node;
    gg_mver *held;
    if (model_node(t, ino, &mt, &node, &held, NULL))
        return gg_fail(e, GG_E_NOATTR, "%s: no such attribute", name);
    int rc = gg_mtree_getxattr(mt, node, name, val, cap, e);
    done_with(t, held);
    return rc;
}

int gg_tree_listxattr(gg_tree *t, gg_ino ino, char *list, size_t cap, gg_err *e)
{
    if (slot_of(ino) >= VS_BASE)
        return tree_vs_listxattr(t, ino, list, cap, e);
    gg_mtree *mt;
    uint32_t node;
    gg_mver *held;
    if (model_node(t, ino, &mt, &node, &held, NULL))
        return 0;
    int rc = gg_mtree_listxattr(mt, node, list, cap, e);
    done_with(t, held);
    return rc;
}

void gg_tree_totals(gg_tree *t, uint64_t *bytes, uint64_t *nodes)
{
    uint64_t models;
    gg_shelf_totals(t->shelf, bytes, &models);
    *nodes = models * 16;
}
