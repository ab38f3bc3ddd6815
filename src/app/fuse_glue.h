/* fuse_glue.h - what main.c needs from the FUSE layer. */
#ifndef GGUFFS_FUSE_GLUE_H
#define GGUFFS_FUSE_GLUE_H

#include "cli.h"
#include "gguffs/net.h"
#include "gguffs/shelf.h"
#include "gguffs/tree.h"

typedef struct gg_fuse_opts {
    int foreground;
    int single_thread;
    int direct_io;   /* tensor files bypass the kernel page cache */
    int max_threads; /* FUSE worker threads; 0 = default */
    int read_ahead_kb; /* the mount's kernel read-ahead (bdi), set at the first
                          open; 0 = leave the kernel's (128 KiB) */
    int clone_fd;    /* one /dev/fuse descriptor per worker thread */
    gg_net *net;     /* remote models' client: stopped at once on unmount; may be NULL */
    gg_shelf *shelf; /* its background work starts once the daemon runs */
    int mount_lock;  /* the mount point's lock (main.c), closed once mounted; -1: none */
    int edits;       /* -o edits=: metadata/ is writable (the tree says what else is not) */
} gg_fuse_opts;

/* Mount tree at mountpoint (absolute and canonical: it is never looked at
 * after mounting) with the libfuse arguments argv (argv[0] is the
 * program name), serve until unmounted or signalled, unmount. Returns an
 * exit status (GG_EXIT_*). */
int gg_fuse_run(gg_tree *tree, int argc, char **argv, const char *mountpoint, const gg_fuse_opts *o);

#endif
