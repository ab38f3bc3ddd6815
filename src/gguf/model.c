/* model.c - open a model file (or the shards of a split model) and place its
 * tensors: where each one's data lies, how much space the file gives it, and
 * (through resolve.c) what type its id means. Files are read through their
 * source (a local file or a URL): the header in growing ranges, so that a
 * remote header costs few requests and no fixed size limits it. */
#include "gguffs/model.h"

#include "resolve.h"
#include "gguffs/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/hash.h"
#include "base/sha256.h"

/* Order of tensors by data offset, for the space each one has (the
 * tensors being sorted: per thread, models are opened concurrently). */
static _Thread_local const gg_tinfo *sort_base;
static int by_offset(const void *a, const void *b)
{
    uint64_t x = sort_base[*(const uint64_t *)a].offset, y = sort_base[*(const uint64_t *)b].offset;
    return x < y ? -1 : x > y;
}

static void shown_name(const gg_tensor *t, char *out, size_t n)
{
    size_t k = t->name_len < n - 4 ? t->name_len : n - 4;
    for (size_t i = 0; i < k; i++)
        out[i] = (unsigned char)t->name[i] < 0x20 ? '?' : t->name[i];
    strcpy(out + k, k < t->name_len ? "..." : "");
}

/* order: the tensors by data offset; next_end[k]: where the data of the
 * tensor after order[k] begins (the next strictly larger offset), or the end
 * of the file. One backward pass keeps this linear even when many tensors
 * share an offset. */
static void data_order(const gg_file *f, uint64_t size, uint64_t *order, uint64_t *next_end)
{
    uint64_t nt = f->n_tensors;
    for (uint64_t i = 0; i < nt; i++)
        order[i] = i;
    sort_base = f->tensors;
    qsort(order, nt, sizeof *order, by_offset);
    for (uint64_t k = nt; k-- > 0;) {
        uint64_t next = k + 1 < nt ? f->tensors[order[k + 1]].offset : 0;
        if (k + 1 == nt || next > size - f->data_offset) /* (no overflow in the sum below) */
            next_end[k] = size;
        else if (next > f->tensors[order[k]].offset)
            next_end[k] = f->data_offset + next;
        else
            next_end[k] = next_end[k + 1];
        if (next_end[k] > size)
            next_end[k] = size;
    }
}

/* A tensor's data offset: aligned, and within the file. */
static int check_offset(const gg_file *f, const char *path, uint64_t size, uint64_t i, const char *nm, gg_err *err)
{
    const gg_tinfo *ti = &f->tensors[i];
    if (ti->offset % f->alignment)
        return gg_fail(err, GG_E_MALFORMED,
                       "%s: tensor %" PRIu64 " \"%s\": data offset %" PRIu64
                       " is not a multiple of the alignment %" PRIu32, path, i, nm, ti->offset, f->alignment);
    if (ti->offset > size - f->data_offset)
        return gg_fail(err, GG_E_MALFORMED,
                       "%s: tensor %" PRIu64 " \"%s\": data offset %" PRIu64
                       " is past the end of the file (data section at %" PRIu64 ", file size %" PRIu64 ")",
                       path, i, nm, ti->offset, f->data_offset, size);
    return 0;
}

/* The tensor's type (resolve.c) and layout; 0 when its id means no type
 * known for its shape. A type without a decoder is kept, with the reason. */
static int type_tensor(gg_model *m, gg_tensor *t, const gg_open_opts *o)
{
    const gg_tinfo *ti = t->info;
    t->type = gg_resolve(m, t, o);
    if (t->type) {
        gg_err le;
        if (gg_layout_init(&t->layout, t->type, ti->ne[0], gg_nrows(ti), &le) != 0) {
            t->err = gg_err_keep(le.code, "%s", le.msg); /* unreachable: resolve checked the shape */
            t->type = NULL;
        }
    }
    if (!t->type)
        return 0;
    t->nbytes = t->layout.nbytes;
    if (!gg_type_kernel(t->type, GG_ISA_SCALAR))
        t->err = gg_err_keep(GG_E_UNSUPPORTED, "no decoder for %s%s%s", t->type->name, t->type->note ? ": " : "",
                             t->type->note ? t->type->note : "");
    return 1;
}

/* The smallest layout a type of the tensor's id could have that runs past
 * the end of the file (UINT64_MAX: none). */
static uint64_t least_past_end(const gg_tensor *t, uint64_t size)
{
    const gg_tinfo *ti = t->info;
    const gg_type *c[16];
    size_t n = gg_types_for_id(ti->type_id, c, 16);
    uint64_t need = UINT64_MAX;
    for (size_t j = 0; j < n; j++) {
        if (c[j]->flags & GG_TYPE_VARIANT)
            continue;
        uint64_t nb;
        if (gg_type_nbytes(c[j], ti->ne[0], gg_nrows(ti), &nb, NULL) == 0 && nb > size - t->abs_offset && nb < need)
            need = nb;
    }
    return need;
}

/* Tensor i of shard si: its name, data range and space (up to end), type. */
static int place_tensor(gg_model *m, uint32_t si, gg_tensor *t, uint64_t i, uint64_t end, const gg_open_opts *o,
                        gg_err *err)
{
    gg_shard *sh = &m->shards[si];
    const gg_file *f = &sh->f;
    const char *path = sh->src->name;
    const uint64_t size = sh->src->size;
    const gg_tinfo *ti = &f->tensors[i];
    char nm[100];
    t->info = ti;
    t->shard = si;
    t->name = gg_str_ptr(f, ti->name);
    t->name_len = ti->name.len;
    shown_name(t, nm, sizeof nm);
    if (check_offset(f, path, size, i, nm, err))
        return -1;
    t->abs_offset = f->data_offset + ti->offset;
    /* Space: up to the next larger offset, or to the end of the file. */
    t->space = end - t->abs_offset;
    if (type_tensor(m, t, o))
        return 0;
    /* Unknown: serve the bytes up to the next tensor. The last tensor: a
     * layout that runs past the end, and none that fits exactly, means the
     * file was cut short. */
    uint64_t need = least_past_end(t, size);
    if (end == size && need != UINT64_MAX)
        return gg_fail(err, GG_E_MALFORMED,
                       "%s: tensor %" PRIu64 " \"%s\": data [%" PRIu64 ", %" PRIu64
                       ") ends past end of file (%" PRIu64 ")", path, i, nm, t->abs_offset,
                       need > UINT64_MAX - t->abs_offset ? UINT64_MAX : t->abs_offset + need, size);
    t->nbytes = t->space;
    t->size_from_space = 1;
    return 0;
}

/* Place the tensors of one shard: data ranges, space, resolved types.
 * ts points at this shard's first entry of the model's tensor array. */
static int place_shard(gg_model *m, uint32_t si, gg_tensor *ts, const gg_open_opts *o, gg_err *err)
{
    gg_shard *sh = &m->shards[si];
    const gg_file *f = &sh->f;
    uint64_t nt = f->n_tensors;
    uint64_t *order = malloc((nt ? nt : 1) * sizeof *order);
    uint64_t *next_end = malloc((nt ? nt : 1) * sizeof *next_end);
    if (!order || !next_end) {
        free(order);
        free(next_end);
        return gg_fail(err, GG_E_NOMEM, "%s: out of memory", sh->src->name);
    }
    data_order(f, sh->src->size, order, next_end);
    int rc = 0;
    for (uint64_t k = 0; k < nt && rc == 0; k++)
        rc = place_tensor(m, si, &ts[order[k]], order[k], next_end[k], o, err);
    free(order);
    free(next_end);
    return rc;
}

/* The header of a file: read in ranges that double (1 MiB, 2, 4, ...; or
 * what the parser says it needs, if more) until it parses. */
#define HEADER_FIRST_READ (1u << 20)

static int read_header(gg_shard *sh, gg_err *err)
{
    gg_source *src = sh->src;
    uint64_t size = src->size, have = 0, chunk = HEADER_FIRST_READ;
    uint8_t *buf = NULL;
    gg_err e;
    for (;;) {
        uint64_t want = 0;
        int rc = gg_parse(src->name, buf ? buf : (const uint8_t *)"", have, size, &sh->f, &want, &e);
        if (rc == 0 || e.code != GG_E_AGAIN || have >= size) {
            free(buf);
            if (rc && err)
                *err = e;
            return rc;
        }
        uint64_t to = have + chunk;
        if (want > to)
            to = want + chunk / 2;
        if (to > size)
            to = size;
        uint8_t *nb = realloc(buf, to);
        if (!nb) {
            free(buf);
            return gg_fail(err, GG_E_NOMEM, "%s: out of memory for a %" PRIu64 "-byte header", src->name, to);
        }
        buf = nb;
        if (gg_source_read(src, buf + have, to - have, have, err)) {
            free(buf);
            return -1;
        }
        have = to;
        chunk *= 2;
    }
}

/* Open one file (or URL) and parse its header. */
static int open_shard(gg_shard *sh, const char *path, const gg_open_opts *o, gg_err *err)
{
    memset(sh, 0, sizeof *sh);
    sh->src = o ? gg_source_open(path, o->open_url, o->url_arg, err) : gg_source_open(path, NULL, NULL, err);
    if (!sh->src)
        return -1;
    return read_header(sh, err);
}

static void close_shard(gg_shard *sh)
{
    gg_file_free(&sh->f);
    gg_source_close(sh->src);
    sh->src = NULL;
}

/* An integer KV of any integer type, or -1 if absent or not an integer. */
static int64_t int_key(const gg_file *f, const char *key)
{
    int64_t i = gg_find_key(f, key);
    if (i < 0)
        return -1;
    uint32_t t = f->kv[i].type;
    if (t == GG_VT_F32 || t == GG_VT_F64 || t == GG_VT_STR || t == GG_VT_ARR || t == GG_VT_BOOL)
        return -1;
    return gg_kv_i64(f, &f->kv[i]);
}

long gg_shard_suffix(const char *name, size_t n, int *part)
{
    if (n < 20 || memcmp(name + n - 5, ".gguf", 5) != 0)
        return -1;
    const char *s = name + n - 20; /* "-00001-of-00003.gguf" */
    if (s[0] != '-' || memcmp(s + 6, "-of-", 4) != 0)
        return -1;
    for (int i = 1; i < 15; i++)
        if ((i < 6 || i > 9) && (s[i] < '0' || s[i] > '9'))
            return -1;
    if (part)
        *part = (int)strtol(s + 1, NULL, 10);
    return (long)(n - 20);
}

void gg_model_name_from(const char *name, size_t n, char *out, size_t cap)
{
    long cut = gg_shard_suffix(name, n, NULL);
    if (cut >= 0)
        n = (size_t)cut;
    else if (n > 5 && !memcmp(name + n - 5, ".gguf", 5))
        n -= 5;
    snprintf(out, cap, "%.*s", (int)n, name);
}

void gg_model_folder_name(const gg_model *m, char *out, size_t cap)
{
    gg_model_name_from(m->base, m->base_len, out, cap);
    for (char *p = out; *p; p++)
        if (*p == '/')
            *p = '_';
    if (!*out)
        snprintf(out, cap, "model");
}

/* The file given is a shard of a split model: open all shards in order. */
static int open_split(gg_model *m, gg_shard *given, const char *spec, int64_t count, const gg_open_opts *o,
                      gg_err *err)
{
    const char *gpath = given->src->name; /* (a URL's shows "?..." for its query) */
    size_t gn = gg_spec_path_len(gpath);
    long cut = gg_shard_suffix(gpath, gn, NULL);
    if (cut < 0)
        return gg_fail(err, GG_E_MALFORMED,
                       "%s: split.count is %" PRId64 " but the file name does not end in "
                       "-NNNNN-of-%05" PRId64 ".gguf, so the other shards cannot be found",
                       gpath, count, count);
    int64_t named = strtol(gpath + cut + 11, NULL, 10);
    if (named != count)
        return gg_fail(err, GG_E_MALFORMED, "%s: the name says %" PRId64 " shards, split.count says %" PRId64,
                       gpath, named, count);
    int64_t no = int_key(&given->f, "split.no");
    if (no < 0 || no >= count)
        return gg_fail(err, GG_E_MALFORMED, "%s: split.no is missing or not in 0..%" PRId64, gpath, count - 1);
    m->shards = calloc((size_t)count, sizeof *m->shards);
    if (!m->shards)
        return gg_fail(err, GG_E_NOMEM, "out of memory");
    m->nshards = (uint32_t)count;
    m->shards[no] = *given;
    memset(given, 0, sizeof *given);
    /* The other shards' names: from the spec as given, so that a URL keeps
     * its credentials and query (a presigned URL); shown without them. */
    const char *base = m->shards[no].src->name;
    size_t spec_n = gg_spec_path_len(spec);
    long spec_cut = gg_shard_suffix(spec, spec_n, NULL);
    if (spec_cut < 0)
        spec = base, spec_n = gn, spec_cut = cut;
    for (int64_t i = 0; i < count; i++) {
        if (i == no)
            continue;
        char *path = gg_xprintf("%.*s-%05" PRId64 "-of-%05" PRId64 ".gguf%s", (int)spec_cut, spec, i + 1, count,
                                spec + spec_n);
        char *shown = gg_xprintf("%.*s-%05" PRId64 "-of-%05" PRId64 ".gguf%s", (int)cut, base, i + 1, count,
                                 base + gn);
        if (!path || !shown) {
            free(path);
            free(shown);
            return gg_fail(err, GG_E_NOMEM, "out of memory");
        }
        gg_err e;
        int rc = open_shard(&m->shards[i], path, o, &e);
        if (rc && (e.code == GG_E_NOTFOUND || e.code == GG_E_ACCESS || e.code == GG_E_IO)) {
            size_t pl = strlen(shown);
            char why[GG_ERR_LEN];
            snprintf(why, sizeof why, "%s", !strncmp(e.msg, shown, pl) && e.msg[pl] == ':' ? e.msg + pl + 2 : e.msg);
            gg_fail(&e, e.code, "%s: missing shard %" PRId64 " of %" PRId64 " of the split model: %s", shown, i + 1,
                    count, why);
        }
        free(path);
        free(shown);
        if (rc) {
            if (err)
                *err = e;
            return -1;
        }
        const gg_file *f = &m->shards[i].f;
        if (int_key(f, "split.no") != i || int_key(f, "split.count") != count)
            return gg_fail(err, GG_E_MALFORMED,
                           "%s: split.no / split.count say %" PRId64 " / %" PRId64 ", expected %" PRId64
                           " / %" PRId64, m->shards[i].src->name, int_key(f, "split.no"),
                           int_key(f, "split.count"), i, count);
    }
    return 0;
}

/* Tensor names must be unique across the shards of a model too. */
static int check_names_across(gg_model *m, gg_err *err)
{
    if (m->nshards < 2)
        return 0;
    uint64_t cap = 16;
    while (cap < 2 * m->nt)
        cap *= 2;
    uint64_t *slot = calloc(cap, sizeof *slot);
    if (!slot)
        return gg_fail(err, GG_E_NOMEM, "out of memory");
    int rc = 0;
    char nm[100];
    for (uint64_t i = 0; i < m->nt && rc == 0; i++) {
        const gg_tensor *t = &m->t[i];
        uint64_t h = gg_hash64(t->name, t->name_len, 0);
        for (uint64_t k = h & (cap - 1);; k = (k + 1) & (cap - 1)) {
            if (!slot[k]) {
                slot[k] = i + 1;
                break;
            }
            const gg_tensor *o = &m->t[slot[k] - 1];
            if (o->name_len == t->name_len && memcmp(o->name, t->name, t->name_len) == 0) {
                shown_name(t, nm, sizeof nm);
                rc = gg_fail(err, GG_E_MALFORMED, "%s: tensor \"%s\" appears in two shards (%s and %s)",
                             m->path, nm, m->shards[o->shard].src->name, m->shards[t->shard].src->name);
                break;
            }
        }
    }
    free(slot);
    return rc;
}

int gg_model_open(gg_model *m, const char *path, const gg_open_opts *o, gg_err *err)
{
    memset(m, 0, sizeof *m);
    gg_shard given;
    if (open_shard(&given, path, o, err)) {
        close_shard(&given);
        return -1;
    }
    /* For messages: the source's name (a URL without credentials or query). */
    m->path = strdup(given.src->name);
    if (!m->path) {
        close_shard(&given);
        return gg_fail(err, GG_E_NOMEM, "out of memory");
    }
    m->base = strrchr(m->path, '/') ? strrchr(m->path, '/') + 1 : m->path;
    m->base_len = gg_spec_kind_of(path) == GG_SPEC_URL ? strcspn(m->base, "?#") : strlen(m->base);
    int64_t count = int_key(&given.f, "split.count");
    if (count > 1) {
        int rc = open_split(m, &given, path, count, o, err);
        close_shard(&given);
        if (rc)
            return -1;
    } else {
        m->shards = calloc(1, sizeof *m->shards);
        if (!m->shards) {
            close_shard(&given);
            return gg_fail(err, GG_E_NOMEM, "out of memory");
        }
        m->shards[0] = given;
        m->nshards = 1;
    }
    m->f = &m->shards[0].f;
    for (uint32_t i = 0; i < m->nshards; i++) {
        const gg_source *src = m->shards[i].src;
        m->size += src->size;
        m->nt += m->shards[i].f.n_tensors;
        const struct timespec *mt = &src->mtime;
        if (mt->tv_sec > m->mtime.tv_sec || (mt->tv_sec == m->mtime.tv_sec && mt->tv_nsec > m->mtime.tv_nsec))
            m->mtime = *mt;
    }
    if (m->nshards > 1) {
        int64_t want = int_key(m->f, "split.tensors.count");
        if (want >= 0 && (uint64_t)want != m->nt)
            return gg_fail(err, GG_E_MALFORMED,
                           "%s: the shards hold %" PRIu64 " tensors, split.tensors.count says %" PRId64,
                           m->shards[0].src->name, m->nt, want);
    }
    m->t = calloc(m->nt ? m->nt : 1, sizeof *m->t);
    if (!m->t)
        return gg_fail(err, GG_E_NOMEM, "out of memory");
    m->dialect_hint = gg_dialect_evidence(m);
    gg_tensor *ts = m->t;
    for (uint32_t i = 0; i < m->nshards; i++) {
        if (place_shard(m, i, ts, o, err))
            return -1;
        ts += m->shards[i].f.n_tensors;
    }
    return check_names_across(m, err);
}

void gg_model_close(gg_model *m)
{
    for (uint64_t i = 0; m->t && i < m->nt; i++) {
        free(m->t[i].err);
        free(m->t[i].resolution);
    }
    free(m->t);
    for (uint32_t i = 0; m->shards && i < m->nshards; i++)
        close_shard(&m->shards[i]);
    free(m->shards);
    free(m->path);
    for (uint32_t i = 0; i < m->nsides; i++) {
        free(m->sides[i].name);
        free(m->sides[i].bytes);
    }
    free(m->sides);
    memset(m, 0, sizeof *m);
}

int gg_side_specs_copy(gg_side_spec **dst, int *ndst, const gg_side_spec *src, int n)
{
    *dst = NULL;
    *ndst = 0;
    if (n <= 0)
        return 0;
    gg_side_spec *d = calloc((size_t)n, sizeof *d);
    if (!d)
        return -1;
    for (int i = 0; i < n; i++) {
        d[i] = src[i];
        d[i].name = strdup(src[i].name);
        d[i].spec = strdup(src[i].spec);
        if (!d[i].name || !d[i].spec) {
            gg_side_specs_free(d, i + 1);
            return -1;
        }
    }
    *dst = d;
    *ndst = n;
    return 0;
}

void gg_side_specs_free(gg_side_spec *s, int n)
{
    for (int i = 0; s && i < n; i++) {
        free(s[i].name);
        free(s[i].spec);
    }
    free(s);
}

/* One side file, whole, checked. */
static int load_side(gg_side *out, const gg_side_spec *sp, const gg_open_opts *o, gg_err *e)
{
    if (sp->size > GG_SIDE_MAX)
        return gg_fail(e, GG_E_TOOBIG, "%s: the %s file is %" PRIu64 " bytes (at most %u)", sp->spec, sp->name,
                       sp->size, GG_SIDE_MAX);
    gg_source *src = gg_source_open(sp->spec, o->open_url, o->url_arg, e);
    if (!src) {
        if (e)
            gg_err_prefix(e, "the %s file", sp->name);
        return -1;
    }
    int rc = 0;
    char *b = malloc(sp->size + 1);
    if (!b)
        rc = gg_fail(e, GG_E_NOMEM, "out of memory");
    else if (src->size != sp->size)
        rc = gg_fail(e, GG_E_MALFORMED, "%s: the %s file is %" PRIu64 " bytes, its manifest says %" PRIu64,
                     src->name, sp->name, src->size, sp->size);
    else if (sp->size && gg_source_read(src, b, sp->size, 0, e))
        rc = -1;
    char hex[65];
    if (rc == 0) {
        gg_sha256_hex(b, sp->size, hex);
        if (strcmp(hex, sp->sha256))
            rc = gg_fail(e, GG_E_MALFORMED, "%s: the %s file's sha256 is %s, not %s (its digest): damaged",
                         src->name, sp->name, hex, sp->sha256);
    }
    gg_source_close(src);
    if (rc) {
        free(b);
        return -1;
    }
    b[sp->size] = 0;
    out->bytes = b;
    out->len = sp->size;
    if (!(out->name = strdup(sp->name))) {
        free(b);
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    }
    return 0;
}

int gg_model_load_sides(gg_model *m, const gg_side_spec *sides, int n, const gg_open_opts *o, gg_err *e)
{
    if (n <= 0)
        return 0;
    gg_side *v = calloc((size_t)n, sizeof *v);
    if (!v)
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    for (int i = 0; i < n; i++) {
        if (load_side(&v[i], &sides[i], o, e)) {
            for (int k = 0; k < i; k++) {
                free(v[k].name);
                free(v[k].bytes);
            }
            free(v);
            return -1;
        }
    }
    m->sides = v;
    m->nsides = (uint32_t)n;
    return 0;
}

uint64_t gg_model_bytes(const gg_model *m)
{
    if (m->f != &m->shards[0].f) /* an edited view (kvedit.h): its header; the rest is its model's */
        return sizeof *m + m->f->hdr_len + m->f->n_kv * sizeof *m->f->kv;
    uint64_t n = sizeof *m + m->nt * sizeof *m->t + m->nshards * sizeof *m->shards;
    for (uint32_t i = 0; i < m->nsides; i++)
        n += m->sides[i].len;
    for (uint32_t i = 0; i < m->nshards; i++) {
        const gg_file *f = &m->shards[i].f;
        n += f->hdr_len + f->n_kv * sizeof *f->kv + f->n_tensors * sizeof *f->tensors;
    }
    return n;
}

int gg_model_same(const gg_model *a, const gg_model *b)
{
    return a->nshards && b->nshards && a->shards[0].src && b->shards[0].src &&
           !strcmp(a->shards[0].src->id, b->shards[0].src->id);
}
