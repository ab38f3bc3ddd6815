/* hftokenizer.h - the tokenizer files of as/hf/ (tokenizer.json,
 * tokenizer_config.json, special_tokens_map.json), made from the
 * tokenizer.ggml.* keys and tokenizer.chat_template, so that Hugging
 * Face's tokenizers give the token ids llama.cpp gives for the same text
 * (special tokens parsed, as llama.cpp does with parse_special):
 *   llama (SentencePiece)  BPE with byte fallback, merges rebuilt from the
 *                          scores as transformers' GGUF converter does
 *   gpt2 (byte-level BPE)  the GGUF merges, and the pre-tokenizer regexes
 *                          llama.cpp uses for tokenizer.ggml.pre
 *   bert (WordPiece)       the "##" continuation prefix put back (the
 *                          converter stored word starts with a leading ▁)
 * The added tokens are those llama.cpp matches in text: control,
 * user-defined and unknown tokens, and the control tokens llama.cpp
 * recognises by their text (<|im_end|>, <|endoftext|>, ...). */
#ifndef GGUFFS_HFTOKENIZER_H
#define GGUFFS_HFTOKENIZER_H

#include <stdint.h>

#include "gguffs/buf.h"
#include "gguffs/model.h"

/* 1: the vocabulary can be written; 0: it cannot, and why (a line each)
 * is appended to why (when not NULL); -1: there is no vocabulary (why
 * says so). */
int gg_hf_tokenizer_ok(const gg_model *m, gg_buf *why);

/* The files (for a vocabulary gg_hf_tokenizer_ok accepts). */
void gg_hf_tokenizer_json(const gg_model *m, gg_buf *out);
void gg_hf_tokenizer_config_json(const gg_model *m, gg_buf *out);
void gg_hf_special_tokens_map_json(const gg_model *m, gg_buf *out);

/* The tokens llama.cpp ends generation at (llama_vocab_is_eog), ascending:
 * their count and *ids (malloc'd; NULL when there are none); -1 when the
 * vocabulary cannot be read (none, a kind as/hf/ does not write, a token
 * that is not text), -2 when memory is short. */
int64_t gg_hf_eog_ids(const gg_model *m, int64_t **ids);

/* Bytes tokenizer.json takes at most, from the header alone. */
uint64_t gg_hf_tokenizer_bound(const gg_model *m);

#endif
