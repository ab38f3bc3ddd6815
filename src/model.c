/* model.c - open a model file and decide, tensor by tensor, what its bytes are.
 *
 * Type ids collide across the programs that write GGUF files (42 is Q2_0 in
 * ggml but STQ1_0 in Tencent's files; 15 is a 292-byte Q8_K in ggml and a
 * 296-byte one in ik_llama.cpp). Among the layouts an id can mean we keep
 * those whose size fits the space the file gives the tensor and whose block
 * divides the row; a tight fit (only alignment padding left over) and
 * evidence elsewhere in the file break ties. What stays ambiguous, or fits
 * nothing, is "unknown": its raw bytes are still served, its f32 is not. */
#include "gguffs/model.h"

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

static char *xprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    return s;
}

const char *gg_dialect_name(uint32_t d)
{
    if (d & GG_DIALECT_MAINLINE)
        return "mainline";
    if (d & GG_DIALECT_IK)
        return "ik_llama.cpp";
    if (d & GG_DIALECT_STQ)
        return "stq1_0";
    if (d & GG_DIALECT_PRISM)
        return "prismml";
    return "?";
}

int gg_parse_forced_types(gg_open_opts *o, const char *spec, char *err, size_t errlen)
{
    const char *p = spec;
    while (*p) {
        char *end;
        unsigned long id = strtoul(p, &end, 10);
        if (end == p || *end != ':' || id > UINT32_MAX) {
            snprintf(err, errlen, "types=%s: expected ID:NAME[,ID:NAME...]", spec);
            return -1;
        }
        const char *name = end + 1;
        size_t n = strcspn(name, ",");
        char buf[64];
        if (n == 0 || n >= sizeof buf) {
            snprintf(err, errlen, "types=%s: missing or overlong type name", spec);
            return -1;
        }
        memcpy(buf, name, n);
        buf[n] = 0;
        const gg_type *t = gg_type_by_name(buf);
        if (!t) {
            snprintf(err, errlen, "types=%s: unknown type name \"%s\"", spec, buf);
            return -1;
        }
        if (o->n_forced >= GG_MAX_FORCED) {
            snprintf(err, errlen, "types=: at most %d entries", GG_MAX_FORCED);
            return -1;
        }
        o->forced_id[o->n_forced] = (uint32_t)id;
        o->forced_type[o->n_forced++] = t;
        p = name + n + (name[n] == ',');
    }
    return 0;
}

/* Same layout under another entry (e.g. STQ1_0 at ids 42 and 43): one entry per name. */
static const gg_type *by_name_and_id(const char *name, uint32_t id)
{
    for (size_t i = 0; i < gg_type_count(); i++) {
        const gg_type *t = gg_type_at(i);
        if (strcasecmp(t->name, name) == 0 && t->id == id)
            return t;
    }
    return gg_type_by_name(name);
}

/* Evidence of which programs wrote the file: metadata keys, and ids only
 * one dialect defines. Used only to break ties. */
static uint32_t dialect_evidence(const gg_model *m)
{
    uint32_t ev = 0;
    const gg_file *f = m->f;
    for (uint64_t i = 0; i < f->n_kv; i++) {
        const char *k = gg_str_ptr(f, f->kv[i].key);
        uint64_t n = f->kv[i].key.len;
        if (n >= 6 && memcmp(k, "prism.", 6) == 0)
            ev |= GG_DIALECT_PRISM;
    }
    int64_t ft = gg_find_key(f, "general.finetune");
    if (ft >= 0 && f->kv[ft].type == GG_VT_STR) {
        const gg_kv *kv = &f->kv[ft];
        const char *s = (const char *)f->hdr + kv->val + (f->version == 1 ? 4 : 8);
        uint64_t len = kv->val_len - (f->version == 1 ? 4 : 8);
        if (memmem(s, len, "stride16", 8))
            ev |= GG_DIALECT_STQ;
    }
    for (uint32_t s = 0; s < m->nshards; s++) {
        const gg_file *sf = &m->shards[s].f;
        for (uint64_t i = 0; i < sf->n_tensors; i++) {
            const gg_type *c[8];
            size_t n = gg_types_for_id(sf->tensors[i].type_id, c, 8);
            uint32_t d = 0;
            for (size_t k = 0; k < n; k++)
                d |= c[k]->dialects;
            if (n && d != GG_DIALECT_ALL && __builtin_popcount(d) == 1)
                ev |= d;
        }
    }
    return ev;
}

static uint64_t nrows_of(const gg_tinfo *ti)
{
    uint64_t r = 1;
    for (int d = 1; d < GG_MAX_DIMS; d++)
        r *= ti->ne[d];
    return r;
}

/* Append to a growing explanation string. */
static void note(char **s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *add = NULL;
    if (vasprintf(&add, fmt, ap) < 0)
        add = NULL;
    va_end(ap);
    if (!add)
        return;
    char *joined = xprintf("%s%s%s", *s ? *s : "", *s ? "; " : "", add);
    free(add);
    free(*s);
    *s = joined;
}

/* Ids that other programs use for layouts we do not know (ik_llama.cpp's
 * deprecated IQ2_TN and IQ1_TN at 142 and 143): a candidate must fit exactly. */
static int contested_id(uint32_t id) { return id == 142 || id == 143; }

/* Decide t->type for one tensor. Returns the chosen type or NULL. */
static const gg_type *resolve(gg_model *m, gg_tensor *t, const gg_open_opts *o)
{
    const gg_tinfo *ti = t->info;
    const gg_type *cand[16];
    size_t nc = 0;
    int forced = 0;
    for (int i = 0; o && i < o->n_forced; i++) {
        if (o->forced_id[i] == ti->type_id) {
            cand[nc++] = o->forced_type[i];
            forced = 1;
            break;
        }
    }
    if (!forced) {
        const gg_type *all[16];
        size_t n = gg_types_for_id(ti->type_id, all, 16);
        for (size_t i = 0; i < n; i++)
            if (!(all[i]->flags & GG_TYPE_VARIANT))
                cand[nc++] = all[i];
    }
    if (nc == 0) {
        t->why = xprintf("unsupported type %" PRIu32, ti->type_id);
        return NULL;
    }
    /* Keep candidates whose layout fits the shape and the space. */
    const gg_type *fit[16];
    uint64_t fit_bytes[16];
    size_t nf = 0;
    char *reasons = NULL;
    for (size_t i = 0; i < nc; i++) {
        const char *why = NULL;
        uint64_t nb = gg_type_nbytes(cand[i], ti->ne[0], nrows_of(ti), &why);
        if (why) { /* bad shape or overflow (nb is 0 then, as it is for 0 elements) */
            note(&reasons, "%s rejected: %s", cand[i]->name, why);
            continue;
        }
        if (nb > t->space) {
            note(&reasons, "%s rejected: needs %" PRIu64 " bytes, the file gives the tensor %" PRIu64,
                 cand[i]->name, nb, t->space);
            continue;
        }
        fit[nf] = cand[i];
        fit_bytes[nf++] = nb;
    }
    /* Where an id has several meanings, only a tight fit counts (what is left
     * over is alignment padding): a layout that leaves bytes unused is as
     * likely to be a wrong guess as a right one. */
    if (!forced && (nc > 1 || contested_id(ti->type_id))) {
        size_t k = 0;
        for (size_t i = 0; i < nf; i++) {
            if (t->space - fit_bytes[i] < m->shards[t->shard].f.alignment) {
                fit[k] = fit[i];
                fit_bytes[k++] = fit_bytes[i];
            } else {
                note(&reasons, "%s rejected: leaves %" PRIu64 " of the %" PRIu64 " bytes unused",
                     fit[i]->name, t->space - fit_bytes[i], t->space);
            }
        }
        nf = k;
    }
    if (nf > 1 && m->dialect_hint) {
        size_t k = 0;
        for (size_t i = 0; i < nf; i++)
            if (fit[i]->dialects & m->dialect_hint)
                fit[k] = fit[i], fit_bytes[k++] = fit_bytes[i];
        if (k > 0 && k < nf)
            note(&reasons, "chosen by evidence of the %s dialect elsewhere in the file",
                 gg_dialect_name(m->dialect_hint));
        if (k > 0)
            nf = k;
    }
    if (nf == 1) {
        const gg_type *ty = fit[0];
        if (o && o->stq1_0_consecutive && strcmp(ty->name, "STQ1_0") == 0)
            ty = by_name_and_id("STQ1_0_CONSECUTIVE", ty->id);
        if (nc > 1 || forced)
            t->resolution = xprintf("type id %" PRIu32 " read as %s%s%s%s", ti->type_id, ty->name,
                                    forced ? " (forced by -o types)" : "", reasons ? "; " : "",
                                    reasons ? reasons : "");
        free(reasons);
        return ty;
    }
    if (nf == 0) {
        t->why = xprintf("type id %" PRIu32 " fits no known layout: %s", ti->type_id,
                         reasons ? reasons : "no candidates");
    } else {
        char *names = NULL;
        for (size_t i = 0; i < nf; i++)
            note(&names, "%s", fit[i]->name);
        t->why = xprintf("type id %" PRIu32 " is ambiguous: it fits %s; force one with -o types=%" PRIu32
                         ":NAME", ti->type_id, names ? names : "?", ti->type_id);
        free(names);
    }
    t->resolution = reasons;
    return NULL;
}

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
        t->type = resolve(m, t, o);
        if (t->type) {
            const char *why = NULL;
            if (gg_layout_init(&t->layout, t->type, ti->ne[0], nrows_of(ti), &why) != 0) {
                t->why = xprintf("%s", why); /* unreachable: resolve checked the shape */
                t->type = NULL;
            }
        }
        if (t->type) {
            t->nbytes = t->layout.nbytes;
            if (!gg_type_kernel(t->type, GG_ISA_SCALAR))
                t->why = xprintf("no decoder for %s%s%s", t->type->name,
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
            uint64_t nb = gg_type_nbytes(c[j], ti->ne[0], nrows_of(ti), NULL);
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
        char *path = xprintf("%.*s-%05" PRId64 "-of-%05" PRId64 ".gguf", (int)cut, m->shards[no].path,
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
    m->dialect_hint = dialect_evidence(m);
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
