/* hftokenizer.c - tokenizer.json, tokenizer_config.json and
 * special_tokens_map.json (see hftokenizer.h), in the layout of the
 * Hugging Face tokenizers library; the pieces follow transformers'
 * GGUFLlamaConverter / GGUFGPTConverter and BertConverter, adjusted to
 * what llama.cpp does with the same vocabulary. */
#include "gguffs/hftokenizer.h"

#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/floatfmt.h"
#include "gguffs/kvget.h"
#include "hfvocab.h"

#define SPACE "\xe2\x96\x81" /* ▁, SentencePiece's space */

/* The answer is kept for the keys it was given: an edited model makes a
 * new tree at each change and asks again, and checking 262 144 tokens takes
 * 80 ms where comparing their bytes takes half a millisecond. hf_vocab_load
 * reads the tokenizer.* keys and general.architecture (and general.name,
 * which sets only the lstrip and rstrip flags of attributes(), never the
 * answer): those keys' bytes (each key, its type and its value, in order)
 * are what an answer is kept for. */
static int vocab_key(const gg_file *f, const gg_kv *kv)
{
    const char *k = gg_str_ptr(f, kv->key);
    uint64_t n = kv->key.len;
    return (n > 10 && !memcmp(k, "tokenizer.", 10)) || (n == 20 && !memcmp(k, "general.architecture", 20));
}

typedef struct vocab_memo {
    char *keys; /* the keys' bytes, as vocab_walk lays them */
    size_t len;
    int answer;
} vocab_memo;

static vocab_memo memos[2]; /* the newest first */
static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;

/* The keys of f the answer depends on, laid end to end: compared with
 * `with` (returns whether they are the same), or copied into `into`. */
static int vocab_walk(const gg_file *f, const vocab_memo *with, gg_buf *into)
{
    size_t at = 0;
    uint32_t head[2];
    for (uint64_t i = 0; i < f->n_kv; i++) {
        const gg_kv *kv = &f->kv[i];
        if (!vocab_key(f, kv))
            continue;
        head[0] = (uint32_t)kv->key.len;
        head[1] = kv->type | (uint32_t)f->version << 8; /* (v1 lays its counts out otherwise) */
        const void *part[3] = {head, gg_str_ptr(f, kv->key), f->hdr + kv->val};
        size_t len[3] = {sizeof head, kv->key.len, kv->val_len};
        for (int k = 0; k < 3; k++) {
            if (into)
                gg_buf_put(into, part[k], len[k]);
            else if (at + len[k] > with->len || memcmp(with->keys + at, part[k], len[k]))
                return 0;
            at += len[k];
        }
    }
    return into ? !into->oom : at == with->len;
}

int gg_hf_tokenizer_ok(const gg_model *m, gg_buf *why)
{
    if (!why) {
        pthread_mutex_lock(&memo_lock);
        for (int i = 0; i < 2; i++) {
            if (memos[i].keys && vocab_walk(m->f, &memos[i], NULL)) {
                int answer = memos[i].answer;
                pthread_mutex_unlock(&memo_lock);
                return answer;
            }
        }
        pthread_mutex_unlock(&memo_lock);
    }
    hf_vocab v;
    int none;
    gg_buf local = {0};
    int rc = hf_vocab_load(m, &v, why ? why : &local, &none);
    hf_vocab_free(&v);
    gg_buf_free(&local);
    int answer = rc == 0 ? 1 : none ? -1 : 0;
    gg_buf keys = {0};
    if (!why && vocab_walk(m->f, NULL, &keys)) {
        pthread_mutex_lock(&memo_lock);
        free(memos[1].keys);
        memos[1] = memos[0];
        memos[0] = (vocab_memo){keys.p, keys.len, answer};
        pthread_mutex_unlock(&memo_lock);
    } else {
        gg_buf_free(&keys);
    }
    return answer;
}

static void jstr(gg_buf *o, const char *s) { gg_json_string(o, s, strlen(s)); }

/* token i's text as a JSON string */
static void jtok(gg_buf *o, const hf_vocab *v, int64_t i) { gg_json_string(o, v->text[i], v->tlen[i]); }

/* ---- tokenizer.json ---- */

static void added_tokens(const hf_vocab *v, gg_buf *o)
{
    gg_buf_puts(o, "  \"added_tokens\": [");
    int first = 1;
    for (uint64_t i = 0; i < v->n; i++) {
        if (!hf_vocab_added(v, i))
            continue;
        gg_buf_printf(o, "%s\n    {\"id\": %" PRIu64 ", \"content\": ", first ? "" : ",", i);
        jtok(o, v, i);
        gg_buf_printf(o,
                      ", \"single_word\": false, \"lstrip\": %s, \"rstrip\": %s, \"normalized\": false, "
                      "\"special\": %s}",
                      v->attr[i] & HF_ATTR_LSTRIP ? "true" : "false", v->attr[i] & HF_ATTR_RSTRIP ? "true" : "false",
                      hf_vocab_special(v, i) ? "true" : "false");
        first = 0;
    }
    gg_buf_puts(o, "\n  ],\n");
}

/* [BOS] $A [EOS] as llama.cpp adds them with add_special (WordPiece:
 * always BOS and SEP). */
static void post_processor(const hf_vocab *v, gg_buf *o)
{
    int64_t pre = v->kind == HF_WPM || v->add_bos ? v->bos : -1;
    int64_t post = v->kind == HF_WPM ? v->sep : v->add_eos ? v->eos : -1;
    gg_buf_puts(o, "  \"post_processor\": {\"type\": \"TemplateProcessing\", \"single\": [");
    for (int pair = 0; pair < 2; pair++) {
        if (pair)
            gg_buf_puts(o, "], \"pair\": [");
        for (int seq = 0; seq <= pair; seq++) {
            if (pre >= 0) {
                gg_buf_puts(o, "{\"SpecialToken\": {\"id\": ");
                jtok(o, v, pre);
                gg_buf_printf(o, ", \"type_id\": %d}}, ", seq);
            }
            gg_buf_printf(o, "{\"Sequence\": {\"id\": \"%s\", \"type_id\": %d}}", seq ? "B" : "A", seq);
            if (post >= 0) {
                gg_buf_puts(o, ", {\"SpecialToken\": {\"id\": ");
                jtok(o, v, post);
                gg_buf_printf(o, ", \"type_id\": %d}}", seq);
            }
            if (!seq && pair)
                gg_buf_puts(o, ", ");
        }
    }
    gg_buf_puts(o, "], \"special_tokens\": {");
    int64_t ids[2] = {pre, post};
    for (int k = 0; k < 2; k++) {
        if (ids[k] < 0 || (k == 1 && ids[1] == ids[0]))
            continue;
        if (k && ids[0] >= 0)
            gg_buf_puts(o, ", ");
        jtok(o, v, ids[k]);
        gg_buf_puts(o, ": {\"id\": ");
        jtok(o, v, ids[k]);
        gg_buf_printf(o, ", \"ids\": [%" PRId64 "], \"tokens\": [", ids[k]);
        jtok(o, v, ids[k]);
        gg_buf_puts(o, "]}");
    }
    gg_buf_puts(o, "}},\n");
}

static void vocab_object(const hf_vocab *v, gg_buf *o)
{
    char num[GG_FMT_BUF];
    gg_buf_puts(o, "\"vocab\": {");
    for (uint64_t i = 0; i < v->n; i++) {
        gg_buf_puts(o, i ? ",\n" : "\n");
        jtok(o, v, i);
        gg_buf_puts(o, ": ");
        gg_buf_put(o, num, (size_t)gg_fmt_u64(num, i));
    }
    gg_buf_puts(o, "}");
}

/* The GGUF merges "a b" (split at the first space after the first byte,
 * as llama.cpp does) as JSON pairs. */
static void bpe_merges(const hf_vocab *v, gg_buf *o)
{
    uint64_t n;
    uint64_t *ix = gg_kv_str_index(v->f, v->merges, &n);
    if (!ix) {
        o->oom = 1;
        return;
    }
    /* as stored, unless a part holds a space of its own (then pairs) */
    int pairs = 0;
    for (uint64_t i = 0; i < n && !pairs; i++) {
        uint64_t len;
        const char *s = gg_kv_str_at(v->f, ix, i, &len);
        const char *sp = len > 1 ? memchr(s + 1, ' ', len - 1) : NULL;
        pairs = !sp || memchr(sp + 1, ' ', len - (uint64_t)(sp + 1 - s)) || s[0] == ' ';
    }
    gg_buf_puts(o, "[");
    for (uint64_t i = 0; i < n; i++) {
        uint64_t len;
        const char *s = gg_kv_str_at(v->f, ix, i, &len);
        const char *sp = len > 1 ? memchr(s + 1, ' ', len - 1) : NULL;
        uint64_t a = sp ? (uint64_t)(sp - s) : len, b = sp ? len - a - 1 : 0;
        gg_buf_puts(o, i ? ",\n" : "\n");
        if (!pairs) {
            gg_json_string(o, s, len);
            continue;
        }
        gg_buf_puts(o, "[");
        gg_json_string(o, s, sp ? a : 0);
        gg_buf_puts(o, ",");
        gg_json_string(o, sp ? s + a + 1 : "", b);
        gg_buf_puts(o, "]");
    }
    gg_buf_puts(o, "]");
    free(ix);
}

static void spm(const hf_vocab *v, gg_buf *o)
{
    /* llama.cpp puts a space before every text fragment (at the start and
     * after each special token) and writes spaces as ▁: Prepend runs on
     * each piece between added tokens, as that does */
    gg_buf_puts(o, "  \"normalizer\": {\"type\": \"Sequence\", \"normalizers\": [");
    if (v->add_space_prefix)
        gg_buf_puts(o, "{\"type\": \"Prepend\", \"prepend\": \"" SPACE "\"}, ");
    gg_buf_puts(o, "{\"type\": \"Replace\", \"pattern\": {\"String\": \" \"}, \"content\": \"" SPACE "\"}]},\n"
                   "  \"pre_tokenizer\": null,\n");
    post_processor(v, o);
    gg_buf_puts(o, "  \"decoder\": {\"type\": \"Sequence\", \"decoders\": ["
                   "{\"type\": \"Replace\", \"pattern\": {\"String\": \"" SPACE "\"}, \"content\": \" \"}, "
                   "{\"type\": \"ByteFallback\"}, {\"type\": \"Fuse\"}");
    if (v->add_space_prefix)
        gg_buf_puts(o, ", {\"type\": \"Strip\", \"content\": \" \", \"start\": 1, \"stop\": 0}");
    gg_buf_puts(o, "]},\n  \"model\": {\"type\": \"BPE\", \"dropout\": null, \"unk_token\": ");
    if (v->unk >= 0)
        jtok(o, v, v->unk);
    else
        gg_buf_puts(o, "null");
    gg_buf_puts(o, ", \"continuing_subword_prefix\": null, \"end_of_word_suffix\": null, \"fuse_unk\": true, "
                   "\"byte_fallback\": true, \"ignore_merges\": false,\n");
    vocab_object(v, o);
    gg_buf_puts(o, ",\n\"merges\": ");
    if (hf_spm_merges_json(v, o))
        o->oom = 1;
    gg_buf_puts(o, "}\n");
}

static void bpe(const hf_vocab *v, gg_buf *o)
{
    gg_buf_puts(o, "  \"normalizer\": null,\n  \"pre_tokenizer\": {\"type\": \"Sequence\", \"pretokenizers\": [");
    for (const char *const *r = v->pre->regex; *r; r++) {
        gg_buf_puts(o, "{\"type\": \"Split\", \"pattern\": {\"Regex\": ");
        jstr(o, *r);
        gg_buf_puts(o, "}, \"behavior\": \"Isolated\", \"invert\": false}, ");
    }
    gg_buf_puts(o, "{\"type\": \"ByteLevel\", \"add_prefix_space\": false, \"trim_offsets\": false, "
                   "\"use_regex\": false}]},\n");
    post_processor(v, o);
    gg_buf_printf(o,
                  "  \"decoder\": {\"type\": \"ByteLevel\", \"add_prefix_space\": true, \"trim_offsets\": true, "
                  "\"use_regex\": true},\n  \"model\": {\"type\": \"BPE\", \"dropout\": null, \"unk_token\": null, "
                  "\"continuing_subword_prefix\": null, \"end_of_word_suffix\": null, \"fuse_unk\": false, "
                  "\"byte_fallback\": false, \"ignore_merges\": %s,\n",
                  v->pre->ignore_merges ? "true" : "false");
    vocab_object(v, o);
    gg_buf_puts(o, ",\n\"merges\": ");
    bpe_merges(v, o);
    gg_buf_puts(o, "}\n");
}

static void wpm(const hf_vocab *v, gg_buf *o)
{
    /* llama.cpp strips accents its own way (llm_tokenizer_wpm_session):
     * each character becomes the first of its canonical decomposition (a
     * Hangul syllable its leading consonant), then every mark (\p{M}, not
     * only Mn) goes. NFD, then the marks and the vowel and final jamo a
     * decomposition adds, do the same. */
    gg_buf_printf(o,
                  "  \"normalizer\": {\"type\": \"Sequence\", \"normalizers\": [{\"type\": \"BertNormalizer\", "
                  "\"clean_text\": true, \"handle_chinese_chars\": true, \"strip_accents\": false, \"lowercase\": %s}",
                  v->lowercase ? "true" : "false");
    if (v->strip_accents)
        gg_buf_puts(o, ", {\"type\": \"NFD\"}, {\"type\": \"Replace\", \"pattern\": {\"Regex\": "
                       "\"[\\\\p{M}\xe1\x85\xa0-\xe1\x87\xbf]\"}, \"content\": \"\"}");
    gg_buf_puts(o, "]},\n  \"pre_tokenizer\": {\"type\": \"BertPreTokenizer\"},\n");
    post_processor(v, o);
    gg_buf_puts(o, "  \"decoder\": {\"type\": \"WordPiece\", \"prefix\": \"##\", \"cleanup\": true},\n"
                   "  \"model\": {\"type\": \"WordPiece\", \"unk_token\": ");
    if (v->unk >= 0)
        jtok(o, v, v->unk);
    else
        jstr(o, "[UNK]");
    gg_buf_puts(o, ", \"continuing_subword_prefix\": \"##\", \"max_input_chars_per_word\": 1000000000,\n");
    vocab_object(v, o);
    gg_buf_puts(o, "}\n");
}

void gg_hf_tokenizer_json(const gg_model *m, gg_buf *o)
{
    hf_vocab v;
    int none;
    gg_buf why = {0};
    if (hf_vocab_load(m, &v, &why, &none) == 0) {
        gg_buf_puts(o, "{\n  \"version\": \"1.0\",\n  \"truncation\": null,\n  \"padding\": null,\n");
        added_tokens(&v, o);
        if (v.kind == HF_SPM)
            spm(&v, o);
        else if (v.kind == HF_BPE)
            bpe(&v, o);
        else
            wpm(&v, o);
        gg_buf_puts(o, "}\n");
    }
    if (why.oom)
        o->oom = 1;
    gg_buf_free(&why);
    hf_vocab_free(&v);
}

/* ---- tokenizer_config.json, special_tokens_map.json ---- */

static const struct role {
    const char *name;
    size_t off;
} roles[] = {
    {"bos_token", offsetof(hf_vocab, bos)},   {"eos_token", offsetof(hf_vocab, eos)},
    {"unk_token", offsetof(hf_vocab, unk)},   {"pad_token", offsetof(hf_vocab, pad)},
    {"sep_token", offsetof(hf_vocab, sep)},   {"mask_token", offsetof(hf_vocab, mask)},
};

static int64_t role_id(const hf_vocab *v, const struct role *r) { return *(const int64_t *)((const char *)v + r->off); }

static void roles_json(const hf_vocab *v, gg_buf *o, int *first)
{
    for (size_t k = 0; k < sizeof roles / sizeof roles[0]; k++) {
        int64_t id = role_id(v, &roles[k]);
        if (id < 0)
            continue;
        gg_buf_printf(o, "%s\n  \"%s\": ", *first ? "" : ",", roles[k].name);
        jtok(o, v, id);
        *first = 0;
    }
    if (v->kind == HF_WPM && v->bos >= 0) {
        gg_buf_printf(o, "%s\n  \"cls_token\": ", *first ? "" : ",");
        jtok(o, v, v->bos);
        *first = 0;
    }
}

void gg_hf_special_tokens_map_json(const gg_model *m, gg_buf *o)
{
    hf_vocab v;
    int none, first = 1;
    gg_buf why = {0};
    if (hf_vocab_load(m, &v, &why, &none) == 0) {
        gg_buf_puts(o, "{");
        roles_json(&v, o, &first);
        gg_buf_puts(o, "\n}\n");
    }
    if (why.oom)
        o->oom = 1;
    gg_buf_free(&why);
    hf_vocab_free(&v);
}

void gg_hf_tokenizer_config_json(const gg_model *m, gg_buf *o)
{
    hf_vocab v;
    int none, first = 0;
    gg_buf why = {0};
    if (hf_vocab_load(m, &v, &why, &none) == 0) {
        gg_buf_printf(o, "{\n  \"tokenizer_class\": \"PreTrainedTokenizerFast\",\n  \"add_bos_token\": %s,\n"
                         "  \"add_eos_token\": %s,\n  \"clean_up_tokenization_spaces\": false",
                      v.add_bos || v.kind == HF_WPM ? "true" : "false", v.add_eos ? "true" : "false");
        if (v.kind == HF_WPM)
            gg_buf_printf(o, ",\n  \"do_lower_case\": %s", v.lowercase ? "true" : "false");
        double ctx;
        const char *arch;
        uint64_t alen;
        char a[64];
        if (gg_kv_str(m->f, gg_kv_get(m->f, NULL, "general.architecture"), &arch, &alen) == 0 && alen < sizeof a) {
            memcpy(a, arch, alen);
            a[alen] = 0;
            if (gg_kv_double(m->f, gg_kv_get(m->f, a, "context_length"), &ctx) == 0 && ctx >= 1)
                gg_buf_printf(o, ",\n  \"model_max_length\": %.17g", ctx);
        }
        roles_json(&v, o, &first);
        const char *tpl;
        uint64_t tlen;
        if (gg_kv_str(m->f, gg_kv_get(m->f, NULL, "tokenizer.chat_template"), &tpl, &tlen) == 0) {
            gg_buf_puts(o, ",\n  \"chat_template\": ");
            gg_json_string(o, tpl, tlen);
        }
        gg_buf_puts(o, ",\n  \"added_tokens_decoder\": {");
        int any = 0;
        for (uint64_t i = 0; i < v.n; i++) {
            if (!hf_vocab_added(&v, i))
                continue;
            gg_buf_printf(o, "%s\n    \"%" PRIu64 "\": {\"content\": ", any ? "," : "", i);
            jtok(o, &v, (int64_t)i);
            gg_buf_printf(o,
                          ", \"lstrip\": %s, \"normalized\": false, \"rstrip\": %s, \"single_word\": false, "
                          "\"special\": %s}",
                          v.attr[i] & HF_ATTR_LSTRIP ? "true" : "false",
                          v.attr[i] & HF_ATTR_RSTRIP ? "true" : "false", hf_vocab_special(&v, i) ? "true" : "false");
            any = 1;
        }
        gg_buf_puts(o, "\n  }\n}\n");
    }
    if (why.oom)
        o->oom = 1;
    gg_buf_free(&why);
    hf_vocab_free(&v);
}

/* ---- generation ---- */

int64_t gg_hf_eog_ids(const gg_model *m, int64_t **ids)
{
    hf_vocab v;
    int none;
    gg_buf why = {0};
    int64_t n = 0;
    *ids = NULL;
    if (hf_vocab_load_texts(m, &v, &why, &none) == 0) {
        for (uint64_t i = 0; i < v.n; i++)
            n += (v.attr[i] & HF_EOG) != 0;
        if (n && !(*ids = malloc((size_t)n * sizeof **ids)))
            n = -2;
        for (uint64_t i = 0, k = 0; n > 0 && i < v.n; i++)
            if (v.attr[i] & HF_EOG)
                (*ids)[k++] = (int64_t)i;
    } else {
        n = why.oom ? -2 : -1;
    }
    gg_buf_free(&why);
    hf_vocab_free(&v);
    return n;
}

/* ---- sizes ---- */

/* Bytes of a text as a JSON string at most (gg_json_string: a control
 * byte is \u00XX, a byte of an invalid sequence at most U+FFFD's 3). */
static uint64_t json_len(const char *s, uint64_t n)
{
    uint64_t b = 2;
    for (uint64_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        b += c < 0x20 ? 6 : c == '"' || c == '\\' ? 2 : c >= 0x80 ? 3 : 1;
    }
    return b;
}

/* The texts of an array of strings, as JSON, and per element f(element). */
static uint64_t strings_bound(const gg_file *f, const gg_kv *kv, int merges_of_each)
{
    uint64_t n, b = 0;
    uint64_t *ix = kv ? gg_kv_str_index(f, kv, &n) : NULL;
    if (!ix)
        return 0;
    for (uint64_t i = 0; i < n; i++) {
        uint64_t len, chars = 0;
        const char *s = gg_kv_str_at(f, ix, i, &len);
        uint64_t j = json_len(s, len);
        /* in the vocabulary, as an added token and in the config */
        b += merges_of_each ? 3 * (j + 200) : j + 16;
        if (merges_of_each) {
            /* SentencePiece merges rebuilt: a pair per character boundary */
            for (uint64_t k = 0; k < len; k++)
                chars += ((unsigned char)s[k] & 0xC0) != 0x80;
            if (chars > 1)
                b += (chars - 1) * (j + 16);
        }
    }
    free(ix);
    return b;
}

uint64_t gg_hf_tokenizer_bound(const gg_model *m)
{
    const gg_file *f = m->f;
    const gg_kv *tpl = gg_kv_get(f, NULL, "tokenizer.chat_template");
    return (1 << 16) + strings_bound(f, gg_kv_get(f, "tokenizer.ggml", "tokens"), 1) +
           strings_bound(f, gg_kv_get(f, "tokenizer.ggml", "merges"), 0) + (tpl ? 6 * tpl->val_len : 0);
}
