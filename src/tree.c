/* tree.c - build the virtual tree from models, look names up, produce the
 * content of every file. */
#include "tree_internal.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/hash.h"
#include "gguffs/names.h"

/* ---- building ---- */

static int add_node(gg_tree *t, char *name, uint32_t parent, gg_content c, uint16_t model, uint64_t arg)
{
    if (!name)
        return -1;
    if (t->n == t->cap) {
        uint32_t nc = t->cap ? t->cap * 2 : 256;
        gg_node *p = realloc(t->nodes, nc * sizeof *p);
        if (!p) {
            free(name);
            return -1;
        }
        t->nodes = p;
        t->cap = nc;
    }
    gg_node *n = &t->nodes[t->n];
    memset(n, 0, sizeof *n);
    n->name = name;
    n->parent = parent;
    n->content = (uint8_t)c;
    n->model = model;
    n->arg = arg;
    atomic_init(&n->text, NULL);
    t->n++;
    return 0;
}

static void set_children(gg_tree *t, uint32_t dir, uint32_t first)
{
    t->nodes[dir].first_child = first;
    t->nodes[dir].n_children = t->n - first;
}

/* Make the names of dir's children distinct (names.h), apart from `reserved`. */
static int unique_children(gg_tree *t, uint32_t dir, const char *const *reserved, size_t nres)
{
    const gg_node *d = &t->nodes[dir];
    char ***names = malloc((d->n_children ? d->n_children : 1) * sizeof *names);
    if (!names)
        return -1;
    for (uint32_t k = 0; k < d->n_children; k++)
        names[k] = &t->nodes[d->first_child + k].name;
    int rc = gg_names_unique(names, d->n_children, reserved, nres);
    free(names);
    return rc;
}

/* The standard layout of one model under `dir`. */
static int build_layout(gg_tree *t, uint32_t dir, uint16_t mi, int with_stats)
{
    const gg_model *m = t->models[mi];
    uint32_t first = t->n;
    int rc = 0;
    rc |= add_node(t, strdup("metadata"), dir, GG_C_DIR, mi, 0);
    rc |= add_node(t, strdup("metadata.json"), dir, GG_C_METADATA_JSON, mi, 0);
    rc |= add_node(t, strdup("tensors"), dir, GG_C_DIR, mi, 0);
    rc |= add_node(t, strdup("tensors.tsv"), dir, GG_C_TENSORS_TSV, mi, 0);
    rc |= add_node(t, strdup("types.tsv"), dir, GG_C_TYPES_TSV, mi, 0);
    rc |= add_node(t, strdup("model.safetensors"), dir, GG_C_SAFETENSORS, mi, 0);
    if (with_stats)
        rc |= add_node(t, strdup(".stats"), dir, GG_C_CACHE_STATS, mi, 0);
    if (rc)
        return -1;
    set_children(t, dir, first);
    uint32_t meta_dir = first, tens_dir = first + 2;

    uint32_t kv0 = t->n;
    for (uint64_t i = 0; i < m->f->n_kv; i++) {
        const gg_kv *kv = &m->f->kv[i];
        if (add_node(t, gg_name_escape(gg_str_ptr(m->f, kv->key), kv->key.len), meta_dir, GG_C_KV, mi, i))
            return -1;
    }
    set_children(t, meta_dir, kv0);
    if (unique_children(t, meta_dir, NULL, 0))
        return -1;

    uint32_t td0 = t->n;
    for (uint64_t i = 0; i < m->nt; i++)
        if (add_node(t, gg_name_escape(m->t[i].name, m->t[i].name_len), tens_dir, GG_C_TENSOR_DIR, mi, i))
            return -1;
    set_children(t, tens_dir, td0);
    if (unique_children(t, tens_dir, NULL, 0))
        return -1;
    for (uint64_t i = 0; i < m->nt; i++) {
        uint32_t d = td0 + (uint32_t)i, f0 = t->n;
        if (add_node(t, strdup("raw"), d, GG_C_RAW, mi, i) || add_node(t, strdup("f32"), d, GG_C_F32, mi, i) ||
            add_node(t, strdup("f32.npy"), d, GG_C_F32_NPY, mi, i) || add_node(t, strdup("f16"), d, GG_C_F16, mi, i) ||
            add_node(t, strdup("f16.npy"), d, GG_C_F16_NPY, mi, i) ||
            add_node(t, strdup("bf16"), d, GG_C_BF16, mi, i) ||
            add_node(t, strdup("info.json"), d, GG_C_INFO_JSON, mi, i) ||
            add_node(t, strdup("stats"), d, GG_C_STATS, mi, i))
            return -1;
        set_children(t, d, f0);
    }
    return 0;
}

static uint64_t name_hash(uint32_t parent, const char *name)
{
    return gg_hash64(name, strlen(name), (uint64_t)parent * 0x9E3779B97F4A7C15ull);
}

static int build_hash(gg_tree *t)
{
    uint32_t cap = 64;
    while (cap < 2 * t->n)
        cap *= 2;
    t->hash = calloc(cap, sizeof *t->hash);
    if (!t->hash)
        return -1;
    t->hash_cap = cap;
    for (uint32_t i = 1; i < t->n; i++) {
        uint64_t k = name_hash(t->nodes[i].parent, t->nodes[i].name) & (cap - 1);
        while (t->hash[k])
            k = (k + 1) & (cap - 1);
        t->hash[k] = i + 1;
    }
    return 0;
}

static uint32_t find_child(const gg_tree *t, uint32_t parent, const char *name)
{
    uint64_t k = name_hash(parent, name) & (t->hash_cap - 1);
    for (; t->hash[k]; k = (k + 1) & (t->hash_cap - 1)) {
        const gg_node *n = &t->nodes[t->hash[k] - 1];
        if (n->parent == parent && strcmp(n->name, name) == 0)
            return t->hash[k] - 1;
    }
    return UINT32_MAX;
}

/* Folder name of a model among several: file name without .gguf and
 * without a -NNNNN-of-NNNNN shard suffix. */
static char *model_dir_name(const char *base, size_t n)
{
    if (n > 5 && memcmp(base + n - 5, ".gguf", 5) == 0)
        n -= 5;
    /* "-00001-of-00003" is 15 characters. */
    if (n > 15 && base[n - 15] == '-' && memcmp(base + n - 9, "-of-", 4) == 0) {
        int digits = 1;
        for (size_t i = n - 14; i < n; i++)
            if (i != n - 9 && i != n - 8 && i != n - 7 && i != n - 6 && (base[i] < '0' || base[i] > '9'))
                digits = 0;
        if (digits)
            n -= 15;
    }
    return gg_name_escape(base, n);
}

/* Node numbers are 32-bit and the tables double: keep well below that. */
#define MAX_NODES (1u << 30)

gg_tree *gg_tree_new(gg_model **models, int n_models, gg_reader *reader, const gg_tree_opts *o, gg_err *err)
{
    gg_tree *t = calloc(1, sizeof *t);
    if (!t) {
        gg_fail(err, GG_E_NOMEM, "out of memory building the tree");
        return NULL;
    }
    if (o)
        t->o = *o;
    uint64_t want = 2;
    for (int i = 0; i < n_models; i++)
        want += 9 + models[i]->f->n_kv + 9 * models[i]->nt;
    if (n_models < 1 || n_models > UINT16_MAX || want > MAX_NODES) { /* (gg_node.model is 16 bits) */
        gg_fail(err, GG_E_TOOBIG, "%s: too many keys and tensors (%" PRIu64 " files; at most %u in one mount)",
                n_models < 1 ? "no model" : models[0]->path, want, MAX_NODES);
        free(t);
        return NULL;
    }
    t->models = models;
    t->n_models = n_models;
    t->reader = reader;
    t->uid_base = calloc((size_t)n_models, sizeof *t->uid_base);
    t->forgotten = calloc((size_t)n_models, sizeof *t->forgotten);
    if (!t->uid_base || !t->forgotten)
        goto oom;
    for (int i = 1; i < n_models; i++)
        t->uid_base[i] = t->uid_base[i - 1] + (uint32_t)models[i - 1]->nt;
    if (add_node(t, strdup(""), 0, GG_C_DIR, 0, 0))
        goto oom;
    if (n_models == 1) {
        if (build_layout(t, 0, 0, 1))
            goto oom;
    } else {
        t->model_dirs = calloc((size_t)n_models, sizeof *t->model_dirs);
        if (!t->model_dirs)
            goto oom;
        for (int i = 0; i < n_models; i++) {
            t->model_dirs[i] = model_dir_name(models[i]->base, models[i]->base_len);
            if (!t->model_dirs[i])
                goto oom;
        }
        /* Same file names from different folders: ~2, ~3, ... in command-line order. */
        char ***names = malloc((size_t)n_models * sizeof *names);
        if (!names)
            goto oom;
        for (int i = 0; i < n_models; i++)
            names[i] = &t->model_dirs[i];
        static const char *const reserved[] = {".stats"};
        int urc = gg_names_unique(names, (size_t)n_models, reserved, 1);
        free(names);
        if (urc)
            goto oom;
        for (int i = 0; i < n_models; i++)
            if (add_node(t, strdup(t->model_dirs[i]), 0, GG_C_DIR, (uint16_t)i, 0))
                goto oom;
        if (add_node(t, strdup(".stats"), 0, GG_C_CACHE_STATS, 0, 0))
            goto oom;
        set_children(t, 0, 1);
        for (int i = 0; i < n_models; i++)
            if (build_layout(t, 1 + (uint32_t)i, (uint16_t)i, 0))
                goto oom;
    }
    if (build_hash(t))
        goto oom;
    return t;
oom:
    gg_fail(err, GG_E_NOMEM, "out of memory building the tree");
    gg_tree_free(t);
    return NULL;
}

void gg_tree_free(gg_tree *t)
{
    if (!t)
        return;
    for (uint32_t i = 0; i < t->n; i++) {
        free(t->nodes[i].name);
        free(atomic_load(&t->nodes[i].text));
        gg_composite_free(atomic_load(&t->nodes[i].comp));
    }
    free(t->nodes);
    free(t->hash);
    if (t->model_dirs)
        for (int i = 0; i < t->n_models; i++)
            free(t->model_dirs[i]);
    free(t->model_dirs);
    free(t->uid_base);
    free(t->forgotten);
    free(t);
}

const gg_tensor *gg_node_tensor(const gg_tree *t, const gg_node *n, const gg_model **m)
{
    switch (n->content) {
    case GG_C_TENSOR_DIR: case GG_C_RAW: case GG_C_F32: case GG_C_INFO_JSON: case GG_C_STATS: case GG_C_F16:
    case GG_C_BF16: case GG_C_F32_NPY: case GG_C_F16_NPY:
        break;
    default:
        return NULL;
    }
    const gg_model *mm = t->models[n->model];
    if (m)
        *m = mm;
    return &mm->t[n->arg];
}

/* ---- content ---- */

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
    const char *file = gg_tensor_source(m, ts)->name;
    gg_json_string(&s, file, strlen(file));
    cJSON_AddRawToObject(o, "file", s.p ? s.p : "\"\"");
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
    cJSON_AddBoolToObject(o, "f32_readable", ts->type && !ts->err);
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

/* Tab-separated field: backslash, tab, newline and CR as \\ \t \n \r, any
 * other control byte (NUL too) as \xHH; other bytes as they are. */
static void tsv_field(gg_buf *out, const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != 0x7f && c != '\\')
            continue;
        gg_buf_put(out, s + run, i - run);
        run = i + 1;
        if (c == '\\' || c == '\t' || c == '\n' || c == '\r')
            gg_buf_puts(out, c == '\\' ? "\\\\" : c == '\t' ? "\\t" : c == '\n' ? "\\n" : "\\r");
        else
            gg_buf_printf(out, "\\x%02x", c);
    }
    gg_buf_put(out, s + run, n - run);
}

/* tree_dir: the tensors/ folder of the model (for the names in the tree). */
static void tensors_tsv(const gg_tree *t, const gg_model *m, uint32_t tree_dir, gg_buf *out)
{
    gg_buf_puts(out, "name\ttype\ttype_id\tdims\tn_elements\toffset\tbytes\tfile\ttree_name\n");
    const gg_node *td = &t->nodes[tree_dir];
    for (uint64_t i = 0; i < m->nt; i++) {
        const gg_tensor *ts = &m->t[i];
        tsv_field(out, ts->name, ts->name_len);
        gg_buf_printf(out, "\t%s\t%" PRIu32 "\t", ts->type ? ts->type->name : "unknown", ts->info->type_id);
        for (uint32_t d = 0; d < ts->info->n_dims; d++)
            gg_buf_printf(out, d ? ",%" PRIu64 : "%" PRIu64, ts->info->ne[d]);
        gg_buf_printf(out, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t", ts->info->nelems, ts->abs_offset,
                      ts->nbytes);
        const char *file = gg_tensor_source(m, ts)->name;
        tsv_field(out, file, strlen(file));
        gg_buf_put(out, "\t", 1);
        const char *tn = i < td->n_children ? t->nodes[td->first_child + i].name : "";
        tsv_field(out, tn, strlen(tn));
        gg_buf_put(out, "\n", 1);
    }
}

static void types_tsv(const gg_model *m, gg_buf *out)
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

/* Decode the whole tensor in chunks; count, min, max, mean, std, NaN, Inf,
 * zeros. Fixed-width lines ("%-5s %24s\n"), so the file's size is known
 * before anything is decoded (GG_STATS_BYTES). */
static int tensor_stats(gg_tree *t, const gg_model *m, const gg_tensor *ts, gg_buf *out, gg_err *err)
{
    if (!ts->type || ts->err)
        return gg_fail(err, ts->err ? ts->err->code : GG_E_UNSUPPORTED, "%s",
                       ts->err ? ts->err->msg : "type unknown");
    const uint64_t chunk = 1u << 20;
    uint64_t n = ts->layout.nelems, nan = 0, inf = 0, zero = 0, finite = 0;
    double sum = 0, sumsq = 0, mn = INFINITY, mx = -INFINITY;
    float *buf = malloc(chunk * sizeof(float));
    if (!buf)
        return gg_fail(err, GG_E_NOMEM, "out of memory");
    /* Chunks aligned to the decode granule so no block is decoded twice. */
    uint64_t g = gg_layout_granule(&ts->layout), step = chunk / g * g;
    if (step == 0) {
        free(buf);
        buf = malloc(g * sizeof(float));
        step = g;
        if (!buf)
            return gg_fail(err, GG_E_NOMEM, "out of memory");
    }
    int rc = 0;
    for (uint64_t e = 0; e < n && rc == 0; e += step) {
        uint64_t e1 = e + step < n ? e + step : n;
        rc = gg_decode_elems(t->reader, m, ts, e, e1, buf, err);
        for (uint64_t i = 0; rc == 0 && i < e1 - e; i++) {
            float v = buf[i];
            if (isnan(v)) {
                nan++;
                continue;
            }
            if (v == 0)
                zero++;
            if (v < mn)
                mn = v;
            if (v > mx)
                mx = v;
            if (isinf(v)) {
                inf++;
                continue;
            }
            finite++;
            sum += v;
            sumsq += (double)v * v;
        }
    }
    free(buf);
    if (rc)
        return -1;
    char a[32], b[32], c[32], d[32];
    double mean = finite ? sum / finite : NAN;
    double var = finite ? sumsq / finite - mean * mean : NAN;
    if (var < 0)
        var = 0;
    gg_fmt_f32(a, n - nan ? (float)mn : NAN);
    gg_fmt_f32(b, n - nan ? (float)mx : NAN);
    gg_fmt_f64(c, mean);
    gg_fmt_f64(d, sqrt(var));
    char e[32], f2[32], g2[32], h[32];
    snprintf(e, sizeof e, "%" PRIu64, n);
    snprintf(f2, sizeof f2, "%" PRIu64, nan);
    snprintf(g2, sizeof g2, "%" PRIu64, inf);
    snprintf(h, sizeof h, "%" PRIu64, zero);
    const char *keys[] = {"count", "min", "max", "mean", "std", "nan", "inf", "zeros"};
    const char *vals[] = {e, a, b, c, d, f2, g2, h};
    for (int k = 0; k < 8; k++)
        gg_buf_printf(out, "%-5s %*s\n", keys[k], GG_STATS_WIDTH, vals[k]);
    return 0;
}

/* Generated files are made whole in memory. A hostile header can make
 * them many times its own size (a 1 GiB array of bools is 6 GiB of text):
 * past this bound (on an estimate from the header) the file gives EFBIG. */
#define MAX_TEXT (256ull << 20)

/* Upper bound of the bytes of node i's text: rendering never writes more
 * than 8 bytes per byte of a value ("false, " for a bool, \u00XX for a
 * control byte in JSON) and 6 per byte of a name. */
static uint64_t text_bound(const gg_tree *t, const gg_node *n)
{
    const gg_model *m = t->models[n->model];
    uint64_t b = 4096;
    switch (n->content) {
    case GG_C_KV:
        return b + 8 * m->f->kv[n->arg].val_len;
    case GG_C_METADATA_JSON:
        for (uint64_t k = 0; k < m->f->n_kv; k++)
            b += 128 + 8 * m->f->kv[k].val_len + 6 * m->f->kv[k].key.len;
        return b;
    case GG_C_TENSORS_TSV:
        for (uint64_t k = 0; k < m->nt; k++)
            b += 256 + 8 * m->t[k].name_len + strlen(gg_tensor_source(m, &m->t[k])->name) * 4;
        return b;
    case GG_C_INFO_JSON:
        return b + 6 * m->t[n->arg].name_len;
    default:
        return b;
    }
}

/* The tensors/ folder beside node i (a sibling of it). */
static uint32_t tensors_dir_of(const gg_tree *t, uint32_t i)
{
    const gg_node *p = &t->nodes[t->nodes[i].parent];
    for (uint32_t k = 0; k < p->n_children; k++)
        if (!strcmp(t->nodes[p->first_child + k].name, "tensors"))
            return p->first_child + k;
    return 0;
}

/* The model of a node changed under us: its decoded pages go (once). */
static void forget_model(gg_tree *t, uint16_t mi)
{
    if (atomic_exchange(&t->forgotten[mi], 1))
        return;
    gg_reader_forget(t->reader, t->uid_base[mi], t->uid_base[mi] + (uint32_t)t->models[mi]->nt);
}

static void cache_stats_text(gg_tree *t, gg_buf *out)
{
    gg_reader_stats_text(t->reader, out);
    if (t->stats_hook)
        t->stats_hook(t->stats_arg, out);
}

/* Make the text of node i. */
static int generate(gg_tree *t, uint32_t i, gg_buf *out, gg_err *e)
{
    const gg_node *n = &t->nodes[i];
    const gg_model *m = t->models[n->model];
    if (text_bound(t, n) > MAX_TEXT)
        return gg_fail(e, GG_E_TOOBIG, "%s: %s would be more than %llu MiB of text", m->path, n->name,
                       MAX_TEXT >> 20);
    switch (n->content) {
    case GG_C_KV:
        gg_render_kv_text(m->f, &m->f->kv[n->arg], out);
        break;
    case GG_C_METADATA_JSON:
        gg_render_metadata_json(m->f, out);
        break;
    case GG_C_TENSORS_TSV:
        tensors_tsv(t, m, tensors_dir_of(t, i), out);
        break;
    case GG_C_TYPES_TSV:
        types_tsv(m, out);
        break;
    case GG_C_INFO_JSON:
        gg_tensor_info_json(m, &m->t[n->arg], out);
        break;
    case GG_C_STATS:
        if (tensor_stats(t, m, &m->t[n->arg], out, e)) {
            if (e && e->code == GG_E_STALE)
                forget_model(t, n->model);
            return -1;
        }
        break;
    case GG_C_CACHE_STATS:
        cache_stats_text(t, out);
        break;
    default:
        return gg_fail(e, GG_E_INVAL, "%s: not a text file", n->name);
    }
    return out->oom ? gg_fail(e, GG_E_NOMEM, "out of memory for %s", n->name) : 0;
}

/* The node's cached text, generated on first use. */
static int text_of(gg_tree *t, uint32_t i, gg_text **res, gg_err *e)
{
    gg_node *n = &t->nodes[i];
    gg_text *txt = atomic_load_explicit(&n->text, memory_order_acquire);
    if (txt) {
        *res = txt;
        return 0;
    }
    gg_buf b = {0};
    if (generate(t, i, &b, e)) {
        gg_buf_free(&b);
        return -1;
    }
    txt = malloc(sizeof *txt + b.len + 1);
    if (!txt) {
        gg_buf_free(&b);
        return gg_fail(e, GG_E_NOMEM, "out of memory for %s", n->name);
    }
    txt->len = b.len;
    if (b.len)
        memcpy(txt->data, b.p, b.len);
    gg_buf_free(&b);
    gg_text *expected = NULL;
    if (!atomic_compare_exchange_strong(&n->text, &expected, txt)) {
        free(txt); /* another thread made it first */
        txt = expected;
    }
    *res = txt;
    return 0;
}

static gg_node *node_or_fail(gg_tree *t, gg_ino ino, gg_err *e)
{
    gg_node *n = gg_tree_node(t, ino);
    if (!n)
        gg_fail(e, GG_E_NOENT, "no inode %" PRIu64, ino);
    return n;
}

int gg_tree_lookup(gg_tree *t, gg_ino dir, const char *name, gg_ino *out, gg_err *e)
{
    gg_node *d = node_or_fail(t, dir, e);
    if (!d)
        return -1;
    if (!gg_node_is_dir(d))
        return gg_fail(e, GG_E_NOTDIR, "%s: not a folder", d->name);
    uint32_t k = find_child(t, (uint32_t)(dir - 1), name);
    if (k == UINT32_MAX)
        return gg_fail(e, GG_E_NOENT, "%s: no such entry", name);
    *out = (gg_ino)k + 1;
    return 0;
}

gg_ino gg_tree_parent(gg_tree *t, gg_ino dir)
{
    gg_node *n = gg_tree_node(t, dir);
    return n ? (gg_ino)n->parent + 1 : GG_ROOT;
}

void gg_tree_set_stats_hook(gg_tree *t, void (*fn)(void *arg, gg_buf *out), void *arg)
{
    t->stats_hook = fn;
    t->stats_arg = arg;
}

/* The segments of a composite file node, made on first use. */
static int comp_of(gg_tree *t, uint32_t i, gg_composite **res, gg_err *e)
{
    gg_node *n = &t->nodes[i];
    gg_composite *c = atomic_load_explicit(&n->comp, memory_order_acquire);
    if (!c) {
        const gg_model *m = t->models[n->model];
        c = n->content == GG_C_SAFETENSORS ? gg_export_safetensors(m, (gg_view_kind)t->o.safetensors_dtype, e)
                                           : gg_export_npy(m, n->arg,
                                                           n->content == GG_C_F32_NPY ? GG_VIEW_F32 : GG_VIEW_F16, e);
        if (!c)
            return -1;
        gg_composite *expected = NULL;
        if (!atomic_compare_exchange_strong(&n->comp, &expected, c)) {
            gg_composite_free(c); /* another thread made it first */
            c = expected;
        }
    }
    *res = c;
    return 0;
}

/* Bytes of a file node, without generating anything whose size is fixed. */
static int file_size(gg_tree *t, uint32_t i, uint64_t *size, gg_err *e)
{
    const gg_node *n = &t->nodes[i];
    const gg_model *m = t->models[n->model];
    switch (n->content) {
    case GG_C_RAW:
        *size = m->t[n->arg].nbytes;
        return 0;
    case GG_C_F32:
        *size = m->t[n->arg].info->nelems * 4;
        return 0;
    case GG_C_F16:
    case GG_C_BF16:
        *size = m->t[n->arg].info->nelems * 2;
        return 0;
    case GG_C_F32_NPY:
    case GG_C_F16_NPY:
    case GG_C_SAFETENSORS: {
        gg_composite *c;
        if (comp_of(t, i, &c, e))
            return -1;
        *size = c->size;
        return 0;
    }
    case GG_C_STATS:
        *size = GG_STATS_BYTES;
        return 0;
    case GG_C_CACHE_STATS: {
        gg_buf b = {0};
        cache_stats_text(t, &b);
        *size = b.len;
        gg_buf_free(&b);
        return b.oom ? gg_fail(e, GG_E_NOMEM, "out of memory") : 0;
    }
    default: {
        gg_text *txt;
        if (text_of(t, i, &txt, e))
            return -1;
        *size = txt->len;
        return 0;
    }
    }
}

int gg_tree_getattr(gg_tree *t, gg_ino ino, gg_attr *a, gg_err *e)
{
    gg_node *n = node_or_fail(t, ino, e);
    if (!n)
        return -1;
    memset(a, 0, sizeof *a);
    a->mtime = t->models[n->model]->mtime;
    if (gg_node_is_dir(n)) {
        a->kind = GG_K_DIR;
        a->nlink = 2;
        for (uint32_t k = 0; k < n->n_children; k++)
            a->nlink += gg_node_is_dir(&t->nodes[n->first_child + k]);
        return 0;
    }
    a->kind = GG_K_FILE;
    a->nlink = 1;
    if (file_size(t, (uint32_t)(ino - 1), &a->size, e))
        return -1;
    /* Only stored bytes take disk: du of a mount reports the model, not the
     * decoded views and texts made from it. */
    a->blocks = n->content == GG_C_RAW ? (a->size + 511) / 512 : 0;
    a->live = n->content == GG_C_CACHE_STATS;
    a->tensor_data = gg_node_is_data(n);
    return 0;
}

int gg_tree_readdir(gg_tree *t, gg_ino dir, uint64_t from, gg_dirent_fn fn, void *arg, gg_err *e)
{
    gg_node *d = node_or_fail(t, dir, e);
    if (!d)
        return -1;
    if (!gg_node_is_dir(d))
        return gg_fail(e, GG_E_NOTDIR, "%s: not a folder", d->name);
    for (uint64_t k = from; k < d->n_children; k++) {
        uint32_t c = d->first_child + (uint32_t)k;
        if (fn(arg, t->nodes[c].name, (gg_ino)c + 1, gg_node_is_dir(&t->nodes[c]) ? GG_K_DIR : GG_K_FILE))
            break;
    }
    return 0;
}

struct gg_open_file {
    gg_readahead ra;
};

int gg_tree_open(gg_tree *t, gg_ino ino, gg_open_file **of, gg_err *e)
{
    *of = NULL;
    gg_node *n = node_or_fail(t, ino, e);
    if (!n)
        return -1;
    if (gg_node_is_dir(n))
        return gg_fail(e, GG_E_ISDIR, "%s: is a folder", n->name);
    if (gg_node_is_data(n) && n->content != GG_C_RAW) {
        gg_open_file *o = malloc(sizeof *o);
        if (!o)
            return gg_fail(e, GG_E_NOMEM, "out of memory");
        gg_readahead_init(&o->ra);
        *of = o;
    }
    return 0;
}

void gg_tree_close(gg_tree *t, gg_open_file *of)
{
    (void)t;
    if (!of)
        return;
    gg_readahead_destroy(&of->ra);
    free(of);
}

/* The cache id of the tensor behind a tensor file node: unique across the
 * models of the mount. */
static uint32_t tensor_uid(const gg_tree *t, const gg_node *n) { return t->uid_base[n->model] + (uint32_t)n->arg; }

/* A view of one of a model's tensors, for composite files. */
typedef struct view_ctx {
    gg_tree *t;
    uint16_t model;
    gg_readahead *ra;
} view_ctx;

static ssize_t read_view(void *arg, uint64_t tensor, gg_view_kind kind, char *buf, size_t n, uint64_t off,
                         gg_err *e)
{
    view_ctx *v = arg;
    const gg_model *m = v->t->models[v->model];
    uint32_t uid = v->t->uid_base[v->model] + (uint32_t)tensor;
    if (kind == GG_VIEW_F32)
        return gg_read_f32(v->t->reader, m, &m->t[tensor], uid, buf, n, off, v->ra, e);
    return gg_read_half(v->t->reader, m, &m->t[tensor], uid, kind == GG_VIEW_BF16, buf, n, off, v->ra, e);
}

ssize_t gg_tree_read_ref(gg_tree *t, gg_ino ino, gg_open_file *of, char *buf, size_t size, uint64_t off,
                         gg_ref *ref, gg_err *err)
{
    gg_err local;
    gg_err *e = err ? err : &local;
    gg_ref_init(ref);
    gg_node *n = node_or_fail(t, ino, e);
    if (!n)
        return -1;
    const gg_model *m = t->models[n->model];
    ssize_t got;
    switch (n->content) {
    case GG_C_DIR:
    case GG_C_TENSOR_DIR:
        return gg_fail(e, GG_E_ISDIR, "%s: is a folder", n->name);
    case GG_C_RAW:
        got = gg_read_raw(t->reader, m, &m->t[n->arg], buf, size, off, e);
        if (got > 0) {
            ref->iov[0] = (struct iovec){buf, (size_t)got};
            ref->niov = 1;
        }
        break;
    case GG_C_F32:
        got = gg_read_f32_ref(t->reader, m, &m->t[n->arg], tensor_uid(t, n), buf, size, off, of ? &of->ra : NULL,
                              ref, e);
        break;
    case GG_C_F16:
    case GG_C_BF16:
        got = gg_read_half(t->reader, m, &m->t[n->arg], tensor_uid(t, n), n->content == GG_C_BF16, buf, size, off,
                           of ? &of->ra : NULL, e);
        if (got > 0) {
            ref->iov[0] = (struct iovec){buf, (size_t)got};
            ref->niov = 1;
        }
        break;
    case GG_C_F32_NPY:
    case GG_C_F16_NPY:
    case GG_C_SAFETENSORS: {
        gg_composite *c;
        if (comp_of(t, (uint32_t)(ino - 1), &c, e))
            return -1;
        view_ctx v = {t, n->model, of ? &of->ra : NULL};
        got = gg_composite_read(c, read_view, &v, buf, size, off, e);
        if (got > 0) {
            ref->iov[0] = (struct iovec){buf, (size_t)got};
            ref->niov = 1;
        }
        break;
    }
    case GG_C_CACHE_STATS: {
        gg_buf live = {0};
        cache_stats_text(t, &live);
        if (live.oom) {
            gg_buf_free(&live);
            return gg_fail(e, GG_E_NOMEM, "out of memory");
        }
        got = off < live.len ? (ssize_t)(size < live.len - off ? size : live.len - off) : 0;
        if (got > 0) {
            memcpy(buf, live.p + off, (size_t)got);
            ref->iov[0] = (struct iovec){buf, (size_t)got};
            ref->niov = 1;
        }
        gg_buf_free(&live);
        return got;
    }
    default: {
        gg_text *txt;
        /* A tensor's stats describe its bytes: not once they changed. */
        if (n->content == GG_C_STATS && gg_source_check(gg_tensor_source(m, &m->t[n->arg]), e)) {
            forget_model(t, n->model);
            return -1;
        }
        if (text_of(t, (uint32_t)(ino - 1), &txt, e))
            return -1;
        got = off < txt->len ? (ssize_t)(size < txt->len - off ? size : txt->len - off) : 0;
        if (got > 0) {
            /* Texts never change once made: no copy. */
            ref->iov[0] = (struct iovec){txt->data + off, (size_t)got};
            ref->niov = 1;
        }
        return got;
    }
    }
    if (got < 0 && e->code == GG_E_STALE)
        forget_model(t, n->model);
    return got;
}

void gg_tree_read_done(gg_tree *t, gg_ref *ref) { gg_ref_release(t->reader, ref); }

ssize_t gg_tree_read(gg_tree *t, gg_ino ino, gg_open_file *of, char *buf, size_t size, uint64_t off, gg_err *e)
{
    gg_ref ref;
    ssize_t got = gg_tree_read_ref(t, ino, of, buf, size, off, &ref, e);
    if (got <= 0)
        return got;
    size_t at = 0;
    for (int i = 0; i < ref.niov; i++) {
        if (ref.iov[i].iov_base != buf + at)
            memmove(buf + at, ref.iov[i].iov_base, ref.iov[i].iov_len);
        at += ref.iov[i].iov_len;
    }
    gg_tree_read_done(t, &ref);
    return got;
}

void gg_tree_totals(gg_tree *t, uint64_t *bytes, uint64_t *nodes)
{
    *bytes = 0;
    for (int i = 0; i < t->n_models; i++)
        *bytes += t->models[i]->size;
    *nodes = t->n;
}
