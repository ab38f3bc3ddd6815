/* editfile.c - a model's edits in a file of their own (see editfile.h). */
#include "gguffs/editfile.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/sha256.h"
#include "gguffs/buf.h"
#include "gguffs/jsonread.h"
#include "gguffs/kvget.h"
#include "gguffs/kvparse.h"
#include "gguffs/render.h"
#include "gguffs/source.h"

#define EDITFILE_MAX (1ull << 30) /* bigger is not an edits file */

/* ---- the model's identity ---- */

/* m's identity into *id, once (id->path NULL: not worked out yet): SHA-256
 * of each shard's header and the model's real path. 0, or -1 with *e. */
static int ident_of(const gg_model *m, gg_model_ident *id, gg_err *e)
{
    if (id->path)
        return 0;
    memset(id, 0, sizeof *id);
    id->size = m->size;
    if (gg_spec_kind_of(m->path) == GG_SPEC_PATH)
        id->path = realpath(m->path, NULL);
    if (!id->path)
        id->path = strdup(m->path);
    if (!id->path)
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    if (m->nshards == 1) {
        gg_sha256_hex(m->shards[0].f.hdr, m->shards[0].f.hdr_len, id->sha256);
        return 0;
    }
    /* a split set: the digest of its shards' digests, in order */
    char *all = malloc((size_t)m->nshards * 64 + 1);
    if (!all) {
        gg_model_ident_free(id);
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    }
    for (uint32_t i = 0; i < m->nshards; i++) {
        char one[65];
        gg_sha256_hex(m->shards[i].f.hdr, m->shards[i].f.hdr_len, one);
        memcpy(all + (size_t)i * 64, one, 64);
    }
    gg_sha256_hex(all, (size_t)m->nshards * 64, id->sha256);
    free(all);
    return 0;
}

void gg_model_ident_free(gg_model_ident *id)
{
    free(id->path);
    id->path = NULL;
}

/* ---- loading ---- */

static int read_whole(const char *path, gg_buf *out, gg_err *e)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 1 : gg_fail_errno(e, errno, "edits file %s", path);
    struct stat st;
    if (fstat(fd, &st) || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > EDITFILE_MAX) {
        close(fd);
        return gg_fail(e, GG_E_INVAL, "edits file %s: not a regular file of at most 1 GiB", path);
    }
    char *p = gg_buf_room(out, (size_t)st.st_size);
    size_t got = 0;
    while (p && got < (size_t)st.st_size) {
        ssize_t r = read(fd, p + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    int err = errno;
    close(fd);
    if (!p)
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    if (got < (size_t)st.st_size)
        return gg_fail_errno(e, err ? err : EIO, "edits file %s: reading", path);
    out->len = got;
    return 0;
}

static int unhex(const char *s, size_t n, gg_buf *out)
{
    if (n % 2)
        return -1;
    for (size_t i = 0; i < n; i += 2) {
        int v = 0;
        for (int k = 0; k < 2; k++) {
            char c = s[i + (size_t)k];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0)
                return -1;
            v = v * 16 + d;
        }
        uint8_t b = (uint8_t)v;
        gg_buf_put(out, &b, 1);
    }
    return 0;
}

/* A key as the file names it: its "key_hex", else the member's name (or
 * the string of "removed"); -1 when there is neither (name NULL). */
static int key_of(const char *name, size_t len, const gg_jval *hex, gg_buf *key)
{
    key->len = 0;
    if (hex)
        return hex->type == GG_J_STR && unhex(hex->s, hex->len, key) == 0 && key->len ? 0 : -1;
    if (!name)
        return -1;
    gg_buf_put(key, name, len);
    return 0;
}

/* The differences between the model an edits file names and m's. */
static int same_model(const char *path, const gg_jval *model, const gg_model_ident *id, gg_err *e)
{
    const gg_jval *p = gg_json_get(model, "path"), *sz = gg_json_get(model, "size"),
                  *h = gg_json_get(model, "header_sha256");
    if (!p || p->type != GG_J_STR || !sz || sz->type != GG_J_NUM || !h || h->type != GG_J_STR)
        return gg_fail(e, GG_E_INVAL, "edits file %s: \"model\" needs path, size and header_sha256", path);
    uint64_t size = strtoull(sz->s, NULL, 10);
    if (strcmp(p->s, id->path))
        return gg_fail(e, GG_E_INVAL, "edits file %s: made for another model, %s (%" PRIu64 " bytes), not %s; "
                       "remove it or give another -o edits=", path, p->s, size, id->path);
    if (size != id->size)
        return gg_fail(e, GG_E_INVAL, "edits file %s: made for %s when it was %" PRIu64 " bytes; it is %" PRIu64
                       " bytes now (the model changed since)", path, id->path, size, id->size);
    if (strcmp(h->s, id->sha256))
        return gg_fail(e, GG_E_INVAL, "edits file %s: made for %s whose header had SHA-256 %.16s...; it has %.16s... "
                       "now (the model changed since)", path, id->path, h->s, id->sha256);
    return 0;
}

/* One member of "set": its value into ed. */
static int set_one(const char *path, const gg_jval *doc, size_t i, gg_edits *ed, gg_buf *key, gg_err *e)
{
    const gg_jval *v = &doc->kids[i];
    const gg_jval *ty = gg_json_get(v, "type"), *val = gg_json_get(v, "value"), *hex = gg_json_get(v, "value_hex");
    gg_vdesc d;
    gg_buf bytes = {0};
    char shown[130]; /* 127 characters of the key at most, and its quotes */
    gg_text_shown(doc->keys[i], doc->key_lens[i], 100, shown, sizeof shown);
    int rc = -1;
    if (key_of(doc->keys[i], doc->key_lens[i], gg_json_get(v, "key_hex"), key))
        gg_fail(e, GG_E_INVAL, "edits file %s: set %s: a bad key_hex", path, shown);
    else if (!ty || ty->type != GG_J_STR || gg_vdesc_parse(ty->s, &d))
        gg_fail(e, GG_E_INVAL, "edits file %s: set %s: no type, or not one (u8 ... f64, str, arr[T])", path, shown);
    else if (hex && (hex->type != GG_J_STR || unhex(hex->s, hex->len, &bytes)))
        gg_fail(e, GG_E_INVAL, "edits file %s: set %s: value_hex is not hex digits", path, shown);
    else if (!hex && !val)
        gg_fail(e, GG_E_INVAL, "edits file %s: set %s: no value", path, shown);
    else if (!hex && gg_kv_from_json(&d, val, &bytes, e))
        gg_err_prefix(e, "edits file %s: set %s", path, shown);
    else if (gg_edits_set(ed, key->p, key->len, d.t[0], bytes.p, bytes.len))
        gg_fail(e, GG_E_NOMEM, "out of memory");
    else
        rc = 0;
    gg_buf_free(&bytes);
    return rc;
}

static int from_doc(const char *path, const gg_jval *doc, const gg_model *m, const gg_model_ident *id, gg_edits *ed,
                    gg_err *e)
{
    const gg_jval *ver = gg_json_get(doc, "gguffs_edits"), *model = gg_json_get(doc, "model"),
                  *set = gg_json_get(doc, "set"), *rm = gg_json_get(doc, "removed");
    if (doc->type != GG_J_OBJ || !ver || ver->type != GG_J_NUM || strcmp(ver->s, "1") || !model ||
        model->type != GG_J_OBJ)
        return gg_fail(e, GG_E_INVAL, "edits file %s: not an edits file of gguffs (no \"gguffs_edits\": 1 and "
                       "\"model\")", path);
    if (same_model(path, model, id, e))
        return -1;
    if ((set && set->type != GG_J_OBJ) || (rm && rm->type != GG_J_ARR))
        return gg_fail(e, GG_E_INVAL, "edits file %s: \"set\" must be an object and \"removed\" a list", path);
    gg_buf key = {0};
    int rc = 0;
    for (size_t i = 0; set && i < set->n && !rc; i++)
        rc = set_one(path, set, i, ed, &key, e);
    for (size_t i = 0; rm && i < rm->n && !rc; i++) {
        const gg_jval *k = &rm->kids[i];
        if (k->type == GG_J_STR)
            rc = key_of(k->s, k->len, NULL, &key);
        else
            rc = key_of(NULL, 0, gg_json_get(k, "key_hex"), &key);
        if (rc)
            gg_fail(e, GG_E_INVAL, "edits file %s: removed: item %zu is neither a key nor {\"key_hex\": ...}", path, i);
        else if (gg_edits_remove(ed, m->f, key.p, key.len))
            rc = gg_fail(e, GG_E_NOMEM, "out of memory");
    }
    gg_buf_free(&key);
    return rc;
}

int gg_editfile_load(const char *path, const gg_model *m, gg_model_ident *id, gg_edits *out, gg_err *e)
{
    memset(out, 0, sizeof *out);
    gg_buf text = {0};
    int rc = read_whole(path, &text, e);
    if (rc) {
        gg_buf_free(&text);
        return rc > 0 ? 0 : -1;
    }
    gg_jval doc;
    char why[256];
    if (gg_json_parse(text.p ? text.p : "", text.len, &doc, why, sizeof why)) {
        gg_json_free(&doc);
        gg_buf_free(&text);
        return gg_fail(e, GG_E_INVAL, "edits file %s: not JSON: %s", path, why);
    }
    rc = ident_of(m, id, e) || from_doc(path, &doc, m, id, out, e) ? -1 : 0;
    gg_json_free(&doc);
    gg_buf_free(&text);
    if (rc)
        gg_edits_free(out);
    return rc;
}

/* ---- saving ---- */

/* A key as a member's name (and its key_hex when it is not UTF-8). */
static void put_key(gg_buf *out, const char *key, size_t len, int *hex)
{
    gg_json_string(out, key, len);
    *hex = !gg_utf8_valid(key, len);
}

/* The value of key k of the edited file, as JSON if that gives the same
 * bytes back, else as hex. */
static void put_value(gg_buf *out, const gg_file *f, const gg_kv *kv)
{
    gg_vdesc d;
    gg_vdesc_of(f, kv, &d);
    char type[64];
    gg_vdesc_name(&d, type, sizeof type);
    gg_buf_printf(out, "\"type\": \"%s\", ", type);
    gg_buf js = {0}, back = {0};
    gg_render_value_json(f, kv, UINT64_MAX, &js);
    gg_jval v;
    char why[64];
    int same = !js.oom && gg_json_parse(js.p, js.len, &v, why, sizeof why) == 0 &&
               gg_kv_from_json(&d, &v, &back, NULL) == 0 && back.len == kv->val_len &&
               !memcmp(back.p, f->hdr + kv->val, kv->val_len);
    gg_json_free(&v);
    if (same) {
        gg_buf_puts(out, "\"value\": ");
        gg_buf_put(out, js.p, js.len);
    } else {
        gg_buf_puts(out, "\"value_hex\": \"");
        gg_hex(out, f->hdr + kv->val, kv->val_len);
        gg_buf_puts(out, "\"");
    }
    gg_buf_free(&js);
    gg_buf_free(&back);
}

static void render(gg_buf *out, const gg_model_ident *id, const gg_file *edited, const gg_edits *ed)
{
    gg_buf_puts(out, "{\n  \"gguffs_edits\": 1,\n  \"model\": {\"path\": ");
    gg_json_string(out, id->path, strlen(id->path));
    gg_buf_printf(out, ", \"size\": %" PRIu64 ", \"header_sha256\": \"%s\"},\n  \"set\": {", id->size, id->sha256);
    int first = 1, hex;
    for (size_t i = 0; i < ed->n; i++) {
        const gg_edit *d = &ed->e[i];
        if (d->removed)
            continue;
        const gg_kv *kv = gg_kv_named(edited, d->key, d->key_len);
        if (!kv)
            continue;
        gg_buf_puts(out, first ? "\n    " : ",\n    ");
        first = 0;
        put_key(out, d->key, d->key_len, &hex);
        gg_buf_puts(out, ": {");
        if (hex) {
            gg_buf_puts(out, "\"key_hex\": \"");
            gg_hex(out, d->key, d->key_len);
            gg_buf_puts(out, "\", ");
        }
        put_value(out, edited, kv);
        gg_buf_puts(out, "}");
    }
    gg_buf_puts(out, first ? "},\n  \"removed\": [" : "\n  },\n  \"removed\": [");
    first = 1;
    for (size_t i = 0; i < ed->n; i++) {
        const gg_edit *d = &ed->e[i];
        if (!d->removed)
            continue;
        gg_buf_puts(out, first ? "" : ", ");
        first = 0;
        if (gg_utf8_valid(d->key, d->key_len)) {
            gg_json_string(out, d->key, d->key_len);
        } else {
            gg_buf_puts(out, "{\"key_hex\": \"");
            gg_hex(out, d->key, d->key_len);
            gg_buf_puts(out, "\"}");
        }
    }
    gg_buf_puts(out, "]\n}\n");
}

/* Make path's folder and its parents. */
static int make_dirs(char *dir)
{
    struct stat st;
    if (!stat(dir, &st))
        return S_ISDIR(st.st_mode) ? 0 : -1;
    char *slash = strrchr(dir, '/');
    if (slash && slash != dir) {
        *slash = 0;
        int rc = make_dirs(dir);
        *slash = '/';
        if (rc)
            return -1;
    }
    return mkdir(dir, 0755) && errno != EEXIST ? -1 : 0;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int gg_editfile_save(const char *path, const gg_model *m, gg_model_ident *id, const gg_file *edited,
                     const gg_edits *ed, gg_err *e)
{
    if (ident_of(m, id, e))
        return -1;
    gg_buf text = {0};
    render(&text, id, edited, ed);
    if (text.oom) {
        gg_buf_free(&text);
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    }
    char *dir = strdup(path), *tmp = gg_xprintf("%s.tmp-XXXXXX", path);
    int rc = -1, fd = -1;
    if (!dir || !tmp) {
        gg_fail(e, GG_E_NOMEM, "out of memory");
        goto out;
    }
    char *d = dirname(dir);
    if (make_dirs(d)) {
        gg_fail_errno(e, errno, "edits file %s: making its folder %s", path, d);
        goto out;
    }
    fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0) {
        gg_fail_errno(e, errno, "edits file %s: writing", path);
        goto out;
    }
    if (fchmod(fd, 0644) || write_all(fd, text.p, text.len) || fsync(fd)) {
        gg_fail_errno(e, errno, "edits file %s: writing", path);
        unlink(tmp);
        goto out;
    }
    if (rename(tmp, path)) {
        gg_fail_errno(e, errno, "edits file %s: renaming %s over it", path, tmp);
        unlink(tmp);
        goto out;
    }
    /* the rename itself survives a crash once the folder is synced */
    int dfd = open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    free(dir);
    free(tmp);
    gg_buf_free(&text);
    return rc;
}

void gg_editfile_tidy(const char *path)
{
    char *pat = gg_xprintf("%s.tmp-??????", path);
    glob_t g;
    if (pat && glob(pat, GLOB_NOSORT | GLOB_NOESCAPE, NULL, &g) == 0) {
        for (size_t i = 0; i < g.gl_pathc; i++)
            unlink(g.gl_pathv[i]);
        globfree(&g);
    }
    free(pat);
}
