/* recipe.c - llama-quantize's recipes as data, and the choice of each
 * tensor's type (see recipe.h). The rules are those of llama.cpp's
 * llama_tensor_get_type_impl for the recipes that need no importance
 * matrix; each comment names the part of it a piece stands for. */
#include "gguffs/recipe.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/gguf_write.h"
#include "gguffs/kvget.h"
#include "gguffs/quantize.h"
#include "gguffs/types.h"

/* ---- what a tensor is, by its name (llama.cpp's tensor_get_category) ---- */

typedef enum kind {
    K_NONE = 0, /* ends a rule list */
    K_OTHER,
    K_TOKEN_EMBD, /* token_embd.weight, per_layer_token_embd.weight */
    K_OUTPUT,     /* output.weight */
    K_ATTN_V,     /* attn_v, attn_qkv and attn_kv_b: the kinds attn_v's rules cover */
    K_ATTN_K,
    K_ATTN_Q,
    K_ATTN_OUTPUT,
    K_FFN_UP,
    K_FFN_GATE,
    K_FFN_DOWN,
} kind;

/* Does name (len bytes) hold s? (Names are short: a plain search beats
 * memmem's set-up, which took 7 ms of a model of 2048 tensors.) */
static int has(const char *name, size_t len, const char *s)
{
    size_t n = strlen(s);
    for (size_t i = 0; i + n <= len; i++)
        if (name[i] == s[0] && !memcmp(name + i, s, n))
            return 1;
    return 0;
}

static int is(const char *name, size_t len, const char *s) { return len == strlen(s) && !memcmp(name, s, len); }

/* In the order llama.cpp tests them: attn_qkv before attn_v, ffn_up before ffn_gate. */
static kind kind_of(const char *name, size_t len)
{
    static const struct {
        const char *part;
        kind k;
    } parts[] = {
        {"attn_qkv.weight", K_ATTN_V}, {"attn_kv_b.weight", K_ATTN_V},     {"attn_v.weight", K_ATTN_V},
        {"attn_k.weight", K_ATTN_K},   {"attn_q.weight", K_ATTN_Q},        {"attn_output.weight", K_ATTN_OUTPUT},
        {"ffn_up", K_FFN_UP},          {"ffn_gate", K_FFN_GATE},           {"ffn_down", K_FFN_DOWN},
    };
    if (is(name, len, "output.weight"))
        return K_OUTPUT;
    if (is(name, len, "token_embd.weight") || is(name, len, "per_layer_token_embd.weight"))
        return K_TOKEN_EMBD;
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (has(name, len, parts[i].part))
            return parts[i].k;
    return K_OTHER;
}

/* ---- which tensors llama-quantize quantizes (tensor_allows_quantization) ---- */

/* Names holding any of these stay as they are: norms, expert routers, small
 * 2-D tensors of some architectures, vision and audio towers' parts. */
static const char *const kept_parts[] = {
    "_norm.weight", "ffn_gate_inp.weight", "ffn_gate_tid2eid.weight", "altup", "laurel", "per_layer_model_proj",
    "ssm_conv1d", "shortconv.conv.weight", "indexer.k_proj.weight", "indexer.q_proj.weight",
    "time_mix_first.weight", "time_mix_w0.weight", "time_mix_w1.weight", "time_mix_w2.weight",
    "time_mix_v0.weight", "time_mix_v1.weight", "time_mix_v2.weight", "time_mix_a0.weight",
    "time_mix_a1.weight", "time_mix_a2.weight", "time_mix_g1.weight", "time_mix_g2.weight",
    "time_mix_decay_w1.weight", "time_mix_decay_w2.weight", "time_mix_lerp_fused.weight", "attn_rel_b.weight",
    ".position_embd", "sam.pos_embd", "sam.neck.", "sam.net_", ".rel_pos", ".patch_embd", ".patch_merger",
    "a.rvq.codebook", "mm.a.code_embd",
};
/* ... and these whole names (output.weight is quantized: quantize_output_tensor). */
static const char *const kept_names[] = {"position_embd.weight", "token_types.weight"};

static int quantizable(const gg_tensor *t)
{
    const char *n = t->name;
    size_t len = t->name_len;
    if (gg_tinfo_ndims(t->info) < 2)
        return 0;
    /* llama.cpp asks name.rfind("weight") == name.size() - 6: a name ending
     * in "weight", and, by the wrap of size_t, any name of 5 bytes */
    if (!(len == 5 || (len >= 6 && !memcmp(n + len - 6, "weight", 6))))
        return 0;
    for (size_t i = 0; i < sizeof kept_parts / sizeof kept_parts[0]; i++)
        if (has(n, len, kept_parts[i]))
            return 0;
    for (size_t i = 0; i < sizeof kept_names / sizeof kept_names[0]; i++)
        if (is(n, len, kept_names[i]))
            return 0;
    return 1;
}

/* ---- the recipes ---- */

/* When a rule holds, of the model (bits, all must hold)... */
enum {
    W_FALCON = 1,      /* general.architecture falcon */
    W_NOT_FALCON = 2,
    W_EXPERTS8 = 4,    /* <arch>.expert_count 8 */
    W_NOT_EXPERTS8 = 8,
    W_GQA4 = 16,       /* head_count / head_count_kv of layer 0 at least 4 */
};
/* ... and of the tensor's place among its kind: i of n (attn_v: the how
 * manyth attn_v of all; ffn_down: its layer of the block count). */
enum {
    AT_ANY = 0,
    AT_BELOW,      /* i < k */
    AT_BELOW_NTH,  /* i < n / k */
    AT_MORE_BITS,  /* llama.cpp's use_more_bits(i, n): the first and last eighths, and every third between */
};

struct gg_recipe_rule {
    uint8_t kind, when, at, k;
    gg_tid type;
};

#define RULE(kd, w, a, n, t) {K_##kd, w, a, n, GG_T_##t}
#define END {0, 0, 0, 0, GG_T_NONE}

static const gg_recipe_rule q2_k[] = {
    RULE(ATTN_V, W_GQA4, AT_ANY, 0, Q4_K),
    RULE(ATTN_V, 0, AT_ANY, 0, Q3_K),
    RULE(FFN_DOWN, 0, AT_ANY, 0, Q3_K),
    RULE(ATTN_OUTPUT, W_NOT_FALCON | W_EXPERTS8, AT_ANY, 0, Q5_K),
    RULE(ATTN_OUTPUT, W_NOT_FALCON | W_NOT_EXPERTS8, AT_ANY, 0, Q3_K),
    END,
};
static const gg_recipe_rule q3_k_s[] = {
    RULE(ATTN_OUTPUT, W_NOT_FALCON | W_EXPERTS8, AT_ANY, 0, Q5_K),
    END,
};
static const gg_recipe_rule q3_k_m[] = {
    RULE(ATTN_V, 0, AT_BELOW, 2, Q5_K),
    RULE(ATTN_V, 0, AT_ANY, 0, Q4_K),
    RULE(FFN_DOWN, 0, AT_BELOW_NTH, 16, Q5_K),
    RULE(FFN_DOWN, W_NOT_FALCON, AT_ANY, 0, Q4_K),
    RULE(FFN_DOWN, W_FALCON, AT_MORE_BITS, 0, Q4_K),
    RULE(ATTN_OUTPUT, W_NOT_FALCON | W_EXPERTS8, AT_ANY, 0, Q5_K),
    RULE(ATTN_OUTPUT, W_NOT_FALCON | W_NOT_EXPERTS8, AT_ANY, 0, Q4_K),
    END,
};
static const gg_recipe_rule q3_k_l[] = {
    RULE(ATTN_V, 0, AT_ANY, 0, Q5_K),
    RULE(FFN_DOWN, W_FALCON, AT_ANY, 0, Q4_K),
    RULE(FFN_DOWN, W_NOT_FALCON, AT_ANY, 0, Q5_K),
    RULE(ATTN_OUTPUT, W_NOT_FALCON | W_NOT_EXPERTS8, AT_ANY, 0, Q5_K),
    RULE(ATTN_OUTPUT, W_FALCON, AT_ANY, 0, Q4_K),
    END,
};
static const gg_recipe_rule q4_k_s[] = {
    RULE(ATTN_V, 0, AT_BELOW, 4, Q5_K),
    RULE(FFN_DOWN, W_NOT_FALCON, AT_BELOW_NTH, 8, Q5_K),
    RULE(ATTN_OUTPUT, W_NOT_FALCON | W_EXPERTS8, AT_ANY, 0, Q5_K),
    END,
};
static const gg_recipe_rule q4_k_m[] = {
    RULE(ATTN_V, 0, AT_MORE_BITS, 0, Q6_K),
    RULE(FFN_DOWN, W_FALCON, AT_BELOW_NTH, 16, Q6_K),
    RULE(FFN_DOWN, W_FALCON, AT_MORE_BITS, 0, Q5_K),
    RULE(FFN_DOWN, W_NOT_FALCON, AT_MORE_BITS, 0, Q6_K),
    RULE(ATTN_OUTPUT, W_NOT_FALCON | W_EXPERTS8, AT_ANY, 0, Q5_K),
    END,
};
static const gg_recipe_rule q5_k_m[] = {
    RULE(ATTN_V, 0, AT_MORE_BITS, 0, Q6_K),
    RULE(FFN_DOWN, 0, AT_MORE_BITS, 0, Q6_K),
    END,
};
/* IQ4_NL and IQ4_XS */
static const gg_recipe_rule iq4[] = {
    RULE(ATTN_V, W_GQA4, AT_ANY, 0, Q5_K),
    RULE(FFN_DOWN, 0, AT_BELOW_NTH, 8, Q5_K),
    RULE(ATTN_OUTPUT, W_NOT_FALCON | W_EXPERTS8, AT_ANY, 0, Q5_K),
    END,
};
static const gg_recipe_rule iq3_s[] = {
    RULE(ATTN_V, W_GQA4, AT_ANY, 0, Q4_K),
    RULE(ATTN_OUTPUT, W_NOT_FALCON | W_EXPERTS8, AT_ANY, 0, Q5_K),
    END,
};
static const gg_recipe_rule iq3_m[] = {
    RULE(ATTN_V, 0, AT_ANY, 0, Q4_K),
    RULE(FFN_DOWN, 0, AT_BELOW_NTH, 8, Q4_K),
    RULE(FFN_DOWN, W_EXPERTS8, AT_MORE_BITS, 0, Q4_K),
    RULE(ATTN_OUTPUT, W_NOT_FALCON | W_EXPERTS8, AT_ANY, 0, Q5_K),
    RULE(ATTN_OUTPUT, W_NOT_FALCON | W_NOT_EXPERTS8, AT_ANY, 0, Q4_K),
    END,
};

/* Every llama_ftype llama_model_quantize makes without an importance
 * matrix (it refuses IQ2_XXS, IQ2_XS, Q2_K_S, IQ3_XS, IQ3_XXS, IQ1_S, IQ2_S,
 * IQ2_M and IQ1_M: their types need one; NVFP4 has no default type). */
#define R(n, ft, b, ...) {.name = n, .ftype = ft, .base = GG_T_##b, __VA_ARGS__}
static const gg_recipe recipes[] = {
    R("f32", 0, F32, .flags = GG_RECIPE_SOURCE),
    R("f16", 1, F16),
    R("bf16", 32, BF16),
    R("q4_0", 2, Q4_0),
    R("q4_1", 3, Q4_1),
    R("q8_0", 7, Q8_0),
    R("q5_0", 8, Q5_0),
    R("q5_1", 9, Q5_1),
    R("q2_k", 10, Q2_K, .rules = q2_k),
    R("q3_k_s", 11, Q3_K, .rules = q3_k_s),
    R("q3_k_m", 12, Q3_K, .rules = q3_k_m),
    R("q3_k_l", 13, Q3_K, .rules = q3_k_l),
    R("q4_k_s", 14, Q4_K, .rules = q4_k_s),
    R("q4_k_m", 15, Q4_K, .rules = q4_k_m),
    R("q5_k_s", 16, Q5_K),
    R("q5_k_m", 17, Q5_K, .rules = q5_k_m),
    R("q6_k", 18, Q6_K),
    R("iq4_nl", 25, IQ4_NL, .rules = iq4),
    R("iq3_s", 26, IQ3_S, .rules = iq3_s),
    R("iq3_m", 27, IQ3_S, .rules = iq3_m),
    R("iq4_xs", 30, IQ4_XS, .rules = iq4),
    R("tq1_0", 36, TQ1_0, .embd = GG_T_Q4_K),
    R("tq2_0", 37, TQ2_0, .embd = GG_T_Q4_K),
    R("mxfp4_moe", 38, MXFP4, .flags = GG_RECIPE_MXFP4_MOE),
    R("q1_0", 40, Q1_0),
    R("q2_0", 41, Q2_0, .embd = GG_T_Q4_K),
    /* llama-quantize's other names */
    R("q3_k", 12, Q3_K, .rules = q3_k_m, .flags = GG_RECIPE_ALIAS),
    R("q4_k", 15, Q4_K, .rules = q4_k_m, .flags = GG_RECIPE_ALIAS),
    R("q5_k", 17, Q5_K, .rules = q5_k_m, .flags = GG_RECIPE_ALIAS),
};
#define N_RECIPES (sizeof recipes / sizeof recipes[0])

size_t gg_recipe_count(void) { return N_RECIPES; }
const gg_recipe *gg_recipe_at(size_t i) { return i < N_RECIPES ? &recipes[i] : NULL; }
size_t gg_recipe_index(const gg_recipe *r) { return (size_t)(r - recipes); }

const gg_recipe *gg_recipe_by_name(const char *name, size_t len)
{
    for (size_t i = 0; i < N_RECIPES; i++)
        if (is(name, len, recipes[i].name))
            return &recipes[i];
    return NULL;
}

/* tensor_type_fallback: the type a row that the chosen type's block does
 * not divide takes instead (a 32-value block); types not here have none
 * when their block is larger than 32. */
static const struct {
    gg_tid from, to;
} fallbacks[] = {
    {GG_T_IQ1_S, GG_T_IQ4_NL}, {GG_T_IQ1_M, GG_T_IQ4_NL}, {GG_T_IQ2_XXS, GG_T_IQ4_NL}, {GG_T_IQ2_XS, GG_T_IQ4_NL},
    {GG_T_IQ2_S, GG_T_IQ4_NL}, {GG_T_IQ3_XXS, GG_T_IQ4_NL}, {GG_T_IQ3_S, GG_T_IQ4_NL}, {GG_T_IQ4_XS, GG_T_IQ4_NL},
    {GG_T_Q2_0, GG_T_Q4_0},    {GG_T_Q2_K, GG_T_Q4_0},    {GG_T_Q3_K, GG_T_Q4_0},      {GG_T_TQ1_0, GG_T_Q4_0},
    {GG_T_TQ2_0, GG_T_Q4_0},   {GG_T_Q4_K, GG_T_Q5_0},    {GG_T_Q5_K, GG_T_Q5_1},      {GG_T_Q6_K, GG_T_Q8_0},
};

/* ---- a model's facts ---- */

struct gg_recipe_facts {
    const gg_model *m;
    uint64_t *order;      /* llama-quantize's order */
    uint8_t *kind;        /* per tensor (model index) */
    uint8_t *quantizable; /* per tensor */
    int64_t *layer;       /* per tensor: N of "blk.N.", -1 without */
    int has_layer_count;  /* <arch>.block_count is there */
    uint64_t n_layer;     /* <arch>.block_count */
    uint64_t n_expert;    /* <arch>.expert_count, 0 without */
    uint64_t n_attn_v;    /* tensors of attn_v's kind */
    int falcon, bailingmoe3, tied, gqa4, is70b;
};

/* N of a name starting "blk.N", read as sscanf's "blk.%d." does (spaces
 * and a sign allowed; what follows the digits is not checked); -1 when
 * there is no number. Past int, it wraps as glibc's does (strtol's clamp,
 * then the low 32 bits). */
static int64_t layer_of(const char *s, size_t len)
{
    if (len < 4 || memcmp(s, "blk.", 4))
        return -1;
    size_t i = 4;
    while (i < len && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')))
        i++;
    int neg = i < len && s[i] == '-';
    if (i < len && (s[i] == '-' || s[i] == '+'))
        i++;
    if (i >= len || s[i] < '0' || s[i] > '9')
        return -1;
    uint64_t v = 0;
    int clamped = 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        v = v * 10 + (uint64_t)(s[i] - '0');
        if (v > (uint64_t)INT64_MAX)
            clamped = 1, v = (uint64_t)INT64_MAX;
    }
    uint64_t l = clamped ? (neg ? (uint64_t)INT64_MIN : (uint64_t)INT64_MAX) : (neg ? (uint64_t)0 - v : v);
    return (int32_t)(uint32_t)l;
}

/* weight_name_comparer: by layer, then by name as std::string compares
 * (bytes as unsigned, a prefix first). */
static int by_layer_then_name(const void *pa, const void *pb, void *arg)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    const gg_recipe_facts *f = arg;
    if (f->layer[a] != f->layer[b])
        return f->layer[a] < f->layer[b] ? -1 : 1;
    const gg_tensor *x = &f->m->t[a], *y = &f->m->t[b];
    size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
    int c = memcmp(x->name, y->name, n);
    if (c)
        return c;
    return x->name_len < y->name_len ? -1 : x->name_len > y->name_len ? 1 : a < b ? -1 : a > b;
}

/* "<arch>.<suffix>" as an unsigned number (or layer 0 of an array: the
 * head counts may be per layer); 0 and *v, or -1 when absent. */
static int hparam(const gg_file *f, const char *arch, const char *suffix, uint64_t *v)
{
    const gg_kv *kv = gg_kv_get(f, arch, suffix);
    uint32_t type;
    uint64_t n;
    const uint8_t *data;
    if (kv && kv->type == GG_VT_ARR && gg_kv_arr(f, kv, &type, &n, &data) == 0 && n > 0) {
        int64_t x = gg_kv_arr_int(type, data, 0);
        *v = x > 0 ? (uint64_t)x : 0;
        return 0;
    }
    return gg_kv_uint(f, kv, v);
}

/* The hyperparameters llama.cpp's rules read (load_hparams). */
static void read_hparams(gg_recipe_facts *f)
{
    const gg_file *file = f->m->f;
    char arch[64] = "";
    const char *s;
    uint64_t len;
    if (gg_kv_str(file, gg_kv_get(file, NULL, "general.architecture"), &s, &len) == 0 && len < sizeof arch &&
        !memchr(s, 0, len)) {
        memcpy(arch, s, len);
        arch[len] = 0;
    }
    f->falcon = !strcmp(arch, "falcon");
    f->bailingmoe3 = !strcmp(arch, "bailingmoe3");
    f->has_layer_count = hparam(file, arch, "block_count", &f->n_layer) == 0;
    if (hparam(file, arch, "expert_count", &f->n_expert))
        f->n_expert = 0;
    uint64_t heads = 0, kv_heads = 0, nextn = 0;
    hparam(file, arch, "attention.head_count", &heads);
    if (hparam(file, arch, "attention.head_count_kv", &kv_heads))
        kv_heads = heads; /* (n_head_kv defaults to n_head) */
    /* n_gqa() is 0 without kv heads */
    f->gqa4 = kv_heads && heads / kv_heads >= 4;
    /* LLM_TYPE_70B, by the layer count without MTP layers (n_layer()),
     * where an architecture's loader says so */
    hparam(file, arch, "nextn_predict_layers", &nextn);
    uint64_t n = f->n_layer >= nextn ? f->n_layer - nextn : 0;
    f->is70b = (!strcmp(arch, "llama") && n == 80 && f->n_expert != 8 && heads != kv_heads) ||
               ((!strcmp(arch, "qwen2") || !strcmp(arch, "deci") || !strcmp(arch, "olmo")) && n == 80) ||
               (!strcmp(arch, "jais2") && n == 68);
}

gg_recipe_facts *gg_recipe_facts_new(const gg_model *m)
{
    gg_recipe_facts *f = calloc(1, sizeof *f);
    size_t nt = m->nt ? m->nt : 1;
    if (!f)
        return NULL;
    f->m = m;
    f->order = malloc(nt * sizeof *f->order);
    f->kind = malloc(nt);
    f->quantizable = malloc(nt);
    f->layer = malloc(nt * sizeof *f->layer);
    if (!f->order || !f->kind || !f->quantizable || !f->layer) {
        gg_recipe_facts_free(f);
        return NULL;
    }
    f->tied = 1; /* until output.weight is seen */
    for (uint64_t i = 0; i < m->nt; i++) {
        const gg_tensor *t = &m->t[i];
        f->order[i] = i;
        f->kind[i] = (uint8_t)kind_of(t->name, t->name_len);
        f->quantizable[i] = (uint8_t)quantizable(t);
        f->layer[i] = layer_of(t->name, t->name_len);
        f->n_attn_v += f->kind[i] == K_ATTN_V;
        if (f->kind[i] == K_OUTPUT)
            f->tied = 0;
    }
    qsort_r(f->order, m->nt, sizeof *f->order, by_layer_then_name, f);
    read_hparams(f);
    return f;
}

void gg_recipe_facts_free(gg_recipe_facts *f)
{
    if (!f)
        return;
    free(f->order);
    free(f->kind);
    free(f->quantizable);
    free(f->layer);
    free(f);
}

const uint64_t *gg_recipe_order(const gg_recipe_facts *f) { return f->order; }

/* ---- one recipe over a model ---- */

static uint64_t block_of(gg_tid t)
{
    const gg_type *ty = gg_type_mainline(t);
    return ty ? ty->block_elems : 1;
}

static int quantized(gg_tid t) { return t != GG_T_F32 && t != GG_T_F16 && t != GG_T_BF16; }

static int use_more_bits(int64_t i, int64_t n) { return i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2; }

/* The counters llama.cpp keeps while it goes through the tensors. */
typedef struct walk {
    const gg_recipe_facts *f;
    int64_t attn_v, ffn_down, ffn_gate, ffn_up;
} walk;

static int fail_at(const gg_recipe_facts *f, uint64_t i, gg_err *e, const char *what)
{
    const gg_tensor *t = &f->m->t[i];
    return gg_fail(e, GG_E_UNSUPPORTED, "tensor \"%.*s\": %s", (int)(t->name_len > 200 ? 200 : t->name_len), t->name,
                   what);
}

/* The place of a tensor among its kind, i of n (layer_info for the ffn
 * kinds: with experts, the layer its name says, which must be one). */
static int place(walk *w, uint64_t ti, kind k, int64_t *i, int64_t *n, gg_err *e)
{
    const gg_recipe_facts *f = w->f;
    int64_t *counter = k == K_FFN_DOWN ? &w->ffn_down : k == K_FFN_GATE ? &w->ffn_gate : &w->ffn_up;
    if (k == K_ATTN_V) {
        *i = w->attn_v++;
        *n = (int64_t)f->n_attn_v;
        return 0;
    }
    if (k != K_FFN_DOWN && k != K_FFN_GATE && k != K_FFN_UP) {
        *i = *n = 0;
        return 0;
    }
    *i = (*counter)++;
    *n = f->has_layer_count ? (int64_t)f->n_layer : -1;
    if (f->n_expert > 1) {
        if (f->layer[ti] < 0 || !f->has_layer_count || f->layer[ti] >= *n)
            return fail_at(f, ti, e, "a model with experts needs its layer (blk.N.) in its name, below the model's "
                                     "block_count");
        *i = f->layer[ti];
    }
    return 0;
}

static int rule_holds(const gg_recipe_facts *f, const gg_recipe_rule *r, int64_t i, int64_t n)
{
    int experts8 = f->n_expert == 8;
    if (((r->when & W_FALCON) && !f->falcon) || ((r->when & W_NOT_FALCON) && f->falcon) ||
        ((r->when & W_EXPERTS8) && !experts8) || ((r->when & W_NOT_EXPERTS8) && experts8) ||
        ((r->when & W_GQA4) && !f->gqa4))
        return 0;
    switch (r->at) {
    case AT_BELOW:
        return i < r->k;
    case AT_BELOW_NTH:
        return i < n / r->k;
    case AT_MORE_BITS:
        return use_more_bits(i, n);
    default:
        return 1;
    }
}

static int needs_count(const gg_recipe_rule *r) { return r->at == AT_BELOW_NTH || r->at == AT_MORE_BITS; }

/* llama_tensor_get_type_impl for tensor ti of the recipe's quantized types. */
static int choose(walk *w, const gg_recipe *r, uint64_t ti, gg_tid *out, gg_err *e)
{
    const gg_recipe_facts *f = w->f;
    const gg_tinfo *info = f->m->t[ti].info;
    kind k = (kind)f->kind[ti];
    gg_tid t = r->base;
    /* the output tensor, and the token embeddings that stand for it */
    if (k == K_OUTPUT || (f->tied && k == K_TOKEN_EMBD)) {
        if ((r->flags & GG_RECIPE_MXFP4_MOE) || f->falcon || info->ne[0] % block_of(r->base))
            t = GG_T_Q8_0;
        else if (r->base != GG_T_Q8_0)
            t = GG_T_Q6_K;
        *out = t;
        return 0;
    }
    if (r->flags & GG_RECIPE_MXFP4_MOE) { /* the experts' 3-D tensors */
        int expert = !f->bailingmoe3 || k == K_FFN_UP || k == K_FFN_GATE || k == K_FFN_DOWN;
        *out = gg_tinfo_ndims(info) >= 3 && info->ne[2] > 1 && expert ? GG_T_MXFP4 : GG_T_Q8_0;
        return 0;
    }
    if (k == K_TOKEN_EMBD) {
        *out = r->embd ? r->embd : t;
        return 0;
    }
    int64_t i, n;
    if (place(w, ti, k, &i, &n, e))
        return -1;
    for (const gg_recipe_rule *rule = r->rules; rule && rule->kind; rule++) {
        if (rule->kind != k)
            continue;
        if (needs_count(rule) && n < 0)
            return fail_at(f, ti, e, "the recipe places it by layer, and the model has no block_count");
        if (rule_holds(f, rule, i, n)) {
            t = rule->type;
            break;
        }
    }
    if (k == K_ATTN_V) {
        /* a 70B's attn_v is 8 times smaller than its attn_q: more bits cost little */
        if (f->is70b && (t == GG_T_Q3_K || t == GG_T_Q4_K))
            t = GG_T_Q5_K;
        if (f->n_expert == 8)
            t = GG_T_Q8_0;
    }
    if (k == K_ATTN_K && f->n_expert == 8)
        t = GG_T_Q8_0;
    *out = t;
    return 0;
}

/* tensor_type_fallback: a row the type's block does not divide. */
static int fall_back(const gg_recipe_facts *f, uint64_t ti, gg_tid *t, gg_err *e)
{
    uint64_t ncols = f->m->t[ti].info->ne[0], qk = block_of(*t);
    if (ncols % qk == 0)
        return 0;
    gg_tid to = qk <= 32 ? *t : GG_T_NONE;
    for (size_t i = 0; i < sizeof fallbacks / sizeof fallbacks[0]; i++)
        if (fallbacks[i].from == *t)
            to = fallbacks[i].to;
    if (to == GG_T_NONE) {
        char what[160];
        snprintf(what, sizeof what, "rows of %" PRIu64 " values, which %s's blocks of %" PRIu64
                 " do not divide, and llama-quantize has no type to fall back to", ncols, gg_type_mainline(*t)->name, qk);
        return fail_at(f, ti, e, what);
    }
    *t = ncols % block_of(to) ? GG_T_F16 : to;
    return 0;
}

/* Can every type be made? */
static int makeable(const gg_recipe_facts *f, const gg_tid *types, gg_err *e)
{
    for (uint64_t i = 0; i < f->m->nt; i++)
        if (quantized(types[i]) && !gg_quantize_has(types[i]))
            return gg_fail(e, GG_E_UNSUPPORTED, "no quantizer makes %s yet", gg_type_mainline(types[i])->name);
    return 0;
}

int gg_recipe_types(const gg_recipe_facts *f, const gg_recipe *r, gg_tid *types, gg_err *e)
{
    walk w = {f, 0, 0, 0, 0};
    for (uint64_t i = 0; i < f->m->nt; i++) {
        const gg_tensor *t = &f->m->t[i];
        if (!gg_tensor_decodable(t))
            return fail_at(f, i, e, t->err ? t->err->msg : "type unknown: it cannot be decoded");
    }
    for (uint64_t j = 0; j < f->m->nt; j++) {
        uint64_t ti = f->order[j];
        gg_tid *t = &types[ti];
        if ((r->flags & GG_RECIPE_SOURCE) || !f->quantizable[ti]) {
            *t = GG_T_F32;
            continue;
        }
        if (!quantized(r->base)) {
            *t = r->base;
            continue;
        }
        if (choose(&w, r, ti, t, e) || fall_back(f, ti, t, e))
            return -1;
    }
    return makeable(f, types, e);
}

int gg_recipe_list(const char *list, uint64_t *mask, gg_err *e)
{
    _Static_assert(N_RECIPES <= 64, "a mask holds the recipes");
    *mask = 0;
    for (const char *p = list ? list : GG_RECIPES_LISTED; *p;) {
        size_t n = strcspn(p, ",");
        const gg_recipe *r = gg_recipe_by_name(p, n);
        if (!r && n)
            return gg_fail(e, GG_E_INVAL, "as=%s: no recipe %.*s (llama-quantize's names: f32, f16, q4_k_m, ...)",
                           list, (int)n, p);
        if (r)
            *mask |= 1ull << gg_recipe_index(r);
        p += n + (p[n] == ',');
    }
    return 0;
}

int gg_recipes_possible(const gg_model *m, uint64_t *ok,
                        void (*why_not)(void *arg, const gg_recipe *r, const gg_err *e), void *arg)
{
    *ok = 0;
    gg_recipe_facts *f = gg_recipe_facts_new(m);
    gg_tid *types = malloc((m->nt ? m->nt : 1) * sizeof *types);
    int rc = f && types ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < N_RECIPES; i++) {
        gg_err e;
        if (gg_recipe_types(f, &recipes[i], types, &e) == 0)
            *ok |= 1ull << i;
        else if (why_not)
            why_not(arg, &recipes[i], &e);
    }
    gg_recipe_facts_free(f);
    free(types);
    return rc;
}
