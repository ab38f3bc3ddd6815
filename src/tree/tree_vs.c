/* tree_vs.c - the folders of vs/ (see tree_int.h): in a mount of several
 * models, every model's vs/ holds every other model of the mount, named as
 * at the root (its folders kept), and each of them, vs/<ref>/, is the
 * model's comparison with it (a model tree of scope GG_FK_VS, modeltree.h;
 * its figures in compare.h).
 *
 * A record stands for one folder of one model's vs/: a copy of a shelf
 * folder (b 0), or a comparison (b the reference's shelf id). Records are
 * made when first named (looked up, listed) and kept for the life of the
 * tree, so their inodes (slot VS_BASE + record, index 0 for the folder,
 * else a node of the comparison's tree) always mean the same thing; a
 * comparison's pairs and figures live in its record, so they outlive the
 * models' trees (closed while idle, opened again). The comparison's tree
 * is the model's (gg_mtree_vs): every call holds both models while it uses
 * it. The model's own vs/ is a node of its tree (its record, b 0 and
 * shelf folder 0, only says where the kernel knows it). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "gguffs/buf.h"
#include "tree_int.h"

typedef struct vs_rec {
    uint32_t a;          /* the model whose vs/ it is in */
    uint32_t b;          /* a comparison: the reference's shelf id; 0: a folder */
    uint32_t snode;      /* a folder: the shelf folder it copies */
    gg_ino self, parent; /* its inode, and its folder's */
    gg_cmp *cmp;         /* a comparison's pairs and figures, made on first use (lock) */
    uint32_t nodes;      /* nodes of its tree once made (lock) */
} vs_rec;

struct tree_vs {
    pthread_mutex_t lock;
    vs_rec **rec;
    uint32_t n;
    size_t cap;
    uint32_t *hash; /* (a, b, snode) -> record + 1 */
    uint32_t hcap;
};

int tree_vs_new(gg_tree *t)
{
    tree_vs *v = calloc(1, sizeof *v);
    if (!v)
        return -1;
    pthread_mutex_init(&v->lock, NULL);
    t->vs = v;
    return 0;
}

void tree_vs_free(gg_tree *t)
{
    tree_vs *v = t->vs;
    if (!v)
        return;
    for (uint32_t i = 0; i < v->n; i++) {
        gg_cmp_free(v->rec[i]->cmp);
        free(v->rec[i]);
    }
    free(v->rec);
    free(v->hash);
    pthread_mutex_destroy(&v->lock);
    free(v);
    t->vs = NULL;
}

/* ---- records ---- */

static uint64_t rec_hash(uint32_t a, uint32_t b, uint32_t snode)
{
    uint32_t k[3] = {a, b, snode};
    return gg_hash64(k, sizeof k, 0x5EED);
}

static int rehash(tree_vs *v, uint32_t cap)
{
    uint32_t *h = calloc(cap, sizeof *h);
    if (!h)
        return -1;
    for (uint32_t i = 0; i < v->n; i++) {
        const vs_rec *r = v->rec[i];
        uint64_t k = rec_hash(r->a, r->b, r->snode) & (cap - 1);
        while (h[k])
            k = (k + 1) & (cap - 1);
        h[k] = i + 1;
    }
    free(v->hash);
    v->hash = h;
    v->hcap = cap;
    return 0;
}

/* The record of (a, b, snode), made if new (found in folder parent; self:
 * its inode, or 0 for one of the slots). NULL when out of memory. */
static vs_rec *rec_get(gg_tree *t, uint32_t a, uint32_t b, uint32_t snode, gg_ino self, gg_ino parent)
{
    tree_vs *v = t->vs;
    pthread_mutex_lock(&v->lock);
    if (v->hcap) {
        for (uint64_t k = rec_hash(a, b, snode) & (v->hcap - 1); v->hash[k]; k = (k + 1) & (v->hcap - 1)) {
            vs_rec *r = v->rec[v->hash[k] - 1];
            if (r->a == a && r->b == b && r->snode == snode) {
                pthread_mutex_unlock(&v->lock);
                return r;
            }
        }
    }
    vs_rec *r = NULL;
    if (v->n >= UINT32_MAX - VS_BASE - 1)
        goto out; /* (slots would run out) */
    if (gg_grow((void **)&v->rec, &v->cap, v->n, sizeof *v->rec, 64))
        goto out;
    if (2 * (v->n + 1) > v->hcap && rehash(v, v->hcap ? v->hcap * 2 : 128))
        goto out;
    if (!(r = calloc(1, sizeof *r)))
        goto out;
    *r = (vs_rec){a, b, snode, self ? self : ino_of(VS_BASE + v->n, 0), parent, NULL, 0};
    uint64_t k = rec_hash(a, b, snode) & (v->hcap - 1);
    while (v->hash[k])
        k = (k + 1) & (v->hcap - 1);
    v->rec[v->n++] = r;
    v->hash[k] = v->n;
out:
    pthread_mutex_unlock(&v->lock);
    return r;
}

/* The record of a slot's inode, or NULL. */
static vs_rec *rec_at(gg_tree *t, gg_ino ino)
{
    tree_vs *v = t->vs;
    uint32_t i = slot_of(ino) - VS_BASE;
    pthread_mutex_lock(&v->lock);
    vs_rec *r = i < v->n ? v->rec[i] : NULL;
    pthread_mutex_unlock(&v->lock);
    return r;
}

/* ---- a comparison's tree, with both models held ---- */

typedef struct held2 {
    gg_mver *a, *b;
} held2;

static void put2(gg_tree *t, held2 *h)
{
    tree_put(t, h->a);
    tree_put(t, h->b);
    h->a = h->b = NULL;
}

/* A read found a model changed: the shelf's thread tells the kernel. */
static void note_stale(gg_tree *t, const held2 *h, const gg_err *e)
{
    if (e && e->code == GG_E_STALE) {
        if (h->a)
            gg_shelf_model_changed(t->shelf, h->a->st->id);
        if (h->b)
            gg_shelf_model_changed(t->shelf, h->b->st->id);
    }
}

static gg_mtree *cmp_tree(gg_tree *t, vs_rec *r, held2 *h, gg_err *e)
{
    h->a = h->b = NULL;
    gg_mtree *ma = tree_model(t, r->a, &h->a, e);
    gg_mtree *mb = ma ? tree_model(t, r->b, &h->b, e) : NULL;
    if (!mb) {
        put2(t, h);
        return NULL;
    }
    pthread_mutex_lock(&t->vs->lock);
    if (!r->cmp)
        r->cmp = gg_cmp_new(ma->m, mb->m, t->o.imatrix, &t->cmp_stats, e);
    gg_cmp *c = r->cmp;
    pthread_mutex_unlock(&t->vs->lock);
    gg_mtree *ct = c ? gg_mtree_vs(ma, r->b, mb, c, e) : NULL;
    if (!ct) {
        put2(t, h);
        return NULL;
    }
    pthread_mutex_lock(&t->vs->lock);
    r->nodes = ct->n;
    pthread_mutex_unlock(&t->vs->lock);
    return ct;
}

/* The comparison tree and node behind an inode of a comparison record (not
 * its folder, index 0, which needs neither model). */
static gg_mtree *node_of(gg_tree *t, gg_ino ino, vs_rec **rp, uint32_t *node, held2 *h, gg_err *e)
{
    vs_rec *r = rec_at(t, ino);
    *rp = r;
    h->a = h->b = NULL;
    if (!r || !r->b) {
        gg_fail(e, GG_E_NOENT, "no inode %" PRIu64, ino);
        return NULL;
    }
    gg_mtree *ct = cmp_tree(t, r, h, e);
    if (ct && index_of(ino) >= ct->n) {
        put2(t, h);
        gg_fail(e, GG_E_NOENT, "no inode %" PRIu64, ino);
        return NULL;
    }
    *node = index_of(ino);
    return ct;
}

/* ---- the copies of the shelf's folders ---- */

typedef struct kid {
    char *name;
    uint32_t node;
    gg_snode kind;
} kid;

typedef struct kids {
    kid *k;
    size_t n, cap;
    int oom;
} kids;

static int collect(void *arg, const char *name, uint32_t node, gg_snode kind)
{
    kids *l = arg;
    if (gg_grow((void **)&l->k, &l->cap, l->n, sizeof *l->k, 32)) {
        l->oom = 1;
        return 1;
    }
    if (!(l->k[l->n].name = strdup(name))) {
        l->oom = 1;
        return 1;
    }
    l->k[l->n].node = node;
    l->k[l->n++].kind = kind;
    return 0;
}

/* The record of child (node, kind) of a's copy of a folder (inode self):
 * a folder's copy, or the comparison with the model there (NULL for a
 * itself, or when out of memory). */
static vs_rec *child_rec(gg_tree *t, uint32_t a, gg_ino self, uint32_t node, gg_snode kind)
{
    if (kind == GG_SN_DIR)
        return rec_get(t, a, 0, node, 0, self);
    gg_entry *en = gg_shelf_entry_at(t->shelf, node);
    uint32_t b = en ? gg_entry_id(en) : 0;
    return b && b != a ? rec_get(t, a, b, 0, 0, self) : NULL;
}

static int folder_lookup(gg_tree *t, uint32_t a, uint32_t snode, gg_ino self, const char *name, gg_ino *out,
                         gg_err *e)
{
    uint32_t child;
    gg_snode kind = gg_shelf_lookup(t->shelf, snode, name, &child);
    vs_rec *r = kind == GG_SN_NONE ? NULL : child_rec(t, a, self, child, kind);
    if (!r)
        return gg_fail(e, GG_E_NOENT, "%s: no such entry", name);
    *out = r->self;
    return 0;
}

static int folder_readdir(gg_tree *t, uint32_t a, uint32_t snode, gg_ino self, uint64_t from, gg_dirent_fn fn,
                          void *arg, gg_err *e)
{
    kids l = {0};
    if (gg_shelf_readdir(t->shelf, snode, 0, collect, &l))
        return gg_fail(e, GG_E_NOENT, "folder removed");
    int rc = l.oom ? gg_fail(e, GG_E_NOMEM, "out of memory") : 0;
    uint64_t at = 0;
    int stop = 0;
    for (size_t i = 0; i < l.n && !rc && !stop; i++) {
        vs_rec *r = child_rec(t, a, self, l.k[i].node, l.k[i].kind);
        if (r && at++ >= from)
            stop = fn(arg, l.k[i].name, r->self, GG_K_DIR);
    }
    for (size_t i = 0; i < l.n; i++)
        free(l.k[i].name);
    free(l.k);
    return rc;
}

int tree_vs_root_lookup(gg_tree *t, uint32_t a, gg_ino self, const char *name, gg_ino *out, gg_err *e)
{
    if (!rec_get(t, a, 0, 0, self, 0)) /* (known, for tree_vs_note) */
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    return folder_lookup(t, a, 0, self, name, out, e);
}

int tree_vs_root_readdir(gg_tree *t, uint32_t a, gg_ino self, uint64_t from, gg_dirent_fn fn, void *arg,
                         gg_err *e)
{
    if (!rec_get(t, a, 0, 0, self, 0))
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    return folder_readdir(t, a, 0, self, from, fn, arg, e);
}

/* ---- the calls on the slots' inodes ---- */

int tree_vs_lookup(gg_tree *t, gg_ino dir, const char *name, gg_ino *out, gg_err *e)
{
    vs_rec *r = rec_at(t, dir);
    if (r && !r->b) {
        if (index_of(dir) != 0)
            return gg_fail(e, GG_E_NOENT, "no inode %" PRIu64, dir);
        return folder_lookup(t, r->a, r->snode, r->self, name, out, e);
    }
    held2 h;
    uint32_t node, k = UINT32_MAX;
    gg_mtree *ct = node_of(t, dir, &r, &node, &h, e);
    if (!ct)
        return -1;
    int rc = 0;
    if (!gg_node_is_dir(&ct->nodes[node]))
        rc = gg_fail(e, GG_E_NOTDIR, "%s: not a folder", ct->nodes[node].name);
    else if ((k = gg_mtree_find(ct, node, name)) == UINT32_MAX)
        rc = gg_fail(e, GG_E_NOENT, "%s: no such entry", name);
    else
        *out = ino_of(slot_of(dir), k);
    put2(t, &h);
    return rc;
}

int tree_vs_getattr(gg_tree *t, gg_ino ino, gg_attr *a, gg_err *e)
{
    memset(a, 0, sizeof *a);
    vs_rec *r = rec_at(t, ino);
    if (!r || (!r->b && index_of(ino) != 0))
        return gg_fail(e, GG_E_NOENT, "no inode %" PRIu64, ino);
    if (index_of(ino) == 0) {
        /* A folder, without opening a model. */
        a->kind = GG_K_DIR;
        if (!r->b) {
            uint32_t sub;
            gg_shelf_dir_info(t->shelf, r->snode, &sub, &a->mtime);
            a->nlink = 2 + sub;
        } else {
            gg_entry *en = gg_shelf_entry(t->shelf, r->b);
            a->nlink = 2 + (uint32_t)gg_files_dirs_in_scope(GG_FK_VS); /* (tensors) */
            if (en)
                a->mtime = gg_entry_mtime(en);
        }
        return 0;
    }
    held2 h;
    uint32_t node;
    gg_mtree *ct = node_of(t, ino, &r, &node, &h, e);
    if (!ct)
        return -1;
    int rc = gg_mtree_getattr(ct, node, a, e);
    put2(t, &h);
    return rc;
}

int tree_vs_readdir(gg_tree *t, gg_ino dir, uint64_t from, gg_dirent_fn fn, void *arg, gg_err *e)
{
    vs_rec *r = rec_at(t, dir);
    if (r && !r->b) {
        if (index_of(dir) != 0)
            return gg_fail(e, GG_E_NOENT, "no inode %" PRIu64, dir);
        return folder_readdir(t, r->a, r->snode, r->self, from, fn, arg, e);
    }
    held2 h;
    uint32_t node;
    gg_mtree *ct = node_of(t, dir, &r, &node, &h, e);
    if (!ct)
        return -1;
    const gg_node *d = &ct->nodes[node];
    int rc = 0;
    if (!gg_node_is_dir(d))
        rc = gg_fail(e, GG_E_NOTDIR, "%s: not a folder", d->name);
    for (uint64_t k = from; rc == 0 && k < d->n_children; k++) {
        uint32_t c = d->first_child + (uint32_t)k;
        if (fn(arg, ct->nodes[c].name, ino_of(slot_of(dir), c), gg_node_is_dir(&ct->nodes[c]) ? GG_K_DIR : GG_K_FILE))
            break;
    }
    put2(t, &h);
    return rc;
}

gg_ino tree_vs_parent(gg_tree *t, gg_ino ino)
{
    vs_rec *r = rec_at(t, ino);
    if (!r)
        return GG_ROOT;
    if (index_of(ino) == 0)
        return r->parent;
    held2 h;
    uint32_t node;
    gg_mtree *ct = node_of(t, ino, &r, &node, &h, NULL);
    if (!ct)
        return GG_ROOT;
    uint32_t p = ct->nodes[node].parent;
    put2(t, &h);
    return ino_of(slot_of(ino), p);
}

int tree_vs_open(gg_tree *t, gg_ino ino, gg_open_file **of, gg_err *e)
{
    *of = NULL;
    vs_rec *r;
    held2 h;
    uint32_t node;
    if (index_of(ino) == 0)
        return gg_fail(e, GG_E_ISDIR, "a folder");
    gg_mtree *ct = node_of(t, ino, &r, &node, &h, e);
    if (!ct)
        return -1;
    int rc = gg_mtree_open(ct, node, of, e);
    if (rc == 0 && *of) {
        /* Held: the model whose read-ahead the file's state drives (the
         * reference's is cancelled when its tree goes). */
        tree_track_open(t, *of, h.a, node);
        h.a = NULL;
        if ((*of)->stale) {
            gg_shelf_model_changed(t->shelf, r->a);
            gg_shelf_model_changed(t->shelf, r->b);
        }
    }
    put2(t, &h);
    return rc;
}

ssize_t tree_vs_read_ref(gg_tree *t, gg_ino ino, gg_open_file *of, char *buf, size_t size, uint64_t off,
                         gg_ref *ref, gg_err *e)
{
    vs_rec *r;
    held2 h;
    uint32_t node;
    gg_ref_init(ref);
    if (index_of(ino) == 0)
        return gg_fail(e, GG_E_ISDIR, "a folder");
    gg_mtree *ct = node_of(t, ino, &r, &node, &h, e);
    if (!ct)
        return -1;
    ssize_t got = gg_mtree_read_ref(ct, node, of, buf, size, off, ref, e);
    if (got > 0) {
        /* The bytes may lie in the comparison's texts, which live only
         * while both models are held: copied. */
        gg_ref_gather(ref, buf);
        gg_ref_release(t->reader, ref);
        ref->iov[0] = (struct iovec){buf, (size_t)got};
        ref->niov = 1;
    } else if (got < 0) {
        note_stale(t, &h, e);
    }
    put2(t, &h);
    return got;
}

int tree_vs_getxattr(gg_tree *t, gg_ino ino, const char *name, char *val, size_t cap, gg_err *e)
{
    vs_rec *r;
    held2 h;
    uint32_t node;
    gg_mtree *ct = index_of(ino) ? node_of(t, ino, &r, &node, &h, NULL) : NULL;
    if (!ct)
        return gg_fail(e, GG_E_NOATTR, "%s: no such attribute", name);
    int rc = gg_mtree_getxattr(ct, node, name, val, cap, e);
    put2(t, &h);
    return rc;
}

int tree_vs_listxattr(gg_tree *t, gg_ino ino, char *list, size_t cap, gg_err *e)
{
    vs_rec *r;
    held2 h;
    uint32_t node;
    gg_mtree *ct = index_of(ino) ? node_of(t, ino, &r, &node, &h, NULL) : NULL;
    if (!ct)
        return 0;
    int rc = gg_mtree_listxattr(ct, node, list, cap, e);
    put2(t, &h);
    return rc;
}

/* ---- the shelf changed ---- */

/* The records there are now, and a copy of one: the lock is taken for each
 * alone, so the kernel is told of changes with it released. */
static uint32_t recs_now(tree_vs *v)
{
    pthread_mutex_lock(&v->lock);
    uint32_t n = v->n;
    pthread_mutex_unlock(&v->lock);
    return n;
}

static vs_rec rec_copy(tree_vs *v, uint32_t i)
{
    pthread_mutex_lock(&v->lock);
    vs_rec r = *v->rec[i];
    pthread_mutex_unlock(&v->lock);
    return r;
}

void tree_vs_note(gg_tree *t, uint32_t dir, const char *name)
{
    if (!t->inval_entry || !t->vs)
        return;
    uint32_t n = recs_now(t->vs);
    for (uint32_t i = 0; i < n; i++) {
        vs_rec r = rec_copy(t->vs, i);
        if (!r.b && r.snode == dir)
            t->inval_entry(t->inval_arg, r.self, name);
    }
}

void tree_vs_changed(gg_tree *t, uint32_t id)
{
    if (!t->inval_inode || !t->vs)
        return;
    uint32_t n = recs_now(t->vs);
    for (uint32_t i = 0; i < n; i++) {
        vs_rec r = rec_copy(t->vs, i);
        if (r.b && (r.a == id || r.b == id))
            for (uint32_t k = 1; k < r.nodes; k++)
                t->inval_inode(t->inval_arg, ino_of(VS_BASE + i, k));
    }
}
