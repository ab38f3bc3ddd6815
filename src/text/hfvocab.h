/* hfvocab.h - a GGUF vocabulary as llama.cpp loads it (llama-vocab.cpp):
 * its kind, the texts of its tokens, their attributes after llama.cpp's
 * fixes by text, the special token ids with llama.cpp's defaults, and the
 * pre-tokenizer of a byte-level BPE. Internal to the text/ modules that
 * write the Hugging Face tokenizer files. */
#ifndef GGUFFS_HFVOCAB_H
#define GGUFFS_HFVOCAB_H

#include <stdint.h>
#include <string.h>

#include "gguffs/buf.h"
#include "gguffs/model.h"

typedef enum hf_vkind { HF_SPM = 1, HF_BPE, HF_WPM } hf_vkind;

/* llama_token_attr, as far as the tokenizer files need them */
enum {
    HF_ATTR_UNKNOWN = 1, HF_ATTR_CONTROL = 2, HF_ATTR_USER = 4, HF_ATTR_UNUSED = 8, HF_ATTR_BYTE = 16,
    HF_ATTR_LSTRIP = 32, HF_ATTR_RSTRIP = 64,
    HF_EOG = 128, /* not an attribute: the token ends generation (llama.cpp's special_eog_ids) */
};

/* A byte-level BPE pre-tokenizer: the regexes llama.cpp splits with, in
 * order (each splits the pieces of the one before, keeping both matches
 * and the text between them, as Split "Isolated" does). */
typedef struct hf_pretok {
    const char *const *names; /* tokenizer.ggml.pre values, NULL-terminated */
    const char *const *regex; /* NULL-terminated */
    int ignore_merges;        /* a whole word in the vocabulary is one token */
    int add_bos;              /* llama.cpp's default for add_bos */
} hf_pretok;

/* The pre-tokenizer llama.cpp uses for a tokenizer.ggml.pre value, or NULL. */
const hf_pretok *hf_pretok_find(const char *pre, uint64_t len);

typedef struct hf_vocab {
    const gg_file *f;
    hf_vkind kind;
    uint64_t n;
    uint64_t *ix;             /* the tokens' string index (kvget.h) */
    const char **text;        /* each token's text, tlen bytes (not NUL-terminated): in the header,
                                 or made (own[i]): llama.cpp's "[EMPTY_i]" for an empty one,
                                 WordPiece's "##" prefix put back */
    uint32_t *tlen;
    uint8_t *own;
    uint8_t *attr;
    uint32_t score_type;      /* GG_VT_F32 or GG_VT_I32; 0: no scores */
    const uint8_t *scores;
    const gg_kv *merges;      /* BPE */
    const hf_pretok *pre;     /* BPE */
    int add_bos, add_eos, add_space_prefix, lowercase, strip_accents;
    int64_t bos, eos, unk, pad, sep, mask; /* -1: none */
} hf_vocab;

/* Load the vocabulary: 0; or -1 with the reasons it cannot be written
 * (one line each) appended to why (*none 1 when there is none at all). */
int hf_vocab_load(const gg_model *m, hf_vocab *v, gg_buf *why, int *none);
/* Its kind, texts (as llama.cpp reads them: before WordPiece's are
 * respelled), special ids and attributes only, what generation needs. */
int hf_vocab_load_texts(const gg_model *m, hf_vocab *v, gg_buf *why, int *none);
void hf_vocab_free(hf_vocab *v);

/* Is token i's text s? */
static inline int hf_vocab_is(const hf_vocab *v, uint64_t i, const char *s)
{
    size_t n = strlen(s);
    return v->tlen[i] == n && !memcmp(v->text[i], s, n);
}

/* Is token i one llama.cpp matches in text (an added token)? Is it special? */
static inline int hf_vocab_added(const hf_vocab *v, uint64_t i)
{
    return (v->attr[i] & (HF_ATTR_CONTROL | HF_ATTR_USER | HF_ATTR_UNKNOWN)) != 0;
}
static inline int hf_vocab_special(const hf_vocab *v, uint64_t i)
{
    return (v->attr[i] & (HF_ATTR_CONTROL | HF_ATTR_UNKNOWN)) != 0;
}

/* SentencePiece merges rebuilt from the scores, as transformers'
 * GGUFTokenizerSkeleton does: every split of every token into two tokens,
 * ranked by the whole token's score (then the parts'), highest first.
 * Writes them to out as a JSON list; -1 when memory is short. */
int hf_spm_merges_json(const hf_vocab *v, gg_buf *out);

#endif
