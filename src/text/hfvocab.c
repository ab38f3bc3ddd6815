/* hfvocab.c - a GGUF vocabulary as llama.cpp loads it (see hfvocab.h). */
#include "hfvocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hash.h"
#include "gguffs/kvget.h"

/* The largest vocabularies have some 260 000 tokens: this bounds what a
 * hostile header makes a load allocate. */
#define HF_MAX_TOKENS (1u << 22)

static const gg_kv *tk(const gg_file *f, const char *suffix) { return gg_kv_get(f, "tokenizer.ggml", suffix); }

/* ---- llama.cpp's fixes of token attributes by their text ---- */

/* Tokens llama.cpp makes control tokens whatever their type, to end
 * generation (llama_vocab::impl::load: special_eog_ids). */
static const char *const eog_texts[] = {
    "<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>", "<|calls|>", "<end_of_turn>",
    "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]", "[EOS]", "<|end_of_text|>",
    "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>", "<\xef\xbd\x9c" "end\xe2\x96\x81of\xe2\x96\x81sentence\xef\xbd\x9c>",
    "[e~[", NULL};

/* Fill-in-the-middle tokens it finds by text when the file names none
 * (the key, then its texts); the pad, repo and separator ones end
 * generation. */
static const struct fim {
    const char *key, *old_key;
    int ends;
    const char *const texts[9];
} fims[] = {
    {"fim_pre_token_id", "prefix_token_id", 0,
     {"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<\xef\xbd\x9c" "fim\xe2\x96\x81" "begin\xef\xbd\x9c>",
      "<PRE>", "\xe2\x96\x81<PRE>", "<|code_prefix|>", "<|prefix|>", NULL}},
    {"fim_suf_token_id", "suffix_token_id", 0,
     {"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<\xef\xbd\x9c" "fim\xe2\x96\x81hole\xef\xbd\x9c>", "<SUF>",
      "\xe2\x96\x81<SUF>", "<|code_suffix|>", "<|suffix|>", NULL}},
    {"fim_mid_token_id", "middle_token_id", 0,
     {"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<\xef\xbd\x9c" "fim\xe2\x96\x81" "end\xef\xbd\x9c>", "<MID>",
      "\xe2\x96\x81<MID>", "<|code_middle|>", "<|middle|>", NULL}},
    {"fim_pad_token_id", NULL, 1, {"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]", NULL}},
    {"fim_rep_token_id", NULL, 1, {"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>", NULL}},
    {"fim_sep_token_id", NULL, 1, {"<|file_sep|>", NULL}},
};
enum { NFIM = sizeof fims / sizeof fims[0] };

/* gpt-oss: always rendered, so user-defined */
static const char *const user_texts[] = {"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>", NULL};

static int in_list(const hf_vocab *v, uint64_t i, const char *const *list)
{
    /* every text of the lists starts with '<', '[', '_' or "▁<" */
    const char *s = v->text[i];
    if (s[0] != '<' && s[0] != '[' && s[0] != '_' && !((unsigned char)s[0] == 0xe2 && v->tlen[i] > 3 && s[3] == '<'))
        return 0;
    for (; *list; list++)
        if (hf_vocab_is(v, i, *list))
            return 1;
    return 0;
}

/* ---- the table of texts ---- */

typedef struct table {
    uint32_t *slot; /* id + 1; 0 empty (vocabularies hold at most 2^22 tokens) */
    uint64_t cap;
} table;

static uint64_t lookup(const hf_vocab *v, const table *t, const char *s, size_t n)
{
    for (uint64_t k = gg_hash64(s, n, 0) & (t->cap - 1); t->slot[k]; k = (k + 1) & (t->cap - 1)) {
        uint64_t id = t->slot[k] - 1;
        if (v->tlen[id] == n && !memcmp(v->text[id], s, n))
            return id;
    }
    return UINT64_MAX;
}

/* -1: out of memory; else the first duplicate's id, or UINT64_MAX. */
static int table_build(const hf_vocab *v, table *t, uint64_t *dup)
{
    t->cap = 64;
    while (t->cap < 2 * v->n)
        t->cap *= 2;
    t->slot = calloc(t->cap, sizeof *t->slot);
    if (!t->slot)
        return -1;
    *dup = UINT64_MAX;
    for (uint64_t i = 0; i < v->n; i++) {
        uint64_t k = gg_hash64(v->text[i], v->tlen[i], 0) & (t->cap - 1);
        for (; t->slot[k]; k = (k + 1) & (t->cap - 1)) {
            uint64_t id = t->slot[k] - 1;
            if (v->tlen[id] == v->tlen[i] && !memcmp(v->text[id], v->text[i], v->tlen[i]) && *dup == UINT64_MAX)
                *dup = i;
        }
        t->slot[k] = (uint32_t)(i + 1);
    }
    return 0;
}

/* ---- loading ---- */

static void why_line(gg_buf *why, const char *s) { gg_buf_printf(why, "%s\n", s); }

/* An id key, else llama.cpp's default (when it is a token). */
static int64_t special_id(const hf_vocab *v, const char *suffix, int64_t dflt)
{
    uint64_t x;
    if (gg_kv_uint(v->f, tk(v->f, suffix), &x) == 0 && x < v->n)
        return (int64_t)x;
    return dflt >= 0 && (uint64_t)dflt < v->n ? dflt : -1;
}

static int flag(const hf_vocab *v, const char *suffix, int dflt)
{
    int b;
    return gg_kv_bool(v->f, tk(v->f, suffix), &b) == 0 ? b : dflt;
}

/* The first token whose text is in list, or -1. (llama.cpp takes the first
 * its hash table yields: with two texts of one list in a vocabulary, which
 * is not known; the lowest id here.) */
static int64_t first_of(const hf_vocab *v, const char *const *list)
{
    for (uint64_t i = 0; i < v->n; i++)
        if (in_list(v, i, list))
            return (int64_t)i;
    return -1;
}

/* The id of a token of the set whose text is s, or -1. */
static int64_t eog_with(const hf_vocab *v, const char *s)
{
    for (uint64_t i = 0; i < v->n; i++)
        if ((v->attr[i] & HF_EOG) && hf_vocab_is(v, i, s))
            return (int64_t)i;
    return -1;
}

/* The tokens that end generation (llama.cpp's special_eog_ids): those of
 * eog_texts (marked already), the fill-in-the-middle pad, repo and
 * separator tokens, the EOS, EOT and EOM tokens; then two removals, for
 * tokenizers where a text of the list means something else: gpt-oss's and
 * solar-open's "<|end|>" (ends a message, not the turn: with "<|return|>"
 * and "<|call|>", or "<|call|>" / "<|calls|>" and "<|flush|>", it becomes
 * user-defined), and gemma 4's "</s>" (with "<|tool_response>": a normal
 * token). */
static void eog_set(hf_vocab *v, const int64_t *fim)
{
    int64_t ids[NFIM + 3] = {v->eos, special_id(v, "eot_token_id", -1), special_id(v, "eom_token_id", -1)};
    for (size_t k = 0; k < NFIM; k++)
        ids[3 + k] = fims[k].ends ? fim[k] : -1;
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++)
        if (ids[k] >= 0)
            v->attr[ids[k]] |= HF_EOG;
    int call = eog_with(v, "<|call|>") >= 0 || eog_with(v, "<|calls|>") >= 0;
    int64_t end = eog_with(v, "<|end|>");
    if (end >= 0 && call && (eog_with(v, "<|return|>") >= 0 || eog_with(v, "<|flush|>") >= 0))
        v->attr[end] = HF_ATTR_USER;
    int64_t s = eog_with(v, "</s>");
    if (s >= 0 && eog_with(v, "<|tool_response>") >= 0)
        v->attr[s] = 0;
}

/* llama.cpp's attributes from the token types, then its fixes by text
 * (llama_vocab::impl::load), and the tokens that end generation. */
static void attributes(hf_vocab *v, const gg_model *m)
{
    uint32_t ty = 0;
    uint64_t nty = 0;
    const uint8_t *types = NULL;
    if (gg_kv_arr(v->f, tk(v->f, "token_type"), &ty, &nty, &types) || ty != GG_VT_I32 || nty < v->n)
        types = NULL;
    for (uint64_t i = 0; i < v->n; i++) {
        int64_t t = types ? gg_kv_arr_int(GG_VT_I32, types, i) : 1;
        v->attr[i] = t == 2 ? HF_ATTR_UNKNOWN : t == 3 ? HF_ATTR_CONTROL : t == 4 ? HF_ATTR_USER
                   : t == 5 ? HF_ATTR_UNUSED : t == 6 ? HF_ATTR_BYTE : 0;
    }
    /* each fill-in-the-middle token: its key (the older name wins), else
     * found by its text and made a control token */
    int64_t fim[NFIM];
    for (size_t k = 0; k < NFIM; k++) {
        fim[k] = special_id(v, fims[k].key, -1);
        if (fims[k].old_key)
            fim[k] = special_id(v, fims[k].old_key, fim[k]);
        if (fim[k] < 0 && (fim[k] = first_of(v, fims[k].texts)) >= 0)
            v->attr[fim[k]] |= HF_ATTR_CONTROL;
    }
    for (uint64_t i = 0; i < v->n; i++) {
        if (in_list(v, i, eog_texts))
            v->attr[i] |= HF_ATTR_CONTROL | HF_EOG;
        if (in_list(v, i, user_texts))
            v->attr[i] = HF_ATTR_USER;
    }
    eog_set(v, fim);
    /* lstrip / rstrip by model name, tokenizer or architecture */
    char name[256] = "";
    const char *s;
    uint64_t n;
    if (gg_kv_str(v->f, gg_kv_get(v->f, NULL, "general.name"), &s, &n) == 0) {
        n = n < sizeof name - 1 ? n : sizeof name - 1;
        for (uint64_t i = 0; i < n; i++)
            name[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
        name[n] = 0;
    }
    const gg_kv *pre = tk(v->f, "pre"), *arch = gg_kv_get(v->f, NULL, "general.architecture");
    const char *mask = NULL;
    if (gg_kv_str_is(v->f, pre, "jina-v2-de") || gg_kv_str_is(v->f, pre, "jina-v2-es") ||
        gg_kv_str_is(v->f, pre, "jina-v2-code") || gg_kv_str_is(v->f, arch, "nomic-bert-moe") ||
        gg_kv_str_is(v->f, arch, "jina-bert-v3"))
        mask = "<mask>";
    else if (strstr(name, "modern-bert"))
        mask = "[MASK]";
    int phi3 = !mask && (strstr(name, "phi-3") || strstr(name, "phi3"));
    for (uint64_t i = 0; i < v->n; i++) {
        if (mask && hf_vocab_is(v, i, mask))
            v->attr[i] |= HF_ATTR_LSTRIP;
        if (phi3 && (hf_vocab_added(v, i) || hf_vocab_is(v, i, "</s>")))
            v->attr[i] |= HF_ATTR_RSTRIP;
        if (phi3 && (hf_vocab_is(v, i, "<unk>") || hf_vocab_is(v, i, "<s>") || hf_vocab_is(v, i, "<|endoftext|>")))
            v->attr[i] &= (uint8_t)~HF_ATTR_RSTRIP;
    }
    (void)m;
}

/* WordPiece: llama.cpp's converter stored "##x" as "x" and a word start
 * "x" as "▁x" (phantom space), "[X]" as it was; undo it. */
static char *wordpiece_text(const char *s, uint32_t n)
{
    if (n >= 3 && !memcmp(s, "\xe2\x96\x81", 3))
        return strndup(s + 3, n - 3);
    if (n >= 2 && s[0] == '[' && s[n - 1] == ']')
        return strndup(s, n);
    char *t = malloc(n + 3);
    if (t) {
        memcpy(t, "##", 2);
        memcpy(t + 2, s, n);
        t[n + 2] = 0;
    }
    return t;
}

static int out_of_memory(gg_buf *why)
{
    why->oom = 1;
    return -1;
}

/* The tokenizer kind of tokenizer.ggml.model; *none when there is no vocabulary. */
static int vocab_kind(const gg_model *m, hf_vocab *v, gg_buf *why, int *none)
{
    const gg_kv *model = tk(m->f, "model");
    if (!model || gg_kv_str_is(m->f, model, "no_vocab") || gg_kv_str_is(m->f, model, "none")) {
        *none = 1;
        why_line(why, "the file has no vocabulary (tokenizer.ggml.model)");
        return -1;
    }
    if (gg_kv_str_is(m->f, model, "llama"))
        v->kind = HF_SPM;
    else if (gg_kv_str_is(m->f, model, "gpt2"))
        v->kind = HF_BPE;
    else if (gg_kv_str_is(m->f, model, "bert"))
        v->kind = HF_WPM;
    else {
        const char *s = "";
        uint64_t n = 0;
        gg_kv_str(m->f, model, &s, &n);
        gg_buf_printf(why, "tokenizer.ggml.model \"%.*s\": as/hf/ writes llama (SentencePiece), gpt2 and bert\n",
                      (int)(n > 40 ? 40 : n), s);
        return -1;
    }
    return 0;
}

/* The tokens' texts, each valid UTF-8 without a NUL byte; an empty one is
 * given llama.cpp's name for it. */
static int token_texts(const gg_model *m, hf_vocab *v, gg_buf *why)
{
    const gg_kv *tokens = tk(m->f, "tokens");
    if (tokens && tokens->type == GG_VT_ARR && tokens->arr_n > HF_MAX_TOKENS) {
        gg_buf_printf(why, "tokenizer.ggml.tokens has %llu tokens (as/hf/ writes at most %u)\n",
                      (unsigned long long)tokens->arr_n, HF_MAX_TOKENS);
        return -1;
    }
    v->ix = gg_kv_str_index(m->f, tokens, &v->n);
    if (!v->ix || !v->n) {
        why_line(why, "tokenizer.ggml.tokens is missing or not a list of strings");
        return -1;
    }
    v->text = calloc(v->n, sizeof *v->text);
    v->tlen = calloc(v->n, sizeof *v->tlen);
    v->own = calloc(v->n, 1);
    v->attr = calloc(v->n, 1);
    if (!v->text || !v->tlen || !v->own || !v->attr)
        return out_of_memory(why);
    for (uint64_t i = 0; i < v->n; i++) {
        uint64_t n;
        const char *s = gg_kv_str_at(m->f, v->ix, i, &n);
        if (n > UINT32_MAX / 2 || memchr(s, 0, n) || !gg_utf8_valid(s, n)) {
            gg_buf_printf(why, "token %llu is not text (invalid UTF-8 or a NUL byte)\n", (unsigned long long)i);
            return -1;
        }
        v->text[i] = s;
        v->tlen[i] = (uint32_t)n;
        if (!n) {
            char e[40];
            snprintf(e, sizeof e, "[EMPTY_%llu]", (unsigned long long)i); /* llama.cpp's name for it */
            if (!(v->text[i] = strdup(e)))
                return out_of_memory(why);
            v->own[i] = 1;
            v->tlen[i] = (uint32_t)strlen(e);
        }
    }
    return 0;
}

/* tokenizer.ggml.scores, when there are (score_type 0 when not). */
static int token_scores(const gg_model *m, hf_vocab *v, gg_buf *why)
{
    uint64_t ns = 0;
    if (gg_kv_arr(m->f, tk(m->f, "scores"), &v->score_type, &ns, &v->scores) == 0 &&
        (ns < v->n || (v->score_type != GG_VT_F32 && v->score_type != GG_VT_I32))) {
        why_line(why, "tokenizer.ggml.scores is shorter than the vocabulary or not f32 / i32");
        return -1;
    }
    if (!v->scores)
        v->score_type = 0;
    return 0;
}

/* BPE: its pre-tokenizer (one as/hf/ writes) and its merges. */
static int bpe_pre_and_merges(const gg_model *m, hf_vocab *v, gg_buf *why)
{
    const gg_kv *pre = tk(m->f, "pre");
    const char *s = "default";
    uint64_t n = 7;
    if (pre && gg_kv_str(m->f, pre, &s, &n)) {
        why_line(why, "tokenizer.ggml.pre is not a string");
        return -1;
    }
    v->pre = hf_pretok_find(s, n);
    if (!v->pre) {
        gg_buf_printf(why, "tokenizer.ggml.pre \"%.*s\": a pre-tokenizer as/hf/ does not write\n",
                      (int)(n > 40 ? 40 : n), s);
        return -1;
    }
    v->merges = tk(m->f, "merges");
    if (!v->merges || v->merges->type != GG_VT_ARR || v->merges->arr_type != GG_VT_STR) {
        why_line(why, "tokenizer.ggml.merges is missing or not a list of strings");
        return -1;
    }
    return 0;
}

/* WordPiece: every text as HF spells it (wordpiece_text). */
static int wordpiece_texts(hf_vocab *v, gg_buf *why)
{
    for (uint64_t i = 0; i < v->n; i++) {
        char *t = wordpiece_text(v->text[i], v->tlen[i]);
        if (!t)
            return out_of_memory(why);
        if (v->own[i])
            free((char *)v->text[i]);
        v->text[i] = t;
        v->own[i] = 1;
        v->tlen[i] = (uint32_t)strlen(t);
    }
    return 0;
}

/* llama.cpp refuses a vocabulary with a text twice; so do HF's files */
static int texts_unique(const hf_vocab *v, gg_buf *why)
{
    table t;
    uint64_t dup;
    if (table_build(v, &t, &dup))
        return out_of_memory(why);
    free(t.slot);
    if (dup != UINT64_MAX) {
        gg_buf_printf(why, "token %llu repeats the text of an earlier one\n", (unsigned long long)dup);
        return -1;
    }
    return 0;
}

/* special ids: the keys, else llama.cpp's defaults for the kind */
static void special_ids(hf_vocab *v)
{
    int spm = v->kind == HF_SPM, wpm = v->kind == HF_WPM;
    v->bos = special_id(v, "bos_token_id", spm ? 1 : wpm ? 101 : 11);
    v->eos = special_id(v, "eos_token_id", spm ? 2 : wpm ? -1 : 11);
    v->unk = special_id(v, "unknown_token_id", spm ? 0 : wpm ? 100 : -1);
    v->sep = special_id(v, "seperator_token_id", wpm ? 102 : -1);
    v->pad = special_id(v, "padding_token_id", wpm ? 0 : -1);
    v->mask = special_id(v, "mask_token_id", wpm ? 103 : -1);
}

/* flags: the keys, else llama.cpp's defaults; a token added must be named */
static int special_flags(hf_vocab *v, gg_buf *why)
{
    int spm = v->kind == HF_SPM, wpm = v->kind == HF_WPM;
    v->add_bos = flag(v, "add_bos_token", spm || wpm || (v->pre && v->pre->add_bos));
    v->add_eos = flag(v, "add_eos_token", 0);
    v->add_space_prefix = flag(v, "add_space_prefix", spm);
    v->lowercase = flag(v, "normalizer.lowercase", 1);
    v->strip_accents = flag(v, "normalizer.strip_accents", v->lowercase);
    if ((v->add_bos || wpm) && v->bos < 0) {
        why_line(why, "the vocabulary adds a BOS token but names none");
        return -1;
    }
    if ((v->add_eos && v->eos < 0) || (wpm && v->sep < 0)) {
        why_line(why, "the vocabulary adds an EOS or SEP token but names none");
        return -1;
    }
    return 0;
}

int hf_vocab_load_texts(const gg_model *m, hf_vocab *v, gg_buf *why, int *none)
{
    memset(v, 0, sizeof *v);
    v->f = m->f;
    *none = 0;
    if (vocab_kind(m, v, why, none) || token_texts(m, v, why))
        return -1;
    special_ids(v);
    attributes(v, m);
    return 0;
}

int hf_vocab_load(const gg_model *m, hf_vocab *v, gg_buf *why, int *none)
{
    if (hf_vocab_load_texts(m, v, why, none))
        return -1;
    if (token_scores(m, v, why))
        return -1;
    if (v->kind == HF_BPE && bpe_pre_and_merges(m, v, why))
        return -1;
    if (v->kind == HF_WPM && wordpiece_texts(v, why))
        return -1;
    if (texts_unique(v, why))
        return -1;
    return special_flags(v, why);
}

void hf_vocab_free(hf_vocab *v)
{
    if (v->text && v->own)
        for (uint64_t i = 0; i < v->n; i++)
            if (v->own[i])
                free((char *)v->text[i]);
    free(v->text);
    free(v->tlen);
    free(v->own);
    free(v->attr);
    free(v->ix);
    memset(v, 0, sizeof *v);
}

/* ---- SentencePiece merges ---- */

/* The merge of token text s split after a bytes as one JSON string "A B". */
static void merge_string(gg_buf *out, const char *s, uint32_t a, uint32_t len)
{
    char local[512], *t = len + 1 <= sizeof local ? local : malloc(len + 1);
    if (!t) {
        out->oom = 1;
        return;
    }
    memcpy(t, s, a);
    t[a] = ' ';
    memcpy(t + a + 1, s + a, len - a);
    gg_json_string(out, t, len + 1);
    if (t != local)
        free(t);
}

typedef struct merge {
    uint64_t tok;   /* the merged token */
    uint32_t split; /* bytes of its left part */
    uint64_t seq;   /* order made (keeps the sorts stable) */
    double sl, sr, s;
} merge;

static double score(const hf_vocab *v, uint64_t i)
{
    return v->score_type ? gg_kv_arr_double(v->score_type, v->scores, i) : 0.0;
}

static int by_parts(const void *a, const void *b)
{
    const merge *x = a, *y = b;
    if (x->sl != y->sl)
        return x->sl > y->sl ? -1 : 1;
    if (x->sr != y->sr)
        return x->sr > y->sr ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int by_score(const void *a, const void *b)
{
    const merge *x = a, *y = b;
    if (x->s != y->s)
        return x->s > y->s ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int hf_spm_merges_json(const hf_vocab *v, gg_buf *out)
{
    table t;
    uint64_t dup;
    if (table_build(v, &t, &dup))
        return -1;
    merge *mg = NULL;
    size_t n = 0, cap = 0;
    for (uint64_t i = 0; i < v->n; i++) {
        const char *s = v->text[i];
        size_t first = n;
        /* every split at a character boundary (UTF-8 continuation bytes are 10xxxxxx) */
        for (uint32_t b = 1; b < v->tlen[i]; b++) {
            if (((unsigned char)s[b] & 0xC0) == 0x80)
                continue;
            uint64_t l = lookup(v, &t, s, b), r = lookup(v, &t, s + b, v->tlen[i] - b);
            if (l == UINT64_MAX || r == UINT64_MAX)
                continue;
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 4096;
                merge *q = realloc(mg, nc * sizeof *q);
                if (!q) {
                    free(mg);
                    free(t.slot);
                    return -1;
                }
                mg = q;
                cap = nc;
            }
            mg[n] = (merge){i, b, n, score(v, l), score(v, r), score(v, i)};
            n++;
        }
        if (n - first > 1)
            qsort(mg + first, n - first, sizeof *mg, by_parts);
        for (size_t k = first; k < n; k++)
            mg[k].seq = k;
    }
    if (n)
        qsort(mg, n, sizeof *mg, by_score);
    /* "a b" strings, which every version of tokenizers reads, unless a part
     * holds a space: then pairs (tokenizers 0.20 and later) */
    int pairs = 0;
    for (size_t k = 0; k < n && !pairs; k++)
        pairs = memchr(v->text[mg[k].tok], ' ', v->tlen[mg[k].tok]) != NULL;
    gg_buf_puts(out, "[");
    for (size_t k = 0; k < n; k++) {
        const char *s = v->text[mg[k].tok];
        uint32_t a = mg[k].split, b = v->tlen[mg[k].tok] - a;
        gg_buf_puts(out, k ? ",\n" : "\n");
        if (pairs) {
            gg_buf_puts(out, "[");
            gg_json_string(out, s, a);
            gg_buf_puts(out, ",");
            gg_json_string(out, s + a, b);
            gg_buf_puts(out, "]");
        } else {
            merge_string(out, s, a, a + b);
        }
    }
    gg_buf_puts(out, "]");
    free(mg);
    free(t.slot);
    return 0;
}
