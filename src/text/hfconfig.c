/* hfconfig.c - config.json, generation_config.json and why of as/hf/ (see
 * hfconfig.h). The fields are those of transformers' config classes
 * (LlamaConfig, Qwen2Config, Gemma2Config, ...); their values follow
 * llama.cpp's reading of the keys (llama-model.cpp, src/models/<arch>.cpp). */
#include "gguffs/hfconfig.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/floatfmt.h"
#include "gguffs/hftokenizer.h"
#include "gguffs/kvget.h"
#include "gguffs/swa.h"

/* ---- JSON values ---- */

static void key(gg_buf *o, const char *k) { gg_buf_printf(o, ",\n  \"%s\": ", k); }

static void u64(gg_buf *o, const char *k, uint64_t v)
{
    key(o, k);
    gg_buf_printf(o, "%" PRIu64, v);
}

static void boolean(gg_buf *o, const char *k, int v)
{
    key(o, k);
    gg_buf_puts(o, v ? "true" : "false");
}

static void str(gg_buf *o, const char *k, const char *v)
{
    key(o, k);
    gg_json_string(o, v, strlen(v));
}

static void null(gg_buf *o, const char *k)
{
    key(o, k);
    gg_buf_puts(o, "null");
}

/* A float as the shortest text of its own precision (f32 values came from
 * f32 keys); JSON has no inf or nan: null. */
static void fnum(gg_buf *o, double v, int is_f32)
{
    char b[GG_FMT_BUF];
    if (v != v || v - v != 0) {
        gg_buf_puts(o, "null");
        return;
    }
    if (is_f32)
        gg_fmt_f32(b, (float)v);
    else
        gg_fmt_f64(b, v);
    gg_buf_puts(o, b);
}

/* The number of key "<arch>.<suffix>" (an integer as one), else dflt
 * (an f32, as llama.cpp's defaults are); returns whether the key was there. */
static int knum(gg_buf *o, const char *k, const gg_model *m, const char *arch, const char *suffix, double dflt)
{
    const gg_kv *kv = gg_kv_get(m->f, arch, suffix);
    double v;
    key(o, k);
    if (gg_kv_double(m->f, kv, &v) == 0) {
        if (kv->type != GG_VT_F32 && kv->type != GG_VT_F64)
            gg_buf_printf(o, "%.17g", v);
        else
            fnum(o, v, kv->type == GG_VT_F32);
        return 1;
    }
    fnum(o, dflt, 1);
    return 0;
}

static double kval(const gg_model *m, const char *arch, const char *suffix, double dflt)
{
    double v;
    return gg_kv_double(m->f, gg_kv_get(m->f, arch, suffix), &v) == 0 ? v : dflt;
}

static int has(const gg_model *m, const char *arch, const char *suffix) { return gg_kv_get(m->f, arch, suffix) != NULL; }

/* A token id key of tokenizer.ggml.* (when it names a token; else -1). */
static int token_id(gg_buf *o, const gg_model *m, const char *k, const char *suffix)
{
    uint64_t v;
    if (gg_kv_uint(m->f, gg_kv_get(m->f, "tokenizer.ggml", suffix), &v) != 0)
        return -1;
    u64(o, k, v);
    return 0;
}

/* ---- config.json ---- */

/* ---- llama 3's rope scaling ---- */

/* r_i of the converter (conversion/llama.py generate_extra_tensors) */
static double llama3_factor(double wavelen, const gg_hf_llama3 *c)
{
    if (wavelen < c->orig_ctx / c->high)
        return 1.0;
    if (wavelen > c->orig_ctx / c->low)
        return c->factor;
    double s = (c->orig_ctx / wavelen - c->low) / (c->high - c->low);
    return 1.0 / ((1.0 - s) / c->factor + s);
}

/* Does c give every r[i] within float32 rounding of what the converter
 * computed in f32? */
static int llama3_fits(const float *r, uint64_t n, double base, uint64_t dim, const gg_hf_llama3 *c)
{
    for (uint64_t i = 0; i < n; i++) {
        double want = llama3_factor(2 * M_PI * pow(base, (double)(2 * i) / (double)dim), c);
        if (!(fabs(want - r[i]) <= 4e-7 * want))
            return 0;
    }
    return 1;
}

/* The parameters from the factors themselves, for contexts and factors off
 * the usual grid: the pairs whose factor is the largest lie past the low
 * wavelength A = L / low, those at 1 below the high one B = L / high, and
 * each pair between gives s = (A / w - 1) / (A / B - 1). A and B are what
 * matters; L is then any context below the model's own, which transformers
 * asks of original_max_position_embeddings: the model's divided by the
 * factor (8192 when the model has none). */
static int llama3_solve(const float *r, uint64_t n, double base, uint64_t dim, double ctx, gg_hf_llama3 *out)
{
    float f = 0;
    for (uint64_t i = 0; i < n; i++)
        f = r[i] > f ? r[i] : f;
    if (!(f > 1))
        return 0;
    double w_hi = 0, w_mid_lo = INFINITY, w_mid_hi = 0, w_lo = INFINITY; /* bounds of each group's wavelengths */
    double sw[2][2];                                                     /* two medium pairs: (1 / w, s) */
    int nmid = 0;
    for (uint64_t i = 0; i < n; i++) {
        double w = 2 * M_PI * pow(base, (double)(2 * i) / (double)dim);
        if (r[i] == 1.0f) {
            w_hi = w > w_hi ? w : w_hi;
        } else if (r[i] == f) {
            w_lo = w < w_lo ? w : w_lo;
        } else {
            w_mid_lo = w < w_mid_lo ? w : w_mid_lo;
            w_mid_hi = w > w_mid_hi ? w : w_mid_hi;
            if (nmid < 2) {
                sw[nmid][0] = 1 / w;
                sw[nmid][1] = (1 / (double)r[i] - 1 / (double)f) / (1 - 1 / (double)f);
            }
            nmid++;
        }
    }
    double A, B;
    if (nmid >= 2) {
        /* s (A/B - 1) = A/w - 1, in u = A and v = A / B: s v - u / w = s - 1 */
        double det = sw[0][1] * -sw[1][0] - sw[1][1] * -sw[0][0];
        if (det == 0)
            return 0;
        double v = ((sw[0][1] - 1) * -sw[1][0] - (sw[1][1] - 1) * -sw[0][0]) / det;
        A = (sw[0][1] * (sw[1][1] - 1) - sw[1][1] * (sw[0][1] - 1)) / det;
        B = A / v;
    } else if (nmid == 1) {
        /* A anywhere between the medium pair and the low ones; B follows */
        A = w_lo < INFINITY ? (w_mid_hi + w_lo) / 2 : 2 * w_mid_hi;
        B = A / (1 + (A * sw[0][0] - 1) / sw[0][1]);
    } else {
        /* no pair between: the boundaries lie between the two groups */
        A = w_lo < INFINITY ? (w_hi + w_lo) / 2 : 2 * w_hi;
        B = w_hi > 0 ? (w_hi + A) / 2 : A / 2;
        if (B >= A)
            B = A / 2;
    }
    if (!(A > 0 && B > 0 && A > B && B > w_hi && A < w_lo && B <= w_mid_lo && A >= w_mid_hi))
        return 0;
    out->factor = f;
    out->factor_f32 = f;
    out->orig_ctx = ctx > 0 ? fmax(1, floor(ctx / f)) : 8192;
    out->low = out->orig_ctx / A;
    out->high = out->orig_ctx / B;
    return llama3_fits(r, n, base, dim, out);
}

int gg_hf_rope_llama3(const float *r, uint64_t n, double base, uint64_t dim, double ctx, gg_hf_llama3 *out)
{
    /* the contexts, and low / high factors, llama 3 models use, and a few more */
    static const double ctxs[] = {8192, 4096, 16384, 32768, 2048, 65536, 131072, 1024};
    static const double lows[] = {1, 2, 0.5, 4}, highs[] = {4, 8, 2, 16, 32};
    static const double factors[] = {8, 16, 32, 64, 4, 2};
    float mx = 0;
    int all_one = 1;
    for (uint64_t i = 0; i < n; i++) {
        if (!(r[i] > 0) || r[i] != r[i] || r[i] > 1e6)
            return -1;
        all_one &= r[i] == 1.0f;
        mx = r[i] > mx ? r[i] : mx;
    }
    if (all_one)
        return 0;
    /* the factor is the largest (when a pair is past the low wavelength),
     * else one of the usual ones */
    for (size_t fi = 0; fi <= sizeof factors / sizeof factors[0]; fi++) {
        gg_hf_llama3 c = {.factor = fi ? factors[fi - 1] : mx, .factor_f32 = fi ? (float)factors[fi - 1] : mx};
        for (size_t ci = 0; ci < sizeof ctxs / sizeof ctxs[0]; ci++)
            for (size_t li = 0; li < sizeof lows / sizeof lows[0]; li++)
                for (size_t hi = 0; hi < sizeof highs / sizeof highs[0]; hi++) {
                    c.orig_ctx = ctxs[ci];
                    c.low = lows[li];
                    c.high = highs[hi];
                    /* transformers wants the original context below the model's */
                    if (c.high <= c.low || (ctx > 0 && c.orig_ctx >= ctx))
                        continue;
                    if (llama3_fits(r, n, base, dim, &c)) {
                        *out = c;
                        return 1;
                    }
                }
    }
    return llama3_solve(r, n, base, dim, ctx, out) ? 1 : -1;
}

/* rope_scaling: llama.cpp scales positions linearly by the factor key
 * (rope.scaling.factor, or the older rope.scale_linear) unless the type is
 * "none"; the plan refused every other type. */
static void rope_scaling(gg_buf *o, const gg_model *m, const char *arch)
{
    const gg_kv *ty = gg_kv_get(m->f, arch, "rope.scaling.type");
    const gg_kv *f = gg_kv_get(m->f, arch, "rope.scaling.factor");
    if (!f)
        f = gg_kv_get(m->f, arch, "rope.scale_linear");
    double v;
    key(o, "rope_scaling");
    if (gg_kv_str_is(m->f, ty, "none") || gg_kv_double(m->f, f, &v) || v == 0.0 || v == 1.0) {
        gg_buf_puts(o, "null");
        return;
    }
    gg_buf_puts(o, "{\"factor\": ");
    fnum(o, v, f->type == GG_VT_F32);
    gg_buf_puts(o, ", \"rope_type\": \"linear\", \"type\": \"linear\"}");
}

/* layer_types: llama.cpp's sliding-window layers (swa.h). */
static void layer_types(gg_buf *o, const gg_model *m, const char *arch, uint64_t n_layer)
{
    uint8_t *slides = calloc(n_layer ? n_layer : 1, 1);
    if (slides)
        gg_sliding_layers(m->f, arch, n_layer, slides);
    key(o, "layer_types");
    gg_buf_puts(o, "[");
    for (uint64_t il = 0; il < n_layer; il++)
        gg_buf_printf(o, "%s\"%s\"", il ? ", " : "", slides && slides[il] ? "sliding_attention" : "full_attention");
    gg_buf_puts(o, "]");
    free(slides);
}

/* The query scale llama.cpp uses for gemma: 1/sqrt(n_embd / n_head) for
 * the 27B models (recognised by their layer count), else 1/sqrt(head_dim);
 * transformers divides by sqrt(query_pre_attn_scalar). */
static uint64_t query_scalar(const gg_hf_plan *p, uint64_t layers_27b)
{
    return p->n_layer == layers_27b ? p->n_embd / p->n_head : p->head_dim;
}

/* phi-3's longrope lists, each value the shortest text of its f32 */
static void factors(gg_buf *o, const char *k, const float *v, uint64_t n)
{
    gg_buf_printf(o, ", \"%s\": [", k);
    for (uint64_t i = 0; i < n; i++) {
        if (i)
            gg_buf_puts(o, ", ");
        fnum(o, v[i], 1);
    }
    gg_buf_puts(o, "]");
}

/* rope_scaling from the plan's rope (hfplan.h): llama3's factors solved from
 * rope_freqs, phi-3's longrope lists, else the GGUF keys (rope_scaling). */
static void rope_scaling_of(gg_buf *o, const gg_model *m, const char *a, const gg_hf_rope *rope)
{
    if (rope && rope->kind == GG_HF_ROPE_LLAMA3) {
        const gg_hf_llama3 *l3 = &rope->llama3;
        key(o, "rope_scaling");
        gg_buf_puts(o, "{\"rope_type\": \"llama3\", \"factor\": ");
        fnum(o, l3->factor_f32, 1);
        gg_buf_puts(o, ", \"low_freq_factor\": ");
        fnum(o, l3->low, 0);
        gg_buf_puts(o, ", \"high_freq_factor\": ");
        fnum(o, l3->high, 0);
        gg_buf_printf(o, ", \"original_max_position_embeddings\": %.0f}", l3->orig_ctx);
    } else if (rope && rope->kind == GG_HF_ROPE_LONGROPE) {
        /* transformers derives the attention factor from the two contexts,
         * as the converter did for the key (the plan checked it) */
        key(o, "rope_scaling");
        gg_buf_puts(o, "{\"rope_type\": \"longrope\", \"type\": \"longrope\"");
        factors(o, "long_factor", rope->long_f, rope->n);
        factors(o, "short_factor", rope->short_f, rope->n);
        gg_buf_puts(o, "}");
    } else {
        rope_scaling(o, m, a);
    }
}

static void gemma_act(gg_buf *o)
{
    str(o, "hidden_act", "gelu_pytorch_tanh");
    str(o, "hidden_activation", "gelu_pytorch_tanh");
}

static void gemma2_keys(gg_buf *o, const gg_model *m, const gg_hf_plan *p, const char *a)
{
    gemma_act(o);
    u64(o, "query_pre_attn_scalar", query_scalar(p, 46));
    knum(o, "attn_logit_softcapping", m, a, "attn_logit_softcapping", 50.0);
    knum(o, "final_logit_softcapping", m, a, "final_logit_softcapping", 30.0);
    knum(o, "sliding_window", m, a, "attention.sliding_window", 4096);
    layer_types(o, m, a, p->n_layer);
    str(o, "cache_implementation", "hybrid");
}

static void gemma3_keys(gg_buf *o, const gg_model *m, const gg_hf_plan *p, const char *a)
{
    /* without a sliding window every layer is global (llama.cpp) */
    int swa = kval(m, a, "attention.sliding_window", 0) > 0;
    uint64_t period = (uint64_t)kval(m, a, "attention.sliding_window_pattern", 6);
    gemma_act(o);
    u64(o, "query_pre_attn_scalar", query_scalar(p, 62));
    if (!has(m, a, "final_logit_softcapping"))
        null(o, "final_logit_softcapping");
    else
        knum(o, "final_logit_softcapping", m, a, "final_logit_softcapping", 0);
    null(o, "attn_logit_softcapping");
    if (swa)
        knum(o, "sliding_window", m, a, "attention.sliding_window", 0);
    else
        null(o, "sliding_window");
    u64(o, "sliding_window_pattern", period);
    knum(o, "rope_local_base_freq", m, a, "rope.freq_base_swa", 10000.0);
    layer_types(o, m, a, p->n_layer);
}

static void phi3_keys(gg_buf *o, const gg_model *m, const gg_hf_plan *p, const char *a)
{
    str(o, "hidden_act", "silu");
    key(o, "partial_rotary_factor");
    fnum(o, (double)p->n_rot / (double)p->head_dim, 0);
    knum(o, "original_max_position_embeddings", m, a,
         has(m, a, "rope.scaling.original_context_length") ? "rope.scaling.original_context_length"
                                                            : "context_length",
         0);
    /* the converter writes 0 for none (phi-4) */
    if (kval(m, a, "attention.sliding_window", 0) > 0)
        knum(o, "sliding_window", m, a, "attention.sliding_window", 0);
    else
        null(o, "sliding_window");
}

/* The activation, then what the gemma and phi-3 families add about attention. */
static void activation_keys(gg_buf *o, const gg_model *m, const gg_hf_plan *p, const char *a)
{
    switch (p->variant) {
    case GG_HF_GEMMA:
        gemma_act(o);
        break;
    case GG_HF_GEMMA2:
        gemma2_keys(o, m, p, a);
        break;
    case GG_HF_GEMMA3:
        gemma3_keys(o, m, p, a);
        break;
    case GG_HF_PHI3:
        phi3_keys(o, m, p, a);
        break;
    default:
        str(o, "hidden_act", "silu");
        break;
    }
}

static void qwen_keys(gg_buf *o, const gg_hf_plan *p)
{
    boolean(o, "use_sliding_window", 0);
    null(o, "sliding_window");
    if (p->variant == GG_HF_QWEN3 || p->variant == GG_HF_QWEN3MOE)
        boolean(o, "attention_bias", p->attention_bias);
    if (p->variant == GG_HF_QWEN2MOE || p->variant == GG_HF_QWEN3MOE) {
        u64(o, "num_experts", p->n_expert);
        u64(o, "num_experts_per_tok", p->n_expert_used);
        u64(o, "moe_intermediate_size", p->n_ff_exp);
        if (p->variant == GG_HF_QWEN2MOE)
            u64(o, "shared_expert_intermediate_size", p->n_ff_shexp);
        /* llama.cpp renormalises the chosen experts' weights for qwen3moe only */
        boolean(o, "norm_topk_prob", p->variant == GG_HF_QWEN3MOE);
        u64(o, "decoder_sparse_step", 1);
        key(o, "mlp_only_layers");
        gg_buf_puts(o, "[]");
    }
}

/* The last keys, of the llama, mistral and qwen families: biases, the
 * sliding window they do not use, their experts. */
static void family_keys(gg_buf *o, const gg_hf_plan *p)
{
    switch (p->variant) {
    case GG_HF_LLAMA:
        boolean(o, "attention_bias", p->attention_bias);
        boolean(o, "mlp_bias", 0);
        break;
    case GG_HF_MISTRAL:
        null(o, "sliding_window");
        break;
    case GG_HF_MIXTRAL:
        null(o, "sliding_window");
        u64(o, "num_local_experts", p->n_expert);
        u64(o, "num_experts_per_tok", p->n_expert_used);
        break;
    case GG_HF_QWEN2:
    case GG_HF_QWEN3:
    case GG_HF_QWEN2MOE:
    case GG_HF_QWEN3MOE:
        qwen_keys(o, p);
        break;
    default:
        break;
    }
}

void gg_hf_config_json(const gg_model *m, const gg_hf_plan *p, const char *torch_dtype, const gg_hf_rope *rope,
                       gg_buf *o)
{
    const char *a = p->arch;
    gg_buf_printf(o, "{\n  \"architectures\": [\"%s\"]", p->hf_class);
    str(o, "model_type", p->model_type);
    u64(o, "vocab_size", p->n_vocab);
    u64(o, "hidden_size", p->n_embd);
    u64(o, "intermediate_size", p->n_ff ? p->n_ff : p->n_ff_exp);
    u64(o, "num_hidden_layers", p->n_layer);
    u64(o, "num_attention_heads", p->n_head);
    u64(o, "num_key_value_heads", p->n_head_kv);
    u64(o, "head_dim", p->head_dim);
    knum(o, "max_position_embeddings", m, a, "context_length", 0);
    knum(o, "rms_norm_eps", m, a, "attention.layer_norm_rms_epsilon", 1e-6);
    knum(o, "rope_theta", m, a, "rope.freq_base", 10000.0);
    rope_scaling_of(o, m, a, rope);
    boolean(o, "tie_word_embeddings", p->tied);
    token_id(o, m, "bos_token_id", "bos_token_id");
    token_id(o, m, "eos_token_id", "eos_token_id");
    /* no padding token: null, not the class's default (Phi3Config's 32000 can lie
     * past the vocabulary, and transformers then fails to make the embedding) */
    if (token_id(o, m, "pad_token_id", "padding_token_id") != 0)
        null(o, "pad_token_id");
    str(o, "torch_dtype", torch_dtype);
    boolean(o, "use_cache", 1);
    key(o, "attention_dropout");
    gg_buf_puts(o, "0.0");
    activation_keys(o, m, p, a);
    family_keys(o, p);
    gg_buf_puts(o, "\n}\n");
}

/* eos_token_id: every token llama.cpp ends generation at (a number when it
 * is one, as transformers takes both), none when there is none; the EOS
 * key alone when the vocabulary cannot be read. */
static void eos_ids(gg_buf *o, const gg_model *m)
{
    int64_t *ids, n = gg_hf_eog_ids(m, &ids);
    if (n == -1)
        token_id(o, m, "eos_token_id", "eos_token_id");
    else if (n == -2)
        o->oom = 1;
    else if (n == 1)
        u64(o, "eos_token_id", (uint64_t)ids[0]);
    else if (n > 1) {
        key(o, "eos_token_id");
        for (int64_t i = 0; i < n; i++)
            gg_buf_printf(o, "%s%" PRId64, i ? ", " : "[", ids[i]);
        gg_buf_puts(o, "]");
    }
    free(ids);
}

void gg_hf_generation_config_json(const gg_model *m, gg_buf *o)
{
    gg_buf_puts(o, "{\n  \"_from_model_config\": true");
    token_id(o, m, "bos_token_id", "bos_token_id");
    eos_ids(o, m);
    token_id(o, m, "pad_token_id", "padding_token_id");
    gg_buf_puts(o, "\n}\n");
}

void gg_hf_why(const gg_model *m, const gg_hf_plan *p, const char *more, gg_buf *o)
{
    if (p->why || more) {
        gg_buf_puts(o, "no config.json or model.safetensors:\n");
        gg_buf_puts(o, p->why ? p->why : "");
        if (more)
            gg_buf_printf(o, "%s\n", more);
    }
    gg_buf t = {0};
    if (gg_hf_tokenizer_ok(m, &t) <= 0 && t.len) {
        gg_buf_puts(o, "no tokenizer files:\n");
        gg_buf_put(o, t.p, t.len);
    }
    if (t.oom)
        o->oom = 1;
    gg_buf_free(&t);
}
