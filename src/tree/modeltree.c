/* modeltree.c - the tree of one model: build it, look names up, produce the
 * content of every file (see modeltree.h). */
#include "modeltree.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "gguffs/buf.h"
#include "gguffs/names.h"
#include "gguffs/recipe.h"
#include "gguffs/render.h"
#include "gguffs/scope.h"

/* ---- building ---- */

static int add_node(gg_mtree *t, char *name, uint32_t parent, gg_content c, size_t file, uint64_t arg)
{
    if (!name)
        return -1;
    if (gg_grow((void **)&t->nodes, &t->cap, t->n, sizeof *t->nodes, 256)) {
        free(name);
        return -1;
    }
    gg_node *n = &t->nodes[t->n];
    memset(n, 0, sizeof *n);
    n->name = name;
    n->parent = parent;
    n->content = (uint8_t)c;
    n->file = (uint8_t)file;
    n->arg = arg;
    atomic_init(&n->text, NULL);
    atomic_init(&n->comp, NULL);
    t->n++;
    return 0;
}

static void set_children(gg_mtree *t, uint32_t dir, uint32_t first)
{
    t->nodes[dir].first_child = first;
    t->nodes[dir].n_children = t->n - first;
}

/* Make the names of dir's children distinct (names.h). */
static int unique_children(gg_mtree *t, uint32_t dir)
{
    const gg_node *d = &t->nodes[dir];
    char ***names = malloc((d->n_children ? d->n_children : 1) * sizeof *names);
    if (!names)
        return -1;
    for (uint32_t k = 0; k < d->n_children; k++)
        names[k] = &t->nodes[d->first_child + k].name;
    int rc = gg_names_unique(names, d->n_children, NULL, 0);
    free(names);
    return rc;
}

/* "blk.N.rest": N (and where rest starts), or -1. */
static int64_t block_of(const gg_tensor *ts, size_t *rest)
{
    const char *s = ts->name;
    size_t n = ts->name_len;
    if (n < 6 || memcmp(s, "blk.", 4) || s[4] < '0' || s[4] > '9')
        return -1;
    uint64_t v = 0;
    size_t i = 4;
    for (; i < n && s[i] >= '0' && s[i] <= '9' && i < 14; i++)
        v = v * 10 + (uint64_t)(s[i] - '0');
    if (i >= n - 1 || s[i] != '.' || (s[4] == '0' && i > 5))
        return -1;
    *rest = i + 1;
    return (int64_t)v;
}

typedef struct blk {
    uint64_t layer, tensor;
} blk;

static int by_layer(const void *a, const void *b)
{
    const blk *x = a, *y = b;
    return x->layer != y->layer ? (x->layer < y->layer ? -1 : 1) : (x->tensor < y->tensor ? -1 : 1);
}

/* blocks/<N>/: one folder per layer, links to its tensors. */
int gg_mtree_build_blocks(gg_mtree *t, uint32_t blocks_dir)
{
    const gg_model *m = t->m;
    blk *b = malloc((m->nt ? m->nt : 1) * sizeof *b);
    if (!b)
        return -1;
    size_t nb = 0, rest;
    for (uint64_t i = 0; i < m->nt; i++) {
        int64_t l = block_of(&m->t[i], &rest);
        if (l >= 0)
            b[nb++] = (blk){(uint64_t)l, i};
    }
    qsort(b, nb, sizeof *b, by_layer);
    int rc = 0;
    uint32_t first = t->n;
    for (size_t i = 0; i < nb && !rc; i++) {
        if (i && b[i].layer == b[i - 1].layer)
            continue;
        char num[24];
        snprintf(num, sizeof num, "%" PRIu64, b[i].layer);
        rc = add_node(t, strdup(num), blocks_dir, GG_C_DIR, 0, b[i].layer);
    }
    set_children(t, blocks_dir, first);
    for (uint32_t d = first, i = 0; d < first + t->nodes[blocks_dir].n_children && !rc; d++) {
        uint32_t f0 = t->n;
        for (; i < nb && b[i].layer == t->nodes[d].arg && !rc; i++) {
            const gg_tensor *ts = &m->t[b[i].tensor];
            block_of(ts, &rest);
            rc = add_node(t, gg_name_escape(ts->name + rest, ts->name_len - rest), d, GG_C_LINK, 0, b[i].tensor);
        }
        set_children(t, d, f0);
        if (!rc)
            rc = unique_children(t, d);
    }
    free(b);
    return rc;
}

/* The row of a scope's files named by their data (KV files, side files). */
static size_t scope_row(gg_fscope scope)
{
    for (size_t k = 0; k < gg_n_files; k++)
        if (gg_files[k].scope == scope)
            return k;
    return 0;
}

/* metadata/: a file per KV, then per key made and not written yet. */
int gg_mtree_build_kvs(gg_mtree *t, uint32_t meta_dir)
{
    const gg_model *m = t->m;
    uint32_t kv0 = t->n;
    size_t row = scope_row(GG_FK_KV);
    for (uint64_t i = 0; i < m->f->n_kv; i++) {
        const gg_kv *kv = &m->f->kv[i];
        if (!gg_file_present(&gg_files[row], m, i))
            continue;
        if (add_node(t, gg_name_escape(gg_str_ptr(m->f, kv->key), kv->key.len), meta_dir, GG_C_FILE, row, i))
            return -1;
    }
    for (size_t i = 0; i < t->nnewkeys; i++)
        if (add_node(t, gg_name_escape(t->newkeys[i].key, t->newkeys[i].len), meta_dir, GG_C_FILE,
                     scope_row(GG_FK_NEWKEY), i))
            return -1;
    set_children(t, meta_dir, kv0);
    return unique_children(t, meta_dir);
}

const char *gg_mtree_key(const gg_mtree *t, uint32_t node, size_t *len)
{
    const gg_node *n = &t->nodes[node];
    if (gg_node_is_kv(n)) {
        const gg_kv *kv = &t->m->f->kv[n->arg];
        *len = kv->key.len;
        return gg_str_ptr(t->m->f, kv->key);
    }
    if (!gg_node_is_key(n))
        return NULL;
    *len = t->newkeys[n->arg].len;
    return t->newkeys[n->arg].key;
}

void gg_mtree_key_type(const gg_mtree *t, uint32_t node, gg_vdesc *d)
{
    const gg_node *n = &t->nodes[node];
    if (gg_node_is_kv(n))
        gg_vdesc_of(t->m->f, &t->m->f->kv[n->arg], d);
    else
        *d = t->newkeys[n->arg].type;
}

/* Is row k of scope there for arg in t? vs/ only in a mount of several
 * models (t->o.vs). */
static int row_here(const gg_mtree *t, size_t k, gg_fscope scope, uint64_t arg)
{
    const gg_file_kind *f = &gg_files[k];
    return f->scope == scope && (!(f->flags & GG_FF_VS) || t->o.vs) && gg_file_present(f, t->m, arg);
}

/* Nodes for the rows of a scope present for arg, children of dir, in
 * table order. */
static int add_row_nodes(gg_mtree *t, uint32_t dir, gg_fscope scope, uint64_t arg)
{
    for (size_t k = 0; k < gg_n_files; k++)
        if (row_here(t, k, scope, arg) &&
            add_node(t, strdup(gg_files[k].name), dir, gg_files[k].shape == GG_FS_DIR ? GG_C_DIR : GG_C_FILE, k, arg))
            return -1;
    return 0;
}

/* Build the folders among nodes [first, end). */
static int build_dirs(gg_mtree *t, uint32_t first, uint32_t end)
{
    for (uint32_t i = first; i < end; i++) {
        const gg_file_kind *k = &gg_files[t->nodes[i].file];
        if (k->shape == GG_FS_DIR && k->build(t, i))
            return -1;
    }
    return 0;
}

/* The rows of a scope present for arg as dir's children, in table order;
 * then the folders among them are built. */
static int add_rows(gg_mtree *t, uint32_t dir, gg_fscope scope, uint64_t arg)
{
    uint32_t first = t->n;
    if (add_row_nodes(t, dir, scope, arg))
        return -1;
    /* a model's root: then its side files (an Ollama model's template, params, ...) */
    for (uint32_t i = 0; scope == GG_FK_MODEL && i < t->m->nsides; i++)
        if (add_node(t, gg_name_escape(t->m->sides[i].name, strlen(t->m->sides[i].name)), dir, GG_C_FILE,
                     scope_row(GG_FK_SIDE), i))
            return -1;
    set_children(t, dir, first);
    if (scope == GG_FK_MODEL && t->m->nsides && unique_children(t, dir))
        return -1;
    return build_dirs(t, first, t->n);
}

int gg_mtree_build_rows(gg_mtree *t, uint32_t dir)
{
    return add_rows(t, dir, (gg_fscope)gg_files[t->nodes[dir].file].holds, 0);
}

/* The files of the recipes the model can take, listed (in -o as=) or not. */
static int add_recipes(gg_mtree *t, uint32_t dir, uint64_t listed, int want)
{
    size_t row = scope_row(GG_FK_RECIPE);
    for (size_t i = 0; i < gg_recipe_count(); i++) {
        char name[64];
        snprintf(name, sizeof name, "%s.gguf", gg_recipe_at(i)->name);
        if ((int)((listed >> i) & 1) == want && gg_file_present(&gg_files[row], t->m, i) &&
            add_node(t, strdup(name), dir, GG_C_FILE, row, i))
            return -1;
    }
    return 0;
}

int gg_mtree_build_as(gg_mtree *t, uint32_t dir)
{
    uint64_t listed;
    gg_err e;
    if (gg_recipe_list(t->o.as, &listed, &e))
        listed = 0; /* (the option was checked when it was given) */
    uint32_t first = t->n;
    if (add_recipes(t, dir, listed, 1) || add_row_nodes(t, dir, GG_FK_AS, 0))
        return -1;
    set_children(t, dir, first);
    /* after the children: found by name, not listed */
    uint32_t end = t->n;
    return add_recipes(t, dir, listed, 0) || build_dirs(t, first, end) ? -1 : 0;
}

/* tensors/: a folder per tensor, holding the tensor rows present for it. */
int gg_mtree_build_tensors(gg_mtree *t, uint32_t tens_dir)
{
    const gg_model *m = t->m;
    t->tensors_dir = tens_dir;
    uint32_t td0 = t->n;
    for (uint64_t i = 0; i < m->nt; i++)
        if (add_node(t, gg_name_escape(m->t[i].name, m->t[i].name_len), tens_dir, GG_C_TENSOR_DIR, 0, i))
            return -1;
    set_children(t, tens_dir, td0);
    if (unique_children(t, tens_dir))
        return -1;
    for (uint64_t i = 0; i < m->nt; i++)
        if (add_rows(t, td0 + (uint32_t)i, GG_FK_TENSOR, i))
            return -1;
    return 0;
}

int gg_mtree_build_none(gg_mtree *t, uint32_t dir)
{
    set_children(t, dir, t->n);
    return 0;
}

/* A comparison's tensors/: a folder per pair compared, named as this
 * model's tensor, holding the rows of GG_FK_VS_TENSOR. */
int gg_mtree_build_vs_tensors(gg_mtree *t, uint32_t dir)
{
    const gg_model *m = t->m;
    size_t np = gg_cmp_pairs(t->cmp);
    t->tensors_dir = dir;
    uint32_t td0 = t->n;
    for (size_t k = 0; k < np; k++) {
        uint64_t i = gg_cmp_tensor(t->cmp, k);
        if (add_node(t, gg_name_escape(m->t[i].name, m->t[i].name_len), dir, GG_C_TENSOR_DIR, 0, i))
            return -1;
    }
    set_children(t, dir, td0);
    if (unique_children(t, dir))
        return -1;
    for (size_t k = 0; k < np; k++)
        if (add_rows(t, td0 + (uint32_t)k, GG_FK_VS_TENSOR, gg_cmp_tensor(t->cmp, k)))
            return -1;
    return 0;
}

/* The root: the model rows in order (a comparison's, for a comparison),
 * then the folders' children (in row order, so node numbers are
 * metadata's KVs, then the tensors, then blocks). */
static int build(gg_mtree *t)
{
    return add_node(t, strdup(""), 0, GG_C_DIR, 0, 0) || add_rows(t, 0, t->ref ? GG_FK_VS : GG_FK_MODEL, 0) ? -1 : 0;
}

static uint64_t name_hash(uint32_t parent, const char *name)
{
    return gg_hash64(name, strlen(name), (uint64_t)parent * 0x9E3779B97F4A7C15ull);
}

static int build_hash(gg_mtree *t)
{
    uint32_t cap = 64;
    while (cap < 2 * t->n)
        cap *= 2;
    t->hash = calloc(cap, sizeof *t->hash);
    if (!t->hash)
        return -1;
    t->hash_cap = cap;
    for (uint32_t i = 1; i < t->n; i++) {
        uint64_t k = name_hash(t->nodes[i].parent, t->nodes[i].name) & (cap - 1);
        while (t->hash[k])
            k = (k + 1) & (cap - 1);
        t->hash[k] = i + 1;
    }
    return 0;
}

uint32_t gg_mtree_find(const gg_mtree *t, uint32_t parent, const char *name)
{
    uint64_t k = name_hash(parent, name) & (t->hash_cap - 1);
    for (; t->hash[k]; k = (k + 1) & (t->hash_cap - 1)) {
        const gg_node *n = &t->nodes[t->hash[k] - 1];
        if (n->parent == parent && strcmp(n->name, name) == 0)
            return t->hash[k] - 1;
    }
    return UINT32_MAX;
}

/* Node numbers are 32-bit and the tables double: keep well below that. */
#define MAX_NODES (1u << 30)

/* n more bytes held by t (made texts and composites). */
static void hold(gg_mtree *t, uint64_t n)
{
    atomic_fetch_add(&t->held, n);
    if (t->account)
        atomic_fetch_add(t->account, n);
}

/* Trees made so far: each gets its own number (gg_mtree.gen). */
static _Atomic uint64_t trees_made;

void gg_newkeys_free(gg_newkey *k, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(k[i].key);
    free(k);
}

static int copy_newkeys(gg_mtree *t, const gg_newkey *keys, size_t n)
{
    if (!n)
        return 0;
    t->newkeys = calloc(n, sizeof *t->newkeys);
    if (!t->newkeys)
        return -1;
    for (size_t i = 0; i < n; i++) {
        t->newkeys[i] = keys[i];
        if (!(t->newkeys[i].key = malloc(keys[i].len + 1))) {
            gg_newkeys_free(t->newkeys, i);
            t->newkeys = NULL;
            return -1;
        }
        memcpy(t->newkeys[i].key, keys[i].key, keys[i].len + 1);
    }
    t->nnewkeys = n;
    return 0;
}

/* A tree of m (or, with ref, of m against ref), built. */
static gg_mtree *mtree_make(gg_model *m, uint32_t uid_base, gg_model *ref, uint32_t ref_uid, gg_cmp *cmp,
                            gg_reader *r, const gg_tree_opts *o, _Atomic uint64_t *account, const gg_newkey *keys,
                            size_t nkeys, gg_err *e)
{
    /* per tensor: its folder, its files, a link in blocks/ */
    uint64_t want = ref ? 16 + (2 + gg_files_in_scope(GG_FK_VS_TENSOR)) * gg_cmp_pairs(cmp)
                        : 16 + gg_recipe_count() + m->f->n_kv + nkeys + (2 + gg_files_in_scope(GG_FK_TENSOR)) * m->nt;
    if (want > MAX_NODES) {
        gg_fail(e, GG_E_TOOBIG, "%s: too many keys and tensors (%" PRIu64 " nodes; at most %u)", m->path, want,
                MAX_NODES);
        return NULL;
    }
    gg_mtree *t = calloc(1, sizeof *t);
    if (!t) {
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    t->m = m;
    t->uid_base = uid_base;
    t->ref = ref;
    t->ref_uid_base = ref_uid;
    t->cmp = cmp;
    t->reader = r;
    t->gen = atomic_fetch_add(&trees_made, 1) + 1;
    pthread_mutex_init(&t->vs_lock, NULL);
    if (o)
        t->o = *o;
    if (copy_newkeys(t, keys, nkeys) || build(t) || build_hash(t)) {
        gg_mtree_free(t);
        gg_fail(e, GG_E_NOMEM, "%s: out of memory building its tree", m->path);
        return NULL;
    }
    uint64_t names = 0;
    for (uint32_t i = 0; i < t->n; i++)
        names += strlen(t->nodes[i].name) + 1;
    t->account = account;
    hold(t, sizeof *t + (uint64_t)t->cap * sizeof *t->nodes + names + (uint64_t)t->hash_cap * sizeof *t->hash +
                (ref ? 0 : gg_model_bytes(m)));
    return t;
}

gg_mtree *gg_mtree_new(gg_model *m, uint32_t uid_base, gg_reader *r, const gg_tree_opts *o,
                       _Atomic uint64_t *account, gg_err *e)
{
    return mtree_make(m, uid_base, NULL, 0, NULL, r, o, account, NULL, 0, e);
}

gg_mtree *gg_mtree_new_keys(gg_model *m, uint32_t uid_base, gg_reader *r, const gg_tree_opts *o,
                            _Atomic uint64_t *account, const gg_newkey *keys, size_t nkeys, gg_err *e)
{
    return mtree_make(m, uid_base, NULL, 0, NULL, r, o, account, keys, nkeys, e);
}

/* A comparison made against one tree of its reference. */
struct gg_vs_tree {
    uint32_t ref_id;
    uint64_t ref_gen;
    gg_mtree *t;
};

gg_mtree *gg_mtree_vs(gg_mtree *t, uint32_t ref_id, gg_mtree *ref, gg_cmp *cmp, gg_err *e)
{
    pthread_mutex_lock(&t->vs_lock);
    size_t i = 0;
    while (i < t->nvs && t->vs[i].ref_id != ref_id)
        i++;
    gg_mtree *v = i < t->nvs && t->vs[i].ref_gen == ref->gen ? t->vs[i].t : NULL;
    if (!v && i == t->nvs) {
        gg_vs_tree *p = realloc(t->vs, (t->nvs + 1) * sizeof *p);
        if (p) {
            t->vs = p;
            p[t->nvs++] = (gg_vs_tree){ref_id, 0, NULL};
        } else {
            gg_fail(e, GG_E_NOMEM, "out of memory");
            pthread_mutex_unlock(&t->vs_lock);
            return NULL;
        }
    }
    if (!v) {
        /* Made against a tree of ref that is gone: nobody can be using it
         * (its users hold that tree), so it goes. */
        gg_mtree_free(t->vs[i].t);
        t->vs[i].t = NULL;
        v = mtree_make(t->m, t->uid_base, ref->m, ref->uid_base, cmp, t->reader, &t->o, t->account, NULL, 0, e);
        t->vs[i].t = v;
        t->vs[i].ref_gen = ref->gen;
    }
    pthread_mutex_unlock(&t->vs_lock);
    return v;
}

void gg_mtree_free(gg_mtree *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->nvs; i++)
        gg_mtree_free(t->vs[i].t);
    free(t->vs);
    pthread_mutex_destroy(&t->vs_lock);
    /* Its model is closed next: no read-ahead job may still use it (a
     * comparison's are its model's, cancelled with the model's tree). */
    if (!t->ref)
        gg_reader_cancel(t->reader, t->m);
    if (t->account)
        atomic_fetch_sub(t->account, atomic_load(&t->held));
    for (uint32_t i = 0; i < t->n; i++) {
        free(t->nodes[i].name);
        free(atomic_load(&t->nodes[i].text));
        gg_composite_free(atomic_load(&t->nodes[i].comp));
    }
    free(t->nodes);
    free(t->hash);
    gg_newkeys_free(t->newkeys, t->nnewkeys);
    free(t);
}

const gg_tensor *gg_mtree_tensor(const gg_mtree *t, uint32_t node)
{
    const gg_node *n = &t->nodes[node];
    const gg_file_kind *k = gg_node_file(n);
    return n->content == GG_C_TENSOR_DIR || (k && k->scope == GG_FK_TENSOR) ? &t->m->t[n->arg] : NULL;
}

/* ---- content ---- */

/* The model changed under us: its decoded pages go (once), and every
 * shard counts as changed, so that all its tensors' reads fail alike. */
static void forget_model(gg_mtree *t)
{
    /* (a comparison fails from now on; its models' own trees see the
     * change at their next read) */
    if (atomic_exchange(&t->forgotten, 1) || t->ref)
        return;
    for (uint32_t i = 0; i < t->m->nshards; i++)
        if (t->m->shards[i].src)
            atomic_store(&t->m->shards[i].src->stale, 1);
    gg_reader_forget(t->reader, t->uid_base, t->uid_base + (uint32_t)t->m->nt);
}

int gg_mtree_check(gg_mtree *t, gg_err *err)
{
    gg_err local;
    gg_err *e = err ? err : &local;
    if (atomic_load(&t->forgotten))
        return gg_fail(e, GG_E_STALE, "%s: changed since it was mounted", t->m->path);
    for (int side = 0; side < (t->ref ? 2 : 1); side++) {
        const gg_model *m = side ? t->ref : t->m;
        for (uint32_t i = 0; i < m->nshards; i++) {
            if (m->shards[i].src && gg_source_check(m->shards[i].src, e)) {
                if (e->code == GG_E_STALE)
                    forget_model(t);
                return -1;
            }
        }
    }
    return 0;
}

/* Files whose bytes are the tensors' (and stats, made from them): they fail
 * once the model changed. */
static int reads_tensors(const gg_node *n)
{
    const gg_file_kind *k = gg_node_file(n);
    return k && (k->flags & (GG_FF_DATA | GG_FF_CHECK));
}

/* Make the text of node i. */
static int generate(gg_mtree *t, uint32_t i, gg_buf *out, gg_err *e)
{
    const gg_node *n = &t->nodes[i];
    const gg_file_kind *k = gg_node_file(n);
    if (!k || k->shape != GG_FS_TEXT)
        return gg_fail(e, GG_E_INVAL, "%s: not a text file", n->name);
    /* (past its estimate, made within GG_MAX_TEXT: the estimates are loose) */
    if ((k->bound ? k->bound(t, n->arg) : 4096) > GG_MAX_TEXT)
        out->max = GG_MAX_TEXT;
    out->stoppable = 1; /* (a long text stops once nobody waits for it) */
    if (k->render)
        k->render(t->m, out);
    else if (k->text(t, n->arg, out, e)) {
        /* (a text made from tensor data: stats) */
        if (e && e->code == GG_E_STALE)
            forget_model(t);
        return -1;
    }
    if (out->stopped)
        return gg_scope_check(e, n->name) ? -1 : gg_fail(e, GG_E_IO, "%s: stopped", n->name);
    if (out->over)
        return gg_fail(e, GG_E_TOOBIG, "%s: %s is more than %llu MiB of text", t->m->path, n->name,
                       GG_MAX_TEXT >> 20);
    return out->oom ? gg_fail(e, GG_E_NOMEM, "out of memory for %s", n->name) : 0;
}

/* The node's cached text, generated on first use. */
static int text_of(gg_mtree *t, uint32_t i, gg_text **res, gg_err *e)
{
    gg_node *n = &t->nodes[i];
    gg_text *txt = atomic_load_explicit(&n->text, memory_order_acquire);
    if (txt) {
        *res = txt;
        return 0;
    }
    gg_buf b = {0};
    if (generate(t, i, &b, e)) {
        gg_buf_free(&b);
        return -1;
    }
    txt = malloc(sizeof *txt + b.len + 1);
    if (!txt) {
        gg_buf_free(&b);
        return gg_fail(e, GG_E_NOMEM, "out of memory for %s", n->name);
    }
    txt->len = b.len;
    if (b.len)
        memcpy(txt->data, b.p, b.len);
    gg_buf_free(&b);
    gg_text *expected = NULL;
    if (!atomic_compare_exchange_strong(&n->text, &expected, txt)) {
        free(txt); /* another thread made it first */
        txt = expected;
    } else {
        hold(t, sizeof *txt + txt->len + 1);
    }
    *res = txt;
    return 0;
}

/* The segments of a composite file node, made on first use. */
static int comp_of(gg_mtree *t, uint32_t i, gg_composite **res, gg_err *e)
{
    gg_node *n = &t->nodes[i];
    gg_composite *c = atomic_load_explicit(&n->comp, memory_order_acquire);
    if (!c) {
        const gg_file_kind *k = &gg_files[n->file];
        c = k->segments(t, k, n->arg, e);
        if (!c)
            return -1;
        gg_composite *expected = NULL;
        if (!atomic_compare_exchange_strong(&n->comp, &expected, c)) {
            gg_composite_free(c); /* another thread made it first */
            c = expected;
        } else {
            hold(t, gg_composite_bytes(c));
        }
    }
    *res = c;
    return 0;
}

int gg_mtree_readlink(gg_mtree *t, uint32_t node, char *buf, size_t cap, gg_err *e)
{
    const gg_node *n = &t->nodes[node];
    if (n->content != GG_C_LINK)
        return gg_fail(e, GG_E_INVAL, "%s: not a symbolic link", n->name);
    const gg_node *target = &t->nodes[t->nodes[t->tensors_dir].first_child + n->arg];
    int k = snprintf(buf, cap, "../../tensors/%s", target->name);
    return k < 0 || (size_t)k >= cap ? gg_fail(e, GG_E_RANGE, "link target too long") : k;
}

/* Bytes of a file node, without generating anything whose size is fixed. */
static int file_size(gg_mtree *t, uint32_t i, uint64_t *size, gg_err *e)
{
    const gg_node *n = &t->nodes[i];
    if (n->content == GG_C_LINK) {
        char target[512];
        int k = gg_mtree_readlink(t, i, target, sizeof target, e);
        if (k < 0)
            return -1;
        *size = (uint64_t)k;
        return 0;
    }
    const gg_file_kind *k = &gg_files[n->file];
    switch (k->shape) {
    case GG_FS_VIEW:
        *size = gg_view_size(&t->m->t[n->arg], k->view);
        return 0;
    case GG_FS_COMPOSITE: {
        gg_composite *c;
        if (comp_of(t, i, &c, e))
            return -1;
        *size = c->size;
        return 0;
    }
    default: {
        if (k->fixed_size) {
            *size = k->fixed_size;
            return 0;
        }
        if (k->sized)
            return k->sized(t, n->arg, size, e);
        gg_text *txt;
        if (text_of(t, i, &txt, e))
            return -1;
        *size = txt->len;
        return 0;
    }
    }
}

int gg_mtree_getattr(gg_mtree *t, uint32_t node, gg_attr *a, gg_err *e)
{
    const gg_node *n = &t->nodes[node];
    memset(a, 0, sizeof *a);
    a->mtime = t->m->mtime;
    if (t->ref && (t->ref->mtime.tv_sec > a->mtime.tv_sec ||
                   (t->ref->mtime.tv_sec == a->mtime.tv_sec && t->ref->mtime.tv_nsec > a->mtime.tv_nsec)))
        a->mtime = t->ref->mtime;
    if (gg_node_is_dir(n)) {
        a->kind = GG_K_DIR;
        a->nlink = 2;
        for (uint32_t k = 0; k < n->n_children; k++)
            a->nlink += gg_node_is_dir(&t->nodes[n->first_child + k]);
        return 0;
    }
    a->kind = n->content == GG_C_LINK ? GG_K_LINK : GG_K_FILE;
    a->nlink = 1;
    if (file_size(t, node, &a->size, e))
        return -1;
    /* Only stored bytes take disk: du of a mount reports the model, not the
     * decoded views and texts made from it. */
    a->blocks = n->content == GG_C_FILE && (gg_files[n->file].flags & GG_FF_STORED) ? (a->size + 511) / 512 : 0;
    a->tensor_data = gg_node_is_data(n);
    a->mapped = a->tensor_data && gg_files[n->file].shape == GG_FS_COMPOSITE;
    return 0;
}

int gg_mtree_open(gg_mtree *t, uint32_t node, gg_open_file **of, gg_err *e)
{
    const gg_node *n = &t->nodes[node];
    *of = NULL;
    if (gg_node_is_dir(n))
        return gg_fail(e, GG_E_ISDIR, "%s: is a folder", n->name);
    /* Every open file has its state, so that it holds its model open
     * (tree.c); only decoded views use the read-ahead. */
    gg_open_file *o = calloc(1, sizeof *o);
    if (!o)
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    gg_readahead_init(&o->ra);
    gg_readahead_init(&o->ra_ref);
    /* A model changed in place: what the kernel cached of its tensors'
     * files must not be served (their reads fail). */
    o->stale = reads_tensors(n) && gg_mtree_check(t, NULL) != 0;
    *of = o;
    return 0;
}

/* The cache id of a tensor: unique across the models of the mount. */
static uint32_t tensor_uid(const gg_mtree *t, uint64_t tensor) { return t->uid_base + (uint32_t)tensor; }

/* A segment of a composite file: a view of one of the model's tensors, or
 * the stored bytes of one of its files. */
typedef struct view_ctx {
    gg_mtree *t;
    gg_open_file *of;
} view_ctx;

/* A comparison's view of a tensor: this - ref, as float32. */
static ssize_t read_diff(gg_mtree *t, uint64_t tensor, gg_open_file *of, char *buf, size_t n, uint64_t off,
                         gg_err *e)
{
    gg_cmp_side a = {t->reader, t->m, t->uid_base, of ? &of->ra : NULL};
    gg_cmp_side r = {t->reader, t->ref, t->ref_uid_base, of ? &of->ra_ref : NULL};
    return gg_cmp_read_diff(t->cmp, gg_cmp_pair_of(t->cmp, tensor), &a, &r, buf, n, off, e);
}

/* The bytes are all in buf. */
static ssize_t in_buf(gg_ref *ref, char *buf, ssize_t got)
{
    if (got > 0) {
        ref->iov[0] = (struct iovec){buf, (size_t)got};
        ref->niov = 1;
    }
    return got;
}

static ssize_t read_segment(void *arg, const gg_segment *s, char *buf, size_t n, uint64_t off, gg_ref *sub,
                            gg_err *e)
{
    view_ctx *v = arg;
    const gg_model *m = v->t->m;
    if (s->kind == GG_SEG_SHARD)
        return gg_source_read(m->shards[s->shard].src, buf, n, off, e) ? -1 : in_buf(sub, buf, (ssize_t)n);
    /* (a comparison's tensors are seen through its one view, the diff) */
    if (v->t->ref)
        return in_buf(sub, buf, read_diff(v->t, s->tensor, v->of, buf, n, off, e));
    return gg_read_view(v->t->reader, m, &m->t[s->tensor], tensor_uid(v->t, s->tensor), s->view, buf, n, off,
                        v->of ? &v->of->ra : NULL, sub, e);
}

ssize_t gg_mtree_read_ref(gg_mtree *t, uint32_t node, gg_open_file *of, char *buf, size_t size, uint64_t off,
                          gg_ref *ref, gg_err *err)
{
    gg_err local;
    gg_err *e = err ? err : &local;
    gg_ref_init(ref);
    const gg_node *n = &t->nodes[node];
    const gg_model *m = t->m;
    gg_readahead *ra = of ? &of->ra : NULL;
    ssize_t got;
    if (gg_node_is_dir(n))
        return gg_fail(e, GG_E_ISDIR, "%s: is a folder", n->name);
    if (n->content == GG_C_LINK)
        return gg_fail(e, GG_E_INVAL, "%s: a symbolic link", n->name);
    const gg_file_kind *k = &gg_files[n->file];
    switch (k->shape) {
    case GG_FS_VIEW:
        if (t->ref)
            got = in_buf(ref, buf, read_diff(t, n->arg, of, buf, size, off, e));
        else
            got = gg_read_view(t->reader, m, &m->t[n->arg], tensor_uid(t, n->arg), k->view, buf, size, off, ra,
                               ref, e);
        break;
    case GG_FS_COMPOSITE: {
        gg_composite *c;
        /* (its header lies in memory, made from the header as it was: it
         * fails alike once the model changed, not only its tensor bytes) */
        if (gg_mtree_check(t, e) || comp_of(t, node, &c, e))
            return -1;
        /* (the bytes stay where they lie: cached pages, the header) */
        view_ctx v = {t, of};
        got = gg_composite_read(c, t->reader, read_segment, &v, buf, size, off, ref, e);
        break;
    }
    default: {
        gg_text *txt;
        /* A text made from a tensor's bytes (stats, a comparison's): not
         * once they changed. */
        if ((k->flags & GG_FF_CHECK) &&
            (t->ref ? gg_mtree_check(t, e) : gg_source_check(gg_tensor_source(m, &m->t[n->arg]), e))) {
            forget_model(t);
            return -1;
        }
        if (text_of(t, node, &txt, e))
            return -1;
        got = off < txt->len ? (ssize_t)(size < txt->len - off ? size : txt->len - off) : 0;
        if (got > 0) {
            /* Texts never change once made: no copy. */
            ref->iov[0] = (struct iovec){txt->data + off, (size_t)got};
            ref->niov = 1;
        }
        return got;
    }
    }
    if (got < 0 && e->code == GG_E_STALE)
        forget_model(t);
    return got;
}
