/* cli.h - exit statuses of the gguffs command, and how core error codes map
 * to them. They belong to the command line only: the core library reports
 * errors as gg_err codes (error.h). And the signals that stop the command. */
#ifndef GGUFFS_CLI_H
#define GGUFFS_CLI_H

#include <signal.h>

#include "gguffs/error.h"

enum {
    GG_EXIT_OK = 0,
    GG_EXIT_INTERNAL = 1,
    GG_EXIT_USAGE = 2,
    GG_EXIT_CANNOT_OPEN = 3,   /* model missing, unreadable, unreachable */
    GG_EXIT_NOT_REGULAR = 4,   /* model is a directory or not a regular file */
    GG_EXIT_MALFORMED = 5,     /* not a valid GGUF file */
    GG_EXIT_MOUNTPOINT = 6,    /* mount point missing or not a directory */
    GG_EXIT_MOUNT_BUSY = 7,    /* mount point already mounted (or stale) */
    GG_EXIT_MOUNT_FAILED = 8,  /* FUSE refused to mount */
    GG_EXIT_VERIFY = 9,        /* --verify found problems */
    GG_EXIT_UNMOUNT = 10,      /* the mount could not be undone */
    GG_EXIT_NO_PATH = 11,      /* --cat: no such file in the model's tree (or a folder) */
};

/* The exit status for a failure to open a model. */
static inline int gg_exit_for(gg_code c)
{
    switch (c) {
    case GG_E_NOTREG: return GG_EXIT_NOT_REGULAR;
    case GG_E_MALFORMED: return GG_EXIT_MALFORMED;
    case GG_E_NOMEM: return GG_EXIT_INTERNAL;
    case GG_E_INVAL: return GG_EXIT_USAGE;
    default: return GG_EXIT_CANNOT_OPEN; /* not found, access, I/O, network, stale */
    }
}

/* handler for SIGTERM, SIGINT and SIGHUP (a mount's daemon, --compare). A
 * signal the caller ignores (SIGINT of a background job) stays ignored. */
static inline void gg_catch_stop_signals(void (*handler)(int))
{
    struct sigaction sa = {0}, old;
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    int sigs[] = {SIGTERM, SIGINT, SIGHUP};
    for (int i = 0; i < 3; i++)
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
}

#endif
