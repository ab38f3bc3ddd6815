/* shelf_budget.c - opening a shelf's models, and the bound on the memory
 * the opened ones hold (--model-memory): the least recently used models
 * nobody is using are closed again (state in shelf_int.h). */
#include "gguffs/shelf.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "shelf_int.h"

/* Failures that say nothing about the file itself: out of memory or of
 * file descriptors (an I/O error), a file gone or changed while it was
 * opened (the next scan sees to it), a server that did not answer. */
int shelf_transient(const gg_err *e)
{
    switch (e->code) {
    case GG_E_NOMEM: case GG_E_IO: case GG_E_NOTFOUND: case GG_E_STALE: case GG_E_TIMEOUT: case GG_E_AGAIN:
        return 1;
    default:
        return 0;
    }
}

/* The same for a URL: only a server that did not answer (I/O, timeouts). */
static int remote_transient(const gg_err *e)
{
    switch (e->code) {
    case GG_E_NOMEM: case GG_E_IO: case GG_E_STALE: case GG_E_TIMEOUT: case GG_E_AGAIN:
        return 1;
    default:
        return 0;
    }
}

#define MAX_TRIES 3 /* then a transient failure counts as the file's */

/* en failed to open for a reason that may pass (mu held): logged once, left
 * as it is, and tried again by the background check a moment later.
 * Returns 0, or -1 once it failed too often: it is the file's fault then. */
int shelf_failed_for_now(gg_shelf *s, gg_entry *en, const gg_err *err)
{
    pthread_rwlock_wrlock(&s->lock);
    int again = ++en->tries < MAX_TRIES;
    if (again) {
        en->checked = 0;
        en->changed = now_ts();
    }
    pthread_rwlock_unlock(&s->lock);
    if (!again)
        return -1;
    if (!en->told)
        gg_log("%s: cannot open it now (will try again): %s", en->spec, err->msg);
    en->told = 1;
    shelf_wake(s);
    return 0;
}

/* en failed to open: not shown, listed in .errors (once). */
void shelf_failed(gg_shelf *s, gg_entry *en, const gg_err *err)
{
    pthread_rwlock_wrlock(&s->lock);
    if (en->state == E_VISIBLE || en->state == E_PENDING) {
        free(en->error);
        en->error = strdup(err->msg);
        shelf_hide(s, en, E_ERROR);
        gg_log("%s: left out: %s", en->spec, err->msg);
        /* It was to replace a model: the name now holds this bad file. */
        gg_entry *old = en->replaces ? s->ent[en->replaces - 1] : NULL;
        if (old && old->replaced_by == en->id) {
            old->replaced_by = 0;
            if (old->state != E_REMOVED)
                shelf_hide(s, old, E_REMOVED);
        }
        en->replaces = 0;
    }
    pthread_rwlock_unlock(&s->lock);
    shelf_wake(s);
}

/* en's figures for models.tsv, from its model (mu held): a model named on
 * the command line comes opened, a folder's is opened here. */
static void learn_sum(gg_entry *en)
{
    if (!en->have_sum) {
        gg_model_summary(en->model, &en->sum);
        en->have_sum = 1;
    }
}

/* Open en's model if needed (mu held). */
static int open_model(gg_shelf *s, gg_entry *en, gg_err *e)
{
    if (en->model) {
        learn_sum(en);
        return 0;
    }
    gg_model *m = calloc(1, sizeof *m);
    if (!m)
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    if (gg_model_open(m, en->spec, &s->oo, e) || gg_model_load_sides(m, en->sides, en->nsides, &s->oo, e)) {
        gg_model_close(m);
        free(m);
        return -1;
    }
    const gg_source *src = m->shards[0].src;
    if (en->first_id && (strcmp(en->first_id, src->id) || en->first_size != m->size ||
               en->first_mtime.tv_sec != m->mtime.tv_sec || en->first_mtime.tv_nsec != m->mtime.tv_nsec)) {
        /* Closed while idle, and the file is another one now: its old
         * inodes must not show the new file's bytes. */
        gg_model_close(m);
        free(m);
        return gg_fail(e, GG_E_STALE, "%s: changed since it was first opened", en->spec);
    }
    en->model = m;
    pthread_rwlock_wrlock(&s->lock); /* (check_one and statfs read them under it) */
    en->checked = 1;
    en->tries = 0;
    if (!en->size)
        en->size = m->size; /* (models not from a folder: URLs) */
    pthread_rwlock_unlock(&s->lock);
    learn_sum(en);
    return 0;
}

/* Open en's model to learn its figures, then close it again unless it was
 * open already or its tree holds it (mu held): the background check and
 * models.tsv. */
int shelf_peek_model(gg_shelf *s, gg_entry *en, gg_err *e)
{
    int had = en->model != NULL;
    int rc = open_model(s, en, e);
    if (rc == 0 && !had && !en->tree) {
        gg_model_close(en->model);
        free(en->model);
        en->model = NULL;
    }
    return rc;
}

void *gg_entry_tree(gg_shelf *s, gg_entry *en, void *(*make)(void *arg, gg_entry *en, gg_model *m, gg_err *e),
                    void *arg, void (*unmake)(void *tree), gg_err *e)
{
    pthread_mutex_lock(&en->mu);
    void *t = en->tree;
    if (!t) {
        gg_err err;
        if (open_model(s, en, &err) == 0 && (t = make(arg, en, en->model, &err)) != NULL) {
            en->tree = t;
            en->unmake = unmake;
            atomic_store(&en->has_tree, 1);
            if (!en->first_id) { /* what its tree shows, from now on */
                en->first_id = strdup(en->model->shards[0].src->id);
                en->first_size = en->model->size;
                en->first_mtime = en->model->mtime;
            }
        } else {
            /* A remote model that fails for a reason of its own (404, 401,
             * not a GGUF file, no validator) goes to .errors; one whose
             * server did not answer is tried again at the next look. */
            int later = gg_spec_kind_of(en->spec) != GG_SPEC_PATH ? remote_transient(&err)
                                                : shelf_transient(&err) && shelf_failed_for_now(s, en, &err) == 0;
            pthread_mutex_unlock(&en->mu);
            if (!later)
                shelf_failed(s, en, &err);
            if (!later && err.code == GG_E_NOTFOUND)
                err.code = GG_E_IO; /* (a folder whose listing says ENOENT looks empty to ls) */
            if (e)
                *e = err;
            return NULL;
        }
    }
    atomic_fetch_add(&en->users, 1);
    atomic_store(&en->last_use, atomic_fetch_add(&s->use_clock, 1) + 1);
    pthread_mutex_unlock(&en->mu);
    return t;
}

void *gg_entry_tree_if_open(gg_shelf *s, gg_entry *en)
{
    (void)s;
    pthread_mutex_lock(&en->mu);
    void *t = en->tree;
    if (t)
        atomic_fetch_add(&en->users, 1);
    pthread_mutex_unlock(&en->mu);
    return t;
}

/* Close en's tree and model if nobody uses them (not en's lock, nor the
 * shelf's, held). Returns 1 if it did. */
static int close_idle(gg_shelf *s, gg_entry *en)
{
    pthread_mutex_lock(&en->mu);
    int done = 0;
    if (en->tree && atomic_load(&en->users) == 0) {
        en->unmake(en->tree);
        en->tree = NULL;
        atomic_store(&en->has_tree, 0);
        gg_model_close(en->model);
        free(en->model);
        en->model = NULL;
        done = 1;
    }
    pthread_mutex_unlock(&en->mu);
    if (done)
        atomic_fetch_add(&s->closed_idle, 1);
    return done;
}

/* Over the budget: close the least recently used models nobody is using,
 * but not keep (just used) and not models named on the command line (their
 * path may be relative to a folder the daemon left) or remote ones (their
 * header would be fetched again). One trimmer at a time. */
static void trim(gg_shelf *s, const gg_entry *keep)
{
    if (pthread_mutex_trylock(&s->trim_mu))
        return;
    while (atomic_load(&s->open_bytes) > s->budget) {
        gg_entry *lru = NULL;
        uint64_t oldest = UINT64_MAX;
        pthread_rwlock_rdlock(&s->lock);
        for (uint32_t k = 0; k < s->nent; k++) {
            gg_entry *c = s->ent[k];
            uint64_t at = atomic_load(&c->last_use);
            if (c != keep && c->src >= 0 && atomic_load(&c->has_tree) && atomic_load(&c->users) == 0 &&
                at < oldest && gg_spec_kind_of(c->spec) == GG_SPEC_PATH) {
                lru = c;
                oldest = at;
            }
        }
        pthread_rwlock_unlock(&s->lock);
        if (!lru)
            break;
        close_idle(s, lru); /* (someone may have taken it meanwhile: then look again) */
    }
    pthread_mutex_unlock(&s->trim_mu);
}

void gg_entry_put(gg_shelf *s, gg_entry *en)
{
    if (!en)
        return;
    atomic_fetch_sub(&en->users, 1);
    if (s->budget && atomic_load(&s->open_bytes) > s->budget)
        trim(s, en);
}

void gg_entry_hold(gg_entry *en) { atomic_fetch_add(&en->users, 1); }

uint64_t *gg_entry_tag(gg_entry *en) { return &en->tag; }

_Atomic uint64_t *gg_shelf_account(gg_shelf *s) { return &s->open_bytes; }

void gg_shelf_set_budget(gg_shelf *s, uint64_t bytes) { s->budget = bytes; }

void gg_shelf_open_stats(gg_shelf *s, uint64_t *models, uint64_t *bytes, uint64_t *closed)
{
    *models = 0;
    pthread_rwlock_rdlock(&s->lock);
    for (uint32_t k = 0; k < s->nent; k++)
        *models += atomic_load(&s->ent[k]->has_tree) != 0;
    pthread_rwlock_unlock(&s->lock);
    *bytes = atomic_load(&s->open_bytes);
    *closed = atomic_load(&s->closed_idle);
}
