/* scope.h - what bounds the work a thread does for one request (a FUSE
 * read): a deadline, and a way to learn that the caller gave up (its
 * reader was interrupted by a signal, or is gone) or that everything stops.
 *
 * The network layer honours the calling thread's scope: none of its
 * requests, retries and waits included, runs past the deadline, and all of
 * them stop once the caller gave up. Threads working for the request (the
 * OpenMP decoders of view.c) take the caller's scope for that work, so the
 * bound holds whichever thread fetches the bytes. No scope: each network
 * request is bounded by its own -o timeout. */
#ifndef GGUFFS_SCOPE_H
#define GGUFFS_SCOPE_H

#include <stdatomic.h>
#include <stdint.h>

#include "gguffs/error.h"

typedef struct gg_scope {
    int64_t deadline_ms;       /* on gg_scope_now_ms()'s clock; 0: none */
    const _Atomic int *stop;   /* non-zero: the caller gave up (NULL: never says) */
    int (*gave_up)(void *arg); /* or this says so (NULL: never): asked at most twice a second */
    void *arg;
    _Atomic int64_t asked_ms;  /* (when gave_up was last asked) */
    _Atomic int given_up;      /* (gave_up said so once: for good) */
} gg_scope;

/* A scope that ends timeout_ms from now (0: no deadline); gave_up is first
 * asked half a second from now (a quick request never asks it). */
void gg_scope_init(gg_scope *s, int64_t timeout_ms, const _Atomic int *stop, int (*gave_up)(void *), void *arg);

/* The calling thread's scope (NULL: none), and setting it (NULL clears). */
gg_scope *gg_scope_get(void);
void gg_scope_set(gg_scope *s);

/* Milliseconds of CLOCK_MONOTONIC. */
int64_t gg_scope_now_ms(void);

/* Has the calling thread's caller given up, or is everything stopping?
 * (Cheap: asks gave_up at most every half second.) Long work (a comparison,
 * stats of a tensor, a long text) asks it once per block and stops. */
int gg_scope_stopped(void);

/* gg_scope_stopped() as an error: -1 with *e saying what stopped (GG_E_IO),
 * or 0 to go on. */
int gg_scope_check(gg_err *e, const char *what);

/* Everything stops (the mount ends: a signal, an unmount): from now on
 * gg_scope_stopped() says so in every thread, with a scope or without.
 * Safe in a signal handler. */
void gg_scope_stop_all(void);

/* Milliseconds left before the calling thread's deadline, or INT64_MAX
 * without one (never below 0). */
int64_t gg_scope_left_ms(void);

#endif
