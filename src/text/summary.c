/* summary.c - a model at a glance (see summary.h). */
#include "gguffs/summary.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "gguffs/swa.h"
#include "gguffs/render.h"

/* The KV of key "<arch>.<suffix>" (or a plain key when arch is NULL). */
static const gg_kv *find(const gg_file *f, const char *arch, const char *suffix)
{
    char key[256];
    snprintf(key, sizeof key, "%s%s%s", arch ? arch : "", arch ? "." : "", suffix);
    int64_t i = gg_find_key(f, key);
    return i < 0 ? NULL : &f->kv[i];
}

static int is_int(uint32_t t) { return t <= GG_VT_I32 ? t != GG_VT_F32 : t == GG_VT_U64 || t == GG_VT_I64; }

static uint64_t le(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* An integer value, or element k of an integer array (the last one when k
 * is past its end); 0 when it is neither or negative. */
static uint64_t int_at(const gg_file *f, const gg_kv *kv, uint64_t k)
{
    if (!kv)
        return 0;
    if (kv->type != GG_VT_ARR) {
        if (!is_int(kv->type) || kv->type == GG_VT_BOOL)
            return 0;
        int64_t v = gg_kv_i64(f, kv);
        return kv->type == GG_VT_U64 ? gg_kv_u64(f, kv) : v < 0 ? 0 : (uint64_t)v;
    }
    if (!is_int(kv->arr_type) || kv->arr_type == GG_VT_BOOL || !kv->arr_n)
        return 0;
    size_t es = gg_vtype_size(kv->arr_type);
    uint64_t at = k < kv->arr_n ? k : kv->arr_n - 1;
    const uint8_t *p = f->hdr + kv->val + 4 + (f->version == 1 ? 4 : 8) + at * es;
    uint64_t v = le(p, es);
    int sgn = kv->arr_type == GG_VT_I8 || kv->arr_type == GG_VT_I16 || kv->arr_type == GG_VT_I32 ||
              kv->arr_type == GG_VT_I64;
    if (sgn && (v >> (8 * es - 1)) & 1)
        return 0;
    return v;
}

static void str_of(const gg_file *f, const gg_kv *kv, char *out, size_t cap)
{
    out[0] = 0;
    if (!kv || kv->type != GG_VT_STR)
        return;
    uint64_t len = le(f->hdr + kv->val, f->version == 1 ? 4 : 8);
    const char *s = (const char *)f->hdr + kv->val + (f->version == 1 ? 4 : 8);
    size_t n = len < cap - 1 ? (size_t)len : cap - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = (unsigned char)s[i] < 0x20 ? ' ' : s[i];
    out[n] = 0;
}

/* Does the model keep a KV cache? Not when its attention is not causal:
 * "<arch>.attention.causal" says so, and BERT and its kin (encoders that
 * llama.cpp runs without a cache) need not say it. */
static int causal(const gg_file *f, const char *arch)
{
    static const char *const encoders[] = {"bert",     "modern-bert",  "nomic-bert",   "nomic-bert-moe",
                                           "neo-bert", "jina-bert-v2", "jina-bert-v3", "eurobert"};
    const gg_kv *c = find(f, arch, "attention.causal");
    if (c && c->type == GG_VT_BOOL)
        return f->hdr[c->val] != 0;
    for (size_t i = 0; i < sizeof encoders / sizeof encoders[0]; i++)
        if (!strcmp(arch, encoders[i]))
            return 0;
    return 1;
}

/* Tensors and bytes per type, most bytes first. */
typedef struct mix {
    const char *type;
    uint64_t tensors, bytes;
} mix;

static int by_bytes(const void *a, const void *b)
{
    const mix *x = a, *y = b;
    return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 : strcmp(x->type, y->type);
}

static size_t type_mix(const gg_model *m, mix **out)
{
    mix *v = NULL;
    size_t n = 0, cap = 0;
    for (uint64_t i = 0; i < m->nt; i++) {
        const char *ty = m->t[i].type ? m->t[i].type->name : "unknown";
        size_t k = 0;
        while (k < n && strcmp(v[k].type, ty))
            k++;
        if (k == n) {
            if (n == cap) {
                cap = cap ? cap * 2 : 16;
                mix *p = realloc(v, cap * sizeof *p);
                if (!p)
                    break;
                v = p;
            }
            v[n++] = (mix){ty, 0, 0};
        }
        v[k].tensors++;
        v[k].bytes += m->t[i].nbytes;
    }
    if (n)
        qsort(v, n, sizeof *v, by_bytes);
    *out = v;
    return n;
}

/* An imatrix GGUF: "general.type" says so. */
static void imatrix_figures(const gg_model *m, gg_summary *s)
{
    char type[32];
    str_of(m->f, find(m->f, NULL, "general.type"), type, sizeof type);
    if (strcmp(type, "imatrix"))
        return;
    s->imatrix = 1;
    s->im_chunks = int_at(m->f, find(m->f, NULL, "imatrix.chunk_count"), 0);
    s->im_chunk_size = int_at(m->f, find(m->f, NULL, "imatrix.chunk_size"), 0);
    for (uint64_t i = 0; i < m->nt; i++)
        s->im_tensors += m->t[i].name_len > 8 && !memcmp(m->t[i].name + m->t[i].name_len - 8, ".in_sum2", 8);
}

/* The datasets of an imatrix (imatrix.datasets, an array of strings), each
 * as a TSV field or a JSON string, separated by sep. */
static void datasets(const gg_file *f, gg_buf *out, int json, const char *sep)
{
    const gg_kv *kv = find(f, NULL, "imatrix.datasets");
    if (!kv || kv->type != GG_VT_ARR || kv->arr_type != GG_VT_STR)
        return;
    size_t lw = f->version == 1 ? 4 : 8;
    const uint8_t *p = f->hdr + kv->val + 4 + lw;
    for (uint64_t i = 0; i < kv->arr_n; i++) {
        uint64_t len = le(p, lw);
        gg_buf_puts(out, i ? sep : "");
        if (json)
            gg_json_string(out, (const char *)p + lw, (size_t)len);
        else
            gg_tsv_field(out, (const char *)p + lw, (size_t)len);
        p += lw + len;
    }
}

/* The layers looked at one by one (KV cache, sliding window): block_count,
 * within a bound a hostile header cannot make work or text without end. */
static uint64_t layers_read(const gg_summary *s) { return s->layers < (1u << 20) ? s->layers : (1u << 20); }

void gg_model_summary(const gg_model *m, gg_summary *s)
{
    const gg_file *f = m->f;
    memset(s, 0, sizeof *s);
    str_of(f, find(f, NULL, "general.architecture"), s->arch, sizeof s->arch);
    str_of(f, find(f, NULL, "general.name"), s->name, sizeof s->name);
    for (uint64_t i = 0; i < m->nt; i++) {
        s->params += m->t[i].info->nelems;
        s->tensor_bytes += m->t[i].nbytes;
    }
    s->file_bytes = m->size;
    s->bpw = s->params ? (double)s->tensor_bytes * 8.0 / (double)s->params : 0;
    mix *v;
    size_t nmix = type_mix(m, &v);
    if (nmix)
        snprintf(s->main_type, sizeof s->main_type, "%s", v[0].type);
    free(v);
    const char *a = s->arch[0] ? s->arch : NULL;
    if (a) {
        s->context = int_at(f, find(f, a, "context_length"), 0);
        s->layers = int_at(f, find(f, a, "block_count"), 0);
        s->embedding = int_at(f, find(f, a, "embedding_length"), 0);
        s->heads = int_at(f, find(f, a, "attention.head_count"), 0);
        s->kv_heads = int_at(f, find(f, a, "attention.head_count_kv"), 0);
        s->experts = int_at(f, find(f, a, "expert_count"), 0);
        s->experts_used = int_at(f, find(f, a, "expert_used_count"), 0);
    }
    const gg_kv *tok = find(f, NULL, "tokenizer.ggml.tokens");
    s->vocab = tok && tok->type == GG_VT_ARR ? tok->arr_n : 0;
    str_of(f, find(f, NULL, "tokenizer.ggml.model"), s->tokenizer, sizeof s->tokenizer);
    s->chat_template = find(f, NULL, "tokenizer.chat_template") != NULL;
    if (a && !causal(f, a)) {
        s->kv_known = 1; /* none */
        s->no_kv_cache = 1;
    } else if (a && s->layers) {
        /* KV heads default to heads (no grouping); per-layer arrays are read per layer. */
        const gg_kv *hk = find(f, a, "attention.head_count"), *kk = find(f, a, "attention.head_count_kv");
        const gg_kv *kl = find(f, a, "attention.key_length"), *vl = find(f, a, "attention.value_length");
        uint64_t nl = layers_read(s), per_token = 0, window = 0;
        int known = hk != NULL;
        /* The sliding-window layers keep their window, whatever the context
         * (llama.cpp's tools keep no more than that, and a batch) */
        uint8_t *slides = calloc(nl, 1);
        if (slides)
            window = gg_sliding_layers(f, a, nl, slides);
        /* As llama.cpp: a head is embedding / heads of layer 0 long, in
         * every layer, unless key_length / value_length say otherwise. */
        uint64_t h0 = int_at(f, hk, 0), dflt = h0 ? s->embedding / h0 : 0;
        for (uint64_t l = 0; known && l < nl; l++) {
            uint64_t heads = int_at(f, hk, l), kvh = kk ? int_at(f, kk, l) : heads;
            uint64_t klen = kl ? int_at(f, kl, l) : dflt;
            uint64_t vlen = vl ? int_at(f, vl, l) : dflt;
            if (!klen && kvh)
                known = 0;
            if (window && slides[l]) {
                s->swa_layers++;
                s->swa_kv_bytes += kvh * (klen + vlen) * 2 * window;
            } else {
                per_token += kvh * (klen + vlen) * 2;
            }
        }
        free(slides);
        s->kv_known = known;
        s->kv_bytes_per_1k = known ? per_token * 1000 : 0;
        s->swa_tokens = known && s->swa_layers ? window : 0;
    }
    imatrix_figures(m, s);
}

void gg_params_text(uint64_t n, char *out, size_t cap)
{
    static const struct {
        double div;
        const char *unit;
    } u[] = {{1e3, "K"}, {1e6, "M"}, {1e9, "B"}, {1e12, "T"}};
    if (n < 1000) {
        snprintf(out, cap, "%" PRIu64, n);
        return;
    }
    int k = 0;
    while (k < 3 && (double)n >= u[k + 1].div)
        k++;
    char t[48];
    snprintf(t, sizeof t, "%.2f", (double)n / u[k].div);
    if (!strcmp(t, "1000.00") && k < 3) /* 999 999 is 1.00 M, not 1000.00 K */
        snprintf(t, sizeof t, "%.2f", (double)n / u[++k].div);
    snprintf(out, cap, "%s %s", t, u[k].unit);
}

static void bytes_text(uint64_t n, char *out, size_t cap)
{
    const char *u[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double x = (double)n;
    int k = 0;
    while (x >= 1024 && k < 4) {
        x /= 1024;
        k++;
    }
    if (k)
        snprintf(out, cap, "%.2f %s", x, u[k]);
    else
        snprintf(out, cap, "%" PRIu64 " B", n);
}

/* A count, or none when 0 (not known). */
static void count_or(gg_buf *out, uint64_t v, const char *none)
{
    if (v)
        gg_buf_printf(out, "%" PRIu64, v);
    else
        gg_buf_puts(out, none);
}

void gg_summary_text(const gg_model *m, gg_buf *out)
{
    gg_summary s;
    gg_model_summary(m, &s);
    char p[32], b[32], kv[32];
    gg_params_text(s.params, p, sizeof p);
    bytes_text(s.file_bytes, b, sizeof b);
    gg_buf_printf(out, "name            %s\n", s.name[0] ? s.name : "-");
    gg_buf_printf(out, "architecture    %s\n", s.arch[0] ? s.arch : "-");
    gg_buf_printf(out, "parameters      %s (%" PRIu64 ")\n", p, s.params);
    gg_buf_printf(out, "file size       %s (%" PRIu64 " bytes)\n", b, s.file_bytes);
    if (s.params)
        gg_buf_printf(out, "bits per weight %.2f\n", s.bpw);
    else
        gg_buf_puts(out, "bits per weight -\n"); /* (no parameters) */
    gg_buf_printf(out, "main type       %s\n", s.main_type[0] ? s.main_type : "-");
    if (s.imatrix) {
        gg_buf_puts(out, "type            imatrix\ndatasets        ");
        datasets(m->f, out, 0, ", ");
        gg_buf_puts(out, "\nchunks          ");
        count_or(out, s.im_chunks, "-");
        if (s.im_chunk_size)
            gg_buf_printf(out, " of %" PRIu64 " tokens", s.im_chunk_size);
        gg_buf_printf(out, "\nweighs          %" PRIu64 " tensors\n", s.im_tensors);
    }
#define NUM(label, v) ((v) ? gg_buf_printf(out, "%-15s %" PRIu64 "\n", label, (uint64_t)(v)) : (void)0)
    NUM("context length", s.context);
    NUM("layers", s.layers);
    NUM("embedding size", s.embedding);
    NUM("heads", s.heads);
    NUM("kv heads", s.kv_heads);
#undef NUM
    if (s.swa_tokens)
        gg_buf_printf(out, "sliding window  %" PRIu64 " tokens in %" PRIu64 " of %" PRIu64 " layers\n", s.swa_tokens,
                      s.swa_layers, s.layers);
    if (s.experts)
        gg_buf_printf(out, "experts         %" PRIu64 " used of %" PRIu64 "\n", s.experts_used, s.experts);
    if (s.vocab || s.tokenizer[0])
        gg_buf_printf(out, "vocabulary      %" PRIu64 " tokens (%s)\n", s.vocab, s.tokenizer[0] ? s.tokenizer : "-");
    gg_buf_printf(out, "chat template   %s\n", s.chat_template ? "yes" : "no");
    if (s.no_kv_cache) {
        gg_buf_puts(out, "kv cache        none (an encoder: its attention is not causal)\n");
    } else if (s.kv_known) {
        bytes_text(s.kv_bytes_per_1k, kv, sizeof kv);
        gg_buf_printf(out, "kv cache        %s per 1000 tokens at f16", kv);
        if (s.swa_tokens) {
            bytes_text(s.swa_kv_bytes, kv, sizeof kv);
            gg_buf_printf(out, ", and %s for the sliding window", kv);
        }
        gg_buf_puts(out, "\n");
    }
    mix *v;
    size_t n = type_mix(m, &v);
    gg_buf_puts(out, "types\n");
    for (size_t i = 0; i < n; i++) {
        bytes_text(v[i].bytes, b, sizeof b);
        gg_buf_printf(out, "  %-10s %6" PRIu64 " %-7s %12s %5.1f%%\n", v[i].type, v[i].tensors,
                      v[i].tensors == 1 ? "tensor" : "tensors", b,
                      s.tensor_bytes ? 100.0 * (double)v[i].bytes / (double)s.tensor_bytes : 0.0);
    }
    free(v);
}

/* A JSON string, or null when empty. */
static void json_string_or_null(gg_buf *out, const char *v)
{
    if (v[0])
        gg_json_string(out, v, strlen(v));
    else
        gg_buf_puts(out, "null");
}

/* A text field (not the first). */
static void json_text(gg_buf *out, const char *key, const char *v)
{
    gg_buf_printf(out, ",\n  \"%s\": ", key);
    json_string_or_null(out, v);
}

static void json_num(gg_buf *out, const char *key, uint64_t v, int known)
{
    if (known)
        gg_buf_printf(out, ",\n  \"%s\": %" PRIu64, key, v);
    else
        gg_buf_printf(out, ",\n  \"%s\": null", key);
}

/* "sliding_window": its tokens, the layers that slide, their KV cache; or null. */
static void sliding_json(const gg_model *m, const gg_summary *s, gg_buf *out)
{
    uint64_t nl = layers_read(s);
    uint8_t *slides = s->swa_tokens ? calloc(nl, 1) : NULL;
    if (!slides) {
        gg_buf_puts(out, ",\n  \"sliding_window\": null");
        return;
    }
    gg_sliding_layers(m->f, s->arch, nl, slides);
    gg_buf_printf(out, ",\n  \"sliding_window\": {\"tokens\": %" PRIu64 ", \"layers\": [", s->swa_tokens);
    for (uint64_t l = 0, k = 0; l < nl; l++)
        if (slides[l])
            gg_buf_printf(out, "%s%" PRIu64, k++ ? ", " : "", l);
    gg_buf_printf(out, "], \"kv_cache_bytes_f16\": %" PRIu64 "}", s->swa_kv_bytes);
    free(slides);
}

void gg_summary_json(const gg_model *m, gg_buf *out)
{
    gg_summary s;
    gg_model_summary(m, &s);
    char p[32];
    gg_params_text(s.params, p, sizeof p);
    gg_buf_puts(out, "{\n  \"name\": ");
    json_string_or_null(out, s.name);
    json_text(out, "architecture", s.arch);
    gg_buf_printf(out, ",\n  \"parameters\": %" PRIu64 ",\n  \"parameters_text\": \"%s\"", s.params, p);
    gg_buf_printf(out, ",\n  \"file_bytes\": %" PRIu64 ",\n  \"tensor_bytes\": %" PRIu64, s.file_bytes, s.tensor_bytes);
    if (s.params)
        gg_buf_printf(out, ",\n  \"bits_per_weight\": %.4f", s.bpw);
    else
        gg_buf_puts(out, ",\n  \"bits_per_weight\": null");
    json_text(out, "main_type", s.main_type);
    json_num(out, "context_length", s.context, s.context);
    json_num(out, "layers", s.layers, s.layers);
    json_num(out, "embedding_length", s.embedding, s.embedding);
    json_num(out, "heads", s.heads, s.heads);
    json_num(out, "kv_heads", s.kv_heads, s.kv_heads);
    json_num(out, "experts", s.experts, s.experts);
    json_num(out, "experts_used", s.experts_used, s.experts);
    json_num(out, "vocabulary_size", s.vocab, s.vocab || find(m->f, NULL, "tokenizer.ggml.tokens"));
    json_text(out, "tokenizer_model", s.tokenizer);
    gg_buf_printf(out, ",\n  \"chat_template\": %s", s.chat_template ? "true" : "false");
    json_num(out, "kv_cache_bytes_per_1000_tokens_f16", s.kv_bytes_per_1k, s.kv_known);
    sliding_json(m, &s, out);
    if (s.imatrix) {
        gg_buf_puts(out, ",\n  \"imatrix\": {\"datasets\": [");
        datasets(m->f, out, 1, ", ");
        gg_buf_puts(out, "], \"chunk_count\": ");
        count_or(out, s.im_chunks, "null");
        gg_buf_puts(out, ", \"chunk_size\": ");
        count_or(out, s.im_chunk_size, "null");
        gg_buf_printf(out, ", \"tensors\": %" PRIu64 "}", s.im_tensors);
    } else {
        gg_buf_puts(out, ",\n  \"imatrix\": null");
    }
    gg_buf_puts(out, ",\n  \"types\": [");
    mix *v;
    size_t n = type_mix(m, &v);
    for (size_t i = 0; i < n; i++)
        gg_buf_printf(out, "%s\n    {\"type\": \"%s\", \"tensors\": %" PRIu64 ", \"bytes\": %" PRIu64
                      ", \"share\": %.6f}", i ? "," : "", v[i].type, v[i].tensors, v[i].bytes,
                      s.tensor_bytes ? (double)v[i].bytes / (double)s.tensor_bytes : 0.0);
    free(v);
    gg_buf_puts(out, "\n  ]\n}\n");
}
