/* export.c - .npy, safetensors and GGUF files as segments (see export.h). */
#include "gguffs/export.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/gguf_write.h"
#include "gguffs/kvedit.h"
#include "gguffs/names.h"
#include "gguffs/quantize.h"
#include "gguffs/render.h"
#include "segread.h"

#define NPY_ALIGN 64
#define ST_HEADER_MAX (100ull << 20) /* safetensors readers refuse bigger headers */
#define ST_META_MAX (64ull << 20)    /* metadata strings beyond this are left out */

void gg_composite_free(gg_composite *c)
{
    if (!c)
        return;
    free(c->seg);
    free(c->header);
    free(c);
}

uint64_t gg_composite_bytes(const gg_composite *c) { return sizeof *c + c->n * sizeof *c->seg + c->header_len; }

static gg_composite *composite_new(gg_buf *header, size_t nseg, gg_err *e)
{
    gg_composite *c = calloc(1, sizeof *c);
    if (c)
        c->seg = calloc(nseg ? nseg : 1, sizeof *c->seg);
    if (!c || !c->seg || header->oom) {
        if (c)
            free(c->seg);
        free(c);
        gg_buf_free(header);
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    c->header = header->p;
    c->header_len = header->len;
    memset(header, 0, sizeof *header);
    return c;
}

/* The numpy shape of a tensor: its dims reversed. */
static void shape_tuple(const gg_tinfo *ti, gg_buf *out, int json)
{
    gg_buf_puts(out, json ? "[" : "(");
    for (uint32_t d = 0; d < ti->n_dims; d++)
        gg_buf_printf(out, "%s%" PRIu64, d ? ", " : "", ti->ne[ti->n_dims - 1 - d]);
    if (!json && ti->n_dims == 1)
        gg_buf_puts(out, ",");
    gg_buf_puts(out, json ? "]" : ")");
}

gg_composite *gg_export_npy(const gg_model *m, uint64_t tensor, gg_view_kind view, gg_err *e)
{
    const gg_tinfo *ti = m->t[tensor].info;
    gg_buf dict = {0};
    gg_buf_printf(&dict, "{'descr': '%s', 'fortran_order': False, 'shape': ", view == GG_VIEW_F32 ? "<f4" : "<f2");
    shape_tuple(ti, &dict, 0);
    gg_buf_puts(&dict, ", }");
    /* magic (6) + version (2) + header length (2, or 4 in format 2.0) + dict
     * + spaces + '\n', a multiple of 64 in all. */
    int v2 = dict.len + 1 + 10 > 65535;
    size_t pre = v2 ? 12 : 10, total = (pre + dict.len + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    gg_buf h = {0};
    gg_buf_put(&h, "\x93NUMPY", 6);
    gg_buf_put(&h, v2 ? "\x02\x00" : "\x01\x00", 2);
    size_t hl = total - pre;
    unsigned char len[4] = {(unsigned char)hl, (unsigned char)(hl >> 8), (unsigned char)(hl >> 16),
                            (unsigned char)(hl >> 24)};
    gg_buf_put(&h, len, v2 ? 4 : 2);
    gg_buf_put(&h, dict.p ? dict.p : "", dict.len);
    while (h.len < total - 1)
        gg_buf_put(&h, " ", 1);
    gg_buf_put(&h, "\n", 1);
    gg_buf_free(&dict);
    size_t hlen = h.len;
    gg_composite *c = composite_new(&h, 2, e);
    if (!c)
        return NULL;
    c->n = 2;
    c->seg[0] = (gg_segment){.len = hlen, .bytes = c->header};
    c->seg[1] = (gg_segment){.at = hlen, .len = ti->nelems * gg_view_esize(view), .tensor = tensor, .view = view};
    c->size = hlen + c->seg[1].len;
    return c;
}

/* The JSON keys of the tensors: names that are valid UTF-8 as they are (but
 * "__metadata__", which the format reserves), others with U+FFFD and made
 * distinct with ~2, ~3, ... (names.h). Returns per included tensor the
 * inside of its JSON string literal. */
static char **tensor_keys(const gg_model *m, const uint64_t *inc, size_t n)
{
    char **keys = calloc(n ? n : 1, sizeof *keys);
    char ***renamed = calloc(n ? n : 1, sizeof *renamed);
    const char **fixed = calloc(n + 1, sizeof *fixed);
    size_t nr = 0, nf = 0;
    int ok = keys && renamed && fixed;
    for (size_t i = 0; ok && i < n; i++) {
        const gg_tensor *t = &m->t[inc[i]];
        gg_buf b = {0};
        gg_json_string(&b, t->name, t->name_len);
        ok = !b.oom;
        if (!ok)
            break;
        b.p[b.len - 1] = 0;
        keys[i] = strdup(b.p + 1);
        gg_buf_free(&b);
        ok = keys[i] != NULL;
        if (!ok)
            break;
        if (gg_utf8_valid(t->name, t->name_len) && strcmp(keys[i], "__metadata__") &&
            !memchr(t->name, 0, t->name_len))
            fixed[nf++] = keys[i];
        else
            renamed[nr++] = &keys[i];
    }
    fixed[nf++] = "__metadata__";
    ok = ok && gg_names_unique_n(renamed, nr, fixed, nf, 0) == 0;
    free(renamed);
    free(fixed);
    if (!ok && keys) {
        for (size_t i = 0; i < n; i++)
            free(keys[i]);
        free(keys);
        keys = NULL;
    }
    return keys;
}

/* __metadata__: string to string only. The GGUF keys of type str (as
 * metadata.json names them), then what we add. */
static void st_metadata(const gg_model *m, const char *skipped, gg_buf *out)
{
    const gg_file *f = m->f;
    int oom;
    char **alt = gg_metadata_json_keys(f, &oom);
    gg_buf_puts(out, "\"__metadata__\":{\"format\":\"pt\",\"gguffs.source\":");
    gg_json_string(out, m->path, strlen(m->path));
    if (skipped) {
        gg_buf_puts(out, ",\"gguffs.skipped\":");
        gg_json_string(out, skipped, strlen(skipped));
    }
    /* The budget counts the JSON text, escapes included: a string of
     * control bytes is six times longer escaped than stored. */
    uint64_t budget = ST_META_MAX;
    gg_buf one = {0};
    for (uint64_t i = 0; i < f->n_kv && !oom; i++) {
        const gg_kv *kv = &f->kv[i];
        const char *k = gg_str_ptr(f, kv->key);
        if (kv->type != GG_VT_STR || kv->val_len > budget ||
            (kv->key.len == 6 && !memcmp(k, "format", 6)) || (kv->key.len > 7 && !memcmp(k, "gguffs.", 7)))
            continue;
        one.len = 0;
        gg_buf_put(&one, ",", 1);
        if (alt && alt[i]) {
            gg_buf_put(&one, "\"", 1);
            gg_buf_puts(&one, alt[i]);
            gg_buf_put(&one, "\"", 1);
        } else {
            gg_json_string(&one, k, kv->key.len);
        }
        gg_buf_put(&one, ":", 1);
        uint64_t len = 0;
        const uint8_t *p = f->hdr + kv->val;
        for (int b = 0; b < (f->version == 1 ? 4 : 8); b++)
            len |= (uint64_t)p[b] << (8 * b);
        gg_json_string(&one, (const char *)p + (f->version == 1 ? 4 : 8), len);
        if (one.oom) {
            out->oom = 1;
            break;
        }
        if (one.len > budget)
            continue;
        budget -= one.len;
        gg_buf_put(out, one.p, one.len);
    }
    gg_buf_free(&one);
    gg_metadata_json_keys_free(f, alt);
    gg_buf_puts(out, "}");
}

gg_composite *gg_export_safetensors(const gg_model *m, gg_view_kind dtype, gg_err *e)
{
    uint64_t *inc = malloc((m->nt ? m->nt : 1) * sizeof *inc);
    gg_buf skipped = {0}, json = {0};
    size_t n = 0;
    if (!inc)
        goto oom;
    for (uint64_t i = 0; i < m->nt; i++) {
        const gg_tensor *t = &m->t[i];
        if (gg_tensor_decodable(t)) {
            inc[n++] = i;
            continue;
        }
        gg_buf_puts(&skipped, skipped.len ? ", " : "");
        gg_buf_put(&skipped, t->name, t->name_len);
    }
    char **keys = tensor_keys(m, inc, n);
    if (!keys)
        goto oom;
    gg_buf_puts(&json, "{");
    st_metadata(m, skipped.len ? skipped.p : NULL, &json);
    const char *dt = dtype == GG_VIEW_F32 ? "F32" : dtype == GG_VIEW_F16 ? "F16" : "BF16";
    uint64_t at = 0, es = gg_view_esize(dtype);
    for (size_t i = 0; i < n; i++) {
        const gg_tinfo *ti = m->t[inc[i]].info;
        gg_buf_printf(&json, ",\"%s\":{\"dtype\":\"%s\",\"shape\":", keys[i], dt);
        shape_tuple(ti, &json, 1);
        gg_buf_printf(&json, ",\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}", at, at + ti->nelems * es);
        at += ti->nelems * es;
        free(keys[i]);
    }
    free(keys);
    gg_buf_puts(&json, "}");
    while (json.len % 8)
        gg_buf_put(&json, " ", 1);
    if (json.oom)
        goto oom;
    if (json.len > ST_HEADER_MAX) {
        gg_fail(e, GG_E_TOOBIG, "%s: the safetensors header would be %zu bytes (readers take at most %llu MiB)",
                m->path, json.len, ST_HEADER_MAX >> 20);
        goto fail;
    }
    gg_buf h = {0};
    unsigned char len8[8];
    for (int b = 0; b < 8; b++)
        len8[b] = (unsigned char)((uint64_t)json.len >> (8 * b));
    gg_buf_put(&h, len8, 8);
    gg_buf_put(&h, json.p, json.len);
    size_t hlen = h.len;
    gg_composite *c = composite_new(&h, n + 1, e);
    if (!c)
        goto fail;
    c->seg[0] = (gg_segment){.len = hlen, .bytes = c->header};
    c->n = 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t len = m->t[inc[i]].info->nelems * es, end = c->seg[c->n - 1].at + c->seg[c->n - 1].len;
        if (len) /* a tensor without elements has no bytes in the file */
            c->seg[c->n++] = (gg_segment){.at = end, .len = len, .tensor = inc[i], .view = dtype};
    }
    c->size = c->seg[c->n - 1].at + c->seg[c->n - 1].len;
    free(inc);
    gg_buf_free(&json);
    gg_buf_free(&skipped);
    return c;
oom:
    gg_fail(e, GG_E_NOMEM, "out of memory");
fail:
    free(inc);
    gg_buf_free(&json);
    gg_buf_free(&skipped);
    return NULL;
}

/* ---- GGUF ---- */

/* ggml's type id of a view's values (views[i] of the tensors; RAW: as stored). */
static uint32_t view_type_id(const gg_tensor *t, gg_view_kind v)
{
    if (v == GG_VIEW_RAW)
        return t->info->type_id;
    if (gg_view_qtype(v))
        return gg_type_mainline(gg_view_qtype(v))->id;
    return v == GG_VIEW_F16 ? 1 : v == GG_VIEW_BF16 ? 30 : 0;
}

/* The header's segments: the bytes made (c->header, hlen of them) with the
 * runs of the model's header between them, where they lie (gguf_write.h);
 * returns where the header ends. */
static uint64_t header_segments(gg_composite *c, size_t hlen, const gg_gguf_runs *runs)
{
    uint64_t at = 0, made = 0; /* in the file; in c->header */
    for (size_t i = 0; i <= runs->n; i++) {
        uint64_t to = i < runs->n ? runs->run[i].at : hlen + runs->bytes;
        if (to > at)
            c->seg[c->n++] = (gg_segment){.at = at, .len = to - at, .bytes = c->header + made};
        made += to - at;
        at = to;
        if (i < runs->n) {
            c->seg[c->n++] = (gg_segment){.at = at, .len = runs->run[i].len, .bytes = (const char *)runs->run[i].src};
            at += runs->run[i].len;
        }
    }
    return at;
}

/* model.gguf of one file whose keys were edited: the new header, padding,
 * then the file's data section as it is (its tensors at their offsets). */
static gg_composite *edited_in_place(const gg_model *m, gg_err *e)
{
    gg_buf h = {0};
    uint64_t start;
    if (gg_gguf_header_in_place(m, &h, &start, e)) {
        gg_buf_free(&h);
        return NULL;
    }
    size_t hlen = h.len;
    gg_composite *c = composite_new(&h, 3, e);
    if (!c)
        return NULL;
    const gg_file *sf = &m->shards[0].f;
    uint64_t data = sf->n_tensors ? m->shards[0].src->size - sf->data_offset : 0;
    c->seg[c->n++] = (gg_segment){.len = hlen, .bytes = c->header};
    if (start > hlen)
        c->seg[c->n++] = (gg_segment){.at = hlen, .len = start - hlen, .kind = GG_SEG_ZEROS};
    if (data)
        c->seg[c->n++] = (gg_segment){.at = start, .len = data, .kind = GG_SEG_SHARD, .from = sf->data_offset};
    c->size = start + data;
    return c;
}

/* A GGUF file of m's tensors, tensor i as views[i], its header as form says
 * (the model's keys where they lie, not copied: several views share them). */
static gg_composite *gguf_file(const gg_model *m, const gg_view_kind *views, gg_gguf_form *form, gg_err *e)
{
    gg_buf h = {0};
    gg_gguf_runs runs = {0};
    gg_gguf_tensor *ts = malloc((m->nt ? m->nt : 1) * sizeof *ts);
    uint64_t *offset = malloc((m->nt ? m->nt : 1) * sizeof *offset);
    if (!ts || !offset) {
        free(ts);
        free(offset);
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    for (uint64_t i = 0; i < m->nt; i++)
        ts[i] = (gg_gguf_tensor){view_type_id(&m->t[i], views[i]), gg_view_size(&m->t[i], views[i])};
    uint64_t start, data;
    form->share = &runs;
    int rc = gg_gguf_header(m, ts, form, &h, offset, &start, &data, e);
    size_t hlen = h.len;
    gg_composite *c = rc ? NULL : composite_new(&h, 2 + 2 * m->nt + 2 * runs.n, e);
    gg_buf_free(&h);
    if (c) {
        /* the header, its padding, then each tensor and its padding */
        gg_segment *s = c->seg;
        uint64_t at = header_segments(c, hlen, &runs);
        for (uint64_t j = 0; j <= m->nt; j++) {
            uint64_t i = j < m->nt && form->order ? form->order[j] : j;
            uint64_t to = start + (j < m->nt ? offset[i] : data);
            if (to > at)
                s[c->n++] = (gg_segment){.at = at, .len = to - at, .kind = GG_SEG_ZEROS};
            at = to;
            if (j < m->nt && ts[i].nbytes) {
                s[c->n++] = (gg_segment){.at = at, .len = ts[i].nbytes, .tensor = i, .view = views[i]};
                at += ts[i].nbytes;
            }
        }
        c->size = at;
    }
    free(runs.run);
    free(ts);
    free(offset);
    return c;
}

gg_composite *gg_export_gguf(const gg_model *m, gg_err *e)
{
    if (m->nshards == 1 && !gg_model_is_edited(m)) { /* a file is its own bytes */
        gg_buf h = {0};
        gg_composite *c = composite_new(&h, 1, e);
        if (!c)
            return NULL;
        c->seg[0] = (gg_segment){.len = m->shards[0].src->size, .kind = GG_SEG_SHARD};
        c->n = c->seg[0].len > 0;
        c->size = c->seg[0].len;
        return c;
    }
    if (m->nshards == 1 && m->f->alignment == m->shards[0].f.alignment)
        return edited_in_place(m, e);
    gg_view_kind *views = malloc((m->nt ? m->nt : 1) * sizeof *views);
    if (!views) {
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    for (uint64_t i = 0; i < m->nt; i++)
        views[i] = GG_VIEW_RAW;
    gg_gguf_form form = {.file_type = GG_FILE_TYPE_KEEP};
    gg_composite *c = gguf_file(m, views, &form, e);
    free(views);
    return c;
}

gg_composite *gg_export_recipe(const gg_model *m, const gg_recipe *r, gg_err *e)
{
    gg_recipe_facts *facts = gg_recipe_facts_new(m);
    gg_tid *types = malloc((m->nt ? m->nt : 1) * sizeof *types);
    gg_view_kind *views = malloc((m->nt ? m->nt : 1) * sizeof *views);
    gg_composite *c = NULL;
    if (!facts || !types || !views) {
        gg_fail(e, GG_E_NOMEM, "out of memory");
    } else if (gg_recipe_types(facts, r, types, e) == 0) {
        for (uint64_t i = 0; i < m->nt; i++)
            views[i] = gg_view_of(types[i]);
        /* as/f32.gguf keeps the model's header and order; the others are
         * laid out as llama-quantize writes what it makes of that file */
        int source = (r->flags & GG_RECIPE_SOURCE) != 0;
        gg_gguf_form form = {.file_type = r->ftype, .quantized = !source,
                             .order = source ? NULL : gg_recipe_order(facts)};
        c = gguf_file(m, views, &form, e);
    }
    gg_recipe_facts_free(facts);
    free(types);
    free(views);
    return c;
}

ssize_t gg_composite_read(const gg_composite *c, gg_reader *r, gg_seg_read_fn read, void *arg, char *buf, size_t size,
                          uint64_t off, gg_ref *ref, gg_err *e)
{
    if (off >= c->size)
        return 0;
    if (size > c->size - off)
        size = (size_t)(c->size - off);
    /* The first segment the range touches (segments are in order). */
    size_t lo = 0, hi = c->n;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (c->seg[mid].at <= off)
            lo = mid;
        else
            hi = mid;
    }
    size_t done = 0;
    for (size_t i = lo; i < c->n && done < size; i++) {
        const gg_segment *s = &c->seg[i];
        uint64_t a = off + done, in = a - s->at;
        size_t k = s->len - in < size - done ? (size_t)(s->len - in) : size - done;
        int rc = 0;
        if (s->bytes) {
            rc = gg_ref_add(ref, s->bytes + in, k, e);
        } else if (s->kind == GG_SEG_ZEROS) {
            memset(buf + done, 0, k);
            rc = gg_ref_add(ref, buf + done, k, e);
        } else {
            rc = gg_segment_read(s, r, read, arg, buf + done, k, in, ref, e);
        }
        if (rc) {
            gg_ref_release(r, ref);
            return -1;
        }
        done += k;
    }
    return (ssize_t)done;
}
