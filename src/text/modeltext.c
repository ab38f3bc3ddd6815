/* modeltext.c - texts about one model (see modeltext.h). */
#include "gguffs/modeltext.h"

#include "gguffs/recipe.h"
#include "gguffs/render.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"

static void shape_json(cJSON *o, const char *key, const gg_tinfo *ti, int numpy)
{
    cJSON *a = cJSON_AddArrayToObject(o, key);
    for (uint32_t d = 0; d < ti->n_dims; d++) {
        uint32_t k = numpy ? ti->n_dims - 1 - d : d;
        char num[32];
        snprintf(num, sizeof num, "%" PRIu64, ti->ne[k]);
        cJSON_AddItemToArray(a, cJSON_CreateRaw(num));
    }
}

static void add_u64(cJSON *o, const char *key, uint64_t v)
{
    char num[32];
    snprintf(num, sizeof num, "%" PRIu64, v);
    cJSON_AddRawToObject(o, key, num);
}

/* True if the file carries PrismML Hadamard keys naming this tensor (or
 * naming none, which then applies to all its PTQ1_0 / PQ2_0 tensors). */
static int hadamard_folded(const gg_model *m, const gg_tensor *ts)
{
    if (!ts->type || (strcmp(ts->type->name, "PTQ1_0") != 0 && strcmp(ts->type->name, "PQ2_0") != 0))
        return 0;
    int any = 0;
    for (uint64_t i = 0; i < m->f->n_kv; i++) {
        const gg_kv *kv = &m->f->kv[i];
        if (kv->key.len >= 15 && memcmp(gg_str_ptr(m->f, kv->key), "prism.hadamard.", 15) == 0)
            any = 1;
    }
    if (!any)
        return 0;
    int64_t k = gg_find_key(m->f, "prism.hadamard.weight_names");
    if (k < 0 || m->f->kv[k].type != GG_VT_ARR || m->f->kv[k].arr_type != GG_VT_STR)
        return 1;
    const gg_kv *kv = &m->f->kv[k];
    uint64_t pos = kv->val + 4 + (m->f->version == 1 ? 4 : 8);
    for (uint64_t i = 0; i < kv->arr_n; i++) {
        uint64_t len = 0;
        int lb = m->f->version == 1 ? 4 : 8;
        for (int b = 0; b < lb; b++)
            len |= (uint64_t)m->f->hdr[pos + b] << (8 * b);
        pos += lb;
        if (len == ts->name_len && memcmp(m->f->hdr + pos, ts->name, len) == 0)
            return 1;
        pos += len;
    }
    return 0;
}

void gg_tensor_info_json(const gg_model *m, const gg_tensor *ts, gg_buf *out)
{
    const gg_tinfo *ti = ts->info;
    cJSON *o = cJSON_CreateObject();
    gg_buf s = {0};
    gg_json_string(&s, ts->name, ts->name_len);
    cJSON_AddRawToObject(o, "name", s.p ? s.p : "\"\"");
    gg_buf_free(&s);
    if (!gg_utf8_valid(ts->name, ts->name_len)) {
        /* The name above has U+FFFD where it is not UTF-8: the exact bytes. */
        gg_hex(&s, ts->name, ts->name_len);
        cJSON_AddStringToObject(o, "name_hex", s.p ? s.p : "");
        gg_buf_free(&s);
    }
    if (ts->type)
        cJSON_AddStringToObject(o, "type", ts->type->name);
    else
        cJSON_AddNullToObject(o, "type");
    add_u64(o, "type_id", ti->type_id);
    if (ts->type)
        cJSON_AddStringToObject(o, "dialect", gg_dialect_name(ts->type->dialects));
    shape_json(o, "dims", ti, 0);
    shape_json(o, "shape", ti, 1);
    add_u64(o, "n_elements", ti->nelems);
    gg_source *src = gg_tensor_source(m, ts);
    gg_json_string(&s, src->name, strlen(src->name));
    cJSON_AddRawToObject(o, "file", s.p ? s.p : "\"\"");
    gg_buf_free(&s);
    /* where it came from: {"file": PATH} or {"url": URL, "etag": ..., "repo_commit": ...} */
    gg_buf_puts(&s, "{");
    src->ops->describe(src, &s);
    gg_buf_puts(&s, "}");
    if (!s.oom)
        cJSON_AddRawToObject(o, "source", s.p);
    gg_buf_free(&s);
    add_u64(o, "offset", ts->abs_offset);
    add_u64(o, "data_offset", ti->offset);
    add_u64(o, "bytes", ts->nbytes);
    if (ts->size_from_space)
        cJSON_AddStringToObject(o, "bytes_note",
                                "type unknown: size taken up to the next tensor or the end of the file");
    if (ts->type) {
        const gg_type *ty = ts->type;
        cJSON *b = cJSON_AddObjectToObject(o, "layout");
        add_u64(b, "block_elements", ty->block_elems);
        add_u64(b, "block_bytes", ty->block_bytes);
        add_u64(b, "row_meta_bytes", ty->row_meta_bytes);
        add_u64(b, "rows_interleaved", ty->rows_interleaved);
        if (ti->nelems) {
            char bpw[32];
            snprintf(bpw, sizeof bpw, "%.4f", ts->nbytes * 8.0 / (double)ti->nelems);
            cJSON_AddRawToObject(o, "bits_per_weight", bpw);
        }
    }
    add_u64(o, "f32_bytes", ti->nelems * 4);
    cJSON_AddBoolToObject(o, "f32_readable", gg_tensor_decodable(ts));
    if (ts->err)
        cJSON_AddStringToObject(o, "error", ts->err->msg);
    if (ts->resolution)
        cJSON_AddStringToObject(o, "resolution", ts->resolution);
    if (ts->type && ts->type->note)
        cJSON_AddStringToObject(o, "note", ts->type->note);
    if (hadamard_folded(m, ts))
        cJSON_AddStringToObject(o, "hadamard",
                                "weights are stored Hadamard-rotated (prism.hadamard.* keys); f32 shows "
                                "the stored values, without the inverse transform");
    char *txt = cJSON_Print(o);
    if (txt) {
        gg_buf_puts(out, txt);
        gg_buf_put(out, "\n", 1);
        cJSON_free(txt);
    } else {
        out->oom = 1;
    }
    cJSON_Delete(o);
}

void gg_tensors_tsv(const gg_model *m, char *const *tree_names, gg_buf *out)
{
    gg_buf_puts(out, "name\ttype\ttype_id\tdims\tn_elements\toffset\tbytes\tfile\ttree_name\n");
    for (uint64_t i = 0; i < m->nt; i++) {
        const gg_tensor *ts = &m->t[i];
        gg_tsv_field(out, ts->name, ts->name_len);
        gg_buf_printf(out, "\t%s\t%" PRIu32 "\t", ts->type ? ts->type->name : "unknown", ts->info->type_id);
        for (uint32_t d = 0; d < ts->info->n_dims; d++)
            gg_buf_printf(out, d ? ",%" PRIu64 : "%" PRIu64, ts->info->ne[d]);
        gg_buf_printf(out, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t", ts->info->nelems, ts->abs_offset,
                      ts->nbytes);
        const char *file = gg_tensor_source(m, ts)->name;
        gg_tsv_field(out, file, strlen(file));
        gg_buf_put(out, "\t", 1);
        const char *tn = tree_names[i];
        gg_tsv_field(out, tn, strlen(tn));
        gg_buf_put(out, "\n", 1);
    }
}

void gg_types_tsv(const gg_model *m, gg_buf *out)
{
    gg_buf_puts(out, "type\ttype_id\tdialect\ttensors\tbytes\n");
    /* Distinct (type, id) pairs in order of first appearance. A hash keeps
     * this linear: a hostile file can hold a million distinct ids. */
    typedef struct group {
        uint64_t first, count, bytes;
    } group;
    uint64_t cap = 16;
    while (cap < 2 * m->nt)
        cap *= 2;
    uint64_t *slot = calloc(cap, sizeof *slot); /* group index + 1; 0 = empty */
    group *gr = malloc((m->nt ? m->nt : 1) * sizeof *gr);
    if (!slot || !gr) {
        free(slot);
        free(gr);
        out->oom = 1;
        return;
    }
    uint64_t ng = 0;
    for (uint64_t i = 0; i < m->nt; i++) {
        const gg_tensor *a = &m->t[i];
        uint64_t h = gg_hash_mix((uint64_t)(uintptr_t)a->type * 0x9E3779B97F4A7C15ull ^ a->info->type_id);
        for (uint64_t k = h & (cap - 1);; k = (k + 1) & (cap - 1)) {
            if (!slot[k]) {
                gr[ng] = (group){i, 0, 0};
                slot[k] = ++ng;
            }
            group *g = &gr[slot[k] - 1];
            const gg_tensor *f = &m->t[g->first];
            if (f->type == a->type && f->info->type_id == a->info->type_id) {
                g->count++;
                g->bytes += a->nbytes;
                break;
            }
        }
    }
    for (uint64_t k = 0; k < ng; k++) {
        const gg_tensor *a = &m->t[gr[k].first];
        gg_buf_printf(out, "%s\t%" PRIu32 "\t%s\t%" PRIu64 "\t%" PRIu64 "\n",
                      a->type ? a->type->name : "unknown", a->info->type_id,
                      a->type ? gg_dialect_name(a->type->dialects) : "-", gr[k].count, gr[k].bytes);
    }
    free(slot);
    free(gr);
}

static void why_not_line(void *arg, const gg_recipe *r, const gg_err *e)
{
    gg_buf *out = arg;
    gg_buf_printf(out, "%s.gguf\t", r->name);
    gg_tsv_field(out, e->msg, strlen(e->msg));
    gg_buf_puts(out, "\n");
}

/* The recipes the model cannot take, and why (decodable tensors). */
static void recipes_why(const gg_model *m, gg_buf *out)
{
    uint64_t ok;
    gg_buf_puts(out, "# recipe\twhy not\n");
    if (gg_recipes_possible(m, &ok, why_not_line, out) != 0)
        out->oom = 1; /* (the text is not shown) */
}

void gg_as_why(const gg_model *m, gg_buf *out)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < m->nt; i++)
        n += !gg_tensor_decodable(&m->t[i]);
    if (!n) {
        recipes_why(m, out);
        return;
    }
    gg_buf_printf(out, "# no as/*.gguf: %" PRIu64 " tensor%s cannot be decoded\n", n, n == 1 ? "" : "s");
    gg_buf_puts(out, "# tensor\ttype\twhy\n");
    for (uint64_t i = 0; i < m->nt; i++) {
        const gg_tensor *t = &m->t[i];
        if (gg_tensor_decodable(t))
            continue;
        gg_tsv_field(out, t->name, t->name_len);
        if (t->type)
            gg_buf_printf(out, "\t%s\t", t->type->name);
        else
            gg_buf_printf(out, "\tid %" PRIu32 "\t", t->info->type_id);
        const char *why = t->err ? t->err->msg : "type unknown";
        gg_tsv_field(out, why, strlen(why));
        gg_buf_puts(out, "\n");
    }
}
