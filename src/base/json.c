/* json.c - UTF-8 checks, JSON string literals and hex into a gg_buf (see
 * buf.h). */
#include "gguffs/buf.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* UTF-8 at s (n bytes left): returns the length of the valid sequence
 * there, or 0 with *bad = the length of the maximal invalid subpart (the
 * lead byte and the continuation bytes that still fit it, at least 1) -
 * what Python's decoder replaces with one U+FFFD. The ranges are Unicode's
 * table of well-formed sequences (no overlongs, surrogates or > U+10FFFF). */
static int utf8_len(const unsigned char *s, uint64_t n, int *bad)
{
    unsigned c = s[0];
    int need;
    unsigned lo = 0x80, hi = 0xbf; /* range of the second byte */
    if (c < 0x80)
        return 1;
    else if (c >= 0xc2 && c <= 0xdf)
        need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
        need = 2;
        if (c == 0xe0)
            lo = 0xa0;
        else if (c == 0xed)
            hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f;
    } else {
        *bad = 1;
        return 0;
    }
    for (int i = 1; i <= need; i++) {
        unsigned b = (uint64_t)i < n ? s[i] : 0x100;
        if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xbf)) {
            *bad = i;
            return 0;
        }
    }
    return need + 1;
}

int gg_utf8_valid(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        int bad, len = utf8_len(u + i, n - i, &bad);
        if (!len)
            return 0;
        i += (size_t)len;
    }
    return 1;
}

void gg_json_string(gg_buf *out, const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    gg_buf_put(out, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        int bad = 0, len = utf8_len(u + i, n - i, &bad);
        const char *esc = NULL;
        char tmp[8];
        if (len == 0)
            esc = "\xef\xbf\xbd"; /* U+FFFD for the maximal invalid subpart */
        else if (c == '"')
            esc = "\\\"";
        else if (c == '\\')
            esc = "\\\\";
        else if (c == '\n')
            esc = "\\n";
        else if (c == '\r')
            esc = "\\r";
        else if (c == '\t')
            esc = "\\t";
        else if (c < 0x20 || c == 0x7f) {
            memcpy(tmp, "\\u00", 4); /* (no snprintf: a string of 40 MiB of them is a second faster) */
            tmp[4] = "0123456789abcdef"[c >> 4];
            tmp[5] = "0123456789abcdef"[c & 15];
            tmp[6] = 0;
            esc = tmp;
        }
        if (!esc) {
            i += (size_t)len;
            continue;
        }
        gg_buf_put(out, s + run, i - run);
        gg_buf_puts(out, esc);
        if (out->oom) /* (a bounded buffer is full: the rest is not looked at) */
            return;
        i += len ? (size_t)len : (size_t)bad;
        run = i;
    }
    gg_buf_put(out, s + run, n - run);
    gg_buf_put(out, "\"", 1);
}

void gg_hex(gg_buf *out, const void *p, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    const unsigned char *u = p;
    for (size_t i = 0; i < n; i++) {
        char two[2] = {digits[u[i] >> 4], digits[u[i] & 15]};
        gg_buf_put(out, two, 2);
    }
}
