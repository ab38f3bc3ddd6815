/* error.c - the core's error type (see error.h). */
#include "gguffs/error.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gg_fail(gg_err *e, gg_code code, const char *fmt, ...)
{
    if (!e)
        return -1;
    e->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    return -1;
}

static gg_code from_errno(int errnum)
{
    switch (errnum) {
    case ENOENT: return GG_E_NOTFOUND;
    case EACCES: case EPERM: return GG_E_ACCESS;
    case ENOMEM: return GG_E_NOMEM;
    case EISDIR: return GG_E_NOTREG;
    case ESTALE: return GG_E_STALE;
    case ETIMEDOUT: return GG_E_TIMEOUT;
    case EINVAL: return GG_E_INVAL;
    default: return GG_E_IO;
    }
}

int gg_fail_errno(gg_err *e, int errnum, const char *fmt, ...)
{
    if (!e)
        return -1;
    e->code = from_errno(errnum);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof e->msg)
        snprintf(e->msg + n, sizeof e->msg - (size_t)n, ": %s", strerror(errnum));
    return -1;
}

void gg_err_prefix(gg_err *e, const char *fmt, ...)
{
    if (!e)
        return;
    char old[GG_ERR_LEN];
    memcpy(old, e->msg, sizeof old);
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n < sizeof e->msg - 2) {
        memcpy(e->msg + n, ": ", 2);
        size_t room = sizeof e->msg - (size_t)n - 2, len = strnlen(old, sizeof old);
        if (len >= room)
            len = room - 1;
        memcpy(e->msg + n + 2, old, len);
        e->msg[n + 2 + len] = 0;
    }
}

int gg_code_errno(gg_code c)
{
    switch (c) {
    case GG_OK: return 0;
    case GG_E_NOMEM: return ENOMEM;
    case GG_E_NOTFOUND: case GG_E_NOENT: return ENOENT;
    case GG_E_ACCESS: return EACCES;
    case GG_E_STALE: return ESTALE;
    case GG_E_TOOBIG: return EFBIG;
    case GG_E_INVAL: return EINVAL;
    case GG_E_ISDIR: return EISDIR;
    case GG_E_NOTDIR: return ENOTDIR;
    case GG_E_TIMEOUT: return ETIMEDOUT;
    case GG_E_NOATTR: return ENODATA;
    case GG_E_RANGE: return ERANGE;
    case GG_E_AGAIN: return EAGAIN;
    case GG_E_ROFS: return EROFS;
    case GG_E_EXIST: return EEXIST;
    case GG_E_PERM: return EPERM;
    case GG_E_NOTSUP: return ENOTSUP;
    default: return EIO; /* I/O, malformed, unsupported, not regular */
    }
}

const char *gg_code_name(gg_code c)
{
    static const char *const names[GG_CODE_COUNT] = {
        "ok", "out of memory", "not found", "access denied", "I/O error", "not a regular file",
        "malformed", "stale", "unsupported", "too big", "invalid argument", "is a folder",
        "not a folder", "no such entry", "timed out", "no such attribute", "too small", "again",
        "read-only", "exists", "not permitted", "not supported"};
    return c < GG_CODE_COUNT ? names[c] : "?";
}

gg_kept_err *gg_err_keep(gg_code code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    gg_kept_err *k = malloc(sizeof *k + (size_t)n + 1);
    if (!k)
        return NULL;
    k->code = code;
    va_start(ap, fmt);
    vsnprintf(k->msg, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return k;
}
