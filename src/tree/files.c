/* files.c - the table of a model tree's file kinds (see files.h).
 * layer: tree/
 *
 * The rows name what each file is made of; modeltree.c builds, sizes and
 * reads every file by its row's shape, with no case per file. A text of the
 * model alone is its text/ function in the row (RENDER); the text functions
 * below bind the others to theirs. */
#include "files.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "gguffs/compare.h"
#include "gguffs/hfconfig.h"
#include "gguffs/hfexport.h"
#include "gguffs/hftokenizer.h"
#include "gguffs/modeltext.h"
#include "gguffs/recipe.h"
#include "gguffs/stats.h"
#include "gguffs/summary.h"
#include "modeltree.h"

/* ---- texts: bounds (see MAX_TEXT in modeltree.c) ---- */

/* Rendering never writes more than 8 bytes per byte of a value ("false, "
 * for a bool, \u00XX for a control byte in JSON) and 6 per byte of a name. */
static uint64_t kv_estimate(const gg_model *m, uint64_t kv) { return 4096 + 8 * m->f->kv[kv].val_len; }
static uint64_t kv_bound(const gg_mtree *t, uint64_t kv) { return kv_estimate(t->m, kv); }

static uint64_t metadata_json_estimate(const gg_model *m)
{
    const gg_file *f = m->f;
    uint64_t b = 4096;
    for (uint64_t k = 0; k < f->n_kv; k++)
        b += 128 + 8 * f->kv[k].val_len + 6 * f->kv[k].key.len;
    return b;
}

static uint64_t metadata_json_bound(const gg_mtree *t, uint64_t arg) { return metadata_json_estimate(t->m); }

static uint64_t tensors_tsv_bound(const gg_mtree *t, uint64_t arg)
{
    const gg_model *m = t->m;
    uint64_t b = 4096;
    for (uint64_t k = 0; k < m->nt; k++)
        b += 256 + 8 * m->t[k].name_len + strlen(gg_tensor_source(m, &m->t[k])->name) * 4;
    return b;
}

static uint64_t summary_bound(const gg_mtree *t, uint64_t arg) { return 4096 + 128 * t->m->nt; }

static uint64_t as_why_bound(const gg_mtree *t, uint64_t arg)
{
    uint64_t b = 4096 + gg_recipe_count() * (GG_ERR_LEN + 64);
    for (uint64_t k = 0; k < t->m->nt; k++)
        b += GG_ERR_LEN + 64 + 4 * t->m->t[k].name_len;
    return b;
}

static uint64_t info_json_bound(const gg_mtree *t, uint64_t tensor) { return 4096 + 6 * t->m->t[tensor].name_len; }

/* config.json lists every layer's attention type; why a dozen reasons */
static uint64_t hf_config_bound(const gg_mtree *t, uint64_t arg) { return 8192 + 32 * t->m->nt; }
static uint64_t hf_why_bound(const gg_mtree *t, uint64_t arg) { return 16384 + 16 * GG_ERR_LEN; }
static uint64_t hf_tokenizer_bound(const gg_mtree *t, uint64_t arg) { return gg_hf_tokenizer_bound(t->m); }

/* ---- texts ---- */

/* The texts a header alone makes, as the presence checks below make them. */
static void kv_make(const gg_model *m, uint64_t kv, gg_buf *out) { gg_render_kv_text(m->f, &m->f->kv[kv], out); }
static void metadata_json_make(const gg_model *m, uint64_t arg, gg_buf *out) { gg_render_metadata_json(m->f, out); }
static void tokenizer_make(const gg_model *m, uint64_t config, gg_buf *out)
{
    (config ? gg_hf_tokenizer_config_json : gg_hf_tokenizer_json)(m, out);
}

static int kv_text(gg_mtree *t, uint64_t kv, gg_buf *out, gg_err *e)
{
    kv_make(t->m, kv, out);
    return 0;
}

static int metadata_json(gg_mtree *t, uint64_t arg, gg_buf *out, gg_err *e)
{
    metadata_json_make(t->m, 0, out);
    return 0;
}

/* tensors.tsv names each tensor's folder as the tree does (escaped, unique). */
static int tensors_tsv(gg_mtree *t, uint64_t arg, gg_buf *out, gg_err *e)
{
    const gg_node *td = &t->nodes[t->tensors_dir];
    char **names = malloc((td->n_children ? td->n_children : 1) * sizeof *names);
    if (!names) {
        out->oom = 1;
        return 0;
    }
    for (uint32_t k = 0; k < td->n_children; k++)
        names[k] = t->nodes[td->first_child + k].name;
    gg_tensors_tsv(t->m, names, out);
    free(names);
    return 0;
}

static int info_json(gg_mtree *t, uint64_t tensor, gg_buf *out, gg_err *e)
{
    gg_tensor_info_json(t->m, &t->m->t[tensor], out);
    return 0;
}

/* A key made in metadata/ but not written yet: empty. */
static int newkey_text(gg_mtree *t, uint64_t arg, gg_buf *out, gg_err *e) { return 0; }

/* A side file (an Ollama layer: template, params, ...): its bytes. */
static int side_text(gg_mtree *t, uint64_t side, gg_buf *out, gg_err *e)
{
    gg_buf_put(out, t->m->sides[side].bytes, t->m->sides[side].len);
    return 0;
}

static uint64_t side_bound(const gg_mtree *t, uint64_t side) { return t->m->sides[side].len; }

/* as/hf/: its texts need the model's Hugging Face plan (hfplan.h) */

static int hf_config(gg_mtree *t, uint64_t arg, gg_buf *out, gg_err *e)
{
    static const char *const dtypes[] = {"float32", "float16", "bfloat16"};
    gg_hf_plan *p = gg_hf_plan_new(t->m);
    if (!p)
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    gg_hf_rope rope;
    const char *why;
    /* (the factors could be read when the tree was built: a failure now is
     * the file changed) */
    int rc = gg_hf_rope_read(t->m, p, &rope, &why, e);
    if (rc == 0)
        gg_hf_config_json(t->m, p, dtypes[t->o.safetensors_dtype < 3 ? t->o.safetensors_dtype : 0], &rope, out);
    gg_hf_plan_free(p);
    return rc;
}

static int tokenizer_fits(const gg_model *m);

static int hf_why(gg_mtree *t, uint64_t arg, gg_buf *out, gg_err *e)
{
    gg_hf_plan *p = gg_hf_plan_new(t->m);
    if (!p)
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    gg_hf_rope rope;
    const char *why = NULL;
    gg_err local;
    int rc = gg_hf_rope_read(t->m, p, &rope, &why, &local);
    gg_hf_why(t->m, p, rc ? why : NULL, out);
    gg_hf_plan_free(p);
    if (gg_hf_tokenizer_ok(t->m, NULL) == 1 && !tokenizer_fits(t->m))
        gg_buf_printf(out, "no tokenizer files:\ntokenizer.json or tokenizer_config.json is more than %llu MiB "
                           "of text\n", GG_MAX_TEXT >> 20);
    return 0;
}

static int stats(gg_mtree *t, uint64_t tensor, gg_buf *out, gg_err *e)
{
    return gg_tensor_stats(t->reader, t->m, &t->m->t[tensor], out, e);
}

/* ---- a comparison's texts (vs/<ref>/): figures of every pair, computed
 * on first read; their sizes from the texts without figures ---- */

enum { VS_TSV, VS_SUMMARY, VS_JSON };

static int vs_text(gg_mtree *t, int which, int figures, gg_buf *out, gg_err *e)
{
    gg_cmp_side a = {t->reader, t->m, t->uid_base, NULL}, r = {t->reader, t->ref, t->ref_uid_base, NULL};
    if (figures && gg_cmp_compute_all(t->cmp, &a, &r, e))
        return -1;
    gg_cmp_table tb;
    if (gg_cmp_table_make(t->cmp, t->m, t->ref, figures, &tb, e))
        return -1;
    if (which == VS_TSV)
        gg_compare_tsv(&tb, out);
    else if (which == VS_SUMMARY)
        gg_compare_summary(&tb, out);
    else
        gg_compare_summary_json(&tb, out);
    gg_cmp_table_free(&tb);
    return out->oom ? gg_fail(e, GG_E_NOMEM, "out of memory") : 0;
}

static int vs_size(gg_mtree *t, int which, uint64_t *size, gg_err *e)
{
    gg_buf b = {0};
    int rc = vs_text(t, which, 0, &b, e);
    *size = b.len;
    gg_buf_free(&b);
    return rc;
}

static int vs_tsv(gg_mtree *t, uint64_t arg, gg_buf *out, gg_err *e) { return vs_text(t, VS_TSV, 1, out, e); }
static int vs_summary(gg_mtree *t, uint64_t arg, gg_buf *out, gg_err *e) { return vs_text(t, VS_SUMMARY, 1, out, e); }
static int vs_json(gg_mtree *t, uint64_t arg, gg_buf *out, gg_err *e) { return vs_text(t, VS_JSON, 1, out, e); }
static int vs_tsv_size(gg_mtree *t, uint64_t arg, uint64_t *n, gg_err *e) { return vs_size(t, VS_TSV, n, e); }
static int vs_summary_size(gg_mtree *t, uint64_t arg, uint64_t *n, gg_err *e) { return vs_size(t, VS_SUMMARY, n, e); }
static int vs_json_size(gg_mtree *t, uint64_t arg, uint64_t *n, gg_err *e) { return vs_size(t, VS_JSON, n, e); }

/* A line per tensor of either model, each at most its name escaped and a
 * note naming two shapes. */
static uint64_t vs_bound(const gg_mtree *t, uint64_t arg)
{
    uint64_t b = 4096;
    for (uint64_t k = 0; k < t->m->nt; k++)
        b += 512 + 8 * t->m->t[k].name_len;
    for (uint64_t k = 0; k < t->ref->nt; k++)
        b += 512 + 8 * t->ref->t[k].name_len;
    return b;
}

/* ---- composites ---- */

static gg_composite *npy(const gg_mtree *t, const gg_file_kind *k, uint64_t tensor, gg_err *e)
{
    return gg_export_npy(t->m, tensor, k->view, e);
}

static gg_composite *safetensors(const gg_mtree *t, const gg_file_kind *k, uint64_t arg, gg_err *e)
{
    return gg_export_safetensors(t->m, (gg_view_kind)t->o.safetensors_dtype, e);
}

static gg_composite *model_gguf(const gg_mtree *t, const gg_file_kind *k, uint64_t arg, gg_err *e)
{
    return gg_export_gguf(t->m, e);
}

/* as/<recipe>.gguf */
static gg_composite *recipe_gguf(const gg_mtree *t, const gg_file_kind *k, uint64_t recipe, gg_err *e)
{
    return gg_export_recipe(t->m, gg_recipe_at(recipe), e);
}

/* as/hf/model.safetensors: HF names and row order, -o safetensors_dtype */
static gg_composite *hf_safetensors(const gg_mtree *t, const gg_file_kind *k, uint64_t arg, gg_err *e)
{
    gg_hf_plan *p = gg_hf_plan_new(t->m);
    if (!p) {
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    gg_composite *c = gg_export_hf_safetensors(t->m, p, (gg_view_kind)t->o.safetensors_dtype, e);
    gg_hf_plan_free(p);
    return c;
}

/* ---- presence ---- */

/* Does a text the header alone makes fit in GG_MAX_TEXT? Surely when its
 * estimate does; else (a 72 MiB chat template is 576 MiB by the estimate)
 * it is made once to know. A text that does not fit is not listed (the log
 * says so): listed, it could only fail, and break cp -r, tar and rsync. */
static int fits(const gg_model *m, uint64_t estimate, void (*make)(const gg_model *, uint64_t, gg_buf *),
                uint64_t arg, const char *what, const char *key, size_t klen)
{
    if (estimate <= GG_MAX_TEXT)
        return 1;
    gg_buf b = {.max = GG_MAX_TEXT};
    make(m, arg, &b);
    int over = b.over;
    gg_buf_free(&b);
    if (over)
        gg_log("%s: %s%.*s not listed: more than %llu MiB of text", m->path, what, (int)(klen > 200 ? 200 : klen),
               key, GG_MAX_TEXT >> 20);
    return !over;
}

static int kv_fits(const gg_model *m, uint64_t kv)
{
    const gg_kv *k = &m->f->kv[kv];
    return fits(m, kv_estimate(m, kv), kv_make, kv, "metadata/", gg_str_ptr(m->f, k->key), k->key.len);
}

static int metadata_json_fits(const gg_model *m, uint64_t arg)
{
    return fits(m, metadata_json_estimate(m), metadata_json_make, 0, "metadata.json", "", 0);
}

static int tokenizer_fits(const gg_model *m)
{
    uint64_t est = gg_hf_tokenizer_bound(m);
    return fits(m, est, tokenizer_make, 0, "as/hf/tokenizer.json", "", 0) &&
           fits(m, est, tokenizer_make, 1, "as/hf/tokenizer_config.json", "", 0);
}

/* Files that could only fail (EIO) would break cp -r and tar of a mount. */
static int decodable(const gg_model *m, uint64_t tensor) { return gg_tensor_decodable(&m->t[tensor]); }

/* as/: the recipes the model can take (recipe.h), worked out once per
 * build as hf/'s facts are (below): the presence of the as/ row itself
 * works it out, and its rows, asked next by the same thread while as/ is
 * built, read the answer. */
static _Thread_local struct {
    const gg_model *m;
    uint64_t ok; /* bit i: recipe i */
} as_last;

static int as_dir(const gg_model *m, uint64_t arg)
{
    gg_recipes_possible(m, &as_last.ok, NULL, NULL); /* (out of memory: none) */
    as_last.m = m;
    return 1;
}

static uint64_t recipes_ok(const gg_model *m)
{
    if (as_last.m != m)
        as_dir(m, 0);
    return as_last.ok;
}

static int recipe_ok(const gg_model *m, uint64_t recipe) { return (recipes_ok(m) >> recipe) & 1; }

/* as/why: some recipe the model cannot take */
static int recipe_missing(const gg_model *m, uint64_t arg)
{
    return recipes_ok(m) != (gg_recipe_count() < 64 ? (1ull << gg_recipe_count()) - 1 : ~0ull);
}

/* as/hf/: the weights when the plan accounts for every tensor; the
 * tokenizer files when the vocabulary can be written; why otherwise.
 * Working that out reads the whole vocabulary, so it is done once per
 * build: the presence of the hf/ row itself (asked first, always there)
 * works it out, and its rows, asked next by the same thread while hf/ is
 * built, read the answer. */
typedef struct hf_facts {
    const gg_model *m;
    int weights, vocab, why;
} hf_facts;
static _Thread_local hf_facts hf_last;

static int hf_dir(const gg_model *m, uint64_t arg)
{
    gg_hf_plan *p = gg_hf_plan_new(m);
    int tok = gg_hf_tokenizer_ok(m, NULL);
    gg_hf_rope rope;
    const char *rope_why = NULL;
    gg_err e;
    int rope_bad = p && gg_hf_rope_read(m, p, &rope, &rope_why, &e) != 0;
    int tok_big = tok == 1 && !tokenizer_fits(m);
    hf_last.m = m;
    hf_last.weights = p && !p->why && !p->vocab_only && !rope_bad;
    hf_last.vocab = tok == 1 && !tok_big;
    /* a vocabulary file has no weights to miss */
    hf_last.why = !p || p->why || rope_bad || tok == 0 || (tok < 0 && !p->vocab_only) || tok_big;
    gg_hf_plan_free(p);
    return 1;
}

static const hf_facts *hf_facts_of(const gg_model *m)
{
    if (hf_last.m != m)
        hf_dir(m, 0);
    return &hf_last;
}

static int hf_weights(const gg_model *m, uint64_t arg) { return hf_facts_of(m)->weights; }
static int hf_vocab(const gg_model *m, uint64_t arg) { return hf_facts_of(m)->vocab; }
static int hf_missing(const gg_model *m, uint64_t arg) { return hf_facts_of(m)->why; }

/* ---- the table ---- */

#define MODEL(n) .name = n, .scope = GG_FK_MODEL
#define TENSOR(n) .name = n, .scope = GG_FK_TENSOR
#define AS(n) .name = n, .scope = GG_FK_AS
#define HF(n) .name = n, .scope = GG_FK_HF
#define VS(n) .name = n, .scope = GG_FK_VS
#define VS_TENSOR(n) .name = n, .scope = GG_FK_VS_TENSOR
#define DIR(fn) .shape = GG_FS_DIR, .build = fn
#define ROWS(scope) .shape = GG_FS_DIR, .build = gg_mtree_build_rows, .holds = scope
#define TEXT(fn, b) .shape = GG_FS_TEXT, .text = fn, .bound = b
#define RENDER(fn, b) .shape = GG_FS_TEXT, .render = fn, .bound = b
#define VIEW(v) .shape = GG_FS_VIEW, .view = v
#define COMPOSITE(fn) .shape = GG_FS_COMPOSITE, .segments = fn

const gg_file_kind gg_files[] = {
    {MODEL("metadata"), DIR(gg_mtree_build_kvs)},
    {MODEL("metadata.json"), TEXT(metadata_json, metadata_json_bound), .present = metadata_json_fits},
    {MODEL("tensors"), DIR(gg_mtree_build_tensors)},
    {MODEL("tensors.tsv"), TEXT(tensors_tsv, tensors_tsv_bound)},
    {MODEL("types.tsv"), RENDER(gg_types_tsv, NULL)},
    {MODEL("summary"), RENDER(gg_summary_text, summary_bound)},
    {MODEL("summary.json"), RENDER(gg_summary_json, summary_bound)},
    /* (its view is -o safetensors_dtype, in t->o) */
    {MODEL("model.safetensors"), COMPOSITE(safetensors), .flags = GG_FF_DATA},
    {MODEL("model.gguf"), COMPOSITE(model_gguf), .view = GG_VIEW_RAW, .flags = GG_FF_DATA},
    {MODEL("blocks"), DIR(gg_mtree_build_blocks)},
    {MODEL("as"), DIR(gg_mtree_build_as), .holds = GG_FK_AS, .present = as_dir},
    /* (its folders are the mount's other models, served by tree_vs.c: no
     * row describes them, so it is built empty) */
    {MODEL("vs"), DIR(gg_mtree_build_none), .flags = GG_FF_VS},

    /* as/<recipe>.gguf, the recipes of -o as= listed, the others found by name */
    {.scope = GG_FK_RECIPE, COMPOSITE(recipe_gguf), .flags = GG_FF_DATA, .present = recipe_ok},
    {AS("why"), RENDER(gg_as_why, as_why_bound), .present = recipe_missing},
    {AS("hf"), ROWS(GG_FK_HF), .present = hf_dir},

    {HF("config.json"), TEXT(hf_config, hf_config_bound), .present = hf_weights},
    {HF("generation_config.json"), RENDER(gg_hf_generation_config_json, NULL), .present = hf_weights},
    /* (its view is -o safetensors_dtype, in t->o) */
    {HF("model.safetensors"), COMPOSITE(hf_safetensors), .flags = GG_FF_DATA, .present = hf_weights},
    {HF("tokenizer.json"), RENDER(gg_hf_tokenizer_json, hf_tokenizer_bound), .present = hf_vocab},
    {HF("tokenizer_config.json"), RENDER(gg_hf_tokenizer_config_json, hf_tokenizer_bound), .present = hf_vocab},
    {HF("special_tokens_map.json"), RENDER(gg_hf_special_tokens_map_json, NULL), .present = hf_vocab},
    {HF("why"), TEXT(hf_why, hf_why_bound), .present = hf_missing},

    {TENSOR("raw"), VIEW(GG_VIEW_RAW), .flags = GG_FF_DATA | GG_FF_STORED},
    {TENSOR("f32"), VIEW(GG_VIEW_F32), .flags = GG_FF_DATA, .present = decodable},
    {TENSOR("f32.npy"), COMPOSITE(npy), .view = GG_VIEW_F32, .flags = GG_FF_DATA, .present = decodable},
    {TENSOR("f16"), VIEW(GG_VIEW_F16), .flags = GG_FF_DATA, .present = decodable},
    {TENSOR("f16.npy"), COMPOSITE(npy), .view = GG_VIEW_F16, .flags = GG_FF_DATA, .present = decodable},
    {TENSOR("bf16"), VIEW(GG_VIEW_BF16), .flags = GG_FF_DATA, .present = decodable},
    {TENSOR("info.json"), TEXT(info_json, info_json_bound)},
    {TENSOR("stats"), TEXT(stats, NULL), .fixed_size = GG_STATS_BYTES, .flags = GG_FF_CHECK, .present = decodable},

    {.scope = GG_FK_KV, TEXT(kv_text, kv_bound), .present = kv_fits},
    {.scope = GG_FK_NEWKEY, TEXT(newkey_text, NULL)},
    {.scope = GG_FK_SIDE, TEXT(side_text, side_bound)},

    /* vs/<ref>/: this model against ref; its files read this model's
     * tensors (and ref's) through a comparison (compare.h), whose "view"
     * of a tensor is the difference, this - ref */
    {VS("tensors.tsv"), TEXT(vs_tsv, vs_bound), .sized = vs_tsv_size, .flags = GG_FF_CHECK},
    {VS("summary"), TEXT(vs_summary, vs_bound), .sized = vs_summary_size, .flags = GG_FF_CHECK},
    {VS("summary.json"), TEXT(vs_json, vs_bound), .sized = vs_json_size, .flags = GG_FF_CHECK},
    {VS("tensors"), DIR(gg_mtree_build_vs_tensors)},
    {VS_TENSOR("diff"), VIEW(GG_VIEW_F32), .flags = GG_FF_DATA},
    {VS_TENSOR("diff.npy"), COMPOSITE(npy), .view = GG_VIEW_F32, .flags = GG_FF_DATA},
};
const size_t gg_n_files = sizeof gg_files / sizeof gg_files[0];
_Static_assert(sizeof gg_files / sizeof gg_files[0] <= 255, "a node holds its row in a byte");

size_t gg_files_in_scope(gg_fscope scope)
{
    size_t n = 0;
    for (size_t i = 0; i < gg_n_files; i++)
        n += gg_files[i].scope == scope;
    return n;
}

size_t gg_files_dirs_in_scope(gg_fscope scope)
{
    size_t n = 0;
    for (size_t i = 0; i < gg_n_files; i++)
        n += gg_files[i].scope == scope && gg_files[i].shape == GG_FS_DIR;
    return n;
}
