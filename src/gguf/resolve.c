/* resolve.c - which type a tensor's type id means in this file.
 *
 * Type ids collide across the programs that write GGUF files (42 is Q2_0 in
 * ggml but STQ1_0 in Tencent's files; 15 is a 292-byte Q8_K in ggml and a
 * 296-byte one in ik_llama.cpp). Among the layouts an id can mean we keep
 * those whose size fits the space the file gives the tensor and whose block
 * divides the row; where an id has several meanings only a tight fit counts
 * (what is left over is alignment padding), and evidence elsewhere in the
 * file breaks ties. What stays ambiguous, or fits nothing, is "unknown": its
 * raw bytes are still served, its f32 is not. */
#include "resolve.h"
#include "gguffs/buf.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

int gg_parse_forced_types(gg_open_opts *o, const char *spec, gg_err *e)
{
    const char *p = spec;
    while (*p) {
        char *end;
        unsigned long id = strtoul(p, &end, 10);
        if (end == p || *end != ':' || id > UINT32_MAX)
            return gg_fail(e, GG_E_INVAL, "expected ID:NAME[,ID:NAME...]");
        const char *name = end + 1;
        size_t n = strcspn(name, ",");
        char buf[64];
        if (n == 0 || n >= sizeof buf)
            return gg_fail(e, GG_E_INVAL, "missing or overlong type name");
        memcpy(buf, name, n);
        buf[n] = 0;
        const gg_type *t = gg_type_by_name(buf);
        if (!t)
            return gg_fail(e, GG_E_INVAL, "unknown type name \"%s\"", buf);
        if (o->n_forced >= GG_MAX_FORCED)
            return gg_fail(e, GG_E_INVAL, "at most %d entries", GG_MAX_FORCED);
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
uint32_t gg_dialect_evidence(const gg_model *m)
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

uint64_t gg_nrows(const gg_tinfo *ti)
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
    char *add = gg_vxprintf(fmt, ap);
    va_end(ap);
    if (!add)
        return;
    char *joined = gg_xprintf("%s%s%s", *s ? *s : "", *s ? "; " : "", add);
    free(add);
    free(*s);
    *s = joined;
}

/* Ids that other programs use for layouts we do not know (ik_llama.cpp's
 * deprecated IQ2_TN and IQ1_TN at 142 and 143): a candidate must fit exactly. */
static int contested_id(uint32_t id) { return id == 142 || id == 143; }

/* The types an id may mean: the one -o types forces (*forced), else every
 * type of the id that is not a variant of another. */
static size_t candidates(const gg_tinfo *ti, const gg_open_opts *o, const gg_type *cand[16], int *forced)
{
    size_t nc = 0;
    *forced = 0;
    for (int i = 0; o && i < o->n_forced; i++) {
        if (o->forced_id[i] == ti->type_id) {
            cand[nc++] = o->forced_type[i];
            *forced = 1;
            break;
        }
    }
    if (!*forced) {
        const gg_type *all[16];
        size_t n = gg_types_for_id(ti->type_id, all, 16);
        for (size_t i = 0; i < n; i++)
            if (!(all[i]->flags & GG_TYPE_VARIANT))
                cand[nc++] = all[i];
    }
    return nc;
}

/* The candidates still in the running, their sizes, and why the others
 * were rejected (note's "; "-joined text, or NULL). */
typedef struct fits {
    const gg_type *type[16];
    uint64_t bytes[16];
    size_t n;
    char *reasons;
} fits;

/* Keep candidates whose layout fits the shape and the space. */
static void fit_space(const gg_tensor *t, const gg_type *const *cand, size_t nc, fits *f)
{
    const gg_tinfo *ti = t->info;
    for (size_t i = 0; i < nc; i++) {
        gg_err why;
        uint64_t nb;
        if (gg_type_nbytes(cand[i], ti->ne[0], gg_nrows(ti), &nb, &why)) { /* bad shape or overflow */
            note(&f->reasons, "%s rejected: %s", cand[i]->name, why.msg);
            continue;
        }
        if (nb > t->space) {
            note(&f->reasons, "%s rejected: needs %" PRIu64 " bytes, the file gives the tensor %" PRIu64,
                 cand[i]->name, nb, t->space);
            continue;
        }
        f->type[f->n] = cand[i];
        f->bytes[f->n++] = nb;
    }
}

/* Where an id has several meanings, only a tight fit counts (what is left
 * over is alignment padding): a layout that leaves bytes unused is as
 * likely to be a wrong guess as a right one. */
static void keep_tight(const gg_model *m, const gg_tensor *t, fits *f)
{
    size_t k = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (t->space - f->bytes[i] < m->shards[t->shard].f.alignment) {
            f->type[k] = f->type[i];
            f->bytes[k++] = f->bytes[i];
        } else {
            note(&f->reasons, "%s rejected: leaves %" PRIu64 " of the %" PRIu64 " bytes unused", f->type[i]->name,
                 t->space - f->bytes[i], t->space);
        }
    }
    f->n = k;
}

/* Of several fits, those of the dialect seen elsewhere in the file (when any is). */
static void keep_dialect(const gg_model *m, fits *f)
{
    size_t k = 0;
    for (size_t i = 0; i < f->n; i++)
        if (f->type[i]->dialects & m->dialect_hint)
            f->type[k] = f->type[i], f->bytes[k++] = f->bytes[i];
    if (k > 0 && k < f->n)
        note(&f->reasons, "chosen by evidence of the %s dialect elsewhere in the file",
             gg_dialect_name(m->dialect_hint));
    if (k > 0)
        f->n = k;
}

/* No fit or several: t->err says which, t->resolution keeps the reasons. */
static void unresolved(gg_tensor *t, fits *f)
{
    uint32_t id = t->info->type_id;
    if (f->n == 0) {
        t->err = gg_err_keep(GG_E_UNSUPPORTED, "type id %" PRIu32 " fits no known layout: %s", id,
                             f->reasons ? f->reasons : "no candidates");
    } else {
        char *names = NULL;
        for (size_t i = 0; i < f->n; i++)
            note(&names, "%s", f->type[i]->name);
        t->err = gg_err_keep(GG_E_UNSUPPORTED,
                             "type id %" PRIu32 " is ambiguous: it fits %s; force one with -o types=%" PRIu32
                             ":NAME", id, names ? names : "?", id);
        free(names);
    }
    t->resolution = f->reasons;
}

/* Decide t->type for one tensor. Returns the chosen type or NULL. */
const gg_type *gg_resolve(gg_model *m, gg_tensor *t, const gg_open_opts *o)
{
    const gg_tinfo *ti = t->info;
    const gg_type *cand[16];
    int forced;
    size_t nc = candidates(ti, o, cand, &forced);
    if (nc == 0) {
        t->err = gg_err_keep(GG_E_UNSUPPORTED, "unsupported type %" PRIu32, ti->type_id);
        return NULL;
    }
    fits f = {.n = 0, .reasons = NULL};
    fit_space(t, cand, nc, &f);
    if (!forced && (nc > 1 || contested_id(ti->type_id)))
        keep_tight(m, t, &f);
    if (f.n > 1 && m->dialect_hint)
        keep_dialect(m, &f);
    if (f.n != 1) {
        unresolved(t, &f);
        return NULL;
    }
    const gg_type *ty = f.type[0];
    if (o && o->stq1_0_consecutive && strcmp(ty->name, "STQ1_0") == 0)
        ty = by_name_and_id("STQ1_0_CONSECUTIVE", ty->id);
    if (nc > 1 || forced)
        t->resolution = gg_xprintf("type id %" PRIu32 " read as %s%s%s%s", ti->type_id, ty->name,
                                   forced ? " (forced by -o types)" : "", f.reasons ? "; " : "",
                                   f.reasons ? f.reasons : "");
    free(f.reasons);
    return ty;
}

