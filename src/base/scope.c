/* scope.c - the calling thread's request scope (see scope.h). */
#include "gguffs/scope.h"

#include <stdint.h>
#include <time.h>

#define ASK_EVERY_MS 500

static _Thread_local gg_scope *current;
static _Atomic int all_stopped;

void gg_scope_stop_all(void) { atomic_store(&all_stopped, 1); }

gg_scope *gg_scope_get(void) { return current; }
void gg_scope_set(gg_scope *s) { current = s; }

void gg_scope_init(gg_scope *s, int64_t timeout_ms, const _Atomic int *stop, int (*gave_up)(void *), void *arg)
{
    int64_t now = gg_scope_now_ms();
    s->deadline_ms = timeout_ms > 0 ? now + timeout_ms : 0;
    s->stop = stop;
    s->gave_up = gave_up;
    s->arg = arg;
    atomic_init(&s->asked_ms, now);
    atomic_init(&s->given_up, 0);
}

int64_t gg_scope_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int gg_scope_stopped(void)
{
    gg_scope *s = current;
    if (atomic_load_explicit(&all_stopped, memory_order_relaxed))
        return 1;
    if (!s)
        return 0;
    if ((s->stop && atomic_load_explicit(s->stop, memory_order_relaxed)) || atomic_load(&s->given_up))
        return 1;
    if (!s->gave_up)
        return 0;
    int64_t now = gg_scope_now_ms(), last = atomic_load(&s->asked_ms);
    if (now - last < ASK_EVERY_MS || !atomic_compare_exchange_strong(&s->asked_ms, &last, now))
        return 0;
    if (s->gave_up(s->arg)) {
        atomic_store(&s->given_up, 1);
        return 1;
    }
    return 0;
}

int gg_scope_check(gg_err *e, const char *what)
{
    if (!gg_scope_stopped())
        return 0;
    return gg_fail(e, GG_E_IO, "%s: stopped (%s)", what,
                   atomic_load(&all_stopped) ? "the mount is ending" : "its reader gave up");
}

int64_t gg_scope_left_ms(void)
{
    gg_scope *s = current;
    if (!s || !s->deadline_ms)
        return INT64_MAX;
    int64_t left = s->deadline_ms - gg_scope_now_ms();
    return left > 0 ? left : 0;
}
