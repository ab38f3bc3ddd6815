/* mversion.c - a model's versions (see mversion.h). */
#include "mversion.h"

#include <stdlib.h>
#include <string.h>

#include "gguffs/kvedit.h"

#define NONE UINT32_MAX

/* ---- what the kernel must forget ---- */

void gg_inval_free(gg_inval *iv)
{
    for (size_t i = 0; i < iv->n; i++)
        free(iv->name[i]);
    free(iv->parent);
    free(iv->name);
    free(iv->inode);
    memset(iv, 0, sizeof *iv);
}

static void forget_name(gg_inval *iv, uint32_t parent, const char *name)
{
    size_t c1 = iv->cap, c2 = iv->cap;
    if (gg_grow((void **)&iv->parent, &c1, iv->n, sizeof *iv->parent, 16) ||
        gg_grow((void **)&iv->name, &c2, iv->n, sizeof *iv->name, 16))
        return;
    iv->cap = c1 < c2 ? c1 : c2;
    if (!(iv->name[iv->n] = strdup(name)))
        return;
    iv->parent[iv->n++] = parent;
}

static void forget_inode(gg_inval *iv, uint32_t ix)
{
    for (size_t i = 0; i < iv->ni; i++)
        if (iv->inode[i] == ix)
            return;
    if (!gg_grow((void **)&iv->inode, &iv->capi, iv->ni, sizeof *iv->inode, 16))
        iv->inode[iv->ni++] = ix;
}

/* ---- versions ---- */

static void ver_free(gg_mver *v)
{
    if (!v)
        return;
    gg_mtree_free(v->mt);
    gg_kvedit_view_free(v->view);
    free(v->ix);
    free(v->byix);
    free(v);
}

uint32_t gg_mver_node(const gg_mver *v, uint32_t ix)
{
    if (!v->ix)
        return ix < v->mt->n ? ix : NONE;
    for (uint32_t k = (ix * 0x9E3779B1u) & (v->bycap - 1); v->byix[k]; k = (k + 1) & (v->bycap - 1))
        if (v->ix[v->byix[k] - 1] == ix)
            return v->byix[k] - 1;
    return NONE;
}

static int index_by_ix(gg_mver *v)
{
    uint32_t cap = 64;
    while (cap < 2 * v->mt->n)
        cap *= 2;
    v->byix = calloc(cap, sizeof *v->byix);
    if (!v->byix)
        return -1;
    v->bycap = cap;
    for (uint32_t i = 0; i < v->mt->n; i++) {
        uint32_t k = (v->ix[i] * 0x9E3779B1u) & (cap - 1);
        while (v->byix[k])
            k = (k + 1) & (cap - 1);
        v->byix[k] = i + 1;
    }
    return 0;
}

gg_mver *gg_mstate_hold(gg_mstate *st)
{
    pthread_mutex_lock(&st->mu);
    gg_mver *v = st->cur;
    atomic_fetch_add(&v->refs, 1);
    pthread_mutex_unlock(&st->mu);
    return v;
}

gg_mver *gg_mstate_hold_ix(gg_mstate *st, uint32_t ix, uint32_t *node)
{
    pthread_mutex_lock(&st->mu);
    gg_mver *v = st->cur;
    *node = gg_mver_node(v, ix);
    /* (an inode of an older version: a file opened then, or its name kept by the kernel) */
    for (size_t i = st->nold; *node == NONE && i-- > 0;)
        if ((*node = gg_mver_node(st->old[i], ix)) != NONE)
            v = st->old[i];
    if (*node != NONE)
        atomic_fetch_add(&v->refs, 1);
    pthread_mutex_unlock(&st->mu);
    return *node != NONE ? v : NULL;
}

void gg_mver_put(gg_mver *v)
{
    /* Not the last hold: let go without the lock (a read of an open file). */
    int r = atomic_load(&v->refs);
    while (r > 1)
        if (atomic_compare_exchange_weak(&v->refs, &r, r - 1))
            return;
    /* Maybe the last: let go under mu, where the holds take versions and
     * gg_mstate_install looks at refs. Let go before it, a version the
     * install retires meanwhile would be freed by both. */
    gg_mstate *st = v->st;
    pthread_mutex_lock(&st->mu);
    /* (held by another, or the newest: kept) */
    int drop = atomic_fetch_sub(&v->refs, 1) == 1 && v != st->cur;
    if (drop)
        for (size_t i = 0; i < st->nold; i++)
            if (st->old[i] == v) {
                memmove(st->old + i, st->old + i + 1, (st->nold - i - 1) * sizeof *st->old);
                st->nold--;
                break;
            }
    pthread_mutex_unlock(&st->mu);
    if (drop)
        ver_free(v);
}

/* ---- building one ---- */

/* Are key x of a and key y of b the same: name, type and value bytes? */
static int kv_same(const gg_file *a, const gg_kv *x, const gg_file *b, const gg_kv *y)
{
    return x->key.len == y->key.len && !memcmp(gg_str_ptr(a, x->key), gg_str_ptr(b, y->key), x->key.len) &&
           x->type == y->type && x->val_len == y->val_len && !memcmp(a->hdr + x->val, b->hdr + y->val, x->val_len);
}

/* Do a node's bytes depend on the model's keys (when its index must change
 * with them)? hadamard: the prism.hadamard.* keys changed too. */
static int follows_keys(const gg_mtree *t, uint32_t k, int hadamard)
{
    const gg_node *n = &t->nodes[k];
    const gg_file_kind *f = gg_node_file(n);
    if (!f || gg_node_is_key(n))
        return 0;
    if (f->scope == GG_FK_TENSOR)
        return hadamard && !strcmp(f->name, "info.json");
    return 1;
}

static int is_meta(const gg_mtree *t, uint32_t k)
{
    const gg_node *p = &t->nodes[t->nodes[k].parent];
    return t->nodes[k].parent == 0 && p->content == GG_C_DIR && !strcmp(t->nodes[k].name, "metadata");
}

/* The node of prev under old parent po named name, or NONE: most often the
 * one after the node before's match (both trees list the same things in the
 * same order), else looked up. */
static uint32_t match(const gg_mtree *p, uint32_t po, const char *name, uint32_t guess)
{
    if (po == NONE)
        return NONE;
    if (guess < p->n && p->nodes[guess].parent == po && !strcmp(p->nodes[guess].name, name))
        return guess;
    return gg_mtree_find(p, po, name);
}

/* Inode indices of v's nodes from those of prev (see mversion.h); old[k]:
 * the node of prev of the same name and place (NONE: none). */
static int map_indices(gg_mstate *st, gg_mver *v, const gg_mver *prev, int changed, int hadamard, const char *from,
                       const char *to, uint32_t *old)
{
    const gg_mtree *t = v->mt, *p = prev->mt;
    v->ix = malloc((t->n ? t->n : 1) * sizeof *v->ix);
    if (!v->ix)
        return -1;
    uint32_t meta = NONE;
    for (uint32_t k = 1; k < t->n && meta == NONE; k++)
        if (is_meta(t, k))
            meta = k;
    v->ix[0] = 0;
    old[0] = 0;
    for (uint32_t k = 1; k < t->n; k++) {
        const gg_node *n = &t->nodes[k];
        const char *name = n->parent == meta && to && !strcmp(n->name, to) ? from : n->name;
        old[k] = match(p, old[n->parent], name, old[k - 1] == NONE ? NONE : old[k - 1] + 1);
        int keep = old[k] != NONE && !(changed && follows_keys(t, k, hadamard));
        v->ix[k] = keep ? gg_mver_ix(prev, old[k]) : st->next_ix++;
    }
    return index_by_ix(v);
}

/* The kernel forgets: names whose inode changed, appeared or went (but in
 * metadata/: the kernel's own calls made those), folders whose children
 * changed, keys whose value changed. old: map_indices'. */
static int what_changed(const gg_mver *v, const gg_mver *prev, const uint32_t *old, gg_inval *iv)
{
    const gg_mtree *t = v->mt, *p = prev->mt;
    uint8_t *seen = calloc(p->n ? p->n : 1, 1);
    if (!seen)
        return -1;
    for (uint32_t k = 1; k < t->n; k++) {
        const gg_node *n = &t->nodes[k];
        int kept = old[k] != NONE && gg_mver_ix(prev, old[k]) == v->ix[k];
        if (old[k] != NONE)
            seen[old[k]] = 1;
        if (gg_node_is_key(n)) {
            /* the same inode: its value may be another (compared as text is made) */
            if (kept) {
                uint32_t o = old[k];
                const gg_kv *x = gg_node_is_kv(n) ? &t->m->f->kv[n->arg] : NULL;
                const gg_kv *y = gg_node_is_kv(&p->nodes[o]) ? &p->m->f->kv[p->nodes[o].arg] : NULL;
                if ((x || y) && !(x && y && kv_same(t->m->f, x, p->m->f, y)))
                    forget_inode(iv, v->ix[k]);
            }
            continue;
        }
        if (!kept) {
            forget_name(iv, v->ix[n->parent], n->name);
            forget_inode(iv, v->ix[n->parent]);
        }
    }
    for (uint32_t k = 1; k < p->n; k++) {
        const gg_node *n = &p->nodes[k];
        if (seen[k] || gg_node_is_key(n))
            continue;
        uint32_t pix = gg_mver_ix(prev, n->parent);
        forget_name(iv, pix, n->name);
        forget_inode(iv, pix);
    }
    free(seen);
    return 0;
}

/* The index of f's first prism.hadamard.* key from i on, or f->n_kv. */
static uint64_t next_hadamard(const gg_file *f, uint64_t i)
{
    while (i < f->n_kv && (f->kv[i].key.len < 15 || memcmp(gg_str_ptr(f, f->kv[i].key), "prism.hadamard.", 15)))
        i++;
    return i;
}

/* Did the keys named prism.hadamard.* change between a and b (one more or
 * less, a name, a type or a value)? */
static int hadamard_changed(const gg_file *a, const gg_file *b)
{
    uint64_t i = next_hadamard(a, 0), j = next_hadamard(b, 0);
    for (; i < a->n_kv && j < b->n_kv; i = next_hadamard(a, i + 1), j = next_hadamard(b, j + 1))
        if (!kv_same(a, &a->kv[i], b, &b->kv[j]))
            return 1;
    return i < a->n_kv || j < b->n_kv;
}

/* A version of the model: its edits applied (edited, taken: them applied
 * already; or none: the model itself). */
static gg_mver *ver_make(gg_mstate *st, gg_file *edited, gg_err *e)
{
    gg_mver *v = calloc(1, sizeof *v);
    if (!v) {
        if (edited)
            gg_file_free(edited);
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    v->st = st;
    gg_model *m = st->m;
    if (edited && !st->ed.n) { /* (every edit undone: the model itself again) */
        gg_file_free(edited);
        edited = NULL;
    }
    if (st->ed.n) {
        gg_file f;
        if (edited)
            f = *edited;
        else if (gg_edits_apply(m->f, &st->ed, m->path, &f, e)) {
            free(v);
            return NULL;
        }
        if (!(v->view = gg_kvedit_view(st->m, &f))) {
            free(v);
            gg_fail(e, GG_E_NOMEM, "out of memory");
            return NULL;
        }
        m = v->view;
    }
    v->mt = gg_mtree_new_keys(m, st->uid, st->reader, &st->o, st->account, st->newkeys, st->nnew, e);
    if (!v->mt) {
        ver_free(v);
        return NULL;
    }
    return v;
}

int gg_mstate_install(gg_mstate *st, gg_file *edited, int header_changed, const char *moved_from,
                      const char *moved_to, gg_inval *iv, gg_err *e)
{
    gg_mver *v = ver_make(st, edited, e), *prev = st->cur;
    if (!v)
        return -1;
    int had = header_changed && hadamard_changed(gg_mver_model(v)->f, gg_mver_model(prev)->f);
    uint32_t *old = malloc((v->mt->n ? v->mt->n : 1) * sizeof *old);
    if (!old || map_indices(st, v, prev, header_changed, had, moved_from, moved_to, old) ||
        what_changed(v, prev, old, iv)) {
        free(old);
        ver_free(v);
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    }
    free(old);
    pthread_mutex_lock(&st->mu);
    int keep = atomic_load(&prev->refs) > 0;
    if (keep && gg_grow((void **)&st->old, &st->capold, st->nold, sizeof *st->old, 8)) {
        pthread_mutex_unlock(&st->mu);
        ver_free(v);
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    }
    if (keep)
        st->old[st->nold++] = prev;
    st->cur = v;
    pthread_mutex_unlock(&st->mu);
    if (!keep)
        ver_free(prev);
    return 0;
}

/* ---- the state ---- */

gg_mstate *gg_mstate_new(gg_model *m, uint32_t id, uint32_t uid, gg_reader *r, const gg_tree_opts *o,
                         _Atomic uint64_t *account, const char *path, int writable, gg_err *e)
{
    gg_mstate *st = calloc(1, sizeof *st);
    if (!st) {
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    st->m = m;
    st->id = id;
    st->uid = uid;
    st->reader = r;
    if (o)
        st->o = *o;
    st->account = account;
    st->writable = writable;
    pthread_mutex_init(&st->mu, NULL);
    pthread_mutex_init(&st->edit_mu, NULL);
    if (path) {
        if (!(st->path = strdup(path))) {
            gg_fail(e, GG_E_NOMEM, "out of memory");
            gg_mstate_free(st);
            return NULL;
        }
        if (writable)
            gg_editfile_tidy(path);
        if (gg_editfile_load(path, m, &st->ident, &st->ed, e)) {
            gg_mstate_free(st);
            return NULL;
        }
    }
    st->cur = ver_make(st, NULL, e);
    if (!st->cur) {
        if (st->path)
            gg_err_prefix(e, "edits file %s", st->path);
        gg_mstate_free(st);
        return NULL;
    }
    st->next_ix = st->cur->mt->n;
    return st;
}

void gg_mstate_free(gg_mstate *st)
{
    if (!st)
        return;
    /* (nobody holds a version now: the shelf frees it unused) */
    for (size_t i = 0; i < st->nold; i++)
        ver_free(st->old[i]);
    free(st->old);
    ver_free(st->cur);
    gg_edits_free(&st->ed);
    gg_model_ident_free(&st->ident);
    gg_newkeys_free(st->newkeys, st->nnew);
    gg_newkeys_free(st->gone, st->ngone);
    free(st->path);
    pthread_mutex_destroy(&st->mu);
    pthread_mutex_destroy(&st->edit_mu);
    free(st);
}
