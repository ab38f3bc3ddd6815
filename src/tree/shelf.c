/* shelf.c - models by name, kept current (see shelf.h): the names and
 * folders shown, the entries behind them, and what the tree asks. The
 * state and its locks are in shelf_int.h. */
#include "gguffs/shelf.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/log.h"
#include "gguffs/names.h"
#include "shelf_int.h"
#include "stores.h"

/* ---- folders (lock held for writing) ---- */

static int new_node(gg_shelf *s, const char *name, uint32_t parent, gg_snode kind, uint32_t *out)
{
    if (s->n == s->cap) {
        uint32_t nc = s->cap ? s->cap * 2 : 64;
        snode *p = realloc(s->nodes, nc * sizeof *p);
        if (!p)
            return -1;
        s->nodes = p;
        s->cap = nc;
    }
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

static void queue_note(gg_shelf *s, uint32_t dir, const char *name)
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
    queue_note(s, 0, NULL);
    if (s->nnotes > before)
        s->notes[before].model = id;
}

/* Forget the queued notes (before anyone listens). */
static void drop_notes(gg_shelf *s)
{
    for (size_t i = 0; i < s->nnotes; i++)
        free(s->notes[i].name);
    s->nnotes = 0;
}

/* Show entry en: make its folders and its node (a name taken gets ~N). */
static int show(gg_shelf *s, gg_entry *en)
{
    uint32_t dir = en->src >= 0 ? s->dirs[en->src].node : 0;
    for (int i = 0; i + 1 < en->ncomps; i++) {
        char *nm = gg_name_escape(en->comps[i], strlen(en->comps[i]));
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
            queue_note(s, dir, nm);
        }
        free(nm);
        dir = k;
    }
    const char *last = en->ncomps ? en->comps[en->ncomps - 1] : "model";
    char *nm = gg_name_escape(last, strlen(last));
    if (!nm)
        return -1;
    /* Distinct from every name of the folder, and from the root's files
     * (the list of names taken is made only when this one is: a folder of
     * 10 000 models is made in n log n, not n^2). */
    int rc = 0;
    if (find_kid(s, dir, nm, NULL) != UINT32_MAX ||
        (dir == 0 && (!strcmp(nm, "models.tsv") || !strcmp(nm, ".errors") || !strcmp(nm, ".stats")))) {
        const snode *d = &s->nodes[dir];
        const char **taken = malloc((d->nkids + 4) * sizeof *taken);
        if (!taken) {
            free(nm);
            return -1;
        }
        uint32_t nt = 0;
        for (uint32_t i = 0; i < d->nkids; i++)
            taken[nt++] = s->nodes[d->kids[i]].name;
        if (dir == 0) {
            taken[nt++] = "models.tsv";
            taken[nt++] = ".errors";
            taken[nt++] = ".stats";
        }
        char **p = &nm;
        rc = gg_names_unique(&p, 1, taken, nt);
        free(taken);
    }
    uint32_t k;
    if (rc || new_node(s, nm, dir, GG_SN_MODEL, &k) || add_kid(s, dir, k)) {
        free(nm);
        return -1;
    }
    s->nodes[k].entry = en->id;
    s->nodes[k].mtime = en->mtime;
    en->node = k;
    en->state = E_VISIBLE;
    queue_note(s, dir, nm);
    queue_note(s, UINT32_MAX, NULL);
    free(nm);
    return 0;
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
            queue_note(s, dir, s->nodes[k].name);
            if (dir == 0 || s->nodes[dir].nkids || s->nodes[dir].pinned)
                break;
            k = dir;
        }
    }
    en->state = state;
    queue_note(s, UINT32_MAX, NULL);
}

static int same_comps(const gg_entry *a, const gg_entry *b)
{
    if (a->ncomps != b->ncomps)
        return 0;
    for (int i = 0; i < a->ncomps; i++)
        if (strcmp(a->comps[i], b->comps[i]))
            return 0;
    return 1;
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
        return show(s, en);
    old->replaced_by = 0;
    uint32_t k = old->node, dir = s->nodes[k].parent, pos, nk;
    if (old->state != E_VISIBLE || !same_comps(old, en) || find_kid(s, dir, s->nodes[k].name, &pos) != k ||
        new_node(s, s->nodes[k].name, dir, GG_SN_MODEL, &nk)) {
        if (old->state != E_REMOVED)
            shelf_hide(s, old, E_REMOVED);
        return show(s, en);
    }
    s->nodes[dir].kids[pos] = nk;
    s->nodes[dir].mtime = now_ts();
    s->nodes[k].kind = GG_SN_NONE;
    s->nodes[nk].entry = en->id;
    s->nodes[nk].mtime = en->mtime;
    en->node = nk;
    en->state = E_VISIBLE;
    old->state = E_REMOVED;
    queue_note(s, dir, s->nodes[nk].name);
    queue_note(s, UINT32_MAX, NULL);
    return 0;
}

/* ---- entries ---- */

static gg_entry *new_entry(gg_shelf *s, int src, const char *key, char **comps, int ncomps, const char *spec)
{
    if (s->nent == s->capent) {
        uint32_t nc = s->capent ? s->capent * 2 : 64;
        gg_entry **p = realloc(s->ent, nc * sizeof *p);
        if (!p)
            return NULL;
        s->ent = p;
        s->capent = nc;
    }
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
    char *copy = strdup(name);
    char *comps[64];
    int nc = 0;
    for (char *p = copy, *c; copy && nc < 64 && (c = strsep(&p, "/"));)
        if (*c)
            comps[nc++] = c;
    pthread_rwlock_wrlock(&s->lock);
    gg_entry *en = copy ? new_entry(s, -1, NULL, comps, nc, spec) : NULL;
    int rc = en ? 0 : -1;
    if (en) {
        en->model = opened;
        en->checked = opened != NULL;
        en->size = opened ? opened->size : 0;
        if (opened)
            en->mtime = opened->mtime;
        else /* (a URL opened on first look: until then, the mount's time, not 1970) */
            clock_gettime(CLOCK_REALTIME, &en->mtime);
        rc = show(s, en);
    }
    drop_notes(s); /* nobody to tell yet */
    pthread_rwlock_unlock(&s->lock);
    free(copy);
    return rc ? gg_fail(e, GG_E_NOMEM, "out of memory") : 0;
}

/* ---- folders and stores: scan, and compare with what is shown ---- */

static int same_file(const gg_entry *en, const gg_found *f)
{
    return en->dev == f->dev && en->ino == f->ino && en->size == f->size && en->mtime.tv_sec == f->mtime.tv_sec &&
           en->mtime.tv_nsec == f->mtime.tv_nsec;
}

static void remember(gg_entry *en, const gg_found *f)
{
    en->dev = f->dev;
    en->ino = f->ino;
    en->size = f->size;
    en->mtime = f->mtime;
}

static int same_name(const gg_entry *en, const gg_found *f)
{
    if (en->ncomps != f->ncomps)
        return 0;
    for (int i = 0; i < f->ncomps; i++)
        if (strcmp(en->comps[i], f->comps[i]))
            return 0;
    return 1;
}

/* The same file under a new name (Hugging Face's refs/main moved to another
 * revision): hidden now, its name changed, shown again by the caller once
 * every such entry is out of the way (lock held for writing). */
static int take_new_name(gg_shelf *s, gg_entry *en, gg_found *f)
{
    int visible = en->state == E_VISIBLE;
    if (visible)
        shelf_hide(s, en, E_PENDING);
    for (int i = 0; i < en->ncomps; i++)
        free(en->comps[i]);
    free(en->comps);
    en->comps = f->comps; /* taken over */
    en->ncomps = f->ncomps;
    f->comps = NULL;
    f->ncomps = 0;
    return visible;
}

/* en, and the entry it is to replace, are still in the folder. */
static void see(char *seen, const gg_entry *en)
{
    if (!seen)
        return;
    seen[en->id - 1] = 1;
    if (en->replaces)
        seen[en->replaces - 1] = 1;
}

/* Is f's file being written (lock held)? Said once in the log when leases
 * cannot tell: the quiet rule decides then. */
static int writing_now(gg_shelf *s, const gg_found *f)
{
    int why;
    int w = gg_store_writing(f->spec, &why);
    if (w < 0 && !s->lease_why && (s->lease_path = strdup(f->spec)))
        s->lease_why = why;
    return w;
}

/* What the scans found to say, said once the daemon logs where the user
 * asked (by the worker: a mount's first scan runs before -o logfile is
 * opened) (lock held for writing). */
void shelf_log_found(gg_shelf *s)
{
    if (!s->running)
        return;
    if (s->lease_why && !s->lease_told) {
        s->lease_told = 1;
        gg_log("%s: no read lease (%s), so it cannot be told whether a process has a file open for writing: "
               "new files are shown once they are quiet for a second", s->lease_path, strerror(s->lease_why));
    }
    for (uint32_t k = 0; k < s->nent; k++) {
        gg_entry *en = s->ent[k];
        if (en->scan_error && !en->logged && en->state == E_ERROR && en->error) {
            en->logged = 1;
            gg_log("%s: left out: %s", en->spec, en->error);
        }
    }
}

/* A place of the folder that holds no model but a fault (a broken Ollama
 * manifest): listed in .errors and logged, once (lock held). */
static void found_error(gg_shelf *s, gg_entry *en, const gg_found *f)
{
    en->scan_error = 1;
    en->error = strdup(f->error);
    en->state = E_ERROR;
    en->checked = 1;
    queue_note(s, UINT32_MAX, NULL);
}

static int entry_by_key(const void *a, const void *b)
{
    return strcmp((*(gg_entry *const *)a)->key, (*(gg_entry *const *)b)->key);
}

/* Scan folder src and bring the entries up to date. initial: models found
 * are shown at once (opened lazily); later, new ones wait to be checked.
 * Files open for writing wait until they are closed. */
int shelf_rescan(gg_shelf *s, int src, int initial, gg_err *e)
{
    gg_found *f;
    size_t n;
    if (gg_store_scan(s->dirs[src].path, s->dirs[src].kind, s->skip_dev, &f, &n, e))
        return -1;
    struct timespec now = now_ts();
    pthread_rwlock_wrlock(&s->lock);
    char *seen = calloc(s->nent + 1, 1);
    gg_entry **renamed = calloc(n + 1, sizeof *renamed);
    size_t nrenamed = 0;
    /* The folder's entries by key, to find each model found in log n. */
    gg_entry **byk = malloc((s->nent + 1) * sizeof *byk);
    size_t nbyk = 0;
    for (uint32_t k = 0; byk && k < s->nent; k++)
        if (s->ent[k]->src == src && s->ent[k]->state != E_REMOVED && !s->ent[k]->replaced_by)
            byk[nbyk++] = s->ent[k];
    if (byk)
        qsort(byk, nbyk, sizeof *byk, entry_by_key);
    for (size_t i = 0; i < n; i++) {
        gg_entry *en = NULL;
        if (byk) {
            size_t lo = 0, hi = nbyk;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                int c = strcmp(byk[mid]->key, f[i].key);
                if (c == 0) {
                    en = byk[mid];
                    break;
                }
                if (c < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
        } else {
            for (uint32_t k = 0; k < s->nent && !en; k++) {
                gg_entry *c = s->ent[k];
                if (c->src == src && c->state != E_REMOVED && !c->replaced_by && !strcmp(c->key, f[i].key))
                    en = c;
            }
        }
        if (en && same_file(en, &f[i]) && en->scan_error == (f[i].error != NULL)) {
            see(seen, en);
            if (en->state == E_PENDING)
                en->writing = writing_now(s, &f[i]);
            if (!f[i].error && !same_name(en, &f[i]) && renamed && take_new_name(s, en, &f[i]))
                renamed[nrenamed++] = en;
            continue;
        }
        if (en && en->state == E_PENDING && !f[i].error) {
            /* Still changing (a download): not shown yet. */
            remember(en, &f[i]);
            en->changed = now;
            en->writing = writing_now(s, &f[i]);
            en->incomplete = f[i].incomplete;
            see(seen, en);
            continue;
        }
        gg_entry *old = NULL;
        if (en && en->state == E_VISIBLE && !f[i].error) {
            /* Replaced (renamed over, a tag pulled anew) or changed in
             * place: shown until the new file is checked, which then takes
             * its place at once; readers of the old one keep its bytes, or
             * get ESTALE for good if it was changed in place. */
            old = en;
            if (en->dev == f[i].dev && en->ino == f[i].ino)
                shelf_queue_model_note(s, en->id);
        } else if (en) {
            shelf_hide(s, en, E_REMOVED);
        }
        gg_entry *ne = new_entry(s, src, f[i].key, f[i].comps, f[i].ncomps, f[i].spec);
        if (!ne)
            continue;
        char *ns = realloc(seen, s->nent + 1);
        if (ns) {
            seen = ns;
            seen[ne->id - 1] = 1;
        }
        remember(ne, &f[i]);
        ne->changed = initial ? (struct timespec){0} : now;
        if (f[i].error) {
            found_error(s, ne, &f[i]);
            continue;
        }
        ne->writing = writing_now(s, &f[i]);
        ne->incomplete = f[i].incomplete;
        if (old) {
            ne->replaces = old->id;
            old->replaced_by = ne->id;
            see(seen, old);
        }
        /* Shown at once when mounting, unless it cannot open (a shard is
         * missing: the check lists it in .errors) or is being written. */
        if (initial && ne->writing <= 0 && !ne->incomplete)
            show(s, ne);
        else
            ne->state = E_PENDING;
    }
    /* What is gone from the folder goes from the mount. */
    for (uint32_t k = 0; seen && k < s->nent; k++) {
        gg_entry *c = s->ent[k];
        if (c->src == src && c->state != E_REMOVED && !seen[k])
            shelf_hide(s, c, E_REMOVED); /* (.errors is told too) */
    }
    shelf_log_found(s);
    /* Renamed ones under their new names, now that the old ones are free. */
    for (size_t k = 0; k < nrenamed; k++)
        if (renamed[k]->state == E_PENDING && show(s, renamed[k]))
            renamed[k]->checked = 0; /* (out of memory: the check tries again) */
    free(renamed);
    free(byk);
    free(seen);
    pthread_rwlock_unlock(&s->lock);
    gg_found_free(f, n);
    shelf_wake(s);
    return 0;
}

/* A folder of the root for a folder argument's models, named as (a name
 * taken gets ~2), kept while empty (lock held for writing). */
static int pinned_folder(gg_shelf *s, const char *as, uint32_t *out)
{
    char *nm = gg_name_escape(as, strlen(as));
    if (!nm)
        return -1;
    const snode *root = &s->nodes[0];
    const char **taken = malloc((root->nkids + 4) * sizeof *taken);
    int rc = !taken;
    if (taken) {
        uint32_t nt = 0;
        for (uint32_t i = 0; i < root->nkids; i++)
            taken[nt++] = s->nodes[root->kids[i]].name;
        taken[nt++] = "models.tsv";
        taken[nt++] = ".errors";
        taken[nt++] = ".stats";
        char **p = &nm;
        rc = gg_names_unique(&p, 1, taken, nt) || new_node(s, nm, 0, GG_SN_DIR, out) || add_kid(s, 0, *out);
        free(taken);
    }
    free(nm);
    if (!rc)
        s->nodes[*out].pinned = 1;
    return rc ? -1 : 0;
}

int gg_shelf_add_dir(gg_shelf *s, const char *dir, gg_store kind, const char *as, size_t *found, gg_err *e)
{
    src_dir *p = realloc(s->dirs, (size_t)(s->ndirs + 1) * sizeof *p);
    if (!p)
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    s->dirs = p;
    char *abs = realpath(dir, NULL);
    if (!abs)
        return gg_fail_errno(e, errno, "%s", dir);
    uint32_t node = 0;
    pthread_rwlock_wrlock(&s->lock);
    int rc = as ? pinned_folder(s, as, &node) : 0;
    pthread_rwlock_unlock(&s->lock);
    if (rc) {
        free(abs);
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    }
    s->dirs[s->ndirs] = (src_dir){abs, kind == GG_STORE_AUTO ? gg_store_detect(abs) : kind, node};
    int src = s->ndirs++;
    rc = shelf_rescan(s, src, 1, e);
    pthread_rwlock_wrlock(&s->lock);
    drop_notes(s); /* nobody to tell yet */
    if (found) {
        *found = 0;
        for (uint32_t k = 0; k < s->nent; k++)
            *found += s->ent[k]->src == src && s->ent[k]->state != E_REMOVED;
    }
    pthread_rwlock_unlock(&s->lock);
    return rc;
}

void gg_shelf_drop_repeats(gg_shelf *s)
{
    pthread_rwlock_wrlock(&s->lock);
    for (uint32_t k = 0; k < s->nent; k++) {
        gg_entry *en = s->ent[k];
        struct stat st;
        if (en->src >= 0 || en->state != E_VISIBLE || !en->model || !en->model->nshards ||
            !en->model->shards[0].src || en->model->shards[0].src->remote ||
            stat(en->model->shards[0].src->name, &st) != 0)
            continue;
        for (uint32_t j = 0; j < s->nent; j++) {
            const gg_entry *c = s->ent[j];
            if (c->src >= 0 && c->state != E_REMOVED && c->dev == st.st_dev && c->ino == st.st_ino) {
                shelf_hide(s, en, E_REMOVED);
                gg_model_close(en->model);
                free(en->model);
                en->model = NULL;
                break;
            }
        }
    }
    drop_notes(s); /* nobody to tell yet */
    pthread_rwlock_unlock(&s->lock);
}

void gg_shelf_free(gg_shelf *s)
{
    if (!s)
        return;
    shelf_stop(s);
    for (uint32_t k = 0; k < s->nent; k++) {
        gg_entry *en = s->ent[k];
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
        free(en->error);
        free(en->first_id);
        pthread_mutex_destroy(&en->mu);
        free(en);
    }
    free(s->ent);
    pthread_mutex_destroy(&s->trim_mu);
    for (uint32_t i = 0; i < s->n; i++) {
        free(s->nodes[i].name);
        free(s->nodes[i].kids);
    }
    free(s->nodes);
    for (size_t i = 0; i < s->nnotes; i++)
        free(s->notes[i].name);
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
