/* shelf_live.c - keeping a shelf current while it runs: the worker thread,
 * which checks new models in the background, watches the folders
 * (inotify, or a rescan every RESCAN_MS), looks at the files of models
 * named on the command line, and delivers the notes queued under the lock
 * to the tree's hooks with no lock held (state in shelf_int.h). */
#include "gguffs/shelf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"
#include "shelf_int.h"

void shelf_wake(gg_shelf *s)
{
    if (s->wake[1] >= 0 && write(s->wake[1], "x", 1) < 0) {
        /* a full pipe already wakes it */
    }
}

/* The entry the check takes next, or NULL (lock held). */
static gg_entry *next_to_check(gg_shelf *s, struct timespec now)
{
    for (uint32_t k = 0; k < s->nent; k++) {
        gg_entry *c = s->ent[k];
        if (c->checked || (c->state != E_VISIBLE && c->state != E_PENDING))
            continue;
        int quiet = ms_between(c->changed, now) >= QUIET_MS;
        if (c->state == E_PENDING && c->writing > 0)
            continue; /* a process has it open for writing: a download */
        if (!quiet && (c->tries || (c->state == E_PENDING && c->writing < 0)))
            continue; /* to be tried again in a moment, or (no lease to tell) maybe still being written */
        if (c->state == E_VISIBLE && (!s->check || gg_spec_kind_of(c->spec) != GG_SPEC_PATH))
            continue; /* (remote models: their headers are fetched when looked at) */
        return c;
    }
    return NULL;
}

/* Check one entry (open, learn its figures, close again unless in use).
 * Returns 1 if it did something. */
static int check_one(gg_shelf *s)
{
    struct timespec now = now_ts();
    pthread_rwlock_rdlock(&s->lock);
    gg_entry *en = next_to_check(s, now);
    int incomplete = en && en->incomplete; /* (its failure is the file's: a shard is missing) */
    pthread_rwlock_unlock(&s->lock);
    if (!en)
        return 0;
    pthread_mutex_lock(&en->mu);
    gg_err err;
    int rc = shelf_peek_model(s, en, &err);
    pthread_rwlock_wrlock(&s->lock);
    en->checked = 1;
    pthread_rwlock_unlock(&s->lock);
    int later = rc && shelf_transient(&err) && !incomplete && shelf_failed_for_now(s, en, &err) == 0;
    pthread_mutex_unlock(&en->mu);
    if (later)
        return 1; /* (tried again later) */
    pthread_rwlock_wrlock(&s->lock);
    int pending = en->state == E_PENDING;
    if (rc == 0 && pending)
        shelf_take_place(s, en);
    pthread_rwlock_unlock(&s->lock);
    if (rc)
        shelf_failed(s, en, &err);
    return 1;
}

static void deliver_notes(gg_shelf *s)
{
    pthread_rwlock_wrlock(&s->lock);
    note *v = s->notes;
    size_t n = s->nnotes;
    s->notes = NULL;
    s->nnotes = s->capnotes = 0;
    pthread_rwlock_unlock(&s->lock);
    for (size_t i = 0; i < n; i++) {
        if (v[i].model && s->changed)
            s->changed(s->changed_arg, v[i].model);
        else if (!v[i].model && s->notify)
            s->notify(s->notify_arg, v[i].dir, v[i].name);
        free(v[i].name);
    }
    free(v);
}

/* The folders watch_tree is in: a link back to one is not followed. */
typedef struct wanc {
    dev_t dev;
    ino_t ino;
    const struct wanc *up;
} wanc;

/* Watch every folder below path (inotify), folders linked to included as
 * the scan follows them, but those on device skip; returns how many were
 * added. */
static int watch_tree(int fd, const char *path, dev_t skip, int depth, const wanc *up)
{
    uint32_t mask = IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_MODIFY |
                    IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF;
    struct stat me;
    if (stat(path, &me) != 0)
        return 0;
    for (const wanc *a = up; a; a = a->up)
        if (a->dev == me.st_dev && a->ino == me.st_ino)
            return 0;
    wanc here = {me.st_dev, me.st_ino, up};
    if (inotify_add_watch(fd, path, mask) < 0)
        return -1;
    int n = 1;
    DIR *d = depth < 16 ? opendir(path) : NULL;
    for (struct dirent *de; d && (de = readdir(d));) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
            continue;
        char sub[4096];
        struct stat st;
        snprintf(sub, sizeof sub, "%s/%s", path, de->d_name);
        if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode) && (!skip || st.st_dev != skip)) {
            int k = watch_tree(fd, sub, skip, depth + 1, &here);
            if (k < 0) {
                closedir(d);
                return -1;
            }
            n += k;
        }
    }
    if (d)
        closedir(d);
    return n;
}

/* Models named on the command line have no folder watched: their files are
 * looked at (an fstat per shard) every RESCAN_MS, so that one changed in
 * place is seen even while no read reaches the daemon (the kernel serving
 * its cached pages). */
static void check_named(gg_shelf *s)
{
    pthread_rwlock_rdlock(&s->lock);
    uint32_t n = s->nent;
    pthread_rwlock_unlock(&s->lock);
    for (uint32_t k = 0; k < n; k++) {
        gg_entry *en = gg_shelf_entry(s, k + 1);
        if (!en || en->src >= 0 || gg_spec_kind_of(en->spec) != GG_SPEC_PATH || atomic_load(&en->changed_told))
            continue;
        int stale = 0;
        pthread_mutex_lock(&en->mu);
        for (uint32_t i = 0; en->model && i < en->model->nshards && !stale; i++) {
            gg_err e;
            gg_source *src = en->model->shards[i].src;
            stale = src && !src->remote && gg_source_check(src, &e) != 0 && e.code == GG_E_STALE;
        }
        pthread_mutex_unlock(&en->mu);
        if (stale)
            gg_shelf_model_changed(s, en->id);
    }
}

static int pending_entries(gg_shelf *s)
{
    int any = 0;
    pthread_rwlock_rdlock(&s->lock);
    for (uint32_t k = 0; k < s->nent && !any; k++)
        any = s->ent[k]->state == E_PENDING;
    pthread_rwlock_unlock(&s->lock);
    return any;
}

/* Watch every folder with inotify (live). Returns 1 if that worked, else
 * they are rescanned every RESCAN_MS; *ifd: the inotify descriptor, or -1. */
static int watch_folders(gg_shelf *s, int *ifd)
{
    int watching = 0;
    *ifd = -1;
    if (s->live && s->ndirs) {
        *ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
        watching = *ifd >= 0;
        for (int i = 0; watching && i < s->ndirs; i++)
            watching = watch_tree(*ifd, s->dirs[i].path, s->skip_dev, 0, NULL) >= 0;
        if (!watching)
            gg_log("cannot watch the model folders with inotify (%s): rescanning every %d ms instead",
                   strerror(errno), RESCAN_MS);
    }
    return watching;
}

/* Sleep until woken (new notes, stop), a watched folder changes, or
 * timeout ms pass (-1: no limit). Returns 1 if a folder changed. */
static int wait_for_work(gg_shelf *s, int ifd, int watching, int timeout)
{
    struct pollfd p[2] = {{s->wake[0], POLLIN, 0}, {ifd, POLLIN, 0}};
    if (poll(p, watching ? 2 : 1, timeout) <= 0)
        return 0;
    char buf[4096];
    if (p[0].revents & POLLIN)
        while (read(s->wake[0], buf, sizeof buf) > 0) {
        }
    if (!watching || !(p[1].revents & POLLIN))
        return 0;
    while (read(ifd, buf, sizeof buf) > 0) {
    }
    return 1;
}

/* Every folder scanned again. */
static void rescan_all(gg_shelf *s, int ifd, int watching)
{
    /* New folders need watches too (adding one twice is harmless). */
    for (int i = 0; watching && i < s->ndirs; i++)
        watch_tree(ifd, s->dirs[i].path, s->skip_dev, 0, NULL);
    for (int i = 0; i < s->ndirs; i++) {
        gg_err e;
        if (shelf_rescan(s, i, 0, &e))
            gg_log("%s", e.msg);
    }
}

static void *worker(void *arg)
{
    gg_shelf *s = arg;
    int ifd;
    int watching = watch_folders(s, &ifd);
    struct timespec last_event = {0}, last_scan = now_ts(), last_named = last_scan;
    int dirty = 0;
    pthread_rwlock_wrlock(&s->lock);
    s->running = 1;
    shelf_log_found(s); /* (what the first scans found) */
    pthread_rwlock_unlock(&s->lock);
    while (!atomic_load(&s->stop)) {
        deliver_notes(s);
        if (s->live && ms_between(last_named, now_ts()) >= RESCAN_MS) {
            last_named = now_ts();
            check_named(s);
            deliver_notes(s);
        }
        int busy = check_one(s);
        int pend = s->live && pending_entries(s);
        int timeout = busy ? 0 : dirty ? DEBOUNCE_MS : pend ? PENDING_MS : s->live ? RESCAN_MS : -1;
        if (wait_for_work(s, ifd, watching, timeout)) {
            dirty = 1;
            last_event = now_ts();
        }
        struct timespec now = now_ts();
        int due = s->live && ((dirty && ms_between(last_event, now) >= DEBOUNCE_MS) ||
                              ((pend || !watching) && ms_between(last_scan, now) >= (pend ? PENDING_MS : RESCAN_MS)));
        if (due) {
            dirty = 0;
            last_scan = now;
            rescan_all(s, ifd, watching);
        }
    }
    if (ifd >= 0)
        close(ifd);
    return NULL;
}

void gg_shelf_skip_dev(gg_shelf *s, dev_t dev)
{
    if (!s->started)
        s->skip_dev = dev;
}

void gg_shelf_start(gg_shelf *s, int check, int live)
{
    if (s->started)
        return;
    s->check = check;
    s->live = live;
    if (pipe(s->wake) != 0) {
        s->wake[0] = s->wake[1] = -1;
        return;
    }
    for (int i = 0; i < 2; i++) {
        int fl = fcntl(s->wake[i], F_GETFL);
        fcntl(s->wake[i], F_SETFL, fl | O_NONBLOCK);
    }
    s->started = pthread_create(&s->worker, NULL, worker, s) == 0;
}

void shelf_stop(gg_shelf *s)
{
    if (s->started) {
        atomic_store(&s->stop, 1);
        shelf_wake(s);
        pthread_join(s->worker, NULL);
    }
    for (int i = 0; i < 2; i++)
        if (s->wake[i] >= 0)
            close(s->wake[i]);
}

void gg_shelf_set_notify(gg_shelf *s, void (*fn)(void *arg, uint32_t dir, const char *name), void *arg)
{
    s->notify_arg = arg;
    s->notify = fn;
}

void gg_shelf_set_changed(gg_shelf *s, void (*fn)(void *arg, uint32_t id), void *arg)
{
    s->changed_arg = arg;
    s->changed = fn;
}

void gg_shelf_model_changed(gg_shelf *s, uint32_t id)
{
    gg_entry *en = gg_shelf_entry(s, id);
    if (!en || atomic_exchange(&en->changed_told, 1))
        return;
    pthread_rwlock_wrlock(&s->lock);
    shelf_queue_model_note(s, id);
    pthread_rwlock_unlock(&s->lock);
    shelf_wake(s);
}
