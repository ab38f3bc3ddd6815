/* names.c - escaping GGUF names into file names (rules in names.h). */
#include "gguffs/names.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_BYTES 255

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
    char *out = malloc(len + 1);
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
    if (len > NAME_MAX_BYTES) {
        /* Too long for any file system: cut, and keep names distinct by a hash. */
        uint32_t h = 2166136261u;
        for (size_t i = 0; i < n; i++)
            h = (h ^ (unsigned char)s[i]) * 16777619u;
        size_t keep = 244;
        /* Do not cut an escape sequence in half. */
        if (keep >= 1 && out[keep - 1] == '%')
            keep -= 1;
        else if (keep >= 2 && out[keep - 2] == '%')
            keep -= 2;
        sprintf(out + keep, "%%~%08x", h);
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
