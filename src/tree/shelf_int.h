/* shelf_int.h - the shelf's state, shared by its files (internal to
 * shelf*.c):
 *
 *   shelf.c         names, folders, entries, and what the tree asks
 *   shelf_scan.c    scanning a folder, and bringing the entries up to date
 *   shelf_budget.c  opening models, and the bound on their memory
 *   shelf_live.c    the worker: background checks, inotify, notes delivered
 *   shelf_texts.c   models.tsv, .errors, the totals
 *
 * Locks: `lock` (a read-write lock) guards the folders, the entries'
 * state and node, and the lists; each entry's `mu` guards its model, its
 * tree and its figures. Order: an entry's mu, then lock; notifications are
 * queued under lock and delivered by the worker thread with no lock held
 * (the kernel may call back into the mount while it takes them). */
#ifndef GGUFFS_SHELF_INT_H
#define GGUFFS_SHELF_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <time.h>

#include "gguffs/shelf.h"
#include "gguffs/summary.h"
#include "stores.h"

#define QUIET_MS 1000      /* where leases cannot tell if a new file is being written: it must
                              not change for this long to be shown */
#define DEBOUNCE_MS 150    /* events closer than this make one rescan */
#define RESCAN_MS 2000     /* without inotify: rescan this often (and look at named models' files) */
#define PENDING_MS 200     /* while files wait to be shown: rescan this often */

enum { E_PENDING, E_VISIBLE, E_ERROR, E_REMOVED };

typedef struct snode {
    char *name;       /* escaped; "" for the root */
    uint32_t parent;
    gg_snode kind;    /* GG_SN_NONE once removed */
    uint32_t entry;   /* models: the entry's id */
    uint32_t *kids;   /* children, in name order */
    uint32_t nkids, capkids;
    struct timespec mtime;
    int pinned;       /* a folder argument's own folder: kept when empty */
} snode;

struct gg_entry {
    uint32_t id;
    int src;          /* index of the folder that holds it, -1 for models named directly */
    char *key;        /* its place in that folder (stores.h) */
    char **comps;     /* its name */
    int ncomps;
    char *spec;
    gg_side_spec *sides; /* files shown beside the model, loaded when it is opened */
    int nsides;
    int state;        /* E_* (lock) */
    uint32_t node;    /* its folder node while visible (lock) */
    dev_t dev;        /* the file when last seen */
    ino_t ino;
    uint64_t size;
    struct timespec mtime;
    struct timespec changed; /* when it was last seen changing */
    int checked;      /* opened once (by the check or for use) (lock) */
    int tries;        /* failed opens that said nothing about the file (lock) */
    int told;         /* such a failure was logged (mu) */
    pthread_mutex_t mu;
    gg_model *model;  /* opened, or NULL (mu) */
    void *tree;       /* what the tree made of it (mu) */
    void (*unmake)(void *);
    int have_sum;     /* (mu) */
    gg_summary sum;
    char *error;      /* why it is not shown (lock) */
    int writing;      /* its file is open for writing: 1, 0, -1 cannot tell (lock) */
    int incomplete;   /* a split set with a shard missing (lock) */
    int scan_error;   /* what the scan found is a fault, not a model (lock) */
    int logged;       /* that fault is logged (lock) */
    uint32_t replaces;    /* the visible entry whose place it takes once checked (lock) */
    uint32_t replaced_by; /* the pending entry that will take its place (lock) */
    _Atomic int users;          /* callers between gg_entry_tree and gg_entry_put */
    _Atomic uint64_t last_use;  /* the shelf's use clock at its last gg_entry_tree */
    _Atomic int has_tree;       /* en->tree != NULL, for the trimmer's scan */
    uint64_t tag;               /* the tree's word (mu) */
    _Atomic int changed_told;   /* the tree heard that its file changed */
    char *first_id;             /* the model its tree was first made of, so */
    uint64_t first_size;        /* that a model closed while idle is opened */
    struct timespec first_mtime; /* again only if it is the same file (mu) */
};

typedef struct note {
    uint32_t dir;
    char *name;
    uint32_t model;   /* not 0: this model's file changed (the changed hook) */
} note;

typedef struct src_dir {
    char *path;
    gg_store kind;
    uint32_t node;    /* the folder its models go in: 0 (the root) or its own */
} src_dir;

struct gg_shelf {
    pthread_rwlock_t lock;
    snode *nodes;
    uint32_t n;
    size_t cap;
    gg_entry **ent;   /* by id - 1 */
    uint32_t nent;
    size_t capent;
    src_dir *dirs;
    int ndirs;
    gg_open_opts oo;
    note *notes;      /* waiting for the worker */
    size_t nnotes, capnotes;
    void (*notify)(void *arg, uint32_t dir, const char *name);
    void *notify_arg;
    void (*changed)(void *arg, uint32_t id);
    void *changed_arg;
    int lease_why;    /* leases cannot tell: why (an errno), at lease_path (lock) */
    char *lease_path;
    int lease_told;   /* that is logged (lock) */
    /* the worker */
    pthread_t worker;
    int started, check, live;
    int running;      /* the worker runs: it may log (lock) */
    dev_t skip_dev;   /* the mount's own device: not scanned, not watched */
    _Atomic int stop;
    int wake[2];      /* a pipe: wakes the worker (new notes, stop) */
    /* opened models: what they hold, and the bound on it */
    _Atomic uint64_t open_bytes;
    uint64_t budget;  /* 0: no bound */
    _Atomic uint64_t use_clock;
    _Atomic uint64_t closed_idle;
    pthread_mutex_t trim_mu;
};

static inline struct timespec now_ts(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return t;
}

static inline int64_t ms_between(struct timespec a, struct timespec b)
{
    return (int64_t)(b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
}

/* Two names, lists of components, the same? (an entry's, a found file's) */
static inline int same_comps(char *const *a, int na, char *const *b, int nb)
{
    if (na != nb)
        return 0;
    for (int i = 0; i < na; i++)
        if (strcmp(a[i], b[i]))
            return 0;
    return 1;
}

/* shelf.c (lock held for writing) */
gg_entry *shelf_new_entry(gg_shelf *s, int src, const char *key, char **comps, int ncomps, const char *spec);
int shelf_show(gg_shelf *s, gg_entry *en);
void shelf_hide(gg_shelf *s, gg_entry *en, int state);
int shelf_take_place(gg_shelf *s, gg_entry *en); /* en checked: shown, in its old one's place */
int shelf_pinned_folder(gg_shelf *s, const char *as, uint32_t *out);
void shelf_queue_note(gg_shelf *s, uint32_t dir, const char *name); /* dir UINT32_MAX: the texts */
void shelf_queue_model_note(gg_shelf *s, uint32_t id);
void shelf_drop_notes(gg_shelf *s); /* nobody to tell yet */

/* shelf_scan.c */
int shelf_rescan(gg_shelf *s, int src, int initial, gg_err *e); /* (takes the lock) */
void shelf_log_found(gg_shelf *s);                              /* lock held for writing */

/* shelf_live.c */
void shelf_wake(gg_shelf *s); /* the worker: new notes, or stop */
void shelf_stop(gg_shelf *s); /* the worker ends; its pipe is closed */

/* shelf_budget.c */
int shelf_transient(const gg_err *e);                                   /* a failure that may pass */
int shelf_failed_for_now(gg_shelf *s, gg_entry *en, const gg_err *err); /* en's mu held */
void shelf_failed(gg_shelf *s, gg_entry *en, const gg_err *err);        /* (takes the lock) */
int shelf_peek_model(gg_shelf *s, gg_entry *en, gg_err *e);             /* en's mu held */

/* shelf_texts.c */
void shelf_shown_path(const gg_shelf *s, uint32_t node, gg_buf *out); /* the lock held */

#endif
