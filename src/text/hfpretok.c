/* hfpretok.c - the pre-tokenizers of byte-level BPE vocabularies: for each
 * tokenizer.ggml.pre value, the regexes llama.cpp splits text with
 * (llm_tokenizer_bpe in llama-vocab.cpp; its forms of the tokenizer.json
 * regexes, which Oniguruma and JavaScript read alike), whether a word
 * that is a token is taken whole (ignore_merges) and whether a BOS is
 * added by default. Facts of llama.cpp's, in its order. */
#include <string.h>

#include "hfvocab.h"

/* the GPT-2 regex */
#define GPT2 "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)"
/* llama 3's, case-insensitive contractions spelt out */
#define CONTRACTIONS "(?:'[sS]|'[tT]|'[rR][eE]|'[vV][eE]|'[mM]|'[lL][lL]|'[dD])"
#define LLAMA3 CONTRACTIONS "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"
#define QWEN2 CONTRACTIONS "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"

#define LIST(...) (const char *const[]){__VA_ARGS__, NULL}

static const hf_pretok pretoks[] = {
    {LIST("default"), LIST("[\\p{P}\\$\\+<=>\\^~\\|]+", GPT2, "\\p{N}+", "[0-9][0-9][0-9]"), 0, 0},
    {LIST("llama3", "llama-v3", "llama-bpe", "falcon3", "falcon-h1", "pixtral", "midm-2.0", "lfm2", "jina-v5-nano"),
     LIST(LLAMA3), 1, 1},
    {LIST("dbrx", "smaug-bpe"), LIST(LLAMA3), 0, 0},
    {LIST("deepseek-v3", "hunyuan-dense", "joyai-llm"),
     LIST("\\p{N}{1,3}", "[\xe4\xb8\x80-\xe9\xbe\xa5\xe3\x81\x80-\xe3\x82\x9f\xe3\x82\xa0-\xe3\x83\xbf]+",
          "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| "
          "?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+"),
     0, 0},
    {LIST("deepseek-coder"),
     LIST("[\r\n]", "\\s?\\p{L}+", "\\s?\\p{P}+",
          "[\xe4\xb8\x80-\xe9\xbe\xa5\xe0\xa0\x80-\xe4\xb8\x80\xea\xb0\x80-\xed\x9f\xbf]+", "\\p{N}"),
     0, 0},
    {LIST("falcon"), LIST("[\\p{P}\\$\\+<=>\\^~\\|`]+", GPT2, "[0-9][0-9][0-9]"), 0, 0},
    {LIST("starcoder", "refact", "command-r", "smollm", "codeshell", "exaone", "minerva-7b", "mellum2"),
     LIST("\\p{N}", GPT2), 0, 0},
    {LIST("gpt-2", "phi-2", "jina-es", "jina-de", "gigachat", "jina-v2-es", "jina-v2-de", "a.x-4.0", "mellum",
          "modern-bert", "jina-v1-en", "jina-v2-code", "roberta-bpe", "mpt", "olmo", "jais", "trillion",
          "granite-docling", "exaone4"),
     LIST(GPT2), 0, 0},
    {LIST("qwen2", "deepseek-r1-qwen", "kormo", "f2llmv2", "stablelm2", "megrez", "hunyuan", "solar-open"),
     LIST(QWEN2), 0, 0},
    {LIST("qwen35"),
     LIST(CONTRACTIONS "|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|"
                       "\\s+(?!\\S)|\\s+"),
     0, 0},
    {LIST("poro-chat", "bloom", "gpt3-finnish"),
     LIST(" ?[^(\\s|.,!?\xe2\x80\xa6\xe3\x80\x82\xef\xbc\x8c\xe3\x80\x81\xe0\xa5\xa4\xdb\x94\xd8\x8c)]+"), 0, 0},
    {LIST("glm4", "chatglm-bpe"), LIST(LLAMA3), 0, 0},
    {LIST("viking"),
     LIST(" ?[^(\\s|.,!?\xe2\x80\xa6\xe3\x80\x82\xef\xbc\x8c\xe3\x80\x81\xe0\xa5\xa4\xdb\x94\xd8\x8c)]+", "\\p{N}"), 0,
     0},
    {LIST("gpt-4o", "llama4", "kanana2", "talkie", "minimax-m2"),
     LIST("[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))*((?=[\\p{L}])([^A-Z]))+" CONTRACTIONS
          "?|[^\\r\\n\\p{L}\\p{N}]?((?=[\\p{L}])([^a-z]))+((?=[\\p{L}])([^A-Z]))*" CONTRACTIONS
          "?|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"),
     0, 0},
    {LIST("seed-coder"),
     LIST(CONTRACTIONS "|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1}| ?[^\\s\\p{L}\\p{N}\\r\\n]+|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"),
     0, 0},
    {LIST("grok-2"), LIST(QWEN2), 0, 0},
    {LIST("bailingmoe", "bailingmoe2", "llada-moe"),
     LIST("'(?:[sSdDmMtT]|[lL][lL]|[vV][eE]|[rR][eE])|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
          "\\s*[\\r\\n]|\\s+(?!\\S)|\\s+"),
     0, 0},
};

const hf_pretok *hf_pretok_find(const char *pre, uint64_t len)
{
    for (size_t i = 0; i < sizeof pretoks / sizeof pretoks[0]; i++)
        for (const char *const *n = pretoks[i].names; *n; n++)
            if (strlen(*n) == len && !memcmp(*n, pre, len))
                return &pretoks[i];
    return NULL;
}
