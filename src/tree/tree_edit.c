/* tree_edit.c - writing metadata/ (-o edits=; the rules in tree.h): files
 * opened for writing, keys made, removed, renamed, typed. Each accepted
 * change is applied to the model's edits, saved to its edits file, and
 * made its newest version (mversion.h), in that order, one at a time per
 * model (its edit_mu); then the kernel hears what changed. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "gguffs/kvget.h"
#include "gguffs/kvparse.h"
#include "gguffs/names.h"
#include "gguffs/render.h"
#include "tree_int.h"

#define MAX_WRITTEN (1ull << 30) /* a value's text, at most (a string's limit) */

int tree_node_writable(const gg_mtree *mt, uint32_t node)
{
    const gg_node *n = &mt->nodes[node];
    if (gg_node_is_key(n))
        return 1;
    /* metadata/ itself: the model's folder holding the keys */
    return node && n->parent == 0 && n->content == GG_C_DIR && gg_files[n->file].build == gg_mtree_build_kvs;
}

/* The version and node of a writable inode (metadata/ or a key of it),
 * held; GG_E_ROFS for any other. */
static int writable(gg_tree *t, gg_ino ino, gg_mver **v, uint32_t *node, gg_err *e)
{
    gg_mtree *mt = NULL;
    gg_err le;
    gg_fail(&le, GG_E_ROFS, "read-only: only metadata/ can be written, with -o edits=");
    *v = NULL;
    if (slot_of(ino) == SPECIAL || slot_of(ino) >= VS_BASE || tree_model_node(t, ino, &mt, node, v, &le)) {
        if (e)
            *e = le;
        return -1;
    }
    if ((*v)->st->path && (*v)->st->writable && tree_node_writable(mt, *node))
        return 0;
    tree_put(t, *v);
    *v = NULL;
    return gg_fail(e, GG_E_ROFS, "read-only: only metadata/ can be written, with -o edits=");
}

int gg_tree_dir_writable(gg_tree *t, gg_ino dir)
{
    gg_mver *v;
    uint32_t node;
    if (writable(t, dir, &v, &node, NULL))
        return 0;
    int rc = gg_node_is_dir(&v->mt->nodes[node]);
    tree_put(t, v);
    return rc;
}

/* ---- keys made, and keys gone (edit_mu) ---- */

static ssize_t find_key(const gg_newkey *k, size_t n, const char *key, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (k[i].len == len && !memcmp(k[i].key, key, len))
            return (ssize_t)i;
    return -1;
}

static int add_key(gg_newkey **k, size_t *n, const char *key, size_t len, const gg_vdesc *type)
{
    ssize_t i = find_key(*k, *n, key, len);
    if (i >= 0) {
        (*k)[i].type = *type;
        return 0;
    }
    gg_newkey *p = realloc(*k, (*n + 1) * sizeof *p);
    if (!p)
        return -1;
    *k = p;
    if (!(p[*n].key = malloc(len + 1)))
        return -1;
    memcpy(p[*n].key, key, len);
    p[*n].key[len] = 0;
    p[*n].len = len;
    p[*n].type = *type;
    (*n)++;
    return 0;
}

static void drop_key(gg_newkey *k, size_t *n, ssize_t i)
{
    if (i < 0)
        return;
    free(k[i].key);
    memmove(k + i, k + i + 1, (*n - (size_t)i - 1) * sizeof *k);
    (*n)--;
}

/* The type a key made now takes: the one it had if it was removed or
 * moved away in this mount, else a string. */
static gg_vdesc type_for_new(const gg_mstate *st, const char *key, size_t len)
{
    ssize_t i = find_key(st->gone, st->ngone, key, len);
    gg_vdesc d;
    if (i >= 0)
        return st->gone[i].type;
    gg_vdesc_parse("str", &d);
    return d;
}

/* Key of the edited header, or NULL. */
static const gg_kv *kv_of(const gg_mstate *st, const char *key, size_t len)
{
    return gg_kv_named(gg_mver_model(st->cur)->f, key, len);
}

/* Is key there in metadata/: a key of the newest version, or one made? */
static int key_there(const gg_mstate *st, const char *key, size_t len)
{
    return kv_of(st, key, len) || find_key(st->newkeys, st->nnew, key, len) >= 0;
}

static void remember_gone(gg_mstate *st, const char *key, size_t len)
{
    const gg_kv *kv = kv_of(st, key, len);
    ssize_t i = find_key(st->newkeys, st->nnew, key, len);
    gg_vdesc d;
    if (kv)
        gg_vdesc_of(gg_mver_model(st->cur)->f, kv, &d);
    else if (i >= 0)
        d = st->newkeys[i].type;
    else
        return;
    add_key(&st->gone, &st->ngone, key, len, &d);
}

/* ---- changes landing ---- */

/* The kernel hears of a new version (edit_mu held on entry, released). */
static int land(gg_tree *t, gg_mstate *st, gg_file *edited, int changed, const char *from, const char *to, gg_err *e)
{
    gg_inval iv = {0};
    int rc = gg_mstate_install(st, edited, changed, from, to, &iv, e);
    uint32_t id = st->id;
    pthread_mutex_unlock(&st->edit_mu);
    if (rc == 0)
        tree_tell(t, id, &iv);
    gg_inval_free(&iv);
    return rc;
}

/* New edits *ed for st (taken): applied (into *f), saved, and st's edits
 * from now on; or -1 with *e, *ed freed and st's edits as they were. */
static int save(gg_mstate *st, gg_edits *ed, gg_file *f, gg_err *e)
{
    int rc = gg_edits_apply(st->m->f, ed, st->m->path, f, e);
    if (rc == 0 && (rc = gg_editfile_save(st->path, st->m, &st->ident, f, ed, e)))
        gg_file_free(f);
    if (rc) {
        gg_edits_free(ed);
        return -1;
    }
    gg_edits_free(&st->ed);
    st->ed = *ed;
    return 0;
}

/* What was wrong, in the log too: it names the model, the key and why. */
static int refused(const gg_mstate *st, const char *key, size_t len, gg_err *e)
{
    gg_buf k = {0};
    gg_tsv_field(&k, key, len < 200 ? len : 200);
    gg_log("%s: metadata/%s: not changed: %s", st->m->path, k.p ? k.p : "", e ? e->msg : "?");
    gg_buf_free(&k);
    return -1;
}

/* Key takes the value of text (the rules in tree.h). */
static int set_text(gg_tree *t, gg_mstate *st, const char *key, size_t len, const char *text, size_t n, gg_err *e)
{
    pthread_mutex_lock(&st->edit_mu);
    ssize_t nk = find_key(st->newkeys, st->nnew, key, len);
    gg_vdesc fresh = nk >= 0 ? st->newkeys[nk].type : type_for_new(st, key, len);
    gg_edits ed;
    gg_file f;
    int changed;
    if (gg_edits_copy(&ed, &st->ed)) {
        pthread_mutex_unlock(&st->edit_mu);
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    }
    if (gg_edits_set_text(&ed, gg_mver_model(st->cur)->f, key, len, &fresh, text, n, &changed, e)) {
        gg_edits_free(&ed);
        pthread_mutex_unlock(&st->edit_mu);
        return refused(st, key, len, e);
    }
    if (!changed) {
        gg_edits_free(&ed);
        pthread_mutex_unlock(&st->edit_mu);
        return 0;
    }
    if (save(st, &ed, &f, e)) {
        pthread_mutex_unlock(&st->edit_mu);
        return refused(st, key, len, e);
    }
    drop_key(st->newkeys, &st->nnew, nk);
    return land(t, st, &f, 1, NULL, NULL, e);
}

/* The text of key in the newest version ("" for a key made, not written). */
static int text_of(gg_mstate *st, const char *key, size_t len, gg_buf *out)
{
    pthread_mutex_lock(&st->edit_mu);
    const gg_kv *kv = kv_of(st, key, len);
    if (kv)
        gg_render_kv_text(gg_mver_model(st->cur)->f, kv, out);
    pthread_mutex_unlock(&st->edit_mu);
    return out->oom ? -1 : 0;
}

/* ---- files opened for writing ---- */

/* The version, node and key of a writable key's inode, held; GG_E_ISDIR
 * for metadata/ itself. */
static const char *writable_key(gg_tree *t, gg_ino ino, gg_mver **v, uint32_t *node, size_t *len, gg_err *e)
{
    if (writable(t, ino, v, node, e))
        return NULL;
    const char *key = gg_mtree_key((*v)->mt, *node, len);
    if (!key) {
        tree_put(t, *v);
        gg_fail(e, GG_E_ISDIR, "metadata/ is a folder");
    }
    return key;
}

int gg_tree_open_write(gg_tree *t, gg_ino ino, int trunc, gg_open_file **of, gg_err *e)
{
    gg_mver *v;
    uint32_t node;
    size_t len;
    *of = NULL;
    const char *key = writable_key(t, ino, &v, &node, &len, e);
    if (!key)
        return -1;
    gg_open_file *o = calloc(1, sizeof *o);
    if (o)
        o->key = malloc(len + 1);
    if (!o || !o->key || (!trunc && text_of(v->st, key, len, &o->text))) {
        if (o) {
            free(o->key);
            gg_buf_free(&o->text);
        }
        free(o);
        tree_put(t, v);
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    }
    memcpy(o->key, key, len);
    o->key[len] = 0;
    o->key_len = len;
    o->writer = 1;
    gg_mtree_key_type(v->mt, node, &o->type);
    o->dirty = trunc;
    gg_readahead_init(&o->ra);
    gg_readahead_init(&o->ra_ref);
    tree_track_open(t, o, v, node);
    *of = o;
    return 0;
}

/* The text at least `size` bytes long (zeros added), or exactly (cut). */
static int resize(gg_buf *text, uint64_t size, int exact, gg_err *e)
{
    if (size > MAX_WRITTEN)
        return gg_fail(e, GG_E_TOOBIG, "metadata/: a value of more than 1 GiB");
    if (size > text->len) {
        char *p = gg_buf_room(text, (size_t)(size - text->len));
        if (!p)
            return gg_fail(e, GG_E_NOMEM, "out of memory");
        memset(p, 0, (size_t)(size - text->len));
        text->len = (size_t)size;
    } else if (exact) {
        text->len = (size_t)size;
    }
    return 0;
}

/* A number or bool is one line: once its text has a newline and does not
 * read as one, nothing written after can mend it, and the write says so.
 * (Texts of more than 4 KiB are left to the close: the text as it would be
 * after this write, not only the bytes written, must fit the buffer.) */
static int scalar_done_wrong(const gg_open_file *of, const char *buf, size_t n, uint64_t off, gg_err *e)
{
    uint32_t t = of->type.t[0];
    char text[4096];
    if (t == GG_VT_STR || t == GG_VT_ARR || t >= GG_VT_COUNT || off + n > sizeof text || !memchr(buf, '\n', n))
        return 0;
    size_t len = of->text.len > off + n ? of->text.len : (size_t)(off + n);
    if (len > sizeof text)
        return 0;
    memset(text, 0, len);
    memcpy(text, of->text.p ? of->text.p : "", of->text.len < len ? of->text.len : len);
    memcpy(text + off, buf, n);
    gg_buf v = {0};
    int bad = gg_kv_from_text(&of->type, text, len, &v, e) != 0;
    gg_buf_free(&v);
    return bad;
}

ssize_t gg_tree_write(gg_tree *t, gg_open_file *of, const char *buf, size_t n, uint64_t off, gg_err *e)
{
    if (!of || !of->writer)
        return gg_fail(e, GG_E_ROFS, "not opened for writing");
    if (off > MAX_WRITTEN || n > MAX_WRITTEN - off)
        return gg_fail(e, GG_E_TOOBIG, "metadata/: a value of more than 1 GiB");
    if (scalar_done_wrong(of, buf, n, off, e)) {
        of->refused = 1;
        of->dirty = of->wrote = 0;
        refused(((gg_mver *)of->held)->st, of->key, of->key_len, e);
        return -1;
    }
    if (resize(&of->text, off + n, 0, e))
        return -1;
    memcpy(of->text.p + off, buf, n);
    of->dirty = of->wrote = 1;
    return (ssize_t)n;
}

ssize_t tree_read_written(gg_open_file *of, char *buf, size_t size, uint64_t off, gg_ref *ref)
{
    size_t got = off < of->text.len ? (of->text.len - off < size ? of->text.len - (size_t)off : size) : 0;
    if (got) {
        memcpy(buf, of->text.p + off, got);
        ref->iov[0] = (struct iovec){buf, got};
        ref->niov = 1;
    }
    return (ssize_t)got;
}

int64_t gg_tree_written_size(const gg_open_file *of) { return of && of->writer ? (int64_t)of->text.len : -1; }

int gg_tree_truncate(gg_tree *t, gg_ino ino, gg_open_file *of, uint64_t size, gg_err *e)
{
    if (of && of->writer) {
        if (resize(&of->text, size, 1, e))
            return -1;
        of->dirty = 1;
        return 0;
    }
    /* truncate(2) of the key: its text cut or made longer, taken at once */
    gg_mver *v;
    uint32_t node;
    size_t len;
    const char *key = writable_key(t, ino, &v, &node, &len, e);
    if (!key)
        return -1;
    gg_buf text = {0};
    int rc = text_of(v->st, key, len, &text) ? gg_fail(e, GG_E_NOMEM, "out of memory") : resize(&text, size, 1, e);
    if (rc == 0)
        rc = set_text(t, v->st, key, len, text.p ? text.p : "", text.len, e);
    gg_buf_free(&text);
    tree_put(t, v);
    return rc;
}

int gg_tree_flush(gg_tree *t, gg_open_file *of, int closing, gg_err *e)
{
    /* (a truncation alone waits for the last close: a shell opens, and
     * closes a copy of the descriptor, before the command writes) */
    if (of && of->refused && !closing)
        return gg_fail(e, GG_E_INVAL, "a write was refused: the key keeps its value");
    if (!of || !of->writer || of->refused || !(of->wrote || (closing && of->dirty)))
        return 0;
    gg_mver *v = of->held;
    of->dirty = of->wrote = 0;
    return set_text(t, v->st, of->key, of->key_len, of->text.p ? of->text.p : "", of->text.len, e);
}

/* ---- names ---- */

/* The key a name of metadata/ stands for (name unescaped), into key. */
static int key_of_name(const char *name, gg_buf *key, gg_err *e)
{
    char *out = gg_buf_room(key, strlen(name) + 1);
    long n = out ? gg_name_unescape(name, out) : -1;
    if (n < 0)
        return gg_fail(e, out ? GG_E_INVAL : GG_E_NOMEM, "%s: not a key's name (a name cut to fit is read-only)", name);
    key->len = (size_t)n;
    return 0;
}

int gg_tree_create(gg_tree *t, gg_ino dir, const char *name, gg_ino *ino, gg_open_file **of, gg_err *e)
{
    gg_mver *v;
    uint32_t node;
    *of = NULL;
    if (writable(t, dir, &v, &node, e))
        return -1;
    gg_mstate *st = v->st;
    gg_buf key = {0};
    /* (a name starting with '.' is an editor's swap or lock file: it goes elsewhere) */
    int rc = !gg_node_is_dir(&v->mt->nodes[node]) ? gg_fail(e, GG_E_NOTDIR, "not a folder")
             : name[0] == '.' ? gg_fail(e, GG_E_PERM, "%s: a key's name in metadata/ does not start with '.'", name)
                              : key_of_name(name, &key, e);
    tree_put(t, v);
    if (rc) {
        gg_buf_free(&key);
        return -1;
    }
    pthread_mutex_lock(&st->edit_mu);
    int there = key_there(st, key.p, key.len);
    gg_vdesc d = type_for_new(st, key.p, key.len);
    if (!there && add_key(&st->newkeys, &st->nnew, key.p, key.len, &d)) {
        pthread_mutex_unlock(&st->edit_mu);
        gg_buf_free(&key);
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    }
    if (there)
        pthread_mutex_unlock(&st->edit_mu);
    else if (land(t, st, NULL, 0, NULL, NULL, e)) {
        gg_buf_free(&key);
        return -1;
    }
    gg_buf_free(&key);
    /* the new file, opened: a lookup of it now finds it */
    if (gg_tree_lookup(t, dir, name, ino, e))
        return -1;
    return gg_tree_open_write(t, *ino, 0, of, e);
}

int gg_tree_unlink(gg_tree *t, gg_ino dir, const char *name, gg_err *e)
{
    gg_mver *v;
    uint32_t node;
    if (writable(t, dir, &v, &node, e))
        return -1;
    gg_mstate *st = v->st;
    tree_put(t, v);
    gg_buf key = {0};
    if (key_of_name(name, &key, e)) {
        gg_buf_free(&key);
        return -1;
    }
    pthread_mutex_lock(&st->edit_mu);
    ssize_t nk = find_key(st->newkeys, st->nnew, key.p, key.len);
    int rc;
    remember_gone(st, key.p, key.len);
    if (nk >= 0) {
        drop_key(st->newkeys, &st->nnew, nk);
        rc = land(t, st, NULL, 0, NULL, NULL, e);
    } else if (!kv_of(st, key.p, key.len)) {
        pthread_mutex_unlock(&st->edit_mu);
        rc = gg_fail(e, GG_E_NOENT, "%s: no such key", name);
    } else {
        gg_edits ed;
        gg_file f;
        if (gg_edits_copy(&ed, &st->ed) || gg_edits_remove(&ed, st->m->f, key.p, key.len)) {
            gg_edits_free(&ed);
            pthread_mutex_unlock(&st->edit_mu);
            rc = gg_fail(e, GG_E_NOMEM, "out of memory");
        } else if (save(st, &ed, &f, e)) {
            pthread_mutex_unlock(&st->edit_mu);
            rc = refused(st, key.p, key.len, e);
        } else {
            rc = land(t, st, &f, 1, NULL, NULL, e);
        }
    }
    gg_buf_free(&key);
    return rc;
}

/* A rename within metadata/ (edit_mu held): the edits it makes, into st. */
static int rename_keys(gg_mstate *st, const gg_buf *from, const gg_buf *to, int *header, gg_file *f, gg_err *e)
{
    ssize_t nf = find_key(st->newkeys, st->nnew, from->p, from->len);
    ssize_t nt = find_key(st->newkeys, st->nnew, to->p, to->len);
    const gg_kv *dst = kv_of(st, to->p, to->len);
    *header = 0;
    remember_gone(st, from->p, from->len);
    if (nf >= 0 && !dst) {
        /* a key made and not written yet, under another name */
        gg_vdesc d = st->newkeys[nf].type;
        drop_key(st->newkeys, &st->nnew, nt);
        nf = find_key(st->newkeys, st->nnew, from->p, from->len);
        drop_key(st->newkeys, &st->nnew, nf);
        return add_key(&st->newkeys, &st->nnew, to->p, to->len, &d) ? gg_fail(e, GG_E_NOMEM, "out of memory") : 0;
    }
    gg_edits ed;
    if (gg_edits_copy(&ed, &st->ed))
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    int changed = 1, rc;
    if (nf >= 0) /* no value yet, onto a key that has one: an empty text for it */
        rc = gg_edits_set_text(&ed, gg_mver_model(st->cur)->f, to->p, to->len, NULL, "", 0, &changed, e);
    else
        rc = gg_edits_rename(&ed, st->m->f, gg_mver_model(st->cur)->f, from->p, from->len, to->p, to->len, e);
    if (rc)
        gg_edits_free(&ed);
    if (rc || save(st, &ed, f, e))
        return -1;
    nf = find_key(st->newkeys, st->nnew, from->p, from->len);
    drop_key(st->newkeys, &st->nnew, nf);
    nt = find_key(st->newkeys, st->nnew, to->p, to->len);
    drop_key(st->newkeys, &st->nnew, nt);
    *header = 1;
    return 0;
}

int gg_tree_rename(gg_tree *t, gg_ino dir, const char *name, gg_ino newdir, const char *newname, int noreplace,
                   gg_err *e)
{
    gg_mver *v, *w;
    uint32_t node, wnode;
    if (writable(t, dir, &v, &node, e))
        return -1;
    if (writable(t, newdir, &w, &wnode, e)) {
        tree_put(t, v);
        return -1;
    }
    gg_mstate *st = v->st;
    int same = w->st == st;
    tree_put(t, v);
    tree_put(t, w);
    if (!same) /* (EXDEV: mv copies and removes, key by key) */
        return gg_fail(e, GG_E_PERM, "%s: keys move within one model's metadata/ only", name);
    gg_buf from = {0}, to = {0};
    int rc = key_of_name(name, &from, e) || key_of_name(newname, &to, e) ? -1 : 0;
    if (!rc) {
        pthread_mutex_lock(&st->edit_mu);
        int taken = key_there(st, to.p, to.len);
        int there = key_there(st, from.p, from.len);
        int header, landed = 0;
        gg_file f;
        if (!there)
            rc = gg_fail(e, GG_E_NOENT, "%s: no such key", name);
        else if (noreplace && taken)
            rc = gg_fail(e, GG_E_EXIST, "%s: a key of that name is there", newname);
        else if (from.len == to.len && !memcmp(from.p, to.p, to.len))
            rc = 0;
        else if (rename_keys(st, &from, &to, &header, &f, e))
            rc = e && e->code == GG_E_INVAL ? refused(st, to.p, to.len, e) : -1;
        else
            landed = 1, rc = land(t, st, header ? &f : NULL, header, name, newname, e);
        if (!landed)
            pthread_mutex_unlock(&st->edit_mu);
    }
    gg_buf_free(&from);
    gg_buf_free(&to);
    return rc;
}

int gg_tree_setxattr(gg_tree *t, gg_ino ino, const char *name, const char *val, size_t n, gg_err *e)
{
    gg_mver *v;
    uint32_t node;
    if (writable(t, ino, &v, &node, e))
        return -1;
    gg_mstate *st = v->st;
    size_t len;
    const char *k = gg_mtree_key(v->mt, node, &len);
    gg_buf key = {0};
    if (k)
        gg_buf_put(&key, k, len);
    tree_put(t, v);
    char text[64];
    gg_vdesc d;
    int rc = 0;
    if (!k)
        rc = gg_fail(e, GG_E_NOTSUP, "%s: metadata/ has no attributes to set", name);
    else if (strcmp(name, "user.gguf.type"))
        rc = gg_fail(e, GG_E_NOTSUP, "%s: only user.gguf.type can be set", name);
    else if (n >= sizeof text || (memcpy(text, val, n), text[n] = 0, gg_vdesc_parse(text, &d)))
        rc = gg_fail(e, GG_E_INVAL, "user.gguf.type: \"%.*s\" is not a type (u8, i8, u16, i16, u32, i32, u64, i64, "
                     "f32, f64, bool, str, arr[T])", (int)(n < 40 ? n : 40), val);
    if (rc) {
        gg_buf_free(&key);
        return rc;
    }
    pthread_mutex_lock(&st->edit_mu);
    ssize_t nk = find_key(st->newkeys, st->nnew, key.p, key.len);
    const gg_kv *kv = kv_of(st, key.p, key.len);
    if (nk >= 0) {
        st->newkeys[nk].type = d;
        rc = land(t, st, NULL, 0, NULL, NULL, e);
    } else {
        gg_vdesc have;
        if (kv)
            gg_vdesc_of(gg_mver_model(st->cur)->f, kv, &have);
        pthread_mutex_unlock(&st->edit_mu);
        if (kv && memcmp(&have, &d, sizeof d)) {
            char was[64];
            gg_vdesc_name(&have, was, sizeof was);
            rc = gg_fail(e, GG_E_INVAL, "user.gguf.type: the key is a %s and keeps its type (remove it, make it "
                         "again, then set its type)", was);
            refused(st, key.p, key.len, e);
        }
    }
    gg_buf_free(&key);
    return rc;
}
