/* main.c - the command line: parse it (options.c), then either run a tool
 * (--dump, --verify, --cat, --compare) or open the models, check the mount
 * point and hand over to the FUSE layer. */
#define FUSE_USE_VERSION 312
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "fuse_glue.h"
#include "base/log.h"
#include "mountinfo.h"
#include "gguffs/imatrix.h"
#include "gguffs/net.h"
#include "mountset.h"
#include "options.h"
#include "tools.h"

#define GGUFFS_VERSION "0.2.0"

static void say_stale(const char *given, const char *path)
{
    fprintf(stderr, "gguffs: %s is a stale FUSE mount (its daemon is gone: transport endpoint not "
                    "connected); clear it with: fusermount3 -u %s\n", given, path);
}

/* Is something mounted on mp already? GG_EXIT_MOUNT_BUSY after a message
 * if so. Only the mount table is read (a FUSE mount whose daemon died still
 * answers stat from the kernel's caches; statfs always asks). */
static int mounted_on(const char *given, const char *mp)
{
    gg_mount_entry me;
    if (gg_mountinfo_find(mp, &me) != 1)
        return GG_EXIT_OK;
    struct statfs sf;
    if (statfs(mp, &sf) != 0 && errno == ENOTCONN)
        say_stale(given, mp);
    else
        fprintf(stderr, "gguffs: %s is already a mount point (%s); unmount it first: fusermount3 -u %s\n",
                given, me.fstype, mp);
    return GG_EXIT_MOUNT_BUSY;
}

/* The mount point as an absolute, canonical path, checked before mounting:
 * after mounting, the daemon never looks at it again (a lookup through its
 * own mount before the loop runs would wait for itself for ever). */
static int resolve_mountpoint(const char *given, char **out)
{
    *out = NULL;
    char *mp = realpath(given, NULL);
    if (!mp) {
        if (errno == ENOTCONN) {
            say_stale(given, given);
            return GG_EXIT_MOUNT_BUSY;
        }
        fprintf(stderr, "gguffs: mount point %s: %s\n", given, strerror(errno));
        return GG_EXIT_MOUNTPOINT;
    }
    struct stat st;
    if (stat(mp, &st) != 0) {
        int e = errno;
        if (e == ENOTCONN)
            say_stale(given, mp);
        else
            fprintf(stderr, "gguffs: mount point %s: %s\n", given, strerror(e));
        free(mp);
        return e == ENOTCONN ? GG_EXIT_MOUNT_BUSY : GG_EXIT_MOUNTPOINT;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "gguffs: mount point %s is not a directory\n", given);
        free(mp);
        return GG_EXIT_MOUNTPOINT;
    }
    int rc = mounted_on(given, mp);
    if (rc) {
        free(mp);
        return rc;
    }
    /* Mounted over, what the folder holds is hidden until the unmount:
     * said, as sshfs users expect, but not refused. */
    DIR *d = opendir(mp);
    for (struct dirent *de; d && (de = readdir(d));) {
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..")) {
            fprintf(stderr, "gguffs: warning: mount point %s is not empty: what it holds is hidden while mounted\n",
                    given);
            break;
        }
    }
    if (d)
        closedir(d);
    *out = mp;
    return GG_EXIT_OK;
}

#define LOCK_WAIT_MS 10000

/* Several gguffs started at once on one mount point: exactly one mounts.
 * Each holds an exclusive flock on the mount point's folder itself (not on
 * a name in /tmp that anyone could take first) from the check that nothing
 * is mounted there until its own mount is made (gg_fuse_run closes *lock
 * then); who gets it second sees the first one's mount and exits 7. A
 * folder that cannot be opened or locked (no read permission, a file
 * system without flock) is mounted without the lock, as before. */
static int claim_mountpoint(const char *given, const char *mp, int *lock)
{
    *lock = open(mp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (*lock < 0)
        return mounted_on(given, mp);
    for (int waited = 0; flock(*lock, LOCK_EX | LOCK_NB) != 0; waited += 10) {
        if (errno != EWOULDBLOCK && errno != EINTR)
            break; /* (no flock here) */
        if (waited >= LOCK_WAIT_MS) {
            fprintf(stderr, "gguffs: mount point %s: another process has held a lock on it for %d s; not "
                            "mounting\n", given, LOCK_WAIT_MS / 1000);
            close(*lock);
            *lock = -1;
            return GG_EXIT_MOUNT_BUSY;
        }
        nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
    }
    int rc = mounted_on(given, mp);
    if (rc) {
        close(*lock);
        *lock = -1;
    }
    return rc;
}

/* A model as every local user may see it (the mount's source in
 * /proc/mounts, the daemon's command line in ps): a URL without
 * user:password@ and without its query string. Malloc'ed. */
static char *public_spec(const char *spec)
{
    if (gg_spec_kind_of(spec) != GG_SPEC_URL)
        return strdup(spec);
    char *s = gg_url_display(spec);
    if (s)
        s[strcspn(s, "?")] = 0;
    return s;
}

/* fsname=<model> with the option separators escaped. */
static char *fsname_opt(const char *spec)
{
    char *path = public_spec(spec);
    size_t n = path ? strlen(path) : 0;
    char *s = path ? malloc(2 * n + 16) : NULL;
    if (!s) {
        free(path);
        return NULL;
    }
    char *o = s + sprintf(s, "fsname=");
    for (const char *p = path; *p; p++) {
        if (*p == ',' || *p == '\\')
            *o++ = '\\';
        *o++ = *p;
    }
    *o = 0;
    free(path);
    return s;
}

/* Write `now` over the argument `arg` in place (never longer; the rest
 * zeroed): /proc/PID/cmdline reads the process's own memory. */
static void overwrite_arg(char *arg, const char *now)
{
    size_t n = strlen(arg), k = strnlen(now, n);
    memmove(arg, now, k);
    memset(arg + k, 0, n - k);
}

/* Once parsed (options.c keeps copies), the command line that ps shows
 * loses its secrets: URLs their credentials and query strings, -o header=
 * options their values. */
static void scrub_argv(int argc, char **argv)
{
    for (int i = 1, dashdash = 0; i < argc; i++) {
        char *a = argv[i];
        dashdash |= !strcmp(a, "--");
        if (gg_spec_kind_of(a) == GG_SPEC_URL) {
            char *p = public_spec(a);
            overwrite_arg(a, p ? p : "");
            free(p);
            continue;
        }
        char *o = !dashdash && !strncmp(a, "-o", 2) ? (a[2] ? a + 2 : i + 1 < argc ? argv[++i] : NULL) : NULL;
        if (!o)
            continue;
        /* each header=NAME: VALUE among the comma-separated options */
        char *out = malloc(strlen(o) + 1), *w = out;
        if (!out)
            continue;
        for (const char *p = o; *p;) {
            int hdr = !strncmp(p, "header=", 7);
            const char *end = p;
            while (*end && *end != ',')
                end += end[0] == '\\' && end[1] ? 2 : 1;
            const char *colon = hdr ? memchr(p, ':', (size_t)(end - p)) : NULL;
            const char *keep = colon ? colon + 1 : end;
            memcpy(w, p, (size_t)(keep - p));
            w += keep - p;
            for (int k = 0; colon && k < 3 && keep + k < end; k++)
                *w++ = '*';
            if (*end)
                *w++ = *end++;
            p = end;
        }
        *w = 0;
        overwrite_arg(o, out);
        free(out);
    }
}

static int run_mount(gg_cli *c)
{
    /* The daemon runs up to ~20 threads (FUSE, read-ahead, OpenMP); glibc's
     * default of 8 arenas per core would let freed memory strand in many of
     * them. Page buffers do not come from malloc (cache.c maps them). */
    mallopt(M_ARENA_MAX, 4);

    gg_net *net = NULL;
    gg_shelf *shelf = NULL;
    int single = 0;
    int rc = gg_mountset(c, c->npos - 1, &net, &shelf, &single);
    if (!rc)
        rc = gg_mountset_edits(c, single, 1);
    char *mp = NULL;
    int lock = -1;
    if (!rc)
        rc = resolve_mountpoint(c->pos[c->npos - 1], &mp);
    if (!rc)
        rc = claim_mountpoint(c->pos[c->npos - 1], mp, &lock);
    if (!rc && c->logfile) {
        int e = gg_log_to_file(c->logfile);
        if (e < 0) {
            fprintf(stderr, "gguffs: -o logfile=%s: %s\n", c->logfile, strerror(-e));
            rc = GG_EXIT_USAGE;
        }
    }
    char *fsn = NULL;
    gg_reader *reader = NULL;
    gg_tree *tree = NULL;
    gg_imatrix *im = NULL;
    if (!rc) {
        rc = gg_tool_imatrix(c->imatrix, &c->open, &im);
        c->tree.imatrix = im;
    }
    if (!rc) {
        fsn = fsname_opt(c->npos > 1 ? c->pos[0] : "gguffs");
        reader = gg_reader_new(&c->reader);
        gg_err e;
        if (!fsn || !reader) {
            fprintf(stderr, "gguffs: out of memory\n");
            rc = GG_EXIT_INTERNAL;
        } else if (!(tree = gg_tree_new_shelf(shelf, single, reader, &c->tree, &e))) {
            fprintf(stderr, "gguffs: %s\n", e.msg);
            rc = e.code == GG_E_NOMEM ? GG_EXIT_INTERNAL : gg_exit_for(e.code);
        }
    }
    if (!rc) {
        char *argv[64];
        int argc = 0;
        for (int i = 0; i < c->fuse_argc && argc < 60; i++)
            argv[argc++] = c->fuse_argv[i];
        argv[argc++] = "-o";
        argv[argc++] = fsn;
        argv[argc] = NULL;
        c->fuse.net = net;
        c->fuse.shelf = shelf;
        c->fuse.mount_lock = lock;
        c->fuse.edits = c->edits != NULL;
        lock = -1; /* (gg_fuse_run closes it) */
        if (net)
            gg_tree_set_stats_hook(tree, (void (*)(void *, gg_buf *))gg_net_stats_text, net);
        rc = gg_fuse_run(tree, argc, argv, mp, &c->fuse);
    }
    /* The tree first (it lives on the shelf's models), then the shelf (its
     * threads stop), then what they read through. */
    gg_tree_free(tree);
    gg_shelf_free(shelf);
    gg_imatrix_free(im);
    gg_reader_free(reader);
    gg_net_free(net);
    free(fsn);
    free(mp);
    if (lock >= 0)
        close(lock);
    return rc;
}

/* --dump and --verify: one model, a path, a URL or an hf:// name of one
 * file; --compare: two of them. */
static int run_tool(gg_cli *c, gg_tool_opts *to)
{
    gg_net *net = NULL;
    char *spec = NULL, *ref = NULL;
    int rc = gg_mountset_one(c, &net, &spec);
    if (!rc && c->mode == GG_MODE_COMPARE) {
        char *first = c->pos[0]; /* (gg_mountset_one names pos[0]) */
        c->pos[0] = c->pos[1];
        rc = gg_mountset_one(c, &net, &ref);
        c->pos[0] = first;
    }
    if (!rc)
        rc = c->mode == GG_MODE_DUMP     ? gg_tool_dump(spec, to)
             : c->mode == GG_MODE_VERIFY ? gg_tool_verify(spec, to)
             : c->mode == GG_MODE_SET    ? gg_tool_set(spec, to)
                                         : gg_tool_compare(spec, ref, to);
    free(spec);
    free(ref);
    gg_net_free(net);
    return rc;
}

int main(int argc, char **argv)
{
    gg_cli c;
    int rc = gg_cli_parse(&c, argc, argv);
    if (rc) {
        gg_cli_free(&c);
        return rc == 1 ? GG_EXIT_INTERNAL : GG_EXIT_USAGE;
    }
    scrub_argv(argc, argv);
    gg_tool_opts to = {.json = c.json, .full = c.full, .open = &c.open, .reader = &c.reader,
                       .only = c.only, .n_only = c.n_only, .imatrix = c.imatrix, .edits = c.edits,
                       .sets = c.sets, .nsets = c.nsets};
    switch (c.mode) {
    case GG_MODE_HELP:
        gg_cli_usage(stdout);
        break;
    case GG_MODE_VERSION:
        printf("gguffs %s (libfuse %s)\nsimd paths:", GGUFFS_VERSION, fuse_pkgversion());
        for (int k = 0; k < GG_ISA_COUNT; k++)
            if (gg_isa_supported((gg_isa)k))
                printf(" %s", gg_isa_name((gg_isa)k));
        printf("\n");
        break;
    case GG_MODE_DUMP:
    case GG_MODE_VERIFY:
    case GG_MODE_COMPARE:
    case GG_MODE_SET:
        rc = run_tool(&c, &to);
        break;
    case GG_MODE_CAT:
        rc = gg_tool_cat(&c);
        break;
    case GG_MODE_MOUNT:
        rc = run_mount(&c);
        break;
    }
    gg_cli_free(&c);
    return rc;
}
