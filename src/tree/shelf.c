/* shelf.c - models by name, kept current (see shelf.h): the names and
 * folders shown, the entries behind them, and what the tree asks. The
 * state and its locks are in shelf_int.h. */
#include "gguffs/shelf.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gguffs/buf.h"
#include "gguffs/names.h"
#include "shelf_int.h"

/* ---- folders (lock held for writing) ---- */

static int new_node(gg_shelf *s, const char *name, uint32_t parent, gg_snode kind, uint32_t *out)
{
    if (gg_grow((void **)&s->nodes, &s->cap, s->n, sizeof *s->nodes, 64))
        return -1;
    snode *nd = &s->nodes[s->n];
    memset(nd, 0, sizeof *nd);
    nd->name = strdup(name);
    if (!nd->name)
        return -1;
    nd->parent = parent;
    nd->kind = kind;
    nd->mtime = now_ts();
    *out = s->n++;
    return 0;
}

static uint32_t find_kid(const gg_shelf *s, uint32_t dir, const char *name, uint32_t *pos)
{
    const snode *d = &s->nodes[dir];
    uint32_t lo = 0, hi = d->nkids;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        int c = strcmp(s->nodes[d->kids[mid]].name, name);
        if (c == 0) {
            if (pos)
                *pos = mid;
            return d->kids[mid];
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (pos)
        *pos = lo;
    return UINT32_MAX;
}

static int add_kid(gg_shelf *s, uint32_t dir, uint32_t kid)
{
    uint32_t pos;
    find_kid(s, dir, s->nodes[kid].name, &pos);
    snode *d = &s->nodes[dir];
    if (d->nkids == d->capkids) {
        uint32_t nc = d->capkids ? d->capkids * 2 : 8;
        uint32_t *p = realloc(d->kids, nc * sizeof *p);
        if (!p)
            return -1;
        d->kids = p;
        d->capkids = nc;
    }
    memmove(d->kids + pos + 1, d->kids + pos, (d->nkids - pos) * sizeof *d->kids);
    d->kids[pos] = kid;
    d->nkids++;
    d->mtime = now_ts();
    return 0;
}

static void drop_kid(gg_shelf *s, uint32_t dir, uint32_t kid)
{
    snode *d = &s->nodes[dir];
    for (uint32_t i = 0; i < d->nkids; i++) {
        if (d->kids[i] == kid) {
            memmove(d->kids + i, d->kids + i + 1, (d->nkids - i - 1) * sizeof *d->kids);
            d->nkids--;
            d->mtime = now_ts();
            return;
        }
    }
}

void shelf_queue_note(gg_shelf *s, uint32_t dir, const char *name)
{
    if (s->nnotes == s->capnotes) {
        size_t nc = s->capnotes ? s->capnotes * 2 : 32;
        note *p = realloc(s->notes, nc * sizeof *p);
        if (!p)
            return;
        s->notes = p;
        s->capnotes = nc;
    }
    char *nm = name ? strdup(name) : NULL;
    if (name && !nm)
        return;
    s->notes[s->nnotes++] = (note){dir, nm, 0};
}

/* Model id's file changed, or may have: the tree checks and tells the
 * kernel (lock held for writing). */
void shelf_queue_model_note(gg_shelf *s, uint32_t id)
{
    size_t before = s->nnotes;
    shelf_queue_note(s, 0, NULL);
    if (s->nnotes > before)
        s->notes[before].model = id;
}

/* Forget the queued notes (before anyone listens). */
void shelf_drop_notes(gg_shelf *s)
{
    for (size_t i = 0; i < s->nnotes; i++)
        free(s->notes[i].name);
    s->nnotes = 0;
}

const char *const gg_shelf_root_files[GG_N_ROOT_FILES] = {"models.tsv", ".errors", ".stats"};

static int is_root_file(const char *nm)
{
    for (size_t i = 0; i < GG_N_ROOT_FILES; i++)
        if (!strcmp(nm, gg_shelf_root_files[i]))
            return 1;
    return 0;
}

/* *nm made distinct from every name of folder dir, and from the root's
 * files (NAME~2, ...). */
static int unique_in(gg_shelf *s, uint32_t dir, char **nm)
{
    const snode *d = &s->nodes[dir];
    const char **taken = malloc((d->nkids + 4) * sizeof *taken);
    if (!taken)
        return -1;
    uint32_t nt = 0;
    for (uint32_t i = 0; i < d->nkids; i++)
        taken[nt++] = s->nodes[d->kids[i]].name;
    for (size_t i = 0; dir == 0 && i < GG_N_ROOT_FILES; i++)
        taken[nt++] = gg_shelf_root_files[i];
    char **p = nm;
    int rc = gg_names_unique(&p, 1, taken, nt);
    free(taken);
    return rc;
}

/* Folder comp of folder dir, for a model's name: *out, made if missing. */
static int folder_for(gg_shelf *s, uint32_t dir, const char *comp, uint32_t *out)
{
    char *nm = gg_name_escape(comp, strlen(comp));
    if (!nm)
        return -1;
    uint32_t k = find_kid(s, dir, nm, NULL);
    if (k != UINT32_MAX && s->nodes[k].kind != GG_SN_DIR) {
        /* a model holds this name: the folder goes beside it as NAME~2 */
        char **p = &nm;
        const char *taken = s->nodes[k].name;
        if (gg_names_unique(&p, 1, &taken, 1)) {
            free(nm);
            return -1;
        }
        k = find_kid(s, dir, nm, NULL);
    }
    if (k == UINT32_MAX) {
        if (new_node(s, nm, dir, GG_SN_DIR, &k) || add_kid(s, dir, k)) {
            free(nm);
            return -1;
        }
        shelf_queue_note(s, dir, nm);
    }
    free(nm);
    *out = k;
    return 0;
}

/* Show entry en: make its folders and its node (a name taken gets ~N). */
int shelf_show(gg_shelf *s, gg_entry *en)
{
    uint32_t dir = en->src >= 0 ? s->dirs[en->src].node : 0;
    for (int i = 0; i + 1 < en->ncomps; i++)
        if (folder_for(s, dir, en->comps[i], &dir))
            return -1;
    const char *last = en->ncomps ? en->comps[en->ncomps - 1] : "model";
    char *nm = gg_name_escape(last, strlen(last));
    if (!nm)
        return -1;
    /* Distinct from every name of the folder, and from the root's files
     * (the list of names taken is made only when this one is: a folder of
     * 10 000 models is made in n log n, not n^2). */
    int rc = 0;
    if (find_kid(s, dir, nm, NULL) != UINT32_MAX || (dir == 0 && is_root_file(nm)))
        rc = unique_in(s, dir, &nm);
    uint32_t k;
    if (rc || new_node(s, nm, dir, GG_SN_MODEL, &k) || add_kid(s, dir, k)) {
        free(nm);
        return -1;
    }
    s->nodes[k].entry = en->id;
    s->nodes[k].mtime = en->mtime;
    en->node = k;
    en->state = E_VISIBLE;
    shelf_queue_note(s, dir, nm);
    shelf_queue_note(s, UINT32_MAX, NULL);
    free(nm);
    return 0;
}

/* A folder of the root for a folder argument's models, named as (a name
 * taken gets ~2), kept while empty (lock held for writing). */
int shelf_pinned_folder(gg_shelf *s, const char *as, uint32_t *out)
{
    char *nm = gg_name_escape(as, strlen(as));
    if (!nm)
        return -1;
    int rc = unique_in(s, 0, &nm) || new_node(s, nm, 0, GG_SN_DIR, out) || add_kid(s, 0, *out);
    free(nm);
    if (!rc)
        s->nodes[*out].pinned = 1;
    return rc ? -1 : 0;
}

/* Hide entry en's node, and the folders it leaves empty. */
void shelf_hide(gg_shelf *s, gg_entry *en, int state)
{
    if (en->state == E_VISIBLE) {
        uint32_t k = en->node;
        while (k != 0) {
            uint32_t dir = s->nodes[k].parent;
            drop_kid(s, dir, k);
            s->nodes[k].kind = GG_SN_NONE;
            shelf_queue_note(s, dir, s->nodes[k].name);
            if (dir == 0 || s->nodes[dir].nkids || s->nodes[dir].pinned)
                break;
            k = dir;
        }
    }
    en->state = state;
    shelf_queue_note(s, UINT32_MAX, NULL);
}

/* Show en, checked, in the place of the model it replaces (lock held for
 * writing): the name switches from the old model to the new one at once,
 * never missing (a new node under the same name, so that the kernel asks
 * again; readers of the old one keep its inodes). */
int shelf_take_place(gg_shelf *s, gg_entry *en)
{
    gg_entry *old = en->replaces ? s->ent[en->replaces - 1] : NULL;
    en->replaces = 0;
    if (!old || old->replaced_by != en->id)
        return shelf_show(s, en);
    old->replaced_by = 0;
    uint32_t k = old->node, dir = s->nodes[k].parent, pos, nk;
    if (old->state != E_VISIBLE || !same_comps(old->comps, old->ncomps, en->comps, en->ncomps) || find_kid(s, dir, s->nodes[k].name, &pos) != k ||
        new_node(s, s->nodes[k].name, dir, GG_SN_MODEL, &nk)) {
        if (old->state != E_REMOVED)
            shelf_hide(s, old, E_REMOVED);
        return shelf_show(s, en);
    }
    s->nodes[dir].kids[pos] = nk;
    s->nodes[dir].mtime = now_ts();
    s->nodes[k].kind = GG_SN_NONE;
    s->nodes[nk].entry = en->id;
    s->nodes[nk].mtime = en->mtime;
    en->node = nk;
    en->state = E_VISIBLE;
    old->state = E_REMOVED;
    shelf_queue_note(s, dir, s->nodes[nk].name);
    shelf_queue_note(s, UINT32_MAX, NULL);
    return 0;
}

/* ---- entries ---- */

gg_entry *shelf_new_entry(gg_shelf *s, int src, const char *key, char **comps, int ncomps, const char *spec)
{
    if (gg_grow((void **)&s->ent, &s->capent, s->nent, sizeof *s->ent, 64))
        return NULL;
    gg_entry *en = calloc(1, sizeof *en);
    if (!en)
        return NULL;
    en->id = s->nent + 1;
    en->src = src;
    en->key = key ? strdup(key) : NULL;
    en->spec = strdup(spec);
    en->comps = calloc((size_t)(ncomps ? ncomps : 1), sizeof *en->comps);
    int ok = en->spec && en->comps && (!key || en->key);
    for (int i = 0; ok && i < ncomps; i++)
        ok = (en->comps[i] = strdup(comps[i])) != NULL;
    en->ncomps = ncomps;
    pthread_mutex_init(&en->mu, NULL);
    if (!ok) {
        for (int i = 0; i < ncomps && en->comps; i++)
            free(en->comps[i]);
        free(en->comps);
        free(en->key);
        free(en->spec);
        pthread_mutex_destroy(&en->mu);
        free(en);
        return NULL;
    }
    s->ent[s->nent++] = en;
    return en;
}

gg_shelf *gg_shelf_new(const gg_open_opts *o, gg_err *e)
{
    gg_shelf *s = calloc(1, sizeof *s);
    uint32_t root;
    if (!s) {
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    pthread_rwlock_init(&s->lock, NULL);
    pthread_mutex_init(&s->trim_mu, NULL);
    s->wake[0] = s->wake[1] = -1;
    if (o)
        s->oo = *o;
    if (new_node(s, "", 0, GG_SN_DIR, &root)) {
        gg_shelf_free(s);
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    return s;
}

int gg_shelf_add(gg_shelf *s, const char *name, const char *spec, gg_model *opened, gg_err *e)
{
    return gg_shelf_add_sides(s, name, spec, opened, NULL, 0, e);
}

int gg_shelf_add_sides(gg_shelf *s, const char *name, const char *spec, gg_model *opened, const gg_side_spec *sides,
                       int nsides, gg_err *e)
{
    char *copy = strdup(name);
    char *comps[64];
    int nc = 0;
    for (char *p = copy, *c; copy && nc < 64 && (c = strsep(&p, "/"));)
        if (*c)
            comps[nc++] = c;
    pthread_rwlock_wrlock(&s->lock);
    gg_entry *en = copy ? shelf_new_entry(s, -1, NULL, comps, nc, spec) : NULL;
    int rc = en ? gg_side_specs_copy(&en->sides, &en->nsides, sides, nsides) : -1;
    if (en && rc == 0) {
        en->model = opened;
        en->checked = opened != NULL;
        en->size = opened ? opened->size : 0;
        if (opened)
            en->mtime = opened->mtime;
        else /* (a URL opened on first look: until then, the mount's time, not 1970) */
            clock_gettime(CLOCK_REALTIME, &en->mtime);
        rc = shelf_show(s, en);
    }
    shelf_drop_notes(s); /* nobody to tell yet */
    pthread_rwlock_unlock(&s->lock);
    free(copy);
    return rc ? gg_fail(e, GG_E_NOMEM, "out of memory") : 0;
}

/* An entry, its tree and its model, freed at the end. */
static void free_entry(gg_entry *en)
{
    if (en->tree && en->unmake)
        en->unmake(en->tree);
    if (en->model) {
        gg_model_close(en->model);
        free(en->model);
    }
    for (int i = 0; i < en->ncomps; i++)
        free(en->comps[i]);
    free(en->comps);
    free(en->key);
    free(en->spec);
    gg_side_specs_free(en->sides, en->nsides);
    free(en->error);
    free(en->first_id);
    pthread_mutex_destroy(&en->mu);
    free(en);
}

void gg_shelf_free(gg_shelf *s)
{
    if (!s)
        return;
    shelf_stop(s);
    for (uint32_t k = 0; k < s->nent; k++)
        free_entry(s->ent[k]);
    free(s->ent);
    pthread_mutex_destroy(&s->trim_mu);
    for (uint32_t i = 0; i < s->n; i++) {
        free(s->nodes[i].name);
        free(s->nodes[i].kids);
    }
    free(s->nodes);
    shelf_drop_notes(s);
    free(s->notes);
    for (int i = 0; i < s->ndirs; i++)
        free(s->dirs[i].path);
    free(s->dirs);
    free(s->lease_path);
    pthread_rwlock_destroy(&s->lock);
    free(s);
}

/* ---- what the tree asks ---- */

gg_snode gg_shelf_lookup(gg_shelf *s, uint32_t dir, const char *name, uint32_t *node)
{
    gg_snode k = GG_SN_NONE;
    pthread_rwlock_rdlock(&s->lock);
    if (dir < s->n && s->nodes[dir].kind == GG_SN_DIR) {
        uint32_t c = find_kid(s, dir, name, NULL);
        if (c != UINT32_MAX) {
            *node = c;
            k = s->nodes[c].kind;
        }
    }
    pthread_rwlock_unlock(&s->lock);
    return k;
}

gg_snode gg_shelf_kind(gg_shelf *s, uint32_t node)
{
    pthread_rwlock_rdlock(&s->lock);
    gg_snode k = node < s->n ? s->nodes[node].kind : GG_SN_NONE;
    pthread_rwlock_unlock(&s->lock);
    return k;
}

uint32_t gg_shelf_parent(gg_shelf *s, uint32_t node)
{
    pthread_rwlock_rdlock(&s->lock);
    uint32_t p = node < s->n ? s->nodes[node].parent : 0;
    pthread_rwlock_unlock(&s->lock);
    return p;
}

int gg_shelf_readdir(gg_shelf *s, uint32_t dir, uint64_t from,
                     int (*fn)(void *arg, const char *name, uint32_t node, gg_snode kind), void *arg)
{
    pthread_rwlock_rdlock(&s->lock);
    if (dir >= s->n || s->nodes[dir].kind != GG_SN_DIR) {
        pthread_rwlock_unlock(&s->lock);
        return -1;
    }
    const snode *d = &s->nodes[dir];
    for (uint64_t i = from; i < d->nkids; i++) {
        const snode *c = &s->nodes[d->kids[i]];
        if (fn(arg, c->name, d->kids[i], c->kind))
            break;
    }
    pthread_rwlock_unlock(&s->lock);
    return 0;
}

void gg_shelf_dir_info(gg_shelf *s, uint32_t dir, uint32_t *subdirs, struct timespec *mtime)
{
    *subdirs = 0;
    pthread_rwlock_rdlock(&s->lock);
    if (dir < s->n) {
        const snode *d = &s->nodes[dir];
        for (uint32_t i = 0; i < d->nkids; i++)
            *subdirs += 1; /* folders and model folders alike */
        *mtime = d->mtime;
    }
    pthread_rwlock_unlock(&s->lock);
}

gg_entry *gg_shelf_entry_at(gg_shelf *s, uint32_t node)
{
    gg_entry *en = NULL;
    pthread_rwlock_rdlock(&s->lock);
    if (node < s->n && s->nodes[node].entry && s->nodes[node].entry <= s->nent)
        en = s->ent[s->nodes[node].entry - 1];
    pthread_rwlock_unlock(&s->lock);
    return en;
}

gg_entry *gg_shelf_entry(gg_shelf *s, uint32_t id)
{
    pthread_rwlock_rdlock(&s->lock);
    gg_entry *en = id >= 1 && id <= s->nent ? s->ent[id - 1] : NULL;
    pthread_rwlock_unlock(&s->lock);
    return en;
}

uint32_t gg_entry_id(const gg_entry *en) { return en->id; }

uint32_t gg_entry_node(gg_shelf *s, const gg_entry *en)
{
    pthread_rwlock_rdlock(&s->lock);
    uint32_t n = en->node;
    pthread_rwlock_unlock(&s->lock);
    return n;
}
struct timespec gg_entry_mtime(const gg_entry *en) { return en->mtime; }

char *gg_entry_path(gg_shelf *s, const gg_entry *en)
{
    gg_buf b = {0};
    pthread_rwlock_rdlock(&s->lock);
    shelf_shown_path(s, en->node, &b);
    pthread_rwlock_unlock(&s->lock);
    if (b.oom || !b.p) {
        gg_buf_free(&b);
        return NULL;
    }
    return b.p;
}
