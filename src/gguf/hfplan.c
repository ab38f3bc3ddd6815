/* hfplan.c - a GGUF model as its Hugging Face checkpoint (see hfplan.h).
 *
 * The names are the inverse of gguf-py's tensor_mapping.py for the
 * supported architectures; the transforms undo convert_hf_to_gguf.py's
 * (conversion/llama.py permute, conversion/gemma.py "+ 1" on norms, the
 * expert stacking of conversion/qwen.py and llama.py). */
#include "gguffs/hfplan.h"

#include <ctype.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/buf.h"
#include "gguffs/kvget.h"

/* ---- the architectures ---- */

enum {
    V_LLAMA = 1 << GG_HF_LLAMA, V_MISTRAL = 1 << GG_HF_MISTRAL, V_MIXTRAL = 1 << GG_HF_MIXTRAL,
    V_QWEN2 = 1 << GG_HF_QWEN2, V_QWEN3 = 1 << GG_HF_QWEN3, V_QWEN2MOE = 1 << GG_HF_QWEN2MOE,
    V_QWEN3MOE = 1 << GG_HF_QWEN3MOE, V_GEMMA = 1 << GG_HF_GEMMA, V_GEMMA2 = 1 << GG_HF_GEMMA2,
    V_GEMMA3 = 1 << GG_HF_GEMMA3, V_PHI3 = 1 << GG_HF_PHI3,
};
#define LLAMAS (V_LLAMA | V_MISTRAL)
#define PERMUTED (LLAMAS | V_MIXTRAL) /* q/k rows permuted by the converter */
#define GEMMAS (V_GEMMA2 | V_GEMMA3)  /* norms before and after attention and MLP */
#define SHIFTED (V_GEMMA | GEMMAS)    /* norms stored with 1 added */
#define QWENMOE (V_QWEN2MOE | V_QWEN3MOE)
#define QKNORM (V_QWEN3 | V_QWEN3MOE | V_GEMMA3)
#define DENSE (LLAMAS | V_QWEN2 | V_QWEN3 | SHIFTED)
#define ALL 0xffe
#define NOTPHI (ALL & ~V_PHI3)
/* classes whose attention_bias puts a bias on q, k, v and o */
#define OPT_BIAS (LLAMAS | V_QWEN3 | V_QWEN3MOE)

static const struct variant {
    gg_hf_variant v;
    const char *cls, *type;
} variants[] = {
    {GG_HF_LLAMA, "LlamaForCausalLM", "llama"},
    {GG_HF_MISTRAL, "MistralForCausalLM", "mistral"},
    {GG_HF_MIXTRAL, "MixtralForCausalLM", "mixtral"},
    {GG_HF_QWEN2, "Qwen2ForCausalLM", "qwen2"},
    {GG_HF_QWEN3, "Qwen3ForCausalLM", "qwen3"},
    {GG_HF_QWEN2MOE, "Qwen2MoeForCausalLM", "qwen2_moe"},
    {GG_HF_QWEN3MOE, "Qwen3MoeForCausalLM", "qwen3_moe"},
    {GG_HF_GEMMA, "GemmaForCausalLM", "gemma"},
    {GG_HF_GEMMA2, "Gemma2ForCausalLM", "gemma2"},
    {GG_HF_GEMMA3, "Gemma3ForCausalLM", "gemma3_text"},
    {GG_HF_PHI3, "Phi3ForCausalLM", "phi3"},
};

#define SUPPORTED "llama, mistral, mixtral, qwen2, qwen3, qwen2moe, qwen3moe, gemma, gemma2, gemma3, phi3"

/* ---- the tensors of a layer ---- */

typedef enum kind {
    K_NORM,    /* 1-D; gemma's had 1 added */
    K_LINEAR,  /* a 2-D weight [out, in] (or its 1-D bias) */
    K_Q,       /* attn_q: rows permuted per head (llama) */
    K_K,       /* attn_k: the same with the KV heads */
    K_EXPERTS, /* 3-D [n_expert, out, in]: one 2-D weight per expert */
    K_GATE_UP, /* 3-D, each expert's gate rows then its up rows */
    K_ROW,     /* a 1-D weight HF keeps as one row [1, n] (shared_expert_gate) */
} kind;

/* blk.N.<gguf>.weight / .bias -> model.layers.N.<hf>.weight / .bias, in the
 * variants of `weight` (required in every layer for `weight_req`), biases
 * in those of `bias` (`bias_req`). Experts' hf names take the expert's
 * number for %u. The first row whose name and variant match is used. */
typedef struct layer_row {
    const char *gguf, *hf;
    uint8_t kind;
    uint32_t weight, weight_req, bias, bias_req;
} layer_row;

static const layer_row layer_rows[] = {
    {"attn_norm", "input_layernorm", K_NORM, ALL, ALL, 0, 0},
    {"attn_q", "self_attn.q_proj", K_Q, NOTPHI, NOTPHI, OPT_BIAS | V_QWEN2 | V_QWEN2MOE, V_QWEN2 | V_QWEN2MOE},
    {"attn_k", "self_attn.k_proj", K_K, NOTPHI, NOTPHI, OPT_BIAS | V_QWEN2 | V_QWEN2MOE, V_QWEN2 | V_QWEN2MOE},
    {"attn_v", "self_attn.v_proj", K_LINEAR, NOTPHI, NOTPHI, OPT_BIAS | V_QWEN2 | V_QWEN2MOE,
     V_QWEN2 | V_QWEN2MOE},
    {"attn_qkv", "self_attn.qkv_proj", K_LINEAR, V_PHI3, V_PHI3, 0, 0},
    {"attn_output", "self_attn.o_proj", K_LINEAR, ALL, ALL, OPT_BIAS, 0},
    {"attn_q_norm", "self_attn.q_norm", K_NORM, QKNORM, QKNORM, 0, 0},
    {"attn_k_norm", "self_attn.k_norm", K_NORM, QKNORM, QKNORM, 0, 0},
    {"post_attention_norm", "post_attention_layernorm", K_NORM, GEMMAS, GEMMAS, 0, 0},
    {"ffn_norm", "pre_feedforward_layernorm", K_NORM, GEMMAS, GEMMAS, 0, 0},
    {"ffn_norm", "post_attention_layernorm", K_NORM, ALL, ALL, 0, 0},
    {"post_ffw_norm", "post_feedforward_layernorm", K_NORM, GEMMAS, GEMMAS, 0, 0},
    {"ffn_gate", "mlp.gate_proj", K_LINEAR, DENSE, DENSE, 0, 0},
    {"ffn_up", "mlp.gate_up_proj", K_LINEAR, V_PHI3, V_PHI3, 0, 0},
    {"ffn_up", "mlp.up_proj", K_LINEAR, DENSE, DENSE, 0, 0},
    {"ffn_down", "mlp.down_proj", K_LINEAR, DENSE | V_PHI3, DENSE | V_PHI3, 0, 0},
    {"ffn_gate_inp", "block_sparse_moe.gate", K_LINEAR, V_MIXTRAL, V_MIXTRAL, 0, 0},
    {"ffn_gate_inp", "mlp.gate", K_LINEAR, QWENMOE, QWENMOE, 0, 0},
    /* gate and up experts: stacked apart, or fused (checked below) */
    {"ffn_gate_exps", "block_sparse_moe.experts.%u.w1", K_EXPERTS, V_MIXTRAL, 0, 0, 0},
    {"ffn_up_exps", "block_sparse_moe.experts.%u.w3", K_EXPERTS, V_MIXTRAL, 0, 0, 0},
    {"ffn_down_exps", "block_sparse_moe.experts.%u.w2", K_EXPERTS, V_MIXTRAL, V_MIXTRAL, 0, 0},
    {"ffn_gate_up_exps", "block_sparse_moe.experts.%u.w1\0block_sparse_moe.experts.%u.w3", K_GATE_UP, V_MIXTRAL,
     0, 0, 0},
    {"ffn_gate_exps", "mlp.experts.%u.gate_proj", K_EXPERTS, QWENMOE, 0, 0, 0},
    {"ffn_up_exps", "mlp.experts.%u.up_proj", K_EXPERTS, QWENMOE, 0, 0, 0},
    {"ffn_down_exps", "mlp.experts.%u.down_proj", K_EXPERTS, QWENMOE, QWENMOE, 0, 0},
    {"ffn_gate_up_exps", "mlp.experts.%u.gate_proj\0mlp.experts.%u.up_proj", K_GATE_UP, QWENMOE, 0, 0, 0},
    {"ffn_gate_shexp", "mlp.shared_expert.gate_proj", K_LINEAR, V_QWEN2MOE, V_QWEN2MOE, 0, 0},
    {"ffn_up_shexp", "mlp.shared_expert.up_proj", K_LINEAR, V_QWEN2MOE, V_QWEN2MOE, 0, 0},
    {"ffn_down_shexp", "mlp.shared_expert.down_proj", K_LINEAR, V_QWEN2MOE, V_QWEN2MOE, 0, 0},
    {"ffn_gate_inp_shexp", "mlp.shared_expert_gate", K_ROW, V_QWEN2MOE, V_QWEN2MOE, 0, 0},
};
#define N_ROWS (sizeof layer_rows / sizeof layer_rows[0])

static const layer_row *find_row(const char *base, size_t n, uint32_t v)
{
    for (size_t i = 0; i < N_ROWS; i++)
        if (strlen(layer_rows[i].gguf) == n && !memcmp(layer_rows[i].gguf, base, n) && (layer_rows[i].weight & v))
            return &layer_rows[i];
    return NULL;
}

/* ---- building ---- */

#define MAX_WHY_LINES 12
#define MAX_LAYERS 512   /* llama.cpp's LLAMA_MAX_LAYERS */
#define MAX_EXPERTS 1024 /* llama.cpp's LLAMA_MAX_EXPERTS */
#define MAX_HEADS 4096

typedef struct builder {
    gg_hf_plan *p;
    const gg_model *m;
    size_t cap_t, cap_p;
    gg_buf why;
    unsigned n_why;
    int oom;
    int longrope; /* rope.scaling.type says longrope (phi-3) */
} builder;

static void why(builder *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void why(builder *b, const char *fmt, ...)
{
    if (++b->n_why > MAX_WHY_LINES)
        return;
    va_list ap;
    va_start(ap, fmt);
    char *s = gg_vxprintf(fmt, ap);
    va_end(ap);
    if (!s) {
        b->oom = 1;
        return;
    }
    gg_buf_puts(&b->why, s);
    gg_buf_puts(&b->why, "\n");
    free(s);
}

/* A new HF tensor of shape dims (HF order); its pieces follow. */
static gg_hf_tensor *add_tensor(builder *b, char *name, uint32_t n_dims, uint64_t d0, uint64_t d1)
{
    gg_hf_plan *p = b->p;
    if (!name || gg_grow((void **)&p->t, &b->cap_t, p->nt, sizeof *p->t, 64)) {
        free(name);
        b->oom = 1;
        return NULL;
    }
    gg_hf_tensor *t = &p->t[p->nt++];
    memset(t, 0, sizeof *t);
    t->name = name;
    t->n_dims = n_dims;
    t->shape[0] = d0;
    t->shape[1] = n_dims > 1 ? d1 : 1;
    t->nelems = d0 * t->shape[1];
    t->piece0 = p->np;
    return t;
}

static void add_piece(builder *b, gg_hf_tensor *t, uint64_t tensor, uint64_t from, uint64_t row, uint64_t rows,
                      uint64_t stride, gg_hf_xform x)
{
    gg_hf_plan *p = b->p;
    if (!t || gg_grow((void **)&p->p, &b->cap_p, p->np, sizeof *p->p, 64)) {
        b->oom = 1;
        return;
    }
    p->p[p->np++] = (gg_hf_piece){tensor, from, row, rows, stride, (uint8_t)x};
    t->npieces++;
}

/* The tensor's values as they are (or minus one). */
static void plain(builder *b, uint64_t i, char *name, uint32_t n_dims, uint64_t d0, uint64_t d1, gg_hf_xform x)
{
    gg_hf_tensor *t = add_tensor(b, name, n_dims, d0, d1);
    if (t)
        add_piece(b, t, i, 0, t->nelems, 1, t->nelems, x);
}

/* Undo the rope permutation of attn_q / attn_k (weight or bias): the
 * converter's row of head h, pair j, half k (h*hd + 2j + k) was the HF row
 * h*hd + k*hd/2 + j, so each half of a head is every other row. */
static void unpermute(builder *b, uint64_t i, char *name, const gg_tinfo *ti, uint64_t heads)
{
    int bias = ti->n_dims == 1;
    uint64_t rows = bias ? ti->ne[0] : ti->ne[1], rowlen = bias ? 1 : ti->ne[0];
    gg_hf_tensor *t = add_tensor(b, name, bias ? 1 : 2, rows, rowlen);
    if (!t)
        return;
    uint64_t hd = rows / heads;
    for (uint64_t h = 0; h < heads; h++)
        for (uint64_t k = 0; k < 2; k++)
            add_piece(b, t, i, (h * hd + k) * rowlen, rowlen, hd / 2, 2 * rowlen, GG_HF_PLAIN);
}

/* model.layers.N.<hf with the expert's number> */
static char *expert_name(uint64_t layer, const char *fmt, uint64_t e, const char *suffix)
{
    char mid[128];
    snprintf(mid, sizeof mid, fmt, (unsigned)e);
    return gg_xprintf("model.layers.%" PRIu64 ".%s.%s", layer, mid, suffix);
}

/* ---- figures ---- */

static const gg_kv *akv(const builder *b, const char *suffix) { return gg_kv_get(b->m->f, b->p->arch, suffix); }

/* A per-model figure "<arch>.<suffix>": one value (an array of equal
 * values counts as one); 0 and *v, 1 when missing (*v = dflt), -1 when
 * it varies per layer or is not a count. */
static int figure(builder *b, const char *suffix, uint64_t dflt, uint64_t *v)
{
    const gg_file *f = b->m->f;
    const gg_kv *kv = akv(b, suffix);
    *v = dflt;
    if (!kv)
        return 1;
    uint32_t ty;
    uint64_t n;
    const uint8_t *d;
    if (gg_kv_arr(f, kv, &ty, &n, &d) == 0) {
        if (!n || ty == GG_VT_F32 || ty == GG_VT_F64)
            return -1;
        for (uint64_t i = 1; i < n; i++)
            if (gg_kv_arr_int(ty, d, i) != gg_kv_arr_int(ty, d, 0))
                return -1;
        int64_t x = gg_kv_arr_int(ty, d, 0);
        if (x < 0)
            return -1;
        *v = (uint64_t)x;
        return 0;
    }
    return gg_kv_uint(f, kv, v) ? -1 : 0;
}

static int need_figure(builder *b, const char *suffix, uint64_t dflt, uint64_t *v, int required)
{
    int r = figure(b, suffix, dflt, v);
    if (r < 0)
        why(b, "%s.%s differs between layers (the Hugging Face config has one value)", b->p->arch, suffix);
    else if (r > 0 && required)
        why(b, "%s.%s is missing", b->p->arch, suffix);
    return r < 0 || (r > 0 && required);
}

/* ---- the plan ---- */

static int name_is(const gg_tensor *t, const char *s)
{
    return t->name_len == strlen(s) && !memcmp(t->name, s, t->name_len);
}

/* "blk.N.<base>.<weight|bias>": the layer, the base and which suffix. */
static int parse_layer_name(const gg_tensor *t, uint64_t *layer, const char **base, size_t *blen, int *bias)
{
    const char *s = t->name, *end = s + t->name_len;
    if (t->name_len < 6 || memcmp(s, "blk.", 4) || !isdigit((unsigned char)s[4]))
        return -1;
    const char *q = s + 4;
    uint64_t v = 0;
    while (q < end && isdigit((unsigned char)*q) && v < 1000000)
        v = v * 10 + (uint64_t)(*q++ - '0');
    if (q >= end || *q != '.' || (s[4] == '0' && q > s + 5))
        return -1;
    q++;
    size_t rest = (size_t)(end - q);
    if (rest > 7 && !memcmp(end - 7, ".weight", 7)) {
        *bias = 0;
        *blen = rest - 7;
    } else if (rest > 5 && !memcmp(end - 5, ".bias", 5)) {
        *bias = 1;
        *blen = rest - 5;
    } else {
        return -1;
    }
    *layer = v;
    *base = q;
    return 0;
}

/* A tensor's name for a line of why: control bytes and backslash escaped
 * as \xHH, at most 200 bytes of it. */
#define SHOWN 1024
static const char *shown(const gg_tensor *t, char out[SHOWN])
{
    size_t k = 0;
    for (uint64_t i = 0; i < t->name_len && i < 200; i++) {
        unsigned char c = (unsigned char)t->name[i];
        if (c < 0x20 || c == 0x7f || c == '\\')
            k += (size_t)snprintf(out + k, SHOWN - k, "\\x%02x", c);
        else
            out[k++] = (char)c;
    }
    if (t->name_len > 200)
        k += (size_t)snprintf(out + k, SHOWN - k, "...");
    out[k] = 0;
    return out;
}

static void shape_str(const gg_tinfo *ti, char *out, size_t cap)
{
    int k = snprintf(out, cap, "[");
    for (uint32_t d = 0; d < ti->n_dims && k > 0 && (size_t)k < cap; d++)
        k += snprintf(out + k, cap - (size_t)k, "%s%" PRIu64, d ? ", " : "", ti->ne[d]);
    if (k > 0 && (size_t)k < cap)
        snprintf(out + k, cap - (size_t)k, "]");
}

static void bad_shape(builder *b, const gg_tensor *t, const char *want)
{
    char s[96];
    shape_str(t->info, s, sizeof s);
    char nm[SHOWN];
    why(b, "%s has dims %s (ggml order); expected %s", shown(t, nm), s, want);
}

/* One tensor of a layer, by its row. */
static void layer_tensor(builder *b, uint64_t i, uint64_t layer, const layer_row *r, int bias)
{
    const gg_tensor *t = &b->m->t[i];
    const gg_tinfo *ti = t->info;
    gg_hf_plan *p = b->p;
    uint32_t v = 1u << p->variant;
    const char *suffix = bias ? "bias" : "weight";
    char *name = NULL;
    switch (r->kind) {
    case K_NORM:
        if (ti->n_dims != 1)
            return bad_shape(b, t, "1 dimension");
        name = gg_xprintf("model.layers.%" PRIu64 ".%s.%s", layer, r->hf, suffix);
        return plain(b, i, name, 1, ti->ne[0], 1, (v & SHIFTED) ? GG_HF_MINUS_ONE : GG_HF_PLAIN);
    case K_ROW:
        if (!(ti->n_dims == 1 || (ti->n_dims == 2 && ti->ne[1] == 1)))
            return bad_shape(b, t, "[n] or [n, 1]");
        name = gg_xprintf("model.layers.%" PRIu64 ".%s.%s", layer, r->hf, suffix);
        return plain(b, i, name, 2, 1, ti->ne[0], GG_HF_PLAIN);
    case K_LINEAR:
    case K_Q:
    case K_K: {
        if (ti->n_dims != (bias ? 1u : 2u))
            return bad_shape(b, t, bias ? "1 dimension" : "2 dimensions");
        name = gg_xprintf("model.layers.%" PRIu64 ".%s.%s", layer, r->hf, suffix);
        if (r->kind != K_LINEAR && (v & PERMUTED)) {
            uint64_t heads = r->kind == K_Q ? p->n_head : p->n_head_kv, rows = bias ? ti->ne[0] : ti->ne[1];
            if (!heads || rows % heads || (rows / heads) % 2) {
                free(name);
                return bad_shape(b, t, "rows a multiple of twice the heads (to undo the rope permutation)");
            }
            return unpermute(b, i, name, ti, heads);
        }
        if (bias)
            return plain(b, i, name, 1, ti->ne[0], 1, GG_HF_PLAIN);
        return plain(b, i, name, 2, ti->ne[1], ti->ne[0], GG_HF_PLAIN);
    }
    case K_EXPERTS:
    case K_GATE_UP: {
        if (bias || ti->n_dims != 3 || ti->ne[2] != p->n_expert || (r->kind == K_GATE_UP && ti->ne[1] % 2))
            return bad_shape(b, t, "3 dimensions, the last the expert count");
        uint64_t rows = r->kind == K_GATE_UP ? ti->ne[1] / 2 : ti->ne[1], per = ti->ne[0] * rows;
        for (uint64_t e = 0; e < ti->ne[2] && !b->oom; e++) {
            const char *fmt = r->hf;
            for (int half = 0; half < (r->kind == K_GATE_UP ? 2 : 1); half++) {
                gg_hf_tensor *h = add_tensor(b, expert_name(layer, fmt, e, suffix), 2, rows, ti->ne[0]);
                if (h)
                    add_piece(b, h, i, e * ti->ne[0] * ti->ne[1] + half * per, per, 1, per, GG_HF_PLAIN);
                fmt += strlen(fmt) + 1; /* the up half's name */
            }
        }
        return;
    }
    }
}

/* Which variant an architecture is (llama: by its experts and name). */
static gg_hf_variant variant_of(builder *b)
{
    static const struct {
        const char *arch;
        gg_hf_variant v;
    } archs[] = {{"qwen2", GG_HF_QWEN2},   {"qwen3", GG_HF_QWEN3},   {"qwen2moe", GG_HF_QWEN2MOE},
                 {"qwen3moe", GG_HF_QWEN3MOE}, {"gemma", GG_HF_GEMMA}, {"gemma2", GG_HF_GEMMA2},
                 {"gemma3", GG_HF_GEMMA3}, {"phi3", GG_HF_PHI3}};
    const char *a = b->p->arch;
    if (!strcmp(a, "llama")) {
        uint64_t n = 0;
        figure(b, "expert_count", 0, &n);
        if (n)
            return GG_HF_MIXTRAL;
        const char *s;
        uint64_t len;
        if (gg_kv_str(b->m->f, gg_kv_get(b->m->f, NULL, "general.name"), &s, &len) == 0)
            for (uint64_t i = 0; i + 7 <= len; i++)
                if (!strncasecmp(s + i, "mistral", 7))
                    return GG_HF_MISTRAL;
        return GG_HF_LLAMA;
    }
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        if (!strcmp(a, archs[i].arch))
            return archs[i].v;
    return GG_HF_NONE;
}

/* Keys whose meaning the HF classes here cannot express. */
static void check_keys(builder *b)
{
    const gg_file *f = b->m->f;
    gg_hf_plan *p = b->p;
    const gg_kv *kv = akv(b, "rope.scaling.type");
    b->longrope = p->variant == GG_HF_PHI3 && gg_kv_str_is(f, kv, "longrope");
    if (kv && !gg_kv_str_is(f, kv, "none") && !gg_kv_str_is(f, kv, "linear") && !b->longrope) {
        const char *s;
        uint64_t n;
        gg_kv_str(f, kv, &s, &n);
        why(b, "%s.rope.scaling.type is %.*s: only linear rope scaling is carried into config.json", p->arch,
            (int)(n > 32 ? 32 : n), kv->type == GG_VT_STR ? s : "not a string");
    }
    double x;
    /* (phi-3's longrope has one, checked with its factors) */
    if (p->variant != GG_HF_PHI3 && gg_kv_double(f, akv(b, "rope.scaling.attn_factor"), &x) == 0 && x != 1.0)
        why(b, "%s.rope.scaling.attn_factor is not 1: the Hugging Face classes have no such factor", p->arch);
    int causal;
    if (gg_kv_bool(f, akv(b, "attention.causal"), &causal) == 0 && !causal)
        why(b, "%s.attention.causal is false: the causal LM classes attend causally", p->arch);
    if (gg_kv_double(f, akv(b, "expert_weights_scale"), &x) == 0 && x != 1.0 && x != 0.0)
        why(b, "%s.expert_weights_scale is not 1: the Hugging Face class does not scale its experts", p->arch);
    uint64_t g;
    if (figure(b, "expert_gating_func", 1, &g) == 0 && g != 1)
        why(b, "%s.expert_gating_func is not softmax", p->arch);
    double base, swa;
    if (p->variant == GG_HF_GEMMA2 && gg_kv_double(f, akv(b, "rope.freq_base_swa"), &swa) == 0 &&
        swa != (gg_kv_double(f, akv(b, "rope.freq_base"), &base) ? 10000.0 : base))
        why(b, "%s.rope.freq_base_swa differs from rope.freq_base: Gemma2 has one rope", p->arch);
    if (p->variant == GG_HF_GEMMA3) {
        const gg_kv *pat = akv(b, "attention.sliding_window_pattern");
        if (pat && pat->type == GG_VT_ARR)
            why(b, "%s.attention.sliding_window_pattern is a list per layer: only a period is carried into config.json",
                p->arch);
    }
}

/* phi-3's longrope: transformers scales the rotation by
 * sqrt(1 + ln(ctx / orig) / ln(orig)) (1 when ctx <= orig), as llama.cpp's
 * converter wrote rope.scaling.attn_factor; llama.cpp uses the key. They
 * must agree (and without factors the key must be 1). */
static void check_longrope(builder *b)
{
    const gg_file *f = b->m->f;
    gg_hf_plan *p = b->p;
    double ctx = 0, orig = 0, attn = 1.0;
    gg_kv_double(f, akv(b, "context_length"), &ctx);
    if (gg_kv_double(f, akv(b, "rope.scaling.original_context_length"), &orig) || !(orig > 1) || !(ctx > 0)) {
        why(b, "%s.rope.scaling.original_context_length is missing: longrope needs it", p->arch);
        return;
    }
    gg_kv_double(f, akv(b, "rope.scaling.attn_factor"), &attn);
    double want = ctx > orig ? sqrt(1 + log(ctx / orig) / log(orig)) : 1.0;
    if (!(fabs(attn - want) <= 1e-6 * want))
        why(b, "%s.rope.scaling.attn_factor %g is not transformers' longrope factor %g for these contexts", p->arch,
            attn, want);
}

/* Every layer holds the tensors its class requires (and biases all or none). */
static void check_layers(builder *b, const uint32_t *seen_w, const uint32_t *seen_b, uint64_t n_layer)
{
    gg_hf_plan *p = b->p;
    uint32_t v = 1u << p->variant;
    for (size_t r = 0; r < N_ROWS; r++) {
        const layer_row *row = &layer_rows[r];
        if (!(row->weight & v) || find_row(row->gguf, strlen(row->gguf), v) != row)
            continue;
        uint64_t missing_w = 0, missing_b = 0, first_w = 0, first_b = 0;
        for (uint64_t l = 0; l < n_layer; l++) {
            if ((row->weight_req & v) && !(seen_w[l] & (1u << r)) && !missing_w++)
                first_w = l;
            int want_bias = (row->bias_req & v) || ((row->bias & v & OPT_BIAS) && p->attention_bias);
            if (want_bias && !(seen_b[l] & (1u << r)) && !missing_b++)
                first_b = l;
        }
        if (missing_w)
            why(b, "blk.%" PRIu64 ".%s.weight is missing (and in %" PRIu64 " layers in all)", first_w, row->gguf,
                missing_w);
        if (missing_b)
            why(b, "blk.%" PRIu64 ".%s.bias is missing (and in %" PRIu64 " layers in all)", first_b, row->gguf,
                missing_b);
    }
    /* experts: gate and up stacked apart, or fused */
    if (v & (V_MIXTRAL | QWENMOE)) {
        int r_gate = -1, r_up = -1, r_fused = -1;
        for (size_t r = 0; r < N_ROWS; r++)
            if (layer_rows[r].weight & v) {
                if (!strcmp(layer_rows[r].gguf, "ffn_gate_exps"))
                    r_gate = (int)r;
                else if (!strcmp(layer_rows[r].gguf, "ffn_up_exps"))
                    r_up = (int)r;
                else if (!strcmp(layer_rows[r].gguf, "ffn_gate_up_exps"))
                    r_fused = (int)r;
            }
        for (uint64_t l = 0; l < n_layer; l++) {
            int apart = (seen_w[l] >> r_gate & 1) && (seen_w[l] >> r_up & 1), fused = seen_w[l] >> r_fused & 1;
            if (apart == fused) {
                why(b, "blk.%" PRIu64 ": the gate and up experts are %s", l,
                    fused ? "both fused and apart" : "missing");
                break;
            }
        }
    }
}

/* Attention biases, where the class has them all or none. */
static int has_bias(const gg_model *m)
{
    for (uint64_t i = 0; i < m->nt; i++)
        if (m->t[i].name_len > 12 && !memcmp(m->t[i].name + m->t[i].name_len - 12, ".attn_q.bias", 12))
            return 1;
    return 0;
}

/* What the walk over the tensors has seen: per layer, the rows found (bits
 * of layer_rows), weights and biases apart; the embeddings and final norm. */
typedef struct seen {
    uint32_t *w, *b;
    int embd, norm;
} seen;

/* blk.N.<name>: a row of layer_rows for the class, biases all or none */
static void plan_layer_tensor(builder *b, uint64_t i, uint64_t layer, const char *base, size_t blen, int bias,
                              seen *s)
{
    gg_hf_plan *p = b->p;
    uint32_t v = 1u << p->variant;
    char nm[SHOWN];
    const layer_row *r = find_row(base, blen, v);
    if (!r || (bias && !(r->bias & v)) || layer >= p->n_layer) {
        why(b, "%s has no Hugging Face name in %s", shown(&b->m->t[i], nm), p->hf_class);
        return;
    }
    if (bias && !(r->bias_req & v) && !p->attention_bias) {
        why(b, "%s: %s has attention biases on q, k, v and o or on none", shown(&b->m->t[i], nm), p->hf_class);
        return;
    }
    uint32_t *rows = bias ? s->b : s->w;
    rows[layer] |= 1u << (r - layer_rows);
    layer_tensor(b, i, layer, r, bias);
}

/* rope_freqs.weight and rope_factors_{long,short}.weight: F32 factors, one
 * per rotated pair, that go into config.json (llama 3's, phi-3's), not weights. */
static void plan_rope_factors(builder *b, uint64_t i)
{
    gg_hf_plan *p = b->p;
    uint32_t v = 1u << p->variant;
    const gg_tensor *t = &b->m->t[i];
    const gg_tinfo *ti = t->info;
    char nm[SHOWN];
    int freqs = name_is(t, "rope_freqs.weight");
    if ((freqs && (v & PERMUTED)) || (!freqs && p->variant == GG_HF_PHI3)) {
        if (ti->n_dims != 1 || ti->ne[0] != p->n_rot / 2 || ti->type_id != 0) {
            bad_shape(b, t, "F32 [rope.dimension_count / 2]");
            return;
        }
        if (freqs)
            p->rope_freqs = (int64_t)i;
        else
            *(t->name[13] == 'l' ? &p->rope_long : &p->rope_short) = (int64_t)i;
    } else {
        why(b, "%s: rope frequency factors are carried into config.json as llama 3's rope scaling only",
            shown(t, nm));
    }
}

/* A tensor outside the layers: the embeddings, the final norm, the output
 * (untied), rope factors. */
static void plan_model_tensor(builder *b, uint64_t i, seen *s)
{
    gg_hf_plan *p = b->p;
    uint32_t v = 1u << p->variant;
    const gg_tensor *t = &b->m->t[i];
    const gg_tinfo *ti = t->info;
    char nm[SHOWN];
    if (name_is(t, "token_embd.weight")) {
        if (ti->n_dims != 2) {
            bad_shape(b, t, "2 dimensions");
            return;
        }
        s->embd = 1;
        plain(b, i, strdup("model.embed_tokens.weight"), 2, ti->ne[1], ti->ne[0], GG_HF_PLAIN);
    } else if (name_is(t, "output_norm.weight")) {
        if (ti->n_dims != 1) {
            bad_shape(b, t, "1 dimension");
            return;
        }
        s->norm = 1;
        plain(b, i, strdup("model.norm.weight"), 1, ti->ne[0], 1, (v & SHIFTED) ? GG_HF_MINUS_ONE : GG_HF_PLAIN);
    } else if (name_is(t, "output.weight")) {
        if (ti->n_dims != 2) {
            bad_shape(b, t, "2 dimensions");
            return;
        }
        p->tied = 0;
        plain(b, i, strdup("lm_head.weight"), 2, ti->ne[1], ti->ne[0], GG_HF_PLAIN);
    } else if (name_is(t, "rope_freqs.weight") || name_is(t, "rope_factors_long.weight") ||
               name_is(t, "rope_factors_short.weight")) {
        plan_rope_factors(b, i);
    } else {
        why(b, "%s has no Hugging Face name in %s", shown(t, nm), p->hf_class);
    }
}

/* A tensor that cannot be decoded is said to be so, and counts as there
 * (it is not also "missing"). */
static void undecodable_tensor(builder *b, uint64_t i, seen *s)
{
    const gg_tensor *t = &b->m->t[i];
    char nm[SHOWN];
    why(b, "%s cannot be decoded (%s)", shown(t, nm), t->err ? t->err->msg : "unknown type");
    uint64_t layer;
    const char *base;
    size_t blen;
    int bias;
    if (parse_layer_name(t, &layer, &base, &blen, &bias) == 0) {
        const layer_row *r = find_row(base, blen, 1u << b->p->variant);
        if (r && layer < b->p->n_layer)
            (bias ? s->b : s->w)[layer] |= 1u << (r - layer_rows);
    } else if (name_is(t, "token_embd.weight")) {
        s->embd = 1;
    } else if (name_is(t, "output_norm.weight")) {
        s->norm = 1;
    }
}

/* The rope keys the plan cannot carry: longrope needs both lists; an
 * attention factor other than 1 has no place in the HF classes. */
static void check_rope(builder *b)
{
    gg_hf_plan *p = b->p;
    if ((p->rope_long < 0) != (p->rope_short < 0))
        why(b, "rope_factors_long.weight and rope_factors_short.weight come in pairs");
    double attn;
    if (p->rope_long >= 0)
        check_longrope(b);
    else if (b->longrope)
        why(b, "%s.rope.scaling.type is longrope without rope_factors_long.weight", p->arch);
    else if (gg_kv_double(b->m->f, akv(b, "rope.scaling.attn_factor"), &attn) == 0 && attn != 1.0)
        why(b, "%s.rope.scaling.attn_factor is not 1: the Hugging Face classes have no such factor", p->arch);
}

static void plan_tensors(builder *b)
{
    const gg_model *m = b->m;
    uint64_t n_layer = b->p->n_layer;
    _Static_assert(N_ROWS <= 32, "rows seen per layer are bits of a u32");
    seen s = {calloc(n_layer ? n_layer : 1, sizeof *s.w), calloc(n_layer ? n_layer : 1, sizeof *s.b), 0, 0};
    if (!s.w || !s.b) {
        b->oom = 1;
        goto done;
    }
    for (uint64_t i = 0; i < m->nt && !b->oom; i++) {
        const gg_tensor *t = &m->t[i];
        uint64_t layer;
        const char *base;
        size_t blen;
        int bias;
        if (!gg_tensor_decodable(t))
            undecodable_tensor(b, i, &s);
        else if (parse_layer_name(t, &layer, &base, &blen, &bias) == 0)
            plan_layer_tensor(b, i, layer, base, blen, bias, &s);
        else
            plan_model_tensor(b, i, &s);
    }
    check_rope(b);
    if (!s.embd)
        why(b, "token_embd.weight is missing");
    if (!s.norm)
        why(b, "output_norm.weight is missing");
    check_layers(b, s.w, s.b, n_layer);
done:
    free(s.w);
    free(s.b);
}

/* The counts the config takes, each checked on its own so that why names
 * the key and what is wrong with it. llama.cpp's own bounds
 * (LLAMA_MAX_LAYERS, LLAMA_MAX_EXPERTS) and a head count no model comes near
 * keep a hostile header from asking for millions of names. */
static void check_counts(builder *b)
{
    gg_hf_plan *p = b->p;
    const char *a = p->arch;
    if (!p->n_layer || p->n_layer > MAX_LAYERS)
        why(b, "%s.block_count is %" PRIu64 ": from 1 to %d layers (llama.cpp's bound)", a, p->n_layer, MAX_LAYERS);
    if (!p->n_head || p->n_head > MAX_HEADS)
        why(b, "%s.attention.head_count is %" PRIu64 ": from 1 to %d heads", a, p->n_head, MAX_HEADS);
    else if (p->n_head_kv > p->n_head)
        why(b, "%s.attention.head_count_kv %" PRIu64 " is more than attention.head_count %" PRIu64
               ": a key/value head serves one or more query heads",
            a, p->n_head_kv, p->n_head);
    else if (p->n_head_kv && p->n_head % p->n_head_kv)
        why(b, "%s.attention.head_count %" PRIu64 " is not a multiple of attention.head_count_kv %" PRIu64
               ": each key/value head serves as many query heads",
            a, p->n_head, p->n_head_kv);
    if (p->n_expert > MAX_EXPERTS)
        why(b, "%s.expert_count is %" PRIu64 ": at most %d experts (llama.cpp's bound)", a, p->n_expert,
            MAX_EXPERTS);
    else if (p->n_expert_used > p->n_expert)
        why(b, "%s.expert_used_count %" PRIu64 " is more than expert_count %" PRIu64, a, p->n_expert_used,
            p->n_expert);
}

/* The figures of the config, from the keys as llama.cpp reads them. */
static void plan_figures(builder *b)
{
    gg_hf_plan *p = b->p;
    const gg_model *m = b->m;
    int missing = need_figure(b, "block_count", 0, &p->n_layer, 1);
    missing |= need_figure(b, "embedding_length", 0, &p->n_embd, 1);
    missing |= need_figure(b, "attention.head_count", 0, &p->n_head, 1);
    missing |= need_figure(b, "attention.head_count_kv", p->n_head, &p->n_head_kv, 0);
    if (p->variant == GG_HF_MIXTRAL || p->variant == GG_HF_QWEN2MOE || p->variant == GG_HF_QWEN3MOE) {
        missing |= need_figure(b, "expert_count", 0, &p->n_expert, 1);
        missing |= need_figure(b, "expert_used_count", 0, &p->n_expert_used, 1);
        need_figure(b, "expert_feed_forward_length", 0, &p->n_ff_exp, 0);
        need_figure(b, "expert_shared_feed_forward_length", 0, &p->n_ff_shexp, 0);
    }
    /* (the head size and what follows from it mean nothing without them) */
    unsigned said = b->n_why;
    if (!missing)
        check_counts(b);
    if (missing || b->n_why != said)
        return;
    uint64_t kl = 0, vl = 0;
    need_figure(b, "attention.key_length", p->n_head ? p->n_embd / p->n_head : 0, &kl, 0);
    need_figure(b, "attention.value_length", kl, &vl, 0);
    p->head_dim = kl;
    if (kl != vl)
        why(b, "%s.attention.key_length %" PRIu64 " and value_length %" PRIu64
               " differ: the Hugging Face config has one head_dim",
            p->arch, kl, vl);
    need_figure(b, "rope.dimension_count", kl, &p->n_rot, 0);
    if (p->n_rot != p->head_dim && p->variant != GG_HF_PHI3)
        why(b, "%s.rope.dimension_count %" PRIu64 " is not the head size %" PRIu64 ": %s ropes whole heads",
            p->arch, p->n_rot, p->head_dim, p->hf_class);
    need_figure(b, "feed_forward_length", 0, &p->n_ff, 0);
    /* the figures HF takes from the config must match the tensors' shapes */
    for (uint64_t i = 0; i < m->nt; i++) {
        const gg_tinfo *ti = m->t[i].info;
        if (name_is(&m->t[i], "token_embd.weight") && ti->n_dims == 2) {
            p->n_vocab = ti->ne[1];
            if (ti->ne[0] != p->n_embd)
                why(b, "token_embd.weight has rows of %" PRIu64 ", not %s.embedding_length %" PRIu64, ti->ne[0],
                    p->arch, p->n_embd);
        }
        if (name_is(&m->t[i], "blk.0.ffn_gate_exps.weight") && ti->n_dims == 3 && !p->n_ff_exp)
            p->n_ff_exp = ti->ne[1];
        if (name_is(&m->t[i], "blk.0.ffn_gate_up_exps.weight") && ti->n_dims == 3 && !p->n_ff_exp)
            p->n_ff_exp = ti->ne[1] / 2;
        if (name_is(&m->t[i], "blk.0.ffn_gate_shexp.weight") && ti->n_dims == 2 && !p->n_ff_shexp)
            p->n_ff_shexp = ti->ne[1];
        if (name_is(&m->t[i], "blk.0.ffn_up.weight") && ti->n_dims == 2 && !p->n_ff)
            p->n_ff = p->variant == GG_HF_PHI3 ? ti->ne[1] / 2 : ti->ne[1];
    }
}

gg_hf_plan *gg_hf_plan_new(const gg_model *m)
{
    builder b = {0};
    b.m = m;
    gg_hf_plan *p = b.p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->tied = 1;
    p->rope_freqs = p->rope_long = p->rope_short = -1;
    p->vocab_only = m->nt == 0;
    const char *a;
    uint64_t alen;
    static char none[] = "";
    p->arch = none;
    if (gg_kv_str(m->f, gg_kv_get(m->f, NULL, "general.architecture"), &a, &alen) == 0 && alen < 64 &&
        !memchr(a, 0, alen)) {
        char *s = malloc(alen + 1);
        if (!s) {
            free(p);
            return NULL;
        }
        memcpy(s, a, alen);
        s[alen] = 0;
        p->arch = s;
    }
    p->variant = variant_of(&b);
    if (!p->vocab_only) {
        if (p->variant == GG_HF_NONE) {
            why(&b, "architecture \"%s\": as/hf/ knows " SUPPORTED, p->arch);
        } else {
            for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++)
                if (variants[i].v == p->variant) {
                    p->hf_class = variants[i].cls;
                    p->model_type = variants[i].type;
                }
            plan_figures(&b);
            check_keys(&b);
            if (!b.n_why) {
                if (((1u << p->variant) & OPT_BIAS))
                    p->attention_bias = has_bias(m);
                else if (p->variant == GG_HF_QWEN2 || p->variant == GG_HF_QWEN2MOE)
                    p->attention_bias = 1;
                plan_tensors(&b);
            }
        }
    }
    if (b.n_why > MAX_WHY_LINES)
        gg_buf_printf(&b.why, "... and %u more\n", b.n_why - MAX_WHY_LINES);
    if (b.oom || b.why.oom) {
        gg_buf_free(&b.why);
        gg_hf_plan_free(p);
        return NULL;
    }
    p->why = b.why.p; /* NULL when nothing was said */
    if (p->why) {
        /* without its weights, a plan lists no tensors */
        for (size_t i = 0; i < p->nt; i++)
            free(p->t[i].name);
        free(p->t);
        free(p->p);
        p->t = NULL;
        p->p = NULL;
        p->nt = p->np = 0;
    }
    return p;
}

void gg_hf_plan_free(gg_hf_plan *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nt; i++)
        free(p->t[i].name);
    free(p->t);
    free(p->p);
    free(p->why);
    if (p->arch && p->arch[0])
        free((char *)p->arch);
    free(p);
}

uint64_t gg_hf_plan_bytes(const gg_hf_plan *p)
{
    uint64_t n = sizeof *p + p->nt * sizeof *p->t + p->np * sizeof *p->p;
    for (size_t i = 0; i < p->nt; i++)
        n += strlen(p->t[i].name) + 1;
    return n;
}
