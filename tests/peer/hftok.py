#!/usr/bin/python3
"""hftok.py - token ids by Hugging Face's Python tokenizers (the pinned PyPI peers of
tests/pyenv.sh): the Rust library itself, tokenizers.Tokenizer.from_file(tokenizer.json),
and transformers' AutoTokenizer.from_pretrained(FOLDER); the twin of hftok.mjs.

  hftok.py TEXTS.json FOLDER:OUT.json ... [GGUF:OUT.json ...]
      for each FOLDER (an as/hf/ folder), the ids of every text of TEXTS.json (a JSON list
      of strings) to OUT.json: {"tokenizers": {"plain": [...], "special": [...]},
      "AutoTokenizer": {"plain": [...], "special": [...]}} (plain: without the special
      tokens, special: with them added as each adds them);
      for each GGUF (a BERT vocabulary), what a transformers user of the original BERT
      checkpoint gets: its WordPiece vocab (the GGUF's tokens with llama.cpp's converter
      undone: a word start stored as "\u2581x" is "x", any other piece "##x", "[...]"
      kept) given to transformers' BertTokenizer (the tokenizers library: BertNormalizer
      with the original's lowercasing and accent stripping, BertPreTokenizer, WordPiece of
      at most 100 characters a word) and to its pure-Python BertTokenizerLegacy; OUT.json:
      {"BertTokenizer": {"plain": [...]}, "BertTokenizerLegacy": {"plain": [...]}}
"""
import json
import os
import sys
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def ids_of(enc, texts):
    return {"plain": [enc(t, False) for t in texts], "special": [enc(t, True) for t in texts]}


def folder(texts, d):
    import tokenizers
    from transformers import AutoTokenizer
    rust = tokenizers.Tokenizer.from_file(os.path.join(d, "tokenizer.json"))
    auto = AutoTokenizer.from_pretrained(d)
    return {"tokenizers": ids_of(lambda t, s: rust.encode(t, add_special_tokens=s).ids, texts),
            "AutoTokenizer": ids_of(lambda t, s: auto(t, add_special_tokens=s)["input_ids"], texts)}


def bert_vocab(gguf):
    """The original WordPiece vocab (token -> id) of a GGUF converted from BERT."""
    from mkllama import read_gguf
    kvs, _ = read_gguf(gguf)
    _, toks = next(v for k, t, v in kvs if k == "tokenizer.ggml.tokens")

    def orig(t):
        if t.startswith("[") and t.endswith("]"):
            return t
        return t[1:] if t.startswith("\u2581") else "##" + t
    return {orig(t): i for i, t in enumerate(toks)}


def bert_original(texts, gguf, work):
    from transformers import BertTokenizer
    from transformers.models.bert.tokenization_bert_legacy import BertTokenizerLegacy
    vocab = bert_vocab(gguf)
    fast = BertTokenizer(vocab=vocab)
    path = os.path.join(work, "vocab.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(t + "\n" for t in sorted(vocab, key=vocab.get))
    slow = BertTokenizerLegacy(path)
    os.unlink(path)
    return {"BertTokenizer": {"plain": [fast(t, add_special_tokens=False)["input_ids"] for t in texts]},
            "BertTokenizerLegacy": {"plain": [slow(t, add_special_tokens=False)["input_ids"] for t in texts]}}


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    warnings.simplefilter("ignore")
    texts = json.load(open(argv[0], encoding="utf-8"))
    for job in argv[1:]:
        src, out = job.rsplit(":", 1)
        if src.endswith(".gguf"):
            r = bert_original(texts, src, os.path.dirname(os.path.abspath(out)))
        else:
            r = folder(texts, src)
        with open(out, "w") as f:
            json.dump(r, f)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
