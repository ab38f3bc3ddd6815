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

/* Decide t->type for one tensor. Returns the chosen type or NULL. */
const gg_type *gg_resolve(gg_model *m, gg_tensor *t, const gg_open_opts *o)
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
        t->err = gg_err_keep(GG_E_UNSUPPORTED, "unsupported type %" PRIu32, ti->type_id);
        return NULL;
    }
    /* Keep candidates whose layout fits the shape and the space. */
    const gg_type *fit[16];
    uint64_t fit_bytes[16];
    size_t nf = 0;
    char *reasons = NULL;
    for (size_t i = 0; i < nc; i++) {
        gg_err why;
        uint64_t nb;
        if (gg_type_nbytes(cand[i], ti->ne[0], gg_nrows(ti), &nb, &why)) { /* bad shape or overflow */
            note(&reasons, "%s rejected: %s", cand[i]->name, why.msg);
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
            t->resolution = gg_xprintf("type id %" PRIu32 " read as %s%s%s%s", ti->type_id, ty->name,
                                    forced ? " (forced by -o types)" : "", reasons ? "; " : "",
                                    reasons ? reasons : "");
        free(reasons);
        return ty;
    }
    if (nf == 0) {
        t->err = gg_err_keep(GG_E_UNSUPPORTED, "type id %" PRIu32 " fits no known layout: %s", ti->type_id,
                             reasons ? reasons : "no candidates");
    } else {
        char *names = NULL;
        for (size_t i = 0; i < nf; i++)
            note(&names, "%s", fit[i]->name);
        t->err = gg_err_keep(GG_E_UNSUPPORTED,
                             "type id %" PRIu32 " is ambiguous: it fits %s; force one with -o types=%" PRIu32
                             ":NAME", ti->type_id, names ? names : "?", ti->type_id);
        free(names);
    }
    t->resolution = reasons;
    return NULL;
}

