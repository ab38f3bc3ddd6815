/* shelf_scan.c - the shelf's folders: scanning one (stores.c reads its
 * layout) and bringing the entries up to date with what it holds: new
 * models shown or left to be checked, changed ones replaced, renamed ones
 * moved, gone ones hidden, faults listed (state in shelf_int.h). */
#include "gguffs/shelf.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/log.h"
#include "shelf_int.h"
#include "stores.h"

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
    shelf_queue_note(s, UINT32_MAX, NULL);
}

static int entry_by_key(const void *a, const void *b)
{
    return strcmp((*(gg_entry *const *)a)->key, (*(gg_entry *const *)b)->key);
}

/* One rescan of folder src (lock held for writing). */
typedef struct rescan_pass {
    gg_shelf *s;
    int src, initial;
    struct timespec now;
    char *seen;         /* by entry id - 1: still in the folder (NULL: out of memory) */
    gg_entry **byk;     /* the folder's entries by key (NULL: out of memory) */
    size_t nbyk;
    gg_entry **renamed; /* to be shown again under their new names */
    size_t nrenamed;
} rescan_pass;

/* The folder's entries by key, to find each model found in log n. */
static void index_by_key(rescan_pass *p)
{
    gg_shelf *s = p->s;
    p->byk = malloc((s->nent + 1) * sizeof *p->byk);
    p->nbyk = 0;
    for (uint32_t k = 0; p->byk && k < s->nent; k++)
        if (s->ent[k]->src == p->src && s->ent[k]->state != E_REMOVED && !s->ent[k]->replaced_by)
            p->byk[p->nbyk++] = s->ent[k];
    if (p->byk)
        qsort(p->byk, p->nbyk, sizeof *p->byk, entry_by_key);
}

/* The folder's entry at key (not removed, not being replaced), or NULL. */
static gg_entry *entry_at_key(const rescan_pass *p, const char *key)
{
    if (p->byk) {
        size_t lo = 0, hi = p->nbyk;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            int c = strcmp(p->byk[mid]->key, key);
            if (c == 0)
                return p->byk[mid];
            if (c < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        return NULL;
    }
    for (uint32_t k = 0; k < p->s->nent; k++) {
        gg_entry *c = p->s->ent[k];
        if (c->src == p->src && c->state != E_REMOVED && !c->replaced_by && !strcmp(c->key, key))
            return c;
    }
    return NULL;
}

/* f is en's file as it was: still there, perhaps under a new name (then
 * hidden, to be shown again once every renamed one is out of the way). */
static void seen_again(rescan_pass *p, gg_entry *en, gg_found *f)
{
    see(p->seen, en);
    if (en->state == E_PENDING)
        en->writing = writing_now(p->s, f);
    if (!f->error && !same_comps(en->comps, en->ncomps, f->comps, f->ncomps) && p->renamed && take_new_name(p->s, en, f))
        p->renamed[p->nrenamed++] = en;
}

/* Still changing (a download): not shown yet. */
static void still_changing(rescan_pass *p, gg_entry *en, const gg_found *f)
{
    remember(en, f);
    en->changed = p->now;
    en->writing = writing_now(p->s, f);
    en->incomplete = f->incomplete;
    see(p->seen, en);
}

/* en's place holds another file now (or a fault): en stays shown until
 * the new file is checked (returned, as the entry the new one replaces),
 * or goes at once (NULL). */
static gg_entry *make_way(gg_shelf *s, gg_entry *en, const gg_found *f)
{
    if (en && en->state == E_VISIBLE && !f->error) {
        /* Replaced (renamed over, a tag pulled anew) or changed in
         * place: shown until the new file is checked, which then takes
         * its place at once; readers of the old one keep its bytes, or
         * get ESTALE for good if it was changed in place. */
        if (en->dev == f->dev && en->ino == f->ino)
            shelf_queue_model_note(s, en->id);
        return en;
    }
    if (en)
        shelf_hide(s, en, E_REMOVED);
    return NULL;
}

/* A new entry for f, which replaces old (if not NULL). */
static void add_found(rescan_pass *p, gg_entry *old, gg_found *f)
{
    gg_shelf *s = p->s;
    gg_entry *ne = shelf_new_entry(s, p->src, f->key, f->comps, f->ncomps, f->spec);
    if (!ne)
        return;
    /* (no list once out of memory: hide_gone then hides nothing) */
    char *ns = p->seen ? realloc(p->seen, s->nent + 1) : NULL;
    if (ns) {
        p->seen = ns;
        p->seen[ne->id - 1] = 1;
    }
    remember(ne, f);
    gg_side_specs_copy(&ne->sides, &ne->nsides, f->sides, f->nsides); /* (none, out of memory) */
    ne->changed = p->initial ? (struct timespec){0} : p->now;
    if (f->error) {
        found_error(s, ne, f);
        return;
    }
    ne->writing = writing_now(s, f);
    ne->incomplete = f->incomplete;
    if (old) {
        ne->replaces = old->id;
        old->replaced_by = ne->id;
        see(p->seen, old);
    }
    /* Shown at once when mounting, unless it cannot open (a shard is
     * missing: the check lists it in .errors) or is being written. */
    if (p->initial && ne->writing <= 0 && !ne->incomplete)
        shelf_show(s, ne);
    else
        ne->state = E_PENDING;
}

/* Bring the entry of f, a model (or a fault) the scan found, up to date. */
static void reconcile(rescan_pass *p, gg_found *f)
{
    gg_entry *en = entry_at_key(p, f->key);
    if (en && same_file(en, f) && en->scan_error == (f->error != NULL))
        seen_again(p, en, f);
    else if (en && en->state == E_PENDING && !f->error)
        still_changing(p, en, f);
    else
        add_found(p, make_way(p->s, en, f), f);
}

/* What is gone from the folder goes from the mount. */
static void hide_gone(rescan_pass *p)
{
    for (uint32_t k = 0; p->seen && k < p->s->nent; k++) {
        gg_entry *c = p->s->ent[k];
        if (c->src == p->src && c->state != E_REMOVED && !p->seen[k])
            shelf_hide(p->s, c, E_REMOVED); /* (.errors is told too) */
    }
}

/* Renamed ones under their new names, now that the old ones are free. */
static void show_renamed(rescan_pass *p)
{
    for (size_t k = 0; k < p->nrenamed; k++)
        if (p->renamed[k]->state == E_PENDING && shelf_show(p->s, p->renamed[k]))
            p->renamed[k]->checked = 0; /* (out of memory: the check tries again) */
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
    rescan_pass p = {.s = s, .src = src, .initial = initial, .now = now_ts()};
    pthread_rwlock_wrlock(&s->lock);
    p.seen = calloc(s->nent + 1, 1);
    p.renamed = calloc(n + 1, sizeof *p.renamed);
    index_by_key(&p);
    for (size_t i = 0; i < n; i++)
        reconcile(&p, &f[i]);
    hide_gone(&p);
    shelf_log_found(s);
    show_renamed(&p);
    free(p.renamed);
    free(p.byk);
    free(p.seen);
    pthread_rwlock_unlock(&s->lock);
    gg_found_free(f, n);
    shelf_wake(s);
    return 0;
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
    int rc = as ? shelf_pinned_folder(s, as, &node) : 0;
    pthread_rwlock_unlock(&s->lock);
    if (rc) {
        free(abs);
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    }
    s->dirs[s->ndirs] = (src_dir){abs, kind == GG_STORE_AUTO ? gg_store_detect(abs) : kind, node};
    int src = s->ndirs++;
    rc = shelf_rescan(s, src, 1, e);
    pthread_rwlock_wrlock(&s->lock);
    shelf_drop_notes(s); /* nobody to tell yet */
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
    shelf_drop_notes(s); /* nobody to tell yet */
    pthread_rwlock_unlock(&s->lock);
}
