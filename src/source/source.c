/* source.c - opening a source by its spec, and what kind of spec it is (see
 * source.h). */
#include "gguffs/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

gg_spec_kind gg_spec_kind_of(const char *spec)
{
    if (!strncmp(spec, "http://", 7) || !strncmp(spec, "https://", 8))
        return GG_SPEC_URL;
    size_t n = 0;
    if (spec[0] >= 'a' && spec[0] <= 'z')
        n = 1 + strspn(spec + 1, "abcdefghijklmnopqrstuvwxyz0123456789+.-");
    return n && !strncmp(spec + n, "://", 3) ? GG_SPEC_NAME : GG_SPEC_PATH;
}

size_t gg_spec_path_len(const char *spec)
{
    return gg_spec_kind_of(spec) == GG_SPEC_URL ? strcspn(spec, "?#") : strlen(spec);
}

char *gg_url_display(const char *url)
{
    /* scheme://[userinfo@]authority[/path][?query][#fragment] */
    const char *s = strstr(url, "://");
    size_t scheme = s ? (size_t)(s - url) + 3 : 0;
    const char *auth = url + scheme, *auth_end = auth + strcspn(auth, "/?#");
    const char *host = auth;
    for (const char *p = auth; p < auth_end; p++)
        if (*p == '@')
            host = p + 1; /* (the last '@': a password may hold one) */
    /* A host that is not one (a password with a '/' in it: "u:p/w@h") may be
     * part of a secret: show none of it. */
    int ok = scheme > 3 && host < auth_end;
    for (const char *p = host; ok && p < auth_end; p++)
        ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
             strchr(".-_~%[]:", *p);
    const char *colon = memchr(host, ':', (size_t)(auth_end - host)), *v6 = memchr(host, ']', (size_t)(auth_end - host));
    if (ok && colon && !v6)
        for (const char *p = colon + 1; ok && p < auth_end; p++)
            ok = *p >= '0' && *p <= '9';
    const char *path_end = auth_end + strcspn(auth_end, "?#");
    int query = *path_end == '?' && path_end[1] && path_end[1] != '#';
    char *out = NULL;
    if (!ok)
        return strdup("(a malformed URL)");
    if (asprintf(&out, "%.*s%.*s%s", (int)scheme, url, (int)(path_end - host), host, query ? "?..." : "") < 0)
        return NULL;
    return out;
}

gg_source *gg_source_open(const char *spec, gg_url_opener open_url, void *url_arg, gg_err *e)
{
    gg_spec_kind k = gg_spec_kind_of(spec);
    if (k == GG_SPEC_PATH)
        return gg_source_open_file(spec, e);
    if (k == GG_SPEC_NAME) { /* (a name is resolved into URLs before: gg_resolve_spec, resolver.h) */
        gg_fail(e, GG_E_INVAL, "%.*s: no source for this scheme (a path or an http(s) URL; a name to be "
                "resolved first)", (int)strcspn(spec, ":"), spec);
        return NULL;
    }
    if (!open_url) {
        char *shown = gg_url_display(spec);
        gg_fail(e, GG_E_INVAL, "%s: a URL, and no HTTP client was set up", shown ? shown : "(a URL)");
        free(shown);
        return NULL;
    }
    return open_url(url_arg, spec, e);
}

void gg_source_close(gg_source *s)
{
    if (s)
        s->ops->close(s);
}
