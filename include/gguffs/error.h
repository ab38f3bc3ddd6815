/* error.h - the one error type of the core: a code that says what kind of
 * failure it is, and a message for people that names the file (or URL), the
 * byte offset and what was wrong ("model.gguf: offset 24: ...").
 *
 * Functions that can fail return -1 (or NULL) and fill the gg_err the caller
 * passed (which may be NULL when the caller does not care why). Nothing in
 * the core returns errno values or exit statuses: the FUSE layer turns codes
 * into errno (gg_err_errno) and the command line into exit statuses. */
#ifndef GGUFFS_ERROR_H
#define GGUFFS_ERROR_H

#include <stddef.h>

#define GG_ERR_LEN 768

typedef enum gg_code {
    GG_OK = 0,
    GG_E_NOMEM,       /* out of memory */
    GG_E_NOTFOUND,    /* no such file or URL (ENOENT, HTTP 404) */
    GG_E_ACCESS,      /* not allowed (EACCES, HTTP 401/403) */
    GG_E_IO,          /* reading failed: an I/O error, a file cut short, a network that failed */
    GG_E_NOTREG,      /* not a regular file (a folder, a device) */
    GG_E_MALFORMED,   /* not a valid GGUF file */
    GG_E_STALE,       /* the file or object changed since it was opened */
    GG_E_UNSUPPORTED, /* valid, but nothing here can decode it (unknown type, no decoder) */
    GG_E_TOOBIG,      /* a generated text would be unreasonably large */
    GG_E_INVAL,       /* a bad argument: option value, type list, URL */
    GG_E_ISDIR,       /* a read of a folder */
    GG_E_NOTDIR,      /* a lookup in a file */
    GG_E_NOENT,       /* no such name in the tree */
    GG_E_TIMEOUT,     /* a server did not answer in time */
    GG_E_NOATTR,      /* no such extended attribute */
    GG_E_RANGE,       /* a buffer too small for the answer */
    GG_E_AGAIN,       /* not an error users see: a parser wants more bytes */
    GG_E_ROFS,        /* a write where nothing may be written (without -o edits=, or not metadata/) */
    GG_E_EXIST,       /* the name is taken */
    GG_E_PERM,        /* not something metadata/ can hold (a folder, a link) */
    GG_E_NOTSUP,      /* an attribute that cannot be set */
    GG_CODE_COUNT
} gg_code;

typedef struct gg_err {
    gg_code code;
    char msg[GG_ERR_LEN];
} gg_err;

/* Fill *e (if e is not NULL) and return -1. */
int gg_fail(gg_err *e, gg_code code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The same, from an errno value (ENOENT -> GG_E_NOTFOUND, ...). */
int gg_fail_errno(gg_err *e, int errnum, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Put "what: " in front of e's message (its code stays). */
void gg_err_prefix(gg_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The errno value for a code (at the FUSE boundary only). */
int gg_code_errno(gg_code c);
/* A short name of the code: "malformed", "stale", ... */
const char *gg_code_name(gg_code c);

/* An error kept for later (a tensor that cannot be decoded carries one):
 * only as many bytes as its message needs. Free with free(). */
typedef struct gg_kept_err {
    gg_code code;
    char msg[];
} gg_kept_err;
gg_kept_err *gg_err_keep(gg_code code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
