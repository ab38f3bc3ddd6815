/* names.c - escaping GGUF names into file names (rules in names.h). */
#include "gguffs/names.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"

#define CUT_KEEP (GG_NAME_MAX - 2 - 16) /* bytes kept before "%~" + 16 hex digits */

/* Largest k <= want such that out[0..k) does not end inside a %XX escape. */
static size_t cut_point(const char *out, size_t want)
{
    size_t k = want;
    if (k >= 1 && out[k - 1] == '%')
        k -= 1;
    else if (k >= 2 && out[k - 2] == '%')
        k -= 2;
    return k;
}

char *gg_name_escape(const char *s, size_t n)
{
    if (n == 0)
        return strdup("%");
    if (n == 1 && s[0] == '.')
        return strdup("%2E");
    if (n == 2 && s[0] == '.' && s[1] == '.')
        return strdup("%2E%2E");
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += (s[i] == '%' || s[i] == '/' || s[i] == 0) ? 3 : 1;
    char *out = malloc(len + 1 > GG_NAME_MAX + 1 ? len + 1 : GG_NAME_MAX + 1);
    if (!out)
        return NULL;
    char *o = out;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' || s[i] == '/' || s[i] == 0) {
            o += sprintf(o, "%%%02X", (unsigned char)s[i]);
        } else {
            *o++ = s[i];
        }
    }
    *o = 0;
    if (len > GG_NAME_MAX) {
        /* Too long for any file system: cut, and keep names apart by a hash. */
        size_t keep = cut_point(out, CUT_KEEP);
        sprintf(out + keep, "%%~%016llx", (unsigned long long)gg_hash64(s, n, 0));
    }
    return out;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

long gg_name_unescape(const char *name, char *out)
{
    if (strcmp(name, "%") == 0)
        return 0;
    long n = 0;
    for (const char *p = name; *p; p++) {
        if (*p != '%') {
            out[n++] = *p;
            continue;
        }
        int hi = hexval(p[1]), lo = hi < 0 ? -1 : hexval(p[2]);
        if (hi < 0 || lo < 0)
            return -1;
        out[n++] = (char)(hi * 16 + lo);
        p += 2;
    }
    return n;
}

/* An open-addressing set of strings (pointers owned elsewhere). */
typedef struct strset {
    const char **slot;
    size_t cap;
} strset;

static int set_has_or_add(strset *s, const char *name, int add)
{
    size_t k = gg_hash64(name, strlen(name), 0) & (s->cap - 1);
    for (; s->slot[k]; k = (k + 1) & (s->cap - 1))
        if (!strcmp(s->slot[k], name))
            return 1;
    if (add)
        s->slot[k] = name;
    return 0;
}

int gg_names_unique(char **names[], size_t n, const char *const *reserved, size_t nres)
{
    return gg_names_unique_n(names, n, reserved, nres, GG_NAME_MAX);
}

int gg_names_unique_n(char **names[], size_t n, const char *const *reserved, size_t nres, size_t max)
{
    strset s = {NULL, 16};
    /* Renamed entries can add at most n more names. */
    while (s.cap < 2 * (2 * n + nres) + 2)
        s.cap *= 2;
    s.slot = calloc(s.cap, sizeof *s.slot);
    if (!s.slot)
        return -1;
    for (size_t i = 0; i < nres; i++)
        set_has_or_add(&s, reserved[i], 1);
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        char *name = *names[i];
        if (!set_has_or_add(&s, name, 1))
            continue;
        char *alt = malloc((max ? max : strlen(name) + 16) + 1);
        if (!alt) {
            rc = -1;
            break;
        }
        for (unsigned k = 2;; k++) {
            char suffix[16];
            int sl = snprintf(suffix, sizeof suffix, "~%u", k);
            size_t keep = strlen(name);
            if (max && keep + (size_t)sl > max)
                keep = cut_point(name, max - (size_t)sl);
            memcpy(alt, name, keep);
            memcpy(alt + keep, suffix, (size_t)sl + 1);
            if (!set_has_or_add(&s, alt, 0))
                break;
        }
        free(name);
        *names[i] = alt;
        set_has_or_add(&s, alt, 1);
    }
    free(s.slot);
    return rc;
}
