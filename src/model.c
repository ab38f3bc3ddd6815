/* model.c - open a model file (or the shards of a split model) and place its
 * tensors: where each one's data lies, how much space the file gives it, and
 * (through resolve.c) what type its id means. */
#include "gguffs/model.h"

#include "resolve.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Order of tensors by data offset, for the space each one has. */
static const gg_tinfo *sort_base;
static int by_offset(const void *a, const void *b)
{
    uint64_t x = sort_base[*(const uint64_t *)a].offset, y = sort_base[*(const uint64_t *)b].offset;
    return x < y ? -1 : x > y;
}

static int fail(char *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, GG_ERR_LEN, fmt, ap);
    va_end(ap);
    return code;
}

static void shown_name(const gg_tensor *t, char *out, size_t n)
{
    size_t k = t->name_len < n - 4 ? t->name_len : n - 4;
    for (size_t i = 0; i < k; i++)
        out[i] = (unsigned char)t->name[i] < 0x20 ? '?' : t->name[i];
    strcpy(out + k, k < t->name_len ? "..." : "");
}

/* Place the tensors of one shard: data ranges, space, resolved types.
 * ts points at this shard's first entry of the model's tensor array. */
static int place_shard(gg_model *m, uint32_t si, gg_tensor *ts, const gg_open_opts *o, char *err)
{
    gg_shard *sh = &m->shards[si];
    gg_file *f = &sh->f;
    uint64_t nt = f->n_tensors;
    uint64_t *order = malloc((nt ? nt : 1) * sizeof *order);
    uint64_t *next_end = malloc((nt ? nt : 1) * sizeof *next_end);
    if (!order || !next_end) {
        free(order);
        free(next_end);
        return fail(err, GG_EXIT_INTERNAL, "%s: out of memory", sh->path);
    }
    for (uint64_t i = 0; i < nt; i++)
        order[i] = i;
    sort_base = f->tensors;
    qsort(order, nt, sizeof *order, by_offset);
    /* next_end[k]: where the data of the tensor after order[k] begins (the
     * next strictly larger offset), or the end of the file. One backward pass
     * keeps this linear even when many tensors share an offset. */
    for (uint64_t k = nt; k-- > 0;) {
        uint64_t next = k + 1 < nt ? f->tensors[order[k + 1]].offset : 0;
        if (k + 1 == nt || next > sh->size - f->data_offset) /* (no overflow in the sum below) */
            next_end[k] = sh->size;
        else if (next > f->tensors[order[k]].offset)
            next_end[k] = f->data_offset + next;
        else
            next_end[k] = next_end[k + 1];
        if (next_end[k] > sh->size)
            next_end[k] = sh->size;
    }

    int rc = GG_EXIT_OK;
    char nm[100];
    for (uint64_t k = 0; k < nt && rc == GG_EXIT_OK; k++) {
        uint64_t i = order[k];
        gg_tensor *t = &ts[i];
        const gg_tinfo *ti = &f->tensors[i];
        t->info = ti;
        t->fd = sh->fd;
        t->shard = si;
        t->name = gg_str_ptr(f, ti->name);
        t->name_len = ti->name.len;
        shown_name(t, nm, sizeof nm);
        if (ti->offset % f->alignment) {
            rc = fail(err, GG_EXIT_MALFORMED,
                      "%s: tensor %" PRIu64 " \"%s\": data offset %" PRIu64
                      " is not a multiple of the alignment %" PRIu32, sh->path, i, nm, ti->offset,
                      f->alignment);
            break;
        }
        if (ti->offset > sh->size - f->data_offset) {
            rc = fail(err, GG_EXIT_MALFORMED,
                      "%s: tensor %" PRIu64 " \"%s\": data offset %" PRIu64
                      " is past the end of the file (data section at %" PRIu64 ", file size %" PRIu64 ")",
                      sh->path, i, nm, ti->offset, f->data_offset, sh->size);
            break;
        }
        t->abs_offset = f->data_offset + ti->offset;
        /* Space: up to the next larger offset, or to the end of the file. */
        uint64_t end = next_end[k];
        t->space = end - t->abs_offset;
        t->type = gg_resolve(m, t, o);
        if (t->type) {
            const char *why = NULL;
            if (gg_layout_init(&t->layout, t->type, ti->ne[0], gg_nrows(ti), &why) != 0) {
                t->why = gg_xprintf("%s", why); /* unreachable: resolve checked the shape */
                t->type = NULL;
            }
        }
        if (t->type) {
            t->nbytes = t->layout.nbytes;
            if (!gg_type_kernel(t->type, GG_ISA_SCALAR))
                t->why = gg_xprintf("no decoder for %s%s%s", t->type->name,
                                 t->type->note ? ": " : "", t->type->note ? t->type->note : "");
            continue;
        }
        /* Unknown: serve the bytes up to the next tensor. */
        const gg_type *c[16];
        size_t n = gg_types_for_id(ti->type_id, c, 16);
        uint64_t need = UINT64_MAX;
        for (size_t j = 0; j < n; j++) {
            if (c[j]->flags & GG_TYPE_VARIANT)
                continue;
            uint64_t nb = gg_type_nbytes(c[j], ti->ne[0], gg_nrows(ti), NULL);
            if ((nb || !ti->nelems) && nb > sh->size - t->abs_offset && nb < need)
                need = nb;
        }
        /* The last tensor: a layout that runs past the end, and none that
         * fits exactly, means the file was cut short. */
        if (end == sh->size && need != UINT64_MAX) {
            rc = fail(err, GG_EXIT_MALFORMED,
                      "%s: tensor %" PRIu64 " \"%s\": data [%" PRIu64 ", %" PRIu64
                      ") ends past end of file (%" PRIu64 ")", sh->path, i, nm, t->abs_offset,
                      need > UINT64_MAX - t->abs_offset ? UINT64_MAX : t->abs_offset + need, sh->size);
            break;
        }
        t->nbytes = t->space;
        t->size_from_space = 1;
    }
    free(order);
    free(next_end);
    return rc;
}

/* Stat, open, map and parse one file. */
static int open_shard(gg_shard *sh, const char *path, char *err)
{
    memset(sh, 0, sizeof *sh);
    sh->fd = -1;
    sh->path = strdup(path);
    if (!sh->path)
        return fail(err, GG_EXIT_INTERNAL, "out of memory");
    struct stat st;
    if (stat(path, &st) != 0)
        return fail(err, GG_EXIT_CANNOT_OPEN, "%s: %s", path, strerror(errno));
    if (S_ISDIR(st.st_mode))
        return fail(err, GG_EXIT_NOT_REGULAR, "%s: is a directory, not a GGUF file", path);
    if (!S_ISREG(st.st_mode))
        return fail(err, GG_EXIT_NOT_REGULAR, "%s: not a regular file", path);
    sh->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (sh->fd < 0)
        return fail(err, GG_EXIT_CANNOT_OPEN, "%s: %s", path, strerror(errno));
    if (fstat(sh->fd, &st) != 0)
        return fail(err, GG_EXIT_CANNOT_OPEN, "%s: %s", path, strerror(errno));
    sh->size = (uint64_t)st.st_size;
    sh->mtime = st.st_mtim;
    /* Map the file only to parse its header; the parser copies what it keeps. */
    const uint8_t *map = NULL;
    if (sh->size) {
        map = mmap(NULL, sh->size, PROT_READ, MAP_PRIVATE, sh->fd, 0);
        if (map == MAP_FAILED)
            return fail(err, GG_EXIT_CANNOT_OPEN, "%s: cannot map: %s", path, strerror(errno));
    }
    int rc = gg_parse(sh->path, map ? map : (const uint8_t *)"", sh->size, &sh->f, err);
    if (map)
        munmap((void *)map, sh->size);
    return rc != 0 ? GG_EXIT_MALFORMED : GG_EXIT_OK;
}

static void close_shard(gg_shard *sh)
{
    gg_file_free(&sh->f);
    if (sh->fd >= 0)
        close(sh->fd);
    free(sh->path);
    sh->fd = -1;
    sh->path = NULL;
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

/* gguf-split names shards PREFIX-00001-of-00003.gguf. Finds where the
 * "-NNNNN-of-NNNNN.gguf" part starts in path, or returns -1. */
static long shard_suffix(const char *path)
{
    size_t n = strlen(path);
    if (n < 20 || strcmp(path + n - 5, ".gguf") != 0)
        return -1;
    const char *s = path + n - 20; /* "-00001-of-00003.gguf" */
    if (s[0] != '-' || memcmp(s + 6, "-of-", 4) != 0)
        return -1;
    for (int i = 1; i < 15; i++)
        if ((i < 6 || i > 9) && (s[i] < '0' || s[i] > '9'))
            return -1;
    return (long)(n - 20);
}

/* The file given is a shard of a split model: open all shards in order. */
static int open_split(gg_model *m, gg_shard *given, int64_t count, char *err)
{
    long cut = shard_suffix(given->path);
    if (cut < 0)
        return fail(err, GG_EXIT_MALFORMED,
                    "%s: split.count is %" PRId64 " but the file name does not end in "
                    "-NNNNN-of-%05" PRId64 ".gguf, so the other shards cannot be found",
                    given->path, count, count);
    int64_t named = strtol(given->path + cut + 11, NULL, 10);
    if (named != count)
        return fail(err, GG_EXIT_MALFORMED, "%s: the name says %" PRId64 " shards, split.count says %" PRId64,
                    given->path, named, count);
    int64_t no = int_key(&given->f, "split.no");
    if (no < 0 || no >= count)
        return fail(err, GG_EXIT_MALFORMED, "%s: split.no is missing or not in 0..%" PRId64, given->path,
                    count - 1);
    m->shards = calloc((size_t)count, sizeof *m->shards);
    if (!m->shards)
        return fail(err, GG_EXIT_INTERNAL, "out of memory");
    m->nshards = (uint32_t)count;
    for (int64_t i = 0; i < count; i++)
        m->shards[i].fd = -1;
    m->shards[no] = *given;
    memset(given, 0, sizeof *given);
    given->fd = -1;
    for (int64_t i = 0; i < count; i++) {
        if (i == no)
            continue;
        char *path = gg_xprintf("%.*s-%05" PRId64 "-of-%05" PRId64 ".gguf", (int)cut, m->shards[no].path,
                             i + 1, count);
        if (!path)
            return fail(err, GG_EXIT_INTERNAL, "out of memory");
        int rc = open_shard(&m->shards[i], path, err);
        if (rc == GG_EXIT_CANNOT_OPEN) {
            fail(err, rc, "%s: missing shard %" PRId64 " of %" PRId64 " of the split model: %s", path,
                 i + 1, count, strerror(errno));
        }
        free(path);
        if (rc != GG_EXIT_OK)
            return rc;
        const gg_file *f = &m->shards[i].f;
        if (int_key(f, "split.no") != i || int_key(f, "split.count") != count)
            return fail(err, GG_EXIT_MALFORMED,
                        "%s: split.no / split.count say %" PRId64 " / %" PRId64 ", expected %" PRId64 " / %" PRId64,
                        m->shards[i].path, int_key(f, "split.no"), int_key(f, "split.count"), i, count);
    }
    return GG_EXIT_OK;
}

/* Tensor names must be unique across the shards of a model too. */
static int check_names_across(gg_model *m, char *err)
{
    if (m->nshards < 2)
        return GG_EXIT_OK;
    uint64_t cap = 16;
    while (cap < 2 * m->nt)
        cap *= 2;
    uint64_t *slot = calloc(cap, sizeof *slot);
    if (!slot)
        return fail(err, GG_EXIT_INTERNAL, "out of memory");
    int rc = GG_EXIT_OK;
    char nm[100];
    for (uint64_t i = 0; i < m->nt && rc == GG_EXIT_OK; i++) {
        const gg_tensor *t = &m->t[i];
        uint64_t h = 1469598103934665603ull;
        for (uint64_t k = 0; k < t->name_len; k++)
            h = (h ^ (unsigned char)t->name[k]) * 1099511628211ull;
        for (uint64_t k = h & (cap - 1);; k = (k + 1) & (cap - 1)) {
            if (!slot[k]) {
                slot[k] = i + 1;
                break;
            }
            const gg_tensor *o = &m->t[slot[k] - 1];
            if (o->name_len == t->name_len && memcmp(o->name, t->name, t->name_len) == 0) {
                shown_name(t, nm, sizeof nm);
                rc = fail(err, GG_EXIT_MALFORMED, "%s: tensor \"%s\" appears in two shards (%s and %s)",
                          m->path, nm, m->shards[o->shard].path, m->shards[t->shard].path);
                break;
            }
        }
    }
    free(slot);
    return rc;
}

int gg_model_open(gg_model *m, const char *path, const gg_open_opts *o, char *err)
{
    memset(m, 0, sizeof *m);
    m->path = strdup(path);
    if (!m->path)
        return fail(err, GG_EXIT_INTERNAL, "out of memory");
    m->base = strrchr(m->path, '/') ? strrchr(m->path, '/') + 1 : m->path;
    gg_shard given;
    int rc = open_shard(&given, path, err);
    if (rc != GG_EXIT_OK) {
        close_shard(&given);
        return rc;
    }
    int64_t count = int_key(&given.f, "split.count");
    if (count > 1) {
        rc = open_split(m, &given, count, err);
        close_shard(&given);
        if (rc != GG_EXIT_OK)
            return rc;
    } else {
        m->shards = calloc(1, sizeof *m->shards);
        if (!m->shards) {
            close_shard(&given);
            return fail(err, GG_EXIT_INTERNAL, "out of memory");
        }
        m->shards[0] = given;
        m->nshards = 1;
    }
    m->f = &m->shards[0].f;
    for (uint32_t i = 0; i < m->nshards; i++) {
        m->size += m->shards[i].size;
        m->nt += m->shards[i].f.n_tensors;
        const struct timespec *mt = &m->shards[i].mtime;
        if (mt->tv_sec > m->mtime.tv_sec || (mt->tv_sec == m->mtime.tv_sec && mt->tv_nsec > m->mtime.tv_nsec))
            m->mtime = *mt;
    }
    if (m->nshards > 1) {
        int64_t want = int_key(m->f, "split.tensors.count");
        if (want >= 0 && (uint64_t)want != m->nt)
            return fail(err, GG_EXIT_MALFORMED, "%s: the shards hold %" PRIu64 " tensors, split.tensors.count says %"
                        PRId64, m->shards[0].path, m->nt, want);
    }
    m->t = calloc(m->nt ? m->nt : 1, sizeof *m->t);
    if (!m->t)
        return fail(err, GG_EXIT_INTERNAL, "out of memory");
    m->dialect_hint = gg_dialect_evidence(m);
    gg_tensor *ts = m->t;
    for (uint32_t i = 0; i < m->nshards; i++) {
        rc = place_shard(m, i, ts, o, err);
        if (rc != GG_EXIT_OK)
            return rc;
        ts += m->shards[i].f.n_tensors;
    }
    return check_names_across(m, err);
}

void gg_model_close(gg_model *m)
{
    for (uint64_t i = 0; m->t && i < m->nt; i++) {
        free(m->t[i].why);
        free(m->t[i].resolution);
    }
    free(m->t);
    for (uint32_t i = 0; m->shards && i < m->nshards; i++)
        close_shard(&m->shards[i]);
    free(m->shards);
    free(m->path);
    memset(m, 0, sizeof *m);
}

int gg_model_same(const gg_model *a, const gg_model *b)
{
    struct stat x, y;
    return a->nshards && b->nshards && fstat(a->shards[0].fd, &x) == 0 && fstat(b->shards[0].fd, &y) == 0 &&
           x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}
