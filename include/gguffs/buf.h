/* buf.h - the growable byte buffer every text is built in, growing arrays,
 * and the few writers into a buffer that know no model: JSON string
 * literals, UTF-8 checks, hex. The lowest layer (base/): anything may include it. */
#ifndef GGUFFS_BUF_H
#define GGUFFS_BUF_H

#include <stdarg.h>
#include <stddef.h>

/* A growable byte buffer; with max, one that refuses to hold more than max
 * bytes (over and oom set: writers stop as when out of memory); stoppable,
 * one that refuses more once its thread's caller gave up (scope.h; asked at
 * every MiB: stopped and oom set). */
typedef struct gg_buf {
    char *p;
    size_t len, cap;
    int oom;       /* an allocation failed (or it refused more); contents are incomplete */
    size_t max;    /* 0: no bound */
    int over;      /* more than max bytes were written */
    int stoppable; /* a text made for a reader, who may give up */
    int stopped;   /* it did */
} gg_buf;

/* Room for n more bytes and a NUL after b->len (the caller writes them and
 * advances len), or NULL with b->oom set. */
char *gg_buf_room(gg_buf *b, size_t n);
void gg_buf_put(gg_buf *b, const void *s, size_t n);
void gg_buf_puts(gg_buf *b, const char *s);
/* Code point cp (below 0x110000) as UTF-8. */
void gg_buf_put_utf8(gg_buf *b, unsigned long cp);
void gg_buf_printf(gg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gg_buf_free(gg_buf *b);

/* Room for item n of the array *arr of elem-byte items, *cap of them: the
 * capacity doubles (from first) while n is past it. 0, or -1 out of memory
 * (*arr and *cap unchanged). */
int gg_grow(void **arr, size_t *cap, size_t n, size_t elem, size_t first);

/* asprintf that returns the string (NULL when out of memory); the va_list
 * form for functions that take a format of their own. */
char *gg_xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *gg_vxprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Append s (n bytes) to out as a JSON string literal, quotes included; each
 * maximal invalid UTF-8 subpart becomes one U+FFFD, as Python's
 * errors="replace" decodes it. */
void gg_json_string(gg_buf *out, const char *s, size_t n);
/* Is s[0..n) well-formed UTF-8? */
int gg_utf8_valid(const char *s, size_t n);
/* Append the bytes p[0..n) as lowercase hex digits. */
void gg_hex(gg_buf *out, const void *p, size_t n);

#endif
