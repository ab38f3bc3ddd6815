/* main.c - the command line: parse it (options.c), then either run a tool
 * (--dump, --verify) or open the models, check the mount point and hand
 * over to the FUSE layer. */
#define FUSE_USE_VERSION 312
#include <errno.h>
#include <fuse_lowlevel.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "fuse_glue.h"
#include "gguffs/log.h"
#include "gguffs/mountinfo.h"
#include "tools.h"
#include "options.h"

#define GGUFFS_VERSION "0.2.0"

static void say_stale(const char *given, const char *path)
{
    fprintf(stderr, "gguffs: %s is a stale FUSE mount (its daemon is gone: transport endpoint not "
                    "connected); clear it with: fusermount3 -u %s\n", given, path);
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
    gg_mount_entry me;
    if (gg_mountinfo_find(mp, &me) == 1) {
        /* Something is mounted there. A FUSE mount whose daemon died still
         * answers stat from the kernel's caches; statfs always asks. */
        struct statfs sf;
        if (statfs(mp, &sf) != 0 && errno == ENOTCONN)
            say_stale(given, mp);
        else
            fprintf(stderr, "gguffs: %s is already a mount point (%s); unmount it first: fusermount3 -u %s\n",
                    given, me.fstype, mp);
        free(mp);
        return GG_EXIT_MOUNT_BUSY;
    }
    *out = mp;
    return GG_EXIT_OK;
}

/* fsname=<path> with the option separators escaped. */
static char *fsname_opt(const char *path)
{
    size_t n = strlen(path);
    char *s = malloc(2 * n + 16);
    if (!s)
        return NULL;
    char *o = s + sprintf(s, "fsname=");
    for (const char *p = path; *p; p++) {
        if (*p == ',' || *p == '\\')
            *o++ = '\\';
        *o++ = *p;
    }
    *o = 0;
    return s;
}

static void close_models(gg_model **models, int n)
{
    for (int i = 0; i < n; i++) {
        if (models[i]) {
            gg_model_close(models[i]);
            free(models[i]);
        }
    }
    free(models);
}

/* Open every model before mounting anything: a bad file mounts nothing.
 * The same file (or a shard of the same split set) named twice, as a glob
 * of a set's shards does, is opened once. */
static int open_models(gg_cli *c, int n, gg_model ***out, int *nout)
{
    gg_model **models = calloc((size_t)n, sizeof *models);
    int k = 0;
    if (!models) {
        fprintf(stderr, "gguffs: out of memory\n");
        return GG_EXIT_INTERNAL;
    }
    for (int i = 0; i < n; i++) {
        gg_model *m = calloc(1, sizeof *m);
        if (!m) {
            fprintf(stderr, "gguffs: out of memory\n");
            close_models(models, k);
            return GG_EXIT_INTERNAL;
        }
        gg_err e;
        if (gg_model_open(m, c->pos[i], &c->open, &e)) {
            fprintf(stderr, "gguffs: %s\n", e.msg);
            gg_model_close(m);
            free(m);
            close_models(models, k);
            return gg_exit_for(e.code);
        }
        int dup = 0;
        for (int j = 0; j < k && !dup; j++)
            dup = gg_model_same(models[j], m);
        if (dup) {
            gg_model_close(m);
            free(m);
            continue;
        }
        models[k++] = m;
    }
    *out = models;
    *nout = k;
    return GG_EXIT_OK;
}

static int run_mount(gg_cli *c)
{
    /* The daemon runs up to ~20 threads (FUSE, read-ahead, OpenMP); glibc's
     * default of 8 arenas per core would let freed memory strand in many of
     * them. Page buffers do not come from malloc (cache.c maps them). */
    mallopt(M_ARENA_MAX, 4);

    gg_model **models = NULL;
    int nmodels = 0;
    int rc = open_models(c, c->npos - 1, &models, &nmodels);
    if (rc)
        return rc;
    char *mp = NULL;
    rc = resolve_mountpoint(c->pos[c->npos - 1], &mp);
    if (rc) {
        close_models(models, nmodels);
        return rc;
    }
    if (c->logfile) {
        int e = gg_log_to_file(c->logfile);
        if (e < 0) {
            fprintf(stderr, "gguffs: -o logfile=%s: %s\n", c->logfile, strerror(-e));
            close_models(models, nmodels);
            free(mp);
            return GG_EXIT_USAGE;
        }
    }
    char *fsn = fsname_opt(c->pos[0]);
    gg_reader *reader = gg_reader_new(&c->reader);
    gg_tree *tree = NULL;
    gg_err e;
    if (!fsn || !reader) {
        fprintf(stderr, "gguffs: out of memory\n");
        rc = GG_EXIT_INTERNAL;
    } else if (!(tree = gg_tree_new(models, nmodels, reader, &e))) {
        fprintf(stderr, "gguffs: %s\n", e.msg);
        rc = GG_EXIT_INTERNAL;
    } else {
        char *argv[64];
        int argc = 0;
        for (int i = 0; i < c->fuse_argc && argc < 60; i++)
            argv[argc++] = c->fuse_argv[i];
        argv[argc++] = "-o";
        argv[argc++] = fsn;
        argv[argc] = NULL;
        rc = gg_fuse_run(tree, argc, argv, mp, &c->fuse);
        gg_tree_free(tree);
    }
    gg_reader_free(reader);
    free(fsn);
    free(mp);
    close_models(models, nmodels);
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
    gg_tool_opts to = {.json = c.json, .full = c.full, .open = &c.open, .reader = &c.reader,
                       .only = c.only, .n_only = c.n_only};
    switch (c.mode) {
    case GG_MODE_HELP:
        gg_cli_usage(stdout);
        break;
    case GG_MODE_VERSION:
        printf("gguffs %s (libfuse %s)\nsimd paths:", GGUFFS_VERSION, fuse_pkgversion());
        for (int k = 0; k <= (int)gg_isa_detect(); k++)
            printf(" %s", gg_isa_name((gg_isa)k));
        printf("\n");
        break;
    case GG_MODE_DUMP:
        rc = gg_tool_dump(c.pos[0], &to);
        break;
    case GG_MODE_VERIFY:
        rc = gg_tool_verify(c.pos[0], &to);
        break;
    case GG_MODE_MOUNT:
        rc = run_mount(&c);
        break;
    }
    gg_cli_free(&c);
    return rc;
}
